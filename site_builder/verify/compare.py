"""Comparing a solver's output with the expected answer, as ICPC/Kattis default validators do (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import Checker


@dataclass(frozen=True, slots=True)
class Comparison:
    accepted: bool
    message: str = ""  # where output and answer first differ


def compare_output(output: str, answer: str, checker: Checker) -> Comparison:
    if checker.mode == "exact":
        return _exact(output, answer)
    return _tokens(output, answer, checker)


def _exact(output: str, answer: str) -> Comparison:
    if output == answer:
        return Comparison(True)
    out_lines, ans_lines = output.split("\n"), answer.split("\n")
    for number, (got, want) in enumerate(zip(out_lines, ans_lines, strict=False), 1):
        if got != want:
            return Comparison(False, f"line {number} differs: expected {_show(want)}, got {_show(got)}")
    if len(out_lines) < len(ans_lines):
        return Comparison(False, f"output ends after line {len(out_lines)}; expected {len(ans_lines)} lines")
    return Comparison(False, f"output has extra text after line {len(ans_lines)}: {_show(out_lines[len(ans_lines)])}")


def _tokens(output: str, answer: str, checker: Checker) -> Comparison:
    got_tokens = list(_positions(output))
    want_tokens = list(_positions(answer))
    for index, ((got, line, _), (want, want_line, _)) in enumerate(zip(got_tokens, want_tokens, strict=False), 1):
        if not _same(got, want, checker):
            return Comparison(
                False,
                f"line {line}, token {index}: expected {_show(want)} (answer line {want_line}), got {_show(got)}"
                + _float_note(got, want, checker),
            )
    if len(got_tokens) < len(want_tokens):
        want, want_line, _ = want_tokens[len(got_tokens)]
        return Comparison(
            False, f"output ends after {len(got_tokens)} tokens; expected {_show(want)} next (answer line {want_line})"
        )
    if len(got_tokens) > len(want_tokens):
        got, line, _ = got_tokens[len(want_tokens)]
        return Comparison(
            False, f"line {line}: extra output after {len(want_tokens)} tokens, starting with {_show(got)}"
        )
    return Comparison(True)


def _positions(text: str) -> list[tuple[str, int, int]]:
    tokens = []
    for number, line in enumerate(text.split("\n"), 1):
        for column, token in enumerate(line.split(), 1):
            tokens.append((token, number, column))
    return tokens


def _same(got: str, want: str, checker: Checker) -> bool:
    if got == want:
        return True
    if not checker.case_sensitive and got.lower() == want.lower():
        return True
    if checker.float_absolute is None and checker.float_relative is None:
        return False
    a, b = _float(got), _float(want)
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return a == b
    difference = abs(a - b)
    if checker.float_absolute is not None and difference <= checker.float_absolute:
        return True
    return checker.float_relative is not None and difference <= checker.float_relative * abs(b)


def _float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _float_note(got: str, want: str, checker: Checker) -> str:
    a, b = _float(got), _float(want)
    if a is None or b is None or (checker.float_absolute is None and checker.float_relative is None):
        return ""
    return f"; difference {abs(a - b):.3g} is above the tolerance"


def _show(token: str, limit: int = 60) -> str:
    shown = token if len(token) <= limit else token[: limit - 1] + "\u2026"
    return repr(shown)
