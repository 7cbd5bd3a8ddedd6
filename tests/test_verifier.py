"""The verifier's plan and bookkeeping (``verify/verifier.py``): which entries are recalled whole, which
jobs run, what the cache keeps, what the report and the progress say; with ``run_job`` stood in for
(it records the jobs and answers as told). Real runs are in ``test_verify.py``."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import write_tree

from site_builder.model import CHECKER_NOT_BUILT, SolverRun, Verdict
from site_builder.source.archive import load_archive
from site_builder.verify import jobs as jobs_module
from site_builder.verify import verifier
from site_builder.verify.cache import ResultCache
from site_builder.verify.compiler import text_digest
from site_builder.verify.jobs import Job, _jobs
from site_builder.verify.options import VerifyOptions
from site_builder.verify.solvers import PYTHON2_NOTE, ValidatorProgram

FILES = {
    "t/A-one/solution.py": "print(2)\n",
    "t/A-one/samples/1.in": "1\n",
    "t/A-one/samples/1.ans": "2\n",
    "t/A-one/samples/2.in": "2\n",
    "t/A-one/samples/2.ans": "4\n",
    "t/B-two/solution.py": "print(3)\n",
    "t/B-two/samples/1.in": "1\n",
    "t/B-two/samples/1.ans": "3\n",
}


class Runs:
    """``run_job`` as the verifier calls it: every job it was given, and the options of the last; each
    answers ``code`` (``said``: the message)."""

    def __init__(self, code: str = "AC", said: str = "") -> None:
        self.code, self.said = code, said
        self.jobs: list[Job] = []
        self.options: VerifyOptions | None = None
        self.lock = threading.Lock()

    def __call__(self, job: Job, options: VerifyOptions) -> Verdict:
        with self.lock:
            self.jobs.append(job)
            self.options = options
        return Verdict(job.sample.name, self.code, 0.1, "out", False, self.said)

    def ran(self) -> list[tuple[str, str, str]]:
        return sorted((j.entry, j.solver.name, j.sample.name) for j in self.jobs)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Runs:
    made = Runs()
    monkeypatch.setattr(verifier, "run_job", made)
    return made


class Crowd:
    """How many threads are inside ``visit`` at once: each waits there until ``most`` are (however slow
    the machine), then a moment more for one more, were there one more thread to come."""

    def __init__(self, most: int) -> None:
        self.most, self.active, self.peak = most, 0, 0
        self.lock, self.full, self.more = threading.Lock(), threading.Event(), threading.Event()

    def visit(self) -> None:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            if self.active >= self.most:
                self.full.set()
            if self.active > self.most:
                self.more.set()
        self.full.wait(30)
        self.more.wait(0.3)
        with self.lock:
            self.active -= 1


def load(tmp_path: Path, files: dict[str, str]) -> tuple[list[Any], Path]:
    archive = tmp_path / "archive"
    write_tree(archive, files)
    entries, problems = load_archive(archive, "archive", {})
    assert problems == []
    return sorted(entries, key=lambda e: e.path), archive


def options(tmp_path: Path, **fields: Any) -> VerifyOptions:
    return VerifyOptions(cache_dir=tmp_path / "cache", jobs=2, **fields)


def test_every_solver_runs_on_every_sample_once_and_a_second_verification_recalls_it(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources, archive = load(tmp_path, FILES)
    seen: list[tuple[int, int]] = []
    report = verifier.verify_entries(
        sources, archive, options(tmp_path), lambda done, total: seen.append((done, total))
    )
    assert runs.ran() == [
        ("t/A-one", "solution.py", "1"),
        ("t/A-one", "solution.py", "2"),
        ("t/B-two", "solution.py", "1"),
    ]
    assert report.started == 3 and report.cache_warning is None and runs.options == options(tmp_path)
    assert {j.archive_dir for j in runs.jobs} == {archive / "t/A-one", archive / "t/B-two"}
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    verdict = {"code": "AC", "seconds": 0.1, "output": "out", "output_truncated": False, "message": ""}
    assert {path: [(r.solver, r.language, [v.sample for v in r.verdicts], r.note) for r in found]
            for path, found in report.runs.items()} == {
        "t/A-one": [("solution.py", "python", ["1", "2"], "")],
        "t/B-two": [("solution.py", "python", ["1"], "")],
    }  # fmt: skip
    assert report.runs["t/A-one"][0].verdicts[0] == Verdict("1", **verdict)
    assert report.runs["t/A-one"][0].source_hash == text_digest("print(2)\n")[:16]
    planned: list[str] = []
    real = verifier._solvers
    monkeypatch.setattr(
        verifier, "_solvers", lambda source, *given: planned.append(source.path) or real(source, *given)
    )
    again: list[tuple[int, int]] = []
    second = verifier.verify_entries(
        sources, archive, options(tmp_path), lambda done, total: again.append((done, total))
    )
    assert (second.started, second.runs, len(runs.jobs)) == (0, report.runs, 3)  # recalled whole, none run
    assert again == [(3, 3)] and planned == []  # not even planned: no solver made, nothing compiled


def test_an_edited_entry_is_verified_again_alone(tmp_path: Path, runs: Runs) -> None:
    sources, archive = load(tmp_path, FILES)
    verifier.verify_entries(sources, archive, options(tmp_path))
    edited, _ = load(tmp_path, {**FILES, "t/B-two/solution.py": "print(1 + 2)\n"})
    runs.jobs.clear()
    seen: list[tuple[int, int]] = []
    report = verifier.verify_entries(edited, archive, options(tmp_path), lambda d, t: seen.append((d, t)))
    assert runs.ran() == [("t/B-two", "solution.py", "1")] and report.started == 1
    assert seen == [(2, 3), (3, 3)]  # the recalled entry's two samples count as done
    added, _ = load(tmp_path, {**FILES, "t/B-two/solution.py": "print(1 + 2)\n", "t/B-two/samples/2.in": "5\n"})
    runs.jobs.clear()
    verifier.verify_entries(added, archive, options(tmp_path))
    assert runs.ran() == [("t/B-two", "solution.py", "2")]  # the other sample's verdict is kept by its key


def test_rerun_runs_everything_again(tmp_path: Path, runs: Runs) -> None:
    sources, archive = load(tmp_path, FILES)
    verifier.verify_entries(sources, archive, options(tmp_path))
    runs.jobs.clear()
    report = verifier.verify_entries(sources, archive, options(tmp_path, rerun=True))
    assert len(runs.jobs) == 3 and report.started == 3


def test_a_whole_verification_keeps_only_what_its_entries_use(tmp_path: Path, runs: Runs) -> None:
    sources, archive = load(tmp_path, FILES)
    checker = verifier.Verifier(options(tmp_path))
    checker.run(sources, archive)
    edited, _ = load(tmp_path, {**FILES, "t/B-two/solution.py": "print(1 + 2)\n"})
    checker.run(edited, archive)  # one entry of the archive: the old verdicts stay
    cache = ResultCache(tmp_path / "cache" / "verify.json")
    assert len(cache.data) == (2 + 3) + (1 + 1)  # each entry and its verdicts, then the edited one's again
    checker.run(edited, archive, whole=True)
    cache = ResultCache(tmp_path / "cache" / "verify.json")
    recalled = [cache.recall(checker._entry_key(s)) for s in edited]
    assert None not in recalled
    assert set(cache.data) == {checker._entry_key(s) for s in edited} | {k for r in recalled if r for k in r.jobs}
    assert len(cache.data) == 2 + 3


def test_a_whole_verification_prunes_the_compiled_programs_of_others(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources, archive = load(tmp_path, FILES)
    checker = verifier.Verifier(options(tmp_path))
    kept: list[set[str]] = []
    monkeypatch.setattr(checker.compiler, "keep_only", lambda folders: kept.append(folders))
    checker.run(sources, archive)
    assert kept == []
    checker.run(sources, archive, whole=True)
    assert kept == [set()]  # Python only: no program of its own


def test_a_broken_validator_judges_nothing_and_is_said_once(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources, archive = load(tmp_path, FILES)
    broken = ValidatorProgram("checker.py", (), (), (), "d", "checker.py: compile error:\nx", True)
    monkeypatch.setattr(verifier, "_validator", lambda source, options, compiler: broken)
    report = verifier.verify_entries(sources[:1], archive, options(tmp_path))
    assert runs.jobs == []
    assert report.runs["t/A-one"] == (
        SolverRun(
            "solution.py", "python", report.runs["t/A-one"][0].source_hash, (), f"{CHECKER_NOT_BUILT}\n{broken.note}"
        ),
    )
    python2 = {"t/C-old/solution.py": "#!/usr/bin/env python2\nprint 1\n", "t/C-old/samples/1.in": "1\n"}
    old, _ = load(tmp_path / "old", python2)
    report = verifier.verify_entries(old, archive, options(tmp_path))
    assert report.runs["t/C-old"][0].note == PYTHON2_NOTE  # its own reason stays
    absent = ValidatorProgram("checker.py", (), (), (), "d", "not built here")  # not the package's fault: run
    monkeypatch.setattr(verifier, "_validator", lambda source, options, compiler: absent)
    verifier.verify_entries(sources[1:], archive, options(tmp_path))
    assert runs.ran() == [("t/B-two", "solution.py", "1")] and runs.jobs[0].validator == absent


def test_a_python_solver_that_fails_as_python_2_code_is_shown_as_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = 'Traceback (most recent call last):\n  File "solution.py", line 1\n    print 2\n'
    said += "SyntaxError: Missing parentheses in call to 'print'"
    stand_in = Runs("RTE", said)
    monkeypatch.setattr(verifier, "run_job", stand_in)
    sources, archive = load(tmp_path, FILES)
    report = verifier.verify_entries(sources, archive, options(tmp_path))
    (run,) = report.runs["t/A-one"]
    assert (run.verdicts, run.note) == ((), PYTHON2_NOTE)
    other = Runs("RTE", "Traceback\nZeroDivisionError: division by zero")
    monkeypatch.setattr(verifier, "run_job", other)
    report = verifier.verify_entries(sources, archive, options(tmp_path / "other"))
    assert [v.code for v in report.runs["t/A-one"][0].verdicts] == ["RTE", "RTE"]
    assert report.runs["t/A-one"][0].note == ""


def test_the_wall_clock_backstop_is_a_multiple_of_the_cpu_stop() -> None:
    assert jobs_module.wall_backstop(4.0) == jobs_module.WALL_FACTOR * 4.0 > 4.0


def test_the_verifier_s_compiler_and_cache_are_the_options(tmp_path: Path) -> None:
    made = verifier.Verifier(options(tmp_path, rerun=True, interpreter="/usr/bin/python3", cpp_standard="c++17"))
    compiler = made.compiler
    assert (compiler.folder, compiler.rerun, compiler.python, compiler.cpp_standard) == (
        tmp_path / "cache" / "programs",
        True,
        "/usr/bin/python3",
        "c++17",
    )
    assert made.cache.path == tmp_path / "cache" / "verify.json"


def test_an_unreadable_cache_is_said_in_the_report(tmp_path: Path, runs: Runs) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "verify.json").write_text("{not json")
    sources, archive = load(tmp_path, FILES)
    report = verifier.verify_entries(sources, archive, options(tmp_path))
    assert report.cache_warning is not None and "verify.json" in report.cache_warning


@pytest.mark.parametrize(
    "changed",
    [
        {"time_limit": 3.0},
        {"memory": 256 << 20},
        {"cpp_standard": "c++17"},
        {"time_margin": (3.0, 1.0)},
        {"interpreter": "/usr/bin/python3"},
    ],
)
def test_an_entry_s_key_changes_with_each_setting_of_the_build(tmp_path: Path, changed: dict[str, Any]) -> None:
    sources, _ = load(tmp_path, FILES)
    key = verifier.Verifier(options(tmp_path))._entry_key(sources[0])
    assert verifier.Verifier(options(tmp_path, **changed))._entry_key(sources[0]) != key


def test_an_entry_s_key_changes_with_a_compiler_s_version_or_its_absence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.verify.compiler import Compiler
    from site_builder.verify.toolchains import Installed

    sources, _ = load(tmp_path, FILES)
    keys = []
    for found in ({"missing": ""}, {"missing": "", "version": "g++ 13"}, {"missing": "g++ not found"}):
        monkeypatch.setattr(Compiler, "tools", lambda self, language, found=found: Installed(language, **found))
        keys.append(verifier.Verifier(options(tmp_path))._entry_key(sources[0]))
    assert len(set(keys)) == 3


def test_compiled_programs_are_built_first_on_the_options_threads_and_kept_by_a_whole_verification(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every program an entry needs compiled (its C++ solvers, its C++ validator) is compiled before any
    job, on as many threads as the options say; a whole verification keeps their folders, and those of
    what a package's scripts built, and no others."""
    from site_builder.verify.compiler import Compiler

    files = {
        "problem.yaml": "name: X\nvalidation: custom\n",
        "submissions/accepted/a.cpp": "int main(){}\n",
        "submissions/accepted/b.py": "print(1)\n",
        "output_validators/v/validate.cpp": "int main(){return 42;}\n",
        "data/sample/1.in": "1\n",
        "data/sample/1.ans": "1\n",
    }
    scripted = {**files, "output_validators/v/validate.cpp": "", "output_validators/v/build": "#!/bin/sh\n"}
    del scripted["output_validators/v/validate.cpp"]
    archive_files = {f"t/A-pkg/{n}": t for n, t in files.items()} | {f"t/B-pkg/{n}": t for n, t in scripted.items()}
    sources, archive = load(tmp_path, archive_files)
    compiled: list[tuple[str, bool]] = []

    def compile(self: Compiler, source: Any) -> tuple[Path, str]:
        compiled.append((source.main, threading.current_thread() is threading.main_thread()))
        return self.program(source), ""

    built = tmp_path / "cache" / "programs" / "built-by-scripts" / "run.tar"
    monkeypatch.setattr(Compiler, "compiled", lambda self, source: None if source.files else built)  # never made
    monkeypatch.setattr(Compiler, "compile", compile)
    monkeypatch.setattr(Compiler, "build_scripted", lambda self, files: (built, ""))
    checker = verifier.Verifier(options(tmp_path))
    kept: list[set[str]] = []
    monkeypatch.setattr(checker.compiler, "keep_only", lambda folders: kept.append(folders))
    report = checker.run(sources, archive, whole=True)
    before = [main for main, on_main in compiled if not on_main]
    assert sorted(before) == ["a.cpp", "a.cpp", "validate.cpp"]  # the pool's, before any job
    folders = {checker.compiler.program(p).parent.name for s in sources for p in verifier._programs(s)}
    assert kept == [folders | {"built-by-scripts"}] and len(folders) == 2
    assert sorted(j.solver.name for j in runs.jobs) == [
        "submissions/accepted/a.cpp", "submissions/accepted/a.cpp", "submissions/accepted/b.py",
        "submissions/accepted/b.py",
    ]  # fmt: skip
    assert {j.validator.built for j in runs.jobs if j.entry == "t/B-pkg"} == {built}
    assert set(report.runs) == {"t/A-pkg", "t/B-pkg"}


@pytest.mark.parametrize(("jobs", "most"), [(2, 2), (0, 1)])  # at least one thread, whatever the options say
def test_jobs_run_on_as_many_threads_as_the_options_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, most: int
) -> None:
    files = {
        f"t/A-{n}/{name}": text
        for n in range(4)
        for name, text in (("solution.py", "print(1)\n"), ("samples/1.in", "1\n"))
    }
    sources, archive = load(tmp_path, files)
    crowd = Crowd(most)

    def waiting(job: Job, options: VerifyOptions) -> Verdict:
        crowd.visit()
        return Verdict(job.sample.name, "AC", 0.0, "", False, "")

    monkeypatch.setattr(verifier, "run_job", waiting)
    verifier.verify_entries(sources, archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=jobs))
    assert crowd.peak == most


def test_a_checker_in_python_runs_with_the_build_s_python(tmp_path: Path, runs: Runs) -> None:
    from site_builder.verify.runtimes import python_runtime

    sources, archive = load(tmp_path, {**FILES, "t/A-one/checker.py": "exit(42)\n"})
    verifier.verify_entries(sources[:1], archive, options(tmp_path))
    assert {j.validator.argv for j in runs.jobs if j.validator} == {
        (python_runtime(options(tmp_path).interpreter)[0], "checker.py")
    }


@pytest.mark.parametrize(("jobs", "most"), [(2, 2), (1, 1)])
def test_programs_are_compiled_on_as_many_threads_as_the_options_say(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch, jobs: int, most: int
) -> None:
    from site_builder.verify.compiler import Compiler

    files = {f"t/A-{n}/solution.cpp": f"int main(){{return {n};}}\n" for n in range(3)}
    sources, archive = load(tmp_path, files | {f"t/A-{n}/samples/1.in": "1\n" for n in range(3)})
    crowd = Crowd(most)

    def compile(self: Compiler, source: Any) -> tuple[Path, str]:
        if threading.current_thread() is not threading.main_thread():  # a solver made after the pool: it is there
            crowd.visit()
        return self.program(source), ""

    monkeypatch.setattr(Compiler, "compiled", lambda self, source: None)
    monkeypatch.setattr(Compiler, "compile", compile)
    verifier.verify_entries(sources, archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=jobs))
    assert crowd.peak == most


MANAGER = ValidatorProgram("check/manager.cpp", ("./validator",), (), (), "d", convention="cms-manager")


def communication_task(tmp_path: Path, user_io: str, graders: tuple[str, ...]) -> Any:
    (source,), _ = load(tmp_path, {k: v for k, v in FILES.items() if k.startswith("t/B-two/")})
    meta = replace(source.meta, communication=(2, user_io), io_files=("in.txt", "out.txt"))
    return replace(source, meta=meta, layout=replace(source.layout, graders=graders))


@pytest.mark.parametrize(
    ("user_io", "graders", "fifo"),
    [
        ("fifo_io", (), True),  # as the task says
        ("std_io", ("sol/stub.cpp",), False),
        ("", ("sol/stub.cpp", "sol/stub.h"), True),  # else as CMS's loader decides: FIFOs where a stub is linked
        ("", ("sol/grader.cpp", "sol/stub-notes.txt"), False),
    ],
)
def test_a_communication_task_s_solver_talks_as_the_task_says(
    tmp_path: Path, user_io: str, graders: tuple[str, ...], fifo: bool
) -> None:
    source = communication_task(tmp_path, user_io, graders)
    solver = first_solver(source, tmp_path)
    (job,) = _jobs(source, solver, tmp_path / "folder", MANAGER, options(tmp_path))
    assert (job.communication, job.io_files, job.archive_dir) == ((2, fifo), ("in.txt", "out.txt"), tmp_path / "folder")
    kattis = replace(MANAGER, convention="kattis")
    (plain,) = _jobs(source, solver, tmp_path / "folder", kattis, options(tmp_path))
    assert plain.communication is None and plain.key != job.key  # no manager: not a communication task
    (alone,) = _jobs(source, solver, tmp_path / "folder", None, options(tmp_path))
    assert alone.communication is None


def first_solver(source: Any, tmp_path: Path) -> Any:
    return verifier._solvers(source, options(tmp_path), verifier.Verifier(options(tmp_path)).compiler)[0]


def test_the_way_a_solver_talks_is_in_its_jobs_keys(tmp_path: Path) -> None:
    keys = set()
    for n, (user_io, graders) in enumerate((("fifo_io", ()), ("std_io", ()), ("", ("sol/stub.cpp",)))):
        source = communication_task(tmp_path / str(n), user_io, graders)
        keys.add(_jobs(source, first_solver(source, tmp_path), tmp_path, MANAGER, options(tmp_path))[0].key)
    assert len(keys) == 3


def test_an_entry_s_key_follows_the_files_of_a_submission_built_by_its_scripts(tmp_path: Path) -> None:
    """Every file of the folder, not only its scripts; and still not the statement or the write-up."""
    files = {
        "t/A-pkg/problem.yaml": "name: X\n",
        "t/A-pkg/submissions/accepted/s/run": "#!/bin/sh\n./a\n",
        "t/A-pkg/submissions/accepted/s/lib/a.c": "int main(){}\n",
        "t/A-pkg/statement/problem.en.md": "Add.\n",
        "t/A-pkg/data/sample/1.in": "1\n",
        "t/A-pkg/data/sample/1.ans": "1\n",
    }
    checker = verifier.Verifier(options(tmp_path))

    def key(changes: dict[str, str]) -> str:
        (source,), _ = load(tmp_path / str(len(seen)), {**files, **changes})
        seen.append(source)
        return checker._entry_key(source)

    seen: list[Any] = []
    base = key({})
    assert key({"t/A-pkg/submissions/accepted/s/lib/a.c": "int main(){return 1;}\n"}) != base
    assert key({"t/A-pkg/statement/problem.en.md": "Add two numbers.\n"}) == base
