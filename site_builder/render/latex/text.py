"""Text commands: line breaks, footnotes, the title, inline code, the end-of-proof mark."""

from __future__ import annotations

import re

from .core import Context, _plain, render_inline
from .nodes import Cmd


def _line_break(cmd: Cmd, ctx: Context) -> str:
    return "<br>\n"


def _title(cmd: Cmd, ctx: Context) -> str:
    ctx.title = _plain(cmd.arg(0))
    return ""


def _qed(cmd: Cmd, ctx: Context) -> str:
    return '<span class="qed" role="img" aria-label="end of proof">\u220e</span>'


def _footnote(cmd: Cmd, ctx: Context) -> str:
    ctx.footnotes.append(render_inline(cmd.arg(0), ctx).strip())
    n = len(ctx.footnotes)
    prefix = ctx.doc.id_prefix
    return f'<sup class="fnref"><a id="{prefix}fnref{n}" href="#{prefix}fn{n}">{n}</a></sup>'


def _footnotetext(cmd: Cmd, ctx: Context) -> str:
    """``\\footnotetext[n]{text}``: a footnote whose mark the text made itself (``\\footnotemark``, a
    superscript): listed with the others, its way back leading here, with no second mark."""
    ctx.footnotes.append(render_inline(cmd.arg(0), ctx).strip())
    return f'<span id="{ctx.doc.id_prefix}fnref{len(ctx.footnotes)}"></span>'


def _footnotes(ctx: Context) -> str:
    if not ctx.footnotes:
        return ""
    prefix = ctx.doc.id_prefix
    items = "".join(
        f'<li id="{prefix}fn{n}">{text} <a href="#{prefix}fnref{n}" aria-label="Back to text">\u21a9</a></li>'
        for n, text in enumerate(ctx.footnotes, 1)
    )
    return f'\n<section class="footnotes" aria-label="Footnotes"><ol>{items}</ol></section>'


# \textcolor's colour, when it is a plain name or a hex code (with an xcolor model, only HTML's hex)
_COLOR_NAME = re.compile(r"[A-Za-z]{1,20}")
_COLOR_HEX = re.compile(r"[0-9A-Fa-f]{6}")


def _textcolor(cmd: Cmd, ctx: Context) -> str:
    """``\textcolor[model]{colour}{text}``: the text in that colour, where the colour is a named or
    HTML one (dvipsnames' and xcolor's mixes like ``red!50`` are shown in the text's colour)."""
    model, colour = _plain(cmd.option() or []).strip(), _plain(cmd.arg(0)).strip()
    body = render_inline(cmd.arg(1), ctx)
    if model.lower() == "html" and _COLOR_HEX.fullmatch(colour):
        css = f"#{colour}"
    elif not model and _COLOR_NAME.fullmatch(colour):
        css = colour.lower()
    else:
        return body
    return f'<span class="tex-color" style="--tex-color: {css}">{body}</span>'


_ENSUREMATH = re.compile(r"\\ensuremath(?![A-Za-z@])")


def _ensuremath_in_math(tex: str) -> str:
    """``\\ensuremath{x}`` in math is ``{x}`` (Temml has no ``\\ensuremath``; macros often use it)."""
    return _ENSUREMATH.sub("", tex) if "ensuremath" in tex else tex


MATH_FILTERS = (_ensuremath_in_math,)
# Boxes that only place or colour their text: the text (``\\raisebox{lift}{text}``, ``\\colorbox{c}{text}``).
HOLDERS = {
    "raisebox": lambda cmd, ctx: cmd.arg(1),
    "colorbox": lambda cmd, ctx: cmd.arg(1),
    "fcolorbox": lambda cmd, ctx: cmd.arg(2),
}
COMMANDS = {
    "\\": _line_break,
    "newline": _line_break,
    "title": _title,
    "qed": _qed,
    "qedhere": _qed,
    "footnote": _footnote,
    "footnotetext": _footnotetext,
    "textcolor": _textcolor,
}
