"""An entry's solvers and output validator, ready to run: each one's files gathered from the entry (a
package's ``include/`` files and ``{{constants}}``, a CMS task's grader), compiled or built by its own
scripts (``compiler.py``), its command made, or the note that says why it cannot run; and the memory a
run of the entry gets."""

from __future__ import annotations

import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path

from ..model import EntrySource, format_memory
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..source.languages import JudgeLanguage, judge_language, judge_languages, suffix
from ..source.layout import SCRIPTED, folder_files
from ..source.package import substitute_constants
from .compiler import Compiler, Source, text_digest
from .options import VerifyOptions
from .runtimes import python_runtime
from .toolchains import installed, interpreter_for, python2


@dataclass(frozen=True, slots=True)
class Solver:
    name: str  # relative to the problem folder, e.g. "solution.py" or "submissions/accepted/fast.py"
    language: str
    source: str
    argv: tuple[str, ...]  # run inside the working directory holding the source
    note: str = ""  # set when it cannot run (no compiler, compile error, interactive problem)
    program: Path | None = None  # a compiled solver, shown to the run as ``./program`` (or as the table says)
    included: tuple[tuple[str, str], ...] = ()  # a package's include/ files, beside an interpreted solver
    built: Path | None = None  # a submission built by its own ``build`` script: the folder it left, as a tar
    interpreter: str = ""  # the interpreter that runs it (PyPy or the build's Python), for interpreted languages

    @property
    def hash(self) -> str:
        return self.digest[:16]

    @property
    def digest(self) -> str:
        return text_digest(self.source + (repr(self.included) if self.included else ""))

    def files(self) -> dict[str, bytes | tuple[bytes, int]]:
        """The solver's files in its working folder: the compiled program (as its language names it), the
        folder its ``build`` script left, or an interpreted solver's source and what the package includes."""
        if self.program is not None:
            return _program_files(self.program, runtime_language(self.language).program)
        if self.built is not None:
            return _unpacked_tree(read_regular(self.built, MAX_PROGRAM))
        return {self.filename: self.source.encode(), **{name: text.encode() for name, text in self.included}}

    @property
    def filename(self) -> str:
        return posixpath.basename(self.name)


@dataclass(frozen=True, slots=True)
class ValidatorProgram:
    """A runnable output validator: ``argv input answer feedback/ *args < output``, 42 accepts, 43 rejects."""

    name: str  # as messages name it: "checker.py", "output_validator/"
    argv: tuple[str, ...]
    files: tuple[tuple[str, str], ...]  # written into the working directory first
    args: tuple[str, ...]
    digest: str  # of every file and argument, for the verdict cache
    note: str = ""  # why it cannot run
    broken: bool = False  # the note is the package's fault (a compile error), not this machine's
    program: Path | None = None  # a compiled validator, shown to the run as ``./validator``
    convention: str = "kattis"  # how it is called and read (``model.Validator``)
    built: Path | None = None  # a validator built by its own ``build`` script: the folder it left, as a tar

    @property
    def toolchain_free(self) -> bool:
        """Whether it runs without the Python runtime's folders (a compiled or script-built program)."""
        return self.program is not None or self.built is not None


INTERACTIVE_NOTE = "not run: this interactive problem has no output validator to talk to the solver"


def _unrunnable(source: EntrySource) -> str:
    """Why no solver of the entry can run, whatever its language ("" when they can)."""
    if source.meta.multi_pass and source.layout.validator is None:
        return INTERACTIVE_NOTE.replace("interactive", "multi-pass")
    if source.meta.interactive and source.layout.validator is None:
        return INTERACTIVE_NOTE
    return ""


def _programs(source: EntrySource) -> list[Source]:
    """What an entry needs compiled: its solvers in compiled languages (those whose tools are
    here and that can run) and a C++ output validator."""
    programs = []
    for name in source.layout.solvers:
        language = judge_language(name)
        item = source.file(name)
        if language is None or not language.compile or item is None or item.text is None or _unrunnable(source):
            continue
        files = _solver_files(source, name, item.text)
        if not _unsafe_name(files):
            programs.append(Source.of(language, files, posixpath.basename(name)))
    validator = _validator_source(source)
    if validator is not None:
        programs.append(validator)
    return programs


def _validator_source(source: EntrySource) -> Source | None:
    """What a compiled output validator is built from (None for a Python one, or none at all)."""
    spec = source.layout.validator
    language = judge_languages().get(spec.language) if spec is not None else None
    if spec is None or language is None or not language.compile:
        return None
    files = _validator_files(source, spec.folder, spec.files)
    main = next((n for n in sorted(files) if suffix(n) in language.suffixes), "")
    return Source.of(language, files, main)


def _solvers(source: EntrySource, options: VerifyOptions, compiler: Compiler) -> list[Solver]:
    solvers = []
    for name in source.layout.solvers:
        if name.endswith("/"):
            solvers.append(_scripted_solver(source, name, compiler))
            continue
        item = source.file(name)
        language = judge_language(name)
        if item is None or item.text is None or language is None:
            continue
        files = _solver_files(source, name, item.text)
        tools = compiler.tools(language)
        interpreter, needs = ("", "")
        if language.pypy and kattis_package(source):  # as Kattis runs Python 3; our own folders: the build's
            interpreter, needs = interpreter_for(language, item.text, options.interpreter)
        if interpreter:
            tools = installed(language, interpreter)
        note = (
            _unsafe_name(files)
            or (PYTHON2_NOTE if language.id == "python" and python2(name, item.text) else "")
            or _unrunnable(source)
            or (f"not run: {tools.missing}" if tools.missing else "")
            or needs
        )
        if note:
            solvers.append(Solver(name, language.id, item.text, (), note))
            continue
        memory_mb = str(run_memory(source, options) >> 20)
        filename = posixpath.basename(name)
        if not language.compile:
            argv = tuple(tools.command(language.run, main=filename, memory_mb=memory_mb))
            extra = tuple((n, t) for n, t in sorted(files.items()) if n != filename)
            solvers.append(Solver(name, language.id, files[filename], argv, included=extra, interpreter=interpreter))
            continue
        binary, note = compiler.compile(Source.of(language, files, filename))
        argv = tuple(tools.command(language.run, memory_mb=memory_mb)) if binary else ()
        solvers.append(Solver(name, language.id, files[filename], argv, note, binary))
    return solvers


def kattis_package(source: EntrySource) -> bool:
    """An ICPC/Kattis problem package (not one of our own folders, nor a Polygon or CMS one)."""
    return source.meta.package not in (None, "polygon", "cms")


def _scripted_solver(source: EntrySource, name: str, compiler: Compiler) -> Solver:
    """A submission folder with ``build``/``run`` scripts, built as the package format says (as output
    validators with scripts are: ``Compiler.build_scripted``); ``./run`` is then run on every sample."""
    files = _scripted_files(source, name)
    digest = json.dumps(sorted((n, text_digest(t)) for n, t in files.items()))
    note = _unsafe_name(files) or _unrunnable(source)
    if note:
        return Solver(name, SCRIPTED, digest, (), note)
    built, note = compiler.build_scripted(files)
    if built is None:  # shown as a compiled solver's compile error is ("build failed:" and what it printed)
        return Solver(name, SCRIPTED, digest, (), note if note.startswith("could not") else "compile error:\n" + note)
    return Solver(name, SCRIPTED, digest, SCRIPTED_LANGUAGE.run, built=built)


def _scripted_files(source: EntrySource, folder: str) -> dict[str, str]:
    """A scripted submission's text files by their paths in its folder, over the package's
    ``include/default/`` files, constants replaced."""
    constants = dict(source.meta.constants)
    files = {n: substitute_constants(t, constants) for n, t in _included(source, ("default",)).items()}
    for name in folder_files((f.name for f in source.files), folder):
        item = source.file(name)
        if item is not None and item.text is not None:
            files[name[len(folder) :]] = substitute_constants(item.text, constants)
    return files


MAX_MEMORY = 4096 * sandbox.MiB  # the most a package's memory limit gives a run on the build's machine


def run_memory(source: EntrySource, options: VerifyOptions) -> int:
    """The memory (address space, bytes) a run of this entry gets: the package's memory limit, or its
    format's default, as a judge gives it (up to ``MAX_MEMORY``); else the build's."""
    limit = source.meta.memory_limit or format_memory(source.meta.package)
    return min(limit * sandbox.MiB, MAX_MEMORY) if limit else options.memory


PYTHON2_NOTE = "not run: Python 2 (this build runs Python 3, as judges do today)"


def _unsafe_name(files: dict[str, str]) -> str:
    """Why these archive files cannot be handed to a program: a name that reads as an option."""
    bad = sorted(n for n in files if posixpath.basename(n).startswith(("-", "@")))
    return f"not run: a file name may not start with '-' or '@' ({', '.join(bad)})" if bad else ""


def _solver_files(source: EntrySource, name: str, text: str) -> dict[str, str]:
    """A solver's source under its own file name, as it runs or compiles in a working directory, with the
    files a package's ``include/<language>/`` (or ``include/default/``) adds to every submission, which
    win a clash of names, and a CMS task's grader; a package's ``{{constants}}`` replaced in the source and
    the include files."""
    constants = dict(source.meta.constants)
    files = {posixpath.basename(name): substitute_constants(text, constants)}
    language = judge_language(name)
    if source.meta.package and language is not None:
        codes = (*INCLUDE_CODES.get(language.id, (language.id,)), "default")
        for included, item in _included(source, codes).items():
            files[included] = substitute_constants(item, constants)
    for grader in source.layout.graders:  # a CMS task's grader of its language, and the headers beside it
        same = (found := judge_language(grader)) is not None and language is not None and found.id == language.id
        linked = source.file(grader) if same or grader.endswith((".h", ".hpp")) else None
        if linked is not None and linked.text is not None:  # as it is: a CMS task has no constants
            files.setdefault(posixpath.basename(grader), linked.text)
    return files


def _included(source: EntrySource, codes: tuple[str, ...]) -> dict[str, str]:
    """The text files of the first of the package's include folders ``include/<code>/`` that has any, by
    their names inside it (a language's codes as the format's table names it, then ``default``)."""
    for code in codes:
        base = f"include/{code}/"
        found = {f.name[len(base) :]: f.text for f in source.files if f.name.startswith(base) and f.text is not None}
        if found:
            return found
    return {}


INCLUDE_CODES = {"python": ("python3", "python")}  # the format's language codes for ours, where they differ


def _validator_files(source: EntrySource, folder: str, names: tuple[str, ...]) -> dict[str, str]:
    base, constants = (folder + "/" if folder else ""), dict(source.meta.constants)
    return {
        n[len(base) :]: substitute_constants(f.text, constants)
        for n in names
        if (f := source.file(n)) is not None and f.text is not None
    }


MISSING_VALIDATOR = (
    "problem.yaml asks for the package's own output validator (validation: custom), which is not in it;"
    " outputs were not judged"
)


def _validator(source: EntrySource, options: VerifyOptions, compiler: Compiler) -> ValidatorProgram | None:
    """The entry's output validator, ready to run (compiled when it is C++), or None for the default one."""
    spec = source.layout.validator
    if spec is None and source.meta.package and source.meta.validation == "custom":
        # A public release without its validator: the default comparison would fail answers it accepts.
        return ValidatorProgram("output_validator/", (), (), (), hashlib.sha256(MISSING_VALIDATOR.encode()).hexdigest(),
                                MISSING_VALIDATOR)  # fmt: skip
    if spec is None:
        return None
    files = _validator_files(source, spec.folder, spec.files)
    args = source.meta.validator_args  # a package's (only package.py reads them)
    name = f"{spec.folder}/" if spec.folder else spec.main
    if spec.convention != "kattis":
        name = spec.files[0]  # its source, which Polygon's and CMS's layouts name before its headers
    digest = hashlib.sha256(json.dumps([sorted(files.items()), args, spec.main, spec.convention]).encode()).hexdigest()
    if unsafe := _unsafe_name(files):
        return ValidatorProgram(name, (), (), args, digest, f"{name}: {unsafe}", True)
    if spec.language == "python":
        argv = (python_runtime(options.interpreter)[0], spec.main)
        return ValidatorProgram(name, argv, tuple(files.items()), args, digest, convention=spec.convention)
    if spec.language == SCRIPTED:
        folder, note = compiler.build_scripted(files)
        if folder is None:
            return ValidatorProgram(name, (), (), args, digest, f"{name}: {note}", True)
        return ValidatorProgram(name, ("./run",), (), args, digest, built=folder)
    built = _validator_source(source)
    if built is not None and built.language.run == ("./program",):
        binary, note = compiler.compile(built)
        if binary is None and note.startswith("not run: "):
            what = f"the {built.language.name} output validator {name}"
            note = f"{note[9:]}: {what} was not built, so outputs were not judged"
            return ValidatorProgram(name, (), (), args, digest, note)
        if binary is None:
            return ValidatorProgram(name, (), (), args, digest, f"{name}: {note}", True)
        return ValidatorProgram(name, ("./validator",), (), args, digest, program=binary, convention=spec.convention)
    note = f"{name} is written in {spec.language}, which the build cannot run; outputs were not judged"
    return ValidatorProgram(name, (), (), args, digest, note)


# A submission built by its own scripts: no tools to find, ``./run`` (which its build left) is what runs.
SCRIPTED_LANGUAGE = JudgeLanguage(SCRIPTED, "build/run scripts", (), (), ("./run",))


def runtime_language(language: str) -> JudgeLanguage:
    """The table's language of a solver (``language``: its id), or the scripted one."""
    return SCRIPTED_LANGUAGE if language == SCRIPTED else judge_languages()[language]


MAX_PROGRAM = 512 * sandbox.MiB


def _program_files(program: Path | None, name: str) -> dict[str, bytes | tuple[bytes, int]]:
    """A compiled program, as the run's executable file ``name`` (the builder wrote it: the cache is
    no run's to see or write)."""
    return {name: (read_regular(program, MAX_PROGRAM), 0o555)} if program else {}


def _unpacked_tree(archive: bytes) -> dict[str, bytes | tuple[bytes, int]]:
    """The regular files of a built folder's tar (the builder wrote it from the build's pipe), with their
    modes, under their paths in it; nothing is extracted anywhere."""
    import io
    import tarfile

    found: dict[str, bytes | tuple[bytes, int]] = {}
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
        for member in tar:
            name = member.name.removeprefix("./")
            parts = name.split("/")
            if member.isfile() and name and not any(p in ("", ".", "..") for p in parts):
                data = tar.extractfile(member)
                if data is not None:
                    found[name] = (data.read(), 0o755 if member.mode & 0o111 else 0o644)
    return found
