"""Macros a document defines (``\\newcommand``, ``\\def``, ``\\let``, ``\\DeclareMathOperator``...), expanded in
its source before parsing, as TeX does: in text and in math alike, each definition in force from where it stands.

Expansion keeps every line where it was: a definition leaves an empty group and one comment per line it spanned,
and an expansion is joined on one line, followed by as many empty comments as the call spanned lines and an empty
group (so the next line keeps its indentation's space). Verbatim
and TikZ pictures are copied as they are (a picture is compiled by TeX, given the definitions as its preamble).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ...errors import LatexError
from ...source.shared import input_name
from .parser import INLINE_CODE, PICTURE_ENVS, VERBATIM_ENVS, inline_code, matching

MAX_EXPANSIONS = 200_000
MAX_SIZE = 8 * 1024 * 1024  # characters the source may grow to by expansion
MAX_EXPANDED = 16 * 1024 * 1024  # characters all the expansions of a document (and its inputs) may make
MAX_NESTING = 64  # expansions inside an argument being read, definitions inside definitions
RAW_ENVS = VERBATIM_ENVS | PICTURE_ENVS
DEFINERS = frozenset(
    {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def", "gdef", "edef", "xdef"}
    | {"createsection"}  # the Italian olympiad booklet's: \createsection{\Grader}{title} makes a heading command
    | {"let", "DeclareMathOperator"}
    | {"newenvironment", "renewenvironment", "provideenvironment"}
)
# What a TikZ picture may need from its document's preamble, besides definitions: kept as written.
PICTURE_SETUP = frozenset(
    {"usetikzlibrary", "usepgfplotslibrary", "pgfplotsset", "tikzset", "definecolor", "colorlet"}
    | {"usepackage", "RequirePackage"}
)
_CS = re.compile(r"\\([A-Za-z@]+|.)", re.S)
_PARAMS = re.compile(r"(?:#[1-9])*")
_SPACE = re.compile(r"(?:[ \t]|\n(?![ \t]*\n)|%[^\n]*\n)*")  # spaces, one newline, comments: never a blank line
_AFTER_WORD = re.compile(r"[ \t]*(?:\n(?![ \t]*\n)[ \t]*)?")  # the space after a control word, as TeX skips it
_INPUT_NAME = re.compile(r"\s*\{([^{}]*)\}")
_ENV_NAME = re.compile(r"[ \t]*\{([A-Za-z@*]+)\}")
_CHUNK = 512  # characters of the input below joined on at least, when a construct reads past the end of its text
_LOOKAHEAD = 64  # characters a construct may look ahead without reading them: ``\begin {verbatim}``
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
    expanded: int = 0  # characters the expansions made, in all
    inputs_read: set[str] = field(default_factory=set)  # each input file's definitions are read once
    # ``\newif`` switches and their values; ``\ifplastex`` is true: the site renders as plasTeX does
    switches: dict[str, bool] = field(default_factory=lambda: {"plastex": True})


def expand_macros(text: str, path: str, macros: Macros, inputs: dict[str, str] | None = None, folder: str = "") -> str:
    """The source with the definitions it makes taken out and every use of a defined macro expanded.

    ``inputs`` are the ``.tex`` files that ``\\input`` may name: their definitions are read where they are
    input, so a shared ``macros.tex`` works. Raises ``LatexError`` with the line for a definition that is
    not closed or an expansion that never ends.
    """
    return _Expander(text, path, macros, inputs or {}, 0, folder).run()


class _Expander:
    """Reads the source as TeX reads its input: an expansion is read next, then what followed the call.

    The input is the current ``text`` and, below it, the unread rest of each text an expansion
    interrupted (``frames``): an expansion costs the length of its result, never a copy of the rest of the
    document. A construct that reads past the end of ``text`` (a call's arguments after a body that ends in
    a macro) has ``text`` joined with more of the input below, from ``mark``, the start of the construct.
    """

    def __init__(self, text: str, path: str, macros: Macros, inputs: dict[str, str], depth: int, folder: str) -> None:
        self.text = text
        self.pos = 0
        self.mark = 0  # the start of the construct being read: kept when more input is joined on
        self.frames: list[tuple[str, int]] = []  # the input below ``text``, each with where it goes on
        self.below = 0  # characters left in ``frames``
        self.unclosed = False  # a picture's setup command opened a group that never closes
        self.path = path
        self.macros = macros
        self.inputs = inputs
        self.folder = folder  # the document's folder in the archive (see ``inputs.input_name``)
        self.depth = depth
        self.out: list[str] = []
        self.open_ifs: list[str] = []  # the switches whose ``\fi`` is still to come, innermost last
        self.lines = 0  # newlines emitted so far: the line of ``pos`` is 1 + this

    def error(self, message: str) -> LatexError:
        return LatexError(self.path, self.lines + 1, message)

    def emit(self, chunk: str) -> None:
        self.out.append(chunk)
        self.lines += chunk.count("\n")

    def run(self) -> str:
        while True:
            text, pos = self.text, self.pos
            self.mark = pos
            nxt = _next_special(text, pos)
            if nxt < 0:
                self.emit(text[pos:])
                self.pos = self.mark = len(text)
                if not self._more():
                    break
                continue
            self.emit(text[pos:nxt])
            self.pos = self.mark = nxt
            if text[nxt] == "%":
                end = self._find("\n", 0)
                end = len(self.text) if end < 0 else end + 1
                self.emit(self.text[self.pos : end])
                self.pos = end
                continue
            self._control_sequence()
        return "".join(self.out)

    # The input

    def _more(self) -> bool:
        """More of the input after ``text``, keeping ``text`` from ``mark`` on; False when there is none."""
        if not self.frames:
            return False
        if self.mark == len(self.text):  # nothing of it is still being read: go on in the input below
            self.text, self.pos = self.frames.pop()
            self.mark = self.pos
            self.below -= len(self.text) - self.pos
            return True
        kept = self.text[self.mark :]
        want = max(_CHUNK, len(kept))  # at least doubled: a long argument is joined in few steps
        parts, got = [kept], 0
        while got < want and self.frames:
            frame, at = self.frames[-1]
            piece = frame[at : at + want - got]
            parts.append(piece)
            got += len(piece)
            if at + len(piece) == len(frame):
                self.frames.pop()
            else:
                self.frames[-1] = (frame, at + len(piece))
        self.below -= got
        self.text = "".join(parts)
        self.pos -= self.mark
        self.mark = 0
        return True

    def _push(self, text: str) -> None:
        """Read ``text`` next, then the rest of the input."""
        if self.pos < len(self.text):
            self.frames.append((self.text, self.pos))
            self.below += len(self.text) - self.pos
        self.text, self.pos, self.mark = text, 0, 0

    def _ensure(self, count: int) -> None:
        """At least ``count`` characters from ``pos`` on in ``text``, or all the input there is."""
        while len(self.text) - self.pos < count and self._more():
            pass

    def _match(self, pattern: re.Pattern[str], need: int = 1, after: int = 1) -> re.Match[str] | None:
        """``pattern`` at ``pos``, with the input joined on until ``after`` characters follow the match (what
        follows it could have made it longer: a name, a ``#1``, spaces) and any comment there is whole."""
        self._ensure(need)
        while True:
            m = pattern.match(self.text, self.pos)
            if m is None:
                return m
            end = m.end()
            cut = len(self.text) - end < after or (self.text.startswith("%", end) and self.text.find("\n", end) < 0)
            if not cut or not self._more():
                return m

    def _find(self, needle: str, offset: int) -> int:
        """The index of ``needle`` in ``text`` from ``mark + offset`` on (-1: not in the rest of the input)."""
        while True:
            found = self.text.find(needle, self.mark + offset)
            if found >= 0 or not self._more():
                return found

    def _matching(self, opening: str = "{", closing: str = "}") -> int:
        """The index of the ``closing`` that matches the ``opening`` at ``pos`` (-1: none in the input)."""
        while True:
            end = matching(self.text, self.pos, opening, closing, comments=True)
            if end >= 0 or not self._more():
                return end

    # Constructs

    def _control_sequence(self) -> None:
        m = self._match(_CS, 2)
        if m is None:  # a backslash at the very end
            self.emit(self.text[self.mark :])
            self.pos = len(self.text)
            return
        name = m.group(1)
        self.pos = m.end()
        if name == "begin":
            self._ensure(_LOOKAHEAD)
        if name == "begin" and (raw := _RAW_BEGIN.match(self.text, self.mark)):
            self._copy_raw(raw.group(1))
        elif name == "verb":
            self._copy_verb()
        elif name in INLINE_CODE:
            self._copy_inline_code(name)
        elif name in ("begin", "end") and (env := self._match(_ENV_NAME)) and f"{name}@{env[1]}" in self.macros.defined:
            self.pos = env.end()  # an environment the document defines: its begin or end code, expanded
            self._expand(f"{name}@{env[1]}")
        elif name in DEFINERS:
            self._definition(name)
        elif name in ("input", "include") and self.depth < 8:
            self._read_input_definitions()
            self.emit(self.text[self.mark : self.pos])
        elif name in PICTURE_SETUP:
            self._setup()
        elif name == "newif" or self._conditional(name):
            if name == "newif":
                self._newif()
        elif name in self.macros.defined:
            self._expand(name)
        else:
            self.emit(self.text[self.mark : self.pos])

    def _copy_raw(self, env: str) -> None:
        close = self._find(f"\\end{{{env}}}", 0)
        end = len(self.text) if close < 0 else close + len(env) + 6
        self.emit(self.text[self.mark : end])
        self.pos = end

    def _copy_verb(self) -> None:
        self._ensure(2)
        delimiter = self.pos + 1 if self.text.startswith("*", self.pos) else self.pos
        close = self._find(self.text[delimiter], delimiter + 1 - self.mark) if delimiter < len(self.text) else -1
        end = len(self.text) if close < 0 else close + 1
        self.emit(self.text[self.mark : end])
        self.pos = end

    def _copy_inline_code(self, name: str) -> None:
        """``\\lstinline|code|`` and ``\\mintinline{lang}{code}`` as they are: code holds no macro to expand.
        (Not closed on its line: only the name, and the parser says what is wrong.)"""
        self._find("\n", self.pos - self.mark)  # the rest of the line, where the code must end
        found = inline_code(self.text, self.pos, name)
        end = found[1] if found is not None else self.pos
        self.emit(self.text[self.mark : end])
        self.pos = end

    # Definitions

    def _definition(self, kind: str) -> None:
        try:
            found = self._read_environment(kind) if kind.endswith("environment") else [self._read_definition(kind)]
        except _NotMine:
            self.emit(self.text[self.mark : self.pos])
            return
        source = self.text[self.mark : self.pos]
        for name, macro in found:
            if macro is not None and not (kind.startswith("provide") and name in self.macros.defined):
                self.macros.defined[name] = macro
        if found:
            self.macros.sources.append(source)
        self.emit("{}" + "%\n" * source.count("\n"))

    def _read_environment(self, kind: str) -> list[tuple[str, Macro | None]]:
        """``\\newenvironment{name}[n][default]{begin code}{end code}``: ``\\begin{name}`` becomes the begin
        code (with its arguments), ``\\end{name}`` the end code, as TeX expands them (so an environment
        opened in one and closed in the other, a ``list`` inside a box, is whole once both are in place)."""
        self._take("*")
        self._skip_space()
        env = self._match(_ENV_NAME)
        if env is None:
            raise _NotMine
        self.pos = env.end()
        count = self._read_bracket()
        default = self._read_bracket()
        number = min(int(count), 9) if count is not None and count.strip().isdigit() else 0
        # A code ending in a control word is closed off: ``\\par`` and the text after ``\\end{name}`` stay apart.
        begin, end = (_closed(self._read_group(f"the environment's {part} code")) for part in ("begin", "end"))
        return [
            (f"begin@{env[1]}", Macro(number, default if number else None, begin)),
            (f"end@{env[1]}", Macro(0, None, end)),
        ]

    def _read_definition(self, kind: str) -> tuple[str, Macro | None]:
        if kind == "let":
            return self._read_let()
        if kind == "createsection":
            name = self._read_name()
            return name, Macro(0, None, f"\\section*{{{self._read_group('the section title')}}}")
        if kind == "DeclareMathOperator":
            star = self._take("*")
            name = self._read_name()
            body = self._read_group("the operator's name")
            return name, Macro(0, None, f"\\operatorname{'*' if star else ''}{{{body}}}")
        if kind in ("def", "gdef", "edef", "xdef"):
            name = self._read_name(braced=False)
            params = self._match(_PARAMS, after=2)  # a '#' that ends the text, and the '{'
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
        m = self._match(_CS, 2)
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
        m = self._match(_CS, 2)
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
        if not self._take("[", consume=False):
            return None
        end = self._matching("[", "]")
        if end < 0:
            raise self.error("'[' of a definition is never closed")
        value = self.text[self.pos + 1 : end]
        self.pos = end + 1
        return value

    def _read_group(self, what: str) -> str:
        self._skip_space()
        if not self._take("{", consume=False):
            m = self._match(_CS, 2)
            if m is None:
                raise self.error(f"{what} has no body in braces")
            self.pos = m.end()
            return m.group()
        end = self._matching()
        if end < 0:
            raise self.error(f"unbalanced '{{': {what} is never closed")
        body = self.text[self.pos + 1 : end]
        self.pos = end + 1
        return body

    def _setup(self) -> None:
        """A package, library, colour or style a picture may use: noted, and left in place."""
        self._read_bracket()
        for _ in range(3):
            before = self.pos - self.mark  # (``pos`` moves when more input is joined on; this does not)
            self._skip_space()
            group = not self.unclosed and self._take("{", consume=False)
            end = self._matching() if group else -1
            if end < 0:
                # A group that never closes: none is looked for after it (each look would read to the end).
                self.unclosed |= group
                self.pos = self.mark + before
                break
            self.pos = end + 1
        source = self.text[self.mark : self.pos]
        self.macros.sources.append(source)
        self.emit(source)

    def _read_input_definitions(self) -> None:
        m = self._match(_INPUT_NAME, _LOOKAHEAD)
        if m is None:
            return
        key = input_name(m.group(1).strip(), self.folder)
        found = next((n for n in (key, key + ".tex") if n in self.inputs), None) if key is not None else None
        if found is None or found in self.macros.inputs_read:
            return
        self.macros.inputs_read.add(found)
        path = posixpath.normpath(self.path.rsplit("/", 1)[0] + "/" + found)
        _Expander(self.inputs[found], path, self.macros, self.inputs, self.depth + 1, self.folder).run()

    # Conditionals: ``\newif\ifname``, ``\nametrue``, ``\namefalse``, ``\ifname ... \else ... \fi``

    def _newif(self) -> None:
        try:
            name = self._read_name(braced=False)
        except _NotMine:
            self.emit(self.text[self.mark : self.pos])
            return
        if name.startswith("if") and len(name) > 2:
            self.macros.switches.setdefault(name[2:], False)
        self.emit("{}" + "%\n" * self.text[self.mark : self.pos].count("\n"))

    def _conditional(self, name: str) -> bool:
        """Reads a switch's use (a setting, a test, its ``\\else`` or ``\\fi``); False for any other name."""
        switches = self.macros.switches
        if name.startswith("if") and name[2:] in switches:
            self._skip_after_word()
            if switches[name[2:]] or self._skip_branch(name, stop_at_else=True):
                self.open_ifs.append(name)  # its \\else (if any) and \\fi are still to come
        elif (switch := name.removesuffix("true").removesuffix("false")) != name and switch in switches:
            self._skip_after_word()
            if switch != "plastex":  # plasTeX sets it itself, whatever a document says
                switches[switch] = name.endswith("true")
        elif self.open_ifs and _CONDITIONAL_WORD.fullmatch(f"\\{name}"):
            # TeX's own conditionals (``\ifx``) inside a switch's branch are left to the renderer, with their
            # ``\else`` and ``\fi``: only the switch's own are read here
            if name.startswith("if"):
                self.open_ifs.append("")
                return False
            if not self.open_ifs[-1]:
                if name == "fi":
                    self.open_ifs.pop()
                return False
            if name == "else":
                self._skip_branch(self.open_ifs.pop(), stop_at_else=False)
            else:
                self.open_ifs.pop()
        else:
            return False
        self.emit("{}" + "%\n" * self.text[self.mark : self.pos].count("\n"))
        return True

    def _skip_after_word(self) -> None:
        m = self._match(_AFTER_WORD)
        assert m is not None
        self.pos = m.end()

    def _skip_branch(self, name: str, *, stop_at_else: bool) -> bool:
        """Reads past a branch not taken, to its ``\\fi`` (or, with ``stop_at_else``, its ``\\else``: then
        True), past the conditionals nested in it."""
        depth = 0
        while True:
            m = _CONDITIONAL_WORD.search(self.text, self.pos)
            if m is None or (len(self.text) - m.end() < 1 and self.frames):
                if not self._more():
                    raise self.error(f"\\{name} has no \\fi")
                continue
            self.pos = m.end()
            word = m.group(1)
            if word == "fi" and depth == 0:
                return False
            if word == "else" and depth == 0 and stop_at_else:
                return True
            depth += 1 if word.startswith("if") else -1 if word == "fi" else 0

    # Expansion

    def _expand(self, name: str) -> None:
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
        if macro.params == 0 and name[:1].isalpha() and not name.startswith(("begin@", "end@")):  # \end{x}: no word
            m = self._match(_AFTER_WORD)
            assert m is not None
            self.pos = m.end()
        consumed = self.text[self.mark : self.pos].count("\n")
        body = _one_line(_substitute(macro.body, args))
        self.macros.expanded += len(body)
        if self.macros.expanded > MAX_EXPANDED:
            raise self.error(f"\\{name}: macro expansions make over {MAX_EXPANDED >> 20} MiB of text in all; refused")
        if len(body) + len(self.text) - self.pos + self.below > MAX_SIZE:
            raise self.error(f"\\{name}: expanding it grows the document past {MAX_SIZE >> 20} MiB")
        if consumed:
            body += "%\n" * consumed + "{}"
        elif _ENDS_IN_WORD.search(body) and self._goes_on_with_letter():
            body += " "  # the body's last control word ends with it, as a token does: ``\b`` then ``x``, not ``\bx``
        self._push(body)

    def _read_argument(self, name: str) -> str:
        self._skip_space()
        self._ensure(2)
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise self.error(f"\\{name} is missing an argument")
        if text[pos] == "{":
            end = self._matching()
            if end < 0:
                raise self.error(f"unbalanced '{{' in an argument of \\{name}")
            argument = self.text[self.pos + 1 : end]
            self.pos = end + 1
            return argument
        m = self._match(_CS, 2)
        start = self.pos
        self.pos = m.end() if m else start + 1
        return self.text[start : self.pos]

    def _goes_on_with_letter(self) -> bool:
        self._ensure(1)
        return _LETTER.match(self.text, self.pos) is not None

    def _skip_space(self) -> None:
        m = self._match(_SPACE)
        assert m is not None
        self.pos = m.end()

    def _take(self, char: str, *, consume: bool = True) -> bool:
        """Whether the input goes on with ``char`` (one character); read past it unless not ``consume``."""
        self._ensure(1)
        if self.text.startswith(char, self.pos):
            self.pos += consume
            return True
        return False


_ENDS_IN_WORD = re.compile(r"\\[A-Za-z@]+$")
_LETTER = re.compile(r"[A-Za-z@]")


def _closed(code: str) -> str:
    """``code`` with ``{}`` after a control word that ends it, so that it does not run into what follows."""
    return code + "{}" if _ENDS_IN_WORD.search(code) else code


class _NotMine(Exception):
    """A definition of a form this module does not read: it is left in the source as it is."""


# The words that open and close conditionals (not ``\\iff``, a symbol, nor ``\\ifthenelse``, a command)
_CONDITIONAL_WORD = re.compile(r"\\(if(?!f(?![A-Za-z@])|thenelse)[A-Za-z@]*|else|fi)(?![A-Za-z@])")
_TEX_SPECIAL = re.compile(r"[\\{}$&#^_%~]")


def tex_escape(text: str) -> str:
    """Plain text as TeX source that typesets it."""
    named = {"\\": "\\textbackslash{}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}
    return _TEX_SPECIAL.sub(lambda m: named.get(m.group(), "\\" + m.group()), text)


_SPECIAL = re.compile(r"[\\%]")


def _next_special(text: str, pos: int) -> int:
    """The index of the next backslash or ``%`` (-1: none); linear (two ``find`` calls would each look to the end)."""
    m = _SPECIAL.search(text, pos)
    return m.start() if m else -1


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
