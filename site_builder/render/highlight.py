"""Pygments: source code to HTML with CSS classes, and the light and dark stylesheet."""

from __future__ import annotations

import html
import logging
from collections.abc import Iterable
from functools import lru_cache

from pygments import highlight
from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from ..model import language_name
from ..source.languages import language_for
from . import fastlex

__all__ = ["highlighted", "language_for", "language_name", "prepare", "render_block", "render_file", "stylesheet"]

LIGHT_STYLE, DARK_STYLE = fastlex.STYLES
log = logging.getLogger(__name__)


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True)


def prepare(languages: Iterable[str]) -> None:
    """Make the lexers of ``languages`` and their tables now, not while the first text waits."""
    for language in languages:
        fastlex.prepare(_lexer(language))


def highlighted(text: str, language: str) -> str:
    """The escaped HTML of ``text`` with Pygments' CSS classes; where a lexer fails on it, Pygments'
    own formatter, and where that fails too, the text plain: no source file stops a build."""
    lexer = _lexer(language)
    try:
        return fastlex.html(lexer, text)
    except Exception:
        log.warning("highlighting %s failed; trying Pygments' own formatter", language, exc_info=True)
    try:
        return str(highlight(text, lexer, HtmlFormatter(nowrap=True)))
    except Exception:
        log.warning("Pygments could not highlight %s; shown plain", language, exc_info=True)
    return html.escape(text, quote=False)


def render_file(text: str, language: str, anchor_prefix: str) -> str:
    """A whole source file beside a gutter of numbered, linkable lines (ids ``{anchor_prefix}L{n}``).

    The numbers sit in their own column rather than in each line: the code stays one highlighted
    string, a selection or copy takes no numbers, and a page is a fraction of the size.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n")
    count = lines.count("\n") + (0 if lines.endswith("\n") else 1)
    gutter = "".join(
        f'<a id="{anchor_prefix}L{n}" href="#{anchor_prefix}L{n}" tabindex="-1">{n}</a>\n' for n in range(1, count + 1)
    )
    return (
        f'<div class="highlight numbered"><div class="code-lines">'
        f'<pre class="gutter" aria-hidden="true">{gutter}</pre>'
        f'<pre class="code"><code>{highlighted(text, language)}</code></pre></div></div>\n'
    )


def render_block(text: str, language: str | None) -> str:
    """A code block inside a document; unknown or missing languages are shown plain."""
    body = highlighted(text, language.lower()) if language else html.escape(text, quote=False)
    return f'<pre class="highlight code"><code>{body}</code></pre>\n'


def stylesheet() -> str:
    """Token colours for both themes: light by default, dark under ``[data-theme=dark]`` or the system, on
    screens only (paper is printed light, whatever the screen's theme)."""
    light = _style_defs(LIGHT_STYLE, ".highlight")
    dark = _style_defs(DARK_STYLE, ":root[data-theme=dark] .highlight")
    system_dark = _style_defs(DARK_STYLE, ":root:not([data-theme=light]) .highlight")
    return (
        "/* Generated from Pygments styles; do not edit. */\n"
        f"{_strip_backgrounds(light)}\n@media screen {{\n{_strip_backgrounds(dark)}\n}}\n"
        f"@media screen and (prefers-color-scheme: dark) {{\n{_strip_backgrounds(system_dark)}\n}}\n"
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
