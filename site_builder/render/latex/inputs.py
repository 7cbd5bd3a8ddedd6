"""``\\input`` and ``\\include``: another ``.tex`` file of the problem folder, or of the archive around it
(a contest's shared template one level up), inlined; never a file outside the archive."""

from __future__ import annotations

import html
import posixpath

from ...errors import LatexError
from ...source.shared import input_name
from .core import Context, _plain, render_blocks
from .macros import expand_macros
from .nodes import Cmd
from .parser import parse_latex

MAX_INPUT_DEPTH = 8
MAX_INLINED = 8 * 1024 * 1024  # characters inlined in all: nine files each inputting the next ten times is 10^9


def _input(cmd: Cmd, ctx: Context) -> str:
    """``\\input{file}``: another .tex file of the problem folder or of the archive around it, inlined;
    never a file outside the archive."""
    name = _plain(cmd.arg(0))
    key = input_name(name, ctx.folder)
    if key is None:
        where = "the archive" if ctx.folder else "the problem folder"
        raise LatexError(ctx.doc.path, cmd.line, f"\\{cmd.name}{{{name}}} points outside {where}; refused")
    found = next((n for n in (key, key + ".tex") if n in ctx.inputs), None)
    if found is None:
        where = "in the archive" if key.startswith("../") else "beside this one"
        ctx.doc.warn(cmd.line, f"\\{cmd.name}{{{name}}}: no such .tex file {where}; left out")
        return f'<p class="missing">[\\{cmd.name}{{{html.escape(name)}}}: file not found]</p>'
    if found in ctx.input_stack or len(ctx.input_stack) >= MAX_INPUT_DEPTH:
        chain = " -> ".join([*ctx.input_stack, found])
        raise LatexError(ctx.doc.path, cmd.line, f"\\{cmd.name} nests too deep or loops: {chain}")
    ctx.inlined += len(ctx.inputs[found])
    if ctx.inlined > MAX_INLINED:
        raise LatexError(
            ctx.doc.path, cmd.line, f"\\{cmd.name} inlines over {MAX_INLINED >> 20} MiB of TeX in all; refused"
        )
    path = posixpath.normpath(ctx.doc.path.rsplit("/", 1)[0] + "/" + found)
    nodes = parse_latex(expand_macros(ctx.inputs[found], path, ctx.macros, ctx.inputs), path)
    before = len(ctx.doc.warnings)
    ctx.input_stack.append(found)
    try:
        body = render_blocks(nodes, ctx)
    except LatexError as error:
        if error.path != ctx.doc.path:
            raise
        raise LatexError(path, error.line, error.message) from error  # an error of the file inlined, at its line
    finally:
        ctx.input_stack.pop()
    ctx.doc.warnings[before:] = [(cmd.line, f"in {found}, line {n}: {m}") for n, m in ctx.doc.warnings[before:]]
    return body


BLOCK_COMMANDS = {"input": _input, "include": _input}
