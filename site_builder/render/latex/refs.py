"""Cross-references: ``\\label`` where a number was just given (a section, figure, table, equation, theorem),
``\\ref``, ``\\eqref``, ``\\autoref``, ``\\cref`` and ``\\pageref`` as links to it, numbered as LaTeX numbers.

``links.py`` has the commands; this module has what the core needs, and imports nothing of it: it asks of a
rendering's context only what ``RefContext`` names, which ``core.Context`` has.
A reference may come before its label, so it is a slot until the document is rendered (``fill_refs``).
Equations are numbered here, not by Temml: each numbered row gets a ``\\tag`` with its number, so the
numbers run through the whole document, and a ``\\label`` inside math becomes an anchor before it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Protocol

from ..document import Collector, slugify

NUMBERED_MATH = re.compile(r"\\begin\{(equation|align|gather|multline|flalign|alignat|eqnarray)\}")
_MATH_LABEL = re.compile(r"\\label\s*\{([^{}]*)\}")
_NO_NUMBER = re.compile(r"\\(?:nonumber|notag)\b")
_TAG = re.compile(r"\\tag\*?\s*\{")
_ROWS = re.compile(r"\\\\(?:\[[^\]]*\])?")
_SLOT = re.compile(r'<ref-slot kind="(\w+)" key="([^"]*)" line="(\d+)"></ref-slot>')
KIND_NAMES = {"section": "Section", "figure": "Figure", "table": "Table", "equation": "Equation"}


@dataclass(frozen=True, slots=True)
class Target:
    """What a ``\\label`` names: its number as shown, the id to link to, and what it is ("Figure")."""

    number: str
    anchor: str
    kind: str


class RefContext(Protocol):
    """What references read and write of a rendering (``core.Context``): its document, its labels and counters."""

    doc: Collector
    labels: dict[str, Target]
    counters: dict[str, int]


def fill_refs(text: str, ctx: RefContext) -> str:
    """The document with every reference slot replaced by a link to its label (``??`` and a warning
    for a label the document does not have)."""

    def link(m: re.Match[str]) -> str:
        kind, key, line = m.group(1), html.unescape(m.group(2)), int(m.group(3))
        target = ctx.labels.get(key)
        if target is None:
            ctx.doc.warn(line, f"\\ref{{{key}}}: the document has no \\label{{{key}}}; shown as ??")
            return '<span class="ref-missing">??</span>'
        shown = target.number or key
        if kind == "eq":
            shown = f"({shown})"
        elif kind == "auto" and target.kind:
            shown = f"{KIND_NAMES.get(target.kind, target.kind.title())}&nbsp;{shown}"
        return f'<a class="ref" href="#{target.anchor}">{shown}</a>'

    return _SLOT.sub(link, text)


def number_equations(tex: str, ctx: RefContext) -> tuple[str, str]:
    """A numbered display (``equation``, ``align``...) as Temml should show it: starred, each numbered row
    tagged with its number; and the anchors of its labels, to put before it."""
    m = NUMBERED_MATH.match(tex)
    if m is None:
        return tex, ""
    env = m.group(1)
    body = tex[m.end() : len(tex) - len(f"\\end{{{env}}}")]
    rows = [body] if env == "equation" or env == "multline" else _ROWS.split(body)
    separators = [""] if len(rows) == 1 else _ROWS.findall(body)
    anchors: list[str] = []
    out: list[str] = []
    for i, row in enumerate(rows):
        labels = _MATH_LABEL.findall(row)
        row = _MATH_LABEL.sub("", row)
        number = ""
        if not _NO_NUMBER.search(row) and not _TAG.search(row) and row.strip():
            ctx.counters["equation"] = ctx.counters.get("equation", 0) + 1
            number = str(ctx.counters["equation"])
            row = f"{row.rstrip()} \\tag{{{number}}}"
        row = _NO_NUMBER.sub("", row)
        for key in labels:
            anchor = ctx.doc.unique_id(slugify(key))
            ctx.labels.setdefault(key, Target(number, anchor, "equation"))
            anchors.append(f'<span id="{anchor}"></span>')
        out.append(row + (separators[i] if i < len(separators) else ""))
    return f"\\begin{{{env}*}}{''.join(out)}\\end{{{env}*}}", "".join(anchors)
