"""Problem package statements: ``\\problemname``, ``\\constant``, ``\\illustration``, where the samples
go, and the ``Input``, ``Output`` and ``Interaction`` sections."""

from __future__ import annotations

import html
import re

from .core import Context, _heading, _plain, render_blocks, render_inline
from .figures import _includegraphics
from .nodes import Cmd, Env
from .symbols import constant_value


def _problemname(cmd: Cmd, ctx: Context) -> str:
    """A package statement's ``\\problemname{...}``: the title, shown by the page itself."""
    ctx.title = _plain(cmd.arg(0)) or ctx.title
    return ""


def _constant(cmd: Cmd, ctx: Context) -> str:
    """A package's ``\\constant{name}`` (problem.yaml's ``constants``), or task-maker's ``\\constraints{NAME}``
    (gen/constraints.py's), grouped as its booklet prints it."""
    name = _plain(cmd.arg(0))
    if name not in ctx.constants:
        where = "gen/constraints.py" if cmd.name == "constraints" else "problem.yaml"
        ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{name}}}: {where} defines no constant {name!r}")
        return f'<code class="unknown">{html.escape(name)}</code>'
    return html.escape(constant_value(cmd.name, ctx.constants[name], False))


def _illustration(cmd: Cmd, ctx: Context) -> str:
    """``\\illustration{width}{file}{caption}``: a figure beside the text, width a fraction of the line."""
    try:
        width = min(max(float(_plain(cmd.arg(0))), 0.1), 1.0)
    except ValueError:
        ctx.doc.warn(cmd.line, f"\\illustration: width {_plain(cmd.arg(0))!r} is not a number; using 0.3")
        width = 0.3
    image = _includegraphics(Cmd("includegraphics", cmd.line, args=[cmd.args[1]]), ctx)
    caption = render_inline(cmd.arg(2), ctx).strip()
    if caption:
        # the caption's words on one line, its entities read once (``&amp;`` is "&", escaped once again)
        plain = html.escape(" ".join(html.unescape(re.sub(r"<[^>]+>", "", caption)).split()), quote=True)
        image = re.sub(r'alt="[^"]*"', f'alt="{plain}"', image, count=1)
    figcaption = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="illustration" style="width: {width * 100:g}%">{image}{figcaption}</figure>'


def _nextsample(cmd: Cmd, ctx: Context) -> str:
    return ctx.doc.next_sample(cmd.line)


def _remainingsamples(cmd: Cmd, ctx: Context) -> str:
    return ctx.doc.remaining_samples()


def _io_section(env: Env, ctx: Context) -> str:
    """The package format's ``Input``, ``Output`` and ``Interaction`` environments: an unnumbered section."""
    return _heading(1, env.name, env.name, ctx) + "\n" + render_blocks(env.children, ctx)


COMMANDS = {"problemname": _problemname, "constant": _constant, "constraints": _constant}
BLOCK_COMMANDS = {
    "illustration": _illustration,
    "nextsample": _nextsample,
    "remainingsamples": _remainingsamples,
}
ENVIRONMENTS = dict.fromkeys(("Input", "Output", "Interaction"), _io_section)
