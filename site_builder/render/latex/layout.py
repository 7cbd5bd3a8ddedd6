"""Environments that only lay their body out: centring, quotes, columns, and those shown as their body."""

from __future__ import annotations

from collections.abc import Callable

from .core import Context, render_blocks
from .parser import Env


def _div(css: str) -> Callable[[Env, Context], str]:
    """An environment shown as its body in a ``<div class="css">`` (center, abstract, Beamer columns)."""

    def render(env: Env, ctx: Context) -> str:
        return f'<div class="{css}">\n{render_blocks(env.children, ctx)}\n</div>'

    return render


def _quote(env: Env, ctx: Context) -> str:
    return f"<blockquote>\n{render_blocks(env.children, ctx)}\n</blockquote>"


def _transparent(env: Env, ctx: Context) -> str:
    return render_blocks(env.children, ctx)


ENVIRONMENTS = {
    "center": _div("center"),
    **dict.fromkeys(("flushleft", "flushright", "minipage", "multicols", "document", "samepage"), _transparent),
    "quote": _quote,
    "quotation": _quote,
    "abstract": _div("abstract"),
    "columns": _div("columns"),
    "column": _div("column"),
}
