"""Which characters a regular expression's match can start with, and whether it is anchored at a line
start: read from the pattern's parsed form (``re._parser``), a safe over-approximation. ``fastlex``
buckets a lexer's rules by these, so that at each position it tries only the rules that can match.
"""

from __future__ import annotations

import re
import re._parser as _parser  # type: ignore[import-not-found]  # the stdlib's regex parser
from functools import lru_cache
from typing import Any

OTHER = 128  # the bucket of every character above ASCII
END = 129  # the bucket of the end of the text

_ALL = frozenset(range(OTHER + 1))
_CATEGORIES = {
    name: frozenset(c for c in range(128) if re.match(escape, chr(c))) | {OTHER}
    for name, escape in (
        ("CATEGORY_DIGIT", r"\d"),
        ("CATEGORY_NOT_DIGIT", r"\D"),
        ("CATEGORY_SPACE", r"\s"),
        ("CATEGORY_NOT_SPACE", r"\S"),
        ("CATEGORY_WORD", r"\w"),
        ("CATEGORY_NOT_WORD", r"\W"),
        ("CATEGORY_UNI_DIGIT", r"\d"),
        ("CATEGORY_UNI_NOT_DIGIT", r"\D"),
        ("CATEGORY_UNI_SPACE", r"\s"),
        ("CATEGORY_UNI_NOT_SPACE", r"\S"),
        ("CATEGORY_UNI_WORD", r"\w"),
        ("CATEGORY_UNI_NOT_WORD", r"\W"),
    )
}


def first_characters(pattern: re.Pattern[str]) -> tuple[frozenset[int], bool]:
    """(buckets a match can start in, whether it can match the empty string): a safe over-approximation."""
    parsed = _parsed(pattern.pattern, pattern.flags)
    if parsed is None:
        return _ALL, True
    return _first(parsed, bool(pattern.flags & re.IGNORECASE))


@lru_cache(maxsize=4096)
def _parsed(source: str, flags: int) -> list[tuple[Any, Any]] | None:
    """The stdlib parser's items of a pattern (lexers share many rules through ``include``)."""
    try:
        return list(_parser.parse(source, flags))
    except Exception:
        return None


def _first(items: list[tuple[Any, Any]], icase: bool) -> tuple[frozenset[int], bool]:
    found: set[int] = set()
    for op, av in items:
        chars, empty = _first_op(op, av, icase)
        found |= chars
        if not empty:
            return frozenset(found), False
    return frozenset(found), True


def _first_op(op: Any, av: Any, icase: bool) -> tuple[frozenset[int], bool]:
    name = str(op)
    if name == "LITERAL":
        return _literal(av, icase), False
    if name == "IN":
        return _charset(av, icase), False
    if name in ("NOT_LITERAL", "ANY"):
        return _ALL, False
    if name == "BRANCH":
        results = [_first(list(alt), icase) for alt in av[1]]
        return frozenset().union(*(r[0] for r in results)), any(r[1] for r in results)
    if name == "SUBPATTERN":
        _, add, delete, inner = av
        scoped = (icase or bool(add & re.IGNORECASE)) and not bool(delete & re.IGNORECASE)
        return _first(list(inner), scoped)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, inner = av
        chars, empty = _first(list(inner), icase)
        return chars, empty or low == 0
    if name == "ATOMIC_GROUP":
        return _first(list(av), icase)
    if name in ("AT", "ASSERT", "ASSERT_NOT"):
        return frozenset(), True  # zero-width: the next item decides
    if name == "CATEGORY":
        return _CATEGORIES.get(str(av), _ALL), False
    return _ALL, True


def _literal(code: int, icase: bool) -> frozenset[int]:
    if code >= 128:
        return frozenset({OTHER})
    if not icase:
        return frozenset({code})
    char = chr(code)
    return frozenset({ord(char.lower()), ord(char.upper()), OTHER})  # OTHER: e.g. "k" also matches KELVIN SIGN


def _charset(items: list[tuple[Any, Any]], icase: bool) -> frozenset[int]:
    """The buckets of a character set: exact over ASCII, or ``_ALL`` itself when not known.

    (Exact, so that a negated set can leave out what the set itself takes.)
    """
    if items and str(items[0][0]) == "NEGATE":
        excluded = _charset(items[1:], icase)
        return _ALL if excluded is _ALL else (_ALL - excluded) | {OTHER}
    found: set[int] = set()
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            found |= _literal(av, icase)
        elif name == "RANGE":
            low, high = av
            for code in range(low, min(high, 127) + 1):
                found |= _literal(code, icase)
            if high >= 128:
                found.add(OTHER)
        elif name == "CATEGORY" and str(av) in _CATEGORIES:
            found |= _CATEGORIES[str(av)]
        else:
            return _ALL
    return frozenset(found)


def line_anchored(pattern: re.Pattern[str]) -> bool:
    """Whether every match must start at a line start (``^``, ``\\A``): a safe under-approximation."""
    parsed = _parsed(pattern.pattern, pattern.flags)
    return parsed is not None and _anchored(parsed)


def _anchored(items: list[tuple[Any, Any]]) -> bool:
    if not items:
        return False
    op, av = items[0]
    name = str(op)
    if name == "AT":
        return str(av) in ("AT_BEGINNING", "AT_BEGINNING_STRING")
    if name == "SUBPATTERN":
        return _anchored(list(av[3]))
    if name == "ATOMIC_GROUP":
        return _anchored(list(av))
    if name == "BRANCH":
        return all(_anchored(list(alt)) for alt in av[1])
    return False
