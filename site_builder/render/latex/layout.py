"""Environments that only lay their body out: centring (``center``; ``centering``, as plasTeX reads it),
quotes, columns, and those shown as their body."""

from __future__ import annotations

from collections.abc import Callable

from .core import Context, render_blocks
from .nodes import Env, Space, Text


def _div(css: str) -> Callable[[Env, Context], str]:
    """An environment shown as its body in a ``<div class="css">`` (center, abstract, Beamer columns)."""

    def render(env: Env, ctx: Context) -> str:
        return f'<div class="{css}">\n{render_blocks(env.children, ctx)}\n</div>'

    return render


def _quote(env: Env, ctx: Context) -> str:
    return f"<blockquote>\n{render_blocks(env.children, ctx)}\n</blockquote>"


def _transparent(env: Env, ctx: Context) -> str:
    return render_blocks(env.children, ctx)


def _textblock(env: Env, ctx: Context) -> str:
    """``textblock*`` (Beamer's absolutely placed text): its body, without its ``(x, y)`` position."""
    children = list(env.children)
    while children and isinstance(children[0], Space):
        children.pop(0)
    if children and isinstance(children[0], Text) and children[0].text.startswith("("):
        while children and not (isinstance(children[0], Text) and ")" in children[0].text):
            children.pop(0)
        if children:
            first = children.pop(0)
            assert isinstance(first, Text)
            rest = first.text.split(")", 1)[1]
            if rest:
                children.insert(0, Text(rest, first.line))
    return render_blocks(children, ctx)


ENVIRONMENTS = {
    **dict.fromkeys(("center", "centering"), _div("center")),
    **dict.fromkeys(
        ("flushleft", "flushright", "minipage", "multicols", "document", "samepage", "afterSample"), _transparent
    ),
    "quote": _quote,
    **dict.fromkeys(("textblock", "textblock*"), _textblock),
    "quotation": _quote,
    "abstract": _div("abstract"),
    "columns": _div("columns"),
    "column": _div("column"),
}
