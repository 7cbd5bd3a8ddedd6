"""The dev server: file watching, the rebuild loop, and the HTTP side of ``web.py`` (live reload, the overlay).

The watchdog handler only records paths and raises a flag. The rebuild loop waits until events
settle, classifies them (``changes.classify``), rebuilds what they need, and bumps an epoch;
pages listen for the epoch through Server-Sent Events. The reload script and the overlay are
added to HTML responses here, never written into the site. Requests wait while a rebuild runs.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import warnings
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from ..build import BuildReport
from ..errors import SiteError
from ..model import EntrySource
from ..publish.lock import build_lock
from ..source.config import BuildOptions
from ..source.languages import suffix
from ..source.shared import entries_reading
from ..source.walk import in_builder_folder, in_skipped, is_ignored, is_problem_dir
from .changes import Change, ChangeKind, classify, ignored_path
from .updates import LiveBuilder
from .web import PreviewServer, ReloadHub, handler_for

# watchdog's inotify observer, when a folder and a folder inside it are made at once (mkdir -p), can
# watch the inner one twice; it warns and keeps one watch, and no event is lost (test_serve makes
# overrides/templates so). The warning would only alarm an author in the middle of a session.
warnings.filterwarnings("ignore", r"Callback with id .* already exists for watch", RuntimeWarning)

log = logging.getLogger(__name__)
SETTLE = 0.02  # seconds without new events before a rebuild starts
MAX_SETTLE = 1.0  # a continuous stream of events still rebuilds this often
SEARCH_DELAY = 1.0  # seconds after the last rebuild before the search index is refreshed


# The events that can change what a page shows. Not opens and reads: the builder reads every file of
# the archive, and with the kernel watching those too, an archive of 20,000 folders overflowed the
# inotify queue again and again (each overflow re-adds every watch) and no save ever reached a page.
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileClosedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


class ChangeCollector(FileSystemEventHandler):
    """Records changed paths per watched area and raises a flag; does no work itself. Paths in
    ``excluded`` (the output and cache folders), or in the archive's folders that the builder wrote
    (see ``in_builder_folder``), are no changes: a site built inside its archive is not content."""

    def __init__(self, areas: dict[str, Path], excluded: tuple[Path, ...] = ()) -> None:
        self.areas = {name: path.resolve() for name, path in areas.items()}
        self.excluded = tuple(path.resolve() for path in excluded)
        self.lock = threading.Lock()
        self.pending: set[tuple[str, str]] = set()
        self.flag = threading.Event()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write") or (event.is_directory and event.event_type == "modified"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        found = [item for p in paths if p for item in [self.locate(str(p))] if item is not None]
        if any(not ignored_path(relative) for _, relative in found):  # an editor's swap file is no save
            with self.lock:
                self.pending.update(found)
            self.flag.set()

    def locate(self, path: str) -> tuple[str, str] | None:
        absolute = Path(path).resolve()
        if any(absolute.is_relative_to(folder) for folder in self.excluded):
            return None
        for name, root in self.areas.items():
            if absolute == root or absolute.is_relative_to(root):
                relative = absolute.relative_to(root).as_posix()
                if name == "archive" and in_builder_folder(root, relative):
                    return None
                return name, relative
        return None

    def take(self) -> set[tuple[str, str]]:
        with self.lock:
            taken, self.pending = self.pending, set()
        return taken


def new_problem_folders(
    archive: Path, known: frozenset[str], pending: set[tuple[str, str]], skip: Container[str] = frozenset()
) -> set[str]:
    """The problem folders on disk now, unknown to the last build, that hold a changed path: a new
    entry is then updated like an edited one, not by a full build. (As when the archive is read, the
    outermost problem folder counts, at the archive's top too; none below a folder of ``skip``.)"""
    found: set[str] = set()
    if "" in known:  # the archive is one problem folder (a package's repository): every file is one of its own
        return found
    for area, relative in pending:
        parts = relative.split("/")
        if area != "archive" or any(is_ignored(p) for p in parts):
            continue
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder in known or folder in found or not (archive / folder).is_dir():
                break
            if is_problem_dir(archive / folder, skip):
                found.add(folder)
                break
    return found


def plan_rebuild(
    changes: list[Change], sources: Mapping[str, EntrySource] | None = None
) -> tuple[bool, set[str], bool, set[str]]:
    """(full rebuild, entry folders to update, re-render templates, static files to copy). ``sources``:
    the entries last built; one that ``\\input``s a changed file of another problem folder is updated too."""
    kinds = {c.kind for c in changes}
    full = bool(kinds & {ChangeKind.CONFIG, ChangeKind.UNKNOWN})
    folders = {c.entry for c in changes if c.kind in (ChangeKind.ENTRY, ChangeKind.SAMPLE) and c.entry is not None}
    if folders and not full:
        inside = [c.path for c in changes if c.kind in (ChangeKind.ENTRY, ChangeKind.SAMPLE)]
        folders |= entries_reading(inside, sources or {})
    static = {c.path for c in changes if c.kind is ChangeKind.STATIC}
    return full, folders, ChangeKind.TEMPLATE in kinds, static


@dataclass
class DevServer:
    options: BuildOptions
    host: str = "127.0.0.1"
    port: int = 8000
    report: Callable[[BuildReport], None] | None = None

    def __post_init__(self) -> None:
        self.hub = ReloadHub()
        self.builder = LiveBuilder(self.options)
        # A save's own pages are announced as soon as they are written, with the errors as they were.
        self.builder.early = lambda pages: self.hub.publish(list(self.hub.errors), pages)
        self.builder.interrupted = lambda: self.collector.flag.is_set()  # another save came: it waits for no list
        self.changed: set[str] | None = None  # the pages the last rebuild wrote (None: any page may have changed)
        self.collector = ChangeCollector(
            {"archive": self.options.archive, "templates": self.options.templates, "static": self.options.static},
            excluded=(self.options.out, self.options.cache),
        )
        self.observer = Observer()
        self.stopping = threading.Event()
        self.httpd: PreviewServer | None = None
        self.loop: threading.Thread | None = None
        self.searcher: threading.Thread | None = None
        self.warmer: threading.Thread | None = None
        self.search_due = threading.Event()
        self.last: BuildReport | None = None
        self.serving = False

    def start(self) -> str:
        """Build once, start watching and serving; returns the URL."""
        with self.hub.rebuilding(), build_lock(self.options, waiting=log.warning, told=log.warning):
            self._finish(self.builder.build_all(reuse_published=True))
        gc.freeze()  # the loaded site lives on: later collections need not walk it (see ``store.lasting``)
        for area in self.collector.areas.values():
            if area.is_dir():
                self.observer.schedule(self.collector, str(area), recursive=True, event_filter=WATCHED_EVENTS)
        self.observer.start()
        self.loop = threading.Thread(target=self._rebuild_loop, name="rebuild-loop", daemon=True)
        self.loop.start()
        self.searcher = threading.Thread(target=self._search_loop, name="search-index", daemon=True)
        self.searcher.start()
        self.warmer = threading.Thread(target=self._warm_up, name="warm-up", daemon=True)
        self.warmer.start()
        self.httpd = PreviewServer((self.host, self.port), handler_for(self.hub, self.options.out))
        return f"http://{self.host}:{self.httpd.server_address[1]}/"

    def serve_forever(self) -> None:
        assert self.httpd is not None
        self.serving = True
        self.httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        self.stopping.set()
        self.collector.flag.set()
        self.search_due.set()
        self.hub.close()
        if self.httpd is not None:
            if self.serving:
                self.httpd.shutdown()  # waits for serve_forever to return: only when it runs
            self.httpd.server_close()
        self.observer.stop()
        self.observer.join(timeout=5)
        for thread in (self.loop, self.searcher, self.warmer):
            if thread is not None:
                thread.join(timeout=10)
        try:
            self.builder.record_published()
        finally:
            self.builder.close()

    def _rebuild_loop(self) -> None:
        while not self.stopping.is_set():
            self.collector.flag.wait()
            if self.stopping.is_set():
                return
            self._settle()
            pending = self.collector.take()
            skip, archive = self.builder.skip, self.options.archive  # no change below an excluded folder counts
            pending = {(a, r) for a, r in pending if a != "archive" or not in_skipped(archive / r, skip)}
            known = frozenset(self.builder.sources)
            folders = known | new_problem_folders(archive, known, pending, skip)
            overrides = self.builder.theme.overrides
            within = overrides.relative_to(self.options.archive).as_posix() if overrides else ""
            changes = [
                c
                for area, rel in sorted(pending)
                if (c := classify(area, rel, folders, within)).kind is not ChangeKind.IGNORED
            ]
            if not changes and not self.builder.unfinished:  # pages a stopped update left: render them now
                continue
            self.builder.abandon_refresh()  # the index it makes is of the pages about to change
            with self.hub.rebuilding():  # until the pages are told (a test waits for that)
                with build_lock(self.options, waiting=log.warning, told=log.warning):
                    report = self.rebuild(changes)
                gc.freeze()  # the site as updated lives until the next save
                if report is not None:
                    self._finish(report, self.changed)
            if report is not None and report.published:
                self.search_due.set()

    def _warm_up(self) -> None:
        """Render one entry in memory, and drop it: the start kept every page, so nothing has set up
        the renderers and lexers yet, and the first save would (~0.8 s, then ~20 ms a save)."""
        from ..render.content import render_entry

        sources = list(self.builder.sources.values())
        if sources and not self.stopping.is_set():
            render_entry(max(sources, key=lambda s: len({suffix(f.name) for f in s.files})))

    def _search_loop(self) -> None:
        """The search index follows the pages in its own thread, a second after the last rebuild,
        so a save is never kept waiting behind Pagefind."""
        while not self.stopping.is_set():
            self.search_due.wait()
            while self.search_due.is_set() and not self.stopping.is_set():
                self.search_due.clear()
                self.stopping.wait(SEARCH_DELAY)
            if self.stopping.is_set():
                return
            try:
                if not self.builder.refresh_search():
                    self.search_due.set()  # abandoned for a rebuild: again once the saves pause
            except Exception:  # the server must survive anything; search is not worth a crash
                log.exception("search index refresh failed")

    def _settle(self) -> None:
        """Wait until no event arrived for SETTLE seconds (editors save in bursts)."""
        started = time.perf_counter()
        while True:
            self.collector.flag.clear()
            if not self.collector.flag.wait(SETTLE) or time.perf_counter() - started > MAX_SETTLE:
                return

    def rebuild(self, changes: list[Change]) -> BuildReport | None:
        full, folders, templates, static = plan_rebuild(changes, self.builder.sources)
        self.changed = None
        try:
            if full or not (self.options.out / "index.html").is_file():  # the site is gone: all of it again
                return self.builder.build_all()
            report = None
            if folders or self.builder.unfinished:
                report = self.builder.update_entries(folders)
                self.changed = None if templates or static else self.builder.changed_pages
            if templates and (report is None or report.published):
                report = self.builder.rerender_all()
            for path in sorted(static):
                self.builder.copy_static(path)
            return report if report is not None else self._static_report()
        except SiteError as e:
            return BuildReport((e.diagnostic(),), 0, 0, 0, False, 0.0, self.options.out)
        except OSError as e:  # a full disk, a folder that cannot be written
            where = self.options.display(Path(e.filename)) if e.filename else self.options.display(self.options.out)
            problem = SiteError(where, None, f"cannot write: {e.strerror or e}")
            return BuildReport((problem.diagnostic(),), 0, 0, 0, False, 0.0, self.options.out)
        except Exception as e:  # the server must survive anything a content edit can cause
            log.exception("rebuild failed")
            return BuildReport(
                (SiteError("site-builder", None, f"internal error: {e!r}").diagnostic(),),
                0,
                0,
                0,
                False,
                0.0,
                self.options.out,
            )

    def _static_report(self) -> BuildReport:
        assert self.last is not None
        return self.last

    def _finish(self, report: BuildReport, pages: set[str] | None = None) -> None:
        self.last = report
        self.hub.publish([str(d) for d in report.diagnostics if d.level == "error"], pages)
        if self.report is not None:
            self.report(report)
