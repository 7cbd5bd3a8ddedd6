"""Checkers of other judges' conventions: testlib's (Polygon) and CMS's, called and read as those judges do.

testlib: ``check input output answer``; exit 0 accepts, 1 is a wrong answer, 2 a presentation
error (both rejections), 3 the checker's own failure; 7 gives points (a scoring problem's: not a
rejection, as Polygon counts it; the points are the message). The message is on stderr.
CMS: ``checker input correct_output contestant_output``; the score, 0 to 1, on stdout and the
message on stderr. A Kattis output validator is ``judging.py``'s own (42 and 43).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..sandbox.runner import RunResult
from .toolchains import python2_failure

TESTLIB = {0: ("AC", ""), 1: ("WA", ""), 2: ("WA", "presentation error"), 7: ("AC", "")}  # the verdict, and what it is
FULL_SCORE = 1 - 1e-9


@dataclass(frozen=True, slots=True)
class Judged:
    code: str  # a verdict code: AC, WA or CE
    message: str


def checker_arguments(convention: str) -> tuple[str, ...]:
    """The file names a checker of ``convention`` is called with, in order (each written into its folder)."""
    if convention == "cms":
        return ("input", "answer", "output")
    return ("input", "output", "answer")


def judge_checker(convention: str, name: str, result: RunResult) -> Judged:
    """What a finished checker run says of the output."""
    said = result.stderr.strip()[-2000:]
    if result.timed_out or result.signal is not None:
        why = "timed out" if result.timed_out else f"killed by signal {result.signal}"
        return Judged("CE", f"{name} failed ({why})")
    if convention == "cms":
        return _cms(name, result, said)
    if result.exit_code in TESTLIB:
        code, kind = TESTLIB[result.exit_code]
        if not kind:  # a silent rejection still says who rejected
            return Judged(code, said or ("" if code == "AC" else f"{name} rejected the output"))
        return Judged(code, f"{kind}: {said}" if said else kind)
    why = "it reported its own failure (exit code 3)" if result.exit_code == 3 else f"exit code {result.exit_code}"
    return Judged("CE", f"{name} failed ({why}); a testlib checker exits with 0, 1 or 2" + _printed(said))


def _cms(name: str, result: RunResult, said: str) -> Judged:
    if result.exit_code != 0:
        return Judged("CE", f"{name} failed (exit code {result.exit_code})" + _printed(said))
    shown = result.stdout.decode("utf-8", "replace").strip()
    try:
        score = float(shown.split()[0])
    except (ValueError, IndexError):
        message = f"{name} printed no score (a number from 0 to 1) on its standard output: {shown[:80]!r}"
        return Judged("CE", message + _printed(said))
    if not 0 <= score <= 1:
        return Judged("CE", f"{name} gave the score {score:g}, outside 0 to 1")
    if score >= FULL_SCORE:
        return Judged("AC", said)
    return Judged("WA", f"score {score:g}" + (f": {said}" if said else ""))


def judge_interactor(name: str, result: RunResult) -> Judged:
    """A testlib interactor's exit, read as a checker's (0 accepts the interaction)."""
    return judge_checker("testlib", name, result)


def _printed(said: str) -> str:
    if said and python2_failure(said):
        return f" (it is Python 2 code; this build runs Python 3, as judges do today). It printed:\n{said}"
    return f". It printed:\n{said}" if said else ""
