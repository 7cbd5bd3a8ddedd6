"""HTML tags written in Markdown: a few kept as formatting, every other shown as written.

Archives are hostile, so raw HTML never reaches a page. But statements written for judges' Markdown
use a few tags for formatting: ``<br />`` for a line break (59 times in one public olympiad set),
``<b>``, ``<sub>``, ``<sup>``. Those tags, written without attributes, become the same elements,
and only where they open and close in order within one paragraph (an unclosed ``<b>`` would run on
over the rest of the page). ``<img src="file" width=250>`` (four of one set's statements) becomes a
Markdown image, checked as one is (a file of the problem folder), keeping its ``alt``, ``title`` and
size (in pixels, or a width in percent); any other attribute is dropped, with a warning. Any other
tag (``<span style=...>``, ``<script>``) is shown as its text exactly, untouched by the typographer
(which would curl its quotes), with a warning naming its line. A comment (``<!-- ... -->``) within
a paragraph is hidden.
"""

from __future__ import annotations

import re
from html import escape, unescape
from typing import Any

from markdown_it.common.html_re import close_tag, comment, open_tag
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

KEPT = ("b", "strong", "i", "em", "u", "s", "del", "sub", "sup", "br")
VOID = frozenset({"br"})  # kept alone: nothing to close
_TAG = re.compile(f"{open_tag}|{close_tag}|{comment}")
_BARE = re.compile(r"<(/?)([A-Za-z]+)\s*/?>")  # a tag without attributes
_IMG = re.compile(r"<img(?=[\s/>])", re.IGNORECASE)
# An attribute of a tag that matched ``open_tag``: its name, then its value quoted either way, or bare.
_ATTRIBUTE = re.compile(r"""\s([A-Za-z_:][\w:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
IMAGE_ATTRIBUTES = ("src", "alt", "title", "width", "height")
_PIXELS = re.compile(r"\s*([1-9][0-9]{0,4})\s*(?:px)?\s*", re.IGNORECASE)
_PERCENT = re.compile(r"\s*(100|[1-9][0-9]?)\s*%\s*")  # a width as a share of the text's


def raw_tag(state: StateInline, silent: bool) -> bool:
    """The inline rule, where CommonMark's ``html_inline`` (off: ``html`` is False) would be: one
    tag as a ``raw_tag`` token, its name in ``meta`` when it is one of ``KEPT``."""
    if state.src[state.pos] != "<" or (found := _TAG.match(state.src, state.pos)) is None:
        return False
    if not silent and _IMG.match(found.group()) and (image := _image(found.group())) is not None:
        _push_image(state, image)
    elif not silent:
        token = state.push("raw_tag", "", 0)
        token.content = found.group()
        bare = _BARE.fullmatch(token.content)
        name = bare.group(2).lower() if bare else ""
        closing = bool(bare and bare.group(1))
        token.meta = {"name": name if name in KEPT else "", "closing": closing, "offset": state.pos, "kept": False}
    state.pos = found.end()
    return True


def _image(tag: str) -> dict[str, str] | None:
    """An ``<img>`` tag's attributes, by lower-case name (the first of a name counts, as in HTML);
    None without a ``src``, or with one that is empty."""
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(tag, 4):
        name, value = match.group(1).lower(), next((v for v in match.groups()[1:] if v is not None), "")
        found.setdefault(name, unescape(value))
    return found if found.get("src", "").strip() else None


def _push_image(state: StateInline, image: dict[str, str]) -> None:
    """An ``<img>`` as the token ``![alt](src "title")`` gives, with the size it asks for in ``meta``
    (``markdown._annotate_inline`` checks its file and gives it its size), and what it drops."""
    token = state.push("image", "img", 0)
    attributes: dict[str, str | int | float] = {"src": image["src"], "alt": ""}
    token.attrs = attributes | ({"title": image["title"]} if image.get("title") else {})
    token.content = image.get("alt", "")
    token.children = [Token("text", "", 0, content=token.content)] if token.content else []
    share = _PERCENT.fullmatch(image.get("width", ""))
    sizes = [n for n in ("width", "height") if n in image and not (n == "width" and share)]
    wrong = [name for name in sizes if share or not _PIXELS.fullmatch(image[name])]  # a share keeps the proportions
    dropped = sorted(set(image) - set(IMAGE_ATTRIBUTES)) + [f"{name}={image[name]!r}" for name in wrong]
    token.meta = {"size": _size(image), "share": int(share.group(1)) if share else None, "dropped": dropped}


def _size(image: dict[str, str]) -> tuple[int | None, int | None]:
    """The width and height asked for, in pixels (None where none is, or one is not in pixels)."""
    return tuple(  # type: ignore[return-value]
        int(m.group(1)) if (m := _PIXELS.fullmatch(image.get(name, ""))) else None for name in ("width", "height")
    )


def balance_raw_tags(state: StateCore) -> None:
    """The core rule after the inline pass: keep each ``KEPT`` tag that opens and closes in order
    within its paragraph (or heading, or cell); warn of every other tag, which stays text."""
    collector = state.env.get("collector")
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        opened: list[Token] = []
        for child in token.children:
            if child.type != "raw_tag":
                continue
            name, closing = child.meta["name"], child.meta["closing"]
            if name in VOID and not closing:
                child.meta["kept"] = True
            elif name and not closing:
                opened.append(child)
            elif name and opened and opened[-1].meta["name"] == name:
                opened.pop().meta["kept"] = child.meta["kept"] = True
        warned = state.env.setdefault("raw_tags_warned", set())  # one warning per tag name a document
        for child in token.children:
            name = _NAME.match(child.content) if child.type == "raw_tag" and not child.meta["kept"] else None
            if name and collector is not None and name.group(1).lower() not in warned:
                warned.add(name.group(1).lower())
                line = (token.map[0] if token.map else 0) + token.content.count("\n", 0, child.meta["offset"]) + 1
                collector.warn(line, _shown(child))


_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")  # a tag's name (a comment has none)


def _shown(tag: Token) -> str:
    if tag.meta["name"]:
        return f"HTML tag {tag.content!r} is shown as text: it does not open and close in order in its paragraph"
    kept = ", ".join(f"<{name}>" for name in KEPT)
    return (
        f"HTML tag {tag.content!r} is shown as text: only formatting tags without attributes are kept ({kept});"
        " an image is ![text](file)"
    )


def text_of(inline: Token) -> str:
    """An inline token's source without the tags kept as elements: a heading's text, for its id and the
    table of contents ("H<sub>2</sub>O" is "H2O")."""
    kept = [c for c in inline.children or () if c.type == "raw_tag" and c.meta["kept"]]
    text, at = [], 0
    for tag in kept:
        text.append(inline.content[at : tag.meta["offset"]])
        at = tag.meta["offset"] + len(tag.content)
    return "".join(text) + inline.content[at:]


def render_raw_tag(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    tag = tokens[idx]
    if tag.content.startswith("<!--"):
        return ""  # a comment is hidden, as its author meant (it has no name, so no warning)
    if tag.meta["kept"]:
        return f"<{'/' if tag.meta['closing'] else ''}{tag.meta['name']}>"
    return escape(tag.content, quote=False)
