"""Theorems and proofs: the usual theorem-like environments, those a preamble declares, ``proof``."""

from __future__ import annotations

import html

from .arguments import take_option
from .core import Context, render_blocks, render_inline
from .nodes import Env
from .refs import Target

THEOREMS = {
    "theorem": "Theorem",
    "lemma": "Lemma",
    "corollary": "Corollary",
    "proposition": "Proposition",
    "definition": "Definition",
    "claim": "Claim",
    "remark": "Remark",
    "observation": "Observation",
    "example": "Example",
    "conjecture": "Conjecture",
    "fact": "Fact",
    "note": "Note",
    "exercise": "Exercise",
}


def _theorem(env: Env, ctx: Context) -> str:
    title, counter = ctx.theorems[env.name]
    head = title
    if counter is not None:
        ctx.counters[counter] = ctx.counters.get(counter, 0) + 1
        head = f"{title} {ctx.counters[counter]}"
    note = take_option(env.children, ctx.doc.path, env)
    if note is not None:
        head += f" ({render_inline(note, ctx).strip()})"
    anchor = ctx.doc.unique_id(head)
    ctx.label_target = Target(str(ctx.counters[counter]) if counter is not None else "", anchor, env.name)
    body = _with_run_in(render_blocks(env.children, ctx), f'<strong class="thm-head">{head}.</strong>')
    return f'<div class="theorem theorem-{html.escape(env.name)}" id="{anchor}">\n{body}\n</div>'


def _proof(env: Env, ctx: Context) -> str:
    note = take_option(env.children, ctx.doc.path, env)
    head = render_inline(note, ctx).strip() if note is not None else "Proof"
    body = render_blocks(env.children, ctx)
    body = _with_run_in(body, f'<em class="proof-head">{head}.</em>')
    if 'class="qed"' not in body:
        qed = '<span class="qed" role="img" aria-label="end of proof">\u220e</span>'
        body = body[:-4] + f" {qed}</p>" if body.endswith("</p>") else f"{body}\n<p>{qed}</p>"
    return f'<div class="proof">\n{body}\n</div>'


def _with_run_in(body: str, head: str) -> str:
    """Put a run-in heading at the start of the first paragraph."""
    if body.startswith("<p>"):
        return f"<p>{head} {body[3:]}"
    return f"<p>{head}</p>\n{body}"


ENVIRONMENTS = {"proof": _proof}
