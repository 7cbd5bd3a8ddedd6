"""The core of the LaTeX renderer: blocks and paragraphs, inline content, sections, and the
registries of commands and environments that the construct families (the other modules) fill."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from ...model import Heading, TexPicture
from .. import highlight
from ..document import Assets, Collector, heading_link
from .macros import Macros
from .nodes import Cmd, Env, Group, Math, Node, Par, Space, Special, Text, Verbatim
from .overlays import PICTURES, picture_at_slide, shown
from .parser import MATH_ENVS
from .refs import Target, number_equations
from .symbols import _LIGATURE_MAP, _LIGATURES, ACCENTS, IGNORED, INLINE_TAGS, SWITCHES, SYMBOLS, constants_in_math

# Filled by the construct families (see ``__init__.py``): a name's handler.
COMMANDS: dict[str, Callable[[Cmd, Context], str]] = {}  # inline commands
BLOCK_COMMANDS: dict[str, Callable[[Cmd, Context], str]] = {}  # commands that stand as blocks
ENVIRONMENTS: dict[str, Callable[[Env, Context], str]] = {}
# Commands that show some of their arguments (``\only``, ``\alt``...): which nodes. Inline, or as blocks
# when those hold blocks (``\onslide<2->{\begin{block}...}``).
HOLDERS: dict[str, Callable[[Cmd, Context], list[Node]]] = {}
# Rewrites of math before Temml reads it, for commands Temml does not know (``\SI`` in math).
MATH_FILTERS: list[Callable[[str], str]] = []
# The handler of every theorem-like environment the document declares (not a name a document can use).
THEOREM: dict[str, Callable[[Env, Context], str]] = {}


SECTION_LEVELS = {"part": 1, "chapter": 1, "section": 1, "subsection": 2, "subsubsection": 3}


HEADING_OFFSET = 2  # \section is <h3>: the page has <h1> (title) and <h2> (Statement, Editorial)


@dataclass(slots=True)
class Context:
    """State of one rendering: the document's path, collected headings, math, counters and warnings."""

    doc: Collector
    assets: Assets
    asset_base: str = ""
    constants: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    folder: str = ""  # the document's folder in the archive: how far up ``\input`` may reach
    macros: Macros = field(default_factory=Macros)
    input_stack: list[str] = field(default_factory=list)
    inlined: int = 0  # characters of TeX that ``\input`` has inlined so far
    frame_title: str | None = None  # the title of the last Beamer frame, so a continued frame adds no heading
    slide: int | None = None  # in a Beamer frame: its last slide, the one the page shows
    labels: dict[str, Target] = field(default_factory=dict)  # \label keys, for \ref
    label_target: Target | None = None  # what a \label names here: the last numbered thing
    float_kind: str = ""  # "figure" or "table" inside one: what a \caption numbers
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
        elif isinstance(node, Group) and any(_is_block(child) for child in node.children):
            flush()  # a group holding blocks (``\onslide<2->{\begin{block}...}``) is blocks itself
            out.append(render_blocks(node.children, ctx))
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
    if isinstance(node, Cmd) and node.name in HOLDERS:
        return any(_is_block(child) for arg in node.args for child in arg.nodes)
    return isinstance(node, Cmd) and (node.name in SECTION_LEVELS or node.name in BLOCK_COMMANDS)


def _render_block(node: Node, ctx: Context, top: bool) -> str:
    if isinstance(node, Verbatim) and node.env in PICTURES:
        return _picture(node, ctx)
    if isinstance(node, Verbatim):
        return _verbatim_block(node)
    if isinstance(node, Cmd) and node.name in HOLDERS:
        return render_blocks(HOLDERS[node.name](node, ctx), ctx)
    if isinstance(node, Cmd):
        block = BLOCK_COMMANDS.get(node.name)
        return block(node, ctx) if block is not None else _section(node, ctx, top)
    assert isinstance(node, Env)
    if node.overlay and not shown(node.overlay, ctx.slide):
        return ""  # not on the frame's last slide
    handler = ENVIRONMENTS.get(node.name)
    if handler is not None:
        return handler(node, ctx)
    if node.name in ctx.theorems:
        return THEOREM["theorem"](node, ctx)
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
    heading = _heading(level, _plain(cmd.arg(0)), shown, ctx)
    ctx.label_target = Target(number, ctx.doc.toc[-1].id, "section")
    return heading


def _heading(level: int, plain: str, shown: str, ctx: Context) -> str:
    anchor = ctx.doc.unique_id(plain)
    ctx.doc.toc.append(Heading(level, anchor, shown))
    tag = f"h{min(level + HEADING_OFFSET, 6)}"
    return f'<{tag} id="{anchor}">{shown}{heading_link(anchor)}</{tag}>'


def render_inline(nodes: list[Node], ctx: Context) -> str:
    parts: list[str] = []
    for i, node in enumerate(nodes):
        if isinstance(node, Cmd) and node.name in SWITCHES and not node.args:
            start, end = SWITCHES[node.name]  # ``{\bf text}``: the rest of the group in that style
            rest = render_inline(nodes[i + 1 :], ctx)
            parts.append(f"{start}{rest}{end}" if rest.strip() else rest)
            break
        if isinstance(node, Text):
            parts.append(_ligatures(node.text))
        elif isinstance(node, (Space, Par)):
            parts.append(" ")
        elif isinstance(node, Special):
            parts.append({"~": "&nbsp;", "&": "&amp;"}.get(node.char, node.char))
        elif isinstance(node, Group):
            parts.append(render_inline(node.children, ctx))
        elif isinstance(node, Math) and _PICTURE_IN_MATH.search(node.tex):
            parts.append(_math_picture(node, ctx))
        elif isinstance(node, Math):
            tex = constants_in_math(node.tex, ctx.constants)
            for rewrite in MATH_FILTERS:
                tex = rewrite(tex)
            tex, anchors = number_equations(tex, ctx) if node.display else (tex, "")
            parts.append(anchors + ctx.doc.math_slot(tex, node.display, node.line))
        elif isinstance(node, Verbatim) and node.env in PICTURES:
            parts.append(_picture(node, ctx))
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
    if name in HOLDERS:
        return render_inline(HOLDERS[name](cmd, ctx), ctx)
    if name in IGNORED:
        return ""
    ctx.warn_unknown(f"macro \\{name}", cmd.line)
    shown = html.escape(f"\\{name}{'*' if cmd.star else ''}")
    return f'<code class="unknown">{shown}</code>'


def _inline_env(env: Env, ctx: Context) -> str:
    return render_inline(env.children, ctx)


_PICTURE_IN_MATH = re.compile(r"\\tikz(?![A-Za-z@])")
_MATH_ENV = re.compile(r"\\begin\s*\{([^{}]*)\}")


def _math_picture(node: Math, ctx: Context) -> str:
    """A formula with a TikZ picture in it (``$\\tikz \\node[draw] {$1$}; \\to x$``), which no math
    renderer draws: TeX draws the whole formula, as it draws a picture (a displayed one on a line of its own)."""
    tex = constants_in_math(node.tex, ctx.constants)
    opening = _MATH_ENV.match(tex)
    if opening is None or opening.group(1) not in MATH_ENVS:  # a math environment (``align``) is its own delimiter
        tex = f"\\[{tex}\\]" if node.display else f"${tex}$"
    return _picture(Verbatim("tikz", tex, node.line, inline=True), ctx, display=node.display)


def _picture(node: Verbatim, ctx: Context, display: bool = False) -> str:
    """A slot for a TikZ picture, which TeX draws after rendering (``render/pictures.py``); in a Beamer
    frame, as its last slide shows it. ``display``: a displayed formula, in a line of text but on a line
    of its own."""
    preamble = "\n".join(ctx.macros.sources)
    source = node.text if ctx.slide is None else picture_at_slide(node.text, ctx.slide)
    images: list[str] = []

    def image(m: re.Match[str]) -> str:
        found = find_asset(m.group(2).strip(), ctx.assets)
        if found is None or not found.lower().endswith((".png", ".jpg", ".jpeg")):
            return m.group()
        images.append(ctx.asset_base + found)
        return f"{m.group(1)}{{image{len(images)}{found[found.rfind('.') :].lower()}}}"

    source = _INCLUDED.sub(image, source)
    return ctx.doc.picture_slot(TexPicture(source, preamble, node.line, tuple(images)), node.inline, display)


_INCLUDED = re.compile(r"(\\includegraphics\s*(?:\[[^\]]*\])?)\s*\{([^{}]*)\}")


def find_asset(name: str, assets: Assets) -> str | None:
    """The image file ``\\includegraphics{name}`` means, as graphicx finds it (the name, or with an extension)."""
    name = name.removeprefix("./")
    if name in assets:
        return name
    for ext in (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".eps"):
        if name + ext in assets:
            return name + ext
    return None


def _verbatim_block(node: Verbatim) -> str:
    if node.env == "comment":
        return ""
    language = None
    m = re.search(r"language\s*=\s*\{?([A-Za-z0-9+#]+)", node.options)
    if m:
        language = {"c++": "cpp", "python3": "python"}.get(m.group(1).lower(), m.group(1).lower())
    return highlight.render_block(node.text, language)


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
    if cmd.name in ("\\", "newline", "linebreak"):
        return " "
    if cmd.name in SYMBOLS:
        return html.unescape(re.sub(r"<[^>]+>", "", SYMBOLS[cmd.name]))
    if cmd.args:
        return _plain(cmd.arg(0))
    return ""
