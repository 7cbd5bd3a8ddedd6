"""LaTeX source to a tree of nodes with line numbers (pure; no rendering).

The tokenizer handles the constructs whose content is not LaTeX (math, verbatim,
URLs, comments); the tree builder matches braces and environments with an
explicit stack, so deep nesting can never exhaust Python's stack; a second pass
attaches arguments to the commands and environments that take them.
"""

from __future__ import annotations

import re

from ...errors import LatexError
from .arguments import RAW_FIRST_ARG, attach_all
from .nodes import Arg, Cmd, Env, Group, Math, Node, Par, Space, Special, Text, Verbatim

MAX_DEPTH = 60
VERBATIM_ENVS = frozenset({"verbatim", "verbatim*", "lstlisting", "minted", "comment", "Verbatim"})
# Pictures TeX draws (TikZ, pgfplots inside them): kept whole, as source for TeX to compile.
PICTURE_ENVS = frozenset({"tikzpicture", "pgfpicture", "circuitikz", "tikzcd"})
MATH_ENVS = frozenset(
    f"{name}{star}"
    for name in ("equation", "align", "gather", "multline", "flalign", "alignat", "eqnarray", "displaymath")
    for star in ("", "*")
)


_TOKEN = re.compile(
    r"(?P<par>[ \t]*\n[ \t]*\n\s*)"
    r"|(?P<space>[ \t]*\n[ \t]*|[ \t]+)"
    r"|(?P<comment>%[^\n]*)"
    r"|(?P<cs>\\(?:[A-Za-z@]+\*?|.|\n|\Z))"
    r"|(?P<char>[{}$&~\[\]])"
    r"|(?P<text>[^\\{}$&~\[\]%\s](?:[^\\{}$&~\[\]%\n]*[^\\{}$&~\[\]%\s])?)",
    re.S,
)
_NAME_ARG = re.compile(r"\s*\{([^{}\n]*)\}")
_BLANK_AHEAD = re.compile(r"\n[ \t]*\n")


class _Lines:
    """Offset to 1-based line number; cheap for the increasing offsets of a left-to-right scan."""

    def __init__(self, text: str, first_line: int) -> None:
        self.text = text
        self.first = first_line
        self.offset = 0
        self.line = first_line

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            return self.first + self.text.count("\n", 0, offset)
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def parse_latex(text: str, path: str, first_line: int = 1) -> list[Node]:
    """Parse a LaTeX document (or fragment) into a list of top-level nodes."""
    builder = _TreeBuilder(text, path, _Lines(text, first_line))
    builder.run()
    root = builder.root
    attach_all(root, path)
    return root.children


class _TreeBuilder:
    def __init__(self, text: str, path: str, lines: _Lines) -> None:
        self.text = text
        self.path = path
        self.line = lines
        self.root = Group([], lines.first)
        self.stack: list[Group | Env] = [self.root]

    def error(self, offset: int, message: str) -> LatexError:
        return LatexError(self.path, self.line(offset), message)

    def add(self, node: Node) -> None:
        self.stack[-1].children.append(node)

    def push(self, node: Group | Env, offset: int) -> None:
        if len(self.stack) > MAX_DEPTH:
            raise self.error(offset, f"nesting deeper than {MAX_DEPTH} levels of groups and environments")
        self.add(node)
        self.stack.append(node)

    def run(self) -> None:
        text, pos, end = self.text, 0, len(self.text)
        while pos < end:
            m = _TOKEN.match(text, pos)
            assert m is not None, "the token pattern matches every character"
            kind = m.lastgroup
            pos = m.end()
            if kind == "text":
                self.add(Text(m.group(), self.line(m.start())))
            elif kind == "space":
                self.add(Space(self.line(m.start())))
            elif kind == "par":
                self.add(Par(self.line(m.start())))
            elif kind == "comment":
                pos = self._after_comment(pos)
            elif kind == "char":
                pos = self._char(m.group(), m.start(), pos)
            else:
                pos = self._control(m.group()[1:], m.start(), pos)
        self._check_closed()

    def _after_comment(self, pos: int) -> int:
        """A comment also eats its newline and the next line's indentation, unless that line is blank."""
        if self.text.startswith("\n", pos) and not _BLANK_AHEAD.match(self.text, pos):
            pos += 1
            while pos < len(self.text) and self.text[pos] in " \t":
                pos += 1
        return pos

    def _char(self, char: str, start: int, pos: int) -> int:
        line = self.line(start)
        if char == "{":
            self.push(Group([], line), start)
        elif char == "}":
            top = self.stack[-1]
            if top is self.root:
                raise self.error(start, "unbalanced '}': no '{' is open here")
            if isinstance(top, Env):
                raise self.error(start, f"'}}' closes nothing: \\begin{{{top.name}}} on line {top.line} is still open")
            self.stack.pop()
        elif char == "$":
            return self._dollar_math(start, pos)
        else:
            self.add(Special(char, line))
        return pos

    def _dollar_math(self, start: int, pos: int) -> int:
        display = self.text.startswith("$", pos)
        delim = "$$" if display else "$"
        body_start = start + len(delim)
        close = _find_math_end(self.text, delim, body_start)
        if close < 0:
            raise self.error(start, f"math opened with {delim} is never closed")
        self.add(Math(self.text[body_start:close].strip(), display, self.line(start)))
        return close + len(delim)

    def _control(self, name: str, start: int, pos: int) -> int:
        line = self.line(start)
        if name in ("[", "("):
            closer = "\\]" if name == "[" else "\\)"
            close = self.text.find(closer, pos)
            if close < 0:
                raise self.error(start, f"math opened with \\{name} is never closed (missing {closer})")
            self.add(Math(self.text[pos:close].strip(), name == "[", line))
            return close + 2
        if name in ("]", ")"):
            raise self.error(start, f"\\{name} closes math that was never opened")
        if name == "begin":
            return self._begin(start, pos)
        if name == "end":
            return self._end(start, pos)
        if name == "par":
            self.add(Par(line))
            return self._skip_space_after_word(pos)
        if name == "tikz":
            return self._inline_picture(start, pos)
        if name == "verb" or name == "verb*":
            return self._verb(start, pos)
        if name in INLINE_CODE:
            return self._inline_code(name, start, pos)
        star = name.endswith("*") and len(name) > 1
        base = name[:-1] if star else name
        cmd = Cmd(base, line, star)
        self.add(cmd)
        if base in RAW_FIRST_ARG:
            return self._raw_arg(cmd, start, pos)
        if base[:1].isalpha() or base[:1] == "@":
            return self._skip_space_after_word(pos)
        return pos

    def _skip_space_after_word(self, pos: int) -> int:
        text = self.text
        m = re.compile(r"[ \t]*(\n[ \t]*)?").match(text, pos)
        assert m is not None
        if m.group(1) is not None and text.startswith("\n", m.end()):
            return pos + len(m.group().split("\n", 1)[0])  # a blank line follows: keep it as \par
        return m.end()

    def _raw_arg(self, cmd: Cmd, start: int, pos: int) -> int:
        m = re.compile(r"\s*\{").match(self.text, pos)
        if m is None:
            raise self.error(start, f"\\{cmd.name} expects {{...}}")
        depth, i = 1, m.end()
        while i < len(self.text) and depth:
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            depth += {"{": 1, "}": -1}.get(c, 0)
            i += 1
        if depth:
            raise self.error(start, f"unbalanced '{{' in the argument of \\{cmd.name}")
        cmd.args.append(Arg(False, [Text(self.text[m.end() : i - 1].strip(), cmd.line)]))
        return i

    def _verb(self, start: int, pos: int) -> int:
        if pos >= len(self.text):
            raise self.error(start, "\\verb needs a delimiter, as in \\verb|x|")
        delim = self.text[pos]
        close = self.text.find(delim, pos + 1)
        if close < 0 or "\n" in self.text[pos + 1 : close]:
            raise self.error(start, f"\\verb{delim}... is not closed on the same line")
        self.add(Verbatim("verb", self.text[pos + 1 : close], self.line(start), inline=True))
        return close + 1

    def _inline_code(self, name: str, start: int, pos: int) -> int:
        """``\\lstinline[options]{code}`` or ``|code|`` (any delimiter, as ``\\verb``), and ``\\mintinline``
        with its language first: the code as it is written, macros and all."""
        found = inline_code(self.text, pos, name)
        if found is None:
            example = "\\mintinline{python}{x + 1}" if name == "mintinline" else "\\lstinline{x + 1} or \\lstinline|x|"
            raise self.error(start, f"\\{name}: its code is not closed on the same line (write {example})")
        code, end = found
        self.add(Verbatim("verb", code, self.line(start), inline=True))
        return end

    def _inline_picture(self, start: int, pos: int) -> int:
        """``\\tikz[options]{...}`` or ``\\tikz[options] ... ;``: a picture in a line of text."""
        end = inline_picture_end(self.text, pos)
        if end < 0:
            raise self.error(start, "\\tikz: the picture is never closed (no '}' or ';')")
        self.add(Verbatim("tikz", self.text[start:end], self.line(start), inline=True))
        return end

    def _picture(self, name: str, start: int, pos: int) -> int:
        """A TikZ picture, whole (nested pictures of the same name included)."""
        opening, closing = re.compile(r"\\(begin|end)\s*\{" + re.escape(name) + r"\}"), 1
        for m in opening.finditer(self.text, pos):
            closing += 1 if m.group(1) == "begin" else -1
            if closing == 0:
                self.add(Verbatim(name, self.text[start : m.end()], self.line(start)))
                return m.end()
        raise self.error(start, f"\\begin{{{name}}} is never closed (missing \\end{{{name}}})")

    def _begin(self, start: int, pos: int) -> int:
        m = _NAME_ARG.match(self.text, pos)
        if m is None:
            raise self.error(start, "\\begin must be followed by {environment}")
        name, pos = m.group(1).strip(), m.end()
        line = self.line(start)
        if name in PICTURE_ENVS:
            return self._picture(name, start, pos)
        if name in MATH_ENVS or name in VERBATIM_ENVS:
            end_marker = f"\\end{{{name}}}"
            close = self.text.find(end_marker, pos)
            if close < 0:
                raise self.error(start, f"\\begin{{{name}}} is never closed (missing \\end{{{name}}})")
            if name in MATH_ENVS:
                self.add(Math(self.text[start : close + len(end_marker)], True, line))
            else:
                options, body_start = _verbatim_options(self.text, pos, name)
                body = self.text[body_start:close]
                self.add(Verbatim(name, _trim_verbatim(body), line, options))
            return close + len(end_marker)
        self.push(Env(name, line), start)
        return pos

    def _end(self, start: int, pos: int) -> int:
        m = _NAME_ARG.match(self.text, pos)
        if m is None:
            raise self.error(start, "\\end must be followed by {environment}")
        name = m.group(1).strip()
        top = self.stack[-1]
        if isinstance(top, Env) and top.name == name:
            self.stack.pop()
            return m.end()
        if name == "document" and top is self.root:  # a fragment set inside a booklet: where TeX stops reading
            return len(self.text)
        if isinstance(top, Group) and top is not self.root:
            raise LatexError(self.path, top.line, f"unbalanced '{{': this brace is not closed before \\end{{{name}}}")
        if isinstance(top, Env):
            raise self.error(start, f"\\end{{{name}}} does not match \\begin{{{top.name}}} on line {top.line}")
        raise self.error(start, f"\\end{{{name}}} without a matching \\begin{{{name}}}")

    def _check_closed(self) -> None:
        if len(self.stack) == 1:
            return
        top = self.stack[-1]
        if isinstance(top, Env):
            raise LatexError(
                self.path, top.line, f"\\begin{{{top.name}}} is never closed (missing \\end{{{top.name}}})"
            )
        raise LatexError(self.path, top.line, "unbalanced '{': this brace is never closed")


# What math may hold where a `$` opens math again: text (`$(a_i < 10^5 \text{ for each $i$})$` is one
# formula), and a TikZ picture whose nodes set math (`$\tikz \node {$x$}; + 1$`, drawn by TeX).
_TEXT_IN_MATH = re.compile(r"\\(?:text[a-z]*|mbox|hbox|emph)\s*\{|(\\tikz)(?![A-Za-z@])")


def _find_math_end(text: str, delim: str, start: int) -> int:
    """Where math that began at ``start`` ends: the first unescaped ``delim`` outside ``\\text{...}``
    and outside a ``\\tikz`` picture."""
    i = start
    while True:
        close = _find_unescaped(text, delim, i)
        if close < 0:
            return -1
        group = _TEXT_IN_MATH.search(text, i, close)
        if group is None:
            return close
        end = inline_picture_end(text, group.end()) if group.group(1) else matching(text, group.end() - 1) + 1
        if end <= 0:
            return close
        i = end


def _after_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def inline_picture_end(text: str, pos: int) -> int:
    """Where a ``\\tikz`` picture whose options (if any) start at ``pos`` ends: after its group, or after
    the first ';' outside braces (``\\tikz[baseline] \\node {a;b};``); -1 when it never ends."""
    i = _after_space(text, pos)
    if text.startswith("[", i):
        i = matching(text, i, "[", "]")
        if i < 0:
            return -1
        i = _after_space(text, i + 1)
    if text.startswith("{", i):
        end = matching(text, i)
        return end + 1 if end >= 0 else -1
    depth = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return -1
        if char == ";" and depth == 0:
            return i + 1
        i += 1
    return -1


# What comes between ``\lstinline`` or ``\mintinline`` and its code: options, and minted's language.
_INLINE_CODE_PREFIX = {
    "lstinline": re.compile(r"[ \t]*(?:\[[^\]\n]*\][ \t]*)?"),
    "mintinline": re.compile(r"[ \t]*(?:\[[^\]\n]*\][ \t]*)?\{[^{}\n]*\}[ \t]*"),
}
INLINE_CODE = frozenset(_INLINE_CODE_PREFIX)


def inline_code(text: str, pos: int, name: str) -> tuple[str, int] | None:
    """The code of a ``\\lstinline`` or ``\\mintinline`` whose name ends at ``pos``, and where it ends:
    in braces (balanced, as written: code has no escapes) or between two of one character, on one
    line; None when it is not closed there."""
    prefix = _INLINE_CODE_PREFIX[name].match(text, pos)
    start = prefix.end() if prefix else pos
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    if start >= line_end:
        return None
    mark = text[start]
    if mark == "{":
        depth = 0
        for i in range(start, line_end):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                return text[start + 1 : i], i + 1
        return None
    if mark.isspace() or mark.isalpha() or mark == "[":
        return None
    close = text.find(mark, start + 1, line_end)
    return (text[start + 1 : close], close + 1) if close >= 0 else None


def matching(text: str, start: int, opening: str = "{", closing: str = "}", *, comments: bool = False) -> int:
    """The index of the ``closing`` that matches the ``opening`` at ``start`` (-1 if none), skipping escaped
    characters, and groups inside brackets (``[a={]}]``). With ``comments``, a ``%`` comment is skipped too,
    as TeX reads source (math and pictures taken raw have none to skip)."""
    depth, i = 0, start
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if comments and char == "%":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i
        elif char == "{":  # a group inside brackets may hold the closing bracket
            inner = matching(text, i, comments=comments)
            if inner < 0:
                return -1
            i = inner
        i += 1
    return -1


def _find_unescaped(text: str, delim: str, start: int) -> int:
    i = start
    while True:
        i = text.find(delim, i)
        if i < 0:
            return -1
        backslashes = 0
        j = i - 1
        while j >= 0 and text[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return i
        i += 1


def _verbatim_options(text: str, pos: int, name: str) -> tuple[str, int]:
    """The ``[language=Python]`` of lstlisting or ``{python}`` of minted, and where the body starts."""
    options = ""
    m = re.compile(r"[ \t]*\[([^\]\n]*)\]").match(text, pos)
    if m and name in ("lstlisting", "minted", "Verbatim"):
        options, pos = m.group(1), m.end()
    if name == "minted":
        m = re.compile(r"[ \t]*\{([^}\n]*)\}").match(text, pos)
        if m:
            options, pos = (options + "," if options else "") + "language=" + m.group(1), m.end()
    return options, pos


def _trim_verbatim(body: str) -> str:
    if body.startswith("\n"):
        body = body[1:]
    elif "\n" in body and not body.split("\n", 1)[0].strip():
        body = body.split("\n", 1)[1]
    return body.rstrip()
