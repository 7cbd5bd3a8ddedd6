"""Checkers of other judges' conventions (verify/checkers.py), read from a run's facts alone: every
verdict and every message a testlib checker (Polygon's) or a CMS one can give, exactly."""

from __future__ import annotations

import pytest

from site_builder.sandbox.runner import RunResult
from site_builder.verify.checkers import checker_arguments, judge_checker, judge_interactor

NO_SCORE = "check.cpp printed no score (a number from 0 to 1) on its standard output"


def ran(exit_code: int | None = 0, stderr: str = "", stdout: bytes = b"", **facts: object) -> RunResult:
    run = {"signal": None, "wall": 0.1, "cpu": 0.1, "timed_out": False, "output_exceeded": False} | facts
    return RunResult(exit_code, stdout=stdout, stderr=stderr, **run)  # type: ignore[arg-type]


def judged(convention: str, result: RunResult) -> tuple[str, str]:
    got = judge_checker(convention, "check.cpp", result)
    return got.code, got.message


def test_each_convention_names_its_files_in_its_own_order() -> None:
    assert checker_arguments("testlib") == ("input", "output", "answer")
    assert checker_arguments("cms") == ("input", "answer", "output")


@pytest.mark.parametrize(
    ("exit_code", "stderr", "verdict"),
    [
        (0, "ok 2 numbers\n", ("AC", "ok 2 numbers")),
        (0, "", ("AC", "")),
        (7, "points 7.5\n", ("AC", "points 7.5")),  # a scoring problem's points: not a rejection
        (7, "", ("AC", "")),
        (1, "wrong answer 3 != 4\n", ("WA", "wrong answer 3 != 4")),
        (1, "  \n", ("WA", "check.cpp rejected the output")),
        (2, "wrong output format extra\n", ("WA", "presentation error: wrong output format extra")),
        (2, "", ("WA", "presentation error")),
        (
            3,
            "FAIL answer is bad\n",
            (
                "CE",
                "check.cpp failed (it reported its own failure (exit code 3)); "
                "a testlib checker exits with 0, 1 or 2. It printed:\nFAIL answer is bad",
            ),
        ),
        (4, "", ("CE", "check.cpp failed (exit code 4); a testlib checker exits with 0, 1 or 2")),
        (-1, "x", ("CE", "check.cpp failed (exit code -1); a testlib checker exits with 0, 1 or 2. It printed:\nx")),
    ],
)
def test_a_testlib_checker_is_read_by_its_exit_code(exit_code: int, stderr: str, verdict: tuple[str, str]) -> None:
    assert judged("testlib", ran(exit_code, stderr)) == verdict
    interacted = judge_interactor("check.cpp", ran(exit_code, stderr))
    assert (interacted.code, interacted.message) == verdict


@pytest.mark.parametrize("convention", ["testlib", "cms"])
def test_a_checker_that_does_not_end_by_itself_fails(convention: str) -> None:
    assert judged(convention, ran(None, "ok", signal=9, timed_out=True)) == ("CE", "check.cpp failed (timed out)")
    assert judged(convention, ran(None, "ok", b"1\n", timed_out=True)) == ("CE", "check.cpp failed (timed out)")
    assert judged(convention, ran(None, "ok", b"1\n", signal=11)) == ("CE", "check.cpp failed (killed by signal 11)")
    assert judged(convention, ran(0, "ok", b"1\n", signal=0)) == ("CE", "check.cpp failed (killed by signal 0)")


def test_only_the_end_of_what_a_checker_printed_is_kept() -> None:
    said = "a" * 500 + "b" * 2000
    assert judged("testlib", ran(1, f" \n{said}\n\n")) == ("WA", "b" * 2000)
    assert judged("cms", ran(0, said, b"0\n")) == ("WA", "score 0: " + "b" * 2000)


@pytest.mark.parametrize(
    ("stdout", "stderr", "verdict"),
    [
        (b"1\n", "all right\n", ("AC", "all right")),
        (b"1.0", "", ("AC", "")),
        (b" 0.9999999999 extra words\n", "", ("AC", "")),  # within a billionth of the full score
        (b"0.999999999\n", "", ("AC", "")),  # a billionth below it, as near as floats come
        (b"0.999999\n", "", ("WA", "score 0.999999")),
        (b"0.5\n", "half\n", ("WA", "score 0.5: half")),
        (b"0\n", "", ("WA", "score 0")),
        (b"2\n", "", ("CE", "check.cpp gave the score 2, outside 0 to 1")),
        (b"1.0000001\n", "", ("CE", "check.cpp gave the score 1, outside 0 to 1")),
        (b"-0.5\n", "", ("CE", "check.cpp gave the score -0.5, outside 0 to 1")),
        (b"lots\n", "", ("CE", f"{NO_SCORE}: 'lots'")),
        (b" \n", "why", ("CE", f"{NO_SCORE}: ''. It printed:\nwhy")),
        (b"\xff", "", ("CE", f"{NO_SCORE}: '\ufffd'")),
    ],
)
def test_a_cms_checker_gives_a_score_from_0_to_1(stdout: bytes, stderr: str, verdict: tuple[str, str]) -> None:
    assert judged("cms", ran(0, stderr, stdout)) == verdict


def test_what_a_cms_checker_printed_that_is_no_score_is_quoted_up_to_80_characters() -> None:
    code, message = judged("cms", ran(0, "", b"y" * 100))
    assert (code, message) == ("CE", f"{NO_SCORE}: '{'y' * 80}'")


def test_a_cms_checker_that_fails_is_a_checker_failure_whatever_it_printed() -> None:
    assert judged("cms", ran(1, "", b"1\n")) == ("CE", "check.cpp failed (exit code 1)")
    assert judged("cms", ran(2, "no input\n", b"1\n")) == (
        "CE",
        "check.cpp failed (exit code 2). It printed:\nno input",
    )
