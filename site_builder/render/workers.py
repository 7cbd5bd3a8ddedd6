"""Rendering entries in worker processes: content, math, and the render cache, entry by entry.

Each worker renders an entry's documents and code, renders its math with a Temml process of its
own, and stores the finished entry in the render cache itself; the builder gets the entries back
in order, as they are done, with the math results the workers rendered for its math cache. So the
builder is free while the workers run (it feeds the search index meanwhile), and no stage waits
for all the entries but those that need all of them.

A worker's first entry costs it most of a second more than the others: importing the renderers,
building the lexers' tables, starting Node and Temml. ``EarlyStart`` starts the workers while the
builder reads the archive, on one core, when many entries will need rendering: the other core
pays that cost meanwhile. This module imports no renderer itself, so that the workers do it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..model import CodeFile, Entry, EntrySource
from ..source.languages import language_for
from ..source.walk import find_problem_folders
from ..store import PickleStore, bucket_keys, renderer_fingerprint
from .math import MathRenderer
from .pictures import PictureRenderer

if TYPE_CHECKING:
    from ..source.config import BuildOptions
    from ..source.stamp import Stamp

PARALLEL_THRESHOLD = 16  # below this many entries, worker start-up costs more than it saves
# The files every entry shows, whose lexers a worker prepares before its first entry.
USUAL_FILES = ("solution.cpp", "solution.py", "statement.md", "solution.tex", "problem.yaml")


@dataclass(frozen=True, slots=True)
class Job:
    source: EntrySource
    key: str  # the entry's key in the render cache
    code: tuple[CodeFile, ...] = ()  # its code files as last highlighted (see ``render_entry``'s ``known``)
    # Whether the builder keeps the entry as its card (``Entry.card``) once the render cache has it:
    # then a worker sends it the card with its searchable text, a tenth of the whole (see ``_sent``).
    card: bool = False


@dataclass(frozen=True, slots=True)
class Setup:
    math: MathRenderer
    renders: PickleStore
    pictures: PictureRenderer


@dataclass(frozen=True, slots=True)
class _Done:
    entry: bytes  # pickled once: for the render cache, and to travel back to the builder
    math: dict[str, Any]  # snippet key -> result, for the snippets this worker rendered


def cards_key() -> str:
    """The render cache's name of the bundle of the last full build's cards (see ``Entry.card``),
    kept in buckets (``PickleStore.put_buckets``): one bundle per renderer, so that with a new
    renderer there is none, and every entry is rendered again."""
    return f"cards-{renderer_fingerprint()[:16]}"


class RenderPool:
    """Worker processes that render jobs, started (and preparing, see ``_start_worker``) at once."""

    def __init__(self, workers: int, setup: Setup) -> None:
        from concurrent.futures import ProcessPoolExecutor  # (its import costs a build that renders nothing)

        self.workers = workers
        self.executor = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(setup,))
        self.executor.submit(int)  # forked now, all of them (not at the first job)

    def render(self, jobs: list[Job], setup: Setup) -> Iterator[Entry]:
        """The finished entries of ``jobs``, in order; the math they rendered goes into the cache of
        ``setup`` (the builder's)."""
        chunk = max(1, min(8, len(jobs) // (self.workers * 8)))  # small: no worker idles long at the end
        for done in self.executor.map(_render_in_worker, jobs, chunksize=chunk):
            yield _received(done, setup)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class EarlyStart:
    """``kept_build``'s hook before it reads the archive: starts a ``RenderPool`` when the render
    cache has no cards of this renderer (a first build, an emptied cache, a new renderer or new
    libraries) and the archive has enough entries for workers to pay. The build takes ``pool``;
    closing this closes it."""

    def __init__(self, options: BuildOptions) -> None:
        self.options = options
        self.pool: RenderPool | None = None

    def __call__(self, stamp: Stamp) -> None:
        options = self.options
        renders = PickleStore(options.cache / "render")
        if options.workers <= 1 or renders.has(bucket_keys(cards_key())[0]):
            return
        found = find_problem_folders(options.archive, stamp.listing, skip=stamp.skip)
        if len(found) < PARALLEL_THRESHOLD:
            return
        math, pictures = (
            MathRenderer(options.root, options.cache),
            PictureRenderer(options.root, options.cache, options.archive),
        )
        self.pool = RenderPool(options.workers, Setup(math, renders, pictures))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


T = TypeVar("T")


def soon(executor: Executor | None, job: Callable[..., T], *args: Any) -> Callable[[], T]:
    """``job(*args)``, when called: worked out meanwhile by ``executor`` (a render worker: they are idle
    once the entries are rendered) when there is one that works, else here, now."""
    if executor is not None:
        with contextlib.suppress(BrokenExecutor, RuntimeError):  # (a worker ended, or the pool did)
            running = executor.submit(job, *args)

            def done_there() -> T:
                try:
                    return running.result()
                except BrokenExecutor:
                    return job(*args)

            return done_there
    done = job(*args)
    return lambda: done


def render_entries(
    jobs: list[Job], workers: int, setup: Setup, pool: RenderPool | None = None
) -> Generator[Entry, None, None]:
    """The finished entries of ``jobs``, in order, each as soon as it (and those before it) is done:
    by ``pool`` if there is one, else by workers started now, or here when they would not pay.

    ``setup`` is the builder's: the math a worker renders goes into its cache.
    """
    if pool is not None:
        yield from pool.render(jobs, setup)
        return
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        yield from (_finished(setup, job)[0] for job in jobs)
        return
    own = RenderPool(workers, setup)
    try:
        yield from own.render(jobs, setup)
    finally:
        own.close()


def _received(done: _Done, setup: Setup) -> Entry:
    for key, value in done.math.items():
        setup.math.store.put(key, value)
    entry: Entry = pickle.loads(done.entry)
    return entry


_SETUP: Setup | None = None  # in a worker process: what its jobs share


def _start_worker(setup: Setup) -> None:
    """A worker's start: prepare what its first entry would otherwise pay for."""
    global _SETUP
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the builder's: it stops the workers
    _die_with_builder()
    setup.math.detach()  # the builder's Temml process, if it has one, is not this worker's
    _SETUP = setup
    prepare_lexers()
    setup.math.warm_up()


def prepare_lexers() -> None:
    """Make the lexers of the files entries usually have (and their tables) before a file waits."""
    from .highlight import prepare

    prepare({language for name in USUAL_FILES if (language := language_for(name))})


def _die_with_builder() -> None:
    """End this worker soon after the builder ends, however it ends (a SIGKILL runs no clean-up):
    a worker left behind would also keep open every pipe it inherited, Pagefind's among them."""
    builder = os.getppid()

    def watch() -> None:
        while os.getppid() == builder:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="builder-watch", daemon=True).start()


def _render_in_worker(job: Job) -> _Done:
    assert _SETUP is not None
    entry, data = _finished(_SETUP, job)
    return _Done(_sent(entry, data, job.card and entry.lasting(_SETUP.math.available)), _SETUP.math.take_fresh())


def _sent(entry: Entry, data: bytes, cached: bool) -> bytes:
    """What travels back to the builder (pickled): the whole entry, or, when the render cache keeps it
    (``cached``) and the builder would keep only its card, the card with its searchable text (which the
    search index reads when the entry comes; ``records.listed``): a whole entry is a fifth of a megabyte
    of pickle, most of it highlighted code, which the builder unpickled only to drop (a tenth of a
    second of its CPU a thousand entries)."""
    if not cached or not entry.search_text:
        return data
    return pickle.dumps(replace(entry.card(), search_text=entry.search_text), protocol=pickle.HIGHEST_PROTOCOL)


def _finished(setup: Setup, job: Job) -> tuple[Entry, bytes]:
    """The entry with its math, and pickled, as the render cache keeps it (when it lasts)."""
    from .bitmaps import fill_entry_bitmaps
    from .content import entry_pictures, fill_entry_math, fill_entry_pictures, math_snippets, render_entry

    entry = render_entry(job.source, job.code)
    entry = fill_entry_math(entry, setup.math.render_all(math_snippets(entry)))
    if pictures := entry_pictures(entry):
        digests = {f.name: f.digest for f in job.source.files}
        drawn = setup.pictures.draw_all(pictures, setup.pictures.archive / job.source.path, digests)
        entry = fill_entry_pictures(entry, drawn)
    entry = fill_entry_bitmaps(entry, job.source, setup.pictures.bitmaps, setup.pictures.archive / job.source.path)
    data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    if entry.lasting(setup.math.available):
        setup.renders.put_pickled(job.key, data)
    return entry, data
