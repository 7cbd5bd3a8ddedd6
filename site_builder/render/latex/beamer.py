"""Beamer slides read as a document: frames as sections, blocks, overlays showing the last slide."""

from __future__ import annotations

from .core import Context, _heading, _plain, render_blocks, render_inline
from .parser import Cmd, Env


def _alert(cmd: Cmd, ctx: Context) -> str:
    return f'<strong class="alert">{render_inline(cmd.arg(0), ctx)}</strong>'


def _overlay_content(cmd: Cmd, ctx: Context) -> str:
    """``\\only``, ``\\uncover``...: a page shows the last slide of a frame, so the content is shown."""
    return render_inline(cmd.arg(0), ctx)


def _frametitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-title"><strong>{render_inline(cmd.arg(0), ctx).strip()}</strong></p>'


def _framesubtitle(cmd: Cmd, ctx: Context) -> str:
    return f'<p class="frame-subtitle">{render_inline(cmd.arg(0), ctx).strip()}</p>'


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


COMMANDS = {
    "alert": _alert,
    "structure": _alert,
    **dict.fromkeys(("only", "uncover", "visible", "invisible", "alt", "temporal"), _overlay_content),
    "frametitle": _frametitle,
    "framesubtitle": _framesubtitle,
}
BLOCK_COMMANDS = {"frametitle": _frametitle, "framesubtitle": _framesubtitle}
ENVIRONMENTS = {"frame": _frame, **dict.fromkeys(("block", "alertblock", "exampleblock"), _beamer_block)}
