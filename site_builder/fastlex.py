"""A faster driver for Pygments' ``RegexLexer``: the same rules, the same tokens, one regex per state.

Pygments tries a state's rules one by one from Python at every position: for a 300-line C++
file that is about 40,000 ``match`` calls. Here the rules of a state are joined into one
alternation, so Python's regex engine tries them in the same order, in C, with one call per
token. The first alternative that matches is the rule Pygments would have chosen, because it
also takes the first rule that matches. Rules with callbacks (``bygroups``, ``using``) get their
own match object, as Pygments gives them. States whose rules cannot be joined (back-references,
inline global flags) keep Pygments' loop. ``tests/test_highlight.py`` checks that the token
streams are identical on every source file we have.
"""

from __future__ import annotations

import re
import re._parser as _parser  # type: ignore[import-not-found]  # the stdlib's regex parser, for first characters
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.lexers.c_cpp import CFamilyLexer
from pygments.token import Error, Keyword, Name, Whitespace, _TokenType

Rule = tuple[Callable[..., Any], Any, Any]  # (rexmatch, action, new_state), as Pygments stores them


OTHER = 128  # the bucket of every character above ASCII
END = 129  # the bucket of the end of the text


@dataclass(frozen=True, slots=True)
class _Joined:
    match: Callable[[str, int], re.Match[str] | None]
    by_group: dict[int, Rule]


@dataclass(frozen=True, slots=True)
class _State:
    """A state's rules; ``buckets[b]`` joins, in order, only the rules that can match at a character in bucket b."""

    rules: tuple[Rule, ...]
    buckets: tuple[_Joined | None, ...] | None  # None: keep Pygments' loop for this state


def supports(lexer: Lexer) -> bool:
    method = type(lexer).get_tokens_unprocessed
    return method is RegexLexer.get_tokens_unprocessed or method is CFamilyLexer.get_tokens_unprocessed


def tokens(lexer: Lexer, text: str) -> list[tuple[Any, str]]:
    """(token type, value) pairs, exactly as ``lexer.get_tokens(text)`` gives them for our inputs."""
    if not supports(lexer):
        return list(lexer.get_tokens(text))
    if lexer.ensurenl and not text.endswith("\n"):
        text += "\n"
    found = _unprocessed(lexer, text)
    if isinstance(lexer, CFamilyLexer):
        types = _cfamily_types(lexer)
        found = [(Keyword.Type if kind is Name and value in types else kind, value) for kind, value in found]
    return found


def _cfamily_types(lexer: CFamilyLexer) -> frozenset[str]:
    """The names CFamilyLexer's own pass turns into Keyword.Type, under the lexer's options."""
    names: set[str] = set()
    for enabled, group in (
        (lexer.stdlibhighlighting, lexer.stdlib_types),
        (lexer.c99highlighting, lexer.c99_types),
        (lexer.c11highlighting, lexer.c11_atomic_types),
        (lexer.platformhighlighting, lexer.linux_types),
    ):
        if enabled:
            names.update(group)
    return frozenset(names)


@lru_cache(maxsize=64)
def _states(lexer_class: type) -> dict[str, _State]:
    token_defs: dict[str, list[Rule]] = getattr(lexer_class, "_tokens")  # noqa: B009 - set by Pygments' metaclass
    return {name: _bucketed(tuple(rules)) for name, rules in token_defs.items()}


_SCOPED = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE
_LEADING_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
_BACKREF = re.compile(r"(?<!\\)((?:\\\\)*)\\([1-9][0-9]?)")


def _bucketed(rules: tuple[Rule, ...]) -> _State:
    """Per first character, the rules that can match there, joined into one alternation in their order."""
    patterns: list[re.Pattern[str]] = [getattr(rule[0], "__self__") for rule in rules]  # noqa: B009 - bound .match
    global_flags = {p.flags & ~_SCOPED for p in patterns}
    if len(global_flags) != 1 or any("(?P=" in p.pattern or "(?(" in p.pattern for p in patterns):
        return _State(rules, None)
    flags = global_flags.pop()
    firsts = [first_characters(p) for p in patterns]
    joined: dict[tuple[int, ...], _Joined | None] = {}
    buckets: list[_Joined | None] = []
    for bucket in range(END + 1):
        chosen = tuple(i for i, (chars, empty) in enumerate(firsts) if empty or (bucket != END and bucket in chars))
        if chosen not in joined:
            joined[chosen] = _join([patterns[i] for i in chosen], [rules[i] for i in chosen], flags)
            if chosen and joined[chosen] is None:
                return _State(rules, None)  # the alternation does not compile: keep Pygments' loop
        buckets.append(joined[chosen])
    return _State(rules, tuple(buckets))


def _join(patterns: list[re.Pattern[str]], rules: list[Rule], flags: int) -> _Joined | None:
    if not patterns:
        return None
    parts: list[str] = []
    by_group: dict[int, Rule] = {}
    group = 1
    for pattern, rule in zip(patterns, rules, strict=True):
        parts.append(f"({_scoped(pattern, group)})")
        by_group[group] = rule
        group += 1 + pattern.groups
    try:
        return _Joined(re.compile("|".join(parts), flags).match, by_group)
    except re.error:
        return None


def _scoped(pattern: re.Pattern[str], group: int) -> str:
    """The pattern with its flags made local and its back-references renumbered for ``group``."""
    text = _LEADING_FLAGS.sub("", pattern.pattern)
    text = _BACKREF.sub(lambda m: f"{m.group(1)}(?:\\{int(m.group(2)) + group})", text)
    letters = "".join(c for flag, c in ((re.I, "i"), (re.M, "m"), (re.S, "s"), (re.X, "x")) if pattern.flags & flag)
    return f"(?{letters}:{text})" if letters else text


# ------------------------------------------------------------ which characters can start a match

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
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except Exception:
        return _ALL, True
    return _first(list(parsed), bool(pattern.flags & re.IGNORECASE))


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
    found: set[int] = set()
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            return _ALL
        if name == "LITERAL":
            found |= _literal(av, icase)
        elif name == "RANGE":
            low, high = av
            for code in range(low, min(high, 127) + 1):
                found |= _literal(code, icase)
            if high >= 128:
                found.add(OTHER)
        elif name == "CATEGORY":
            found |= _CATEGORIES.get(str(av), _ALL)
        else:
            return _ALL
    return frozenset(found)


def _unprocessed(lexer: Lexer, text: str) -> list[tuple[Any, str]]:
    """Pygments' RegexLexer.get_tokens_unprocessed, with one bucketed match per step (one flat loop: hot)."""
    states = _states(type(lexer))
    found: list[tuple[Any, str]] = []
    append = found.append
    pos, end = 0, len(text)
    stack = ["root"]
    state = states["root"]
    while True:
        rule: Rule | None = None
        m: re.Match[str] | None = None
        buckets = state.buckets
        if buckets is not None:
            if pos < end:
                code = ord(text[pos])
                joined = buckets[code if code < OTHER else OTHER]
            else:
                joined = buckets[END]
            if joined is not None:
                m = joined.match(text, pos)
                if m is not None:
                    rule = joined.by_group[m.lastindex or 0]
        else:
            for candidate in state.rules:
                m = candidate[0](text, pos)
                if m:
                    rule = candidate
                    break
        if rule is not None and m is not None:
            rexmatch, action, new_state = rule
            if action is not None:
                if type(action) is _TokenType:
                    append((action, m.group()))
                else:
                    own = m if buckets is None else rexmatch(text, pos)
                    found.extend((kind, value) for _, kind, value in action(lexer, own))
            pos = m.end()
            if new_state is not None:
                _transition(stack, new_state)
                state = states[stack[-1]]
            continue
        if pos >= end:
            return found
        if text[pos] == "\n":
            stack = ["root"]
            state = states["root"]
            append((Whitespace, "\n"))
        else:
            append((Error, text[pos]))
        pos += 1


def _transition(stack: list[str], new_state: Any) -> None:
    if isinstance(new_state, tuple):
        for name in new_state:
            if name == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif name == "#push":
                stack.append(stack[-1])
            else:
                stack.append(name)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(stack):
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])
    else:
        raise AssertionError(f"wrong state def: {new_state!r}")
