"""Beamer slides read as a document: frames as sections, blocks, and overlays as the last slide shows them."""

from __future__ import annotations

from .core import Context, _heading, _plain, render_blocks, render_inline
from .nodes import Arg, Cmd, Env, Node
from .overlays import ranges, resolve_frame, shown
from .parser import parse_latex


def _alert(cmd: Cmd, ctx: Context) -> str:
    return f'<strong class="alert">{render_inline(cmd.arg(0), ctx).strip()}</strong>'


def _only(cmd: Cmd, ctx: Context) -> list[Node]:
    """``\\only``, ``\\uncover``, ``\\visible``, ``\\onslide{...}``: the content, if the last slide has it."""
    return cmd.arg(0) if shown(cmd.overlay, ctx.slide) else []


def _invisible(cmd: Cmd, ctx: Context) -> list[Node]:
    return [] if cmd.overlay and shown(cmd.overlay, ctx.slide) else cmd.arg(0)


def _alt(cmd: Cmd, ctx: Context) -> list[Node]:
    """``\\alt<spec>{on those slides}{on the others}``."""
    return cmd.arg(0 if shown(cmd.overlay, ctx.slide) else 1)


def _temporal(cmd: Cmd, ctx: Context) -> list[Node]:
    """``\\temporal<spec>{before}{during}{after}``: which of the three the last slide shows."""
    if shown(cmd.overlay, ctx.slide):
        return cmd.arg(1)
    parts = ranges(cmd.overlay)
    before = ctx.slide is not None and bool(parts) and ctx.slide < min(lo for lo, _ in parts)
    return cmd.arg(0 if before else 2)


def _frametitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-title"><strong>{render_inline(cmd.arg(0), ctx).strip()}</strong></p>'


def _framesubtitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-subtitle">{render_inline(cmd.arg(0), ctx).strip()}</p>'


def _frame(env: Env, ctx: Context) -> str:
    """A Beamer frame, as its last slide: its title becomes a section (a continued frame with the same
    title adds none)."""
    children = env.children
    title_nodes = env.arg(0)
    if not title_nodes:
        found = next((n for n in children if isinstance(n, Cmd) and n.name == "frametitle"), None)
        if found is not None:
            title_nodes = found.arg(0)
            children = [n for n in children if n is not found]
    outer, ctx.slide = ctx.slide, resolve_frame(children)
    try:
        body = render_blocks(children, ctx)
    finally:
        ctx.slide = outer
    title = _plain(title_nodes)
    if not title or title == ctx.frame_title:
        return f'<div class="frame">\n{body}\n</div>' if body.strip() else ""
    ctx.frame_title = title
    heading = _heading(1, title, render_inline(title_nodes, ctx).strip(), ctx)
    return f'<section class="frame">\n{heading}\n{body}\n</section>'


def _slide(env: Env, ctx: Context) -> str:
    """A contest template's ``slide``: a frame titled with the problem's name (``\\problemtitle``)."""
    name = ctx.macros.defined.get("problemtitle")
    title = Cmd("frametitle", env.line, args=[Arg(False, parse_latex(name.body, ctx.doc.path) if name else [])])
    return _frame(Env("frame", env.line, [title, *env.children]), ctx)


def _overprint(env: Env, ctx: Context) -> str:
    """``overprint``: parts started by ``\\onslide<spec>``, of which the last slide shows one."""
    parts: list[tuple[str, list[Node]]] = [("", [])]
    for node in env.children:
        if isinstance(node, Cmd) and node.name == "onslide" and not node.args:
            parts.append((node.overlay, []))
        else:
            parts[-1][1].append(node)
    chosen = [nodes for spec, nodes in parts[1:] if spec and shown(spec, ctx.slide)]
    nodes = chosen[-1] if chosen else parts[-1][1]
    return render_blocks(nodes, ctx)


def _beamer_block(env: Env, ctx: Context) -> str:
    title = render_inline(env.arg(0), ctx).strip()
    head = f'<p class="block-title">{title}</p>\n' if title else ""
    return f'<div class="block block-{env.name}">\n{head}{render_blocks(env.children, ctx)}\n</div>'


HOLDERS = {
    **dict.fromkeys(("only", "uncover", "visible", "onslide"), _only),
    "invisible": _invisible,
    "alt": _alt,
    "temporal": _temporal,
}
COMMANDS = {
    "alert": _alert,
    "structure": _alert,
    "frametitle": _frametitle,
    "framesubtitle": _framesubtitle,
}
BLOCK_COMMANDS = {"frametitle": _frametitle, "framesubtitle": _framesubtitle}
ENVIRONMENTS = {
    "frame": _frame,
    "slide": _slide,
    "overprint": _overprint,
    **dict.fromkeys(("block", "alertblock", "exampleblock"), _beamer_block),
}
