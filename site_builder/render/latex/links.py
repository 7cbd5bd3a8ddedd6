"""Links and references: ``\\url``, ``\\href`` (safe schemes only), and ``\\ref`` and its kin."""

from __future__ import annotations

import html
import re

from ..document import safe_url
from .core import Context, _plain, render_inline
from .parser import Cmd


def _url(cmd: Cmd, ctx: Context) -> str:
    url = _plain(cmd.arg(0))
    return _link(url, html.escape(url), cmd, ctx)


def _href(cmd: Cmd, ctx: Context) -> str:
    """``\\href{url}{text}``; in the URL, ``\\%``, ``\\#``, ``\\&``, ``\\_`` and ``\\~`` stand for the
    characters themselves, as hyperref reads them."""
    url = re.sub(r"\\([%#&_~$])", r"\1", _plain(cmd.arg(0)))
    return _link(url, render_inline(cmd.arg(1), ctx), cmd, ctx)


def _link(url: str, label: str, cmd: Cmd, ctx: Context) -> str:
    target = safe_url(url)
    if target is None:
        ctx.doc.warn(cmd.line, f"link to {url!r} dropped: only http, https, mailto and relative links are allowed")
        return label
    return f'<a href="{html.escape(target)}">{label}</a>'


def _ref(cmd: Cmd, ctx: Context) -> str:
    ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{_plain(cmd.arg(0))}}}: cross-references are not supported; shown as text")
    return f'<code class="unknown">{html.escape(_plain(cmd.arg(0)))}</code>'


COMMANDS = {
    "url": _url,
    "href": _href,
    **dict.fromkeys(("ref", "eqref", "cite", "pageref", "nameref"), _ref),
}
