"""What the LaTeX and Markdown renderers share: heading ids, math slots, safe links, summaries."""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote

from ..model import Heading, MathSnippet, Sample, TexPicture

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

    def picture_slot(self, picture: TexPicture, inline: bool) -> str:
        self.pictures.append(picture)
        tag = "span" if inline else "div"
        return f'<{tag} class="tex-picture"><picture-slot n="{len(self.pictures) - 1}"></picture-slot></{tag}>'

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
    """Replace math slots with rendered MathML (or fallbacks), by snippet index."""
    return _SLOT.sub(lambda m: rendered[int(m.group(1))], html_text)


def math_fallback(tex: str, display: bool) -> str:
    """Math shown as its TeX source, when it cannot be rendered."""
    delim = ("\\[", "\\]") if display else ("\\(", "\\)")
    tag = "pre" if display else "code"
    return f'<{tag} class="math-source">{html.escape(delim[0] + tex + delim[1])}</{tag}>'


def heading_link(anchor: str) -> str:
    """The "#" link at the end of a heading, to its own address."""
    return f'<a class="anchor" href="#{anchor}" aria-label="Link to this section">#</a>'


def plain_text(html_text: str, math: list[MathSnippet]) -> str:
    """Readable plain text of an HTML fragment (without the headings' "#" links); math as its TeX
    source. Each heading ends a line: a search record reads each line as a sentence (so an excerpt
    reads "Reformulation. Pupils are ...", not "Reformulation Pupils are ...")."""
    text = _SLOT.sub(lambda m: math[int(m.group(1))].tex, html_text)
    # (str.split's blanks are re's \s)
    parts = (" ".join(html.unescape(_TAG.sub("", part)).split()) for part in _HEADING_END.split(text))
    return "\n".join(part for part in parts if part)
