"""Figures: ``\\includegraphics`` (files of the problem folder only), captions, ``figure``."""

from __future__ import annotations

import html
import re

from ...errors import LatexError
from ...model import TexPicture
from ..document import image_html, is_local_path, linked_figure
from .core import Context, _plain, find_asset, render_blocks, render_inline
from .nodes import Cmd, Env, Node, Text
from .refs import Target


def _includegraphics(cmd: Cmd, ctx: Context) -> str:
    name = _plain(cmd.arg(0))
    found = find_asset(name, ctx.assets)
    if not is_local_path(name):
        raise LatexError(ctx.doc.path, cmd.line, f"\\includegraphics{{{name}}} points outside the problem folder")
    if found is None:
        ctx.doc.warn(cmd.line, f"image {name!r} not found in the problem folder")
        return f'<span class="missing-image">[image: {html.escape(name)}]</span>'
    size = _size(cmd.option())
    if found.lower().endswith(".eps"):
        ctx.doc.warn(cmd.line, f"{found}: an EPS figure is shown as a link to the file (save it as PDF or SVG)")
        return linked_figure(ctx.asset_base + found)
    if found.lower().endswith(".pdf"):
        figure = TexPicture("", "", cmd.line, (ctx.asset_base + found,), kind="pdf", width=size)
        return ctx.doc.picture_slot(figure, inline=True)
    return image_html(ctx.asset_base + found, _caption_alt(name), ctx.assets[found], f"width: {size}" if size else "")


_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(cm|mm|in|pt|bp|pc|em|ex|px)\s*")
_FRACTION = re.compile(r"\s*([0-9]*\.?[0-9]+)?\s*\\(textwidth|linewidth|columnwidth|hsize)\s*")
_UNITS = {"bp": "pt"}  # CSS has every other one under its own name


def _size(option: list[Node] | None) -> str:
    """The CSS width of ``\\includegraphics[width=8cm]`` (or ``0.5\\textwidth``, as a share of the
    column); "" when the options give none (the page then fits the image to the column)."""
    if not option:
        return ""
    text = "".join(n.text if isinstance(n, Text) else f"\\{n.name}" if isinstance(n, Cmd) else "" for n in option)
    for part in text.split(","):
        key, _, value = part.partition("=")
        if key.strip() != "width":
            continue
        if length := _LENGTH.fullmatch(value):
            return f"{float(length.group(1)):g}{_UNITS.get(length.group(2), length.group(2))}"
        if share := _FRACTION.fullmatch(value):
            return f"{min(float(share.group(1) or 1), 1.0) * 100:g}%"
    return ""


def _caption_alt(name: str) -> str:
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_]+", " ", stem)


def _caption(cmd: Cmd, ctx: Context) -> str:
    """A caption; in a figure or table, numbered as LaTeX numbers it ("Figure 2:"), which a ``\\label``
    after it names."""
    label = ""
    if ctx.float_kind.startswith("sub"):
        number = ctx.counters["subfloat"] = ctx.counters.get("subfloat", 0) + 1
        letter = chr(ord("a") + (number - 1) % 26)
        ctx.label_target = Target(letter, "", ctx.float_kind)
        label = f'<span class="caption-label">({letter})</span> '
    elif ctx.float_kind:
        number = ctx.counters[ctx.float_kind] = ctx.counters.get(ctx.float_kind, 0) + 1
        ctx.label_target = Target(str(number), "", ctx.float_kind)
        label = f'<span class="caption-label">{ctx.float_kind.title()} {number}:</span> '
    return f"<figcaption>{label}{render_inline(cmd.arg(0), ctx).strip()}</figcaption>"


def _figure(env: Env, ctx: Context) -> str:
    """``figure``, ``table``, ``wrapfigure`` (floated beside the text), ``subfigure`` and ``subtable``
    (side by side, captioned "(a)", "(b)")."""
    kind = "table" if "table" in env.name else "figure"
    if env.name.startswith("sub"):
        kind = f"sub{kind}"
    else:
        ctx.counters["subfloat"] = 0
    outer, ctx.float_kind = ctx.float_kind, kind
    try:
        inner = render_blocks(env.children, ctx)
    finally:
        ctx.float_kind = outer
    caption = _CAPTION.search(_NESTED.sub("", inner))  # its own, not a subfigure's
    body = inner
    if caption:
        at = inner.rfind(caption.group())
        body = inner[:at] + inner[at + len(caption.group()) :]
    if caption:
        alt = re.sub(r'<span class="caption-label">.*?</span> |<[^>]+>', "", caption.group())
        body = re.sub(r'alt="[^"]*"', f'alt="{html.escape(html.unescape(alt), quote=True)}"', body, count=1)
    body = re.sub(r"<p>\s*</p>", "", body).strip()
    shape = {"wrapfigure": "wrap", "subfigure": "subfloat", "subtable": "subfloat", "table": "table"}.get(env.name)
    shape = shape or ("table" if env.name == "table*" else "")
    attribute = f' class="{shape}"' if shape else ""
    return f"<figure{attribute}>\n{body}\n{caption.group() if caption else ''}\n</figure>"


_CAPTION = re.compile(r"<figcaption>.*?</figcaption>", re.S)
_NESTED = re.compile(r"<figure\b.*?</figure>", re.S)


def _listing_file(cmd: Cmd, ctx: Context) -> str:
    """``\\lstinputlisting{file}`` or ``\\inputminted{language}{file}``: a link to the file, which the page
    publishes with the others."""
    name = _plain(cmd.arg(1 if cmd.name == "inputminted" else 0))
    if not is_local_path(name):
        raise LatexError(ctx.doc.path, cmd.line, f"\\{cmd.name}{{{name}}} points outside the problem folder")
    href = html.escape(ctx.asset_base + name.removeprefix("./"))
    return f'<p class="listing-file">Listing: <a href="{href}"><code>{html.escape(name)}</code></a></p>'


COMMANDS = {"includegraphics": _includegraphics, "caption": _caption}
BLOCK_COMMANDS = {"lstinputlisting": _listing_file, "inputminted": _listing_file}
ENVIRONMENTS = {
    name: _figure for name in ("figure", "figure*", "table", "table*", "wrapfigure", "subfigure", "subtable")
}
