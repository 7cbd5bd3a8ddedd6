"""The Italian olympiad's statement vocabulary (the booklet class CMS tasks' ``testo/*.tex`` fragments are
set in; its ``\\InputFile``, ``\\OutputFile``, ``\\Examples``, ``\\Scoring`` and ``\\exmp`` are olymp.sty's,
in ``polygon.py``): the headings ``\\Implementation``, ``\\Constraints``, ``\\Explanation``, and those a
statement makes with ``\\createsection{\\Grader}{title}`` (``macros.py``), and its framed ``warning`` note;
with the two packages those statements load, ``mdframed``'s framed box and ``pifont``'s ``\\ding{number}``,
a Zapf Dingbats sign."""

from __future__ import annotations

import html

from .arguments import COMMAND_ARGS, ENV_ARGS
from .core import Context, _heading, _plain, render_blocks
from .nodes import Cmd, Env

COMMAND_ARGS.update({"ding": "{"})
ENV_ARGS.update({"mdframed": "["})

HEADINGS = {"Implementation": "Implementation", "Constraints": "Constraints", "Explanation": "Explanation"}


def _heading_command(cmd: Cmd, ctx: Context) -> str:
    title = HEADINGS[cmd.name]
    return _heading(1, title, title, ctx)


def _framed(env: Env, ctx: Context) -> str:
    return f'<div class="boxed">\n{render_blocks(env.children, ctx)}\n</div>'


# Zapf Dingbats (pifont's \ding) to Unicode: most of its signs are U+2700 + (code - 32), these are not.
_DINGBATS_ELSEWHERE = {
    0x25: 0x260E, 0x2A: 0x261B, 0x2B: 0x261E, 0x48: 0x2605, 0x6C: 0x25CF,
    0x6E: 0x25A0, 0x73: 0x25B2, 0x74: 0x25BC, 0x75: 0x25C6, 0x77: 0x25D7,
}  # fmt: skip
# Its numbered circles: 172-181 (1 to 10), 182-191 (on black), 192-201 and 202-211 (sans serif).
_DINGBAT_RUNS = ((172, 181, 0x2460), (182, 211, 0x2776))


def dingbat(code: int) -> str | None:
    """The Unicode sign of Zapf Dingbats' ``code`` (None for a code this table does not know)."""
    if 0x21 <= code <= 0x7E:
        return chr(_DINGBATS_ELSEWHERE.get(code, 0x2700 + code - 0x20))
    for first, last, start in _DINGBAT_RUNS:
        if first <= code <= last:
            return chr(start + code - first)
    return None


def _ding(cmd: Cmd, ctx: Context) -> str:
    number = _plain(cmd.arg(0)).strip()
    sign = dingbat(int(number)) if number.isdigit() else None
    if sign is None:
        shown = f"\\ding{{{number}}}"
        ctx.warn_unknown(f"{shown} (a Zapf Dingbats sign)", cmd.line)
        return f'<code class="unknown">{html.escape(shown)}</code>'
    return sign


COMMANDS = {"ding": _ding}
BLOCK_COMMANDS = dict.fromkeys(HEADINGS, _heading_command)
# ``warning``: the booklet's framed note (statements that define their own get theirs)
ENVIRONMENTS = {"mdframed": _framed, "warning": _framed}
