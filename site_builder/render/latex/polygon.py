"""Polygon's statement macros (olymp.sty): the ``problem`` environment, ``\\InputFile``, ``\\OutputFile``,
``\\Examples``, ``\\Note``..., the ``example`` environment with ``\\exmp{input}{output}`` and
``\\exmpfile{input}{answer}``, and ``\\t{...}`` for monospace."""

from __future__ import annotations

from ...model import Sample
from ..document import statement_sample
from .arguments import COMMAND_ARGS, ENV_ARGS
from .core import THEOREM, Context, _heading, _plain, render_blocks, render_inline
from .nodes import Cmd, Env, Group, Space

# The arguments the parser takes for these (Polygon's own commands; none is LaTeX's).
COMMAND_ARGS.update({"exmp": "{{", "exmpfile": "{{", "t": "{"})
ENV_ARGS.update({"tutorial": "{"})

HEADINGS = {
    "InputFile": "Input",
    "OutputFile": "Output",
    "Interaction": "Interaction",
    "Scoring": "Scoring",
    "Examples": "Examples",
    "Example": "Example",
    "Note": "Note",
    "Notes": "Notes",
    "Explanations": "Explanations",
}


def _problem(env: Env, ctx: Context) -> str:
    """``\\begin{problem}{title}{input file}{output file}{time}{memory}``: its title is the page's; the
    files and limits are in ``problem.xml``, which the page shows."""
    groups = [n for n in env.children[:10] if not isinstance(n, Space)][:5]
    if not all(isinstance(n, Group) for n in groups) or len(groups) < 5:
        if env.name in ctx.theorems:  # a document's own \newtheorem{problem}
            return THEOREM["theorem"](env, ctx)
        groups = []
    title = groups[0] if groups else None
    if isinstance(title, Group):
        ctx.title = _plain(title.children) or ctx.title
    rest = env.children[env.children.index(groups[-1]) + 1 :] if groups else env.children
    return render_blocks(rest, ctx)


def _tutorial(env: Env, ctx: Context) -> str:
    return render_blocks(env.children, ctx)


def _heading_command(cmd: Cmd, ctx: Context) -> str:
    title = HEADINGS[cmd.name]
    return _heading(1, title, title, ctx)


def _example(env: Env, ctx: Context) -> str:
    """The ``example`` environment: its ``\\exmp`` and ``\\exmpfile`` lines, each a sample (without them,
    a theorem-like example, as documents mean it)."""
    if not any(isinstance(n, Cmd) and n.name in ("exmp", "exmpfile") for n in env.children):
        return THEOREM["theorem"](env, ctx)
    return render_blocks(env.children, ctx)


def _exmp(cmd: Cmd, ctx: Context) -> str:
    """One example: the package's next sample, whose files hold it exactly as the judge reads it; when
    the samples are used up, the text as written (its line breaks lost to TeX)."""
    if ctx.doc.samples_shown < len(ctx.doc.samples):
        return ctx.doc.next_sample(cmd.line)
    if cmd.name == "exmpfile":
        files = f"{_plain(cmd.arg(0))}, {_plain(cmd.arg(1))}"
        ctx.doc.warn(cmd.line, f"\\exmpfile{{{files}}}: the package has no sample left to show here")
        return ""
    number = str(ctx.doc.samples_shown + 1)
    ctx.doc.samples_shown += 1
    return statement_sample(Sample(number, "", None, _plain(cmd.arg(0)), _plain(cmd.arg(1))))


def _monospace(cmd: Cmd, ctx: Context) -> str:
    return f"<code>{render_inline(cmd.arg(0), ctx)}</code>"


COMMANDS = {"t": _monospace}
BLOCK_COMMANDS = {**dict.fromkeys(HEADINGS, _heading_command), "exmp": _exmp, "exmpfile": _exmp}
ENVIRONMENTS = {"problem": _problem, "tutorial": _tutorial, "example": _example}
