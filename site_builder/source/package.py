"""ICPC/Kattis problem packages: their ``problem.yaml`` (legacy and 2025-09) read into ``Metadata`` (pure).

The same archive folder can hold our own problem folders and problem packages; a package is
recognised by its folders (``problem_statement/``, ``statement/``, ``submissions/``...) or by keys
only the package format has. The two formats' keys differ; both are read leniently, and a key the
version does not define is a warning naming the closest one it does.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

from ..errors import Diagnostic, Gathered, MetadataError
from ..model import Checker, Metadata, Subtask
from .metadata import checked_time_limit, parse_checker_flags, slow_time_limit

PACKAGE_DIRS = ("problem_statement/", "statement/", "submissions/", "output_validator/", "output_validators/")
# Keys only a package's problem.yaml has; our own format's keys are listed in metadata.KEYS.
PACKAGE_ONLY_KEYS = frozenset(
    {"problem_format_version", "name", "uuid", "author", "credits", "license", "rights_owner", "validation"}
    | {"validator_flags", "keywords", "limits", "source_url", "type", "languages", "embargo_until", "constants"}
)
LEGACY_KEYS = (
    "problem_format_version",
    "type",
    "name",
    "uuid",
    "author",
    "source",
    "source_url",
    "license",
    "rights_owner",
    "limits",
    "validation",
    "validator_flags",
    "grading",
    "keywords",
    "languages",
    "libraries",
)
MODERN_KEYS = (
    "problem_format_version",
    "type",
    "name",
    "uuid",
    "version",
    "credits",
    "source",
    "license",
    "rights_owner",
    "embargo_until",
    "limits",
    "keywords",
    "languages",
    "allow_file_writing",
    "constants",
)
PROBLEM_TYPES = ("pass-fail", "scoring", "interactive", "multi-pass", "submit-answer")
# The format's license values, and how a page names them.
LICENSES = {
    "unknown": "Unknown",
    "public domain": "Public domain",
    "cc0": "CC0",
    "cc by": "CC BY",
    "cc by-sa": "CC BY-SA",
    "educational": "Educational use",
    "permission": "Used with permission",
}
CREDIT_ROLES = (
    ("authors", "Authors"),
    ("contributors", "Contributors"),
    ("testers", "Testers"),
    ("packagers", "Packagers"),
    ("acknowledgements", "Acknowledgements"),
)
_MODERN_VERSION = re.compile(r"^(\d{4}-\d{2}(-draft)?|draft)$")
_EMAIL = re.compile(r"\s*<[^>]*>\s*$")


def is_package(names: set[str], yaml_keys: set[str]) -> bool:
    """Whether a problem folder is an ICPC problem package rather than our own layout."""
    if yaml_keys & PACKAGE_ONLY_KEYS:
        return True
    return any(name.startswith(PACKAGE_DIRS) for name in names)


def format_version(data: dict[str, Any]) -> str:
    """``legacy`` or the modern version string (``2025-09``, ``2023-07-draft``...)."""
    value = data.get("problem_format_version")
    if value is None:
        return "legacy"
    text = str(value).strip()
    return text if _MODERN_VERSION.match(text) else "legacy"


def parse_package_metadata(
    data: dict[str, Any], lines: dict[str, int], path: str, test_group: tuple[dict[str, Any], str] | None = None
) -> tuple[Metadata, list[Diagnostic]]:
    """Interpret a package's ``problem.yaml`` (already parsed) and its ``data/test_group.yaml`` (mapping, path)."""
    version = format_version(data)
    warnings: list[Diagnostic] = []

    def warn(key: str, message: str) -> None:
        warnings.append(Diagnostic(path, lines.get(key, 0), message, "warning"))

    value = data.get("problem_format_version")
    if value is not None and str(value).strip() not in ("legacy", "legacy-icpc") and version == "legacy":
        warn("problem_format_version", f"unknown problem_format_version {value!r}; read as legacy")
    known = MODERN_KEYS if version != "legacy" else LEGACY_KEYS
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            warn(key, f"unknown key {key!r} for problem package format {version}{hint}")
    gathered = Gathered()
    license_name = gathered.value(lambda: _text(data, "license", path, lines), None)
    if license_name is not None and license_name.lower() not in LICENSES:
        warn("license", f"unknown license {license_name!r} (known: {', '.join(LICENSES)})")
    elif license_name is not None:
        license_name = LICENSES[license_name.lower()]
    for kind in sorted(problem_types(data) - set(PROBLEM_TYPES)):
        warn("type", f"unknown problem type {kind!r} (known: {', '.join(PROBLEM_TYPES)})")
    validation, interactive = _validation(data)
    multi_pass = _multi_pass(data)
    no_checker: tuple[Checker, tuple[str, ...], list[Diagnostic]] = (Checker(), (), [])
    checker, args, flag_warnings = gathered.value(lambda: _checker(data, lines, path, test_group), no_checker)
    warnings += flag_warnings
    no_source: tuple[str | None, str | None] = (None, None)
    source, source_url = gathered.value(lambda: _source(data.get("source"), path, lines.get("source")), no_source)
    meta = Metadata(
        title=gathered.value(lambda: _name(data.get("name"), path, lines.get("name")), None),
        source=source,
        source_url=source_url or gathered.value(lambda: _text(data, "source_url", path, lines), None),
        credits=gathered.value(lambda: _credits(data, path, lines), ()),
        license=license_name,
        rights_owner=gathered.value(lambda: _text(data, "rights_owner", path, lines), None),
        tags=gathered.value(lambda: _keywords(data.get("keywords"), path, lines.get("keywords")), ()),
        memory_limit=gathered.value(
            lambda: _memory_limit(data.get("limits"), path, lines.get("limits.memory", lines.get("limits"))), None
        ),
        time_limit=gathered.value(
            lambda: _time_limit(data.get("limits"), path, lines.get("limits.time_limit", lines.get("limits"))), None
        ),
        checker=checker,
        validator_args=args,
        package=version,
        validation=validation,
        interactive=interactive,
        scoring="scoring" in problem_types(data),
        multi_pass=multi_pass,
        validation_passes=gathered.value(
            lambda: _passes(data.get("limits"), path, lines.get("limits.validation_passes")), 2
        ),
        constants=gathered.value(lambda: _constants(data.get("constants"), path, lines.get("constants")), ()),
    )
    warnings += slow_time_limit(path, lines.get("limits"), meta.time_limit)
    return meta, [*sorted(gathered.errors), *warnings]


def _text(data: dict[str, Any], key: str, path: str, lines: dict[str, int]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip() or None
    raise MetadataError(path, lines.get(key), f"{key} must be a string, not {type(value).__name__}")


def _name(value: Any, path: str, line: int | None) -> str | None:
    """``name: Hello`` or ``name: {en: Hello, de: Hallo}``: the English name, else the first one."""
    if value is None:
        return None
    if isinstance(value, dict):
        names = {str(k): str(v).strip() for k, v in value.items() if v is not None}
        return names.get("en") or next(iter(names.values()), None)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip() or None
    raise MetadataError(path, line, "name must be a string or a mapping of language codes to names")


def _person(value: Any, path: str, line: int | None) -> str:
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return str(value["name"]).strip()
    if isinstance(value, str):
        return _EMAIL.sub("", value).strip()
    raise MetadataError(path, line, f"a person must be a name or a mapping with 'name', not {value!r}")


def _people(value: Any, path: str, line: int | None) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(name for item in items if item is not None and (name := _person(item, path, line)))


def _credits(data: dict[str, Any], path: str, lines: dict[str, int]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """2025-09 ``credits`` (a name, or a mapping of roles), or legacy ``author`` ("A, B and C")."""
    author = data.get("author")
    if isinstance(author, str):
        names = tuple(n.strip() for n in re.split(r",|\band\b", author) if n.strip())
        return (("Authors", names),) if names else ()
    value = data.get("credits")
    line = lines.get("credits")
    if value is None:
        return ()
    if not isinstance(value, dict):
        return (("Authors", _people(value, path, line)),)
    found = [(title, _people(value[key], path, line)) for key, title in CREDIT_ROLES if value.get(key)]
    translators = value.get("translators")
    if isinstance(translators, dict):
        names = tuple(n for people in translators.values() for n in _people(people, path, line))
        found.append(("Translators", names))
    return tuple((title, names) for title, names in found if names)


def _source(value: Any, path: str, line: int | None) -> tuple[str | None, str | None]:
    """``source: X``, ``source: {name: X, url: U}`` or a list of those: the names, and the first URL."""
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    url: str | None = None
    for item in items:
        if item is None:
            continue
        if isinstance(item, dict):
            if item.get("name"):
                names.append(str(item["name"]).strip())
            if url is None and item.get("url"):
                url = str(item["url"]).strip()
        elif isinstance(item, (str, int)):
            names.append(str(item).strip())
        else:
            raise MetadataError(path, line, "source must be a string, a mapping with name and url, or a list")
    return ("; ".join(n for n in names if n) or None), url


def _keywords(value: Any, path: str, line: int | None) -> tuple[str, ...]:
    """A list (2025-09) or a space-separated string (legacy)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        raise MetadataError(path, line, "keywords must be a list of strings")
    return tuple(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))


def _time_limit(limits: Any, path: str, line: int | None) -> float | None:
    if limits is None:
        return None
    if not isinstance(limits, dict):
        raise MetadataError(path, line, "limits must be a mapping (time_limit, memory, ...)")
    return checked_time_limit(limits.get("time_limit"), path, line, "limits: time_limit")


def _memory_limit(limits: Any, path: str, line: int | None) -> int | None:
    """``limits: memory``, in MiB (the format's unit)."""
    value = limits.get("memory") if isinstance(limits, dict) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise MetadataError(path, line, f"limits: memory must be a positive whole number of MiB, not {value!r}")
    return value


MAX_PASSES = 100  # more than any real problem asks for; each pass runs the solver again


def _passes(limits: Any, path: str, line: int | None) -> int:
    """``limits: validation_passes`` of a multi-pass problem (2 when it does not say)."""
    value = limits.get("validation_passes", 2) if isinstance(limits, dict) else 2
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= MAX_PASSES:
        raise MetadataError(path, line, f"limits: validation_passes must be a whole number from 2 to {MAX_PASSES}")
    return value


def _validation(data: dict[str, Any]) -> tuple[str, bool]:
    """(``default``/``custom``/"", interactive) from legacy ``validation`` or modern ``type``."""
    interactive = "interactive" in problem_types(data)
    validation = data.get("validation")
    if isinstance(validation, str):
        words = validation.split()
        return (words[0] if words else ""), interactive or "interactive" in words
    if isinstance(validation, dict):  # 2023-07 drafts
        return "custom", interactive or bool(validation.get("interaction"))
    return "", interactive


def _multi_pass(data: dict[str, Any]) -> bool:
    """2025-09 ``type: [..., multi-pass]``, legacy ``validation: custom multi-pass``."""
    validation = data.get("validation")
    words = validation.split() if isinstance(validation, str) else []
    return "multi-pass" in problem_types(data) or "multi-pass" in words


def problem_types(data: dict[str, Any]) -> set[str]:
    """The values of modern ``type``: a list, or one string, which real packages also write with
    several values apart ("pass-fail interactive", as problem-package-format's own example does)."""
    kinds = data.get("type")
    values = kinds if isinstance(kinds, list) else [kinds] if kinds else []
    return {word for value in values for word in str(value).split()}


def _checker(
    data: dict[str, Any], lines: dict[str, int], path: str, group: tuple[dict[str, Any], str] | None
) -> tuple[Checker, tuple[str, ...], list[Diagnostic]]:
    """The default validator's settings and the arguments a custom validator gets.

    Legacy packages give ``validator_flags`` in problem.yaml; 2025-09 packages give
    ``output_validator_args`` in ``data/test_group.yaml`` (older drafts: ``output_validator_flags``).
    """
    flags: Any = data.get("validator_flags")
    where, line = path, lines.get("validator_flags")
    if flags is None and group is not None:
        flags = group[0].get("output_validator_args", group[0].get("output_validator_flags"))
        where, line = group[1], 0
    if flags is None:
        return Checker(case_sensitive=False), (), []
    words = flags.split() if isinstance(flags, str) else [str(w) for w in flags] if isinstance(flags, list) else None
    if words is None:
        raise MetadataError(where, line, "validator flags must be a string or a list of strings")
    checker, unknown = parse_checker_flags(words, where, line)
    warnings = []
    if unknown and not str(data.get("validation", "")).startswith("custom"):
        message = f"the default output validator has no flag {unknown[0]!r}"
        warnings.append(Diagnostic(where, line or 0, message, "warning"))
    return checker, tuple(words), warnings


def _constants(value: Any, path: str, line: int | None) -> tuple[tuple[str, str], ...]:
    """2025-09 ``constants``, flattened: ``name`` and ``name.value`` for the value, ``name.variant`` for each
    other representation (``{FIVE: {value: 5, WORD: five}}`` gives FIVE, FIVE.value and FIVE.WORD)."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise MetadataError(path, line, "constants must be a mapping of names to values")
    flat: list[tuple[str, str]] = []
    for name, given in value.items():
        if not isinstance(name, str) or not _CONSTANT_NAME.fullmatch(name):
            raise MetadataError(path, line, f"constants: {name!r} is not a name ([a-zA-Z_][a-zA-Z0-9_]*)")
        variants = given if isinstance(given, dict) else {"value": given}
        if "value" not in variants:
            raise MetadataError(path, line, f"constants: {name} has variants but no 'value'")
        for variant, shown in variants.items():
            if not isinstance(shown, (int, float, str)) or isinstance(shown, bool):
                raise MetadataError(path, line, f"constants: {name}.{variant} must be an integer, a number or a string")
            flat.append((f"{name}.{variant}", str(shown)))
        flat.append((name, str(variants["value"])))
    return tuple(flat)


_CONSTANT_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_CONSTANT = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)\s*\}\}")


def substitute_constants(text: str, constants: dict[str, str]) -> str:
    """A package's ``{{name}}`` and ``{{name.variant}}`` replaced by their values (others stay as written):
    in Markdown statements, validators and submissions, as the 2025-09 format says."""
    if not constants or "{{" not in text:
        return text
    return _CONSTANT.sub(lambda m: constants.get(m.group(1), m.group()), text)


def subtasks(groups: list[tuple[str, dict[str, Any]]]) -> tuple[Subtask, ...]:
    """A scoring package's test groups as its page lists them: each group's points (legacy ``accept_score``,
    else the top of its ``range``; 2025-09 ``scoring: {score: N}``) and the constraints its input validator
    is given (``input_validator_flags``, ``input_validator_args``), where the package states them."""
    return tuple(Subtask(name, _points(settings), _constraints(settings)) for name, settings in groups)


def _points(settings: dict[str, Any]) -> float | None:
    scoring = settings.get("scoring")
    given = scoring.get("score") if isinstance(scoring, dict) else settings.get("accept_score")
    if given is None and isinstance(settings.get("range"), str) and len(settings["range"].split()) == 2:
        given = settings["range"].split()[1]
    try:
        points = float(given) if given is not None and not isinstance(given, bool) else None
    except ValueError:
        return None
    return points if points is not None and math.isfinite(points) else None


def _constraints(settings: dict[str, Any]) -> str:
    given = settings.get("input_validator_args", settings.get("input_validator_flags"))
    if isinstance(given, dict):  # by input validator: "name: args"
        return "; ".join(f"{name}: {_words(args)}" for name, args in given.items() if _words(args))
    return _words(given)


def _words(given: Any) -> str:
    if isinstance(given, list):
        return " ".join(str(word) for word in given)
    return str(given).strip() if isinstance(given, (str, int, float)) else ""
