"""What the LaTeX and Markdown renderers share: heading ids, math slots, safe links, summaries."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from urllib.parse import unquote

from ..model import Heading, MathSnippet, Sample, TexPicture

# The image files beside a document, by name, with the width and height they are shown at (None: not known)
Assets = Mapping[str, tuple[int, int] | None]
NO_ASSETS: Assets = MappingProxyType({})

# Ids the page templates use themselves; headings of documents must not take them.
RESERVED_IDS = frozenset(
    {
        "main",
        "top",
        "content",
        "toc",
        "meta",
        "summary",
        "statement",
        "editorial",
        "code",
        "sources",
        "samples",
        "files",
        "search",
        "nav",
        "footer",
        "header",
        "errors",
        "footnotes",
        "theme-toggle",
    }
)
_SLOT = re.compile(r'<math-slot n="(\d+)"></math-slot>')
# A tag, or a heading's "#" link whole: plain text shows neither.
_TAG = re.compile(r'<a class="anchor" [^>]*>#</a>|<[^>]+>')
_HEADING_END = re.compile(r"</h[1-6]>")
_SAFE_SCHEME = re.compile(r"^(https?:|mailto:|#|[^:/?#]*(?:[/?#]|$))", re.I)


def slugify(text: str) -> str:
    """ASCII slug for ids and URLs: "Lemma 2 (Key)" -> "lemma-2-key"."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug or "section"


@dataclass(slots=True)
class Collector:
    """Mutable state of one document rendering: ids, headings, math snippets, warnings."""

    path: str
    id_prefix: str = ""
    ids: set[str] = field(default_factory=set)
    toc: list[Heading] = field(default_factory=list)
    math: list[MathSnippet] = field(default_factory=list)
    pictures: list[TexPicture] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)
    samples: tuple[Sample, ...] = ()  # for a statement's \nextsample and \remainingsamples
    samples_shown: int = 0

    def next_sample(self, line: int) -> str:
        """The next sample as a block, for a statement that places its samples itself."""
        if self.samples_shown >= len(self.samples):
            self.warn(line, f"no sample left to show (the package has {len(self.samples)})")
            return ""
        self.samples_shown += 1
        return statement_sample(self.samples[self.samples_shown - 1])

    def named_sample(self, name: str) -> str | None:
        """The sample of that name as a block (None: the package has none), for problemtools' sample commands."""
        found = next((s for s in self.samples if s.name == name), None)
        return None if found is None else statement_sample(found)

    def remaining_samples(self) -> str:
        shown = self.samples[self.samples_shown :]
        self.samples_shown = len(self.samples)
        return "\n".join(statement_sample(s) for s in shown)

    def unique_id(self, text: str) -> str:
        base = self.id_prefix + slugify(text)
        candidate, n = base, 1
        while candidate in self.ids or candidate in RESERVED_IDS:
            n += 1
            candidate = f"{base}-{n}"
        self.ids.add(candidate)
        return candidate

    def math_slot(self, tex: str, display: bool, line: int) -> str:
        self.math.append(MathSnippet(tex, display, line))
        return f'<math-slot n="{len(self.math) - 1}"></math-slot>'

    def picture_slot(self, picture: TexPicture, inline: bool, display: bool = False) -> str:
        """``display``: a displayed formula TeX draws, in a paragraph (a span) shown as a block."""
        self.pictures.append(picture)
        tag = "span" if inline else "div"
        kind = "tex-picture tex-display" if display else "tex-picture"
        return f'<{tag} class="{kind}"><picture-slot n="{len(self.pictures) - 1}"></picture-slot></{tag}>'

    def warn(self, line: int, message: str) -> None:
        self.warnings.append((line, message))


def statement_sample(sample: Sample) -> str:
    """A sample as a statement shows it: input beside expected output (verdicts are on the page), or
    an interactive sample's transcript."""
    if sample.transcript is not None:
        return (
            f'<div class="statement-sample"><p class="sample-title">Sample {html.escape(sample.name)}</p>'
            f"{transcript_html(sample.transcript)}</div>"
        )
    answer = sample.answer if sample.answer is not None else ""
    columns = "".join(
        f'<div class="sample-io"><div class="io-head"><span>{head}</span></div>'
        f'<pre class="io">{html.escape(text)}</pre></div>'
        for head, text in (("Input", sample.input), ("Output", answer))
    )
    return (
        f'<div class="statement-sample"><p class="sample-title">Sample {html.escape(sample.name)}</p>'
        f'<div class="sample-grid">{columns}</div></div>'
    )


def image_html(src: str, alt: str, size: tuple[int, int] | None, style: str = "") -> str:
    """An image of the archive: its size given (the page keeps its place while it loads), loaded when
    it is scrolled to and decoded off the main thread. (``publish/pages.py`` loads the first one of a
    page at once: it may be the largest thing on the first screen.)"""
    dimensions = f' width="{size[0]}" height="{size[1]}"' if size else ""
    style = f' style="{html.escape(style)}"' if style else ""
    return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}"{dimensions}{style} loading="lazy" decoding="async">'


def linked_figure(path: str) -> str:
    """A figure no browser shows (EPS, or a PDF that could not be converted): a link to the file."""
    return f'<a class="pdf-figure" href="{html.escape(path)}">[figure: {html.escape(path.rsplit("/", 1)[-1])}]</a>'


def transcript_html(text: str) -> str:
    """An ``.interaction`` file as a conversation: ``<`` lines are the judge's, ``>`` lines the
    program's, ``---`` starts the next pass of a multi-pass problem."""
    rows: list[str] = []
    for line in text.splitlines():
        if line.strip() == "---":
            rows.append('<li class="pass-break" role="separator">next pass</li>')
            continue
        side = {"<": "judge", ">": "program"}.get(line[:1], "note")
        who = {"judge": "Judge", "program": "Program", "note": ""}[side]
        body = line[1:] if side != "note" else line
        rows.append(
            f'<li class="say-{side}"><span class="who">{who}</span><pre class="io">{html.escape(body)}</pre></li>'
        )
    return f'<ol class="transcript" aria-label="Interaction">{"".join(rows)}</ol>'


def safe_url(url: str) -> str | None:
    """The URL if it is http(s), mailto, a fragment or relative; None for javascript: and the like."""
    cleaned = "".join(ch for ch in url.strip() if ch >= " " and ch != "\x7f")
    if cleaned[:2].replace("\\", "/") == "//":  # //host/...: another site, by whatever scheme the page has
        return None
    if _SAFE_SCHEME.match(cleaned):
        return cleaned
    return None


def is_local_path(url: str) -> bool:
    """A relative path that stays inside the folder (no scheme, no absolute path, no '..', also when
    written with percent escapes, as Markdown's link normalizer writes them)."""
    url = unquote(url)
    if re.match(r"^[a-z][a-z0-9+.-]*:", url, re.I) or url.startswith(("/", "\\")):
        return False
    return ".." not in re.split(r"[/\\]", url)


def fill_math(html_text: str, rendered: list[str]) -> str:
    """Replace math slots with rendered MathML (or fallbacks), by snippet index. Punctuation right
    after inline math, and an opening bracket right before it, go into the formula, as TeX keeps
    them: a browser would otherwise start a line with the full stop after "$E[G_j]$." or end one
    with the "(" of "($1 \\le n$)".

    (The slots are found by their literal start, which the regex engine looks for as a string; a
    pattern that could begin with the bracket is tried at every position of the page's HTML.)"""
    parts: list[str] = []
    done = 0
    for match in _SLOT_AND_PUNCTUATION.finditer(html_text):
        start = match.start()
        before = ""  # a bracket that starts a word (see below); the slot before ends in none
        if start >= 2 and html_text[start - 1] in "([" and _OPENS_WORD.match(html_text, start - 2):
            before = html_text[start - 1]
        parts.append(html_text[done : start - len(before)])
        math, after = rendered[int(match.group(1))], match.group(2)
        parts.append(glued(math, before, after) if before or after else math)
        done = match.end()
    if not parts:
        return html_text
    parts.append(html_text[done:])
    return "".join(parts)


# The slot and the punctuation after it. An opening bracket before it goes in too when it starts a
# word (a bracket after a letter, as in "f(", stays: a line could then break between the letter and
# the formula), that is when whitespace or a tag's end comes before the bracket.
_SLOT_AND_PUNCTUATION = re.compile(r'<math-slot n="(\d+)"></math-slot>([.,;:!?)\]]*)')
_OPENS_WORD = re.compile(r"[\s>]")


def glued(math: str, before: str, after: str) -> str:
    """Inline MathML with ``before`` inside its first top-level part and ``after`` inside its last
    (Temml breaks lines only between those parts); display math, or a fallback, between them."""
    start = math.find(">") + 1
    if not math.startswith("<math") or 'display="block"' in math[:start] or not math.endswith("</math>"):
        return before + math + after
    body = math[start : -len("</math>")]
    opening = f"<mtext>{before}</mtext>" if before else ""
    closing = f"<mtext>{after}</mtext>" if after else ""
    if body.startswith("<mrow>") and body.endswith("</mrow>") and _top_level_parts(body) > 1:
        body = "<mrow>" + opening + body[len("<mrow>") : -len("</mrow>")] + closing + "</mrow>"
        return math[:start] + body + "</math>"
    return f"{math[:start]}<mrow>{opening}{body}{closing}</mrow></math>"


def _top_level_parts(body: str) -> int:
    """How many top-level elements ``body`` (MathML children of <math>) has."""
    depth = parts = 0
    for tag in re.finditer(r"<(/?)[a-z]+[^>]*?(/?)>", body):
        if tag.group(1):
            depth -= 1
        elif not tag.group(2):
            if depth == 0:
                parts += 1
            depth += 1
    return parts


def math_characters(html_text: str) -> str:
    """Every character the math font draws in the MathML of ``html_text``, sorted, as one string:
    the text of each ``<math>`` element; the mathematical italic forms of its Latin and Greek letters
    (a browser draws a one-letter ``<mi>`` in them); and the radical sign of a square or other root,
    which the browser draws itself. The site's math font is cut down to these (publish/mathfont.py)."""
    found: set[str] = set()
    for block in _MATH_ELEMENT.findall(html_text):
        text = html.unescape(_TAG.sub("", block))
        # and its composed forms: a browser draws "≡" and a combining slash (Temml's \not\equiv) as the
        # font's own "≢" when the font has one
        found.update(ch for ch in text + unicodedata.normalize("NFC", text) if not ch.isspace())
        if "<msqrt" in block or "<mroot" in block:
            found.add("\u221a")
    found.update(italic for ch in list(found) if (italic := _MATH_ITALIC.get(ch)))
    return "".join(sorted(found))


def _math_italics() -> dict[str, str]:
    """Each Latin and Greek letter's mathematical italic form (Unicode's block of mathematical letters,
    with its one hole: italic h is the Planck constant)."""
    pairs = {chr(0x41 + i): chr(0x1D434 + i) for i in range(26)}
    pairs.update({chr(0x61 + i): chr(0x1D44E + i) for i in range(26)})
    pairs["h"] = "\u210e"
    pairs.update({chr(0x391 + i): chr(0x1D6E2 + i) for i in range(25) if i != 17})  # no capital final sigma
    pairs.update({chr(0x3B1 + i): chr(0x1D6FC + i) for i in range(25)})
    pairs.update({"\u0131": "\U0001d6a4", "\u0237": "\U0001d6a5"})  # dotless i and j
    # and the symbols MathML Core italicizes beside them: capital theta symbol, nabla, partial, and the
    # variant letters (\epsilon, \vartheta, \varkappa, \phi, \varrho, \varpi)
    variants = "\u03f4\u2207\u2202\u03f5\u03d1\u03f0\u03d5\u03f1\u03d6"
    pairs.update(zip(variants, map(chr, [0x1D6F3, 0x1D6FB, *range(0x1D715, 0x1D71C)]), strict=True))
    return pairs


_MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.S)
_MATH_ITALIC = _math_italics()


def math_fallback(tex: str, display: bool) -> str:
    """Math shown as its TeX source, when it cannot be rendered."""
    delim = ("\\[", "\\]") if display else ("\\(", "\\)")
    tag = "pre" if display else "code"
    return f'<{tag} class="math-source">{html.escape(delim[0] + tex + delim[1])}</{tag}>'


def heading_link(anchor: str) -> str:
    """The "#" link at the end of a heading, to its own address."""
    return f'<a class="anchor" href="#{anchor}" aria-label="Link to this section">#</a>'


def plain_text(html_text: str, math: list[MathSnippet]) -> str:
    """Readable plain text of an HTML fragment (without the headings' "#" links); math as readable text
    (``tex_as_text``). Each heading ends a line: a search record reads each line as a sentence (so an
    excerpt reads "Reformulation. Pupils are ...", not "Reformulation Pupils are ...")."""
    text = _SLOT.sub(lambda m: html.escape(tex_as_text(math[int(m.group(1))].tex)), html_text)
    # (str.split's blanks are re's \s)
    parts = (" ".join(html.unescape(_TAG.sub("", part)).split()) for part in _HEADING_END.split(text))
    return "\n".join(part for part in parts if part)


TEX_SYMBOLS = {
    "le": "\u2264", "leq": "\u2264", "ge": "\u2265", "geq": "\u2265", "ne": "\u2260", "neq": "\u2260",
    "cdot": "\u00b7", "times": "\u00d7", "div": "\u00f7", "pm": "\u00b1", "mp": "\u2213", "to": "\u2192",
    "rightarrow": "\u2192", "leftarrow": "\u2190", "Rightarrow": "\u21d2", "iff": "\u21d4", "infty": "\u221e",
    "sum": "\u2211", "prod": "\u220f", "int": "\u222b", "in": "\u2208", "notin": "\u2209", "subset": "\u2282",
    "subseteq": "\u2286", "cup": "\u222a", "cap": "\u2229", "emptyset": "\u2205", "forall": "\u2200",
    "exists": "\u2203", "neg": "\u00ac", "land": "\u2227", "lor": "\u2228", "oplus": "\u2295",
    "approx": "\u2248", "equiv": "\u2261", "sim": "\u223c", "ldots": "\u2026", "dots": "\u2026",
    "cdots": "\u22ef", "lfloor": "\u230a", "rfloor": "\u230b", "lceil": "\u2308", "rceil": "\u2309",
    "langle": "\u27e8", "rangle": "\u27e9", "mid": "|", "lvert": "|", "rvert": "|", "vert": "|",
    "alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4", "epsilon": "\u03b5",
    "varepsilon": "\u03b5", "lambda": "\u03bb", "mu": "\u03bc", "pi": "\u03c0", "sigma": "\u03c3",
    "phi": "\u03c6", "varphi": "\u03c6", "omega": "\u03c9", "theta": "\u03b8", "tau": "\u03c4",
    "Delta": "\u0394", "Sigma": "\u03a3", "Omega": "\u03a9", "Theta": "\u0398", "ell": "\u2113",
    "bmod": "mod", "mod": "mod", "log": "log", "ln": "ln", "max": "max", "min": "min", "gcd": "gcd",
    "lcm": "lcm", "sqrt": "\u221a", "quad": " ", "qquad": " ", ",": " ", ";": " ", "!": "", " ": " ",
}  # fmt: skip
_SUPERSCRIPTS = str.maketrans(
    "0123456789+-n", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b\u207f"
)
_SUBSCRIPTS = str.maketrans("0123456789", "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089")
_SCRIPT = re.compile(r"([\^_])(?:\{([^{}]*)\}|(\S))")
_NO_SPACE_BEFORE = re.compile(r"(?<=[\w\u0370-\u03ff\u2211\u220f\u222b]) (?=[_^(\u2070-\u209f\u00b2\u00b3\u00b9])")
_COMMAND = re.compile(r"\\([A-Za-z]+|.)\s?")
_LAYOUT = re.compile(r"\\(?:begin|end)\{[^{}]*\}|\\(?:left|right|big|Big|bigl|bigr|Bigl|Bigr)\b")
_FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_TEXT_IN_MATH = re.compile(r"\\(?:text|math[a-z]*|operatorname|text[a-z]+)\s*\{([^{}]*)\}")


@lru_cache(maxsize=8192)
def tex_as_text(tex: str) -> str:
    """Math as a reader types it: ``n \\le 2 \\cdot 10^5`` is "n ≤ 2 · 10⁵", ``a_i`` is "a_i", ``\\frac{a}{b}``
    is "a/b": for search, summaries and link previews, where MathML cannot go. (Kept by formula: a
    write-up names ``n`` and ``i`` dozens of times.)"""
    text = _LAYOUT.sub("", tex)
    text = _FRACTION.sub(lambda m: f"{_group(m[1])}/{_group(m[2])}", text)
    text = _TEXT_IN_MATH.sub(r"\1", text)
    text = _SCRIPT.sub(_script, text)
    text = _COMMAND.sub(_symbol, text)
    text = text.replace("{", "").replace("}", "").replace("&", " ").replace("\\\\", " ")
    text = " ".join(text.split())
    return _NO_SPACE_BEFORE.sub("", text)


def _group(text: str) -> str:
    return text if re.fullmatch(r"[A-Za-z0-9.]+", text.strip()) else f"({text.strip()})"


def _symbol(m: re.Match[str]) -> str:
    name = m.group(1)
    if name in TEX_SYMBOLS:
        return f" {TEX_SYMBOLS[name]} "
    return name if len(name) == 1 else " "


def _script(m: re.Match[str]) -> str:
    body = m.group(2) if m.group(2) is not None else m.group(3)
    table = _SUPERSCRIPTS if m.group(1) == "^" else _SUBSCRIPTS
    if body and all(ord(c) in table for c in body):
        return body.translate(table)
    return f"{m.group(1)}{body}" if len(body) == 1 else f"{m.group(1)}({body})"


_TABLE_GAP = re.compile(r"\S {2,}\S")


def render_plain_text(text: str) -> str:
    """A plain-text statement (often a PDF's text) as reads well: paragraphs of prose reflowed, words
    hyphenated at line ends joined; blocks that are laid out by their lines (indented, tables, samples,
    short lines) kept as they are."""
    blocks = [b for b in re.split(r"\n[ \t]*\n", text.strip("\n")) if b.strip()]
    return "\n".join(_block(block.split("\n")) for block in blocks)


def _block(lines: list[str]) -> str:
    if _is_prose(lines):
        return _prose(lines)
    head, rest = lines[0].strip(), lines[1:]
    if rest and len(head) <= 40 and head[-1:] not in ".,;:" and _is_prose(rest):
        return f'<p class="text-heading"><strong>{html.escape(head)}</strong></p>\n{_prose(rest)}'
    return f'<pre class="statement-text">{html.escape(chr(10).join(lines))}</pre>'


def _is_prose(lines: list[str]) -> bool:
    if any(line[:1] in (" ", "\t") or _TABLE_GAP.search(line) for line in lines):
        return False
    letters = sum(c.isalpha() for c in "".join(lines))
    if letters < 0.6 * max(1, sum(len(line) for line in lines)):
        return False
    return len(lines) == 1 or all(len(line) >= 30 for line in lines[:-1])


def _prose(lines: list[str]) -> str:
    words: list[str] = []
    for line in (line.strip() for line in lines):
        joined = bool(words) and words[-1].endswith("-") and line[:1].islower()  # a word hyphenated at the end
        words[-1:] = [words[-1][:-1] + line] if joined else [*words[-1:], line]
    return f"<p>{html.escape(' '.join(words))}</p>"
