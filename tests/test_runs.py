"""How a job is run (``verify/runs.py``), with the sandbox's ``run`` replaced by a stand-in that records
what it was asked and answers as a run would: which way a job goes (a communication task, an interactive
problem, a plain run), what the solver reads, the files a task reads and writes, an unreadable sample.
Whole verifications, with real solvers, are in ``test_verify.py``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from site_builder.model import Checker, Sample, Verdict
from site_builder.sandbox import runner
from site_builder.sandbox.runner import Limits, RunResult, Toolchain
from site_builder.source.languages import JudgeLanguage
from site_builder.verify import runs
from site_builder.verify.jobs import Job
from site_builder.verify.options import VerifyOptions
from site_builder.verify.runtimes import python_runtime
from site_builder.verify.solvers import Solver, ValidatorProgram, runtime_language
from site_builder.verify.toolchains import Installed, installed, sandboxed

SAMPLE = Sample("1", "data/sample/1.in", "data/sample/1.ans", "3 4\n", "7\n")
VALIDATOR = ValidatorProgram("validate.py", ("python3", "validate.py"), (), (), "digest")
OPTIONS = VerifyOptions()


def job(archive: Path, **fields: Any) -> Job:
    solver = Solver("solution.py", "python", "print(7)", ("python3", "solution.py"))
    made = Job("icpc/a", solver, SAMPLE, archive, Checker(), None, Limits(wall=3.0), "key", time_limit=1.0)
    return replace(made, **fields)


class StandIn:
    """``sandbox.run`` as ``runs`` calls it: what each call was given; each answers ``printed`` (and
    ``collected``, the file collected)."""

    def __init__(self, printed: bytes = b"7\n", collected: bytes = b"") -> None:
        self.calls: list[tuple[bytes, dict[str, Any]]] = []
        self.printed, self.collected = printed, collected

    def __call__(self, argv: list[str], stdin: bytes, limits: Limits, **given: Any) -> RunResult:
        self.calls.append((stdin, given))
        every: dict[str, Any] = {"exit_code": 0, "signal": None, "wall": 0.1, "cpu": 0.1, "stderr": ""}
        every |= {"timed_out": False, "output_exceeded": False}
        return RunResult(stdout=self.printed, collected=self.collected, **every)


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandIn:
    made = StandIn()
    monkeypatch.setattr(runner, "run", made)
    return made


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    (tmp_path / "data/sample").mkdir(parents=True)
    (tmp_path / "data/sample/1.in").write_bytes(b"3 4\n")
    return tmp_path


def test_a_communication_task_and_an_interactive_problem_go_their_own_ways_with_their_validator(
    archive: Path, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each with its validator, its tools and the build's options; without a validator, a plain run."""
    taken: list[tuple[str, object, object, bool]] = []

    def way(name: str) -> Any:
        def going(job: Job, validator: ValidatorProgram, tools: Any, options: VerifyOptions) -> Verdict:
            taken.append((name, validator, options, tools is not None and hasattr(tools, "limits")))
            return Verdict(job.sample.name, "AC", 0.0, "", False, name)

        return going

    monkeypatch.setattr(runs, "run_communication", way("communication"))
    monkeypatch.setattr(runs, "_interactive", way("interactive"))
    ways: dict[str, dict[str, Any]] = {
        "communication": {"communication": (2, True)},
        "interactive": {"interactive": True},
    }
    for name, fields in ways.items():
        assert runs.run_job(job(archive, validator=VALIDATOR, **fields), OPTIONS).message == name
        assert runs.run_job(job(archive, **fields), OPTIONS).code == "AC"  # no validator: run, and judged
    assert taken == [("communication", VALIDATOR, OPTIONS, True), ("interactive", VALIDATOR, OPTIONS, True)]
    assert len(stand_in.calls) == 2


def test_the_solver_reads_its_sample_file_or_the_statements_example(archive: Path, stand_in: StandIn) -> None:
    (archive / "data/sample/1.in").write_bytes(b"from the file\n")
    runs.run_job(job(archive), OPTIONS)
    runs.run_job(job(archive, sample=replace(SAMPLE, input="from the statement\n", line=12)), OPTIONS)
    assert [stdin for stdin, _ in stand_in.calls] == [b"from the file\n", b"from the statement\n"]


def test_a_sample_that_cannot_be_read_is_a_run_time_error_saying_why(archive: Path, stand_in: StandIn) -> None:
    (archive / "data/sample/1.in").unlink()
    verdict = runs.run_job(job(archive), OPTIONS)
    why = f"cannot read {archive / 'data/sample/1.in'}: No such file or directory"
    assert verdict == Verdict("1", "RTE", 0.0, "", False, why)
    assert stand_in.calls == []


def test_a_task_that_reads_and_writes_files_gets_its_input_as_one_and_is_judged_by_the_other(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A CMS task's ``infile`` and ``outfile``.) The file it wrote is its output; what it printed counts only
    when it wrote none."""
    for printed, collected, judged in ((b"8\n", b"7\n", "AC"), (b"7\n", b"8\n", "WA"), (b"7\n", b"", "AC")):
        stand_in = StandIn(printed=printed, collected=collected)
        monkeypatch.setattr(runner, "run", stand_in)
        verdict = runs.run_job(job(archive, io_files=("input.txt", "output.txt")), OPTIONS)
        ((stdin, given),) = stand_in.calls
        assert (verdict.code, stdin, given["files"]["input.txt"], given["collect"]) == (
            judged,
            b"3 4\n",
            b"3 4\n",
            "output.txt",
        )
    stand_in = StandIn()
    monkeypatch.setattr(runner, "run", stand_in)
    runs.run_job(job(archive), OPTIONS)
    ((_, given),) = stand_in.calls
    assert (given["collect"], sorted(given["files"])) == (None, sorted(job(archive).solver.files()))


def test_a_single_pass_problem_runs_once_whatever_its_validator_asks(
    archive: Path, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a multi-pass problem's validator is given a place for its feedback (and a next pass)."""
    given: list[object] = []
    inputs: list[str] = []

    def judging(job: Job, result: RunResult, options: VerifyOptions, feedback: dict[str, bytes] | None) -> Verdict:
        given.append(feedback)
        inputs.append(job.sample.input)
        if feedback is not None:
            feedback["nextpass.in"] = b"again \xff\n"  # not UTF-8: the validator reads it leniently decoded
        return Verdict(job.sample.name, "AC", 0.0, "", False, "")

    monkeypatch.setattr(runs, "judge", judging)
    assert runs.run_job(job(archive), OPTIONS).code == "AC"
    assert (given, len(stand_in.calls)) == ([None], 1)
    verdict = runs.run_job(job(archive, multi_pass=True, passes=3), OPTIONS)
    assert (verdict.code, verdict.message, len(stand_in.calls)) == (
        "CE",
        "the validator asked for a pass after the last one (3) allowed",
        4,
    )
    assert [stdin for stdin, _ in stand_in.calls[1:]] == [b"3 4\n", b"again \xff\n", b"again \xff\n"]
    assert inputs[1:] == ["3 4\n", "again \ufffd\n", "again \ufffd\n"]


def ran(code: int | None = 0, *, cpu: float = 0.2, ended: float = 10.0, **fields: Any) -> RunResult:
    """A run's result (``ended``: the moment it ended, as ``perf_counter`` gives it)."""
    every: dict[str, Any] = {"signal": None, "wall": cpu, "stdout": b"", "stderr": "", "timed_out": False}
    return RunResult(code, cpu=cpu, ended=ended, output_exceeded=False, **(every | fields))


class Talk:
    """``run_interactive`` as ``_interactive`` calls it: the two calls it was given; it answers the solver's
    run and the validator's, as told."""

    def __init__(self, solver: RunResult, validator: RunResult) -> None:
        self.answer = (solver, validator)
        self.calls: list[tuple[Any, Any]] = []

    def __call__(self, solver: Any, validator: Any) -> tuple[RunResult, RunResult]:
        self.calls.append((solver, validator))
        return self.answer


PYTHON_TOOLS = installed(runtime_language("python"), OPTIONS.interpreter)


def interactive(
    monkeypatch: pytest.MonkeyPatch, archive: Path, solver_run: RunResult, checked: RunResult, **fields: Any
) -> tuple[Verdict, Talk]:
    talk = Talk(solver_run, checked)
    monkeypatch.setattr(runs, "run_interactive", talk)
    validator = fields.pop("validator", VALIDATOR)
    tools = fields.pop("tools", PYTHON_TOOLS)
    return runs._interactive(job(archive, **fields), validator, tools, OPTIONS), talk


def test_an_interaction_runs_the_solver_and_the_validator_each_as_its_own_call(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validator = replace(VALIDATOR, files=(("validate.py", "exit(42)\n"),), args=("-x", "1"))
    verdict, talk = interactive(
        monkeypatch, archive, ran(0, cpu=0.1234), ran(42, collected=b"  fine \n"), validator=validator
    )
    assert verdict == Verdict("1", "AC", 0.123, "", False, "fine")
    ((solver, checking),) = talk.calls
    limits = job(archive).limits
    assert (solver.argv, solver.limits, dict(solver.files)) == (
        ["python3", "solution.py"],
        limits,
        {"solution.py": b"print(7)"},
    )
    assert solver.toolchain == sandboxed(PYTHON_TOOLS.toolchain)
    assert checking.argv == ["python3", "validate.py", "input", "answer", "feedback/", "-x", "1"]
    assert (checking.limits, checking.dirs, checking.collect) == (limits, ("feedback",), "feedback/judgemessage.txt")
    assert dict(checking.files) == {"validate.py": b"exit(42)\n", "input": b"3 4\n", "answer": b"7\n"}
    assert checking.toolchain == sandboxed(python_runtime(OPTIONS.interpreter)[1])


def test_a_threaded_solver_gets_its_language_s_limits_and_a_compiled_validator_no_runtime(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jvm = JudgeLanguage("java", "Java", (".java",), (), ("java",), threads=True)
    tools = Installed(jvm)
    compiled = replace(VALIDATOR, argv=("./validator",), program=archive / "validator")
    (archive / "validator").write_bytes(b"\x7fELF")
    _, talk = interactive(monkeypatch, archive, ran(0), ran(42), validator=compiled, tools=tools)
    ((solver, checking),) = talk.calls
    assert solver.limits == tools.limits(job(archive).limits) != job(archive).limits
    assert checking.toolchain == Toolchain() and checking.files["validator"] == (b"\x7fELF", 0o555)
    assert solver.toolchain == sandboxed(tools.toolchain)


def test_a_validator_that_cannot_run_judges_no_interaction(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = replace(VALIDATOR, note="validate.cpp: compile error", broken=True)
    verdict, talk = interactive(monkeypatch, archive, ran(0), ran(42), validator=broken)
    assert (verdict, talk.calls) == (Verdict("1", "CE", 0.0, "", False, "validate.cpp: compile error"), [])
    absent = replace(VALIDATOR, note="not built here")
    verdict, talk = interactive(monkeypatch, archive, ran(0), ran(42), validator=absent)
    assert (verdict, talk.calls) == (Verdict("1", "NJ", 0.0, "", False, "not built here"), [])
    gone = Solver("a.cpp", "cpp", "int main(){}", ("./program",), program=archive / "missing")
    verdict, talk = interactive(monkeypatch, archive, ran(0), ran(42), solver=gone)
    why = f"cannot read {archive / 'missing'}: No such file or directory"
    assert (verdict, talk.calls) == (Verdict("1", "CE", 0.0, "", False, why), [])


@pytest.mark.parametrize(
    ("solver", "checked", "expected"),
    [
        # the validator rejects first: its verdict stands, with its words (or its name), and a crash beside it
        (ran(0, ended=10.0), ran(43, ended=9.0, collected=b"wrong guess\n"), ("WA", "wrong guess", 0.2)),
        (ran(0, ended=10.0), ran(43, ended=10.04), ("WA", "validate.py rejected the interaction", 0.2)),
        (
            ran(1, ended=10.0, cpu=0.5),
            ran(43, ended=9.0, collected=b"no"),
            ("WA", "no\n(the solver also ended with exit code 1)", 0.5),
        ),
        (
            ran(None, signal=11, ended=10.0),
            ran(43, ended=9.0),
            (
                "WA",
                "validate.py rejected the interaction\n"
                "(the solver also ended with killed by SIGSEGV (segmentation fault))",
                0.2,
            ),
        ),
        (
            ran(0, cpu=5.0, ended=10.0),
            ran(43, ended=9.0),
            ("WA", "validate.py rejected the interaction", 1.0),
        ),  # its limit
        # the solver ended first: its own failure is the verdict
        (ran(1, ended=9.0, cpu=0.3), ran(43, ended=10.0), ("RTE", "exit code 1", 0.3)),
        (ran(0, ended=9.0), ran(43, ended=10.0, collected=b"short"), ("WA", "short", 0.2)),
        (ran(0, ended=9.0), ran(43, ended=10.0), ("WA", "validate.py rejected the interaction", 0.2)),
        (ran(0, cpu=1.5), ran(42), ("TLE", "CPU time 1.50 s: over the time limit of 1 s", 1.5)),
        # the validator stopped on the clock stops the solver: a wall-clock Time Limit, whatever it said
        (
            ran(0, cpu=0.25),
            ran(None, timed_out=True, signal=9),
            (
                "TLE",
                "Time Limit Exceeded (wall): stopped after 3 s of wall-clock time, with 0.25 s of CPU time (limit 1 s):"
                " it sleeps or waits for input, or this machine was too busy to run it",
                0.25,
            ),
        ),
        (
            ran(0),
            ran(1, stderr="boom"),
            ("CE", "validate.py failed (exit code 1); it must exit with 42 or 43. It printed:\nboom", 0.0),
        ),
        (ran(None, signal=6), ran(42), ("RTE", "killed by SIGABRT (signal)", 0.2)),
        (ran(0), ran(42, collected=b"x" * 9000), ("AC", "x" * 2000, 0.2)),
    ],
)
def test_an_interaction_is_judged_as_judges_do(
    archive: Path,
    monkeypatch: pytest.MonkeyPatch,
    solver: RunResult,
    checked: RunResult,
    expected: tuple[str, str, float],
) -> None:
    verdict, _ = interactive(monkeypatch, archive, solver, checked)
    assert (verdict.code, verdict.message, verdict.seconds) == expected


def test_a_solver_stopped_for_its_time_is_what_ended_the_interaction(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A validator that rejects within a moment of a solver stopped at its CPU limit only saw the solver stop."""
    stopped = ran(None, signal=24, cpu=4.0, ended=10.0)  # SIGXCPU, at its CPU limit
    verdict, _ = interactive(monkeypatch, archive, stopped, ran(43, ended=10.01))
    assert (verdict.code, verdict.message) == ("TLE", "stopped at 4 s of CPU time: over the time limit of 1 s")
    verdict, _ = interactive(monkeypatch, archive, ran(0, ended=10.0), ran(43, ended=10.01))
    assert verdict.code == "WA"  # a solver not stopped: the same moment, and the validator's verdict stands


@pytest.mark.parametrize(
    ("checked", "expected"),
    [
        (ran(0, stderr="ok 3 queries"), ("AC", "ok 3 queries")),
        (ran(1, stderr="wrong answer 4"), ("WA", "wrong answer 4")),
        (
            ran(3, stderr="FAIL bad input"),
            (
                "CE",
                "interactor.cpp failed (it reported its own failure (exit code 3)); a testlib checker exits with 0, 1"
                " or 2. It printed:\nFAIL bad input",
            ),
        ),
    ],
)
def test_a_testlib_interactor_is_read_as_testlib_reads_it(
    archive: Path, monkeypatch: pytest.MonkeyPatch, checked: RunResult, expected: tuple[str, str]
) -> None:
    interactor = replace(VALIDATOR, name="interactor.cpp", convention="testlib-interactor", args=("ignored",))
    verdict, talk = interactive(monkeypatch, archive, ran(0), checked, validator=interactor)
    assert (verdict.code, verdict.message) == expected
    assert talk.calls[0][1].argv == ["python3", "validate.py", "input", "output"]


def test_what_an_interaction_s_validator_and_solver_say_is_read_whatever_it_holds(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    feedback = ran(42, collected=b"bad \xff byte\n")
    assert interactive(monkeypatch, archive, ran(0), feedback)[0].message == "bad \ufffd byte"
    padded = ran(42, collected=b" " * 8191 + b"xy")  # read up to 8 KiB of it
    assert interactive(monkeypatch, archive, ran(0), padded)[0].message == "x"
    out_of_memory = ran(1, stderr="Traceback\nMemoryError", ended=9.0)
    said = "exit code 1: MemoryError; out of memory (limit 1 GiB address space)\nTraceback\nMemoryError"
    assert interactive(monkeypatch, archive, out_of_memory, ran(42))[0].message == said
    verdict, _ = interactive(monkeypatch, archive, replace(out_of_memory, ended=10.0), ran(43, ended=9.0))
    assert verdict.message.endswith(
        "(the solver also ended with exit code 1: MemoryError; out of memory (limit 1 GiB address space))"
    )
    unanswered = replace(SAMPLE, answer=None, answer_file=None)
    _, talk = interactive(monkeypatch, archive, ran(0), ran(42), sample=unanswered)
    assert talk.calls[0][1].files["answer"] == b""


def test_a_validator_that_rejects_within_a_moment_of_the_solver_s_end_decides(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ends 50 ms apart are one moment: the validator's rejection stands, the solver's crash beside it,
    unless the solver was stopped for its time; then only an end at the same instant counts as first."""
    crashed = ran(1, ended=10.0)
    verdict, _ = interactive(monkeypatch, archive, crashed, ran(43, ended=10.04))
    assert (verdict.code, verdict.message) == (
        "WA",
        "validate.py rejected the interaction\n(the solver also ended with exit code 1)",
    )
    assert interactive(monkeypatch, archive, crashed, ran(43, ended=10.06))[0].code == "RTE"
    stopped = ran(None, signal=24, cpu=4.0, ended=10.0)
    assert interactive(monkeypatch, archive, stopped, ran(43, ended=10.0))[0].code == "WA"
    assert interactive(monkeypatch, archive, stopped, ran(43, ended=10.001))[0].code == "TLE"
