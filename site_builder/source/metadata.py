"""``problem.yaml``: parsed and validated into ``Metadata`` (pure: text in, value out)."""

from __future__ import annotations

import difflib
import math
from typing import Any

from ..errors import Diagnostic, Gathered, MetadataError
from ..model import Checker, Metadata
from .yamlfile import parse_yaml_mapping

KEYS = ("title", "label", "source", "year", "tags", "rating", "summary", "time_limit", "checker", "status")
STATUSES = ("draft", "complete")
CHECKER_KEYS = (
    "case_sensitive",
    "float_tolerance",
    "float_absolute_tolerance",
    "float_relative_tolerance",
)


def parse_metadata(text: str, path: str) -> tuple[Metadata, list[Diagnostic]]:
    """Interpret ``problem.yaml``. Unknown keys are warnings; wrong types are errors."""
    data, lines = parse_yaml_mapping(text, path, MetadataError)
    return metadata_from_mapping(data, lines, path)


def metadata_from_mapping(data: dict[str, Any], lines: dict[str, int], path: str) -> tuple[Metadata, list[Diagnostic]]:
    """Interpret our own ``problem.yaml`` format, already parsed (``lines``: the line of each key)."""
    warnings: list[Diagnostic] = []
    for key in data:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(KEYS)})"
            warnings.append(Diagnostic(path, lines.get(key, 0), f"unknown key {key!r}{hint}", "warning"))

    def where(key: str) -> int | None:
        return lines.get(key)

    def text_field(key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise MetadataError(path, where(key), f"{key} must be a string, not {_kind(value)}")
        return value.strip() or None

    def int_field(key: str) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise MetadataError(path, where(key), f"{key} must be a whole number, not {_kind(value)}")
        return value

    gathered = Gathered()
    meta = Metadata(
        title=gathered.value(lambda: text_field("title"), None),
        label=gathered.value(lambda: text_field("label"), None),
        source=gathered.value(lambda: text_field("source"), None),
        year=gathered.value(lambda: int_field("year"), None),
        tags=gathered.value(lambda: _tags(data.get("tags"), path, where("tags")), ()),
        rating=gathered.value(lambda: int_field("rating"), None),
        summary=gathered.value(lambda: text_field("summary"), None),
        time_limit=gathered.value(lambda: checked_time_limit(data.get("time_limit"), path, where("time_limit")), None),
        checker=gathered.value(lambda: parse_checker(data.get("checker"), path, where("checker")), Checker()),
        status=gathered.value(lambda: _status(data.get("status"), path, where("status")), "complete"),
    )
    warnings += slow_time_limit(path, where("time_limit"), meta.time_limit)
    return meta, [*sorted(gathered.errors), *warnings]


def parse_checker(value: Any, path: str, line: int | None) -> Checker:
    """``checker:`` is ``tokens``, ``exact``, or a mapping of tolerance options."""
    if value is None or value == "tokens":
        return Checker()
    if value == "exact":
        return Checker(mode="exact")
    if not isinstance(value, dict):
        raise MetadataError(path, line, "checker must be 'tokens', 'exact' or a mapping like {float_tolerance: 1e-6}")
    for key in value:
        if key not in CHECKER_KEYS:
            raise MetadataError(path, line, f"checker: unknown option {key!r} (known: {', '.join(CHECKER_KEYS)})")
    case = value.get("case_sensitive", True)
    if not isinstance(case, bool):
        raise MetadataError(path, line, "checker: case_sensitive must be true or false")
    both = _tolerance(value, "float_tolerance", path, line)
    absolute = _tolerance(value, "float_absolute_tolerance", path, line)
    relative = _tolerance(value, "float_relative_tolerance", path, line)
    return Checker(
        mode="tokens",
        case_sensitive=case,
        float_absolute=absolute if absolute is not None else both,
        float_relative=relative if relative is not None else both,
    )


FLAG_TOLERANCES = {
    "float_tolerance": ("absolute", "relative"),
    "float_absolute_tolerance": ("absolute",),
    "float_relative_tolerance": ("relative",),
}


def parse_checker_flags(words: list[str], path: str, line: int | None) -> tuple[Checker, list[str]]:
    """ICPC default-validator flags (``case_sensitive``, ``float_tolerance 1e-6``...): the checker and
    the words it does not know (a custom validator may take them)."""
    case_sensitive, exact = False, False
    tolerances: dict[str, float] = {}
    unknown: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in FLAG_TOLERANCES:
            number = _number(words[i + 1]) if i + 1 < len(words) else None
            if number is None or number < 0:
                raise MetadataError(path, line, f"validator flag {word} needs a non-negative number after it")
            tolerances.update(dict.fromkeys(FLAG_TOLERANCES[word], number))
            i += 2
            continue
        if word == "case_sensitive":
            case_sensitive = True
        elif word == "space_change_sensitive":
            exact = True
        else:
            unknown.append(word)
        i += 1
    checker = Checker(
        mode="spaces" if exact else "tokens",
        case_sensitive=case_sensitive,
        float_absolute=tolerances.get("absolute"),
        float_relative=tolerances.get("relative"),
    )
    return checker, unknown


def positive_number(value: Any) -> float | None:
    number = _number(value)
    return number if number is not None and number > 0 else None


def _tolerance(data: dict[str, Any], key: str, path: str, line: int | None) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    number = _number(value)
    if number is None or number < 0:
        raise MetadataError(path, line, f"checker: {key} must be a non-negative number, not {value!r}")
    return number


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):  # YAML 1.1 reads "1e-6" as a string
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


MAX_TIME_LIMIT = 3600.0  # seconds: verification waits this long for each sample at worst
SLOW_TIME_LIMIT = 60.0  # above this, a warning


def time_limit_problem(value: Any) -> str:
    """Why ``value`` cannot be a time limit ("" when it can): a positive, finite number of seconds, at
    most an hour."""
    number = _number(value)
    if number is None or number <= 0:
        return f"must be a positive number of seconds, not {value!r}"
    if number > MAX_TIME_LIMIT:
        return (
            f"must be at most {MAX_TIME_LIMIT:g} seconds, not {number:g}: verification waits that long for each sample"
        )
    return ""


def slow_time_limit(path: str, line: int | None, number: float | None) -> list[Diagnostic]:
    """A warning for a time limit over a minute, which makes a failing sample slow to verify."""
    if number is None or number <= SLOW_TIME_LIMIT:
        return []
    message = f"time limit of {number:g} s: a sample that does not finish holds verification up that long"
    return [Diagnostic(path, line or 0, message, "warning")]


def checked_time_limit(value: Any, path: str, line: int | None, key: str = "time_limit") -> float | None:
    """``value`` as a time limit in seconds (None when absent); a MetadataError naming ``key`` if it
    cannot be one."""
    if value is None:
        return None
    problem = time_limit_problem(value)
    if problem:
        raise MetadataError(path, line, f"{key} {problem}")
    return _number(value)


def _tags(value: Any, path: str, line: int | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [part for part in value.split(",")]
    if not isinstance(value, list):
        raise MetadataError(path, line, f"tags must be a list of strings, not {_kind(value)}")
    tags: list[str] = []
    for item in value:
        if not isinstance(item, (str, int)) or isinstance(item, bool):
            raise MetadataError(path, line, f"tags must be strings; found {_kind(item)}")
        tag = str(item).strip()
        if tag and tag not in tags:
            tags.append(tag)
    return tuple(tags)


def _status(value: Any, path: str, line: int | None) -> str:
    if value is None:
        return "complete"
    if value not in STATUSES:
        raise MetadataError(path, line, f"status must be one of {', '.join(STATUSES)}, not {value!r}")
    return str(value)


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", bool: "a boolean", type(None): "empty"}.get(
        type(value), type(value).__name__
    )
