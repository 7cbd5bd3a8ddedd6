"""Pygments: source code to HTML with CSS classes, and the light and dark stylesheet."""

from __future__ import annotations

import html
import io
from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePosixPath

from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from . import fastlex

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# File extension (or exact name) -> Pygments lexer name; the table keeps lookups cheap and predictable.
LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".h": "cpp",
    ".c": "c",
    ".java": "java",
    ".kt": "kotlin",
    ".rs": "rust",
    ".go": "go",
    ".js": "javascript",
    ".ts": "typescript",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".cs": "csharp",
    ".rb": "ruby",
    ".tex": "latex",
    ".md": "markdown",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "bash",
    ".txt": "text",
    ".in": "text",
    ".ans": "text",
    ".out": "text",
}
LANGUAGE_NAMES = {
    "python": "Python",
    "cpp": "C++",
    "c": "C",
    "java": "Java",
    "kotlin": "Kotlin",
    "rust": "Rust",
    "go": "Go",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "haskell": "Haskell",
    "ocaml": "OCaml",
    "csharp": "C#",
    "ruby": "Ruby",
    "latex": "LaTeX",
    "markdown": "Markdown",
    "yaml": "YAML",
    "bash": "Shell",
    "text": "Text",
}


def language_for(filename: str) -> str | None:
    """The lexer name for a file, or None when it is not a known source language."""
    return LANGUAGES.get(PurePosixPath(filename).suffix.lower())


def language_name(language: str) -> str:
    return LANGUAGE_NAMES.get(language, language)


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True)


class _LineFormatter(HtmlFormatter):  # type: ignore[type-arg]
    """Each line in its own span with an id and a numbered anchor, inside one <pre><code>."""

    def __init__(self) -> None:
        super().__init__(nowrap=False, cssclass="highlight")
        self.prefix = ""

    def wrap(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        yield 0, '<pre class="code numbered"><code>'
        number = 0
        for is_line, text in source:
            if is_line:
                number += 1
                anchor = f"{self.prefix}L{number}"
                yield (
                    1,
                    (
                        f'<span class="line" id="{anchor}"><a class="ln" href="#{anchor}" aria-hidden="true"'
                        f' tabindex="-1">{number}</a>{text.rstrip(chr(10))}\n</span>'
                    ),
                )
            else:
                yield 0, text
        yield 0, "</code></pre>"


@lru_cache(maxsize=1)
def _formatters() -> tuple[_LineFormatter, HtmlFormatter]:  # type: ignore[type-arg]
    return _LineFormatter(), HtmlFormatter(nowrap=True)


def _highlight(text: str, language: str, formatter: HtmlFormatter) -> str:  # type: ignore[type-arg]
    """Pygments' highlight(), lexing through fastlex (same tokens, fewer Python-level regex calls)."""
    out = io.StringIO()
    formatter.format(fastlex.tokens(_lexer(language), text), out)
    return out.getvalue()


def render_file(text: str, language: str, anchor_prefix: str) -> str:
    """A whole source file with numbered, linkable lines (ids ``{anchor_prefix}L{n}``)."""
    formatter = _formatters()[0]
    formatter.prefix = anchor_prefix
    return _highlight(text, language, formatter)


def render_block(text: str, language: str | None) -> str:
    """A code block inside a document; unknown or missing languages are shown plain."""
    plain = html.escape(text)
    body = _highlight(text, language.lower(), _formatters()[1]) if language else plain
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
