"""Pygments: source code to HTML with CSS classes, and the light and dark stylesheet."""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from . import fastlex
from .languages import language_for, language_name

__all__ = ["language_for", "language_name", "render_block", "render_file", "stylesheet"]

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True)


_ESCAPE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_CLASSES: dict[Any, str] = {}
_CSS: Any = HtmlFormatter()


def _css_class(kind: Any) -> str:
    """Pygments' CSS classes for a token type ("" for plain text), as HtmlFormatter names them."""
    found = _CLASSES.get(kind)
    if found is None:
        found = _CLASSES[kind] = str(_CSS._get_css_classes(kind))
    return found


def _lines(text: str, language: str) -> list[str]:
    """The highlighted HTML of each line, lexed by fastlex; runs of one class share a span, as in Pygments."""
    # Merge runs first (one class, no newline inside), then cut at newlines: few Python steps per token.
    runs: list[tuple[str, str]] = []
    for kind, value in fastlex.tokens(_lexer(language), text):
        css = _CLASSES.get(kind)
        if css is None:
            css = _css_class(kind)
        if runs and runs[-1][0] == css:
            runs[-1] = (css, runs[-1][1] + value)
        else:
            runs.append((css, value))
    lines: list[str] = []
    parts: list[str] = []
    for css, value in runs:
        escaped = value.translate(_ESCAPE)
        pieces = escaped.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                lines.append("".join(parts))
                parts = []
            if piece:
                parts.append(f'<span class="{css}">{piece}</span>' if css else piece)
    if parts:
        lines.append("".join(parts))
    return lines


def render_file(text: str, language: str, anchor_prefix: str) -> str:
    """A whole source file with numbered, linkable lines (ids ``{anchor_prefix}L{n}``)."""
    rows = [
        f'<span class="line" id="{anchor_prefix}L{n}"><a class="ln" href="#{anchor_prefix}L{n}" aria-hidden="true"'
        f' tabindex="-1">{n}</a>{line}\n</span>'
        for n, line in enumerate(_lines(text, language), 1)
    ]
    return f'<div class="highlight"><pre class="code numbered"><code>{"".join(rows)}</code></pre></div>\n'


def render_block(text: str, language: str | None) -> str:
    """A code block inside a document; unknown or missing languages are shown plain."""
    body = "\n".join(_lines(text, language.lower())) + "\n" if language else html.escape(text)
    return f'<pre class="highlight code"><code>{body}</code></pre>\n'


def stylesheet() -> str:
    """Token colours for both themes: light by default, dark under ``[data-theme=dark]`` or the system."""
    light = _style_defs(LIGHT_STYLE, ".highlight")
    dark = _style_defs(DARK_STYLE, ":root[data-theme=dark] .highlight")
    system_dark = _style_defs(DARK_STYLE, ":root:not([data-theme=light]) .highlight")
    return (
        "/* Generated from Pygments styles; do not edit. */\n"
        f"{_strip_backgrounds(light)}\n{_strip_backgrounds(dark)}\n"
        f"@media (prefers-color-scheme: dark) {{\n{_strip_backgrounds(system_dark)}\n}}\n"
    )


def _style_defs(style: str, selector: str) -> str:
    return str(HtmlFormatter(style=style).get_style_defs(selector))  # type: ignore[no-untyped-call]


def _strip_backgrounds(css: str) -> str:
    """Keep token colours; the site's own CSS sets code backgrounds and line-number colours."""
    keep = [
        line
        for line in css.splitlines()
        if not line.startswith(("pre {", "td.linenos", "span.linenos"))
        and " .hll " not in line
        and not line.rstrip().endswith(".highlight { background: #f8f8f8; }")
    ]
    return "\n".join(keep)
