"""LaTeX write-ups and statements to HTML: one small function per construct, in families, registered in tables.

``render_latex(text, path)`` parses with ``parser.py`` and renders the tree with ``core.py``, whose registries of
commands and environments the families fill: ``text``, ``links``, ``figures``, ``lists``, ``theorems``, ``tables``,
``beamer``, ``statements`` (problem packages), ``polygon`` (olymp.sty), ``booklet`` (the Italian
olympiad's), ``problemtools`` (its class's vocabulary), ``inputs`` and ``layout``.
Paragraphs are split on blank lines; block constructs (lists, sections, tables, theorems) close the paragraph
before them. Unknown macros and environments
stay visible and produce warnings with their line.
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from ...model import Document, Sample
from ..document import NO_ASSETS, Assets, Collector
from . import (
    beamer,
    booklet,
    figures,
    layout,
    links,
    lists,
    polygon,
    problemtools,
    statements,
    tables,
    text,
    theorems,
    units,
)
from . import inputs as included
from .core import BLOCK_COMMANDS, COMMANDS, ENVIRONMENTS, HOLDERS, MATH_FILTERS, THEOREM, Context, _plain, render_blocks
from .macros import Macro, Macros, expand_macros, tex_escape
from .nodes import Cmd, Env, Node
from .parser import parse_latex
from .refs import fill_refs
from .text import _footnotes
from .theorems import THEOREMS, _theorem

FAMILIES: tuple[ModuleType, ...] = (text, links, figures, lists, theorems, tables, beamer, statements, polygon)
FAMILIES += (booklet, problemtools, included, layout, units)
for family in FAMILIES:
    COMMANDS.update(getattr(family, "COMMANDS", {}))
    BLOCK_COMMANDS.update(getattr(family, "BLOCK_COMMANDS", {}))
    HOLDERS.update(getattr(family, "HOLDERS", {}))
    MATH_FILTERS.extend(getattr(family, "MATH_FILTERS", ()))
    ENVIRONMENTS.update(getattr(family, "ENVIRONMENTS", {}))
THEOREM["theorem"] = _theorem

__all__ = ["render_latex"]


def render_latex(
    text: str,
    path: str,
    *,
    assets: Assets = NO_ASSETS,
    id_prefix: str = "",
    asset_base: str = "",
    samples: tuple[Sample, ...] = (),
    constants: dict[str, str] | None = None,
    inputs: dict[str, str] | None = None,
    folder: str = "",
    problem_title: str = "",
    time_limit: float | None = None,
) -> tuple[Document, list[tuple[int, str]]]:
    """Render a LaTeX document or fragment. Returns the document and its warnings (line, message).

    ``assets`` are the image files beside the document (``asset_base`` is their folder on the page).
    A problem package's statement may place its ``samples`` with ``\\nextsample`` and
    ``\\remainingsamples`` and use its ``constants`` with ``\\constant{name}``. ``inputs`` are the
    other ``.tex`` files beside it, which ``\\input`` and ``\\include`` inline, by their paths from its
    folder (``../common/template.tex``); ``folder`` is that folder in the archive, which they may leave but
    not the archive ("": they may not leave the folder).
    ``problem_title`` and ``time_limit`` are what contest templates' ``\\problemtitle`` and ``\\timelimit``
    (seconds) stand for.

    Raises ``LatexError`` with file and line for unbalanced braces, unclosed environments and
    other input that has no sensible rendering.
    """
    macros = Macros()
    macros.defined["problemtitle"] = Macro(0, None, tex_escape(problem_title))
    if time_limit is not None:
        macros.defined["timelimit"] = Macro(0, None, f"{time_limit:g}")
    nodes = parse_latex(expand_macros(text, path, macros, inputs, folder), path)
    ctx = Context(
        folder=folder,
        macros=macros,
        doc=Collector(path=path, id_prefix=id_prefix, samples=samples),
        assets=assets,
        asset_base=asset_base,
        constants=constants or {},
        inputs=inputs or {},
    )
    ctx.theorems = {name: (title, name) for name, title in THEOREMS.items()}
    body = _split_preamble(nodes, ctx)
    html_text = fill_refs(render_blocks(body, ctx, top=True) + _footnotes(ctx), ctx)
    document = Document(
        file=path.rsplit("/", 1)[-1],
        html=html_text,
        toc=tuple(replace(h, html=fill_refs(h.html, ctx)) for h in ctx.doc.toc),
        title=ctx.title,
        summary_html=fill_refs(ctx.summary, ctx) if ctx.summary else ctx.summary,
        math=tuple(ctx.doc.math),
        pictures=tuple(ctx.doc.pictures),
    )
    return document, ctx.doc.warnings


def _split_preamble(nodes: list[Node], ctx: Context) -> list[Node]:
    """Read \\newtheorem and \\title from the preamble; return the body of the document."""
    for i, node in enumerate(nodes):
        if isinstance(node, Env) and node.name == "document":
            for item in nodes[:i]:
                if isinstance(item, Cmd):
                    _preamble_command(item, ctx)
            return node.children
    return nodes


def _preamble_command(cmd: Cmd, ctx: Context) -> None:
    if cmd.name == "newtheorem":
        name = _plain(cmd.arg(0))
        shared = cmd.option()
        ctx.theorems[name] = (_plain(cmd.arg(1)), None if cmd.star else (_plain(shared) if shared else name))
    elif cmd.name == "title":
        ctx.title = _plain(cmd.arg(0))
