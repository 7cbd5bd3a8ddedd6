"""Pygments' ``RegexLexer`` rules, run faster and written straight to HTML.

Pygments tries a state's rules one by one from Python at every position: for a 300-line C++
file that is about 40,000 ``match`` calls. Here the rules of a state are joined into one
alternation, so Python's regex engine tries them in the same order, in C, with one call per
token. The first alternative that matches is the rule Pygments would have chosen, because it
also takes the first rule that matches. Each state keeps, per first character, only the rules
that can match there, and away from a line start it drops the rules anchored to one. Rules with
callbacks (``bygroups``, ``using``) get their own match object, as Pygments gives them. States
whose rules cannot be joined (named back-references, mixed global flags) keep Pygments' loop; an
alternation is compiled at its first use, and one that will not compile sends its whole lexer
back to Pygments' own code.

The tokens are not collected: the loop writes each token's text, and a span only where the CSS
class changes, so a token costs a few Python steps. Tags are written with two private-use
characters the text does not contain, and the whole HTML is escaped at once at the end.
``tests/test_highlight.py`` checks that the classes and text are Pygments' own on every source
file we have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pygments
from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer, RegexLexer, _PseudoMatch, bygroups, this, using
from pygments.lexers.c_cpp import CFamilyLexer
from pygments.styles import get_style_by_name
from pygments.token import Error, Keyword, Name, Text, Whitespace, _TokenType

from .regexstart import END, OTHER, first_characters, line_anchored

# The Pygments releases this module was tested with (``tests/test_versions.py``; the pin in pyproject.toml).
# It drives Pygments' internals (``_tokens``, ``_PseudoMatch``, the C-family lexer's loop), which a
# new release may change: under any other version every lexer takes Pygments' own, slower, path.
TESTED_PYGMENTS = ("2.21",)
TESTED = ".".join(pygments.__version__.split(".")[:2]) in TESTED_PYGMENTS

Rule = tuple[Callable[..., Any], Any, Any]  # (rexmatch, action, new_state), as Pygments stores them
Step = tuple[str | None, Any, Rule]  # (CSS class of the token, or None: ask the rule per match; new state; rule)
Bucket = tuple["_Joined | None", ...]
MAYBE_TYPE = "?"  # the class of a C-family name, decided by its text: a type or a plain name

STYLES = ("default", "github-dark")  # the light and the dark theme


class _Joined:
    """Rules joined into one alternation, compiled at its first match: a state has dozens of these
    (per first character), a text needs few, and compiling all of them costs a worker a second."""

    __slots__ = ("flags", "match", "source", "steps")

    def __init__(self, source: str, flags: int, steps: tuple[Step | None, ...]) -> None:
        self.source, self.flags = source, flags
        self.steps = steps  # by group number: what the alternative that matched does
        self.match: Callable[[str, int], re.Match[str] | None] = self._first_match

    def compiled(self) -> re.Pattern[str]:
        try:
            return re.compile(self.source, self.flags)
        except re.error as e:
            raise Unjoinable(str(e)) from e

    def _first_match(self, text: str, pos: int) -> re.Match[str] | None:
        self.match = self.compiled().match
        return self.match(text, pos)


class Unjoinable(Exception):
    """A state's rules do not compile as one alternation (e.g. a verbose pattern that ends in a comment)."""


@dataclass(frozen=True, slots=True)
class _State:
    """A state's rules, and per first character the rules that can match there, joined in order.

    ``start`` is for positions at a line start, ``middle`` for the others; both None: keep
    Pygments' loop for this state.
    """

    rules: tuple[Rule, ...]
    start: Bucket | None
    middle: Bucket | None


_UNJOINABLE: set[type] = set()


def supports(lexer: Lexer) -> bool:
    """Whether the fast path can drive ``lexer``: a plain RegexLexer whose rules its class holds (C#'s,
    for one, keeps per-instance rules), not found unjoinable before."""
    if not TESTED or type(lexer) in _UNJOINABLE or "_tokens" not in type(lexer).__dict__:
        return False
    method = type(lexer).get_tokens_unprocessed
    return method is RegexLexer.get_tokens_unprocessed or method is CFamilyLexer.get_tokens_unprocessed


# ------------------------------------------------------------ CSS classes

_FORMATTER: Any = HtmlFormatter()
_CLASSES: dict[Any, str] = {}


def css_class(kind: Any) -> str:
    """The CSS class Pygments' HtmlFormatter gives a token type; "" for plain text and whitespace.

    (Whitespace has its own class, but a colour on blanks shows nothing: no span for it.)
    """
    found = _CLASSES.get(kind)
    if found is None:
        found = str(_FORMATTER._get_css_classes(kind))
        _CLASSES[kind] = found = "" if found == "w" else found
    return found


def _types(lexer: Lexer) -> frozenset[str]:
    """The names CFamilyLexer's own pass turns into Keyword.Type, under the lexer's options."""
    if not isinstance(lexer, CFamilyLexer):
        return frozenset()
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


def _class_of(kind: Any, value: str, types: frozenset[str]) -> str:
    if kind is Name and value in types:
        kind = Keyword.Type
    return css_class(kind)


# ------------------------------------------------------------ HTML

_ESCAPE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# The pairs of characters that stand for "<" and ">" in tags until the text is escaped: the first pair
# the text lacks. ASCII control characters first (code has none, and a string that stays ASCII is
# joined and escaped in half the time: 8% of a C++ file's highlighting), then the private-use area.
_MARKS = [(chr(c), chr(c + 1)) for c in (*range(0x01, 0x09, 2), *range(0x0E, 0x1F, 2), *range(0xE000, 0xF8FF, 2))]


def prepare(lexer: Lexer) -> None:
    """Build the lexer's tables (its alternations are still compiled at their first use)."""
    if supports(lexer):
        _states(type(lexer), _types(lexer))


def html(lexer: Lexer, text: str) -> str:
    """The highlighted HTML of ``text``: escaped, with a ``<span class>`` per run of one CSS class."""
    text = _prepared(text, lexer.ensurenl)
    marks = next((m for m in _MARKS if m[0] not in text and m[1] not in text), None)
    if marks is not None and supports(lexer) and text.endswith("\n"):
        try:
            return _fast_html(lexer, text, *marks)
        except Unjoinable:
            _UNJOINABLE.add(type(lexer))  # Pygments' own loop from now on, for this lexer
    types = _types(lexer)
    out: list[str] = []
    pairs = ((_class_of(k, v, types), v.translate(_ESCAPE)) for k, v in lexer.get_tokens(text))
    if _written(out.append, pairs, "", _KeyedTags("<", ">"), "</span>"):
        out.append("</span>")
    return "".join(out)


def _prepared(text: str, ensurenl: bool) -> str:
    """The text as Pygments' ``get_tokens`` lexes it (our lexers keep blank lines and tabs)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text + "\n" if ensurenl and not text.endswith("\n") else text


def _written(
    append: Callable[[str], None], pairs: Iterable[tuple[str, str]], current: str, tags: dict[str, str], close: str
) -> str:
    """Write (class, text) pairs, opening a span where the class changes; return the class left open.

    (The hot loop in ``_drive`` has this inline; this is for everything else.)
    """
    for css, value in pairs:
        if css != current:
            if current:
                append(close)
            if css:
                append(tags[css])
            current = css
        append(value)
    return current


@lru_cache(maxsize=8)
def _tags(opening: str, closing: str) -> tuple[dict[str, str], str]:
    """Opening tags by CSS class, and the closing tag, written with the placeholder characters."""
    opens = _KeyedTags(opening, closing)
    return opens, f"{opening}/span{closing}"


class _KeyedTags(dict[str, str]):
    def __init__(self, opening: str, closing: str) -> None:
        super().__init__()
        self.opening, self.closing = opening, closing

    def __missing__(self, css: str) -> str:
        tag = self[css] = f'{self.opening}span class="{css}"{self.closing}'
        return tag


def _fast_html(lexer: Lexer, text: str, opening: str, closing: str) -> str:
    tags, close = _tags(opening, closing)
    out: list[str] = []
    if _drive(lexer, text, ["root"], _Writer(out.append, tags, close), ""):
        out.append(close)
    escaped = "".join(out).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace(opening, "<").replace(closing, ">")


@dataclass(frozen=True, slots=True)
class _Writer:
    append: Callable[[str], None]
    tags: dict[str, str]
    close: str

    def pairs(self, pairs: Iterable[tuple[str, str]], current: str) -> str:
        return _written(self.append, pairs, current, self.tags, self.close)


def _drive(lexer: Lexer, text: str, stack: list[str], writer: _Writer, current: str) -> str:
    """Pygments' RegexLexer.get_tokens_unprocessed from ``stack``, one bucketed match per step,
    written as HTML with ``current`` the class open before it; returns the class open after it.
    (One flat loop: hot.)"""
    types = _types(lexer)
    states = _states(type(lexer), types)
    append, tags, close = writer.append, writer.tags, writer.close
    type_css, name_css = css_class(Keyword.Type), css_class(Name)
    # One bucket code per character, and a newline after the last: position 0 counts as a line start.
    codes = (text if text.isascii() else _NON_ASCII.sub("\x80", text)).encode("latin-1") + b"\n"
    pos, end = 0, len(text)
    state = states[stack[-1]]
    while True:
        m: re.Match[str] | None = None
        table = state.start if codes[pos - 1] == 10 else state.middle
        if table is not None:
            joined = table[codes[pos]] if pos < end else table[END]
            if joined is not None:
                m = joined.match(text, pos)
                if m is not None:
                    css, new_state, rule = joined.steps[m.lastindex or 0]  # type: ignore[misc]
                    if css is not None:
                        if css is MAYBE_TYPE:  # CFamilyLexer's pass: some names are types
                            css = type_css if m.group().rstrip() in types else name_css
                        if css != current:
                            if current:
                                append(close)
                            if css:
                                append(tags[css])
                            current = css
                        append(m.group())
                    else:
                        current = _action(lexer, rule[1], rule[0](text, pos), types, writer, current)
        else:
            for rule in state.rules:
                m = rule[0](text, pos)
                if m is not None:
                    new_state = _step_state(rule[2])
                    current = _action(lexer, rule[1], m, types, writer, current)
                    break
        if m is not None:
            pos = m.end()
            if new_state is not None:
                if new_state.__class__ is str:  # the common two inline (see ``_step_state``)
                    stack.append(new_state)
                elif new_state == -1:
                    if len(stack) > 1:
                        stack.pop()
                else:
                    _transition(stack, new_state)
                state = states[stack[-1]]
            continue
        if pos >= end:
            return current
        char = text[pos]
        if char == "\n":
            stack = ["root"]
            state = states["root"]
        current = writer.pairs([(css_class(Whitespace if char == "\n" else Error), char)], current)
        pos += 1


# The code of Pygments' two callback factories, to know their callbacks by (a new Pygments that
# changes them just takes the slower general path).
_BYGROUPS = bygroups(Text).__code__  # type: ignore[no-untyped-call]
_USING_THIS = using(this, state="root").__code__  # type: ignore[no-untyped-call]


def _action(lexer: Lexer, action: Any, match: Any, types: frozenset[str], writer: _Writer, current: str) -> str:
    """Write what a rule's action yields for a match, when that is more than one fixed-class token.

    ``bygroups`` whose groups are lexed again by this lexer from another state (Markdown's list
    items and quotes: ``using(this, state=...)``) are driven here too, not by Pygments' loop.
    """
    if action is None:
        return current
    if type(action) is _TokenType:
        return writer.pairs([(_class_of(action, match.group(), types), match.group())], current)
    groups = _bygroups(action)
    if groups is not None:
        for index, inner, stack in groups:
            data = match.group(index)
            if data is None:
                continue
            if type(inner) is _TokenType:
                if data:
                    current = writer.pairs([(_class_of(inner, data, types), data)], current)
            elif stack is not None:
                current = _drive(lexer, data, list(stack), writer, current)
            else:
                pseudo = _PseudoMatch(match.start(index), data)
                current = writer.pairs(((_class_of(k, v, types), v) for _, k, v in inner(lexer, pseudo)), current)
        return current
    return writer.pairs(((_class_of(kind, value, types), value) for _, kind, value in action(lexer, match)), current)


@lru_cache(maxsize=1024)
def _bygroups(action: Any) -> tuple[tuple[int, Any, tuple[str, ...] | None], ...] | None:
    """For a ``bygroups`` callback: (group number, its action, and the starting stack when that
    action is ``using(this, ...)``) for each group with an action; None for other callbacks."""
    if type(action) is _TokenType or getattr(action, "__code__", None) is not _BYGROUPS:
        return None
    groups = enumerate(_closure(action)["args"], 1)
    return tuple((index, inner, _using_this(inner)) for index, inner in groups if inner is not None)


def _using_this(action: Any) -> tuple[str, ...] | None:
    """The starting stack of ``using(this, state=...)`` with no other options, else None."""
    if type(action) is _TokenType or getattr(action, "__code__", None) is not _USING_THIS:
        return None
    closure = _closure(action)
    if closure.get("kwargs"):
        return None  # a new lexer with other options: Pygments' own path
    return tuple(closure.get("gt_kwargs", {}).get("stack", ("root",)))


def _closure(function: Any) -> dict[str, Any]:
    cells = function.__closure__ or ()
    return dict(zip(function.__code__.co_freevars, (c.cell_contents for c in cells), strict=True))


# ------------------------------------------------------------ joining a state's rules


@lru_cache(maxsize=64)
def _states(lexer_class: type, types: frozenset[str]) -> dict[str, _State]:
    token_defs: dict[str, list[Rule]] = getattr(lexer_class, "_tokens")  # noqa: B009 - set by Pygments' metaclass
    return {name: _bucketed(tuple(rules), types) for name, rules in token_defs.items()}


_SCOPED = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE
_LEADING_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
_BACKREF = re.compile(r"(?<!\\)((?:\\\\)*)\\([1-9][0-9]?)")


def _bucketed(rules: tuple[Rule, ...], types: frozenset[str]) -> _State:
    """Per first character (and line start or not), the rules that can match there, joined in order."""
    patterns: list[re.Pattern[str]] = [getattr(rule[0], "__self__") for rule in rules]  # noqa: B009 - bound .match
    global_flags = {p.flags & ~_SCOPED for p in patterns}
    if len(global_flags) != 1 or any("(?P=" in p.pattern or "(?(" in p.pattern for p in patterns):
        return _State(rules, None, None)
    flags = global_flags.pop()
    firsts = [first_characters(p) for p in patterns]
    anchored = [line_anchored(p) for p in patterns]

    def chosen(bucket: int, at_start: bool) -> tuple[int, ...]:
        return tuple(
            i
            for i, (chars, empty) in enumerate(firsts)
            if (at_start or not anchored[i]) and (empty or (bucket != END and bucket in chars))
        )

    fuse = all((first := chosen(b, False)) and _is_blanks(rules[first[0]]) for b in _BLANK_BUCKETS)
    joined: dict[tuple[int, ...], _Joined | None] = {}
    tables: list[Bucket] = []
    for at_start in (True, False):
        buckets: list[_Joined | None] = []
        for bucket in range(END + 1):
            these = chosen(bucket, at_start)
            if these not in joined:
                joined[these] = _join([patterns[i] for i in these], [rules[i] for i in these], flags, types, fuse)
            buckets.append(joined[these])
        tables.append(tuple(buckets))
    return _State(rules, tables[0], tables[1])


# Blanks after a token: Pygments makes them a token of their own, as the first rule that matches at
# any blank away from a line start, ``[^\S\n]+``, always a plain one. Where that holds in a state,
# the blanks are taken with the token before them instead (inside its span: colour on blanks shows
# nothing), which saves a third of the steps in C++. Not after a newline, where other rules may
# come first, nor after tokens with a background, border or underline in either theme.
BLANKS = "[^\\S\\n]+"
_AFTER = "(?:(?<!\\n)[^\\S\\n]+)?"  # never fails, so it never makes the token match differently
_BLANK_BUCKETS = [c for c in range(OTHER) if re.fullmatch(BLANKS, chr(c))] + [OTHER]  # OTHER: e.g. U+00A0
_DECORATED = frozenset(
    kind
    for name in STYLES
    for kind, style in get_style_by_name(name)
    if style["bgcolor"] or style["border"] or style["underline"]
)


def _is_blanks(rule: Rule) -> bool:
    action = rule[1]
    return (
        getattr(rule[0], "__self__").pattern == BLANKS  # noqa: B009 - bound .match
        and type(action) is _TokenType
        and css_class(action) == ""
        and rule[2] is None
    )


def _join(
    patterns: list[re.Pattern[str]], rules: list[Rule], flags: int, types: frozenset[str], fuse: bool
) -> _Joined | None:
    if not patterns:
        return None
    parts: list[str] = []
    steps: list[Step | None] = [None]
    for pattern, rule in zip(patterns, rules, strict=True):
        action, new_state = rule[1], rule[2]
        if type(action) is not _TokenType:
            css = None
        elif types and action is Name:
            css = MAYBE_TYPE
        else:
            css = css_class(action)
        after = _AFTER if fuse and css is not None and new_state is None and action not in _DECORATED else ""
        parts.append(f"({_scoped(pattern, len(steps))}{after})")
        steps.append((css, _step_state(new_state), rule))
        steps.extend([None] * pattern.groups)
    return _Joined("|".join(parts), flags, tuple(steps))


def _scoped(pattern: re.Pattern[str], group: int) -> str:
    """The pattern with its flags made local and its back-references renumbered for ``group``."""
    text = _LEADING_FLAGS.sub("", pattern.pattern)
    text = _BACKREF.sub(lambda m: f"{m.group(1)}(?:\\{int(m.group(2)) + group})", text)
    letters = "".join(c for flag, c in ((re.I, "i"), (re.M, "m"), (re.S, "s"), (re.X, "x")) if pattern.flags & flag)
    return f"(?{letters}:{text})" if letters else text


# ------------------------------------------------------------ which characters can start a match


def _step_state(new_state: Any) -> Any:
    """A rule's new state as ``_drive`` takes it: a state pushed alone as its name (a string), ``#push``
    as a tuple; the rest (-1 pops) as Pygments keeps them."""
    if isinstance(new_state, tuple) and len(new_state) == 1 and not new_state[0].startswith("#"):
        return new_state[0]
    return (new_state,) if new_state == "#push" else new_state


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
