"""Orchestration: load the archive, render and verify everything, and write the site.

With static copying this is the only module that writes to the output folder. ``build_site``
writes every new or changed file into a temporary sibling folder and publishes only when all are
complete (``publish/output.SiteWriter``), so a failed or interrupted build leaves the previous
site untouched. ``Builder`` keeps the loaded site
in memory; the dev server's ``serve/updates.py`` builds on it to update single entries and
re-render only the pages that list them.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from contextlib import closing
from dataclasses import replace
from functools import partial
from pathlib import Path

from .errors import Diagnostic, SiteError
from .freshness import Loaded, kept_build, load_inputs, source_key
from .model import CodeFile, Entry, EntrySource, Site
from .publish import forkedpages, manifest, mathfont, output, resume
from .publish.catalog import link_site, listed_digest
from .publish.downloads import archives_soon, sample_archive_paths
from .publish.outputs import Output, entry_url
from .publish.pages import PageRenderer
from .publish.rawfiles import plan_raw_files
from .publish.records import search_listing
from .publish.report import BuildReport, report_from_summary, site_notes, summary_of, verification_rows
from .publish.retired import forget_retired
from .publish.screening import screen
from .publish.search import SearchFeed, SearchIndex, build_search_index
from .render.math import MathRenderer
from .render.pictures import PictureRenderer
from .render.svg import SvgSanitizer
from .render.workers import Job, RenderPool, Setup, cards_key, render_entries, soon
from .source.config import BuildOptions, SiteConfig
from .source.theme import Theme, theme_display
from .source.walk import Skip
from .store import JsonStore, PickleStore, bucket_keys, renderer_fingerprint, write_json
from .verify.diagnostics import verification_diagnostics
from .verify.options import VerifyOptions
from .verify.verifier import Progress, Verifier

log = logging.getLogger(__name__)


def build_site(
    options: BuildOptions,
    progress: Progress | None = None,
    loaded: Loaded | None = None,
    pool: RenderPool | None = None,
) -> BuildReport:
    """Build the archive into ``options.out``. Raises ``SiteError`` for problems that stop the build.

    When nothing the site is built from has changed since the published build, and the published
    files are as that build left them, the site is kept and the last report is returned again.
    ``pool``: workers to render with, started before (the caller closes it).
    """
    if loaded is None:
        kept, loaded = kept_build(options)
        if kept is not None:
            return kept
    with Builder(options, progress, pool) as builder:
        return builder.build_all(loaded)


class Builder:
    """The site, loaded, rendered and verified, kept between builds."""

    def __init__(self, options: BuildOptions, progress: Progress | None = None, pool: RenderPool | None = None) -> None:
        self.options = options
        self.progress = progress
        self.pool = pool  # workers started before the build, to render its entries with
        self.math = MathRenderer(options.root, options.cache)
        self.svg = SvgSanitizer(options.root, options.cache)
        self.pictures = PictureRenderer(options.root, options.cache, options.archive)
        self.sanitized: dict[str, Path] = {}  # the sanitized file to publish for each SVG, by its path in the site
        self.renders = PickleStore(options.cache / "render")
        self.verifier: Verifier | None = None
        self.write_lock = threading.Lock()  # the dev server's search refresh writes from another thread
        self.git_dates: dict[str, int] = {}
        self.config = SiteConfig()
        self.theme = Theme((options.templates,), (options.static,))
        self.sources: dict[str, EntrySource] = {}
        self.entries: dict[str, Entry] = {}
        self.site: Site | None = None
        self.link_problems: list[Diagnostic] = []  # those of linking ``site``
        self.pages: PageRenderer | None = None
        self.problems: list[Diagnostic] = []  # archive-level problems of the last full load
        self.published: dict[str, str] = {}  # output path -> content hash, as on disk
        self.content_keys: dict[str, str] = {}  # entry path -> the render key of its content
        self.solver_processes = 0
        self.timings: dict[str, float] = {}
        self.math_assets: mathfont.MathAssets | None = None  # the math font as last cut, and its stylesheet
        self.shown: dict[str, str] = {}  # entry path -> the digest of what lists show of it (``listed``)

    def __enter__(self) -> Builder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.math.close()

    @property
    def executor(self) -> Executor | None:
        """The render workers, for work done meanwhile (``render/workers.soon``), when the build has them."""
        return self.pool.executor if self.pool is not None else None

    @property
    def skip(self) -> Skip:
        """The folders of the archive no build reads: the output and cache, and those ``site.yaml`` excludes."""
        return self.options.skipped(self.config)

    # ------------------------------------------------------------ full build

    def build_all(self, loaded: Loaded | None = None, reuse_published: bool = False) -> BuildReport:
        """Load and render everything; publish atomically unless ``--strict`` finds problems.

        ``loaded``: the configuration and archive, when the caller has just read them.
        ``reuse_published``: when the published site is current for these inputs, keep its pages
        instead of rendering and writing them again (the dev server's start: it needs the entries
        in memory, not the pages).
        """
        loaded, sources, started = self._load(loaded)
        whole = partial(self._complete, {s.path: s for s in sources})
        in_order = [s.path for s in sources]
        feed = None if reuse_published else SearchFeed(self.config, self.renders, in_order, self.content_keys, whole)
        self.pages = self._page_renderer()
        entries, renders_changed, search = self._entries(sources, feed, self.pages.compile_templates)
        mark = time.perf_counter()
        site, link_problems = link_site(self.config, entries, self.options.display(self.options.archive))
        self.link_problems = link_problems
        if reuse_published:
            kept = self._reuse_published(loaded, sources, entries, site, started, mark)
            if kept is not None:
                return kept
        plan = self.pages.plan(site, whole)
        raw, collisions = plan_raw_files(self.options, sources, [*plan, *sample_archive_paths(sources)], self.sanitized)
        with output.SiteWriter(self.options, self.theme) as writer:
            # Copied while the pages are made (by a process of their own when there are many), unless
            # the site will not be published: --strict with problems (more may come, none go).
            if not (self.options.strict and self._diagnostics(entries, [*link_problems, *collisions])):
                writer.add_raw(raw)
            math_files = self._math_outputs_soon(mathfont.site_math_chars([e.math_chars for e in entries]))
            sample_archives = archives_soon(writer, sources, self.options.cache, self.executor)
            self._write_pages(writer, site, plan, loaded.program)
            writer.add(math_files())
            mark = self._lap("pages", mark)
            if search is not None:
                index = search.result()
            else:
                index = build_search_index(search_listing(site, self.content_keys), self.renders, whole=whole)
            if renders_changed:
                self._forget_old_renders(sources, index)
            writer.add(index.outputs)
            if index.problem:
                self.problems.append(Diagnostic(self.options.display(self.options.root), 0, index.problem, "warning"))
            mark = self._lap("search", mark)
            sample_archives()
            diagnostics = self._diagnostics(entries, [*link_problems, *collisions])
            publish = not (self.options.strict and diagnostics)
            self._keep(sources, entries, site)
            pages = sum(1 for path in plan if path.endswith(".html"))
            written = size = 0
            if publish:
                record = (loaded.inputs, summary_of(diagnostics, site, pages))
                with self.write_lock:
                    self.published, written, size = writer.finish(record)
                forget_retired(self.options.cache, self.math.cache_path.name)
        del writer  # its manifest (160,000 files at 10,000 entries) before the record is made
        if publish:
            self._record(loaded, sources, site)
        self._lap("write", mark)
        return replace(self._report(diagnostics, publish, started, pages, written, rows=True), size=size)

    def check_all(self, loaded: Loaded | None = None) -> BuildReport:
        """Everything a build does but write: load, render and verify every entry, and render every
        page (so that a template error shows), then report. The caches are kept, so a build after a
        check renders and runs nothing again; no search index is made and no site is written."""
        loaded, sources, started = self._load(loaded)
        entries, _, _ = self._entries(sources)
        mark = time.perf_counter()
        site, link_problems = link_site(self.config, entries, self.options.display(self.options.archive))
        self.link_problems = link_problems
        self.pages = self._page_renderer()
        plan = self.pages.plan(site, partial(self._complete, {s.path: s for s in sources}))
        for render in plan.values():
            render()
        self._lap("pages", mark)
        made = [*plan, *sample_archive_paths(sources)]
        _, collisions = plan_raw_files(self.options, sources, made, self.sanitized)
        diagnostics = self._diagnostics(entries, [*link_problems, *collisions])
        self._keep(sources, entries, site)
        pages = sum(1 for path in plan if path.endswith(".html"))
        return self._report(diagnostics, False, started, pages, rows=True)

    def _load(self, loaded: Loaded | None) -> tuple[Loaded, list[EntrySource], float]:
        """The inputs (read now unless ``loaded`` has them), taken in, and their sources screened;
        with the time the build started (reading included)."""
        started = time.perf_counter() - (loaded.seconds if loaded is not None else 0.0)
        self.timings = {}
        self.solver_processes = 0
        loaded = loaded or load_inputs(self.options)
        self._take(loaded)
        self.timings["load"] = loaded.seconds
        mark = time.perf_counter()
        self.sanitized = {}
        sources = self._screen(loaded.sources)
        self._lap("screen files", mark)
        return loaded, sources, started

    def _entries(
        self, sources: list[EntrySource], feed: SearchFeed | None = None, meanwhile: Callable[[], object] = list
    ) -> tuple[list[Entry], bool, Future[SearchIndex] | None]:
        """Every entry rendered and verified; whether the bundle of cards changed; and the search
        index ``feed`` (given each entry as it comes) builds meanwhile, in the background, while
        the solvers run. ``meanwhile`` is done while entries are rendered (or before, when none is)."""
        mark = time.perf_counter()
        bundle = self._card_bundle()
        try:
            entries = self._render(sources, feed, bundle=bundle, meanwhile=meanwhile)
        except BaseException:
            if feed is not None:
                feed.abandon()
            raise
        search = feed.finish() if feed is not None else None
        renders_changed = self._save_card_bundle(entries, bundle)
        mark = self._lap("render entries", mark)
        entries = self._verify(sources, entries, whole=True)
        self._lap("verify", mark)
        return entries, renders_changed, search

    def _take(self, loaded: Loaded) -> None:
        """What the build reads first: the configuration, git dates, theme and archive-level problems."""
        self.config, self.git_dates, self.theme = loaded.config, loaded.git_dates, loaded.theme
        message = "a symbolic link in the overrides folder: not followed (copy the file instead)"
        links = [Diagnostic(self.options.display(link), 0, message, "warning") for link in self.theme.links()]
        self.problems = [*loaded.problems, *links]

    def _reuse_published(
        self, loaded: Loaded, sources: list[EntrySource], entries: list[Entry], site: Site, started: float, mark: float
    ) -> BuildReport | None:
        current = manifest.current_pages(self.options, loaded.inputs)
        if current is None:
            return None
        pages, summary = current
        kept = report_from_summary(summary, self.options.out, 0.0, {})
        if kept is None:
            return None
        self._keep(sources, entries, site)
        self.published = pages
        self._lap("check published", mark)
        return replace(kept, seconds=time.perf_counter() - started, timings=dict(self.timings))

    def _record(self, loaded: Loaded, sources: list[EntrySource], site: Site) -> None:
        """Leave the record a quick build starts from (``publish/resume``), or none where one could not
        start from it (no stamp of its folders, or entries the lists were not keyed by)."""
        resume.forget(self.options.cache)
        if loaded.folders is None or not all(s.path in self.shown for s in sources):
            return
        clean = {e.path for e in site.entries if not entry_diagnostics(e)}
        keys, problems = {s.path: source_key(s) for s in sources}, repr(loaded.problems)
        made = resume.record_of(site, sources, self.shown, self.content_keys, keys, clean, problems)
        git = resume.git_digest(loaded.git_dates)
        record = replace(made, settings=loaded.settings, git=git, out=str(self.options.out), folders=loaded.folders)
        resume.save(self.options.cache, record)

    def _keep(self, sources: list[EntrySource], entries: list[Entry], site: Site) -> None:
        """Hold the loaded site for incremental updates."""
        self.sources = {s.path: s for s in sources}
        self.entries = {e.path: e for e in entries}
        self.site = site

    # ------------------------------------------------------------ stages

    def _screen(self, sources: list[EntrySource]) -> list[EntrySource]:
        """The sources with the files they withhold from the site; SVG images sanitized."""
        config = self.config
        screened = screen(sources, self.options.archive, self.svg, config.publish_active_files, config.publish_data)
        self.sanitized.update(screened.sanitized)
        return screened.sources

    def _page_renderer(self) -> PageRenderer:
        folders = [(folder, theme_display(self.options.display(folder), folder)) for folder in self.theme.templates]
        return PageRenderer(folders, self.options.cache / "jinja", sandboxed=self.theme.overrides is not None)

    def _render(
        self,
        sources: list[EntrySource],
        feed: SearchFeed | None = None,
        cards: bool = True,
        bundle: dict[str, Entry] | None = None,
        meanwhile: Callable[[], object] = list,
    ) -> list[Entry]:
        """Rendered entries: from the render cache where the sources are unchanged (as cards, see
        ``Entry.card``, unless ``cards`` is false; from ``bundle`` where it has them), else rendered now.

        ``feed`` gets each entry as soon as it and those before it are there (and indexes each
        shard of them meanwhile, see ``SearchFeed``).
        """
        keys = [self._render_key(s) for s in sources]
        self.content_keys.update(zip((s.path for s in sources), keys, strict=True))
        bundle = bundle or {}
        cached = [bundle.get(k) or self._cached(k, cards) for k in keys]
        todo = [(s, k) for s, k, hit in zip(sources, keys, cached, strict=True) if hit is None]
        if not todo:  # all from the cache: no renderer, Pygments or Markdown parser to import
            return self._fed(iter(()), cached, feed, cards, meanwhile)
        before = self._previous_code([s.path for s, _ in todo], bundle)
        jobs = [Job(s, k, before.get(s.path, ()), cards) for s, k in todo]
        setup = Setup(self.math, self.renders, self.pictures)
        with closing(render_entries(jobs, self.options.workers, setup, self.pool)) as fresh:
            entries = self._fed(fresh, cached, feed, cards, meanwhile)
        self.math.save_cache()
        return entries

    def _previous_code(self, paths: list[str], bundle: dict[str, Entry]) -> dict[str, tuple[CodeFile, ...]]:
        """The highlighted code of each of these entries as the last full build rendered it (``bundle``:
        its cards, by render key), for what has not changed since: an edited write-up does not have its
        entry's code highlighted again (Pygments takes about a second to set up in a fresh process)."""
        wanted = set(paths)
        last = {card.path: key for key, card in bundle.items() if card.path in wanted}
        wholes = {path: self.renders.get(key) for path, key in last.items()}
        return {p: (*w.solvers, *w.sources) for p, w in wholes.items() if isinstance(w, Entry) and w.complete}

    def _fed(
        self,
        fresh: Iterator[Entry],
        cached: list[Entry | None],
        feed: SearchFeed | None,
        cards: bool,
        meanwhile: Callable[[], object] = list,
    ) -> list[Entry]:
        """Each entry from the cache, or else the next fresh one, in order, given to ``feed`` at once;
        ``meanwhile`` done when the first fresh one has come (the workers render the others). With
        ``cards``, a fresh entry is kept as its card once the render cache has it (see ``_complete``):
        a build of ten thousand entries holds their cards, not their pages' HTML."""
        entries, waiting = [], True
        for hit in cached:
            entry = hit if hit is not None else next(fresh)
            if hit is None and waiting:
                meanwhile()
                waiting = False
            if feed is not None:
                feed.add(entry)
            if hit is None and cards and entry.lasting(self.math.available):
                entry = entry.card()  # (a worker may have sent the card already, with its searchable text)
            entries.append(entry)
        if waiting:  # (no fresh entry came)
            meanwhile()
        return entries

    def _cached(self, key: str, card: bool) -> Entry | None:
        entry = self.renders.get(key)
        return (entry.card() if card else entry) if isinstance(entry, Entry) else None

    def _card_bundle(self) -> dict[str, Entry]:
        """The cards of the last full build's entries, by render key, from a few files (buckets):
        a thousand small files cost more to open than their contents cost to read, and one big file
        costs a whole write for one changed entry."""
        return self.renders.get_buckets(cards_key()) or {}

    def _save_card_bundle(self, entries: list[Entry], bundle: dict[str, Entry]) -> bool:
        """Bundle the cards of ``entries`` (``bundle``: as it was read; a card taken from it is the
        very same object) unless it has just those, writing only the buckets whose cards changed;
        whether it did not."""
        lasting = [e for e in entries if e.lasting(self.math.available)]
        cards = {self.content_keys[e.path]: e.card() if e.complete else e for e in lasting}
        if cards.keys() == bundle.keys():
            return False
        self.renders.put_buckets(cards_key(), cards, bundle or None)
        return True

    def _forget_old_renders(self, sources: list[EntrySource], index: SearchIndex) -> None:
        """Keep the render cache to this build's entries, cards and search index: an archive edited
        for months would otherwise keep every entry as it ever was. (Called when the entries
        changed: else so did nothing in the cache.)"""
        keys = {self.content_keys[s.path] for s in sources}
        keep = {*keys, *bucket_keys(cards_key())}
        if index.keys:
            keep.update(index.keys)
        elif index.problem is None:
            return  # no search index was asked for, so its cached one is not known: keep everything
        self.renders.keep_only(keep)

    def _complete(self, sources: dict[str, EntrySource], entry: Entry) -> Entry:
        """The whole entry of a card, from the render cache (rendered again if it is not there)."""
        if entry.complete:
            return entry
        whole = self._render([sources[entry.path]], cards=False)[0]
        return replace(whole, runs=entry.runs)

    def _write_pages(
        self, writer: output.SiteWriter, site: Site, plan: dict[str, Callable[[], Output]], program: str
    ) -> None:
        """Render every page of ``plan`` into ``writer``, one at a time. An
        entry page whose content, verdicts, neighbours and navigation are those of the published
        page, under the same templates and code, is kept as it is: a build that changed one entry
        renders its page and its neighbours', not a thousand. The other pages (home, tracks, tags,
        sitemap, verification report) show nothing but entries' cards and the configuration: each is
        kept while the cards it shows are unchanged (their searchable text aside, see ``listed``;
        ``PageRenderer.list_inputs``), so a new title renders its track's and tags' pages again, not
        every list of the site."""
        assert self.pages is not None
        store = JsonStore(self.options.cache / "pages.json", "page cache")
        keys: dict[str, str] = {}  # made while the pages are rendered, if a forked copy renders some
        renderer = self.pages
        placed = forkedpages.placed_pages(
            plan, writer, renderer, self.options.workers, lambda: keys.update(self._page_keys(site, program))
        )
        used: dict[str, object] = {}
        sent: set[str] = set()  # figure files given to the writer: entries may share one

        def kept_figures(known: object) -> tuple[str, dict[str, str]]:
            """A page's digest and its figure files' (``[digest, {path: digest}]`` when it has any)."""
            if isinstance(known, list) and len(known) == 2 and isinstance(known[1], dict):
                return str(known[0]), known[1]
            return (known, {}) if isinstance(known, str) else ("", {})

        def pages() -> Iterator[Output]:
            for path, render in plan.items():
                key = keys.get(path)
                known, figures = kept_figures(store.get(key) if key else None)
                if key and known and writer.has(path, known) and all(writer.has(f, d) for f, d in figures.items()):
                    used[key] = store.get(key)
                    yield Output(path, b"", kept=known)
                    for name, digest in figures.items():
                        if name not in sent:
                            sent.add(name)
                            yield Output(name, b"", kept=digest)
                    continue
                if path in placed:  # rendered and written by the builder and its forked copy at once
                    page, drawn = forkedpages.outputs(path, placed[path])
                else:
                    page = render()
                    page = replace(page, digest=output.digest(page.data))  # written and kept by it
                    drawn = [replace(f, digest=output.digest(f.data)) for f in renderer.figures_of(path)]
                if key:
                    used[key] = [page.digest, {f.path: f.digest for f in drawn}] if drawn else page.digest
                yield page
                for figure in drawn:
                    if figure.path not in sent:
                        sent.add(figure.path)
                        yield figure

        writer.add(pages())
        write_json(store.path, used)

    def _page_keys(self, site: Site, program: str) -> dict[str, str]:
        """Each page's key in the page cache (see ``_write_pages``): what it shows, and what renders it."""
        assert self.pages is not None
        # Templates, code, static files, libraries, site.yaml and the math renderer: the same for every page.
        shared = repr((program, self.config, self.math.cache_path.name, self.math.available))
        keys = {
            url: hashlib.sha256(f"{shared}\0{self.content_keys[path]}\0{shown}".encode()).hexdigest()
            for url, (path, shown) in self.pages.entry_inputs(site).items()
            if path in self.content_keys
        }
        # every entry keyed, in the site's order: so is the site
        if all(entry_url(e) in keys for e in site.entries):
            # What other pages can show of each entry (``listed``): its card but its runs, a function of
            # its content key, remembered by it (``listed.json``), and its runs.
            summaries = self.pages.shows_anything  # the archive's templates may list them
            memo = JsonStore(self.options.cache / f"listed{'-summaries' if summaries else ''}.json", "listing cache")
            seen: dict[str, str] = {}
            rows: dict[str, str] = {}
            for entry in site.entries:
                content = self.content_keys[entry.path]
                shown = memo.get(content)
                if not isinstance(shown, str):
                    shown = listed_digest(entry, summaries)
                seen[content] = self.shown[entry.path] = shown
                rows[entry.path] = f"{entry_url(entry)} {shown} {entry.runs!r}"
            if seen != memo.data:
                write_json(memo.path, seen)
            for path, shown in self.pages.list_inputs(site, rows).items():
                keys.setdefault(path, hashlib.sha256(f"{shared}\0{path}\0{shown}".encode()).hexdigest())
        return keys

    def _math_outputs_soon(self, chars: str) -> Callable[[], list[Output]]:
        """Temml's stylesheet and the math font cut to ``chars``, what the pages' math draws (none when
        no page has math, the archive's overrides bring their own stylesheet, or Temml is missing), when
        called; a new cut is made meanwhile by a render worker when the build started them before."""
        if not chars or self.theme.static_file(mathfont.STYLESHEET) is not None:
            return list
        if self.math_assets is None or self.math_assets.chars != chars:  # Temml's files read only to cut again
            sources = MathRenderer.math_sources(self.options.root)
            if sources is None:
                return list
            cut = soon(self.executor, mathfont.math_assets, sources, chars, self.options.cache)
            return partial(self._math_files, cut)
        return partial(self._math_files, None)

    def _math_files(self, cut: Callable[[], mathfont.MathAssets] | None) -> list[Output]:
        self.math_assets = cut() if cut is not None else self.math_assets
        assert self.math_assets is not None
        if problem := self.math_assets.problem:
            self.problems.append(Diagnostic(self.options.display(self.options.root), 0, problem, "warning"))
        return [Output(f"static/{name}", data) for name, data in self.math_assets.files.items()]

    def _render_key(self, source: EntrySource) -> str:
        digest = hashlib.sha256()
        digest.update(renderer_fingerprint().encode())
        digest.update(self.math.cache_path.name.encode())  # Temml version and options
        digest.update(self.pictures.version.encode())  # TeX and dvisvgm, or none
        digest.update(source.key_text().encode())
        return digest.hexdigest()

    def _verify(self, sources: list[EntrySource], entries: list[Entry], whole: bool = False) -> list[Entry]:
        if not self.options.verify:
            return entries
        settings = VerifyOptions(
            interpreter=self.options.interpreter,
            jobs=self.options.workers,
            rerun=self.options.rerun,
            cache_dir=self.options.cache,
            time_limit=self.config.time_limit,
            cpp_standard=self.config.cpp_standard,
            time_margin=self.config.time_margin,
        )
        if self.verifier is None or self.verifier.options != settings:
            self.verifier = Verifier(settings)
        report = self.verifier.run(sources, self.options.archive, self.progress, whole)
        self.solver_processes = report.started
        if report.cache_warning:
            self.problems.append(
                Diagnostic(self.options.display(self.options.cache), 0, report.cache_warning, "warning")
            )
        return [e.evolve(runs=report.runs.get(e.path, ())) for e in entries]

    def _diagnostics(self, entries: list[Entry], extra: list[Diagnostic]) -> tuple[Diagnostic, ...]:
        return self._site_diagnostics(entries, extra, map(entry_diagnostics, entries))

    def _site_diagnostics(
        self, entries: list[Entry], extra: list[Diagnostic], each: Iterable[tuple[Diagnostic, ...]]
    ) -> tuple[Diagnostic, ...]:
        """Every problem of the site: the archive's, ``extra``, the math renderer's, and ``each`` entry's."""
        found = {*self.problems, *extra}
        if self.math.cache_warning:
            found.add(Diagnostic(self.options.display(self.math.cache_path), 0, self.math.cache_warning, "warning"))
        if not self.math.available and any(e.statement or e.solution for e in entries):
            found.add(
                Diagnostic(self.options.display(self.options.archive), 0, self.math.unavailable_reason(), "warning")
            )
        for problems in each:
            found.update(problems)
        return tuple(sorted(found))

    def _lap(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.timings[name] = now - since
        return now

    def _report(
        self,
        diagnostics: tuple[Diagnostic, ...],
        published: bool,
        started: float,
        pages: int,
        written: int = 0,
        rows: bool = False,
    ) -> BuildReport:
        """``rows``: with every entry's verification, for the summary a full build prints (the dev
        server prints none, and an update of one entry need not go through a thousand)."""
        site = self.site
        return BuildReport(
            diagnostics=diagnostics,
            entries=len(site.entries) if site else 0,
            tracks=len(site.tracks) if site else 0,
            pages=pages,
            published=published,
            seconds=time.perf_counter() - started,
            out=self.options.out,
            timings=dict(self.timings),
            verification=verification_rows(site) if rows else (),
            solver_processes=self.solver_processes,
            written=written,
            notes=site_notes(site),
        )


def entry_diagnostics(entry: Entry) -> tuple[Diagnostic, ...]:
    """An entry's own problems, and those of its verification."""
    return (*entry.diagnostics, *verification_diagnostics(entry))


__all__ = ["BuildReport", "Builder", "SiteError", "build_site"]
