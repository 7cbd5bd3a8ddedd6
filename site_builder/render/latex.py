"""LaTeX write-ups and statements to HTML: one small function per construct, registered in tables.

``render_latex(text, path)`` parses with ``latex_parser`` and renders the tree. Paragraphs are
split on blank lines; block constructs (lists, sections, tables, theorems) close the paragraph
before them. Unknown macros and environments stay visible and produce warnings with their line.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import LatexError
from ..model import Document, Heading, Sample
from . import highlight
from .document import Collector, heading_link, is_local_path, safe_url
from .latex_parser import Cmd, Env, Group, Math, Node, Par, Space, Special, Text, Verbatim, parse_latex, take_option

THEOREMS = {
    "theorem": "Theorem",
    "lemma": "Lemma",
    "corollary": "Corollary",
    "proposition": "Proposition",
    "definition": "Definition",
    "claim": "Claim",
    "remark": "Remark",
    "observation": "Observation",
    "example": "Example",
    "conjecture": "Conjecture",
    "fact": "Fact",
    "note": "Note",
    "exercise": "Exercise",
}
SECTION_LEVELS = {"part": 1, "chapter": 1, "section": 1, "subsection": 2, "subsubsection": 3}
HEADING_OFFSET = 2  # \section is <h3>: the page has <h1> (title) and <h2> (Statement, Editorial)
ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "d": "\u0323",
    "b": "\u0331",
    "r": "\u030a",
    "k": "\u0328",
}
SYMBOLS = {
    "%": "%",
    "&": "&amp;",
    "#": "#",
    "_": "_",
    "$": "$",
    "{": "{",
    "}": "}",
    " ": " ",
    "\n": " ",
    ",": "\u2009",
    ";": "\u2005",
    ":": "\u2005",
    "!": "",
    "-": "",
    "/": "",
    "@": "",
    "textbackslash": "\\",
    "ldots": "\u2026",
    "dots": "\u2026",
    "textellipsis": "\u2026",
    "LaTeX": "L<sup>A</sup>T<sub>E</sub>X",
    "TeX": "T<sub>E</sub>X",
    "textendash": "\u2013",
    "textemdash": "\u2014",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textbar": "|",
    "textless": "&lt;",
    "textgreater": "&gt;",
    "S": "\u00a7",
    "P": "\u00b6",
    "copyright": "\u00a9",
    "dag": "\u2020",
    "ddag": "\u2021",
    "quad": "\u2003",
    "qquad": "\u2003\u2003",
    "enspace": "\u2002",
    "thinspace": "\u2009",
    "textdegree": "\u00b0",
    "ss": "\u00df",
    "o": "\u00f8",
    "O": "\u00d8",
    "ae": "\u00e6",
    "AE": "\u00c6",
    "i": "\u0131",
    "l": "\u0142",
    "L": "\u0141",
    "aa": "\u00e5",
    "AA": "\u00c5",
    "oe": "\u0153",
    "OE": "\u0152",
}
IGNORED = frozenset(
    {
        "maketitle",
        "noindent",
        "indent",
        "centering",
        "raggedright",
        "raggedleft",
        "medskip",
        "bigskip",
        "smallskip",
        "vspace",
        "hspace",
        "label",
        "newpage",
        "clearpage",
        "pagebreak",
        "linebreak",
        "nopagebreak",
        "tableofcontents",
        "vfill",
        "hfill",
        "par",
        "protect",
        "relax",
        "setlength",
        "setcounter",
        "usepackage",
        "documentclass",
        "pagestyle",
        "thispagestyle",
        "small",
        "footnotesize",
        "large",
        "Large",
        "LARGE",
        "normalsize",
        "huge",
        "Huge",
        "scriptsize",
        "tiny",
        "allowbreak",
        "selectfont",
        "bfseries",
        "itshape",
        "ttfamily",
        "rmfamily",
        "sffamily",
        "normalfont",
        "hline",
        "toprule",
        "midrule",
        "bottomrule",
        "cline",
        "thanks",
        "and",
        "leavevmode",
        "strut",
        "null",
        "appendix",
        "sloppy",
        "frenchspacing",
        "onecolumn",
        "twocolumn",
        "author",
        "date",
        "pause",
        "onslide",
        "titlepage",
        "usetheme",
        "usecolortheme",
        "usefonttheme",
        "useinnertheme",
        "useoutertheme",
        "setbeamertemplate",
        "setbeamercolor",
        "setbeamerfont",
        "subtitle",
        "institute",
        "logo",
    }
)
INLINE_TAGS = {
    "textbf": ("<strong>", "</strong>"),
    "emph": ("<em>", "</em>"),
    "textit": ("<em>", "</em>"),
    "textsl": ("<em>", "</em>"),
    "texttt": ("<code>", "</code>"),
    "underline": ("<u>", "</u>"),
    "textsc": ('<span class="smallcaps">', "</span>"),
    "textsf": ('<span class="sans">', "</span>"),
    "textrm": ("", ""),
    "textup": ("", ""),
    "textnormal": ("", ""),
    "mbox": ('<span class="nowrap">', "</span>"),
    "fbox": ('<span class="boxed">', "</span>"),
    "textsuperscript": ("<sup>", "</sup>"),
    "textsubscript": ("<sub>", "</sub>"),
    "enquote": ("\u201c", "\u201d"),
    "uppercase": ("", ""),
    "MakeUppercase": ("", ""),
}
_CONSTANT_IN_MATH = re.compile(r"\\constant\s*\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")
_LIGATURES = re.compile(r"---|--|``|''|`|'|<|>|&|\"")
_LIGATURE_MAP = {
    "---": "\u2014",
    "--": "\u2013",
    "``": "\u201c",
    "''": "\u201d",
    "`": "\u2018",
    "'": "\u2019",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    '"': "&quot;",
}


@dataclass(slots=True)
class Context:
    """State of one rendering: the document's path, collected headings, math, counters and warnings."""

    doc: Collector
    assets: frozenset[str]
    asset_base: str = ""
    constants: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    input_stack: list[str] = field(default_factory=list)
    frame_title: str | None = None  # the title of the last Beamer frame, so a continued frame adds no heading
    theorems: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # env -> (title, counter)
    counters: dict[str, int] = field(default_factory=dict)
    section_numbers: list[int] = field(default_factory=lambda: [0, 0, 0])
    title: str | None = None
    summary: str | None = None
    seen_section: bool = False
    footnotes: list[str] = field(default_factory=list)
    list_depth: dict[str, int] = field(default_factory=lambda: {"enumerate": 0, "itemize": 0})

    def warn_unknown(self, what: str, line: int) -> None:
        self.doc.warn(line, f"unknown {what}; shown as text")


def render_latex(
    text: str,
    path: str,
    *,
    assets: frozenset[str] = frozenset(),
    id_prefix: str = "",
    asset_base: str = "",
    samples: tuple[Sample, ...] = (),
    constants: dict[str, str] | None = None,
    inputs: dict[str, str] | None = None,
) -> tuple[Document, list[tuple[int, str]]]:
    """Render a LaTeX document or fragment. Returns the document and its warnings (line, message).

    ``assets`` are the image files beside the document (``asset_base`` is their folder on the page).
    A problem package's statement may place its ``samples`` with ``\\nextsample`` and
    ``\\remainingsamples`` and use its ``constants`` with ``\\constant{name}``. ``inputs`` are the
    other ``.tex`` files beside it, which ``\\input`` and ``\\include`` inline (nothing outside the folder).

    Raises ``LatexError`` with file and line for unbalanced braces, unclosed environments and
    other input that has no sensible rendering.
    """
    nodes = parse_latex(text, path)
    ctx = Context(
        doc=Collector(path=path, id_prefix=id_prefix, samples=samples),
        assets=assets,
        asset_base=asset_base,
        constants=constants or {},
        inputs=inputs or {},
    )
    ctx.theorems = {name: (title, name) for name, title in THEOREMS.items()}
    body = _split_preamble(nodes, ctx)
    html_text = render_blocks(body, ctx, top=True) + _footnotes(ctx)
    document = Document(
        file=path.rsplit("/", 1)[-1],
        html=html_text,
        toc=tuple(ctx.doc.toc),
        title=ctx.title,
        summary_html=ctx.summary,
        math=tuple(ctx.doc.math),
    )
    return document, ctx.doc.warnings


def _split_preamble(nodes: list[Node], ctx: Context) -> list[Node]:
    """Read \\newtheorem and \\title from the preamble; return the body of the document."""
    for i, node in enumerate(nodes):
        if isinstance(node, Env) and node.name == "document":
            for item in nodes[:i]:
                if isinstance(item, Cmd):
                    _preamble_command(item, ctx)
            return node.children
    return nodes


def _preamble_command(cmd: Cmd, ctx: Context) -> None:
    if cmd.name == "newtheorem":
        name = _plain(cmd.arg(0))
        shared = cmd.option()
        ctx.theorems[name] = (_plain(cmd.arg(1)), None if cmd.star else (_plain(shared) if shared else name))
    elif cmd.name == "title":
        ctx.title = _plain(cmd.arg(0))


# ---------------------------------------------------------------- blocks and paragraphs


def render_blocks(nodes: list[Node], ctx: Context, *, top: bool = False) -> str:
    """Render a sequence of nodes as blocks: paragraphs split on blank lines, block constructs apart."""
    out: list[str] = []
    inline: list[str] = []
    run_in: list[str] = []

    def flush() -> None:
        text = "".join(inline).strip()
        inline.clear()
        if not text:
            return
        if run_in:
            text = f"{run_in.pop()} {text}"
        out.append(f"<p>{text}</p>")
        if top and ctx.summary is None and (ctx.seen_section or not ctx.doc.toc):
            ctx.summary = text

    for node in nodes:
        if isinstance(node, Par):
            flush()
        elif isinstance(node, Cmd) and node.name in ("paragraph", "subparagraph"):
            flush()
            run_in.append(f'<strong class="run-in">{render_inline(node.arg(0), ctx).strip()}</strong>')
        elif _is_block(node):
            flush()
            block = _render_block(node, ctx, top)
            if block:
                out.append(block)
        else:
            inline.append(render_inline([node], ctx))
    flush()
    if run_in:
        out.append(f"<p>{run_in.pop()}</p>")
    return "\n".join(out)


def _is_block(node: Node) -> bool:
    if isinstance(node, Env):
        return node.name not in INLINE_ENVS
    if isinstance(node, Verbatim):
        return not node.inline
    return isinstance(node, Cmd) and (node.name in SECTION_LEVELS or node.name in BLOCK_COMMANDS)


def _render_block(node: Node, ctx: Context, top: bool) -> str:
    if isinstance(node, Verbatim):
        return _verbatim_block(node)
    if isinstance(node, Cmd):
        block = BLOCK_COMMANDS.get(node.name)
        return block(node, ctx) if block is not None else _section(node, ctx, top)
    assert isinstance(node, Env)
    handler = ENVIRONMENTS.get(node.name)
    if handler is not None:
        return handler(node, ctx)
    if node.name in ctx.theorems:
        return _theorem(node, ctx)
    ctx.warn_unknown(f"environment \\begin{{{node.name}}}", node.line)
    name = html.escape(node.name)
    return (
        f'<div class="unknown-env"><code class="unknown">\\begin{{{name}}}</code>\n'
        f'{render_blocks(node.children, ctx)}\n<code class="unknown">\\end{{{name}}}</code></div>'
    )


def _section(cmd: Cmd, ctx: Context, top: bool) -> str:
    level = SECTION_LEVELS[cmd.name]
    title = render_inline(cmd.arg(0), ctx).strip()
    number = ""
    if not cmd.star and level <= 3:
        nums = ctx.section_numbers
        nums[level - 1] += 1
        for deeper in range(level, 3):
            nums[deeper] = 0
        number = ".".join(str(n) for n in nums[:level])
    shown = f'<span class="secnum">{number}</span> {title}' if number else title
    if top and level == 1:
        ctx.seen_section = True
    return _heading(level, _plain(cmd.arg(0)), shown, ctx)


def _heading(level: int, plain: str, shown: str, ctx: Context) -> str:
    anchor = ctx.doc.unique_id(plain)
    ctx.doc.toc.append(Heading(level, anchor, shown))
    tag = f"h{min(level + HEADING_OFFSET, 6)}"
    return f'<{tag} id="{anchor}">{shown}{heading_link(anchor)}</{tag}>'


# ---------------------------------------------------------------- inline content


def render_inline(nodes: list[Node], ctx: Context) -> str:
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            parts.append(_ligatures(node.text))
        elif isinstance(node, (Space, Par)):
            parts.append(" ")
        elif isinstance(node, Special):
            parts.append({"~": "&nbsp;", "&": "&amp;"}.get(node.char, node.char))
        elif isinstance(node, Group):
            parts.append(render_inline(node.children, ctx))
        elif isinstance(node, Math):
            tex = _CONSTANT_IN_MATH.sub(lambda m: ctx.constants.get(m.group(1), m.group()), node.tex)
            parts.append(ctx.doc.math_slot(tex, node.display, node.line))
        elif isinstance(node, Verbatim):
            parts.append(f"<code>{html.escape(node.text)}</code>" if node.inline else _verbatim_block(node))
        elif isinstance(node, Cmd):
            parts.append(_command(node, ctx))
        elif isinstance(node, Env):
            parts.append(_inline_env(node, ctx))
    return "".join(parts)


def _ligatures(text: str) -> str:
    return _LIGATURES.sub(lambda m: _LIGATURE_MAP[m.group()], text)


def _command(cmd: Cmd, ctx: Context) -> str:
    name = cmd.name
    if name in INLINE_TAGS:
        start, end = INLINE_TAGS[name]
        inner = render_inline(cmd.arg(0), ctx)
        return f"{start}{inner.upper() if 'pper' in name else inner}{end}"
    if name in ACCENTS and cmd.args:
        return unicodedata.normalize("NFC", html.escape(_plain(cmd.arg(0))) + ACCENTS[name])
    if name in SYMBOLS:
        return SYMBOLS[name]
    handler = COMMANDS.get(name)
    if handler is not None:
        return handler(cmd, ctx)
    if name in IGNORED:
        return ""
    ctx.warn_unknown(f"macro \\{name}", cmd.line)
    shown = html.escape(f"\\{name}{'*' if cmd.star else ''}")
    return f'<code class="unknown">{shown}</code>'


def _line_break(cmd: Cmd, ctx: Context) -> str:
    return "<br>\n"


def _url(cmd: Cmd, ctx: Context) -> str:
    url = _plain(cmd.arg(0))
    return _link(url, html.escape(url), cmd, ctx)


def _href(cmd: Cmd, ctx: Context) -> str:
    return _link(_plain(cmd.arg(0)), render_inline(cmd.arg(1), ctx), cmd, ctx)


def _link(url: str, label: str, cmd: Cmd, ctx: Context) -> str:
    target = safe_url(url)
    if target is None:
        ctx.doc.warn(cmd.line, f"link to {url!r} dropped: only http, https, mailto and relative links are allowed")
        return label
    return f'<a href="{html.escape(target)}">{label}</a>'


def _title(cmd: Cmd, ctx: Context) -> str:
    ctx.title = _plain(cmd.arg(0))
    return ""


def _qed(cmd: Cmd, ctx: Context) -> str:
    return '<span class="qed" role="img" aria-label="end of proof">\u220e</span>'


def _footnote(cmd: Cmd, ctx: Context) -> str:
    ctx.footnotes.append(render_inline(cmd.arg(0), ctx).strip())
    n = len(ctx.footnotes)
    prefix = ctx.doc.id_prefix
    return f'<sup class="fnref"><a id="{prefix}fnref{n}" href="#{prefix}fn{n}">{n}</a></sup>'


def _footnotes(ctx: Context) -> str:
    if not ctx.footnotes:
        return ""
    prefix = ctx.doc.id_prefix
    items = "".join(
        f'<li id="{prefix}fn{n}">{text} <a href="#{prefix}fnref{n}" aria-label="Back to text">\u21a9</a></li>'
        for n, text in enumerate(ctx.footnotes, 1)
    )
    return f'\n<section class="footnotes" aria-label="Footnotes"><ol>{items}</ol></section>'


def _includegraphics(cmd: Cmd, ctx: Context) -> str:
    name = _plain(cmd.arg(0))
    found = _find_asset(name, ctx.assets)
    if not is_local_path(name):
        raise LatexError(ctx.doc.path, cmd.line, f"\\includegraphics{{{name}}} points outside the problem folder")
    if found is None:
        ctx.doc.warn(cmd.line, f"image {name!r} not found in the problem folder")
        return f'<span class="missing-image">[image: {html.escape(name)}]</span>'
    return f'<img src="{html.escape(ctx.asset_base + found)}" alt="{html.escape(_caption_alt(name))}" loading="lazy">'


def _find_asset(name: str, assets: frozenset[str]) -> str | None:
    name = name.removeprefix("./")
    if name in assets:
        return name
    for ext in (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp"):
        if name + ext in assets:
            return name + ext
    return None


def _caption_alt(name: str) -> str:
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_]+", " ", stem)


def _caption(cmd: Cmd, ctx: Context) -> str:
    return f"<figcaption>{render_inline(cmd.arg(0), ctx).strip()}</figcaption>"


def _multicolumn(cmd: Cmd, ctx: Context) -> str:
    return render_inline(cmd.arg(2), ctx)


def _ref(cmd: Cmd, ctx: Context) -> str:
    ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{_plain(cmd.arg(0))}}}: cross-references are not supported; shown as text")
    return f'<code class="unknown">{html.escape(_plain(cmd.arg(0)))}</code>'


def _item_outside_list(cmd: Cmd, ctx: Context) -> str:
    ctx.doc.warn(cmd.line, "\\item outside a list")
    return ""


def _inline_code_command(cmd: Cmd, ctx: Context) -> str:
    return f"<code>{html.escape(_plain(cmd.arg(0)))}</code>"


def _problemname(cmd: Cmd, ctx: Context) -> str:
    """A package statement's ``\\problemname{...}``: the title, shown by the page itself."""
    ctx.title = _plain(cmd.arg(0)) or ctx.title
    return ""


def _constant(cmd: Cmd, ctx: Context) -> str:
    name = _plain(cmd.arg(0))
    if name not in ctx.constants:
        ctx.doc.warn(cmd.line, f"\\constant{{{name}}}: problem.yaml defines no constant {name!r}")
        return f'<code class="unknown">{html.escape(name)}</code>'
    return html.escape(ctx.constants[name])


def _alert(cmd: Cmd, ctx: Context) -> str:
    return f'<strong class="alert">{render_inline(cmd.arg(0), ctx)}</strong>'


def _overlay_content(cmd: Cmd, ctx: Context) -> str:
    """``\\only``, ``\\uncover``...: a page shows the last slide of a frame, so the content is shown."""
    return render_inline(cmd.arg(0), ctx)


def _frametitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-title"><strong>{render_inline(cmd.arg(0), ctx).strip()}</strong></p>'


def _framesubtitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-subtitle">{render_inline(cmd.arg(0), ctx).strip()}</p>'


COMMANDS: dict[str, Callable[[Cmd, Context], str]] = {
    "\\": _line_break,
    "newline": _line_break,
    "url": _url,
    "href": _href,
    "title": _title,
    "qed": _qed,
    "qedhere": _qed,
    "footnote": _footnote,
    "includegraphics": _includegraphics,
    "caption": _caption,
    "multicolumn": _multicolumn,
    "ref": _ref,
    "eqref": _ref,
    "cite": _ref,
    "pageref": _ref,
    "nameref": _ref,
    "item": _item_outside_list,
    "lstinline": _inline_code_command,
    "mintinline": _inline_code_command,
    "problemname": _problemname,
    "constant": _constant,
    "alert": _alert,
    "structure": _alert,
    **dict.fromkeys(("only", "uncover", "visible", "invisible", "alt", "temporal"), _overlay_content),
    "frametitle": _frametitle,
    "framesubtitle": _framesubtitle,
}


def _illustration(cmd: Cmd, ctx: Context) -> str:
    """``\\illustration{width}{file}{caption}``: a figure beside the text, width a fraction of the line."""
    try:
        width = min(max(float(_plain(cmd.arg(0))), 0.1), 1.0)
    except ValueError:
        ctx.doc.warn(cmd.line, f"\\illustration: width {_plain(cmd.arg(0))!r} is not a number; using 0.3")
        width = 0.3
    image = _includegraphics(Cmd("includegraphics", cmd.line, args=[cmd.args[1]]), ctx)
    caption = render_inline(cmd.arg(2), ctx).strip()
    if caption:
        plain = html.escape(re.sub(r"<[^>]+>", "", caption), quote=True)
        image = re.sub(r'alt="[^"]*"', f'alt="{plain}"', image, count=1)
    figcaption = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="illustration" style="width: {width * 100:g}%">{image}{figcaption}</figure>'


def _nextsample(cmd: Cmd, ctx: Context) -> str:
    return ctx.doc.next_sample(cmd.line)


def _remainingsamples(cmd: Cmd, ctx: Context) -> str:
    return ctx.doc.remaining_samples()


MAX_INPUT_DEPTH = 8


def _input(cmd: Cmd, ctx: Context) -> str:
    """``\\input{file}``: another .tex file of the problem folder, inlined; never a file outside it."""
    name = _plain(cmd.arg(0))
    if not is_local_path(name):
        raise LatexError(ctx.doc.path, cmd.line, f"\\{cmd.name}{{{name}}} points outside the problem folder; refused")
    found = next((n for n in (name, name + ".tex") if n in ctx.inputs), None)
    if found is None:
        ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{name}}}: no such .tex file beside this one; left out")
        return f'<p class="missing">[\\{cmd.name}{{{html.escape(name)}}}: file not found]</p>'
    if found in ctx.input_stack or len(ctx.input_stack) >= MAX_INPUT_DEPTH:
        chain = " -> ".join([*ctx.input_stack, found])
        raise LatexError(ctx.doc.path, cmd.line, f"\\{cmd.name} nests too deep or loops: {chain}")
    nodes = parse_latex(ctx.inputs[found], ctx.doc.path.rsplit("/", 1)[0] + "/" + found)
    before = len(ctx.doc.warnings)
    ctx.input_stack.append(found)
    try:
        body = render_blocks(nodes, ctx)
    finally:
        ctx.input_stack.pop()
    ctx.doc.warnings[before:] = [(cmd.line, f"in {found}, line {n}: {m}") for n, m in ctx.doc.warnings[before:]]
    return body


BLOCK_COMMANDS: dict[str, Callable[[Cmd, Context], str]] = {
    "input": _input,
    "include": _input,
    "illustration": _illustration,
    "nextsample": _nextsample,
    "remainingsamples": _remainingsamples,
    "frametitle": _frametitle,
    "framesubtitle": _framesubtitle,
}


# ---------------------------------------------------------------- environments


def _list(env: Env, ctx: Context) -> str:
    items = _split_items(env, ctx)
    depth = ctx.list_depth.get(env.name, 0)
    if env.name in ctx.list_depth:
        ctx.list_depth[env.name] = depth + 1
    try:
        rendered = [(_plain_label(opt, ctx), _item_body(body, ctx)) for opt, body in items]
    finally:
        if env.name in ctx.list_depth:
            ctx.list_depth[env.name] = depth
    if env.name == "description":
        inner = "".join(f"<dt>{label or ''}</dt><dd>{body}</dd>\n" for label, body in rendered)
        return f"<dl>\n{inner}</dl>"
    lis = "".join(
        (
            f'<li class="labelled"><span class="item-label">{label}</span> {body}</li>\n'
            if label is not None
            else f"<li>{body}</li>\n"
        )
        for label, body in rendered
    )
    if env.name == "enumerate":
        kind = ("1", "a", "i", "A")[depth % 4]
        type_attr = "" if kind == "1" else f' type="{kind}"'
        return f'<ol class="enum-{depth % 4 + 1}"{type_attr}>\n{lis}</ol>'
    return f'<ul class="items-{depth + 1}">\n{lis}</ul>'


def _split_items(env: Env, ctx: Context) -> list[tuple[list[Node] | None, list[Node]]]:
    items: list[tuple[list[Node] | None, list[Node]]] = []
    for node in env.children:
        if isinstance(node, Cmd) and node.name == "item":
            items.append((node.option(), []))
        elif items:
            items[-1][1].append(node)
        elif not isinstance(node, (Space, Par)):
            ctx.doc.warn(getattr(node, "line", env.line), f"text before the first \\item in {env.name}; ignored")
    return items


def _plain_label(option: list[Node] | None, ctx: Context) -> str | None:
    return None if option is None else render_inline(option, ctx).strip()


def _item_body(nodes: list[Node], ctx: Context) -> str:
    body = render_blocks(nodes, ctx)
    if body.startswith("<p>") and body.endswith("</p>") and body.count("<p>") == 1:
        return body[3:-4]  # a tight item: one paragraph, no wrapper
    return body


def _theorem(env: Env, ctx: Context) -> str:
    title, counter = ctx.theorems[env.name]
    head = title
    if counter is not None:
        ctx.counters[counter] = ctx.counters.get(counter, 0) + 1
        head = f"{title} {ctx.counters[counter]}"
    note = take_option(env.children, ctx.doc.path, env)
    if note is not None:
        head += f" ({render_inline(note, ctx).strip()})"
    anchor = ctx.doc.unique_id(head)
    body = _with_run_in(render_blocks(env.children, ctx), f'<strong class="thm-head">{head}.</strong>')
    return f'<div class="theorem theorem-{html.escape(env.name)}" id="{anchor}">\n{body}\n</div>'


def _proof(env: Env, ctx: Context) -> str:
    note = take_option(env.children, ctx.doc.path, env)
    head = render_inline(note, ctx).strip() if note is not None else "Proof"
    body = render_blocks(env.children, ctx)
    body = _with_run_in(body, f'<em class="proof-head">{head}.</em>')
    if 'class="qed"' not in body:
        qed = '<span class="qed" role="img" aria-label="end of proof">\u220e</span>'
        body = body[:-4] + f" {qed}</p>" if body.endswith("</p>") else f"{body}\n<p>{qed}</p>"
    return f'<div class="proof">\n{body}\n</div>'


def _with_run_in(body: str, head: str) -> str:
    """Put a run-in heading at the start of the first paragraph."""
    if body.startswith("<p>"):
        return f"<p>{head} {body[3:]}"
    return f"<p>{head}</p>\n{body}"


def _tabular(env: Env, ctx: Context) -> str:
    aligns = _column_aligns(_plain(env.arg(0)))
    rows: list[tuple[list[list[Node]], bool]] = [([[]], False)]  # cells, ruled below
    for node in env.children:
        cells = rows[-1][0]
        if isinstance(node, Special) and node.char == "&":
            cells.append([])
        elif isinstance(node, Cmd) and node.name == "\\":
            rows.append(([[]], False))
        elif isinstance(node, Cmd) and node.name in ("hline", "midrule", "toprule", "bottomrule"):
            if len(rows) > 1 and _is_empty_row(rows[-1][0]):
                previous = rows[-2]
                rows[-2] = (previous[0], True)
        else:
            cells[-1].append(node)
    body_rows = [(cells, ruled) for cells, ruled in rows if not _is_empty_row(cells)]
    has_head = len(body_rows) > 1 and body_rows[0][1]
    parts = []
    for index, (cells, _) in enumerate(body_rows):
        tag = "th" if has_head and index == 0 else "td"
        tds = "".join(_cell(tag, cell, aligns, i, ctx) for i, cell in enumerate(cells))
        row = f"<tr>{tds}</tr>"
        parts.append(f"<thead>{row}</thead><tbody>" if tag == "th" else row)
    body = "\n".join(parts) + ("</tbody>" if has_head else "")
    if not has_head:
        body = f"<tbody>{body}</tbody>"
    return f'<div class="table-wrap"><table>\n{body}\n</table></div>'


def _is_empty_row(cells: list[list[Node]]) -> bool:
    return len(cells) == 1 and all(isinstance(n, (Space, Par)) for n in cells[0])


def _cell(tag: str, nodes: list[Node], aligns: list[str], index: int, ctx: Context) -> str:
    span = ""
    align = aligns[index] if index < len(aligns) else "left"
    multi = next((n for n in nodes if isinstance(n, Cmd) and n.name == "multicolumn"), None)
    if multi is not None:
        span = f' colspan="{_plain(multi.arg(0)) or 1}"'
        align = (_column_aligns(_plain(multi.arg(1))) or ["left"])[0]
    style = f' class="{align}"' if align != "left" else ""
    return f"<{tag}{span}{style}>{render_inline(nodes, ctx).strip()}</{tag}>"


def _column_aligns(spec: str) -> list[str]:
    spec = re.sub(r"[@!><]\{[^}]*\}|\{[^}]*\}", "", spec)
    return [{"l": "left", "c": "center", "r": "right"}.get(ch, "left") for ch in spec if ch.isalpha()]


def _figure(env: Env, ctx: Context) -> str:
    inner = render_blocks(env.children, ctx)
    caption = re.search(r"<figcaption>.*?</figcaption>", inner, re.S)
    body = inner.replace(caption.group(), "") if caption else inner
    if caption:
        alt = re.sub(r"<[^>]+>", "", caption.group())
        body = re.sub(r'alt="[^"]*"', f'alt="{html.escape(html.unescape(alt), quote=True)}"', body, count=1)
    body = re.sub(r"<p>\s*</p>", "", body).strip()
    return f"<figure>\n{body}\n{caption.group() if caption else ''}\n</figure>"


def _div(css: str) -> Callable[[Env, Context], str]:
    """An environment shown as its body in a ``<div class="css">`` (center, abstract, Beamer columns)."""

    def render(env: Env, ctx: Context) -> str:
        return f'<div class="{css}">\n{render_blocks(env.children, ctx)}\n</div>'

    return render


def _quote(env: Env, ctx: Context) -> str:
    return f"<blockquote>\n{render_blocks(env.children, ctx)}\n</blockquote>"


def _transparent(env: Env, ctx: Context) -> str:
    return render_blocks(env.children, ctx)


def _verbatim_block(node: Verbatim) -> str:
    if node.env == "comment":
        return ""
    language = None
    m = re.search(r"language\s*=\s*\{?([A-Za-z0-9+#]+)", node.options)
    if m:
        language = {"c++": "cpp", "python3": "python"}.get(m.group(1).lower(), m.group(1).lower())
    return highlight.render_block(node.text, language)


def _frame(env: Env, ctx: Context) -> str:
    """A Beamer frame: its title becomes a section (a continued frame with the same title adds none)."""
    children = env.children
    title_nodes = env.arg(0)
    if not title_nodes:
        found = next((n for n in children if isinstance(n, Cmd) and n.name == "frametitle"), None)
        if found is not None:
            title_nodes = found.arg(0)
            children = [n for n in children if n is not found]
    body = render_blocks(children, ctx)
    title = _plain(title_nodes)
    if not title or title == ctx.frame_title:
        return f'<div class="frame">\n{body}\n</div>' if body.strip() else ""
    ctx.frame_title = title
    heading = _heading(1, title, render_inline(title_nodes, ctx).strip(), ctx)
    return f'<section class="frame">\n{heading}\n{body}\n</section>'


def _beamer_block(env: Env, ctx: Context) -> str:
    title = render_inline(env.arg(0), ctx).strip()
    head = f'<p class="block-title">{title}</p>\n' if title else ""
    return f'<div class="block block-{env.name}">\n{head}{render_blocks(env.children, ctx)}\n</div>'


def _io_section(env: Env, ctx: Context) -> str:
    """The package format's ``Input``, ``Output`` and ``Interaction`` environments: an unnumbered section."""
    return _heading(1, env.name, env.name, ctx) + "\n" + render_blocks(env.children, ctx)


def _inline_env(env: Env, ctx: Context) -> str:
    return render_inline(env.children, ctx)


ENVIRONMENTS: dict[str, Callable[[Env, Context], str]] = {
    "itemize": _list,
    "enumerate": _list,
    "description": _list,
    "proof": _proof,
    "tabular": _tabular,
    "tabular*": _tabular,
    "tabularx": _tabular,
    "figure": _figure,
    "figure*": _figure,
    "table": _div("center"),
    "center": _div("center"),
    "flushleft": _transparent,
    "flushright": _transparent,
    "minipage": _transparent,
    "multicols": _transparent,
    "quote": _quote,
    "quotation": _quote,
    "abstract": _div("abstract"),
    "document": _transparent,
    "frame": _frame,
    "block": _beamer_block,
    "alertblock": _beamer_block,
    "exampleblock": _beamer_block,
    "columns": _div("columns"),
    "column": _div("column"),
    "Input": _io_section,
    "Output": _io_section,
    "Interaction": _io_section,
}
INLINE_ENVS = frozenset({"math"})


def _plain(nodes: list[Node] | None) -> str:
    """The plain text of nodes (for ids, file names, options)."""
    if not nodes:
        return ""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            parts.append(node.text)
        elif isinstance(node, (Space, Par)):
            parts.append(" ")
        elif isinstance(node, Special):
            parts.append(node.char)
        elif isinstance(node, Group):
            parts.append(_plain(node.children))
        elif isinstance(node, Math):
            parts.append(node.tex)
        elif isinstance(node, Verbatim):
            parts.append(node.text)
        elif isinstance(node, Cmd):
            parts.append(_plain_command(node))
    return "".join(parts).strip()


def _plain_command(cmd: Cmd) -> str:
    if cmd.name in SYMBOLS:
        return html.unescape(re.sub(r"<[^>]+>", "", SYMBOLS[cmd.name]))
    if cmd.args:
        return _plain(cmd.arg(0))
    return ""
