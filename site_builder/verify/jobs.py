"""Verification: every reference solver run on every sample at build time, checked, and cached.

Every solver in a language of ``languages.yaml`` (``solution.*``, a package's accepted submissions)
runs in the sandbox where the language's tools are installed: Python under the build's interpreter,
the others compiled once (``compiler.py``) and run. Output is judged by the comparisons of
``compare.py`` or the problem's checker (``checkers.py``); an interactive or multi-pass problem's
solver talks to its output validator instead. Results are cached by a hash of everything that can
change them (``cache.py``), so a rebuild where nothing relevant changed starts no process at all.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import re
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from ..errors import Diagnostic
from ..model import CHECKER_NOT_BUILT, Checker, Entry, EntrySource, Sample, SolverRun, Verdict, format_memory
from ..sandbox import runner as sandbox
from ..sandbox.runner import Call, Limits, RunResult, Toolchain
from ..source.languages import TABLE, JudgeLanguage, judge_language, judge_languages, suffix
from ..source.layout import SCRIPTED, folder_files
from ..source.package import substitute_constants
from .cache import Recalled, ResultCache
from .checkers import checker_arguments, judge_checker, judge_interactor
from .compare import compare_output
from .compiler import CPP_STANDARD, Compiler, Source, text_digest
from .runtimes import interpreter_version, python_runtime
from .toolchains import Installed, installed, interpreter_for, pypy, python2, python2_failure, sandboxed

SHOWN_OUTPUT = 64 * 1024
CACHE_VERSION = "3"
Progress = Callable[[int, int], None]
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    interpreter: str = sys.executable
    jobs: int = 2
    rerun: bool = False
    cache_dir: Path = Path(".cache")
    time_limit: float = 10.0
    memory: int = 1024 * sandbox.MiB
    cpp_standard: str = CPP_STANDARD
    time_margin: tuple[float, float] = (2.0, 1.0)  # runs are stopped at max(limit * a, limit + b) seconds


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
            return _unpacked_tree(sandbox.read_regular(self.built, MAX_PROGRAM))
        return {self.filename: self.source.encode(), **{name: text.encode() for name, text in self.included}}

    @property
    def filename(self) -> str:
        return self.name.rsplit("/", 1)[-1]


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


@dataclass(frozen=True, slots=True)
class Job:
    entry: str
    solver: Solver
    sample: Sample
    archive_dir: Path
    checker: Checker
    validator: ValidatorProgram | None
    limits: Limits
    key: str
    time_limit: float = 10.0  # the problem's limit; a run is stopped only at ``limits.wall``, the margin above it
    interactive: bool = False  # the solver talks to the validator instead of reading the sample
    multi_pass: bool = False  # the validator may ask for another pass (feedback/nextpass.in)
    passes: int = 2  # at most this many passes (limits: validation_passes)
    io_files: tuple[str, str] = ("", "")  # the files the solver reads and writes instead of stdin, stdout


@dataclass
class VerifyReport:
    runs: dict[str, tuple[SolverRun, ...]] = field(default_factory=dict)
    started: int = 0  # processes started for solvers (not counting checkers)
    cache_warning: str | None = None


def verify_entries(
    sources: list[EntrySource], archive: Path, options: VerifyOptions, progress: Progress | None = None
) -> VerifyReport:
    """Run every solver of every entry on its samples. Never raises for a misbehaving solver."""
    return Verifier(options).run(sources, archive, progress)


class Verifier:
    """Keeps the verdict cache and the compiler between runs (the dev server verifies one entry at a time)."""

    def __init__(self, options: VerifyOptions) -> None:
        self.options = options
        self.cache = ResultCache(options.cache_dir / "verify.json")
        self.compiler = Compiler(
            options.cache_dir / "programs", options.rerun, options.interpreter, options.cpp_standard
        )
        # The part of every entry's key that is not the entry's (see ``_entry_key``): the tools found
        # for each language (a JDK installed since is a change) and the table's commands.
        self.settings = _json_list(
            [
                CACHE_VERSION,
                options.interpreter,
                interpreter_version(options.interpreter),
                repr((options.time_limit, options.memory, options.cpp_standard, options.time_margin)),
                text_digest(TABLE.read_text(encoding="utf-8")),
                _code_fingerprint(),
                *(
                    self.compiler.tools(lang).missing or self.compiler.tools(lang).version
                    for lang in judge_languages().values()
                ),
                *(interpreter_version(found[0]) for lang in judge_languages().values() if (found := pypy(lang))),
            ]
        )

    def run(
        self, sources: list[EntrySource], archive: Path, progress: Progress | None = None, whole: bool = False
    ) -> VerifyReport:
        """Verify ``sources``; ``whole``: they are the whole archive, so no other verdict is worth keeping.

        An entry verified before with the same files, metadata and tools is recalled whole: its
        runs, with their verdicts from the cache, without a job or a compile to plan."""
        options, cache = self.options, self.cache
        report = VerifyReport(cache_warning=cache.warning)
        keys = {s.path: self._entry_key(s) for s in sources}
        recalled = {} if options.rerun else {p: r for p, k in keys.items() if (r := cache.recall(k)) is not None}
        fresh = [s for s in sources if s.path not in recalled]
        planned = self._plan(fresh, archive)
        known = sum(len(r.jobs) for r in recalled.values())
        report.started = self._run_jobs(planned.all_jobs(), known, progress)
        report.runs = {path: r.runs for path, r in recalled.items()}
        verified = list(recalled.values())
        for source in fresh:
            done = planned.recalled(source.path, cache)
            report.runs[source.path] = done.runs
            cache.remember(keys[source.path], done)
            verified.append(done)
        if whole:
            cache.keep_only({*keys.values(), *(job for done in verified for job in done.jobs)})
            self.compiler.keep_only({folder for done in verified for folder in done.programs})
        cache.save()
        return report

    def _entry_key(self, source: EntrySource) -> str:
        """Everything an entry's verification depends on: what it reads of the entry (``_read_text``)
        and the interpreter, compiler and limits it runs with."""
        return "entry:" + hashlib.sha256(f"{self.settings}\0{_read_text(source)}".encode()).hexdigest()

    def _plan(self, sources: list[EntrySource], archive: Path) -> Plan:
        """The solvers of ``sources`` (C++ ones compiled, in parallel) and a job per solver and sample."""
        options, compiler = self.options, self.compiler
        programs = {s.path: _programs(s) for s in sources}
        missing = [found for found in itertools.chain(*programs.values()) if compiler.compiled(found) is None]
        if missing:
            with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
                list(pool.map(compiler.compile, missing))  # in parallel; later calls hit the cache
        plan = Plan({p: tuple(compiler.program(found).parent.name for found in f) for p, f in programs.items()})
        for source in sources:
            solvers = _solvers(source, options, compiler)
            validator = _validator(source, options, compiler)
            built = [s.built for s in solvers] + [validator.built if validator else None]
            plan.programs[source.path] += tuple(p.parent.name for p in built if p)  # kept by a whole build
            if validator is not None and validator.broken:  # nothing can be judged: said once, not per sample
                blame = f"{CHECKER_NOT_BUILT}\n{validator.note}"
                solvers = [s if s.note else replace(s, note=blame) for s in solvers]
            plan.solvers[source.path] = solvers
            folder = archive / source.path
            plan.jobs[source.path] = [
                job
                for solver in solvers
                if not solver.note
                for job in _jobs(source, solver, folder, validator, options)
            ]
        return plan

    def _run_jobs(self, jobs: list[Job], known: int, progress: Progress | None) -> int:
        """Run the jobs whose verdicts are not cached (``known``: samples recalled with their entry,
        for the progress count); the number of processes started."""
        options, cache = self.options, self.cache
        todo = [job for job in jobs if options.rerun or cache.verdict(job.key) is None]
        done = known + len(jobs) - len(todo)
        total = known + len(jobs)
        lock = threading.Lock()
        if progress:
            progress(done, total)

        def work(job: Job) -> None:
            nonlocal done
            verdict = run_job(job, options)
            with lock:
                cache.record(job.key, verdict)
                done += 1
                if progress:
                    progress(done, total)

        if todo:
            with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
                list(pool.map(work, todo))
        return len(todo)


@dataclass
class Plan:
    """What verifying entries takes, by entry: its compiled programs' folders, its solvers, its jobs."""

    programs: dict[str, tuple[str, ...]]
    solvers: dict[str, list[Solver]] = field(default_factory=dict)
    jobs: dict[str, list[Job]] = field(default_factory=dict)

    def all_jobs(self) -> list[Job]:
        return [job for jobs in self.jobs.values() for job in jobs]

    def recalled(self, path: str, cache: ResultCache) -> Recalled:
        """An entry's verification, once its jobs have run: each solver's verdicts, from the cache."""
        keys: dict[int, list[str]] = {}
        for job in self.jobs[path]:
            keys.setdefault(id(job.solver), []).append(job.key)
        runs, run_keys = [], []
        for solver in self.solvers[path]:
            found = tuple(keys.get(id(solver), ()))
            verdicts = tuple(v for key in found if (v := cache.verdict(key)) is not None)
            if solver.language == "python" and any(v.code == "RTE" and python2_failure(v.message) for v in verdicts):
                verdicts, solver = (), replace(solver, note=PYTHON2_NOTE)  # what Python 3 said shows it is Python 2
            runs.append(SolverRun(solver.name, solver.language, solver.hash, verdicts, solver.note))
            run_keys.append(found)
        return Recalled(tuple(runs), tuple(run_keys), self.programs[path])


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The verifier's and the sandbox's code: a change to how runs are made or judged is a change to
    every entry's key and every sample's (a verdict judged by other code is not this code's verdict)."""
    here = Path(__file__).parent
    code = [*sorted(here.glob("*.py")), here.parent / "sandbox" / "runner.py", here.parent / "sandbox" / "launcher.py"]
    return text_digest("".join(p.read_text(encoding="utf-8") for p in code))


def _read_text(source: EntrySource) -> str:
    """What verifying an entry reads of it, as text: its path, metadata and layout, and its solvers',
    validator's and samples' files by digest. Not its write-up or statement: an author editing those
    keeps the entry's verification, and the dev server need not save the cache for each save."""
    layout = source.layout
    read = {*layout.solvers, *layout.graders, *(layout.validator.files if layout.validator else ())}
    scripted = tuple(n for n in layout.solvers if n.endswith("/"))
    read.update(f.name for f in source.files if scripted and f.name.startswith(scripted))
    read.update(name for s in source.samples for name in (s.input_file, s.answer_file) if name)
    read.update(f.name for f in source.files if f.name.startswith("include/"))
    files = tuple((f.name, f.digest, f.binary) for f in source.files if f.name in read)
    samples = tuple((s.name, s.input_file, s.answer_file) for s in source.samples)
    return repr((source.path, source.meta, layout, files, samples))


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
            programs.append(Source.of(language, files, name.rsplit("/", 1)[-1]))
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
        filename = name.rsplit("/", 1)[-1]
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
    files = {n: substitute_constants(t, constants) for n, t in _included(source, "default").items()}
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


def _mib(size: int) -> str:
    return f"{size >> 30} GiB" if size % (1 << 30) == 0 else f"{size >> 20} MiB"


PYTHON2_NOTE = "not run: Python 2 (this build runs Python 3, as judges do today)"


def _unsafe_name(files: dict[str, str]) -> str:
    """Why these archive files cannot be handed to a program: a name that reads as an option."""
    bad = sorted(n for n in files if n.rsplit("/", 1)[-1].startswith(("-", "@")))
    return f"not run: a file name may not start with '-' or '@' ({', '.join(bad)})" if bad else ""


def _solver_files(source: EntrySource, name: str, text: str) -> dict[str, str]:
    """A solver's source under its own file name, as it runs or compiles in a working directory, with the
    files a package's ``include/<language>/`` (or ``include/default/``) adds to every submission, which
    win a clash of names, and a CMS task's grader; a package's ``{{constants}}`` replaced in all of them."""
    constants = dict(source.meta.constants)
    files = {name.rsplit("/", 1)[-1]: substitute_constants(text, constants)}
    language = judge_language(name)
    if source.meta.package and language is not None:
        for included, item in _included(source, language.id).items():
            files[included] = substitute_constants(item, constants)
    for grader in source.layout.graders:  # a CMS task's grader of its language, and the headers beside it
        same = (found := judge_language(grader)) is not None and language is not None and found.id == language.id
        linked = source.file(grader) if same or grader.endswith((".h", ".hpp")) else None
        if linked is not None and linked.text is not None:
            files.setdefault(grader.rsplit("/", 1)[-1], substitute_constants(linked.text, constants))
    return files


def _included(source: EntrySource, language: str) -> dict[str, str]:
    """The text files of the package's include folder for ``language`` (as the format's table names it),
    else of ``include/default/``, by their names inside it."""
    for code in (*INCLUDE_CODES.get(language, (language,)), "default"):
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


def _validator(source: EntrySource, options: VerifyOptions, compiler: Compiler) -> ValidatorProgram | None:
    """The entry's output validator, ready to run (compiled when it is C++), or None for the default one."""
    spec = source.layout.validator
    if spec is None:
        return None
    files = _validator_files(source, spec.folder, spec.files)
    args = source.meta.validator_args if source.meta.package else ()
    name = f"{spec.folder}/" if spec.folder else spec.main
    if spec.convention != "kattis":
        name = next((n for n in spec.files if not n.endswith(".h")), name)  # its source: files/check.cpp
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


MARGIN_FACTOR = 2.0  # a run is stopped at twice its time limit,
MARGIN_SECONDS = 1.0  # and at least a second over it


def safety_margin(limit: float, factor: float = MARGIN_FACTOR, seconds: float = MARGIN_SECONDS) -> float:
    """When a run is stopped: well above its limit, so that a busy machine does not turn a correct
    run into a flaky Time Limit. A run over the limit but under this is judged, and called slow."""
    return max(limit * factor, limit + seconds)


def _jobs(
    source: EntrySource, solver: Solver, folder: Path, validator: ValidatorProgram | None, options: VerifyOptions
) -> list[Job]:
    """One job per sample, each with the key of everything that can change its verdict: the JSON
    text of a list whose middle two items are the sample's and the answer's digests."""
    time_limit = source.meta.time_limit or options.time_limit
    wall = safety_margin(source.meta.time_limit or options.time_limit, *options.time_margin)
    memory = run_memory(source, options)
    limits = Limits(wall=wall, memory=memory, stack=memory)  # as judges give it: the stack may take it all
    # the compiled (or script-built) program's key
    program = "/".join(p.parent.name for p in (solver.program, solver.built) if p is not None)
    before: list[str | None] = [CACHE_VERSION, _code_fingerprint(), solver.language, solver.digest]
    before += [" ".join(solver.argv), program, interpreter_version(solver.interpreter) if solver.interpreter else ""]
    after = [
        repr(source.meta.checker),
        validator.digest if validator else None,
        validator.note if validator else None,
        interpreter_version(options.interpreter) if solver.language == "python" or validator else "",
        repr(limits),
        repr((source.meta.interactive, source.meta.multi_pass, source.meta.validation_passes)),
        repr(source.meta.io_files),
    ]
    head, tail = _json_list(before)[:-1] + ", ", ", " + _json_list(after)[1:]
    jobs = []
    for sample in (s for s in source.samples if s.runnable):
        answer = "null" if sample.answer is None else _QUOTED(text_digest(sample.answer))
        text = f"{head}{_QUOTED(text_digest(sample.input))}, {answer}{tail}"
        key = hashlib.sha256(text.encode()).hexdigest()
        jobs.append(
            Job(
                source.path, solver, sample, folder, source.meta.checker, validator, limits, key, time_limit,
                source.meta.interactive, source.meta.multi_pass, source.meta.validation_passes,
                source.meta.io_files,
            )
        )  # fmt: skip
    return jobs


_QUOTED = json.encoder.encode_basestring_ascii  # the C encoder json.dumps uses


def _json_list(parts: list[str | None]) -> str:
    """``json.dumps(parts)``, the same text, without building an encoder per call (5,000 keys a build)."""
    return "[" + ", ".join("null" if p is None else _QUOTED(p) for p in parts) + "]"


def run_job(job: Job, options: VerifyOptions) -> Verdict:
    """Run one solver on one sample and judge the result."""
    solver = job.solver
    tools = installed(runtime_language(solver.language), solver.interpreter or options.interpreter)
    if job.interactive and job.validator is not None:
        return _interactive(job, job.validator, tools, options)
    try:
        stdin = sandbox.read_regular(job.archive_dir / job.sample.input_file, MAX_SAMPLE)
        files = solver.files()
    except OSError as error:
        return Verdict(job.sample.name, "RTE", 0.0, "", False, f"cannot read {error.filename}: {error.strerror}")
    feedback: dict[str, bytes] = {}
    passes = job.passes if job.multi_pass else 1
    for number in range(1, passes + 1):
        result = _run_solver(job, tools, stdin, files)
        verdict = judge(job, result, options, feedback if job.multi_pass else None)
        nextpass = feedback.pop("nextpass.in", None)
        if not job.multi_pass:
            return verdict
        if verdict.code != "AC" or nextpass is None:
            return replace(verdict, message=f"pass {number} of {passes}: {verdict.message}".rstrip(": "))
        if number == passes:
            message = f"the validator asked for a pass after the last one ({passes}) allowed"
            return replace(verdict, code="CE", message=message)
        stdin = nextpass
        # The next pass's input is the validator's input too, as BAPCtools and DOMjudge give it.
        job = replace(job, sample=replace(job.sample, input=nextpass.decode("utf-8", "replace")))
    raise AssertionError("unreachable")


def _run_solver(job: Job, tools: Installed, stdin: bytes, files: dict[str, bytes | tuple[bytes, int]]) -> RunResult:
    """One run of the job's solver on ``stdin``; a task whose solutions read and write files (a CMS
    task's ``infile``, ``outfile``) gets the input as that file too, and its output is what that file holds,
    else what it printed: CMS compiles with ``EVAL`` defined, which the build does not, and graders choose
    the files or the standard streams by it (``#ifdef EVAL``)."""
    infile, outfile = job.io_files
    if infile:
        files = {**files, infile: stdin}
    result = sandbox.run(
        list(job.solver.argv),
        stdin,
        tools.limits(job.limits),
        files=files,
        toolchain=sandboxed(tools.toolchain),
        collect=outfile or None,
    )
    if not outfile or not result.collected:  # no output file: what it printed
        return result
    return replace(result, stdout=result.collected)


MAX_SAMPLE = 256 * sandbox.MiB
MAX_PROGRAM = 512 * sandbox.MiB


def _program_files(program: Path | None, name: str) -> dict[str, bytes | tuple[bytes, int]]:
    """A compiled program, as the run's executable file ``name`` (the builder wrote it: the cache is
    no run's to see or write)."""
    return {name: (sandbox.read_regular(program, MAX_PROGRAM), 0o555)} if program else {}


def judge(job: Job, result: RunResult, options: VerifyOptions, feedback: dict[str, bytes] | None = None) -> Verdict:
    """``feedback``: a multi-pass problem's feedback folder, kept from pass to pass (``nextpass.in``
    in it after a pass: the input of the next)."""
    seconds = round(result.wall, 3)
    output_bytes = result.stdout
    output = output_bytes[:SHOWN_OUTPUT].decode("utf-8", "replace")
    truncated = len(output_bytes) > SHOWN_OUTPUT

    slow = _slow_note(seconds, job)

    def verdict(code: str, message: str = "") -> Verdict:
        text = "\n".join(part for part in (slow, message) if part)
        return Verdict(job.sample.name, code, seconds, output, truncated, text)

    if result.timed_out or result.signal == signal.SIGXCPU:
        slow = ""
        return verdict("TLE", f"stopped at {job.limits.wall:g} s: over the time limit of {job.time_limit:g} s")
    if result.output_exceeded:
        return verdict("OLE", f"printed more than {job.limits.output // sandbox.MiB} MiB")
    if result.signal is not None or result.exit_code != 0:
        return verdict("RTE", _crash_message(result, job.limits.memory))
    if job.sample.answer is None:
        return verdict("GEN", "no answer file: this output is what the solver printed, not verified")
    if job.validator is not None:
        return _custom_check(job, job.validator, output_bytes, verdict, options, feedback)
    comparison = compare_output(output_bytes.decode("utf-8", "replace"), job.sample.answer, job.checker)
    return verdict("AC") if comparison.accepted else verdict("WA", comparison.message)


# Two ends this close are one: a solver that loses its validator ends a moment after it (end of
# input, a broken pipe), and two launchers notice their runs' ends a few milliseconds apart. Then
# the validator's rejection decides (problemtools tells the order apart; a solver that crashed
# within that moment of its validator's rejection is Wrong Answer here, with the crash noted).
SAME_MOMENT = 0.05


def _interactive(job: Job, validator: ValidatorProgram, tools: Installed, options: VerifyOptions) -> Verdict:
    """The solver and the validator talking through pipes, both sandboxed; judged as judges do: the
    validator's rejection first, then the solver's time and crash, then the validator's acceptance."""
    sample = job.sample

    def verdict(code: str, message: str, seconds: float = 0.0) -> Verdict:
        return Verdict(sample.name, code, round(seconds, 3), "", False, message)

    if validator.note:
        return verdict("CE" if validator.broken else "NJ", validator.note)
    try:
        files = job.solver.files()
        checking = _validator_files_for(validator, sample.input, sample.answer or "")
    except OSError as error:
        return verdict("CE", f"cannot read {error.filename}: {error.strerror}")
    testlib = validator.convention == "testlib-interactor"  # interactor input output: 0 accepts
    arguments = ["input", "output"] if testlib else ["input", "answer", "feedback/", *validator.args]
    solver_run, checked = sandbox.run_interactive(
        Call(list(job.solver.argv), tools.limits(job.limits), files, sandboxed(tools.toolchain)),
        Call(
            [*validator.argv, *arguments],
            job.limits,
            checking,
            sandboxed(python_runtime(options.interpreter)[1]) if not validator.toolchain_free else Toolchain(),
            ("feedback",),
            "feedback/judgemessage.txt",
        ),
    )
    seconds = solver_run.wall
    message = checked.collected[:8192].decode("utf-8", "replace").strip()[:2000]
    slow = _slow_note(seconds, job)
    rejected = checked.exit_code == 43
    if testlib and not checked.timed_out:
        judged = judge_interactor(validator.name, checked)
        if judged.code == "CE":
            return verdict("CE", judged.message)
        rejected, message = judged.code == "WA", judged.message
    elif checked.exit_code not in (42, 43) and not checked.timed_out:
        return verdict("CE", _validator_failure(validator, checked))
    moment = 0.0 if solver_run.timed_out else SAME_MOMENT  # a solver stopped for its time is what ended it
    if rejected and checked.ended <= solver_run.ended + moment:  # the validator ended first: its verdict stands
        crashed = solver_run.signal is not None or solver_run.exit_code not in (0, None)
        also = (
            f"\n(the solver also ended with {_crash_message(solver_run, job.limits.memory).splitlines()[0]})"
            if crashed
            else ""
        )
        return verdict(
            "WA", (message or f"{validator.name} rejected the interaction") + also, min(seconds, job.time_limit)
        )
    if solver_run.timed_out or checked.timed_out:
        return verdict("TLE", f"stopped at {job.limits.wall:g} s: over the time limit of {job.time_limit:g} s", seconds)
    if solver_run.signal is not None or solver_run.exit_code != 0:
        return verdict("RTE", _crash_message(solver_run, job.limits.memory), seconds)
    if rejected:
        return verdict("WA", message or f"{validator.name} rejected the interaction", seconds)
    return verdict("AC", "\n".join(p for p in (slow, message) if p), seconds)


def _slow_note(seconds: float, job: Job) -> str:
    """What a run over its time limit, but within the margin, is noted with ("" for one within it)."""
    return f"slow: {seconds:.2f} s, limit {job.time_limit:g} s" if seconds > job.time_limit else ""


def _validator_files_for(validator: ValidatorProgram, given: str, answer: str) -> dict[str, bytes | tuple[bytes, int]]:
    files: dict[str, bytes | tuple[bytes, int]] = {name: text.encode() for name, text in validator.files}
    files.update({"input": given.encode(), "answer": answer.encode()})
    files.update(_program_files(validator.program, "validator"))
    if validator.built is not None:
        files.update(_unpacked_tree(sandbox.read_regular(validator.built, MAX_PROGRAM)))
    return files


def _crash_message(result: RunResult, memory: int) -> str:
    if result.signal is not None:
        name = (
            signal.Signals(result.signal).name
            if result.signal in signal.Signals._value2member_map_
            else str(result.signal)
        )
        reason = {"SIGKILL": "killed", "SIGSEGV": "segmentation fault", "SIGXFSZ": "wrote a file over the size limit"}
        text = f"killed by {name} ({reason.get(name, 'signal')})"
    else:
        text = f"exit code {result.exit_code}"
    tail = result.stderr.strip().splitlines()[-12:]
    if said := _exception_line(tail):
        text += f": {said}"
    if any("MemoryError" in line for line in tail):
        text += f"; out of memory (limit {_mib(memory)} address space)"
    return text + ("\n" + "\n".join(tail) if tail else "")


_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::\s*(.*))?$")
_PYTHON_LOCATION = re.compile(r'^\s*File "[^"]*", line (\d+)')


def _exception_line(tail: list[str]) -> str:
    """A Python traceback's last word, for a crash's first line: ``ValueError: bad``, and for a program
    Python could not compile, where: ``SyntaxError: invalid syntax (line 3)`` ("" for other output)."""
    for line in reversed(tail):
        m = _EXCEPTION.match(line)
        if m is None:
            continue
        said = line.strip()[:300]
        if m.group(1) in ("SyntaxError", "IndentationError", "TabError"):
            where = next((w.group(1) for t in tail if (w := _PYTHON_LOCATION.match(t))), None)
            said += f" (line {where})" if where else ""
        return said
    return ""


def _custom_check(
    job: Job,
    validator: ValidatorProgram,
    output: bytes,
    verdict: Callable[[str, str], Verdict],
    options: VerifyOptions,
    feedback: dict[str, bytes] | None = None,
) -> Verdict:
    """Kattis output validator: VALIDATOR INPUT ANSWER FEEDBACK_DIR [ARGS] < OUTPUT; 42 accepts, 43 rejects.
    With ``feedback`` (a multi-pass problem), the feedback folder's files go in and come back."""
    assert job.sample.answer is not None
    if validator.note:
        return verdict("CE" if validator.broken else "NJ", validator.note)
    try:
        files = _validator_files_for(validator, job.sample.input, job.sample.answer)
    except OSError as error:
        return verdict("CE", f"cannot read the compiled {validator.name}: {error.strerror}")
    if validator.convention != "kattis":
        return _other_check(job, validator, output, verdict, files, options)
    argv = [*validator.argv, "input", "answer", "feedback/", *validator.args]
    if feedback is not None:
        files.update({f"feedback/{name}": (data, 0o644) for name, data in feedback.items()})  # it may change them
    result = sandbox.run(
        argv,
        output,
        job.limits,
        files=files,
        toolchain=python_runtime(options.interpreter)[1] if not validator.toolchain_free else Toolchain(),
        dirs=("feedback",),
        collect="feedback/" if feedback is not None else "feedback/judgemessage.txt",
    )
    collected = result.collected
    if feedback is not None:
        feedback.clear()
        feedback.update(_unpacked(collected))
        collected = feedback.get("judgemessage.txt", b"")
    message = collected[:8192].decode("utf-8", "replace").strip()[:2000]
    if result.exit_code == 42:
        return verdict("AC", message)
    if result.exit_code == 43:
        return verdict("WA", message or f"{validator.name} rejected the output")
    return verdict("CE", _validator_failure(validator, result))


def _other_check(
    job: Job,
    validator: ValidatorProgram,
    output: bytes,
    verdict: Callable[[str, str], Verdict],
    files: dict[str, bytes | tuple[bytes, int]],
    options: VerifyOptions,
) -> Verdict:
    """A testlib checker (Polygon's) or a CMS one, given the output as a file (``checkers.py``)."""
    files["output"] = output
    argv = [*validator.argv, *checker_arguments(validator.convention)]
    toolchain = python_runtime(options.interpreter)[1] if validator.program is None else Toolchain()
    result = sandbox.run(argv, None, job.limits, files=files, toolchain=toolchain)
    judged = judge_checker(validator.convention, validator.name, result)
    return verdict(judged.code, judged.message)


def _validator_failure(validator: ValidatorProgram, result: RunResult) -> str:
    if result.timed_out:
        why = "timed out"
    elif result.signal:
        why = f"killed by signal {result.signal}"
    else:
        why = f"exit code {result.exit_code}"
    said = result.stderr.strip()[-2000:]
    return f"{validator.name} failed ({why}); it must exit with 42 or 43" + (f". It printed:\n{said}" if said else "")


def _unpacked(archive: bytes) -> dict[str, bytes]:
    """The plain files at the top of a feedback folder, from the tar a run's shell wrote (read in
    memory only: nothing is extracted anywhere)."""
    import io
    import tarfile

    found: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                if member.isfile() and name and "/" not in name and member.size <= MAX_SAMPLE:
                    data = tar.extractfile(member)
                    if data is not None:
                        found[name] = data.read()
    except (tarfile.TarError, OSError, EOFError):
        return {}
    return found


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


def verification_diagnostics(entry: Entry) -> list[Diagnostic]:
    """Failing samples are warnings (the page shows them loudly); a broken checker is an error, once:
    a validator that does not build judges no run, and one that crashes is named once per way it failed."""
    found: list[Diagnostic] = []
    broken: dict[str, list[tuple[str, str]]] = {}  # a checker failure -> the (solver, sample) runs it stopped
    unbuilt = next((r.note.partition("\n")[2] for r in entry.runs if r.note.startswith(CHECKER_NOT_BUILT)), None)
    if unbuilt is not None and entry.samples:
        found.append(_checker_diagnostic(entry, "Checker does not build", unbuilt, []))
    for run in entry.runs:
        if run.note and run.note.startswith("compile error"):
            first = _error_line(run.note.partition("\n")[2]) or run.note
            where = f"{entry.display_path}/{run.solver}"
            found.append(Diagnostic(where, _compile_line(first), "does not compile: " + first, "warning"))
        for verdict in run.verdicts:
            if verdict.code == "CE":
                broken.setdefault(verdict.message.partition("\n")[0], []).append((run.solver, verdict.sample))
            elif verdict.code != "AC" or _slow(verdict):
                found.append(_verdict_diagnostic(entry, run, verdict))
    for runs in broken.values():
        solver, sample = runs[0]
        message = next(v.message for r in entry.runs if r.solver == solver for v in r.verdicts if v.sample == sample)
        found.append(_checker_diagnostic(entry, "Checker crashed", message, runs))
    return found


def _slow(verdict: Verdict) -> bool:
    return verdict.message.startswith("slow: ")


def _verdict_diagnostic(entry: Entry, run: SolverRun, verdict: Verdict) -> Diagnostic:
    first_line = verdict.message.splitlines()[0] if verdict.message else ""
    where = f"{entry.display_path}/{_sample_input(entry, verdict.sample)}"
    return Diagnostic(where, 0, f"{run.solver}: {verdict.name}" + (f": {first_line}" if first_line else ""), "warning")


def _checker_diagnostic(entry: Entry, what: str, message: str, runs: list[tuple[str, str]]) -> Diagnostic:
    """A checker failure at the validator's file and line when its compiler names them, else at the
    first sample it failed on (the entry's first, for one that judged none); with the compiler's error
    line, and the runs it stopped."""
    head, _, rest = message.partition("\n")
    detail = _error_line(rest)  # "compile error:" then the compiler's line; ". It printed:" then the checker's
    solver, sample = runs[0] if runs else ("", entry.samples[0].name)
    where, line = f"{entry.display_path}/{_sample_input(entry, sample)}", 0
    folder = re.fullmatch(r"(\S+/): compile error:", head)
    located = re.match(r"([^:\s/]+):(\d+):", detail)
    if folder and located:
        where, line = f"{entry.display_path}/{folder.group(1)}{located.group(1)}", int(located.group(2))
    stopped = f" ({solver} on sample {sample})" if len(runs) == 1 else f" ({len(runs)} runs)" if runs else ""
    return Diagnostic(where, line, f"{what}: {head}{' ' + detail if detail else ''}{stopped}", "error")


def _sample_input(entry: Entry, name: str) -> str:
    return next(s.input_file for s in entry.samples if s.name == name)


def _error_line(text: str) -> str:
    """The line of a compiler's (or checker's) output that says what went wrong: the first that
    names an error, else the first that is not blank ("" for none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")


def _compile_line(message: str) -> int:
    match = re.match(r"[^:\s]+\.(?:cpp|cc|cxx|c\+\+):(\d+):", message)
    return int(match.group(1)) if match else 0
