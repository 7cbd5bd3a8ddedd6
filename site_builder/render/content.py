"""One entry's sources to rendered content: statement, write-up, highlighted code (pure)."""

from __future__ import annotations

import html
import logging
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePosixPath

from ..errors import Diagnostic, SiteError
from ..model import UNPUBLISHED_DATA, CodeFile, Document, Entry, EntrySource, Sample, SourceFile, TexPicture
from ..source.paths import joined
from ..source.testdata import is_test_data
from . import highlight
from .checking import describe_checking
from .document import Assets, fill_math, math_characters, math_fallback, plain_text, render_plain_text
from .latex import render_latex
from .markdown import render_markdown
from .math import MathResult
from .pictures import PictureResult, fill_pictures, picture_html

# PDFs are converted; EPS, which no browser shows, is linked.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".pdf", ".eps"})
log = logging.getLogger(__name__)
Renderer = Callable[..., tuple[Document, list[tuple[int, str]]]]
RENDERERS: dict[str, Renderer] = {".tex": render_latex, ".md": render_markdown}


def render_entry(source: EntrySource, known: tuple[CodeFile, ...] = ()) -> Entry:
    """Render everything one entry shows. Errors become diagnostics on the entry, never exceptions.
    ``known``: code files as this renderer highlighted them before, taken again for files whose bytes
    have not changed since (by their digests)."""
    before = {(c.name, c.digest): c for c in known if c.digest}

    def code(item: SourceFile) -> CodeFile:
        return before.get((item.name, item.digest)) or _code(item)

    diagnostics = list(source.diagnostics)
    layout, meta = source.layout, source.meta
    assets = {f.name: f.image_size for f in source.files if PurePosixPath(f.name).suffix.lower() in IMAGE_SUFFIXES}
    tex = {f.name: f.text for f in source.files if f.name.endswith(".tex") and f.text is not None}
    extras = DocumentExtras(assets, source.samples, dict(meta.constants), tex, meta.title or source.folder_title)
    statements = [
        document
        for index, (language, name) in enumerate(layout.statements)
        if (document := _document(source, name, _statement_prefix(index, language), extras, diagnostics, language))
    ]
    statement = statements[0] if statements else None
    if statement is not None and statement.title and not meta.title:
        extras = replace(extras, title=statement.title)
    solution = _document(source, layout.writeup, "", extras, diagnostics) if layout.writeup else None
    # A summary taken from the write-up is its first paragraph, which the page shows anyway: it
    # describes the page (meta description, search) but is not repeated above the statement.
    summary_html = html.escape(meta.summary) if meta.summary else None
    summary_text = meta.summary or (
        plain_text(solution.summary_html, list(solution.math)) if solution and solution.summary_html else None
    )
    titles = (statement, solution) if meta.package else (solution, statement)
    label = meta.label or source.folder_label
    title = meta.title or _without_label(next((d.title for d in titles if d is not None and d.title), None), label)
    unpublished = {name for name, why in source.withheld if why == UNPUBLISHED_DATA}
    return Entry(
        path=source.path,
        track=source.track,
        groups=source.groups,
        label=label,
        title=title or source.folder_title,
        year=meta.year or source.folder_year,
        source=meta.source,
        tags=meta.tags,
        rating=meta.rating,
        summary_html=summary_html,
        summary_text=summary_text,
        status=meta.status,
        statement=statement,
        solution=solution,
        solvers=tuple(code(f) for n in (*layout.solvers, *layout.shown) if (f := _text_file(source, n))),
        sources=tuple(code(f) for f in _source_files(source, statements, solution)),
        samples=source.samples,
        files=tuple(f.name for f in source.files if f.name not in unpublished),
        test_data=_unpublished_data(source, unpublished),
        statement_pdf=layout.statement_pdf,
        updated=source.updated,
        display_path=source.display_path(),
        diagnostics=tuple(dict.fromkeys(diagnostics)),  # one per line and message, as the terminal prints them
        has_python=any(highlight.language_for(n) == "python" for n in layout.solvers),
        # the statement, a form feed, the write-up: search tells a match in the write-up apart
        search_text="\f".join(plain_text(d.html, list(d.math)) if d else "" for d in (statement, solution)),
        slug=source.slug or source.path,
        translations=tuple(statements[1:]),
        credits=meta.credits,
        source_url=meta.source_url,
        license=meta.license,
        rights_owner=meta.rights_owner,
        package=meta.package,
        missing=layout.missing,
        withheld=source.withheld,
        time_limit=meta.time_limit,
        memory_limit=meta.memory_limit,
        checking=describe_checking(meta, layout.validator),
        subtasks=meta.subtasks,
    )


def _unpublished_data(source: EntrySource, unpublished: set[str]) -> tuple[int, int]:
    """How many test files (not samples, which the page shows) are not published, and their bytes."""
    sizes = [f.size for f in source.files if f.name in unpublished and is_test_data(f.name)]
    return len(sizes), sum(sizes)


def _without_label(title: str | None, label: str | None) -> str | None:
    """A document's title without the label the page puts before it: ``\\title{World Finals 2009\\\\G. House
    of Cards}`` in folder G is "House of Cards", not "G. World Finals 2009 G. House of Cards"."""
    if not title or not label:
        return title
    m = re.search(rf"(?:^|\s){re.escape(label)}\.\s+(\S.*)$", title)
    return m.group(1) if m else title


def _statement_prefix(index: int, language: str) -> str:
    return "statement-" if index == 0 else f"statement-{language}-"


@dataclass(frozen=True, slots=True)
class DocumentExtras:
    """What documents may refer to besides their text: images, samples, a package's constants."""

    assets: Assets
    samples: tuple[Sample, ...]
    constants: dict[str, str]
    tex: dict[str, str]  # every .tex file of the folder, for \input
    title: str  # the problem's, for slides' \problemtitle


def _document(
    source: EntrySource,
    name: str,
    prefix: str,
    extras: DocumentExtras,
    diagnostics: list[Diagnostic],
    language: str = "",
) -> Document | None:
    item = source.file(name) or _composed(source, name)
    if item is None:
        return None
    path = source.display_path(item.name)
    if item.text is None:
        why = item.binary or "not UTF-8 text"
        if not any(d.path == path for d in diagnostics):  # the archive walk names the line of bad UTF-8
            diagnostics.append(Diagnostic(path, 0, f"cannot render it: {why}; {item.remedy()}"))
        return _error_document(item.name, f"This file cannot be shown: {why}.")
    suffix = PurePosixPath(item.name).suffix
    if suffix == ".txt":
        return Document(file=item.name, html=render_plain_text(item.text))
    folder = item.name.rpartition("/")[0]
    base = folder + "/" if folder else ""
    options: dict[str, object] = {}
    if suffix == ".tex":  # every other .tex file of the folder, and those outside it it reads, from its folder
        here = posixpath.join(source.path, folder) if folder else source.path
        inputs = {posixpath.relpath(n, folder or "."): t for n, t in extras.tex.items() if n != item.name}
        inputs.update((posixpath.relpath(f.name, here), f.text) for f in source.shared if f.text is not None)
        options["inputs"] = inputs
        options["folder"] = here
        options["problem_title"] = extras.title
        options["time_limit"] = source.meta.time_limit
    try:
        document, warnings = RENDERERS[suffix](
            item.text,
            path,
            assets={n[len(base) :]: size for n, size in extras.assets.items() if n.startswith(base)},
            asset_base=base,
            id_prefix=prefix,
            samples=extras.samples,
            constants=extras.constants,
            **options,
        )
    except SiteError as e:
        diagnostics.append(e.diagnostic())
        # On the page, the file from the archive's root: never a folder of the machine that built it.
        shown = Diagnostic(joined(source.path, item.name), e.line, e.message)
        return _error_document(item.name, str(shown))
    except Exception as e:  # input no rule foresaw (or a bug): this entry's error, never the build's
        log.warning("rendering %s failed", path, exc_info=True)
        why = f"the renderer failed on it ({type(e).__name__}: {str(e)[:200]}); please report this file"
        diagnostics.append(Diagnostic(path, 0, f"cannot render it: {why}"))
        return _error_document(item.name, f"This file cannot be shown: {why}.")
    diagnostics.extend(Diagnostic(path, line, message, "warning") for line, message in warnings)
    document = replace(document, file=item.name, language=language)
    return document


def _composed(source: EntrySource, name: str) -> SourceFile | None:
    """A document made of several files (a Polygon statement's sections), as the layout composed it."""
    text = dict(source.layout.composed).get(name)
    return SourceFile(name=name, text=text, size=len(text)) if text is not None else None


def _error_document(name: str, message: str) -> Document:
    return Document(
        file=name,
        html=f'<div class="render-error" role="alert"><strong>Cannot render {html.escape(name)}</strong>'
        f"<pre>{html.escape(message)}</pre></div>",
    )


def _text_file(source: EntrySource, name: str) -> SourceFile | None:
    item = source.file(name)
    return item if item is not None and item.text is not None else None


def _source_files(source: EntrySource, statements: list[Document], solution: Document | None) -> list[SourceFile]:
    """The write-up, statements, checker and problem.yaml, shown as highlighted sources."""
    names = [doc.file for doc in (solution, *statements) if doc is not None and not doc.file.endswith(".txt")]
    validator = source.layout.validator
    names += list(validator.files) if validator is not None else []
    scripted = tuple(n for n in source.layout.solvers if n.endswith("/"))  # submissions built by their scripts
    names += [f.name for f in source.files if f.name.startswith(scripted)] if scripted else []
    composed = {name.rpartition("/")[0] + "/" for name, _ in source.layout.composed}
    names += sorted(f.name for f in source.files if f.name.endswith(".tex") and f.name.startswith(tuple(composed)))
    described = ("problem.yaml", "data/test_group.yaml", "task.yaml")  # not problem.xml: XML is withheld
    names += [n for n in described if source.file(n) is not None]
    return [f for n in dict.fromkeys(names) if (f := _text_file(source, n)) is not None]


@lru_cache(maxsize=256)
def _code(item: SourceFile) -> CodeFile:
    """A highlighted file; memoised, so the dev server re-highlights only files that changed."""
    assert item.text is not None
    language = highlight.language_for(item.name) or "text"
    prefix = item.name.replace(".", "-").replace("/", "-") + "-"
    return CodeFile(
        name=item.name,
        language=language,
        html=highlight.render_file(item.text, language, prefix),
        lines=item.text.count("\n") + (0 if item.text.endswith("\n") else 1),
        digest=item.digest,
    )


def fill_entry_math(entry: Entry, results: dict[tuple[str, bool], MathResult]) -> Entry:
    """Put rendered MathML into the entry's documents; report snippets Temml rejected."""
    problems: list[Diagnostic] = []

    def fill(document: Document | None) -> Document | None:
        if document is None or not document.math:
            return document
        rendered = []
        for snippet in document.math:
            result = results.get((snippet.tex, snippet.display))
            if result is not None and result.html:
                rendered.append(result.html)
                continue
            if result is not None and result.error:
                where = f"{entry.display_path}/{document.file}"
                problems.append(Diagnostic(where, snippet.line, f"math: {result.error}"))
            rendered.append(math_fallback(snippet.tex, snippet.display))
        return replace(
            document,
            html=fill_math(document.html, rendered),
            toc=tuple(replace(h, html=fill_math(h.html, rendered)) for h in document.toc),
        )

    filled = _each_document(entry, fill, problems)
    documents = (filled.statement, filled.solution, *filled.translations)
    chars = "".join(math_characters(d.html) for d in documents if d is not None)
    return replace(filled, math_chars="".join(sorted(set(chars))))


def fill_entry_pictures(entry: Entry, results: dict[TexPicture, PictureResult]) -> Entry:
    """Put the drawn TikZ pictures into the entry's documents; a warning for each picture not drawn."""
    problems: list[Diagnostic] = []

    def fill(document: Document | None) -> Document | None:
        if document is None or not document.pictures:
            return document
        drawn = []
        for picture in document.pictures:
            result = results.get(picture, PictureResult(error="not drawn"))
            drawn.append(picture_html(picture, result))
            if result.error:
                line = picture.line + result.line - 1 if result.line else picture.line
                where = f"{entry.display_path}/{document.file}"
                what = "PDF figure" if picture.kind == "pdf" else "TikZ picture"
                problems.append(Diagnostic(where, line, f"{what} {result.error}", "warning"))
        return replace(document, html=fill_pictures(document.html, drawn))

    return _each_document(entry, fill, problems)


def _each_document(
    entry: Entry, fill: Callable[[Document | None], Document | None], problems: list[Diagnostic]
) -> Entry:
    """The entry with ``fill`` applied to each of its documents, and the ``problems`` it found."""
    translations = tuple(d for d in (fill(t) for t in entry.translations) if d is not None)
    return replace(
        entry,
        statement=fill(entry.statement),
        solution=fill(entry.solution),
        translations=translations,
        diagnostics=entry.diagnostics + tuple(dict.fromkeys(problems)),
    )


def entry_pictures(entry: Entry) -> list[TexPicture]:
    documents = (entry.statement, entry.solution, *entry.translations)
    return [p for doc in documents if doc for p in doc.pictures]


def math_snippets(entry: Entry) -> list[tuple[str, bool]]:
    documents = (entry.statement, entry.solution, *entry.translations)
    return [(s.tex, s.display) for doc in documents if doc for s in doc.math]
