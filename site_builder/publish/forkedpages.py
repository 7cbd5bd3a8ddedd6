"""A cold build's pages, rendered by the builder and a forked copy of it at once.

A cold build renders thousands of pages (each entry's, and one per source file) after its entries
are all rendered; the builder rendered them alone, on one core, while the other waited: a second
and more of a 1,000-entry build. Here the builder forks a copy of itself once the pages are planned.
The two take chunks of the plan (an entry's pages together: each loads the whole entry once) from a
pipe filled with their numbers, so that the faster takes more, and each writes its pages straight
into the writer's temporary folder. The copy reports each chunk it finished (every page's digest,
and its figure files') as a line of JSON; the builder then records all of them in the plan's order,
so the site, its manifest and its caches are what one process makes.

What the copy did not report (it failed on a page, was stopped, or said nothing for a minute, as it
would if a lock another thread held when it was forked were ever needed) the builder renders itself
afterwards, in the plan's order: an error is raised where one process raises it. The copy writes to
no stream and ends with the builder. Only for the built-in templates: an archive's own are rendered
in their sandboxed process (``sandboxed.py``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import struct
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..store import write_atomic
from .copying import die_with
from .output import digest, make_folder
from .outputs import Output

if TYPE_CHECKING:
    from .output import SiteWriter
    from .pages import PageRenderer

log = logging.getLogger(__name__)

SPLIT_LEAST = 200  # pages to render: fewer are done before a fork of a large process pays
SILENCE = 60.0  # seconds without a report from the copy before the builder takes its pages back
CLAIMS = 4096  # chunks at most: their numbers fill a pipe before the fork (64 KiB holds 16,384)
PER_CHUNK = 4  # entries a chunk has at least: a fraction of a millisecond to claim, ten to render

Placed = tuple[str, tuple[tuple[str, str], ...]]  # a page's digest, and its figure files' (path, digest)
Plan = dict[str, Callable[[], Output]]


def placed_pages(
    plan: Plan, writer: SiteWriter, renderer: PageRenderer, workers: int, meanwhile: Callable[[], object] = list
) -> dict[str, Placed]:
    """``render_in_two`` where it pays: a first build (a later one renders the few pages that changed)
    of many pages, with the built-in templates, more than one process allowed; else nothing placed.
    ``meanwhile``: the builder's own work, done once, while the copy renders pages if there is one."""
    if not (writer.cold and renderer.process is None and worth_splitting(len(plan), workers)):
        meanwhile()
        return {}
    renderer.compile_templates()  # once, before the fork, not by both processes (the builder did, meanwhile)
    return render_in_two(plan, writer.tmp, renderer.figures_of, meanwhile)


def outputs(path: str, placed: Placed) -> tuple[Output, list[Output]]:
    """A placed page and its figure files, for the writer to record (``Output.written``)."""
    key, figures = placed
    drawn = [Output(name, b"", digest=made, written=True) for name, made in figures]
    return Output(path, b"", digest=key, written=True), drawn


def worth_splitting(pages: int, workers: int) -> bool:
    """Whether to render this many pages in two processes, with ``workers`` processes allowed."""
    return pages >= SPLIT_LEAST and workers > 1 and hasattr(os, "fork")


def render_in_two(
    plan: Plan, folder: Path, figures_of: Callable[[str], list[Output]], meanwhile: Callable[[], object] = list
) -> dict[str, Placed]:
    """Render the pages of ``plan`` here and in a forked copy, each written into ``folder`` with its
    figure files (``figures_of`` gives a rendered page's); what was placed, by path. The caller
    renders the pages missing (all of them if no copy could start). ``meanwhile`` is done here once,
    before this process takes its first pages (while the copy takes its), or at once without a copy."""
    chunks = chunks_of(list(plan))
    try:
        claims = _claims(len(chunks))
    except OSError:
        meanwhile()
        return {}
    placed: dict[str, Placed] = {}
    try:
        copy = _Copy.start(claims, chunks, plan, folder, figures_of)
        if copy is None:
            meanwhile()
            return {}

        def taken(rows: dict[str, Placed]) -> None:
            placed.update(rows)
            copy.read(placed)  # between chunks, what the copy reported meanwhile

        try:
            meanwhile()  # (should it fail, the copy is stopped below, and the failure goes on)
            try:
                _share(claims, chunks, plan, folder, figures_of, taken)
            except Exception as e:  # rendered again below, in order, by the caller: raised where it belongs
                log.debug("pages in two processes: stopped at an error (%s)", e)
                copy.kill()
            copy.wait(placed)
        finally:
            copy.stop()
    finally:
        os.close(claims)
    return placed


def chunks_of(paths: list[str]) -> list[list[str]]:
    """The plan's paths in chunks of whole entries (a page and the code pages after it), at least
    ``PER_CHUNK`` entries each and at most ``CLAIMS`` chunks."""
    groups: list[list[str]] = []
    for path in paths:
        if groups and path.rpartition("/")[2].startswith("code-"):
            groups[-1].append(path)
        else:
            groups.append([path])
    size = max(PER_CHUNK, -(-len(groups) // CLAIMS))
    return [[p for group in groups[n : n + size] for p in group] for n in range(0, len(groups), size)]


def _claims(count: int) -> int:
    """A pipe holding the numbers 0..count-1, its writing end closed: each read of four bytes claims one."""
    reader, writer = os.pipe()
    try:
        os.write(writer, b"".join(struct.pack("<I", n) for n in range(count)))
    except OSError:
        os.close(reader)
        raise
    finally:
        os.close(writer)
    return reader


def _claim(claims: int) -> int | None:
    data = os.read(claims, 4)  # a pipe gives each reader whole numbers: all writes and reads are of four bytes
    return struct.unpack("<I", data)[0] if len(data) == 4 else None


def _share(
    claims: int,
    chunks: list[list[str]],
    plan: Plan,
    folder: Path,
    figures_of: Callable[[str], list[Output]],
    done: Callable[[dict[str, Placed]], object],
) -> None:
    """Claim chunks until none is left; render and write each one's pages, and hand them to ``done``
    (those placed before a page that failed, too)."""
    made: set[str] = set()
    while (number := _claim(claims)) is not None:
        rows: dict[str, Placed] = {}
        try:
            for path in chunks[number]:
                page = plan[path]()
                figures = tuple((f.path, _write(folder, made, f.path, f.data, shared=True)) for f in figures_of(path))
                rows[path] = (_write(folder, made, path, page.data), figures)
        finally:
            done(rows)


def _write(folder: Path, made: set[str], path: str, data: bytes, shared: bool = False) -> str:
    """Write a file below ``folder``; its digest. ``shared``: both processes may write it (a figure two
    entries show, the same bytes), so through a file of this process's, renamed (``write_atomic``)."""
    make_folder(folder, made, path)
    if shared:
        write_atomic(folder / path, data)
    else:
        (folder / path).write_bytes(data)
    return digest(data)


class _Copy:
    """The forked copy, as the builder sees it: its reports, read as they come."""

    def __init__(self, pid: int, reports: int) -> None:
        self.pid, self.reports = pid, reports
        self.pending = b""  # a report's start, its end not read yet
        os.set_blocking(reports, False)

    @classmethod
    def start(
        cls,
        claims: int,
        chunks: list[list[str]],
        plan: Plan,
        folder: Path,
        figures_of: Callable[[str], list[Output]],
    ) -> _Copy | None:
        try:
            reports, report = os.pipe()
        except OSError:
            return None
        builder = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:  # pragma: no cover - the copy, whose pages the builder's tests check
            # Its share of the pages, each chunk reported as a line of JSON; then it ends, with no clean-up
            # of the builder's (the temporary folder, its files). What it did not report says it failed.
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it at once
                die_with(builder)
                logging.disable(logging.CRITICAL)  # no stream: another thread may have held its lock at the fork
                with os.fdopen(report, "wb") as out:

                    def done(rows: dict[str, Placed]) -> None:
                        out.write(json.dumps(rows).encode() + b"\n")
                        out.flush()

                    _share(claims, chunks, plan, folder, figures_of, done)
                code = 0
            finally:
                os._exit(code)
        os.close(report)
        if pid < 0:
            os.close(reports)
            return None
        return cls(pid, reports)

    def read(self, placed: dict[str, Placed]) -> None:
        """Take in the reports that have come (none waited for): the pipe never fills."""
        while self.reports >= 0:
            try:
                data = os.read(self.reports, 1 << 16)
            except BlockingIOError:
                return
            if not data:
                os.close(self.reports)
                self.reports = -1
                return
            *lines, self.pending = (self.pending + data).split(b"\n")
            for line in lines:
                for path, (key, figures) in json.loads(line).items():
                    placed[path] = (key, tuple((name, made) for name, made in figures))

    def wait(self, placed: dict[str, Placed]) -> None:
        """Take in the reports until the copy ends, or has said nothing for ``SILENCE`` seconds."""
        while self.reports >= 0:
            if not select.select([self.reports], [], [], SILENCE)[0]:
                log.warning(
                    "the process rendering half of the pages said nothing for %d s; its pages rendered here", SILENCE
                )
                return
            self.read(placed)

    def kill(self) -> None:
        """End the copy at once (what it did not report is rendered again); its reports stay to be read."""
        if self.pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def stop(self) -> None:
        """``kill``, and reap it."""
        if self.pid > 0:
            self.kill()
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.reports >= 0:
            os.close(self.reports)
            self.reports = -1
