"""Polygon (Codeforces) problem packages: ``problem.xml`` read into ``Metadata`` and a ``Layout`` (pure).

A folder is a Polygon package when it has ``problem.xml`` (or Polygon's fallback name
``problem.xml.polygon``). Its statement is ``statement-sections/<language>/*.tex`` (``legend``,
``input``, ``output``, ``interaction``, ``scoring``, ``notes``; ``name.tex`` the title), composed
into one document that ``\\input``s them, else ``statements/<language>/problem.tex`` (olymp.sty's
``problem`` environment). The samples are the tests ``problem.xml`` marks ``sample="true"``
(``tests/01`` with ``tests/01.a``), else the statement's ``example.01`` and ``example.01.a``. The
solutions tagged ``main`` and ``accepted`` are run; the others are shown. A checker named
``std::wcmp.cpp``, ``rcmp6``... is one of our comparisons; any other runs as testlib's.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ..errors import MetadataError
from ..model import Checker, Layout, Metadata, Validator
from .languages import judge_language, judge_order, language_for

PROBLEM_XML = ("problem.xml", "problem.xml.polygon")
RUN_TAGS = ("main", "accepted")  # solutions that must pass every sample
SECTIONS = (  # statement-sections/<language>/<file>, in the order a statement shows them, and their headings
    ("legend.tex", ""),
    ("input.tex", "Input"),
    ("output.tex", "Output"),
    ("interaction.tex", "Interaction"),
    ("scoring.tex", "Scoring"),
    ("notes.tex", "Note"),
)
COMPOSED = "statement-sections/{language}/statement.tex"  # the composed statement: no file, a Layout text
# Polygon's language names, as the site's two-letter codes (others are kept as Polygon writes them).
LANGUAGES = {
    "english": "en", "russian": "ru", "ukrainian": "uk", "chinese": "zh", "indonesian": "id",
    "spanish": "es", "portuguese": "pt", "french": "fr", "german": "de", "italian": "it", "polish": "pl",
    "japanese": "ja", "korean": "ko", "vietnamese": "vi", "turkish": "tr", "persian": "fa", "arabic": "ar",
    "kazakh": "kk", "uzbek": "uz", "azerbaijani": "az", "georgian": "ka", "armenian": "hy", "romanian": "ro",
}  # fmt: skip
# testlib's standard checkers, as our comparisons. Others (uncmp: unordered) run from their source.
STANDARD_CHECKERS = {
    "wcmp": Checker(),  # tokens
    "lcmp": Checker(),  # tokens line by line: compared as tokens
    "ncmp": Checker(),  # integers
    "icmp": Checker(),
    "hcmp": Checker(),  # huge integers
    "caseicmp": Checker(),
    "casencmp": Checker(),
    "casewcmp": Checker(),
    "fcmp": Checker(mode="spaces"),  # lines compared exactly
    "yesno": Checker(case_sensitive=False),
    "nyesno": Checker(case_sensitive=False),
    "rcmp": Checker(float_absolute=1.5e-6),
    "acmp": Checker(float_absolute=1.5e-6),
    "rncmp": Checker(float_absolute=1.5e-5),
    "dcmp": Checker(float_absolute=1e-6, float_relative=1e-6),
    "rcmp4": Checker(float_absolute=1e-4, float_relative=1e-4),
    "rcmp6": Checker(float_absolute=1e-6, float_relative=1e-6),
    "rcmp9": Checker(float_absolute=1e-9, float_relative=1e-9),
}
_STD = re.compile(r"^std::([a-z0-9]+)(?:\.cpp)?$")


@dataclass(frozen=True, slots=True)
class Program:
    """A program ``problem.xml`` names: its source file and, for solutions, its tag."""

    path: str
    tag: str = ""
    name: str = ""  # a checker's name (``std::wcmp.cpp``)


@dataclass(frozen=True, slots=True)
class PolygonProblem:
    """What ``problem.xml`` says."""

    names: tuple[tuple[str, str], ...] = ()  # (Polygon language, title)
    time_limit: float | None = None  # seconds
    memory_limit: int | None = None  # MiB
    samples: tuple[tuple[str, str], ...] = ()  # (input file, answer file) of the tests marked sample
    checker: Program | None = None
    interactor: Program | None = None
    solutions: tuple[Program, ...] = ()
    statements: tuple[tuple[str, str, str], ...] = ()  # (language, path, MIME type)
    tags: tuple[str, ...] = ()


def is_polygon(names: set[str]) -> bool:
    """Whether a problem folder is a Polygon package (by its top-level file names)."""
    return any(name in names for name in PROBLEM_XML)


def parse_problem_xml(text: str, path: str) -> PolygonProblem:
    """``problem.xml``'s text; ``MetadataError`` (with the line) when it is not well-formed XML."""
    if re.search(r"<!(DOCTYPE|ENTITY)", text):
        line = text.count("\n", 0, re.search(r"<!(DOCTYPE|ENTITY)", text).start()) + 1  # type: ignore[union-attr]
        raise MetadataError(path, line, "a document type or entity declaration; problem.xml has none, refused")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise MetadataError(path, e.position[0], f"not well-formed XML: {e}") from e
    testset = root.find("judging/testset[@name='tests']")
    if testset is None:
        testset = root.find("judging/testset")
    return PolygonProblem(
        names=tuple((n.get("language", ""), n.get("value", "").strip()) for n in root.iterfind("names/name")),
        time_limit=_number(testset, "time-limit", 1000, path),
        memory_limit=int(m) if (m := _number(testset, "memory-limit", 1 << 20, path)) else None,
        samples=_samples(testset),
        checker=_program(root.find("assets/checker"), ""),
        interactor=_program(root.find("assets/interactor"), ""),
        solutions=tuple(
            p for s in root.iterfind("assets/solutions/solution") if (p := _program(s, s.get("tag", ""))) is not None
        ),
        statements=tuple(
            (s.get("language", ""), s.get("path", ""), s.get("type", "")) for s in root.iterfind("statements/statement")
        ),
        tags=tuple(t.get("value", "").strip() for t in root.iterfind("tags/tag") if t.get("value", "").strip()),
    )


def _number(testset: ET.Element | None, tag: str, unit: int, path: str) -> float | None:
    """``<time-limit>`` (ms) or ``<memory-limit>`` (bytes), in seconds or MiB."""
    found = testset.find(tag) if testset is not None else None
    if found is None or not (found.text or "").strip():
        return None
    try:
        value = float((found.text or "").strip()) / unit
    except ValueError as e:
        raise MetadataError(path, None, f"<{tag}> must be a number, not {found.text!r}") from e
    return value if value > 0 else None


def _samples(testset: ET.Element | None) -> tuple[tuple[str, str], ...]:
    """The sample tests' files, by the testset's path patterns (``tests/%02d``, ``tests/%02d.a``)."""
    if testset is None:
        return ()
    given = (testset.findtext("input-path-pattern") or "tests/%02d").strip()
    answer = (testset.findtext("answer-path-pattern") or given + ".a").strip()
    found = []
    for index, test in enumerate(testset.iterfind("tests/test"), 1):
        if test.get("sample") == "true":
            try:
                found.append((given % index, answer % index))
            except (TypeError, ValueError):
                return ()
    return tuple(found)


def _program(element: ET.Element | None, tag: str) -> Program | None:
    if element is None:
        return None
    source = element.find("source")
    path = source.get("path", "") if source is not None else ""
    name = element.get("name", "")
    return Program(path, tag, name) if path or name else None


def language_code(language: str) -> str:
    return LANGUAGES.get(language.lower(), language)


def polygon_metadata(problem: PolygonProblem, names: set[str]) -> Metadata:
    """The entry's metadata: English title first, limits, tags, and how answers are checked."""
    titles = dict(problem.names)
    title = titles.get("english") or next((t for t in titles.values() if t), None)
    checker, custom = _checking(problem.checker, names)
    return Metadata(
        title=title or None,
        tags=problem.tags,
        time_limit=problem.time_limit,
        memory_limit=problem.memory_limit,
        checker=checker,
        package="polygon",
        validation="custom" if custom or problem.interactor else "default",
        interactive=problem.interactor is not None,
    )


def _checking(checker: Program | None, names: set[str]) -> tuple[Checker, bool]:
    """A standard checker as our comparison; otherwise whether the package's own checker must run."""
    if checker is None:
        return Checker(), False
    match = _STD.match(checker.name)
    if match and match.group(1) in STANDARD_CHECKERS:
        return STANDARD_CHECKERS[match.group(1)], False
    return Checker(), True


def polygon_layout(names: list[str], problem: PolygonProblem, has_samples: bool) -> Layout:
    """Roles in a Polygon package; ``missing`` names each part it lacks."""
    present = set(names)
    statements, composed = _statements(names, problem)
    missing: list[str] = []
    if not statements:
        missing.append("a statement (statement-sections/english/legend.tex, or statements/english/problem.tex)")
    if not has_samples:  # named in the package's own language (Russian-only packages are common)
        language = next((lang for lang, _, _ in problem.statements if lang), "english")
        missing.append(f"samples (tests marked sample in problem.xml, or statement-sections/{language}/example.01)")
    run = [p.path for p in problem.solutions if p.tag in RUN_TAGS and p.path in present]
    others = [p.path for p in problem.solutions if p.tag not in RUN_TAGS and p.path in present]
    missing += [f"{p.path}, which problem.xml names" for p in problem.solutions if p.path not in present]
    if not run:
        missing.append("a solution tagged main or accepted in problem.xml")
    solvers = sorted((n for n in run if judge_language(n)), key=lambda n: (judge_order(n), n))
    shown = [n for n in run + others if n not in solvers and language_for(n) not in (None, "text")]
    validator, lacking = _validator(problem, present)
    missing += lacking
    writeup = _tutorial(names, problem)
    pdf = next((p for _, p, kind in problem.statements if kind == "application/pdf" and p in present), None)
    return Layout(
        statements=statements,
        statement_pdf=pdf,
        writeup=writeup,
        solvers=tuple(solvers),
        shown=tuple(sorted(shown)),
        validator=validator,
        missing=tuple(missing),
        composed=composed,
    )


def _statements(
    names: list[str], problem: PolygonProblem
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(language code, file) of each statement, English first, and the composed documents' texts."""
    by_language: dict[str, set[str]] = {}
    for name in names:
        parts = name.split("/")
        if len(parts) == 3 and parts[0] == "statement-sections":
            by_language.setdefault(parts[1], set()).add(parts[2])
    found: dict[str, str] = {}
    composed: list[tuple[str, str]] = []
    for language, files in by_language.items():
        if any(section in files for section, _ in SECTIONS):
            name = COMPOSED.format(language=language)
            found.setdefault(language_code(language), name)
            composed.append((name, compose_statement(files)))
    for language, path, kind in problem.statements:
        if kind == "application/x-tex" and path in names:
            found.setdefault(language_code(language), path)
    ordered = sorted(found.items(), key=lambda item: (item[0] != "en", item[0]))
    return tuple(ordered), tuple(composed)


def compose_statement(files: set[str]) -> str:
    """The TeX of a statement made of its sections: each ``\\input`` under its heading."""
    parts = []
    for section, heading in SECTIONS:
        if section in files:
            parts.append((f"\\section*{{{heading}}}\n" if heading else "") + f"\\input{{{section}}}\n")
    return "\n".join(parts)


def _tutorial(names: list[str], problem: PolygonProblem) -> str | None:
    """``statement-sections/<language>/tutorial.tex``, English first."""
    found = sorted(
        (n for n in names if re.fullmatch(r"statement-sections/[^/]+/tutorial\.tex", n)),
        key=lambda n: (n.split("/")[1] != "english", n),
    )
    return found[0] if found else None


def _validator(problem: PolygonProblem, present: set[str]) -> tuple[Validator | None, list[str]]:
    """The interactor, else a checker that is not one of the standard comparisons: compiled with the
    headers beside it (testlib.h), run as testlib runs it."""
    program, convention = (problem.interactor, "testlib-interactor") if problem.interactor else (problem.checker, "")
    if program is None:
        return None, []
    if not convention:
        match = _STD.match(program.name)
        if match and match.group(1) in STANDARD_CHECKERS:
            return None, []
        convention = "testlib"
    role = "interactor" if problem.interactor else "checker"
    source = program.path or _std_source(program, present)
    if not source or source not in present:
        return None, [f"its {role} {source or program.name}, which problem.xml names"]
    folder = posixpath.dirname(source)
    base = folder + "/" if folder else ""
    headers = sorted(n for n in present if n.startswith(base) and "/" not in n[len(base) :] and n.endswith(".h"))
    language = judge_language(source)
    needs = language is not None and language.id in ("cpp", "c") and f"{base}testlib.h" not in present
    lacking = [f"{base}testlib.h, which its {role} {source} includes"] if needs else []
    files = (source, *headers)
    main = posixpath.basename(source) if language is not None and language.id == "python" else ""
    return Validator(folder, language.id if language else "unknown", main, files, convention), lacking


def _std_source(program: Program, present: set[str]) -> str:
    """A standard checker named without a source: the package's copy at its top, if any."""
    return "check.cpp" if "check.cpp" in present else ""


def sample_pairs(problem: PolygonProblem, names: list[str]) -> list[tuple[str, str | None]]:
    """(input, answer or None) of each sample: the tests marked sample, else the statement's examples
    (``statement-sections/<language>/example.01``, then ``statements/<language>/example.01``). Tests
    whose answers the package does not hold (Polygon makes them with the main solution) give way to
    examples that have all theirs."""
    present = set(names)
    tests = [(given, answer if answer in present else None) for given, answer in problem.samples if given in present]
    examples = _examples(names)
    if tests and (all(answer for _, answer in tests) or not all(answer for _, answer in examples)):
        return tests
    return examples


def _examples(names: list[str]) -> list[tuple[str, str | None]]:
    present = set(names)
    for folder in ("statement-sections", "statements"):
        languages = sorted({n.split("/")[1] for n in names if n.startswith(folder + "/") and n.count("/") == 2})
        for language in sorted(languages, key=lambda lang: lang != "english"):
            base = f"{folder}/{language}/"
            found = sorted(n for n in names if re.fullmatch(re.escape(base) + r"example\.\d+", n))
            if found:
                return [(n, n + ".a" if n + ".a" in present else None) for n in found]
    return []
