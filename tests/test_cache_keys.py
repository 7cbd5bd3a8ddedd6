"""Cache keys by construction: every input that can change a verdict changes its key.

The inputs are walked field by field (``dataclasses.fields``), so a field added later to what a job
is made from is changed here too, and must either change the key or be listed in ``NOT_A_VERDICT``
with the reason it cannot change a verdict.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from site_builder import build, freshness
from site_builder.build import Builder
from site_builder.errors import Diagnostic
from site_builder.model import (
    Checker,
    EntrySource,
    Layout,
    Metadata,
    Sample,
    SourceFile,
    Subtask,
    TexPicture,
    TrackInfo,
    Validator,
)
from site_builder.render import math, pictures
from site_builder.render.math import MathRenderer, snippet_key
from site_builder.render.pictures import PictureRenderer, PictureResult
from site_builder.sandbox.runner import Limits
from site_builder.source.config import BuildOptions, SiteConfig, load_site_config, make_options
from site_builder.source.languages import JudgeLanguage
from site_builder.verify import compiler, jobs
from site_builder.verify.compiler import Compiler, Source
from site_builder.verify.options import VerifyOptions
from site_builder.verify.solvers import Solver, ValidatorProgram
from site_builder.verify.toolchains import Installed
from site_builder.verify.verifier import Verifier

# (class, field) -> why changing it cannot change a verdict (or which other field carries it to the key).
NOT_A_VERDICT: dict[tuple[type, str], str] = {
    (Solver, "name"): "the same source in another file is judged the same",
    (Solver, "note"): "a solver with a note is not run: it has no jobs",
    (ValidatorProgram, "name"): "how messages name it",
    (ValidatorProgram, "argv"): "made from the interpreter (keyed by version) and the files (the digest)",
    (ValidatorProgram, "files"): "the digest is of every file and argument",
    (ValidatorProgram, "args"): "the digest is of every file and argument",
    (ValidatorProgram, "broken"): "a broken validator has a note, which is keyed",
    (ValidatorProgram, "program"): "compiled from the files the digest covers",
    (ValidatorProgram, "built"): "built by the validator's own build script from the files the digest covers",
    (ValidatorProgram, "convention"): "in the validator's digest (how it is called and read)",
    (Sample, "name"): "the same input and answer are judged the same under any name",
    (Sample, "input_file"): "only where the input came from",
    (Sample, "answer_file"): "only where the answer came from",
    (Sample, "transcript"): "shown on the page instead of input and answer, never run",
    (Sample, "transcript_file"): "only where the transcript came from",
    (VerifyOptions, "jobs"): "how many run at once",
    (VerifyOptions, "rerun"): "runs every job again, whatever the cache holds",
    (VerifyOptions, "cache_dir"): "where the cache is",
    (VerifyOptions, "cpp_standard"): "reaches the key through the compiled program's folder (the compiler's key)",
    (VerifyOptions, "time_limit"): "the default for problems without one; the base problem has one (see below)",
    (VerifyOptions, "memory"): "the default for problems without one; the base problem has one (see below)",
    **{
        (Metadata, name): "shown on the page, never used to run or judge"
        for name in ("title", "label", "source", "year", "tags", "rating", "summary", "status", "credits", "source_url")
        if name
    },
    **{(Metadata, name): "shown on the page" for name in ("license", "rights_owner", "validation")},
    (Metadata, "scoring"): "shown on the page (a subtasks table); samples are judged as in any problem",
    (Metadata, "subtasks"): "shown on the page",
    (Metadata, "validator_args"): "in the validator's digest",
    (Metadata, "package"): "changes which files and arguments solvers and validators get: in their digests",
    (Metadata, "constants"): "substituted into solvers and validators before their digests are taken",
}


def changed(value: Any) -> Iterator[tuple[str, Any]]:
    """Each way of changing ``value`` a little: (which field, the changed value); fields of a dataclass
    one at a time, recursively."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            for where, new in changed(getattr(value, f.name)):
                here = f"{type(value).__name__}.{f.name}"
                yield (
                    f"{here}/{where}" if where.startswith(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) else here + where,
                    (dataclasses.replace(value, **{f.name: new})),
                )
        return
    if isinstance(value, bool):
        yield "", not value
    elif isinstance(value, int | float):
        yield "", value * 2 + 1
    elif isinstance(value, str):
        yield "", value + "x"
    elif isinstance(value, Path):
        yield "", value.parent / "x" / value.name  # another folder: compiled programs are keyed by theirs
    elif isinstance(value, tuple) and value and all(isinstance(v, int | float) for v in value):
        for i, item in enumerate(value):  # a pair of numbers keeps its length
            yield f"[{i}]", (*value[:i], item * 2 + 1, *value[i + 1 :])
    elif isinstance(value, tuple):
        yield "", (*value, value[-1] if value else "x")
    else:
        raise AssertionError(f"no way to change {value!r}: give the base object a value of a known type")


SAMPLE = Sample("1", "samples/1.in", "samples/1.ans", "1 2\n", "3\n", "transcript", "samples/1.interaction")
META = Metadata(
    title="T", label="A", source="S", year=2020, tags=("x",), rating=3, summary="s", time_limit=2.0,
    memory_limit=256, checker=Checker("tokens", False, 1e-6, 1e-6), source_url="u", license="l",
    rights_owner="r", validator_args=("a",), package="2025-09", validation="custom", interactive=False,
    multi_pass=False, validation_passes=2, constants=(("n", "5"),), credits=(("Authors", ("A",)),),
    scoring=False, subtasks=(Subtask("g1", 10.0),),
)  # fmt: skip
SOLVER = Solver(
    "solution.py",
    "python",
    "print(3)",
    ("python3", "solution.py"),
    "",
    Path("/c/abc/program"),
    (("a", "b"),),
    Path("/c/def/built.tar"),
    sys.executable,
)
VALIDATOR = ValidatorProgram(
    "v.py",
    ("python3", "v.py"),
    (("v.py", "x"),),
    ("a",),
    "d1",
    "",
    False,
    Path("/c/v/validator"),
    "kattis",
    Path("/c/v/built.tar"),
)
OPTIONS = VerifyOptions(interpreter="/usr/bin/python3", time_limit=3.0, time_margin=(2.0, 1.0))


def source(meta: Metadata = META, sample: Sample = SAMPLE) -> EntrySource:
    return EntrySource("t/A-x", "archive", "t", (), None, "x", None, meta, (), (sample,), "2020-01-01")


def key(
    meta: Metadata = META,
    sample: Sample = SAMPLE,
    solver: Solver = SOLVER,
    validator: ValidatorProgram | None = VALIDATOR,
    options: VerifyOptions = OPTIONS,
) -> str:
    (job,) = jobs._jobs(source(meta, sample), solver, Path("/archive"), validator, options)
    return job.key


@pytest.fixture(autouse=True)
def versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every interpreter path its own version, so that a changed interpreter is a changed version."""
    monkeypatch.setattr(jobs, "interpreter_version", lambda path: f"version of {path}")


def variants() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, base in [("meta", META), ("sample", SAMPLE), ("solver", SOLVER), ("validator", VALIDATOR)]:
        for where, new in changed(base):
            yield where, {name: new}
    for where, new in changed(OPTIONS):
        yield where, {"options": new}


def _field(where: str) -> tuple[type, str]:
    """The innermost class and field of a change: "Metadata.checker/Checker.mode" -> (Checker, "mode")."""
    owner, name = where.rsplit("/", 1)[-1].split("[")[0].split(".")
    classes = {c.__name__: c for c in (Metadata, Sample, Solver, ValidatorProgram, VerifyOptions, Checker)}
    return classes[owner], name


def test_every_input_of_a_verdict_changes_its_key() -> None:
    base = key()
    unchanged = [where for where, change in variants() if key(**change) == base and _field(where) not in NOT_A_VERDICT]
    assert unchanged == [], "these change what a run is judged by, but not its cache key"


def test_what_cannot_change_a_verdict_keeps_its_key() -> None:
    """The list above is honest: nothing in it changes the key (else it does not belong there)."""
    base = key()
    keyed = [where for where, change in variants() if _field(where) in NOT_A_VERDICT and key(**change) != base]
    assert keyed == []


def test_the_checker_the_limits_the_sample_and_the_code_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ones that matter most, by name: a float tolerance removed must not reuse an Accepted."""
    base = key()
    assert key(meta=dataclasses.replace(META, checker=Checker("tokens", False, None, 1e-6))) != base
    assert key(meta=dataclasses.replace(META, checker=Checker("exact"))) != base
    assert key(meta=dataclasses.replace(META, time_limit=None)) != base  # the build's default then
    assert key(
        meta=dataclasses.replace(META, time_limit=None), options=dataclasses.replace(OPTIONS, time_limit=9)
    ) != key(meta=dataclasses.replace(META, time_limit=None))
    assert key(meta=dataclasses.replace(META, memory_limit=None)) != base  # the format's default then
    unset = dataclasses.replace(META, memory_limit=None, package=None)  # no package: the build's default
    assert key(meta=unset, options=dataclasses.replace(OPTIONS, memory=512 << 20)) != key(meta=unset)
    assert key(sample=dataclasses.replace(SAMPLE, answer=None)) != base
    assert key(validator=None) != base
    monkeypatch.setattr(jobs, "_code_fingerprint", lambda: "other code")
    assert key() != base
    monkeypatch.setattr(jobs, "CACHE_VERSION", "other layout")
    assert key() != base


# The caches of rendering: an entry's pages (the render cache), a picture's drawing, a compiled program.
# Each is walked as the verdict's inputs are, with ``every_change``: into nested values and into each
# item of a tuple, so a field added later anywhere inside is changed too.


def every_change(
    value: Any, record: bool = False, whole: frozenset[tuple[type, str]] = frozenset()
) -> Iterator[tuple[tuple[type, str] | None, Any]]:
    """Each way of changing ``value`` a little: (the innermost class and field changed, or None for
    ``value`` itself; the changed value). A tuple is a sequence, one item longer when changed, unless it
    is an item of a tuple (``record``: a pair such as (name, text)), which keeps its length. A change
    anywhere inside a field of ``whole`` is named by that field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.init:
                outer = (type(value), f.name)
                for where, new in every_change(getattr(value, f.name), whole=whole):
                    yield outer if outer in whole else where or outer, dataclasses.replace(value, **{f.name: new})
    elif isinstance(value, dict):
        assert value, "give the base object a non-empty dict, so that its values are changed too"
        last = list(value)[-1]
        yield None, {**value, last + "x": value[last]}
        for name, item in value.items():
            for where, new in every_change(item, whole=whole):
                yield where, {**value, name: new}
    elif isinstance(value, tuple):
        assert value, "give the base object a non-empty tuple, so that its items are changed too"
        if not record:
            yield None, (*value, value[-1])
        for i, item in enumerate(value):
            for where, new in every_change(item, isinstance(item, tuple) and not record, whole):
                yield where, (*value[:i], new, *value[i + 1 :])
    else:
        for _, new in changed(value):
            yield None, new


def unkeyed(
    base: Any, key_of: Any, exempt: dict[tuple[type, str], str], whole: frozenset[tuple[type, str]] = frozenset()
) -> tuple[list[str], list[str]]:
    """The changes of ``base`` that keep its key though not exempt, and the exempt ones that change it
    (``whole``: fields whose every change, however deep, is the field's)."""
    first = key_of(base)
    kept, keyed = [], []
    for where, new in every_change(base, whole=whole):
        assert where is not None
        name = f"{where[0].__name__}.{where[1]}"
        same = key_of(new) == first
        if same and where not in exempt:
            kept.append(name)
        elif not same and where in exempt:
            keyed.append(name)
    return kept, keyed


def test_unkeyed_finds_a_field_left_out_of_a_key() -> None:
    """The walk itself: a key that leaves out one field, however deep, is caught."""
    kept, keyed = unkeyed(META, lambda m: repr(dataclasses.replace(m, checker=Checker())), {})
    assert sorted(set(kept)) == sorted(f"Checker.{f.name}" for f in dataclasses.fields(Checker))
    assert keyed == []


ENTRY = EntrySource(
    path="t/2020/A-x", archive_prefix="archive", track="t", groups=("2020",), folder_label="A", folder_title="x",
    folder_year=2020, meta=META,
    files=(
        SourceFile("solution.tex", "text", 4, "d1", "", (16, 9)), SourceFile("a.txt", "text", 9, "d2", "big", (4, 3))
    ),
    samples=(dataclasses.replace(SAMPLE, answer_file="samples/1.ans"),), updated="2020-01-01",
    diagnostics=(Diagnostic("archive/t/2020/A-x/problem.yaml", 3, "a warning", "warning"),),
    layout=Layout(
        statements=(("en", "statement.tex"),), statement_pdf="statement.pdf", writeup="solution.tex",
        solvers=("solution.py",), shown=("other.cpp",),
        validator=Validator("output_validator", "python", "v.py", ("output_validator/v.py",)), missing=("a test",),
        composed=(("legend", "statement-sections/english/legend.tex"),),
        graders=("sol/grader.cpp",),
    ),
    slug="t/2020/a-x", withheld=(("page.html", "a browser would run it"),),
    shared=(SourceFile("t/common/header.tex", "text", 5, "d3", "", (16, 9)),),
)  # fmt: skip

# (class, field) -> why an entry's pages cannot change with it though its render key does not.
NOT_RENDERED: dict[tuple[type, str], str] = {
    (SourceFile, "text"): "the digest is of the file's bytes",
    (SourceFile, "size"): "the digest is of the file's bytes",
    (SourceFile, "image_size"): "read from the file's bytes, which its digest covers",
    (Sample, "input"): "the text of a file of the entry: keyed by that file's digest",
    (Sample, "answer"): "the text of a file of the entry: keyed by that file's digest",
    (Sample, "transcript"): "the text of a file of the entry: keyed by that file's digest",
    (Sample, "transcript_file"): "a file of the entry (keyed by its name), paired with the sample by its name",
}


def render_key(source: EntrySource) -> str:
    tools = SimpleNamespace(math=SimpleNamespace(cache_path=Path("/c/math-temml-1-abc.sqlite")))
    tools.pictures = SimpleNamespace(version="latex 1, dvisvgm 2")
    return Builder._render_key(tools, source)  # type: ignore[arg-type]


def test_every_part_of_an_entry_changes_its_render_key() -> None:
    kept, keyed = unkeyed(ENTRY, render_key, NOT_RENDERED)
    assert kept == [], "these change what an entry's pages show, but not their cache key"
    assert keyed == [], "NOT_RENDERED lists these, but they change the key: take them out of the list"


def test_the_renderers_the_math_tool_and_tex_change_the_render_key(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = SimpleNamespace(math=SimpleNamespace(cache_path=Path("/c/math-temml-1-abc.sqlite")))
    tools.pictures = SimpleNamespace(version="latex 1, dvisvgm 2")
    base = Builder._render_key(tools, ENTRY)  # type: ignore[arg-type]
    tools.pictures.version = "none"
    assert Builder._render_key(tools, ENTRY) != base  # type: ignore[arg-type]
    tools.math.cache_path = Path("/c/math-temml-2-abc.sqlite")
    assert Builder._render_key(tools, ENTRY) != base  # type: ignore[arg-type]
    monkeypatch.setattr(build, "renderer_fingerprint", lambda: "other renderer")
    assert Builder._render_key(tools, ENTRY) != base  # type: ignore[arg-type]


def test_a_formula_is_keyed_by_its_tex_and_whether_it_is_displayed() -> None:
    keys = {snippet_key(tex, display) for tex in ("x", "x ", "1\0x", "") for display in (False, True)}
    assert len(keys) == 8


def test_the_math_cache_is_one_per_temml_version_and_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Temml's options live in its worker script: a new version of either is a new cache file."""
    package = tmp_path / "node_modules" / "temml" / "package.json"
    package.parent.mkdir(parents=True)
    package.write_text('{"version": "0.10.1"}')
    worker = tmp_path / "worker.mjs"
    worker.write_text("render(tex, {displayMode})")
    monkeypatch.setattr(math, "WORKER", worker)
    base = MathRenderer.cache_name(tmp_path)
    package.write_text('{"version": "0.10.2"}')
    assert MathRenderer.cache_name(tmp_path) != base
    package.write_text('{"version": "0.10.1"}')
    worker.write_text("render(tex, {displayMode, trust: true})")
    assert MathRenderer.cache_name(tmp_path) != base
    worker.write_text("render(tex, {displayMode})")
    assert MathRenderer.cache_name(tmp_path) == base


TIKZ = TexPicture("\\draw (0,0) -- (1,1);", "\\usepackage{tikz}", 3, ("image1.png",), "tikz", "8cm")
PDF_FIGURE = TexPicture("", "", 5, ("figure.pdf",), "pdf", "50%")
NOT_DRAWN: dict[tuple[type, str], str] = {
    (TexPicture, "line"): "where the picture stands; an error's line is counted from the picture's start",
    (TexPicture, "width"): "the width of the picture on the page, not of its drawing",
}
ANY_BUT_PDF = {(TexPicture, "kind"): 'every kind but "pdf" is drawn by TeX from the source (pdf: see below)'}


def picture_key(picture: TexPicture, digests: dict[str, str] | None = None) -> str:
    """The key the renderer looks its cache up by (``digests``: of the problem folder's files)."""
    renderer = PictureRenderer.__new__(PictureRenderer)
    renderer.latex, renderer.dvisvgm, renderer.pdftocairo = "latex", "dvisvgm", "pdftocairo"
    renderer.version, renderer.pdf_version = "latex 1, dvisvgm 2", "pdftocairo 3"
    looked_up: list[str] = []

    def cached(key: str) -> PictureResult:
        looked_up.append(key)
        return PictureResult(svg="<svg/>")

    renderer._cached = cached  # type: ignore[method-assign]
    names = ("image1.png", "figure.pdf", "image1.pngx", "figure.pdfx")
    renderer.draw_all([picture], None, digests or {name: f"digest of {name}" for name in names})
    (key,) = looked_up
    return key


def test_every_part_of_a_picture_changes_its_key() -> None:
    kept, keyed = unkeyed(TIKZ, picture_key, NOT_DRAWN | ANY_BUT_PDF)
    assert kept == [] and keyed == []
    assert picture_key(dataclasses.replace(TIKZ, kind="pdf")) != picture_key(TIKZ)


def test_a_pdf_figure_is_keyed_by_its_file_only() -> None:
    """A PDF figure is converted from its file alone: its (empty) TeX source and preamble are not read."""
    exempt = NOT_DRAWN | {(TexPicture, "source"): "not read", (TexPicture, "preamble"): "not read"}
    kept, keyed = unkeyed(PDF_FIGURE, picture_key, exempt)
    assert kept == [] and keyed == []
    renamed = dataclasses.replace(PDF_FIGURE, images=("figure.pdfx",))
    assert picture_key(renamed) != picture_key(PDF_FIGURE)  # another file's digest


def test_new_content_of_an_image_tex_or_this_code_changes_a_pictures_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = picture_key(TIKZ)
    assert picture_key(TIKZ, {"image1.png": "new content"}) != base
    assert picture_key(PDF_FIGURE, {"figure.pdf": "new content"}) != picture_key(PDF_FIGURE)
    monkeypatch.setattr(pictures, "_CODE", "other code")
    assert picture_key(TIKZ) != base


CPP = JudgeLanguage(
    id="cpp", name="C++", suffixes=(".cpp", ".cc"), tools=("g++",), run=("./program",),
    compile=("g++", "-O2", "-std={cpp_std}", "-o", "program", "{files}"), version=("g++", "--version"),
    program="program", threads=False, sysroot=("print-sysroot",),
)  # fmt: skip
PROGRAM = Source(CPP, (("main.cpp", "int main() {}"), ("util.cc", "int f() { return 1; }")), "main.cpp")
NOT_COMPILED: dict[tuple[type, str], str] = {
    (JudgeLanguage, "name"): "how pages name the language",
    (JudgeLanguage, "run"): "how the program is run, not built (the verdict key has it)",
    (JudgeLanguage, "threads"): "the limits of the program's runs, not of its compile",
    (JudgeLanguage, "pypy"): "which interpreter runs a program, not how it is built (the verdict key has it)",
    **{
        (JudgeLanguage, name): "which compiler is found, and how its version is read: the version found is keyed"
        for name in ("tools", "version", "sysroot")
    },
}


def test_every_part_of_a_programs_sources_and_language_changes_where_it_is_compiled_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Compiler, "tools", lambda self, language: Installed(language, version="g++ 14"))
    compiler = Compiler(tmp_path)
    kept, keyed = unkeyed(PROGRAM, compiler.program, NOT_COMPILED)
    assert kept == [], "these change how a program is built, but not where the compiled program is kept"
    assert keyed == [], "NOT_COMPILED lists these, but they change the key: take them out of the list"


def test_the_compilers_version_the_standard_and_this_code_change_where_a_program_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = "g++ 14"
    monkeypatch.setattr(Compiler, "tools", lambda self, language: Installed(language, version=version))
    base = Compiler(tmp_path).program(PROGRAM)
    assert Compiler(tmp_path, cpp_standard="c++17").program(PROGRAM) != base
    version = "g++ 15"
    assert Compiler(tmp_path).program(PROGRAM) != base
    version = "g++ 14"
    monkeypatch.setattr(compiler, "_CODE", "other code")
    assert Compiler(tmp_path).program(PROGRAM) != base


# An entry verified before with the same inputs is recalled whole, by its entry key: what verifying it reads.
READ = dataclasses.replace(
    ENTRY,
    files=tuple(
        SourceFile(name, "text", 4, f"digest of {name}", "", (16, 9))
        for name in ("solution.py", "output_validator/v.py", "samples/1.in", "samples/1.ans", "include/x.h")
    ),
)
NOT_VERIFIED: dict[tuple[type, str], str] = {
    **{
        (EntrySource, name): "where the entry is listed, and how its page shows it"
        for name in ("archive_prefix", "track", "groups", "folder_label", "folder_title", "folder_year", "updated")
    },
    (EntrySource, "diagnostics"): "notes on the page",
    **{(Diagnostic, f.name): "a note on the page" for f in dataclasses.fields(Diagnostic)},
    (EntrySource, "slug"): "the folder of its page",
    (EntrySource, "withheld"): "which files the site publishes",
    (EntrySource, "shared"): "TeX files outside the folder that its documents input: rendered, never run",
    **{(c, f): r for (c, f), r in NOT_RENDERED.items() if c in (SourceFile, Sample)},
}


def entry_key(source: EntrySource) -> str:
    verifier = Verifier.__new__(Verifier)
    verifier.settings = "interpreter, limits, tools"
    return verifier._entry_key(source)


def test_every_input_of_an_entrys_verification_changes_its_entry_key() -> None:
    kept, keyed = unkeyed(READ, entry_key, NOT_VERIFIED, frozenset({(EntrySource, "shared")}))
    assert kept == [], "these change what verifying the entry reads, but a verification made before is recalled"
    assert keyed == [], "NOT_VERIFIED lists these, but they change the key: take them out of the list"


def test_an_entrys_statement_and_write_up_keep_its_entry_key() -> None:
    """An author editing the write-up keeps the entry's verification."""
    edited = [SourceFile(name, "new text", 8, "new digest", "") for name in ("solution.tex", "statement.tex")]
    more = dataclasses.replace(READ, files=(*READ.files, *edited))
    assert entry_key(more) == entry_key(READ)
    assert entry_key(dataclasses.replace(more, files=(*READ.files, edited[0]))) == entry_key(READ)


# A published site is kept while the settings key (every input but the archive) and the archive are the same.
SITE = SiteConfig(
    title="T", description="d", base_url="https://x.org/", repo_url="https://git.x.org/a", repo_branch="main",
    footer="f", overrides="o", time_limit=2.0, tracks={"icpc": TrackInfo("ICPC", "contests")}, cpp_standard="c++20",
    time_margin=(2.0, 1.0), publish_active_files=False, publish_data="samples", exclude=("drafts",),
)  # fmt: skip
BUILD = BuildOptions(
    root=Path("/p"), archive=Path("/p/archive"), out=Path("/p/site"), templates=Path("/p/t"), static=Path("/p/s"),
    cache=Path("/p/.cache"), jobs=2, strict=False, verify=True, rerun=False, interpreter="/usr/bin/python3",
    base_url="https://y.org/",
)  # fmt: skip
NOT_A_SETTING: dict[tuple[type, str], str] = {
    (BuildOptions, "root"): "where node_modules are found: what is found there is keyed (math's name, libraries)",
    (BuildOptions, "archive"): "the archive is keyed by its content, wherever it is",
    (BuildOptions, "templates"): "the theme is keyed by its files' content (the program fingerprint)",
    (BuildOptions, "static"): "the theme is keyed by its files' content (the program fingerprint)",
    (BuildOptions, "cache"): "where the caches are",
    (BuildOptions, "jobs"): "how many work at once",
    (BuildOptions, "rerun"): "a build with --rerun never keeps the published site",
    (BuildOptions, "base_url"): "put into the site's configuration, which is keyed (see below)",
    (BuildOptions, "watch"): "how the archive's stamp is found (a watcher's answer), not what it is",
}


def settings(config: SiteConfig = SITE, options: BuildOptions = BUILD) -> str:
    return freshness.settings_key(options, config, "math-temml-1-abc.sqlite", "program")


def test_every_setting_a_page_shows_changes_the_settings_key() -> None:
    kept, keyed = unkeyed(SITE, lambda config: settings(config=config), {})
    assert kept == [], "these change what site.yaml makes of pages, but a published site is kept"
    kept, keyed = unkeyed(BUILD, lambda options: settings(options=options), NOT_A_SETTING)
    assert kept == [], "these change how a build makes pages, but a published site is kept"
    assert keyed == [], "NOT_A_SETTING lists these, but they change the key: take them out of the list"
    assert settings() != freshness.settings_key(BUILD, SITE, "math-temml-2-abc.sqlite", "program")
    assert settings() != freshness.settings_key(BUILD, SITE, "math-temml-1-abc.sqlite", "other program")


def test_the_base_url_option_reaches_the_settings_key_through_the_configuration(tmp_path: Path) -> None:
    options = make_options(tmp_path, archive=tmp_path)
    assert load_site_config(dataclasses.replace(options, base_url="https://y.org/")).base_url == "https://y.org/"


def job(**change: Any) -> jobs.Job:
    (made,) = jobs._jobs(
        source(change.get("meta", META)),
        change.get("solver", SOLVER),
        Path("/archive"),
        change.get("validator", VALIDATOR),
        change.get("options", OPTIONS),
    )
    return made


def test_the_interpreter_is_keyed_only_where_it_runs_something() -> None:
    """Python solvers and validators run on the build's interpreter; a C++ solver judged by the
    default comparison does not, and keeps its verdicts when the interpreter changes."""
    other = dataclasses.replace(OPTIONS, interpreter="/opt/python3.13")
    cpp = dataclasses.replace(SOLVER, language="cpp", argv=("./program",))
    assert key(solver=cpp, validator=None) == key(solver=cpp, validator=None, options=other)
    assert key(solver=cpp) != key(solver=cpp, options=other)
    assert key(validator=None) != key(validator=None, options=other)


def test_a_solver_that_is_not_compiled_is_keyed_too() -> None:
    interpreted = dataclasses.replace(SOLVER, program=None)
    assert key(solver=interpreted) != key()


def test_a_job_is_judged_by_the_problems_time_limit_or_the_builds() -> None:
    assert job().time_limit == META.time_limit
    assert job(meta=dataclasses.replace(META, time_limit=None)).time_limit == OPTIONS.time_limit


def test_the_time_limit_a_run_is_judged_by_is_keyed_even_where_it_stops_at_the_same_time() -> None:
    """2 s with a margin of twice the limit and 4 s with none both stop a run at 4 s of CPU time (and
    8 s on the clock), and judge 3 s of CPU time differently."""
    twice = dataclasses.replace(OPTIONS, time_margin=(2.0, 0.0))
    none = dataclasses.replace(OPTIONS, time_margin=(1.0, 0.0))
    short, long = dataclasses.replace(META, time_limit=2.0), dataclasses.replace(META, time_limit=4.0)
    assert job(meta=short, options=twice).limits == job(meta=long, options=none).limits
    assert key(meta=short, options=twice) != key(meta=long, options=none)


def test_an_entry_without_a_validator_has_an_entry_key() -> None:
    without = dataclasses.replace(READ, layout=dataclasses.replace(READ.layout, validator=None))
    assert entry_key(without) != entry_key(READ)


def test_a_job_runs_what_its_key_was_made_from() -> None:
    """Each value a job is run and judged with is the one its key was made from."""
    meta = dataclasses.replace(META, interactive=True, multi_pass=True, validation_passes=5)
    made = job(meta=meta)
    stop = jobs.safety_margin(meta.time_limit or 0, *OPTIONS.time_margin)
    assert (made.entry, made.solver, made.sample, made.archive_dir) == ("t/A-x", SOLVER, SAMPLE, Path("/archive"))
    memory = (META.memory_limit or 0) << 20  # the package's limit, for the address space; the stack within it
    limits = Limits(jobs.wall_backstop(stop), memory, stack=resource.RLIM_INFINITY, cpu=stop)
    assert (made.checker, made.validator, made.limits) == (META.checker, VALIDATOR, limits)
    assert (made.time_limit, made.interactive, made.multi_pass, made.passes) == (META.time_limit, True, True, 5)


@pytest.mark.parametrize("parts", [[], [None], ["a", None, 'q"\\\n\u00e9\U0001f600', ""]])
def test_the_keys_lists_are_json(parts: list[str | None]) -> None:
    assert jobs._json_list(parts) == json.dumps(parts)
