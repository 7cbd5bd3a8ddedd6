"""Page rendering with Jinja (StrictUndefined): site values in, ``Output(path, bytes)`` out."""

from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import html
import os
import re
import traceback
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urlsplit

import jinja2
from markupsafe import Markup

from ..errors import Diagnostic, TemplateError
from ..identity import ByIdentity
from ..model import CodeFile, Document, Entry, Site, SolverRun, Track, format_memory, language_name
from ..render.document import slugify, transcript_html
from ..source.images import webp_size
from .catalog import group_entries, group_title, humanised, neighbours, neighbours_of
from .feeds import FEED_ENTRIES, feed_summaries, render_feed, render_sitemap, render_verification_report
from .outputs import Output, code_page, code_url, entry_url, root_of
from .sandboxed import ArchiveTemplates, Failure, PageLimitError, PageProcess, limit_message

RECENT = 10


# Names of the languages problem statements come in, each in its own language.
HUMAN_LANGUAGES = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
    "nl": "Nederlands",
    "sv": "Svenska",
    "da": "Dansk",
    "nb": "Norsk bokmål",
    "no": "Norsk",
    "fi": "Suomi",
    "is": "Íslenska",
    "pl": "Polski",
    "cs": "Čeština",
    "pt": "Português",
    "pt-BR": "Português (Brasil)",
    "ru": "Русский",
    "uk": "Українська",
    "zh": "中文",
    "ja": "日本語",
    "ko": "한국어",
    "he": "עברית",
    "ar": "العربية",
    "tr": "Türkçe",
    "el": "Ελληνικά",
    "hu": "Magyar",
    "ro": "Română",
    "et": "Eesti",
    "lv": "Latviešu",
    "lt": "Lietuvių",
}


def human_language(code: str) -> str:
    return HUMAN_LANGUAGES.get(code, code)


def files_summary(entry: Entry) -> str:
    """ "TeX · Python · C++": the write-up's format and the solvers' languages, for entry tables
    (a function, not a template macro: track and tag pages show it thousands of times). The
    space before each dot does not break, so a wrapped cell never starts a line with a dot."""
    parts = [entry.solution.file.rsplit(".", 1)[1].replace("tex", "TeX").replace("md", "MD")] if entry.solution else []
    parts += [language_name(s.language) for s in entry.solvers]
    return "\u00a0· ".join(dict.fromkeys(parts))


def featured_solvers(entry: Entry) -> list[CodeFile]:
    """The solutions the entry page shows, one per language: the reference one (``solution.<ext>``,
    the archive's own), else the shortest that every run accepted (or, with none accepted, the
    shortest): a package's 3,000-line transcription does not make its page megabytes long."""
    runs = {r.solver: r for r in entry.runs}

    def rank(code: CodeFile) -> tuple[bool, bool, int]:
        reference = code.name.rsplit("/", 1)[-1].startswith("solution.")
        return (not reference, not _accepted(runs.get(code.name)), code.lines)

    chosen: dict[str, CodeFile] = {}
    for code in entry.solvers:
        held = chosen.get(code.language)
        if held is None or rank(code) < rank(held):
            chosen[code.language] = code
    return [c for c in entry.solvers if chosen.get(c.language) is c]


def _accepted(run: SolverRun | None) -> bool:
    return run is not None and run.verdicts != () and not run.failures and not run.note


def code_pages(entry: Entry) -> list[tuple[str, str]]:
    """The pages of the entry's code files that its page only links to: every solution but the
    featured ones, and every other source file. As (url, file name) pairs."""
    featured = {c.name for c in featured_solvers(entry)}
    names = [c.name for c in entry.solvers if c.name not in featured] + [c.name for c in entry.sources]
    return [(code_url(entry, name), name) for name in names]


def default_memory(entry: Entry) -> int | None:
    """The memory limit, in MiB, a problem package has when its ``problem.yaml`` sets none: 1024 in the
    legacy (Kattis) format, 2048 in the versions since 2023-07; None for a folder that is no package."""
    return format_memory(entry.package)


def judge_link(pattern: str, entry: Entry) -> str:
    """The entry's problem on a judge, by ``site.yaml``'s ``judge_url`` ("" without one): ``{folder}``
    is the entry's folder name, ``{path}`` its path in the archive, each escaped for a URL."""
    if not pattern:
        return ""
    folder = entry.path.rsplit("/", 1)[-1] or entry.slug.rsplit("/", 1)[-1]  # "": the archive is the folder
    path = entry.path or folder
    return pattern.replace("{folder}", quote(folder, safe="")).replace("{path}", quote(path, safe="/"))


def entry_heading(site: Site, entry: Entry) -> str:
    """ "ICPC 2022 · X. Quartets": the track (and year), then label and title."""
    return heading(next((t.title for t in site.tracks if t.id == entry.track), entry.track), entry)


def heading(track: str, entry: Entry) -> str:
    """``entry_heading`` with the track's title given: the contest as the package names it (its
    ``source``), else the track, year and folders ("Codeforces Round 102 · D. Terrace Staircase")."""
    right = f"{entry.label}. {entry.title}" if entry.label else entry.title
    return f"{contest(track, entry)} \u00b7 {right}"


def contest(track: str, entry: Entry) -> str:
    """The contest an entry is from, in words: its ``source``, else its track, year and group folders."""
    if entry.source:  # "Northwestern Europe Regional Contest (NWERC) 2022" by the name it goes by: "NWERC 2022"
        short = re.fullmatch(r".*\(([A-Z][A-Za-z0-9]{1,9})\)\s*(\d{4})?", entry.source.strip())
        return " ".join(p for p in (short.group(1), short.group(2)) if p) if short else entry.source
    parts = [track, str(entry.year)] if entry.year else [track]
    parts += [humanised(g) for g in entry.groups if g != str(entry.year)]
    return " ".join(parts)


def repository_path(entry: Entry) -> str:
    """The entry's folder as "Edit" links name it in the repository: its path from the project root
    (``archive/icpc/...``). An archive outside the project is taken to sit at the top of its own
    repository's folder (``my-archive/icpc/...``): a page never names a folder of the machine."""
    path = PurePosixPath(entry.display_path)
    if not path.is_absolute():
        return path.as_posix()  # "./icpc/..." of an archive at the project's top is "icpc/..."
    return PurePosixPath(*path.parts[-(len(PurePosixPath(entry.path).parts) + 1) :]).as_posix()


FIGURES = "figures"  # the site's folder of drawn figures, each named by its content


class PageRenderer:
    """Owns the Jinja environment; every ``render_*`` returns ``Output`` values. An entry page's drawn
    figures (TikZ pictures, PDF figures: SVG, sanitized when drawn) become files of their own under
    ``figures/``, named by their digest; ``figures_of`` hands over those of the last pages rendered."""

    def __init__(self, folders: list[tuple[Path, str]], cache: Path | None = None, sandboxed: bool = False) -> None:
        """``folders``: where templates are looked up, in order, each with how messages name it; the
        last is the theme's, whose templates are also found as ``theme/<name>``.
        ``sandboxed``: with Jinja's sandbox, for templates from the archive (which may not reach
        Python's internals, and so not the machine) and every template they extend or include; each
        page rendered in a process of its own under a memory cap and a deadline (``sandboxed.py``),
        so that they cannot hold the machine either."""
        self.folders = [(folder.resolve(), shown) for folder, shown in folders]
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
        kind = ArchiveTemplates if sandboxed else jinja2.Environment
        loaders: list[jinja2.BaseLoader] = [UnlinkedLoader(str(folder)) for folder, _ in self.folders]
        # "theme/base.html": the theme's own template, for an override that extends it
        loaders.append(jinja2.PrefixLoader({"theme": loaders[-1]}))
        self.env = kind(
            loader=jinja2.ChoiceLoader(loaders),
            # Compiled templates differ between the two kinds of environment: one cache each.
            bytecode_cache=jinja2.FileSystemBytecodeCache(str(cache), f"{kind.__name__}-%s.cache") if cache else None,
            undefined=jinja2.StrictUndefined,
            auto_reload=False,  # one environment per set of templates: a changed template makes a new one
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["tag_slug"] = slugify
        self.env.filters["transcript"] = lambda text: Markup(transcript_html(text))
        self.env.filters["file_groups"] = file_groups
        self.env.filters["for_readers"] = for_readers
        self.env.filters["sample_anchors"] = lambda text: Markup(sample_anchors(text))
        self.env.globals["samples_in_statement"] = samples_in_statement
        self.env.globals["default_memory"] = default_memory
        self.env.globals["featured_solvers"] = featured_solvers
        self.env.globals["code_page"] = code_page
        self.env.filters["group_title"] = group_title
        self.env.tests["startingwith"] = lambda text, prefix: str(text).startswith(prefix)
        self.env.globals["language_name"] = language_name
        self.env.globals["entry_url"] = entry_url
        self.env.globals["human_language"] = human_language
        self.env.globals["files_summary"] = files_summary
        self.process = PageProcess(self._render_bytes) if sandboxed else None
        self.shows_anything = self.process is not None  # the archive's own templates: any of the site, anywhere
        self.shared: tuple[object, ...] = ()  # the site's objects the process has as its own (see ``page``)
        self.figures: dict[str, list[Output]] = {}  # by page path: the figure files it refers to
        self.completed: tuple[Entry, Entry] | None = None  # the last card completed, and its whole entry
        # ``code_pages`` of each entry of the last site planned (the dev server plans every page on each save)
        self.code_pages_of = ByIdentity(code_pages)

    def compile_templates(self) -> None:
        """Compile the site's templates now (not ``theme/`` copies, nor a sandboxed renderer's), as a page
        would at its first use; one that does not load says so when a page uses it."""
        if self.process is None:
            for name in self.env.list_templates():
                if not name.startswith("theme/"):
                    with contextlib.suppress(Exception):
                        self.env.get_template(name)

    def figures_of(self, path: str) -> list[Output]:
        """The figure files of the page at ``path``, once it has been rendered (and forgets them)."""
        return self.figures.pop(path, [])

    def plan(self, site: Site, complete: Callable[[Entry], Entry] = lambda e: e) -> dict[str, Callable[[], Output]]:
        """Every output of the site by path, each rendered only when called. ``complete`` gives the
        whole entry for a card (see ``Entry.card``), for its own page."""
        links = neighbours(site)
        self.code_pages_of.keep_only(site.entries)
        plan: dict[str, Callable[[], Output]] = {
            "index.html": lambda: self.render_home(site),
            "tags/index.html": lambda: self.render_tag_index(site),
            "404.html": lambda: self.render_404(site),
            "feed.xml": lambda: render_feed(site),
            "verification.json": lambda: render_verification_report(site),
        }
        if site.base_url:  # a sitemap lists absolute addresses only: none without the site's own
            plan["sitemap.xml"] = lambda: render_sitemap(site)
        for track in site.tracks:
            plan[track.url] = partial(self.render_track, site, track)
        for tag in site.tags:
            plan[f"tags/{tag.slug}/index.html"] = partial(
                self.page, "tag.html", f"tags/{tag.slug}/index.html", site, tag=tag
            )
        for entry in site.entries:
            self.plan_entry(plan, site, entry, links[entry.path], complete)
        return plan

    def plan_entries(
        self, site: Site, entries: list[Entry], complete: Callable[[Entry], Entry] = lambda e: e
    ) -> dict[str, Callable[[], Output]]:
        """``plan`` of these entries' own pages alone: the page of each and of its code files."""
        plan: dict[str, Callable[[], Output]] = {}
        for entry in entries:
            self.plan_entry(plan, site, entry, neighbours_of(site, entry), complete)
        return plan

    def plan_entry(
        self,
        plan: dict[str, Callable[[], Output]],
        site: Site,
        entry: Entry,
        around: tuple[Entry | None, Entry | None],
        complete: Callable[[Entry], Entry],
    ) -> None:
        plan[entry_url(entry)] = partial(self._render_complete, site, entry, around, complete)
        for url, name in self.code_pages_of(entry):
            plan[url] = partial(self._render_code, site, entry, name, complete)

    def entry_inputs(self, site: Site) -> dict[str, tuple[str, str]]:
        """For each entry page, by path: the entry's path, and a text naming what the page shows
        besides the entry's own rendered content (the caller keys that): its verdicts, heading,
        neighbours and the site's navigation. Equal texts and content make equal pages, for the
        same templates and code."""
        links = neighbours(site)
        shared = site_frame(site)
        found = {}
        titles = {t.id: t.title for t in site.tracks}
        for entry in site.entries:
            around = tuple((entry_url(e), e.label, e.title) if e else None for e in links[entry.path])
            named = heading(titles.get(entry.track, entry.track), entry)  # ``entry_heading``, once per entry
            found[entry_url(entry)] = (entry.path, repr((shared, entry.runs, named, around)))
            for url, name in self.code_pages_of(entry):
                found[url] = (entry.path, repr((shared, entry.runs, named, name)))
        return found

    def list_inputs(self, site: Site, rows: dict[str, str]) -> dict[str, str]:
        """For each page of ``plan`` that is not an entry's, by path: a text naming what it shows, given
        ``rows``, a text of what lists show of each entry (by its path; its card and verdicts). Equal
        texts make equal pages, for the same templates and code: a changed card renders again its
        track's and tags' pages, not every list of the site. With the archive's own templates, which
        may show anything of the site on any page, each names the whole site."""
        frame = site_frame(site)

        def listing(entries: tuple[Entry, ...]) -> str:
            return "\n".join(rows[e.path] for e in entries)

        every = repr((frame, listing(site.entries)))
        recent = sorted(site.entries, key=lambda e: (e.updated, e.path), reverse=True)
        counts = tuple(
            (t.id, t.title, t.description, len(t.entries), tuple(e.verification[0] for e in t.entries))
            for t in site.tracks
        )
        found = {
            # without a description of its own, a page's says how many entries the site has (base.html)
            "index.html": repr((frame, len(site.entries), counts, listing(tuple(recent[:RECENT])))),
            "tags/index.html": repr((frame, tuple((t.name, t.slug, len(t.entries)) for t in site.tags))),
            "404.html": repr((frame, len(site.entries))),
            "feed.xml": repr((frame, listing(tuple(recent[:FEED_ENTRIES])), feed_summaries(site))),
            "verification.json": every,
            "sitemap.xml": every,
        }
        for track in site.tracks:
            found[track.url] = repr((frame, track.id, track.title, track.description, listing(track.entries)))
        for tag in site.tags:
            found[f"tags/{tag.slug}/index.html"] = repr((frame, tag.name, listing(tag.entries)))
        if self.shows_anything:
            return dict.fromkeys(found, every)
        return found

    def render_site(self, site: Site) -> list[Output]:
        return [render() for render in self.plan(site).values()]

    def render_home(self, site: Site) -> Output:
        recent = sorted(site.entries, key=lambda e: (e.updated, e.path), reverse=True)[:RECENT]
        return self.page("home.html", "index.html", site, recent=recent)

    def render_track(self, site: Site, track: Track) -> Output:
        return self.page("track.html", track.url, site, track=track, groups=group_entries(track))

    def render_tag_index(self, site: Site) -> Output:
        return self.page("tags.html", "tags/index.html", site)

    def render_404(self, site: Site) -> Output:
        # Served at any depth, so links start at the site's root path (from base_url), same host.
        root = urlsplit(site.base_url).path.rstrip("/") + "/" if site.base_url else "/"
        return self.page("404.html", "404.html", site, root=root)

    def _render_complete(
        self, site: Site, entry: Entry, around: tuple[Entry | None, Entry | None], complete: Callable[[Entry], Entry]
    ) -> Output:
        return self.render_entry(site, self._whole(entry, complete), *around)

    def _whole(self, entry: Entry, complete: Callable[[Entry], Entry]) -> Entry:
        """The whole entry, kept for the code pages that follow its page in the plan (for this very card:
        an edited entry is a new one). The last one's pages are done then, and collected: Jinja leaves a
        page whose template defines a macro in a reference cycle with its values, the whole entry too,
        and Python's youngest generation (``cli``'s threshold) is collected once in thousands of pages."""
        if self.completed is None or self.completed[0] is not entry:
            self.completed = None
            gc.collect(0)
            self.completed = (entry, complete(entry))
        return self.completed[1]

    def _render_code(self, site: Site, entry: Entry, name: str, complete: Callable[[Entry], Entry]) -> Output:
        whole = self._whole(entry, complete)
        code = next(c for c in (*whole.solvers, *whole.sources) if c.name == name)
        track = next(t for t in site.tracks if t.id == entry.track)
        edit_base = f"{site.repo_url}/edit/{site.repo_branch}/{repository_path(whole)}" if site.repo_url else ""
        url = code_url(entry, name)
        return self.page(
            "code.html",
            url,
            site,
            entry=whole,
            code=code,
            track=track,
            heading=entry_heading(site, whole),
            run=next((r for r in whole.runs if r.solver == name), None),
            edit_base=edit_base,
        )

    def render_entry(self, site: Site, entry: Entry, prev: Entry | None, nxt: Entry | None) -> Output:
        if not entry.complete:
            raise ValueError(f"{entry.path}: a card holds no HTML to render the entry's page from")
        path = entry_url(entry)
        entry, figures = figures_as_files(entry, root_of(path))
        self.figures[path] = figures
        track = next(t for t in site.tracks if t.id == entry.track)
        return self.page(
            "entry.html",
            entry_url(entry),
            site,
            entry=entry,
            track=track,
            heading=entry_heading(site, entry),
            prev=prev,
            next=nxt,
            edit_base=f"{site.repo_url}/edit/{site.repo_branch}/{repository_path(entry)}" if site.repo_url else "",
            tree_base=f"{site.repo_url}/tree/{site.repo_branch}/{repository_path(entry)}" if site.repo_url else "",
            judge_link=judge_link(site.judge_url, entry),
        )

    def page(self, template: str, path: str, site: Site, **values: Any) -> Output:
        values.setdefault("root", root_of(path))
        if self.process is None:
            return Output(path, self._render_bytes(template, path, site, values))
        if not self.shared or self.shared[0] is not site:  # what the process's pages refer to, not copy
            self.shared = (site, *site.entries, *site.tracks, *site.tags)
        done = self.process.call(self.shared, template, path, site, values)
        if not isinstance(done, Failure):
            return Output(path, done)
        if done.path:
            raise TemplateError(done.path, done.line, done.message)
        raise TemplateError(self._shown(template), None, f"while rendering {path}: {done.message}")

    def _render_bytes(self, template: str, path: str, site: Site, values: dict[str, Any]) -> bytes:
        try:
            text = self.env.get_template(template).render(site=site, page_path=path, **values)
        except jinja2.TemplateSyntaxError as e:
            name = e.filename or e.name or template
            raise TemplateError(self._shown(name), e.lineno, e.message or "syntax error") from e
        except jinja2.TemplateError as e:
            raise TemplateError(*self._location(e, template), f"while rendering {path}: {e}") from e
        except (MemoryError, PageLimitError) as e:  # (in the page process) over a limit: where the template was
            raise TemplateError(*self._location(e, template), f"while rendering {path}: {limit_message(e)}") from e
        except Exception as e:  # a filter or test failing on a value: still a template problem, with its line
            kind = type(e).__name__
            raise TemplateError(*self._location(e, template), f"while rendering {path}: {kind}: {e}") from e
        return text.encode("utf-8")

    def _shown(self, filename: str) -> str:
        """A template as messages name it: its path for a file, or as the first folder has it."""
        path = Path(filename)
        for folder, shown in self.folders:
            if path.is_absolute() and path.is_relative_to(folder):
                return f"{shown}/{path.relative_to(folder).as_posix()}"
        return f"{self.folders[0][1]}/{filename}"

    def _location(self, error: BaseException, template: str) -> tuple[str, int | None]:
        """The template file and line a rendering error happened at (Jinja keeps them in the traceback)."""
        for frame in reversed(traceback.extract_tb(error.__traceback__)):
            if any(frame.filename.startswith(str(folder) + "/") for folder, _ in self.folders):
                return self._shown(frame.filename), frame.lineno
        return self._shown(template), None


def site_frame(site: Site) -> str:
    """What every page shows of the site around its own content: the configuration's words and
    addresses, the tracks in the header and whether it links a page of tags."""
    tracks = tuple((t.id, t.slug, t.title) for t in site.tracks)
    return repr(
        (
            site.title,
            site.description,
            site.base_url,
            site.repo_url,
            site.repo_branch,
            site.judge_url,
            site.footer,
            tracks,
            bool(site.tags),
        )
    )


class UnlinkedLoader(jinja2.FileSystemLoader):
    """Templates from one folder, refusing symbolic links: an archive's link could name any file of
    the machine, and a template's text ends up in pages."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        if os.path.realpath(filename) != os.path.abspath(filename):
            raise jinja2.TemplateNotFound(template, f"{template}: a symbolic link, which is not followed")
        return source, filename, uptodate


FILE_GROUPS = (
    ("Statement and write-up", ("statement", "problem_statement", "solution")),
    ("Test data", ("data", "samples", "tests")),
    ("Submissions", ("submissions",)),
    ("Validators", ("input_validators", "input_format_validators", "output_validator", "output_validators")),
    ("Validators", ("answer_validators", "output_visualizer", "input_visualizer", "static_validator")),
    ("Generators", ("generators",)),
    ("Included with submissions", ("include",)),
)


def file_groups(files: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """An entry's files grouped by what they are for, as a package's folders say: the page folds them
    at its end instead of listing seventy links before the statement."""
    groups: dict[str, list[str]] = {}
    for name in files:
        top = name.split("/", 1)[0] if "/" in name else ""
        title = next((t for t, folders in FILE_GROUPS if top in folders), "Problem files" if not top else "Other files")
        groups.setdefault(title, []).append(name)
    order = ["Problem files", *dict.fromkeys(t for t, _ in FILE_GROUPS), "Other files"]
    return [(title, groups[title]) for title in order if title in groups]


# How a statement shows a sample it places itself (render/document.py's ``statement_sample``).
_PLACED_SAMPLE = re.compile(r'<div class="statement-sample"><p class="sample-title">Sample ([^<]*)</p>')


def samples_in_statement(entry: Entry) -> set[str]:
    """The names of the samples the statement shows itself: the page's samples list does not repeat them."""
    if entry.statement is None:
        return set()
    return {html.unescape(m.group(1)) for m in _PLACED_SAMPLE.finditer(entry.statement.html)}


def sample_anchors(text: str) -> str:
    """The statement's HTML with an id on each sample it places, for the samples list to link to."""
    return _PLACED_SAMPLE.sub(
        lambda m: (
            f'<div class="statement-sample" id="statement-sample-{slugify(html.unescape(m.group(1)))}">'
            f'<p class="sample-title">Sample {m.group(1)}</p>'
        ),
        text,
    )


_DRAWN = re.compile(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" alt="(?:PDF figure|TikZ picture)[^"]*"')
_NAMED = re.compile(r'alt="PDF figure: ([^"]*)"')  # a PDF figure with no caption: its file's name
_SRCSET = re.compile(r' srcset="[^"]*"')
_COPY = re.compile(r"data:image/webp;base64,([A-Za-z0-9+/=]+)( \d+w)")
_INLINED = ("data:image/svg+xml;base64,", "data:image/webp;base64,")
_FIGURE = re.compile(r"<figure\b[^>]*>.*?</figure>", re.S)
_CAPTION_TEXT = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)


def figures_as_files(entry: Entry, root: str) -> tuple[Entry, list[Output]]:
    """The entry with each drawn figure of its documents (inlined as a ``data:`` URL when drawn) linked
    from a file of its own (``figures/<digest>.svg``: cached by browsers, loaded when scrolled to), its
    caption as its text; and those files."""
    files: dict[str, Output] = {}

    def linked(document: Document | None) -> Document | None:
        if document is None or not any(kind in document.html for kind in _INLINED):
            return document
        text = _link_copies(_link_figures(document.html, root, files), root, files)
        return replace(document, html=_NAMED.sub(r'alt="\1"', _captions_as_alt(text)))

    changed = replace(
        entry,
        statement=linked(entry.statement),
        solution=linked(entry.solution),
        translations=tuple(d for d in (linked(t) for t in entry.translations) if d is not None),
    )
    return changed, list(files.values())


def _link_figures(text: str, root: str, files: dict[str, Output]) -> str:
    """Only the drawings ``render/pictures.py`` made (and sanitized) are matched: by their alt text."""

    def link(m: re.Match[str]) -> str:
        data = base64.b64decode(m.group(1))
        name = f"{FIGURES}/{hashlib.sha256(data).hexdigest()[:24]}.svg"
        files.setdefault(name, Output(name, data))
        return m.group(0).replace(f"data:image/svg+xml;base64,{m.group(1)}", root + name)

    return _DRAWN.sub(link, text)


def _link_copies(text: str, root: str, files: dict[str, Output]) -> str:
    """The smaller copies of a photo or screenshot (``render/bitmaps.py``: WebP, in its ``srcset``)
    linked from files of their own; a ``data:`` URL that is not a WebP image stays as it is."""

    def link(m: re.Match[str]) -> str:
        data = base64.b64decode(m.group(1))
        if webp_size(data) is None:
            return m.group(0)
        name = f"{FIGURES}/{hashlib.sha256(data).hexdigest()[:24]}.webp"
        files.setdefault(name, Output(name, data))
        return root + name + m.group(2)

    return _SRCSET.sub(lambda m: _COPY.sub(link, m.group(0)), text)


def _captions_as_alt(text: str) -> str:
    """A drawn figure in a ``<figure>`` with a caption gets the caption's words as its alternative
    text, not "PDF figure" (drawings are filled in after the document gave its images their captions)."""

    def one(m: re.Match[str]) -> str:
        caption = _CAPTION_TEXT.search(m.group(0))
        if not caption:
            return m.group(0)
        words = re.sub(r'<span class="caption-label">.*?</span>\s*|<[^>]+>', "", caption.group(1))
        alt = html.escape(" ".join(html.unescape(words).split()), quote=True)
        if not alt:
            return m.group(0)
        return re.sub(r'alt="(?:PDF figure|TikZ picture)[^"]*"', lambda _: f'alt="{alt}"', m.group(0), count=1)

    return _FIGURE.sub(one, text)


def for_readers(diagnostic: Diagnostic, entry: Entry) -> str:
    """A build message as a reader of the page sees it: its path from the archive's root, never a folder
    of the machine that built the site."""
    text = str(diagnostic)
    at = text.find(entry.path + "/") if entry.path else -1
    if at < 0:
        at = text.find(entry.path + ":") if entry.path else -1
    return text[at:] if at > 0 else text
