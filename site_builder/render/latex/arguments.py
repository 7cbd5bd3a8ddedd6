"""The parser's second pass: the arguments each command and environment takes (its spec), attached
to it from the nodes that follow (pure)."""

from __future__ import annotations

from ...errors import LatexError
from .nodes import Arg, Cmd, Env, Group, Math, Node, Par, Space, Special, Text

# Argument specs: "[" an optional argument, "{" a mandatory one, "(" an optional one in braces,
# "<" a Beamer overlay specification (``<2->``), kept as the command's or environment's ``overlay``.
COMMAND_ARGS: dict[str, str] = {
    **dict.fromkeys(("section", "subsection", "subsubsection", "chapter", "part"), "[{"),
    **dict.fromkeys(("paragraph", "subparagraph"), "[{"),
    **dict.fromkeys(
        (
            "textbf",
            "textit",
            "emph",
            "texttt",
            "underline",
            "textsc",
            "textsf",
            "textrm",
            "textup",
            "textsl",
            "textnormal",
            "mbox",
            "fbox",
            "url",
            "title",
            "author",
            "date",
            "caption",
            "footnote",
            "label",
            "ref",
            "eqref",
            "cite",
            "hspace",
            "vspace",
            "enquote",
            "textsuperscript",
            "textsubscript",
            "thanks",
            "pageref",
            "nameref",
            "autoref",
            "cref",
            "Cref",
            "uppercase",
            "MakeUppercase",
        ),
        "{",
    ),
    "href": "{{",
    **dict.fromkeys(("makebox", "framebox"), "[[{"),  # [width][position]{text}
    "raisebox": "{[[{",  # {lift}[height][depth]{text}
    "colorbox": "[{{",
    "fcolorbox": "[{{{",
    **dict.fromkeys(("phantom", "hphantom", "vphantom", "sout", "xout"), "{"),
    "textcolor": "[{{",
    "color": "[{",
    "footnotetext": "[{",  # [number]{text}: a footnote whose mark the text placed itself
    "fontsize": "{{",  # {size}{skip}: a size a page that flows does not keep
    "includegraphics": "<[{",
    "item": "<[<",
    # Beamer slides
    **dict.fromkeys(("frametitle", "framesubtitle"), "<[{"),
    **dict.fromkeys(("alert", "structure", "only", "uncover", "visible", "invisible"), "<{"),
    "alt": "<{{",
    "temporal": "<{{{",
    **dict.fromkeys(("textbf", "textit", "emph", "texttt"), "<{"),
    "onslide": "<(",
    "pause": "[",
    **dict.fromkeys(("usetheme", "usecolortheme", "usefonttheme", "useinnertheme", "useoutertheme"), "[{"),
    **dict.fromkeys(("setbeamertemplate", "setbeamercolor", "setbeamerfont"), "{[{"),
    **dict.fromkeys(("subtitle", "institute", "logo"), "[{"),
    # The problem package format's statement macros
    "problemname": "{",
    "illustration": "{{{",
    "lstinputlisting": "[{",
    "inputminted": "[{{",
    # problemtools' problemset.cls
    **dict.fromkeys(("displaysample", "includesample", "displaysampleinteraction"), "{"),
    **dict.fromkeys(("sampletable", "sampletableinteractive"), "{{{{"),
    **dict.fromkeys(("formatsampleheader", "pandocbounded"), "{"),
    **dict.fromkeys(("scalerel", "stretchrel"), "[{{"),
    "constant": "{",
    "constraints": "{",
    "input": "{",
    "include": "{",
    "\\": "[",
    "newtheorem": "{[{[",
    "multicolumn": "{{{",
    "setlength": "{{",
    "addtolength": "{{",
    "newsavebox": "{",
    "sbox": "{{",
    "savebox": "{[[{",
    "newcolumntype": "{[{",
    "lstdefinestyle": "{{",
    "lstset": "{",
    **dict.fromkeys(("SI", "qty", "numrange"), "[{{"),
    **dict.fromkeys(("si", "unit", "num"), "[{"),
    **dict.fromkeys(("SIrange", "qtyrange"), "[{{{"),
    "setcounter": "{{",
    "usepackage": "[{",
    **dict.fromkeys(("usetikzlibrary", "usepgfplotslibrary", "pgfplotsset", "tikzset"), "{"),
    "definecolor": "[{{{",
    "colorlet": "{{",
    "documentclass": "[{",
    **dict.fromkeys(("'", "`", "^", '"', "~", "=", ".", "u", "v", "H", "c", "d", "b", "r", "k"), "{"),
}
ENV_ARGS: dict[str, str] = {
    "tabular": "[{",
    "tabular*": "{[{",
    "tabularx": "{{",
    "array": "[{",
    "figure": "[",
    "figure*": "[",
    "table": "[",
    "minipage": "[{",
    "wrapfigure": "[{[{",
    **dict.fromkeys(("subfigure", "subtable"), "[{"),
    "multicols": "{",
    "list": "{{",  # {label}{spacing}
    "frame": "<[(",
    **dict.fromkeys(("block", "alertblock", "exampleblock"), "<{<"),
    **dict.fromkeys(("overprint", "onlyenv", "altenv", "itemize", "enumerate", "description"), "<["),
    "columns": "[",
    **dict.fromkeys(("textblock", "textblock*"), "{"),
    "column": "[{",
}
RAW_FIRST_ARG = frozenset({"url", "href"})


def attach_all(root: Group, path: str) -> None:
    """Attach arguments to commands and environments, for every container, without recursion."""
    work: list[list[Node]] = [root.children]
    while work:
        children = work.pop()
        children[:] = _attach(children, path)
        for node in children:
            if isinstance(node, Group):
                work.append(node.children)
            elif isinstance(node, Env):
                _take_env_args(node, path)
                work.append(node.children)
                work.extend(a.nodes for a in node.args)
            elif isinstance(node, Cmd):
                work.extend(a.nodes for a in node.args)


def _attach(children: list[Node], path: str) -> list[Node]:
    out: list[Node] = []
    i = 0
    while i < len(children):
        node = children[i]
        i += 1
        if isinstance(node, Cmd) and node.name in COMMAND_ARGS:
            spec = COMMAND_ARGS[node.name]
            done = len(node.args)
            i = _take_args(node.args, spec[done:], children, i, path, node)
        out.append(node)
    return out


def _take_env_args(env: Env, path: str) -> None:
    spec = ENV_ARGS.get(env.name, "")
    if spec:
        rest = _take_args(env.args, spec, env.children, 0, path, env)
        del env.children[:rest]


def _take_args(args: list[Arg], spec: str, children: list[Node], i: int, path: str, owner: Cmd | Env) -> int:
    for kind in spec:
        if kind == "<":
            i, found = _read_overlay(children, i)
            owner.overlay = found or owner.overlay
            continue
        j = i
        while j < len(children) and isinstance(children[j], Space):
            j += 1
        if kind == "[":
            if j < len(children) and _is_special(children[j], "["):
                close = _matching_bracket(children, j)
                if close < 0:
                    raise LatexError(path, owner.line, f"{_owner_name(owner)}: optional argument '[' is never closed")
                args.append(Arg(True, children[j + 1 : close]))
                i = close + 1
            continue
        if kind == "(":
            group = children[j] if j < len(children) else None
            if isinstance(group, Group):
                args.append(Arg(False, group.children))  # braced, though it may be left out
                i = j + 1
            continue
        if j >= len(children):
            raise LatexError(path, owner.line, f"{_owner_name(owner)} expects an argument in braces")
        node = children[j]
        if isinstance(node, Group):
            args.append(Arg(False, node.children))
        elif isinstance(node, Text):
            args.append(Arg(False, [Text(node.text[0], node.line)]))
            if len(node.text) > 1:
                children.insert(j + 1, Text(node.text[1:], node.line))
        elif isinstance(node, (Cmd, Special, Math)):
            args.append(Arg(False, [node]))
        else:
            raise LatexError(path, owner.line, f"{_owner_name(owner)} expects an argument in braces")
        i = j + 1
    return i


def _read_overlay(children: list[Node], i: int) -> tuple[int, str]:
    """A Beamer overlay specification (``<2->``, ``<+->``) right after a command, taken out of the text."""
    if i >= len(children):
        return i, ""
    node = children[i]
    if not isinstance(node, Text) or not node.text.startswith("<"):
        return i, ""
    end = node.text.find(">")
    if end < 0 or end > 40:
        return i, ""
    spec, rest = node.text[1:end], node.text[end + 1 :]
    if rest:
        children[i] = Text(rest, node.line)
        return i, spec
    return i + 1, spec


def take_option(children: list[Node], path: str, owner: Cmd | Env) -> list[Node] | None:
    """Remove and return a leading ``[...]`` from ``children`` (for environments defined at run time)."""
    args: list[Arg] = []
    rest = _take_args(args, "[", children, 0, path, owner)
    if not args:
        return None
    del children[:rest]
    return args[0].nodes


def _is_special(node: Node, char: str) -> bool:
    return isinstance(node, Special) and node.char == char


def _matching_bracket(children: list[Node], start: int) -> int:
    depth = 0
    for k in range(start, len(children)):
        node = children[k]
        if isinstance(node, Par):
            return -1
        if _is_special(node, "["):
            depth += 1
        elif _is_special(node, "]"):
            depth -= 1
            if depth == 0:
                return k
    return -1


def _owner_name(owner: Cmd | Env) -> str:
    return f"\\{owner.name}" if isinstance(owner, Cmd) else f"\\begin{{{owner.name}}}"
