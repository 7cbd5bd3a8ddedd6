"""How an entry's answers are checked, in the words judges' sites use ("tokens compared, numbers within 10⁻⁶")."""

from __future__ import annotations

import math

from ..model import Checker, Metadata, Validator

SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


KINDS = {
    "testlib": "testlib checker",
    "cms": "CMS checker",
    "testlib-interactor": "testlib interactor",
    "cms-manager": "CMS communication manager",
}


def describe_checking(meta: Metadata, validator: Validator | None) -> str:
    """One line for the limits under the title."""
    if meta.interactive or meta.multi_pass:
        kind = "interactive" if meta.interactive else "in several passes"
        if meta.interactive and meta.multi_pass:
            kind = "interactive, in several passes"
        judge = "interactor" if validator is not None and validator.convention == "testlib-interactor" else "validator"
        return f"{kind}, judged by the problem's {judge}"
    if validator is not None and validator.convention in KINDS:
        source = next((n for n in validator.files if not n.endswith(".h")), validator.folder)
        return f"{KINDS[validator.convention]} ({source})"
    if validator is not None:
        return "any correct answer accepted (the problem's own checker)"
    return _default(meta.checker)


def _default(checker: Checker) -> str:
    base = {
        "exact": "output compared byte for byte",
        "spaces": "tokens compared, spacing significant",
    }.get(checker.mode, "tokens compared")
    parts = [base]
    if not checker.case_sensitive:
        parts.append("case ignored")
    tolerance = _tolerance(checker)
    if tolerance:
        parts.append(tolerance)
    return ", ".join(parts)


def _tolerance(checker: Checker) -> str:
    absolute, relative = checker.float_absolute, checker.float_relative
    if absolute is None and relative is None:
        return ""
    if absolute is not None and relative is not None and absolute == relative:
        return f"numbers within {power(absolute)} (absolute or relative)"
    if absolute is not None and relative is not None:
        return f"numbers within {power(absolute)} absolute or {power(relative)} relative"
    if absolute is not None:
        return f"numbers within {power(absolute)} absolute"
    assert relative is not None
    return f"numbers within {power(relative)} relative"


def power(value: float) -> str:
    """``1e-06`` as "10⁻⁶", ``5e-4`` as "5·10⁻⁴", ``0.25`` as "0.25"."""
    if value <= 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(value))
    mantissa = round(value / 10**exponent, 6)
    if -3 <= exponent <= 3 and exponent != -3:
        return f"{value:g}"
    head = "" if mantissa == 1 else f"{mantissa:g}\u00b7"
    return f"{head}10{str(exponent).translate(SUPERSCRIPT)}"
