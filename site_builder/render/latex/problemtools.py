"""What problemtools' ``problemset.cls`` and its plasTeX macros give a Kattis statement, as ``problem2html``
renders it: the sample commands (``\\sampletable``, ``\\displaysample``, ``\\includesample`` and their interactive
kin) show the package's sample, the class's names for sample headings read as text, Pandoc's ``\\tightlist`` and
``\\pandocbounded`` do nothing and show their content, ``eqnarray`` is an aligned display (Temml has no
``eqnarray``), and ``\\scalerel`` shows its object at its own size. ``\\ifplastex`` is read by the macro expander
(``macros.py``): the plasTeX branch is taken."""

from __future__ import annotations

import re
from collections.abc import Callable

from .core import Context, _plain, render_inline
from .nodes import Cmd, Node


def _sample_name(path: str) -> str:
    """The sample a command's file names: ``../data/sample/1`` or ``1.in`` is sample ``1``."""
    name = path.strip().rsplit("/", 1)[-1]
    return re.sub(r"\.(in|ans|out|interaction)$", "", name)


def _show_sample(cmd: Cmd, ctx: Context, path: str) -> str:
    name = _sample_name(path)
    shown = ctx.doc.named_sample(name)
    if shown is None:
        ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{path}}}: the package has no sample {name!r}; not shown")
        return ""
    return shown


def _displaysample(cmd: Cmd, ctx: Context) -> str:
    """``\\displaysample{path}``, ``\\includesample{name}``, ``\\displaysampleinteraction{path}``."""
    return _show_sample(cmd, ctx, _plain(cmd.arg(0)))


def _sampletable(cmd: Cmd, ctx: Context) -> str:
    """``\\sampletable{header}{input file}{header}{answer file}``: the sample whose input that is."""
    return _show_sample(cmd, ctx, _plain(cmd.arg(1)))


def _sampletableinteractive(cmd: Cmd, ctx: Context) -> str:
    """``\\sampletableinteractive{header}{read}{write}{file}``: the sample of that ``.interaction`` file."""
    return _show_sample(cmd, ctx, _plain(cmd.arg(3)))


def _content(cmd: Cmd, ctx: Context) -> list[Node]:
    """``\\pandocbounded{image}``, ``\\scalerel{object}{reference}``: the first argument, at its own size."""
    return cmd.arg(0)


def _sample_header(cmd: Cmd, ctx: Context) -> str:
    return f"<strong>{render_inline(cmd.arg(0), ctx)}</strong>"


def _named(text: str) -> Callable[[Cmd, Context], str]:
    def name(cmd: Cmd, ctx: Context) -> str:
        return text

    return name


# ``\scalerel*{X}{Y}``: X scaled to Y's height (the starless form sets Y too; both only change a size)
_GROUP = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # a group, with groups one level deep in it
_SCALEREL = re.compile(r"\\(?:scalerel|stretchrel)\*?\s*(?:\[[^\]]*\])?\s*" + _GROUP + r"\s*" + _GROUP)
_EQNARRAY = re.compile(r"\\begin\{eqnarray(\*?)\}(.*?)\\end\{eqnarray\1\}", re.S)


def _scalerel_in_math(tex: str) -> str:
    return _SCALEREL.sub(lambda m: "{" + m.group(1) + "}", tex) if "rel" in tex else tex


def _eqnarray(tex: str) -> str:
    """``eqnarray``'s three columns (``a & = & b``) as ``align``'s two (``a & = b``), numbered alike."""
    if "eqnarray" not in tex:
        return tex
    return _EQNARRAY.sub(lambda m: f"\\begin{{align{m[1]}}}{_two_columns(m[2])}\\end{{align{m[1]}}}", tex)


def _two_columns(body: str) -> str:
    """Each row's second ``&`` (at the row's own brace level) dropped."""
    out: list[str] = []
    depth = column = 0
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and body.startswith("\\\\", i):
            column = 0
            out.append("\\\\")
            i += 2
            continue
        if char == "\\":
            out.append(body[i : i + 2])
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "&" and depth == 0:
            column += 1
            if column == 2:
                i += 1
                continue
        out.append(char)
        i += 1
    return "".join(out)


COMMANDS = {
    "formatsampleheader": _sample_header,
    "sampleinputname": _named("Sample Input"),
    "sampleoutputname": _named("Sample Output"),
    "sampleinteractname": _named("Sample Interaction"),
    "sampleinteractreadname": _named("Read"),
    "sampleinteractwritename": _named("Write"),
    "tightlist": _named(""),
    "problemnumber": _named(""),
}
BLOCK_COMMANDS = {
    **dict.fromkeys(("displaysample", "includesample", "displaysampleinteraction"), _displaysample),
    "sampletable": _sampletable,
    "sampletableinteractive": _sampletableinteractive,
}
HOLDERS = dict.fromkeys(("pandocbounded", "scalerel", "stretchrel"), _content)
MATH_FILTERS = (_eqnarray, _scalerel_in_math)
