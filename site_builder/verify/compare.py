"""Comparing a solver's output with the expected answer, as Kattis' default output validator does (pure).

The rules are problemtools' ``default_validator``'s, on bytes as it reads them: tokens split by C's
``isspace`` (space, tab, newline, vertical tab, form feed, carriage return: not a non-breaking
space); compared case-insensitively (ASCII only) unless ``case_sensitive``; with a float
tolerance, a token of the answer that C's ``sscanf("%lf")`` reads whole as a finite number is
compared as a number (``0x10`` is 16, ``1_000`` is no number), and every other token as text;
``space_change_sensitive`` (mode "spaces") also requires the same whitespace, byte for byte.
``tests/test_compare.py`` checks this against problemtools' own program. Mode "exact", for our
own ``checker: exact``, compares the bytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from ..model import Checker

SPACE = b" \t\n\v\f\r"  # C's isspace in the "C" locale
_SPACES = re.compile(rb"[ \t\n\v\f\r]+")
_RUNS = re.compile(rb"([ \t\n\v\f\r]+)")


@dataclass(frozen=True, slots=True)
class Comparison:
    accepted: bool
    message: str = ""  # where output and answer first differ


def compare_output(output: str | bytes, answer: str | bytes, checker: Checker) -> Comparison:
    got = output.encode("utf-8", "surrogateescape") if isinstance(output, str) else output
    want = answer.encode("utf-8", "surrogateescape") if isinstance(answer, str) else answer
    if checker.mode == "exact":
        return _exact(got, want)
    if checker.mode == "spaces":
        return _spaces(got, want, checker)
    return _tokens(got, want, checker)


def _exact(output: bytes, answer: bytes) -> Comparison:
    if output == answer:
        return Comparison(True)
    out_lines, ans_lines = output.split(b"\n"), answer.split(b"\n")
    for number, (got, want) in enumerate(zip(out_lines, ans_lines, strict=False), 1):
        if got != want:
            return Comparison(False, f"line {number} differs: expected {_show(want)}, got {_show(got)}")
    if len(out_lines) < len(ans_lines):
        return Comparison(False, f"output ends after line {len(out_lines)}; expected {len(ans_lines)} lines")
    return Comparison(False, f"output has extra text after line {len(ans_lines)}: {_show(out_lines[len(ans_lines)])}")


def _tokens(output: bytes, answer: bytes, checker: Checker) -> Comparison:
    got_tokens = _positions(output)
    want_tokens = _positions(answer)
    for index, ((got, line), (want, want_line)) in enumerate(zip(got_tokens, want_tokens, strict=False), 1):
        if (problem := _differs(got, want, checker)) is not None:
            where = f"line {line}, token {index}: expected {_show(want)} (answer line {want_line})"
            return Comparison(False, f"{where}, got {_show(got)}{problem}")
    if len(got_tokens) < len(want_tokens):
        want, want_line = want_tokens[len(got_tokens)]
        return Comparison(
            False, f"output ends after {len(got_tokens)} tokens; expected {_show(want)} next (answer line {want_line})"
        )
    if len(got_tokens) > len(want_tokens):
        got, line = got_tokens[len(want_tokens)]
        return Comparison(
            False, f"line {line}: extra output after {len(want_tokens)} tokens, starting with {_show(got)}"
        )
    return Comparison(True)


def _spaces(output: bytes, answer: bytes, checker: Checker) -> Comparison:
    """space_change_sensitive: the same whitespace between the same tokens (compared as ``_tokens`` does)."""
    got, want = _RUNS.split(output), _RUNS.split(answer)
    line = 1
    for index, (a, b) in enumerate(zip(got, want, strict=False)):
        if index % 2:  # whitespace
            if a != b:
                return Comparison(False, f"line {line}: whitespace differs: expected {_show(b)}, got {_show(a)}")
            line += a.count(b"\n")
        elif (problem := _differs(a, b, checker)) is not None:
            return Comparison(False, f"line {line}: expected {_show(b)}, got {_show(a)}{problem}")
    if len(got) != len(want):
        return Comparison(False, f"line {line}: " + ("output ends early" if len(got) < len(want) else "extra output"))
    return Comparison(True)


def _positions(text: bytes) -> list[tuple[bytes, int]]:
    tokens: list[tuple[bytes, int]] = []
    for number, line in enumerate(text.split(b"\n"), 1):
        tokens.extend((token, number) for token in _SPACES.split(line) if token)
    return tokens


def _differs(got: bytes, want: bytes, checker: Checker) -> str | None:
    """Why ``got`` does not pass for ``want`` (None when it does), by the default validator's rules."""
    if checker.float_absolute is not None or checker.float_relative is not None:
        expected = c_float(want)
        if expected is not None:
            value = c_float(got)
            if value is None:
                return "; expected a number"
            difference = abs(expected - value)
            absolute = checker.float_absolute if checker.float_absolute is not None else -1.0
            relative = checker.float_relative if checker.float_relative is not None else -1.0
            if difference <= absolute or difference <= relative * abs(expected):
                return None
            return f"; difference {difference:.3g} is above the tolerance"
    got, want = got.split(b"\0", 1)[0], want.split(b"\0", 1)[0]  # compared as C strings
    if got == want or (not checker.case_sensitive and got.lower() == want.lower()):  # bytes.lower(): ASCII only
        return None
    return ""


def c_float(token: bytes) -> float | None:
    """The number C's ``sscanf(token, "%lf%10s")`` reads when it reads the whole token and nothing
    after, if finite (the default validator's ``isfloat``); None otherwise."""
    if not token:
        return None
    value = _sscanf(token.split(b"\0", 1)[0])
    return value if value is not None and math.isfinite(value) else None


@lru_cache(maxsize=1)
def _scanner() -> object | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return ctypes.CDLL(name).sscanf
    except (OSError, AttributeError):
        return None


def _sscanf(token: bytes) -> float | None:
    scan = _scanner()
    if scan is None:
        return _strtod(token)
    value = ctypes.c_double()
    trash = ctypes.create_string_buffer(32)
    read = scan(token, b"%lf%10s", ctypes.byref(value), trash)  # type: ignore[operator]
    return value.value if read == 1 else None


_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _strtod(token: bytes) -> float | None:
    """Where C's scanner cannot be had: the decimal numbers it reads (no hex, inf or nan)."""
    return float(token) if _DECIMAL.fullmatch(token) else None


def _show(token: bytes, limit: int = 60) -> str:
    text = token.decode("utf-8", "replace")
    shown = text if len(text) <= limit else text[: limit - 1] + "\u2026"
    return repr(shown)
