"""The dev server's incremental updates: a changed entry reloaded, verified and rendered, and only
the pages that show it written again, in place; templates re-rendered; the search index refreshed
in the background, and abandoned when a save comes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial

from ..build import Builder, entry_diagnostics
from ..errors import Diagnostic
from ..freshness import Loaded
from ..model import Entry, EntrySource, Site
from ..publish import output
from ..publish.catalog import link_site, listed, neighbours, relinked
from ..publish.downloads import sample_archives
from ..publish.feeds import render_feed, render_verification_report
from ..publish.mathfont import FONT_PREFIX, site_math_chars
from ..publish.outputs import Output, entry_url
from ..publish.pages import code_pages, site_frame
from ..publish.rawfiles import plan_raw_files
from ..publish.records import search_listing
from ..publish.report import BuildReport
from ..publish.search import BUNDLE, PagefindSession, build_search_index
from ..source.archive import load_entry
from ..source.config import BuildOptions
from ..source.paths import entry_url_path, reserved_folder, unique_slugs, url_slug, walk_order
from ..source.walk import is_problem_dir
from ..verify.diagnostics import verification_diagnostics

MATH_FONTS = f"static/{FONT_PREFIX}"  # the cuts of the math font, one published at a time


class LiveBuilder(Builder):
    """A ``Builder`` that, after its full build, updates the published site entry by entry."""

    def __init__(self, options: BuildOptions) -> None:
        super().__init__(options)
        self.refresh: PagefindSession | None = None  # Pagefind, while the search index is refreshed
        self.generation = 0  # bumped before each rebuild: a refresh begun before it is out of date
        # Told the pages an update wrote first (the saved entries' own), before it renders the pages
        # that list them: the dev server reloads those at once. ``changed_pages``: what the last
        # update wrote after that (every page it wrote, if it told nothing first); None: not known.
        self.early: Callable[[set[str]], None] | None = None
        self.changed_pages: set[str] | None = None
        # Whether another save is waiting: the pages listing a save's entries are then left for the
        # next update to render (``unfinished``), after the saved pages, so that save waits for no list.
        self.interrupted: Callable[[], bool] = lambda: False
        self.unfinished: set[str] = set()
        # The problems of each entry that has any, by path: a save works out its own entries' alone.
        self.flagged: dict[str, tuple[Diagnostic, ...]] = {}

    def build_all(self, loaded: Loaded | None = None, reuse_published: bool = False) -> BuildReport:
        self.unfinished = set()
        report = super().build_all(loaded, reuse_published)
        self.flagged = {path: found for path, e in self.entries.items() if (found := entry_diagnostics(e))}
        return report

    def _held_diagnostics(self, entries: list[Entry], extra: list[Diagnostic]) -> tuple[Diagnostic, ...]:
        """``_diagnostics`` of the entries held (``entries``), from ``flagged``."""
        return self._site_diagnostics(entries, extra, self.flagged.values())

    def update_entries(self, folders: Iterable[str]) -> BuildReport:
        """Reload the given problem folders (new, changed or removed) and rewrite what lists them.

        When the changed entries have errors nothing is written and the previous pages stay.
        """
        started = time.perf_counter()
        self.solver_processes = 0
        self.changed_pages = None
        archive = self.options.archive
        shown = self.options.display(archive)
        wanted = set(folders)
        skip = self.skip
        same_folders = all(f in self.sources and is_problem_dir(archive / f, skip) for f in wanted)
        if not same_folders:  # a folder came or went: one numbered for a URL it had may have it back now
            bases = {url_slug(f).lower() for f in wanted}
            wanted |= {p for p, s in self.sources.items() if s.slug != url_slug(p) and url_slug(p).lower() in bases}
        loaded = [
            load_entry(archive / f, archive, shown, self.git_dates, skip=skip)
            for f in sorted(wanted)
            if is_problem_dir(archive / f, skip) and (not f or not reserved_folder(entry_url_path(f)))
        ]
        # The same folders, each at the URL it had: no other entry's URL can change.
        same_urls = same_folders and all(s.slug == self.sources[s.path].slug for s in loaded)
        fresh = self._screen(loaded if same_urls else self._slugged(loaded, wanted))
        changed = sorted(wanted | {s.path for s in fresh})
        rendered = self._verify(fresh, self._render(fresh))
        new_errors = [d for e in rendered for d in (*e.diagnostics, *verification_diagnostics(e)) if d.level == "error"]
        if new_errors:
            return self._report(tuple(sorted(new_errors)), False, started, 0)
        old = {p: self.entries[p] for p in changed if p in self.entries}
        old_urls = [self.sources[p].slug for p in changed if p in self.sources]
        for path in changed:
            self.sources.pop(path, None)
            self.entries.pop(path, None)
        self.sources.update({s.path: s for s in fresh})
        self.entries.update({e.path: e for e in rendered})
        for path in changed:
            self.flagged.pop(path, None)
        self.flagged.update((e.path, found) for e in rendered if (found := entry_diagnostics(e)))
        summaries = self.pages is not None and self.pages.shows_anything  # the archive's templates list them
        listed = [e for e in rendered if e.path not in old or listing(old[e.path], summaries) != listing(e, summaries)]
        listed += [e for path, e in old.items() if path not in self.entries]  # removed entries
        listed_paths = {e.path for e in listed}
        own_pages_only = [e for e in rendered if e.path not in listed_paths]
        if not listed and not self.unfinished:
            return self._rewrite_own_pages(started, own_pages_only, old)
        return self._relink_and_write(
            started, affected_entries=listed, raw_folders=changed, own_pages=own_pages_only, old_urls=old_urls
        )

    def _rewrite_own_pages(self, started: float, entries: list[Entry], old: dict[str, Entry]) -> BuildReport:
        """Entries that other pages show as before (``listing``, ``old``: as they were): their own pages
        and their code files' written again, without relinking or planning the other pages of the site
        (in an archive of ten thousand entries, most of a save's time)."""
        assert self.pages is not None and self.site is not None
        site = relinked(self.site, [(old[e.path], e) for e in entries])
        plan = self.pages.plan_entries(site, entries, partial(self._complete, self.sources))
        outputs = self._math_outputs(self._chars_with(site, entries))
        if any(old[e.path].runs != e.runs for e in entries):
            outputs.append(render_verification_report(site))
        if any(old[e.path].summary_text != e.summary_text for e in entries):  # its first paragraph: in the feed
            outputs.append(render_feed(site))
        outputs += self._rendered(plan, set(plan))
        fresh_paths = {o.path for o in outputs}
        gone = {url for e in old.values() for url, _ in code_pages(e)} - set(plan)
        with self.write_lock:
            if any(p.startswith(MATH_FONTS) and p not in self.published for p in fresh_paths):
                gone |= {p for p in self.published if p.startswith(MATH_FONTS) and p not in fresh_paths}
            written, self.changed_pages = self._write(outputs)
            output.remove_in_place(self.options.out, gone, self.published)
            files, collisions = self._publish_files([self.sources[e.path] for e in entries], set(plan), ())
        self.site = site
        diagnostics = self._held_diagnostics(list(site.entries), [*self.link_problems, *collisions])
        return self._report(diagnostics, True, started, len(outputs), written + files)

    def _math_outputs(self, chars: str) -> list[Output]:
        """Temml's stylesheet and the math font cut to ``chars`` (``Builder._math_outputs_soon``), now."""
        return self._math_outputs_soon(chars)()

    def _chars_with(self, site: Site, entries: list[Entry]) -> str:
        """The characters of the font as last cut, and any new one these entries draw: a formula with a
        new character cuts it again (dropping one no page draws any more waits for a save that
        relinks the site, and cuts from every entry's characters)."""
        drawn = [self.math_assets.chars] if self.math_assets else [e.math_chars for e in site.entries]
        return site_math_chars([*drawn, *(e.math_chars for e in entries)])

    def _write(self, outputs: list[Output]) -> tuple[int, set[str]]:
        """Write the outputs whose bytes changed, in place; how many, and the pages among them."""
        before = {o.path: self.published.get(o.path) for o in outputs}
        written = output.write_in_place(self.options.out, outputs, self.published)
        pages = {path for path, key in before.items() if self.published.get(path) != key and path.endswith(".html")}
        return written, pages

    def _rendered_until(
        self, plan: dict[str, Callable[[], Output]], paths: set[str], stop: Callable[[], bool] | None
    ) -> tuple[list[Output], set[str]]:
        """The pages of ``plan`` at ``paths`` rendered, in order, each followed by its figure files
        (once), a page at a time until ``stop`` says so: the outputs, and the pages left."""
        assert self.pages is not None
        left = sorted(paths, reverse=True)
        outputs: list[Output] = []
        made: set[str] = set()
        while left and not (stop and stop()):
            path = left.pop()
            for item in (plan[path](), *self.pages.figures_of(path)):
                if item.path not in made:
                    made.add(item.path)
                    outputs.append(item)
        return outputs, set(left)

    def _rendered(self, plan: dict[str, Callable[[], Output]], paths: set[str]) -> list[Output]:
        """The pages of ``plan`` at ``paths`` rendered, in order, each followed by its figure files (once)."""
        return self._rendered_until(plan, paths, None)[0]

    def _publish_files(
        self, sources: list[EntrySource], pages: set[str], old_urls: list[str] | tuple[str, ...]
    ) -> tuple[int, list[Diagnostic]]:
        """The archive files and samples.zip of ``sources`` published again, and none left where they
        were (``old_urls``); ``pages``: the generated pages among them. Returns how many files were
        written, and the archive files that a page would overwrite."""
        downloads = sample_archives(sources)
        made = [*pages, *(d.path for d in downloads)]
        raw, collisions = plan_raw_files(self.options, sources, made, self.sanitized)
        urls = sorted({s.slug or s.path for s in sources}.union(old_urls))
        output.sync_raw_files(self.options, urls, raw, {d.path for d in downloads} | pages)  # code pages too
        return output.write_in_place(self.options.out, downloads, self.published), collisions

    def _slugged(self, loaded: list[EntrySource], reloaded: set[str]) -> list[EntrySource]:
        """``loaded`` with the URLs a full build would give them now, and each other entry whose URL
        that changes (a new folder that sorts first takes the URL; the other gets the error)."""
        kept = [s for path, s in self.sources.items() if path not in reloaded]
        every = unique_slugs(sorted([*kept, *loaded], key=lambda s: walk_order(s.path)))
        return [s for s in every if s.path in reloaded or s.slug != self.sources[s.path].slug]

    def rerender_all(self) -> BuildReport:
        """Templates changed: render every page again from the model, without parsing or running anything."""
        started = time.perf_counter()
        self.solver_processes = 0
        self.pages = self._page_renderer()
        return self._relink_and_write(started, affected_entries=None, raw_folders=[])

    def refresh_search(self) -> bool:
        """Rebuild the search index from the published entry pages (the dev server calls this after a
        reload); False when ``abandon_refresh`` stopped it, and nothing was written."""
        if self.site is None:
            return True
        out = self.options.out
        with self.write_lock:
            generation = self.generation

        def started(session: PagefindSession) -> None:
            with self.write_lock:
                self.refresh = session
                if self.generation != generation:
                    session.abandon()

        try:
            listing = search_listing(self.site, self.content_keys)
            index = build_search_index(listing, self.renders, background=started, whole=self._whole_of)
        finally:
            with self.write_lock:
                self.refresh = None
        wanted = {o.path for o in index.outputs}
        with self.write_lock:
            if self.generation != generation:
                return False
            if index.problem is None:
                stale = {p for p in self.published if p.startswith(BUNDLE + "/") and p not in wanted}
                output.write_in_place(out, list(index.outputs), self.published)
                output.remove_in_place(out, stale, self.published)
        return True

    def _whole_of(self, card: Entry) -> Entry:
        """The whole entry of a card, from the render cache (from the refresh's thread: nothing is
        rendered here), else the card itself: its record then lacks the searchable text until the
        next refresh. (The build that made the card has just cached its entry.)"""
        key = self.content_keys.get(card.path)
        whole = self._cached(key, card=False) if key is not None else None
        return whole if whole is not None else card

    def abandon_refresh(self) -> None:
        """Stop a search refresh that is running (its index would be of pages about to change), so that
        it takes no CPU from the rebuild about to start; ``refresh_search`` then returns False."""
        with self.write_lock:
            self.generation += 1
            if self.refresh is not None:
                self.refresh.abandon()

    def record_published(self) -> None:
        """The dev server wrote in place: record the output folder so the next build reuses it."""
        with self.write_lock:
            output.record_published(self.options)

    def copy_static(self, relative: str) -> None:
        output.copy_static_file(self.options, self.theme, relative)

    def _relink_and_write(
        self,
        started: float,
        affected_entries: list[Entry] | None,
        raw_folders: list[str],
        own_pages: tuple[Entry, ...] | list[Entry] = (),
        old_urls: list[str] | tuple[str, ...] = (),
    ) -> BuildReport:
        """Relink the site; render the pages of ``affected_entries`` and everything listing them
        (all pages when None), and only the own page of each of ``own_pages``. The archive's files
        of ``raw_folders`` are published again, and none is left where they were (``old_urls``)."""
        assert self.pages is not None and self.site is not None
        before = self.site
        entries = sorted(self.entries.values(), key=lambda e: e.path)
        site, link_problems = link_site(self.config, entries, self.options.display(self.options.archive))
        complete = partial(self._complete, self.sources)
        outputs: list[Output] = []
        sources = [self.sources[f] for f in raw_folders if f in self.sources]
        files_published = False  # the saved entries' files: with their pages, or after the rest
        written = files = 0
        collisions: list[Diagnostic] = []
        first: set[str] = set()
        same_places = sorted(old_urls) == sorted(s.slug for s in sources)  # no folder came, went or moved
        if affected_entries is not None and raw_folders and self.early is not None and same_places:
            # The saved entries' own pages first (with the font they draw with, and their files), told
            # at once: an author watching one of them sees it a moment after the save, not after the
            # site's plan and the track, tag and home pages that list it (a second in a big archive).
            saved = [self.entries[f] for f in raw_folders if f in self.entries]
            own = self.pages.plan_entries(site, saved, complete)
            outputs += self._math_outputs(self._chars_with(site, saved))  # the site's whole cut comes after
            outputs += self._rendered(own, set(own))
            with self.write_lock:
                written, told = self._write(outputs)
                files, collisions = self._publish_files(sources, set(own), old_urls)
            self.early(told)
            files_published, first, outputs = True, set(own), []
        outputs += self._math_outputs(site_math_chars([e.math_chars for e in entries]))  # new characters: cut again
        fonts = {o.path for o in outputs if o.path.startswith(MATH_FONTS)}
        plan = self.pages.plan(site, complete)
        if affected_entries is None or site_frame(before) != site_frame(site):  # every page's header changed
            wanted = set(plan)
        else:
            wanted = affected_pages(before, site, affected_entries) if affected_entries else set()
            wanted |= {entry_url(e) for e in own_pages}
            # the pages of an entry's source files, listed or not (a removed entry's are not in the plan)
            wanted |= {url for e in (*own_pages, *affected_entries) for url, _ in code_pages(e)}
            if any(before_runs(before, e) != e.runs for e in own_pages):
                wanted.add("verification.json")
            wanted &= set(plan)
        todo = (wanted | self.unfinished) & set(plan)
        stop = self.interrupted if first else None  # a save waits for no list, once its own pages are told
        rendered, self.unfinished = self._rendered_until(plan, todo - first, stop)
        outputs += rendered
        with self.write_lock:
            stale = {p for p in self.published if p not in plan and _is_page(p) and not p.startswith(BUNDLE + "/")}
            stale |= {p for p in self.published if p.startswith(MATH_FONTS) and p not in fonts}
            more, self.changed_pages = self._write(outputs)
            output.remove_in_place(self.options.out, stale, self.published)
            if not files_published:
                files, collisions = self._publish_files(sources, set(plan), old_urls)
        written += more
        self.site, self.link_problems = site, link_problems
        diagnostics = self._held_diagnostics(entries, [*link_problems, *collisions])
        return self._report(diagnostics, True, started, len(outputs), written + files)


def listing(entry: Entry, summaries: bool) -> tuple[object, ...]:
    """What pages other than its own show of an entry (``catalog.listed``), with its verdicts as the
    badge says them, not each run's time: if this is unchanged, they need no re-render
    (``verification.json``, which has the runs, and the feed, which has the summaries, are compared
    apart)."""
    return listed(entry, summaries), entry.verification


def before_runs(site: Site, entry: Entry) -> object:
    return next((e.runs for e in site.entries if e.path == entry.path), None)


def affected_pages(before: Site, after: Site, entries: list[Entry]) -> set[str]:
    """Pages that show any of ``entries``: their own, their neighbours', their track's and tags', home."""
    pages = {"index.html", "tags/index.html", "sitemap.xml", "verification.json", "feed.xml"}
    paths = {e.path for e in entries}
    for site in (before, after):
        links = neighbours(site)
        for entry in site.entries:
            if entry.path not in paths:
                continue
            pages.add(entry_url(entry))
            pages.update(t.url for t in site.tracks if t.id == entry.track)
            pages.update(f"tags/{slug}/index.html" for slug in _tag_slugs(site, entry))
            pages.update(entry_url(n) for n in links[entry.path] if n is not None)
    return pages


def _tag_slugs(site: Site, entry: Entry) -> list[str]:
    return [tag.slug for tag in site.tags if any(e.path == entry.path for e in tag.entries)]


def _is_page(path: str) -> bool:
    return path.endswith((".html", ".xml", ".json"))
