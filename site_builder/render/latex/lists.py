"""Lists: ``itemize``, ``enumerate``, ``description`` and LaTeX's own ``list`` (as ``itemize``), nested,
with ``\\item[label]``."""

from __future__ import annotations

from .core import Context, render_blocks, render_inline
from .nodes import Cmd, Env, Node, Par, Space
from .symbols import IGNORED


def _list(env: Env, ctx: Context) -> str:
    items = _split_items(env, ctx)
    depth = ctx.list_depth.get(env.name, 0)
    if env.name in ctx.list_depth:
        ctx.list_depth[env.name] = depth + 1
    try:
        rendered = [(_plain_label(opt, ctx), _item_body(body, ctx)) for opt, body in items]
    finally:
        if env.name in ctx.list_depth:
            ctx.list_depth[env.name] = depth
    if env.name == "description":
        inner = "".join(f"<dt>{label or ''}</dt><dd>{body}</dd>\n" for label, body in rendered)
        return f"<dl>\n{inner}</dl>"
    lis = "".join(
        (
            f'<li class="labelled"><span class="item-label">{label}</span> {body}</li>\n'
            if label is not None
            else f"<li>{body}</li>\n"
        )
        for label, body in rendered
    )
    if env.name == "enumerate":
        kind = ("1", "a", "i", "A")[depth % 4]
        type_attr = "" if kind == "1" else f' type="{kind}"'
        return f'<ol class="enum-{depth % 4 + 1}"{type_attr}>\n{lis}</ol>'
    return f'<ul class="items-{depth + 1}">\n{lis}</ul>'


def _split_items(env: Env, ctx: Context) -> list[tuple[list[Node] | None, list[Node]]]:
    items: list[tuple[list[Node] | None, list[Node]]] = []
    for node in _unwrapped(env.children):
        if isinstance(node, Cmd) and node.name == "item":
            items.append((node.option(), []))
        elif items:
            items[-1][1].append(node)
        elif not isinstance(node, (Space, Par)) and not (isinstance(node, Cmd) and node.name in IGNORED):
            ctx.doc.warn(getattr(node, "line", env.line), f"text before the first \\item in {env.name}; ignored")
    return items


def _unwrapped(nodes: list[Node]) -> list[Node]:
    """A list's nodes, with the items of a ``samepage`` (or the like) inside it taken out of it."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, Env) and node.name in WRAPPERS:
            out.extend(_unwrapped(node.children))
        else:
            out.append(node)
    return out


WRAPPERS = frozenset({"samepage"})


def _plain_label(option: list[Node] | None, ctx: Context) -> str | None:
    return None if option is None else render_inline(option, ctx).strip()


def _item_body(nodes: list[Node], ctx: Context) -> str:
    body = render_blocks(nodes, ctx)
    if body.startswith("<p>") and body.endswith("</p>") and body.count("<p>") == 1:
        return body[3:-4]  # a tight item: one paragraph, no wrapper
    return body


def _item_outside_list(cmd: Cmd, ctx: Context) -> str:
    ctx.doc.warn(cmd.line, "\\item outside a list")
    return ""


COMMANDS = {"item": _item_outside_list}
ENVIRONMENTS = dict.fromkeys(("itemize", "enumerate", "description", "list"), _list)  # list{label}{spacing}
