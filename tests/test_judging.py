"""What a run is judged (``verify/judging.py``), from the run's facts alone: no program is started. How
the runs get those facts is in ``test_runner.py`` and ``test_sandbox.py``; whole verifications, with real
solvers and validators, in ``test_verify.py``."""

from __future__ import annotations

import io
import signal
import tarfile
from pathlib import Path
from typing import Any

import pytest

from site_builder.model import Checker, Sample, Verdict
from site_builder.sandbox import runner
from site_builder.sandbox.runner import Limits, RunResult
from site_builder.verify import judging
from site_builder.verify.jobs import Job
from site_builder.verify.options import VerifyOptions
from site_builder.verify.runtimes import python_runtime
from site_builder.verify.solvers import Solver, ValidatorProgram

MiB = 1 << 20
SAMPLE = Sample("1", "data/sample/1.in", "data/sample/1.ans", "3 4\n", "7\n")


def job(answer: str | None = "7\n", validator: ValidatorProgram | None = None, **limits: Any) -> Job:
    sample = Sample(SAMPLE.name, SAMPLE.input_file, SAMPLE.answer_file, SAMPLE.input, answer)
    solver = Solver("solution.py", "python", "print(7)", ("python3", "solution.py"))
    every = {"wall": 3.0, "memory": 256 * MiB, "output": 8 * MiB, **limits}
    return Job("icpc/a", solver, sample, Path("/archive"), Checker(), validator, Limits(**every), "key", time_limit=1.0)


def ran(stdout: bytes = b"7\n", **facts: Any) -> RunResult:
    every: dict[str, Any] = {"exit_code": 0, "signal": None, "wall": 0.5, "cpu": 0.5, "stderr": ""}
    every |= {"timed_out": False, "output_exceeded": False, **facts}
    return RunResult(stdout=stdout, **every)


def judged(result: RunResult, of: Job | None = None) -> Verdict:
    return judging.judge(of or job(), result, VerifyOptions())


def test_a_right_answer_is_accepted_with_its_cpu_time_and_output() -> None:
    assert judged(ran(wall=0.9, cpu=0.4567)) == Verdict("1", "AC", 0.457, "7\n", False, "")


def test_a_wrong_answer_says_where_it_differs() -> None:
    got = judged(ran(b"8\n"))
    assert (got.code, got.output) == ("WA", "8\n") and got.message


def test_output_is_shown_up_to_64_kib_and_says_it_was_cut() -> None:
    long = b"x" * (64 * 1024) + b"\xff"
    got = judged(ran(long))
    assert (got.code, got.output, got.output_truncated) == ("WA", "x" * 64 * 1024, True)
    exact = judged(ran(b"y" * 64 * 1024))
    assert (exact.output, exact.output_truncated) == ("y" * 64 * 1024, False)
    assert judged(ran(b"\xff7\n")).output == "\ufffd7\n"


def test_cpu_time_over_the_limit_is_a_time_limit_and_wall_time_alone_is_not() -> None:
    """Judges limit CPU time: a busy machine stretches a run's wall-clock time, not its CPU time."""
    assert (judged(ran(wall=1.5, cpu=0.5)).code, judged(ran(wall=1.5, cpu=0.5)).message) == ("AC", "")
    assert judged(ran(cpu=1.0)).code == "AC"  # at the limit is within it
    got = judged(ran(cpu=1.5))
    assert (got.code, got.message, got.seconds) == ("TLE", "CPU time 1.50 s: over the time limit of 1 s", 1.5)


def test_a_wrong_answer_over_the_cpu_limit_is_a_time_limit_and_one_slow_on_the_clock_a_wrong_answer() -> None:
    assert judged(ran(b"8\n", cpu=1.5)).code == "TLE"
    got = judged(ran(b"8\n", wall=1.5, cpu=0.5))
    assert got.code == "WA" and got.message.startswith("line 1") and "slow" not in got.message


@pytest.mark.parametrize("cpu", [4.0, 4.01])  # a SIGKILL with the CPU time of the stop itself: for its time too
@pytest.mark.parametrize("ended", [{"signal": signal.SIGXCPU}, {"signal": signal.SIGKILL}])
def test_a_run_stopped_by_its_cpu_limit_is_over_the_time_limit(ended: dict[str, Any], cpu: float) -> None:
    """RLIMIT_CPU sends SIGXCPU at ``Limits.cpu_seconds`` (the wall limit of 3 s, plus one), SIGKILL a second later."""
    got = judged(ran(wall=4.3, cpu=cpu, exit_code=None, **ended))
    stopped = "stopped at 4 s of CPU time: over the time limit of 1 s"
    assert (got.code, got.message, got.seconds) == ("TLE", stopped, cpu)


def test_a_run_the_clock_stopped_within_its_cpu_time_is_a_time_limit_that_says_so() -> None:
    got = judged(ran(wall=3.2, cpu=0.5, timed_out=True, signal=signal.SIGKILL))
    assert (got.code, got.seconds) == ("TLE", 0.5)
    assert got.message == (
        "Time Limit Exceeded (wall): stopped after 3 s of wall-clock time, with 0.50 s of CPU time (limit 1 s):"
        " it sleeps or waits for input, or this machine was too busy to run it"
    )
    assert judged(ran(wall=1.2, cpu=0.5, signal=signal.SIGKILL)).code == "RTE"  # killed, but not for its time


def test_too_much_output_says_how_much_was_allowed() -> None:
    got = judged(ran(output_exceeded=True, signal=9, exit_code=None))
    assert (got.code, got.message) == ("OLE", "printed more than 8 MiB")


@pytest.mark.parametrize(
    ("facts", "first"),
    [
        ({"exit_code": 3}, "exit code 3"),
        ({"exit_code": None, "signal": 9}, "killed by SIGKILL (killed)"),
        ({"exit_code": None, "signal": 11}, "killed by SIGSEGV (segmentation fault)"),
        ({"exit_code": None, "signal": 25}, "killed by SIGXFSZ (wrote a file over the size limit)"),
        ({"exit_code": None, "signal": 6}, "killed by SIGABRT (signal)"),
        ({"exit_code": None, "signal": 77}, "killed by 77 (signal)"),
    ],
)
def test_a_crash_says_how_it_ended(facts: dict[str, Any], first: str) -> None:
    got = judged(ran(**facts))
    assert (got.code, got.message) == ("RTE", first)


def test_a_crash_shows_the_last_twelve_lines_of_standard_error_and_the_exception() -> None:
    lines = [f"line {n}" for n in range(20)]
    tail = ["Traceback (most recent call last):", '  File "main.py", line 3, in <module>', "ValueError: bad"]
    got = judged(ran(exit_code=1, stderr="\n".join([*lines, *tail]) + "\n\n"))
    assert got.message == "exit code 1: ValueError: bad\n" + "\n".join([*lines[-9:], *tail])


def test_a_program_out_of_memory_is_told_its_limit() -> None:
    got = judged(ran(exit_code=1, stderr="MemoryError\n"), job(memory=2048 * MiB))
    assert got.message == "exit code 1: MemoryError; out of memory (limit 2 GiB address space)\nMemoryError"
    assert (
        "(limit 300 MiB address space)" in judged(ran(exit_code=1, stderr="MemoryError"), job(memory=300 * MiB)).message
    )


@pytest.mark.parametrize(
    ("tail", "said"),
    [
        (
            ['  File "main.py", line 3', "    x = (", "SyntaxError: '(' was never closed"],
            "SyntaxError: '(' was never closed (line 3)",
        ),
        (
            ['  File "main.py", line 12', "IndentationError: unexpected indent"],
            "IndentationError: unexpected indent (line 12)",
        ),
        (["TabError: inconsistent use of tabs"], "TabError: inconsistent use of tabs"),
        (["KeyboardInterrupt"], "KeyboardInterrupt"),
        (["SystemExit: 2", "trailing words"], "SystemExit: 2"),
        (["zipimport.ZipImportError: no"], "zipimport.ZipImportError: no"),
        (["  ValueError: indented"], ""),
        (["Error"], ""),
        (["not an exception: ValueError"], ""),
        (["RecursionError: " + "x" * 400], "RecursionError: " + "x" * 284),
    ],
)
def test_a_python_crash_is_summed_up_by_its_exception(tail: list[str], said: str) -> None:
    assert judging._exception_line(tail) == said


def test_a_later_exception_line_is_the_one_shown() -> None:
    assert judging._exception_line(["ValueError: first", "KeyError: second", "more"]) == "KeyError: second"


def test_a_run_without_an_answer_to_compare_is_generated_output() -> None:
    got = judged(ran(b"whatever\n"), job(answer=None))
    assert (got.code, got.message) == ("GEN", "no answer file: this output is what the solver printed, not verified")


def validator(**fields: Any) -> ValidatorProgram:
    every: dict[str, Any] = {"name": "output_validator/", "argv": ("./validator",), "files": (("a.txt", "A"),)}
    every |= {"args": ("float_tolerance", "1e-6"), "digest": "d", "program": None, **fields}
    return ValidatorProgram(**every)


class Validating:
    """``sandbox.run`` as the validator's run: what it was asked, and what it answers."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, result: RunResult) -> None:
        self.result = result
        self.calls: list[tuple[list[str], bytes | None, dict[str, Any]]] = []
        self.limits: list[Limits] = []
        monkeypatch.setattr(runner, "run", self.run)  # as judging.py calls it

    def run(self, argv: list[str], stdin: bytes | None, limits: Limits, **given: Any) -> RunResult:
        self.calls.append((argv, stdin, given))
        self.limits.append(limits)
        return self.result


@pytest.mark.parametrize(
    ("code", "collected", "expected"),
    [
        (42, b"  fine  \n", ("AC", "fine")),
        (43, b"expected 7\n", ("WA", "expected 7")),
        (43, b"", ("WA", "output_validator/ rejected the output")),
    ],
)
def test_a_kattis_validators_exit_code_is_the_verdict(
    monkeypatch: pytest.MonkeyPatch, code: int, collected: bytes, expected: tuple[str, str]
) -> None:
    validating = Validating(monkeypatch, ran(b"", exit_code=code, collected=collected))
    got = judged(ran(b"7\n"), job(validator=validator()))
    assert (got.code, got.message) == expected
    ((argv, stdin, given),) = validating.calls
    assert argv == ["./validator", "input", "answer", "feedback/", "float_tolerance", "1e-6"]
    assert stdin == b"7\n"
    assert given["files"]["input"] == b"3 4\n" and given["files"]["answer"] == b"7\n"
    assert given["files"]["a.txt"] == b"A"
    assert given["dirs"] == ("feedback",) and given["collect"] == "feedback/judgemessage.txt"


def test_a_validators_message_is_cut_to_2000_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    Validating(monkeypatch, ran(b"", exit_code=43, collected=b"w" * 10_000))
    assert judged(ran(), job(validator=validator())).message == "w" * 2000


@pytest.mark.parametrize(
    ("facts", "why"),
    [
        ({"exit_code": 0}, "exit code 0"),
        ({"exit_code": 1, "stderr": " oops \n"}, "exit code 1"),
        ({"exit_code": None, "signal": 11}, "killed by signal 11"),
        ({"exit_code": None, "signal": 9, "timed_out": True}, "timed out"),
    ],
)
def test_a_validator_that_neither_accepts_nor_rejects_is_a_judging_error(
    monkeypatch: pytest.MonkeyPatch, facts: dict[str, Any], why: str
) -> None:
    Validating(monkeypatch, ran(b"", **facts))
    got = judged(ran(), job(validator=validator()))
    said = ". It printed:\noops" if facts.get("stderr") else ""
    assert (got.code, got.message) == ("CE", f"output_validator/ failed ({why}); it must exit with 42 or 43{said}")


def test_a_validator_that_cannot_run_says_why_without_running(monkeypatch: pytest.MonkeyPatch) -> None:
    validating = Validating(monkeypatch, ran())
    assert judged(ran(), job(validator=validator(note="no compiler"))).code == "NJ"
    broken = judged(ran(), job(validator=validator(note="does not compile", broken=True)))
    assert (broken.code, broken.message) == ("CE", "does not compile")
    assert validating.calls == []


def test_the_feedback_folder_goes_in_and_comes_back_for_the_next_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    validating = Validating(
        monkeypatch, ran(b"", exit_code=42, collected=tar({"judgemessage.txt": b"pass 1 ok", "nextpass.in": b"5\n"}))
    )
    feedback = {"state.txt": b"before"}
    got = judging.judge(job(validator=validator()), ran(), VerifyOptions(), feedback)
    assert (got.code, got.message) == ("AC", "pass 1 ok")
    assert feedback == {"judgemessage.txt": b"pass 1 ok", "nextpass.in": b"5\n"}
    ((_, _, given),) = validating.calls
    assert given["files"]["feedback/state.txt"] == (b"before", 0o644) and given["collect"] == "feedback/"


def tar(files: dict[str, bytes], folders: tuple[str, ...] = ()) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for name in folders:
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            archive.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_only_the_plain_files_at_the_top_of_the_feedback_folder_come_back() -> None:
    packed = tar({"./a.txt": b"A", "sub/b.txt": b"B", "./": b""}, folders=("./", "sub"))
    assert judging._unpacked(packed) == {"a.txt": b"A"}
    assert judging._unpacked(b"not a tar") == {}
    assert judging._unpacked(packed[:700]) == {}


def test_sizes_are_named_in_whole_gib_or_mib() -> None:
    assert [judging._mib(n) for n in (1 << 30, 3 << 30, 512 * MiB, (1 << 30) + MiB)] == [
        "1 GiB",
        "3 GiB",
        "512 MiB",
        "1025 MiB",
    ]


def test_a_compiled_validator_runs_as_its_program_without_the_python_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "validator.bin"
    program.write_bytes(b"\x7fELF compiled")
    validating = Validating(monkeypatch, ran(b"", exit_code=42))
    got = judged(ran(), job(validator=validator(program=program)))
    assert got.code == "AC"
    ((_, _, given),) = validating.calls
    assert given["files"]["validator"] == (b"\x7fELF compiled", 0o555)
    assert given["toolchain"] == runner.Toolchain()


def test_a_script_validator_runs_with_the_python_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    validating = Validating(monkeypatch, ran(b"", exit_code=42))
    judged(ran(), job(validator=validator()))
    ((_, _, given),) = validating.calls
    assert given["toolchain"] == python_runtime(VerifyOptions().interpreter)[1] != runner.Toolchain()
    assert validating.limits == [job().limits]  # the solver's


def test_a_built_validator_runs_as_the_folder_its_build_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = tmp_path / "built.tar"
    built.write_bytes(tar({"run": b"#!/bin/sh\nexit 42\n"}))
    validating = Validating(monkeypatch, ran(b"", exit_code=42))
    assert judged(ran(), job(validator=validator(built=built))).code == "AC"
    ((_, _, given),) = validating.calls
    assert given["files"]["run"] == (b"#!/bin/sh\nexit 42\n", 0o644)
    assert given["toolchain"] == runner.Toolchain()


def test_a_compiled_validator_that_cannot_be_read_is_a_judging_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validating = Validating(monkeypatch, ran(b"", exit_code=42))
    got = judged(ran(), job(validator=validator(program=tmp_path / "gone")))
    assert (got.code, got.message) == ("CE", "cannot read the compiled output_validator/: No such file or directory")
    assert validating.calls == []


@pytest.mark.parametrize(
    ("convention", "files", "code"),
    [("testlib", ["input", "output", "answer"], "AC"), ("cms", ["input", "answer", "output"], "WA")],
)
def test_a_testlib_or_cms_checker_is_given_the_output_as_a_file(
    monkeypatch: pytest.MonkeyPatch, convention: str, files: list[str], code: str
) -> None:
    """Exit code 0 accepts for testlib; a CMS checker's score (0 here) is on its standard output."""
    validating = Validating(monkeypatch, ran(b"0.0\n", exit_code=0, stderr="ok\n"))
    got = judged(ran(b"7\n"), job(validator=validator(convention=convention, args=())))
    assert got.code == code
    ((argv, stdin, given),) = validating.calls
    assert argv == ["./validator", *files] and stdin is None
    assert given["files"]["output"] == b"7\n" and given["files"]["answer"] == b"7\n"
    assert given["toolchain"] == python_runtime(VerifyOptions().interpreter)[1]
    assert validating.limits == [job().limits]


def test_a_testlib_checkers_rejection_is_a_wrong_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = tmp_path / "checker"
    program.write_bytes(b"compiled")
    validating = Validating(monkeypatch, ran(b"", exit_code=1, stderr="wrong answer 8 != 7\n"))
    got = judged(ran(b"8\n"), job(validator=validator(convention="testlib", program=program)))
    assert got.code == "WA" and "wrong answer 8 != 7" in got.message
    ((_, _, given),) = validating.calls
    assert given["toolchain"] == runner.Toolchain()
    Validating(monkeypatch, ran(b"", exit_code=1))
    silent = judged(ran(b"8\n"), job(validator=validator(convention="testlib", program=program)))
    assert (silent.code, silent.message) == ("WA", "output_validator/ rejected the output")


def test_a_validators_message_is_read_from_its_first_8_kib_leniently(monkeypatch: pytest.MonkeyPatch) -> None:
    Validating(monkeypatch, ran(b"", exit_code=43, collected=b" " * 8192 + b"cut off"))
    assert judged(ran(), job(validator=validator())).message == "output_validator/ rejected the output"
    Validating(monkeypatch, ran(b"", exit_code=43, collected=b"bad \xff"))
    assert judged(ran(), job(validator=validator())).message == "bad \ufffd"


def test_a_pass_without_a_judge_message_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    Validating(monkeypatch, ran(b"", exit_code=42, collected=tar({"nextpass.in": b"5\n"})))
    got = judging.judge(job(validator=validator()), ran(), VerifyOptions(), {})
    assert (got.code, got.message) == ("AC", "")


def test_a_failing_validator_shows_the_last_2000_characters_it_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    Validating(monkeypatch, ran(b"", exit_code=1, stderr="a" + "b" * 2000))
    assert judged(ran(), job(validator=validator())).message.endswith("It printed:\n" + "b" * 2000)


def test_a_compressed_feedback_folder_is_not_unpacked() -> None:
    """The shell writes it with ``tar -cf``: a run that hands back a compressed one gets nothing unpacked."""
    import gzip

    assert judging._unpacked(gzip.compress(tar({"judgemessage.txt": b"x"}))) == {}


def test_a_tab_error_says_where_too() -> None:
    tail = ['  File "main.py", line 4', "TabError: inconsistent use of tabs and spaces in indentation"]
    assert judging._exception_line(tail) == "TabError: inconsistent use of tabs and spaces in indentation (line 4)"
