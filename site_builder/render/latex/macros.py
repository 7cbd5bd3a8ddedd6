"""Macros a document defines (``\\newcommand``, ``\\def``, ``\\let``, ``\\DeclareMathOperator``...), expanded in
its source before parsing, as TeX does: in text and in math alike, each definition in force from where it stands.

Expansion keeps every line where it was: a definition leaves an empty group and one comment per line it spanned,
and an expansion is joined on one line, followed by as many empty comments as the call spanned lines and an empty
group (so the next line keeps its indentation's space). Verbatim
and TikZ pictures are copied as they are (a picture is compiled by TeX, given the definitions as its preamble).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import LatexError
from .parser import PICTURE_ENVS, VERBATIM_ENVS, matching

MAX_EXPANSIONS = 200_000
MAX_SIZE = 8 * 1024 * 1024  # characters the source may grow to by expansion
MAX_NESTING = 64  # expansions inside an argument being read, definitions inside definitions
RAW_ENVS = VERBATIM_ENVS | PICTURE_ENVS
DEFINERS = frozenset(
    {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def", "gdef", "edef", "xdef"}
    | {"let", "DeclareMathOperator"}
)
# What a TikZ picture may need from its document's preamble, besides definitions: kept as written.
PICTURE_SETUP = frozenset(
    {"usetikzlibrary", "usepgfplotslibrary", "pgfplotsset", "tikzset", "definecolor", "colorlet"}
    | {"usepackage", "RequirePackage"}
)
_CS = re.compile(r"\\([A-Za-z@]+|.)", re.S)
_PARAMS = re.compile(r"(?:#[1-9])*")
_SPACE = re.compile(r"(?:[ \t]|\n(?![ \t]*\n)|%[^\n]*\n)*")  # spaces, one newline, comments: never a blank line
_RAW_BEGIN = re.compile(r"\\begin\s*\{(" + "|".join(re.escape(e) for e in sorted(RAW_ENVS)) + r")\}")


@dataclass(slots=True)
class Macro:
    params: int
    default: str | None  # the default of an optional first argument, if the macro has one
    body: str


@dataclass(slots=True)
class Macros:
    """The definitions in force, and the source of each, in order (the preamble of a TikZ picture)."""

    defined: dict[str, Macro] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    expansions: int = 0
    inputs_read: set[str] = field(default_factory=set)  # each input file's definitions are read once


def expand_macros(text: str, path: str, macros: Macros, inputs: dict[str, str] | None = None) -> str:
    """The source with the definitions it makes taken out and every use of a defined macro expanded.

    ``inputs`` are the ``.tex`` files that ``\\input`` may name: their definitions are read where they are
    input, so a shared ``macros.tex`` works. Raises ``LatexError`` with the line for a definition that is
    not closed or an expansion that never ends.
    """
    return _Expander(text, path, macros, inputs or {}).run()


class _Expander:
    def __init__(self, text: str, path: str, macros: Macros, inputs: dict[str, str], depth: int = 0) -> None:
        self.text = text
        self.path = path
        self.macros = macros
        self.inputs = inputs
        self.depth = depth
        self.pos = 0
        self.out: list[str] = []
        self.lines = 0  # newlines emitted so far: the line of ``pos`` is 1 + this

    def error(self, message: str) -> LatexError:
        return LatexError(self.path, self.lines + 1, message)

    def emit(self, chunk: str) -> None:
        self.out.append(chunk)
        self.lines += chunk.count("\n")

    def run(self) -> str:
        text = self.text
        while self.pos < len(text):
            text = self.text
            nxt = _next_special(text, self.pos)
            if nxt < 0:
                self.emit(text[self.pos :])
                break
            self.emit(text[self.pos : nxt])
            self.pos = nxt
            if text[nxt] == "%":
                end = text.find("\n", nxt)
                end = len(text) if end < 0 else end + 1
                self.emit(text[nxt:end])
                self.pos = end
                continue
            self._control_sequence()
        return "".join(self.out)

    def _control_sequence(self) -> None:
        text, start = self.text, self.pos
        m = _CS.match(text, start)
        if m is None:  # a backslash at the very end
            self.emit(text[start:])
            self.pos = len(text)
            return
        name = m.group(1)
        self.pos = m.end()
        if name == "begin" and (raw := _RAW_BEGIN.match(text, start)):
            self._copy_raw(start, raw.group(1))
        elif name == "verb":
            self._copy_verb(start)
        elif name in DEFINERS:
            self._definition(name, start)
        elif name in ("input", "include") and self.depth < 8:
            self._read_input_definitions()
            self.emit(text[start : self.pos])
        elif name in PICTURE_SETUP:
            self._setup(start)
        elif name in self.macros.defined:
            self._expand(name, start)
        else:
            self.emit(text[start : self.pos])

    def _copy_raw(self, start: int, env: str) -> None:
        close = self.text.find(f"\\end{{{env}}}", start)
        end = len(self.text) if close < 0 else close + len(env) + 6
        self.emit(self.text[start:end])
        self.pos = end

    def _copy_verb(self, start: int) -> None:
        text, pos = self.text, self.pos
        if text.startswith("*", pos):
            pos += 1
        close = text.find(text[pos], pos + 1) if pos < len(text) else -1
        end = len(text) if close < 0 else close + 1
        self.emit(text[start:end])
        self.pos = end

    # Definitions

    def _definition(self, kind: str, start: int) -> None:
        try:
            name, macro = self._read_definition(kind)
        except _NotMine:
            self.emit(self.text[start : self.pos])
            return
        source = self.text[start : self.pos]
        if macro is not None and not (kind == "providecommand" and name in self.macros.defined):
            self.macros.defined[name] = macro
            self.macros.sources.append(source)
        self.emit("{}" + "%\n" * source.count("\n"))

    def _read_definition(self, kind: str) -> tuple[str, Macro | None]:
        if kind == "let":
            return self._read_let()
        if kind == "DeclareMathOperator":
            star = self._take("*")
            name = self._read_name()
            body = self._read_group("the operator's name")
            return name, Macro(0, None, f"\\operatorname{'*' if star else ''}{{{body}}}")
        if kind in ("def", "gdef", "edef", "xdef"):
            name = self._read_name(braced=False)
            params = _PARAMS.match(self.text, self.pos)
            assert params is not None
            if not self.text.startswith("{", params.end()):
                raise _NotMine  # delimited parameters (``\def\a#1.{...}``): left to TeX, shown as they are
            self.pos = params.end()
            return name, Macro(len(params.group()) // 2, None, self._read_group("the definition"))
        self._take("*")
        name = self._read_name()
        count = self._read_bracket()
        default = self._read_bracket()
        number = int(count) if count is not None and count.strip().isdigit() else 0
        body = self._read_group("the definition")
        return name, Macro(min(number, 9), default if number else None, body)

    def _read_let(self) -> tuple[str, Macro | None]:
        name = self._read_name(braced=False)
        self._skip_space()
        self._take("=")
        self._skip_space()
        m = _CS.match(self.text, self.pos)
        if m is None:
            raise _NotMine
        self.pos = m.end()
        target = self.macros.defined.get(m.group(1))
        if target is not None:
            return name, Macro(target.params, target.default, target.body)
        return name, Macro(0, None, m.group())

    def _read_name(self, *, braced: bool = True) -> str:
        self._skip_space()
        group = braced and self._take("{")
        if group:
            self._skip_space()
        m = _CS.match(self.text, self.pos)
        if m is None:
            raise _NotMine
        self.pos = m.end()
        if group:
            self._skip_space()
            if not self._take("}"):
                raise _NotMine
        return m.group(1)

    def _read_bracket(self) -> str | None:
        self._skip_space()
        if not self.text.startswith("[", self.pos):
            return None
        end = matching(self.text, self.pos, "[", "]", comments=True)
        if end < 0:
            raise self.error("'[' of a definition is never closed")
        value = self.text[self.pos + 1 : end]
        self.pos = end + 1
        return value

    def _read_group(self, what: str) -> str:
        self._skip_space()
        if not self.text.startswith("{", self.pos):
            m = _CS.match(self.text, self.pos)
            if m is None:
                raise self.error(f"{what} has no body in braces")
            self.pos = m.end()
            return m.group()
        end = matching(self.text, self.pos, comments=True)
        if end < 0:
            raise self.error(f"unbalanced '{{': {what} is never closed")
        body = self.text[self.pos + 1 : end]
        self.pos = end + 1
        return body

    def _setup(self, start: int) -> None:
        """A package, library, colour or style a picture may use: noted, and left in place."""
        self._read_bracket()
        for _ in range(3):
            m = _SPACE.match(self.text, self.pos)
            assert m is not None
            if not self.text.startswith("{", m.end()) or (end := matching(self.text, m.end(), comments=True)) < 0:
                break
            self.pos = end + 1
        self.macros.sources.append(self.text[start : self.pos])
        self.emit(self.text[start : self.pos])

    def _read_input_definitions(self) -> None:
        m = re.compile(r"\s*\{([^{}]*)\}").match(self.text, self.pos)
        if m is None:
            return
        name = m.group(1).strip()
        found = next((n for n in (name, name + ".tex") if n in self.inputs), None)
        if found is None or found in self.macros.inputs_read:
            return
        self.macros.inputs_read.add(found)
        path = self.path.rsplit("/", 1)[0] + "/" + found
        _Expander(self.inputs[found], path, self.macros, self.inputs, self.depth + 1).run()

    # Expansion

    def _expand(self, name: str, start: int) -> None:
        macro = self.macros.defined[name]
        self.macros.expansions += 1
        if self.macros.expansions > MAX_EXPANSIONS:
            raise self.error(f"\\{name}: over {MAX_EXPANSIONS} macro expansions; a definition that never ends?")
        args: list[str] = []
        if macro.default is not None:
            self._skip_space()
            given = self._read_bracket()
            args.append(macro.default if given is None else given)
        while len(args) < macro.params:
            args.append(self._read_argument(name))
        if macro.params == 0 and name[:1].isalpha():
            m = re.compile(r"[ \t]*(?:\n(?![ \t]*\n)[ \t]*)?").match(self.text, self.pos)
            assert m is not None
            self.pos = m.end()
        consumed = self.text[start : self.pos].count("\n")
        body = _one_line(_substitute(macro.body, args))
        rest = self.text[self.pos :]
        if len(body) + len(rest) > MAX_SIZE:
            raise self.error(f"\\{name}: expanding it grows the document past {MAX_SIZE >> 20} MiB")
        self.text = body + ("%\n" * consumed + "{}" if consumed else "") + rest
        self.pos = 0

    def _read_argument(self, name: str) -> str:
        self._skip_space()
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise self.error(f"\\{name} is missing an argument")
        if text[pos] == "{":
            end = matching(text, pos, comments=True)
            if end < 0:
                raise self.error(f"unbalanced '{{' in an argument of \\{name}")
            self.pos = end + 1
            return text[pos + 1 : end]
        m = _CS.match(text, pos)
        self.pos = m.end() if m else pos + 1
        return text[pos : self.pos]

    def _skip_space(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def _take(self, char: str) -> bool:
        if self.text.startswith(char, self.pos):
            self.pos += len(char)
            return True
        return False


class _NotMine(Exception):
    """A definition of a form this module does not read: it is left in the source as it is."""


_TEX_SPECIAL = re.compile(r"[\\{}$&#^_%~]")


def tex_escape(text: str) -> str:
    """Plain text as TeX source that typesets it."""
    named = {"\\": "\\textbackslash{}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}
    return _TEX_SPECIAL.sub(lambda m: named.get(m.group(), "\\" + m.group()), text)


def _next_special(text: str, pos: int) -> int:
    slash, comment = text.find("\\", pos), text.find("%", pos)
    if slash < 0 or (0 <= comment < slash):
        return comment
    return slash


_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%[^\n]*(?:\n[ \t]*|$)")
_BLANK_LINES = re.compile(r"[ \t]*\n[ \t]*\n\s*")


def _one_line(text: str) -> str:
    """Text as TeX reads it, on one line: comments go with their newline, a blank line is ``\\par``."""
    if "%" in text:
        text = _COMMENT.sub(lambda m: m.group(1), text)
    return _BLANK_LINES.sub(lambda _: " \\par ", text).replace("\n", " ")


def _substitute(body: str, args: list[str]) -> str:
    """``#1``...``#9`` replaced by the arguments, ``##`` by ``#`` (a parameter of a definition inside)."""
    if "#" not in body:
        return body
    return re.sub(r"#([1-9#])", lambda m: "#" if m.group(1) == "#" else _arg(args, int(m.group(1))), body)


def _arg(args: list[str], number: int) -> str:
    return args[number - 1] if number <= len(args) else ""
