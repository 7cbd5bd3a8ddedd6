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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.lexers.c_cpp import CFamilyLexer
from pygments.token import Error, Keyword, Name, Whitespace, _TokenType

Rule = tuple[Callable[..., Any], Any, Any]  # (rexmatch, action, new_state), as Pygments stores them
Token = tuple[int, Any, str]


@dataclass(frozen=True, slots=True)
class _State:
    match: Callable[[str, int], re.Match[str] | None] | None  # None: keep Pygments' loop for this state
    rules: tuple[Rule, ...]
    by_group: dict[int, Rule]


def supports(lexer: Lexer) -> bool:
    method = type(lexer).get_tokens_unprocessed
    return method is RegexLexer.get_tokens_unprocessed or method is CFamilyLexer.get_tokens_unprocessed


def tokens(lexer: Lexer, text: str) -> Iterator[tuple[Any, str]]:
    """(token type, value) pairs, exactly as ``lexer.get_tokens(text)`` gives them for our inputs."""
    if not supports(lexer):
        yield from lexer.get_tokens(text)
        return
    if lexer.ensurenl and not text.endswith("\n"):
        text += "\n"
    stream = _unprocessed(lexer, text)
    if isinstance(lexer, CFamilyLexer):
        stream = _cfamily_names(lexer, stream)
    for _, kind, value in stream:
        yield kind, value


def _cfamily_names(lexer: CFamilyLexer, stream: Iterator[Token]) -> Iterator[Token]:
    """CFamilyLexer's own pass over names (standard library and C99 types become Keyword.Type)."""
    for index, kind, value in stream:
        if kind is Name and (
            (lexer.stdlibhighlighting and value in lexer.stdlib_types)
            or (lexer.c99highlighting and value in lexer.c99_types)
            or (lexer.c11highlighting and value in lexer.c11_atomic_types)
            or (lexer.platformhighlighting and value in lexer.linux_types)
        ):
            kind = Keyword.Type
        yield index, kind, value


@lru_cache(maxsize=64)
def _states(lexer_class: type) -> dict[str, _State]:
    token_defs: dict[str, list[Rule]] = getattr(lexer_class, "_tokens")  # noqa: B009 - set by Pygments' metaclass
    return {name: _join(tuple(rules)) for name, rules in token_defs.items()}


_SCOPED = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE
_LEADING_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
_BACKREF = re.compile(r"(?<!\\)((?:\\\\)*)\\([1-9][0-9]?)")


def _join(rules: tuple[Rule, ...]) -> _State:
    """One alternation of a state's rules, each in its own group and with its own flags."""
    patterns: list[re.Pattern[str]] = [getattr(rule[0], "__self__") for rule in rules]  # noqa: B009 - bound .match
    global_flags = {p.flags & ~_SCOPED for p in patterns}
    if len(global_flags) != 1 or any("(?P=" in p.pattern or "(?(" in p.pattern for p in patterns):
        return _State(None, rules, {})
    parts: list[str] = []
    by_group: dict[int, Rule] = {}
    group = 1
    for pattern, rule in zip(patterns, rules, strict=True):
        parts.append(f"({_scoped(pattern, group)})")
        by_group[group] = rule
        group += 1 + pattern.groups
    try:
        joined = re.compile("|".join(parts), global_flags.pop())
    except re.error:
        return _State(None, rules, {})
    return _State(joined.match, rules, by_group)


def _scoped(pattern: re.Pattern[str], group: int) -> str:
    """The pattern with its flags made local and its back-references renumbered for ``group``."""
    text = _LEADING_FLAGS.sub("", pattern.pattern)
    text = _BACKREF.sub(lambda m: f"{m.group(1)}(?:\\{int(m.group(2)) + group})", text)
    letters = "".join(c for flag, c in ((re.I, "i"), (re.M, "m"), (re.S, "s"), (re.X, "x")) if pattern.flags & flag)
    return f"(?{letters}:{text})" if letters else text


def _unprocessed(lexer: Lexer, text: str) -> Iterator[Token]:
    """Pygments' RegexLexer.get_tokens_unprocessed, with one joined match per step."""
    states = _states(type(lexer))
    pos = 0
    stack = ["root"]
    state = states["root"]
    while True:
        rule, m = _step(state, text, pos)
        if m is not None and rule is not None:
            rexmatch, action, new_state = rule
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, m.group()
                else:
                    own = m if state.match is None else rexmatch(text, pos)
                    yield from action(lexer, own)
            pos = m.end()
            if new_state is not None:
                _transition(stack, new_state)
                state = states[stack[-1]]
            continue
        if pos >= len(text):
            return
        if text[pos] == "\n":
            stack = ["root"]
            state = states["root"]
            yield pos, Whitespace, "\n"
        else:
            yield pos, Error, text[pos]
        pos += 1


def _step(state: _State, text: str, pos: int) -> tuple[Rule | None, re.Match[str] | None]:
    if state.match is not None:
        m = state.match(text, pos)
        return (state.by_group[m.lastindex or 0], m) if m is not None else (None, None)
    for rule in state.rules:
        m = rule[0](text, pos)
        if m:
            return rule, m
    return None, None


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
