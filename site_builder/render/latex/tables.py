"""Tables: ``tabular`` and its kin, with alignment, rules and ``\\multicolumn``."""

from __future__ import annotations

import html
import re

from .core import Context, _plain, render_inline
from .nodes import Cmd, Env, Node, Par, Space, Special


def _tabular(env: Env, ctx: Context) -> str:
    aligns = _column_aligns(_plain(env.arg(0)))
    rows: list[tuple[list[list[Node]], bool]] = [([[]], False)]  # cells, ruled below
    for node in env.children:
        cells = rows[-1][0]
        if isinstance(node, Special) and node.char == "&":
            cells.append([])
        elif isinstance(node, Cmd) and node.name == "\\":
            rows.append(([[]], False))
        elif isinstance(node, Cmd) and node.name in ("hline", "midrule", "toprule", "bottomrule"):
            if len(rows) > 1 and _is_empty_row(rows[-1][0]):
                previous = rows[-2]
                rows[-2] = (previous[0], True)
        else:
            cells[-1].append(node)
    body_rows = [(cells, ruled) for cells, ruled in rows if not _is_empty_row(cells)]
    # A rule under the first row sets it apart as the head, unless every row has one (a grid)
    has_head = len(body_rows) > 1 and body_rows[0][1] and not all(ruled for _, ruled in body_rows)
    parts = []
    for index, (cells, _) in enumerate(body_rows):
        tag = "th" if has_head and index == 0 else "td"
        tds = "".join(_cell(tag, cell, aligns, i, ctx) for i, cell in enumerate(cells))
        row = f"<tr>{tds}</tr>"
        parts.append(f"<thead>{row}</thead><tbody>" if tag == "th" else row)
    body = "\n".join(parts) + ("</tbody>" if has_head else "")
    if not has_head:
        body = f"<tbody>{body}</tbody>"
    return f'<div class="table-wrap"><table>\n{body}\n</table></div>'


def _is_empty_row(cells: list[list[Node]]) -> bool:
    return len(cells) == 1 and all(isinstance(n, (Space, Par)) for n in cells[0])


def _cell(tag: str, nodes: list[Node], aligns: list[str], index: int, ctx: Context) -> str:
    span = ""
    align = aligns[index] if index < len(aligns) else "left"
    multi = next((n for n in nodes if isinstance(n, Cmd) and n.name == "multicolumn"), None)
    if multi is not None:
        span = f' colspan="{_plain(multi.arg(0)) or 1}"'
        align = (_column_aligns(_plain(multi.arg(1))) or ["left"])[0]
    style = f' class="{align}"' if align != "left" else ""
    content = render_inline(nodes, ctx).strip()
    if tag == "th" and not _has_words(content):
        tag = "td"  # a header cell names its column in words: an empty corner, or math alone, is no name
    scope = ' scope="col"' if tag == "th" else ""  # a head row of words and math mixes th and td: say which
    return f"<{tag}{scope}{span}{style}>{content}</{tag}>"


_MARKUP = re.compile(r"<math-slot [^>]*></math-slot>|<[^>]+>")


def _has_words(content: str) -> bool:
    """Whether a cell has text outside its math: assistive technology names a column header by its text,
    and does not read MathML for it (axe-core's ``empty-table-header``)."""
    return bool(html.unescape(_MARKUP.sub("", content)).strip())


def _column_aligns(spec: str) -> list[str]:
    spec = re.sub(r"[@!><]\{[^}]*\}|\{[^}]*\}", "", spec)
    return [{"l": "left", "c": "center", "r": "right"}.get(ch, "left") for ch in spec if ch.isalpha()]


def _multicolumn(cmd: Cmd, ctx: Context) -> str:
    return render_inline(cmd.arg(2), ctx)


COMMANDS = {"multicolumn": _multicolumn}
ENVIRONMENTS = dict.fromkeys(("tabular", "tabular*", "tabularx"), _tabular)
