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
from site_builder.sandbox.runner import Limits, RunResult
from site_builder.verify import runs
from site_builder.verify.jobs import Job
from site_builder.verify.options import VerifyOptions
from site_builder.verify.solvers import Solver, ValidatorProgram

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
