"""Markdown write-ups and statements: the one configured ``MarkdownIt`` instance and its plugins.

CommonMark with tables, strikethrough, footnotes and ``$``/``$$`` math; raw HTML is shown as text,
but for a few formatting tags (``rawhtml``); fenced code is highlighted by Pygments; headings get
unique ids and shift below the page's own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from ..model import Document, Heading, Sample, TexPicture
from ..source.package import substitute_constants
from . import highlight, rawhtml
from .document import NO_ASSETS, Assets, Collector, heading_link, is_local_path, linked_figure, safe_url
from .latex.symbols import constants_in_math, grouped

HEADING_OFFSET = 1  # "## Idea" is <h3>: the page has <h1> (title) and <h2> (Statement, Editorial)


def _highlight_fence(code: str, lang: str, attrs: str) -> str:
    return highlight.render_block(code.rstrip("\n") + "\n", lang.split()[0] if lang else None)


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    md = MarkdownIt(
        "commonmark", {"html": False, "xhtmlOut": False, "typographer": True, "highlight": _highlight_fence}
    )
    md.enable(["table", "strikethrough", "replacements", "smartquotes"])
    commonmark_check = md.validateLink
    md.validateLink = lambda url: commonmark_check(url) and safe_url(url) is not None  # type: ignore[method-assign]
    md.use(footnote_plugin)
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
    for rule in ("math_inline", "math_inline_double", "math_block", "math_block_label"):
        md.add_render_rule(rule, _render_math)
    md.core.ruler.before("text_join", "unmatched_dollar", _warn_unmatched_dollars)
    md.core.ruler.after("text_join", "constraints_in_text", _constraints_in_text)
    md.inline.ruler.before("html_inline", "raw_tag", rawhtml.raw_tag)
    md.core.ruler.after("inline", "balance_raw_tags", rawhtml.balance_raw_tags)
    md.add_render_rule("raw_tag", rawhtml.render_raw_tag)
    md.add_render_rule("heading_open", _render_heading_open)
    md.add_render_rule("heading_close", _render_heading_close)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    return md


def render_markdown(
    text: str,
    path: str,
    *,
    assets: Assets = NO_ASSETS,
    id_prefix: str = "",
    asset_base: str = "",
    samples: tuple[Sample, ...] = (),
    constants: dict[str, str] | None = None,
) -> tuple[Document, list[tuple[int, str]]]:
    """Render Markdown. Returns the document and its warnings (line, message).

    ``assets`` are the image files beside the document (``asset_base`` is their folder on the page);
    a problem package's statement may place its ``samples`` with ``{{nextsample}}`` and
    ``{{remainingsamples}}`` and use its ``constants`` as ``{{name}}``.
    """
    md = markdown_parser()
    doc = Collector(path=path, id_prefix=id_prefix, samples=samples)
    env: dict[str, Any] = {"collector": doc, "docId": id_prefix.strip("-") or None, "constants": constants or {}}
    tokens = md.parse(substitute_constants(text, constants or {}), env)
    title = _take_title(tokens)
    _annotate(tokens, doc, assets, asset_base)
    summary = _summary_tokens(tokens)
    html_text = md.renderer.render(tokens, md.options, env)
    if samples and "{{" in html_text:
        html_text = _SAMPLE_PLACEHOLDER.sub(lambda m: _place_samples(m, doc), html_text)
    summary_html = md.renderer.render(summary, md.options, env).strip() if summary else None
    if summary_html and summary_html.startswith("<p>") and summary_html.endswith("</p>"):
        summary_html = summary_html[3:-4]
    document = Document(
        file=path.rsplit("/", 1)[-1],
        html=html_text,
        toc=tuple(_rendered_headings(doc.toc, html_text)),
        title=title,
        summary_html=summary_html,
        math=tuple(doc.math),
        pictures=tuple(doc.pictures),
    )
    return document, doc.warnings


_SAMPLE_PLACEHOLDER = re.compile(r"<p>\{\{(nextsample|remainingsamples)\}\}</p>")


def _place_samples(match: re.Match[str], doc: Collector) -> str:
    if match.group(1) == "nextsample":
        return doc.next_sample(0)
    return doc.remaining_samples()


def _rendered_headings(toc: list[Heading], html_text: str) -> list[Heading]:
    """The table of contents with each heading as the page renders it (its math a slot, filled as the
    body's is), not as its Markdown source."""
    out = []
    for heading in toc:
        m = re.search(rf'<h[1-6] id="{re.escape(heading.id)}">(.*?)(?:<a class="anchor"|</h[1-6]>)', html_text, re.S)
        out.append(replace(heading, html=m.group(1).strip()) if m else heading)
    return out


def _take_title(tokens: list[Token]) -> str | None:
    """A document that opens with a level-1 heading: that heading is its title, not its content."""
    if len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        title = rawhtml.text_of(tokens[1]).strip()
        del tokens[:3]
        return title
    return None


def _annotate(tokens: list[Token], doc: Collector, assets: Assets, asset_base: str) -> None:
    """Give headings ids and shifted levels, inline tokens their source lines; check images."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            level = min(int(token.tag[1]) + HEADING_OFFSET, 6)
            level = max(level, 3)
            text = rawhtml.text_of(tokens[i + 1])
            anchor = doc.unique_id(text)
            token.tag = tokens[i + 2].tag = f"h{level}"
            token.attrSet("id", anchor)
            tokens[i + 2].meta["anchor"] = anchor
            doc.toc.append(Heading(level - 2, anchor, html.escape(text)))
        if token.type == "inline" and token.children:
            _annotate_inline(token, doc, assets, asset_base)
        if token.type == "th_open" and not _has_words(tokens[i + 1]):
            token.tag = tokens[i + 2].tag = "td"  # an empty or math-only header cell names no column
        elif token.type == "th_open":
            token.attrSet("scope", "col")  # a head row of words and math mixes th and td: say which


def _has_words(inline: Token) -> bool:
    """Whether a table cell has text outside its math: assistive technology names a column header by
    its text, and does not read MathML for it (axe-core's ``empty-table-header``)."""
    return any(c.type not in ("math_inline", "math_inline_double") and c.content.strip() for c in inline.children or [])


def _annotate_inline(token: Token, doc: Collector, assets: Assets, asset_base: str) -> None:
    line = token.map[0] + 1 if token.map else 0
    for child in token.children or []:
        child.meta["line"] = line
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "image":
            src = str(child.attrGet("src") or "")
            if dropped := child.meta.get("dropped"):  # an HTML <img> (``rawhtml``)
                kept = "src, alt, title, a width and height in pixels, or a width in percent"
                doc.warn(line, f"image {src!r}: {', '.join(dropped)} dropped; an HTML image keeps only {kept}")
            if not is_local_path(src):
                doc.warn(line, f"image {src!r} dropped: images must be files in the problem folder")
                child.type, child.content, child.children = "text", child.content, None
            elif src.removeprefix("./") not in assets:
                doc.warn(line, f"image {src!r} not found in the problem folder; dropped")
                child.type, child.content, child.children = "text", child.content, None
            elif src.lower().endswith(".eps"):
                doc.warn(line, f"{src}: an EPS figure is shown as a link to the file (save it as PDF or SVG)")
                child.type, child.children = "html_inline", None
                child.content = linked_figure(asset_base + src.removeprefix("./"))
            elif src.lower().endswith(".pdf"):  # converted at build time, as a LaTeX document's are
                figure = TexPicture("", "", line, (asset_base + src.removeprefix("./"),), kind="pdf")
                child.type, child.content, child.children = "html_inline", doc.picture_slot(figure, True), None
            else:
                natural = assets[src.removeprefix("./")]
                share = child.meta.get("share")  # a width in percent: shown as LaTeX's \includegraphics shows one
                size = (natural or (None, None)) if share else shown_size(natural, child.meta.get("size", (None, None)))
                _image_attributes(child, asset_base + src.removeprefix("./"), size)
                if share:
                    child.attrSet("style", f"width: {share}%")


def shown_size(natural: tuple[int, int] | None, asked: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
    """The width and height an image is shown at: those its HTML tag asks for, the other one kept in
    the image's proportions (when its own size is known), else its own size."""
    width, height = asked
    if natural is None or min(natural) <= 0:
        return asked if width or height else (None, None)
    if width and not height:
        height = max(1, round(natural[1] * width / natural[0]))
    elif height and not width:
        width = max(1, round(natural[0] * height / natural[1]))
    return (width, height) if width and height else natural


def _image_attributes(image: Token, src: str, size: tuple[int | None, int | None]) -> None:
    """An image of the archive as ``image_html`` gives one: its size, loaded lazily, decoded off the main thread."""
    image.attrSet("src", src)
    if size[0]:
        image.attrSet("width", str(size[0]))
    if size[1]:
        image.attrSet("height", str(size[1]))
    image.attrSet("loading", "lazy")
    image.attrSet("decoding", "async")


_CONSTRAINTS = re.compile(r"\\constraints\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _constraints_in_text(state: StateCore) -> None:
    """task-maker's ``\\constraints{NAME}`` in a statement's text (in its math, ``_render_math`` writes it):
    the number of gen/constraints.py's ``NAME``, grouped as its booklet prints it."""
    constants, collector = state.env.get("constants") or {}, state.env.get("collector")

    def value(m: re.Match[str], line: int) -> str:
        if m.group(1) in constants:
            return grouped(constants[m.group(1)], False)
        if collector is not None:
            name = m.group(1)
            collector.warn(line, f"\\constraints{{{name}}}: gen/constraints.py defines no constant {name!r}")
        return m.group()

    for token in state.tokens:
        line = (token.map[0] if token.map else 0) + 1
        for child in token.children or () if token.type == "inline" else ():
            line += child.type in ("softbreak", "hardbreak")
            if child.type == "text" and "\\constraints{" in child.content:
                child.content = _CONSTRAINTS.sub(partial(value, line=line), child.content)


def _warn_unmatched_dollars(state: StateCore) -> None:
    """A ``$`` left as text (not escaped as ``\\$``, not in code) opened math that never closed:
    the formula and the text after it are shown as TeX source."""
    collector = state.env.get("collector")
    if collector is None:
        return
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        line = token.map[0] + 1 if token.map else 0
        for child in token.children:
            if child.type == "text" and "$" in child.content:
                collector.warn(line, "a '$' that opens math is never closed; write \\$ for a dollar sign")
                break
            line += child.type in ("softbreak", "hardbreak")


def _summary_tokens(tokens: list[Token]) -> list[Token]:
    """The first paragraph after the first top-level heading (or the first paragraph at all)."""
    headings = [i for i, t in enumerate(tokens) if t.type == "heading_open"]
    start = headings[0] if headings else 0
    for i in range(start, len(tokens) - 2):
        if tokens[i].type == "paragraph_open" and tokens[i].level == 0:
            return tokens[i : i + 3]
    return []


def _render_math(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    collector: Collector = env["collector"]
    display = token.type in ("math_block", "math_block_label", "math_inline_double")
    line = token.map[0] + 1 if token.map else int(token.meta.get("line", 0))
    slot = collector.math_slot(constants_in_math(token.content.strip(), env.get("constants", {})), display, line)
    return f"{slot}\n" if token.block else slot


def _render_heading_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env)


def _render_heading_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    anchor = tokens[idx].meta.get("anchor")
    link = heading_link(anchor) if anchor else ""
    return f"{link}</{tokens[idx].tag}>\n"


def _render_table_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return '<div class="table-wrap">' + self.renderToken(tokens, idx, options, env)


def _render_table_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"
