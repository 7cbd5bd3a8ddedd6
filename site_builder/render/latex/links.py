"""Links and references: ``\\url``, ``\\href`` (safe schemes only), and ``\\ref`` and its kin."""

from __future__ import annotations

import html
import re

from ..document import safe_url
from .core import Context, _plain, render_inline
from .nodes import Cmd
from .refs import Target


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


def _cite(cmd: Cmd, ctx: Context) -> str:
    ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{_plain(cmd.arg(0))}}}: citations are not supported; shown as text")
    return f'<code class="unknown">{html.escape(_plain(cmd.arg(0)))}</code>'


def _label(cmd: Cmd, ctx: Context) -> str:
    key = _plain(cmd.arg(0))
    target = ctx.label_target
    if key in ctx.labels:
        ctx.doc.warn(cmd.line, f"\\label{{{key}}} is defined twice; the first is used")
        return ""
    if target is None:
        anchor = ctx.doc.unique_id(f"label-{key}")
        ctx.labels[key] = Target("", anchor, "")
        return f'<span id="{anchor}"></span>'
    ctx.labels[key] = target
    if target.anchor:
        return ""
    anchor = ctx.doc.unique_id(f"{target.kind}-{target.number}")
    ctx.labels[key] = Target(target.number, anchor, target.kind)
    return f'<span id="{anchor}"></span>'


def _ref(cmd: Cmd, ctx: Context) -> str:
    kind = {"eqref": "eq", "autoref": "auto", "cref": "auto", "Cref": "auto"}.get(cmd.name, "plain")
    keys = [k.strip() for k in _plain(cmd.arg(0)).split(",") if k.strip()]
    slots = [f'<ref-slot kind="{kind}" key="{html.escape(k)}" line="{cmd.line}"></ref-slot>' for k in keys]
    return ", ".join(slots)


COMMANDS = {
    "url": _url,
    "href": _href,
    "cite": _cite,
    "label": _label,
    **dict.fromkeys(("ref", "eqref", "pageref", "autoref", "cref", "Cref", "nameref"), _ref),
}
