"""Figures: ``\\includegraphics`` (files of the problem folder only), captions, ``figure``."""

from __future__ import annotations

import html
import re

from ...errors import LatexError
from ..document import is_local_path
from .core import Context, _plain, render_blocks, render_inline
from .parser import Cmd, Env


def _includegraphics(cmd: Cmd, ctx: Context) -> str:
    name = _plain(cmd.arg(0))
    found = _find_asset(name, ctx.assets)
    if not is_local_path(name):
        raise LatexError(ctx.doc.path, cmd.line, f"\\includegraphics{{{name}}} points outside the problem folder")
    if found is None:
        ctx.doc.warn(cmd.line, f"image {name!r} not found in the problem folder")
        return f'<span class="missing-image">[image: {html.escape(name)}]</span>'
    return f'<img src="{html.escape(ctx.asset_base + found)}" alt="{html.escape(_caption_alt(name))}" loading="lazy">'


def _find_asset(name: str, assets: frozenset[str]) -> str | None:
    name = name.removeprefix("./")
    if name in assets:
        return name
    for ext in (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp"):
        if name + ext in assets:
            return name + ext
    return None


def _caption_alt(name: str) -> str:
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_]+", " ", stem)


def _caption(cmd: Cmd, ctx: Context) -> str:
    return f"<figcaption>{render_inline(cmd.arg(0), ctx).strip()}</figcaption>"


def _figure(env: Env, ctx: Context) -> str:
    inner = render_blocks(env.children, ctx)
    caption = re.search(r"<figcaption>.*?</figcaption>", inner, re.S)
    body = inner.replace(caption.group(), "") if caption else inner
    if caption:
        alt = re.sub(r"<[^>]+>", "", caption.group())
        body = re.sub(r'alt="[^"]*"', f'alt="{html.escape(html.unescape(alt), quote=True)}"', body, count=1)
    body = re.sub(r"<p>\s*</p>", "", body).strip()
    return f"<figure>\n{body}\n{caption.group() if caption else ''}\n</figure>"


COMMANDS = {"includegraphics": _includegraphics, "caption": _caption}
ENVIRONMENTS = {"figure": _figure, "figure*": _figure}
