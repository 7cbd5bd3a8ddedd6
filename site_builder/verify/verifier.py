"""Verification: every reference solver run on every sample at build time, checked, and cached.

Every solver in a language of ``languages.yaml`` (``solution.*``, a package's accepted submissions)
runs in the sandbox where the language's tools are installed: Python under the build's interpreter,
the others compiled once (``compiler.py``) and run. Output is judged by the comparisons of
``compare.py`` or the problem's checker (``checkers.py``); an interactive or multi-pass problem's
solver talks to its output validator instead. Results are cached by a hash of everything that can
change them (``cache.py``), so a rebuild where nothing relevant changed starts no process at all.

This module owns the ``Verifier``: it plans each entry's solvers (``solvers.py``) and jobs (``jobs.py``),
runs the jobs whose verdicts are not cached (``runs.py``), in parallel, and recalls whole entries.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from ..model import CHECKER_NOT_BUILT, EntrySource, SolverRun
from ..sandbox.stopping import resume_runs, stop_runs
from ..source.languages import TABLE, judge_languages
from .cache import Recalled, ResultCache
from .compiler import Compiler, text_digest
from .jobs import CACHE_VERSION, Job, _code_fingerprint, _jobs, _json_list, _read_text
from .options import VerifyOptions
from .runs import run_job
from .runtimes import interpreter_version
from .solvers import PYTHON2_NOTE, Solver, _programs, _solvers, _validator
from .toolchains import pypy, python2_failure

Progress = Callable[[int, int], None]
T = TypeVar("T")


log = logging.getLogger(__name__)


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
        recalled = (
            {} if options.rerun else {p: _settled(r) for p, k in keys.items() if (r := cache.recall(k)) is not None}
        )
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
            _all_done(compiler.compile, missing, options.jobs)  # in parallel; later calls hit the cache
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
            _all_done(work, todo, options.jobs)
        return len(todo)


def _all_done(action: Callable[[T], object], items: list[T], jobs: int) -> None:
    """``action`` on each of ``items``, ``jobs`` at a time. On Ctrl-C (or an error that ends the
    build) the queued ones are dropped and the running ones stopped (``stop_runs``), not waited for
    to their wall-clock limits; runs may start again once they have ended."""
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            try:
                list(pool.map(action, items))
            except BaseException:
                stop_runs()
                raise
    finally:
        resume_runs()


def _settled(done: Recalled) -> Recalled:
    """A recalled verification as ``Plan.recalled`` makes it now: a cache from before 9df6f2b kept the
    keys of a Python 2 solver's Runtime Errors, which brought them back beside its note."""
    if not any(r.note == PYTHON2_NOTE and r.verdicts for r in done.runs):
        return done
    pairs = [
        ((replace(r, verdicts=()), ()) if r.note == PYTHON2_NOTE else (r, k))
        for r, k in zip(done.runs, done.keys, strict=True)
    ]
    return replace(done, runs=tuple(r for r, _ in pairs), keys=tuple(k for _, k in pairs))


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
                # What Python 3 said shows it is Python 2: no verdicts, and none for a later build to recall
                verdicts, solver, found = (), replace(solver, note=PYTHON2_NOTE), ()
            runs.append(SolverRun(solver.name, solver.language, solver.hash, verdicts, solver.note))
            run_keys.append(found)
        return Recalled(tuple(runs), tuple(run_keys), self.programs[path])
