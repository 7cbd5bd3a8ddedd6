"""Rendering entries in worker processes: content, math, and the render cache, entry by entry.

Each worker renders an entry's documents and code, renders its math with a Temml process of its
own, and stores the finished entry in the render cache itself; the builder gets the entries back
in order, as they are done, with the math results the workers rendered for its math cache. So the
builder is free while the workers run (it feeds the search index meanwhile), and no stage waits
for all the entries but those that need all of them.
"""

from __future__ import annotations

import pickle
from collections.abc import Generator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from .content import fill_entry_math, math_snippets, render_entry
from .math import MathRenderer
from .model import Entry, EntrySource
from .store import PickleStore

PARALLEL_THRESHOLD = 16  # below this many entries, worker start-up costs more than it saves


@dataclass(frozen=True, slots=True)
class Job:
    source: EntrySource
    key: str  # the entry's key in the render cache


@dataclass(frozen=True, slots=True)
class Setup:
    math: MathRenderer
    renders: PickleStore


@dataclass(frozen=True, slots=True)
class _Done:
    entry: bytes  # pickled once: for the render cache, and to travel back to the builder
    math: dict[str, Any]  # snippet key -> result, for the snippets this worker rendered


def render_entries(jobs: list[Job], workers: int, setup: Setup) -> Generator[Entry, None, None]:
    """The finished entries of ``jobs``, in order, each as soon as it (and those before it) is done.

    ``setup.math`` is the builder's renderer: the math a worker renders goes into its cache.
    """
    setup.math.store  # noqa: B018 - read the math cache now, so that forked workers share it
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        yield from (_finished(setup, job)[0] for job in jobs)
        return
    chunk = max(1, min(8, len(jobs) // (workers * 8)))  # small: no worker idles long at the end
    # Forked workers inherit the jobs (the entries' files, megabytes): each task is just a number.
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(setup, jobs))
    try:
        done = pool.map(_render_in_worker, range(len(jobs)), chunksize=chunk)
        yield from (_received(result, setup) for result in done)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _received(done: _Done, setup: Setup) -> Entry:
    for key, value in done.math.items():
        setup.math.store.put(key, value)
    entry: Entry = pickle.loads(done.entry)
    return entry


_WORKER: tuple[Setup, list[Job]] | None = None  # in a worker process: what its tasks share, and the jobs


def _start_worker(setup: Setup, jobs: list[Job]) -> None:
    global _WORKER
    setup.math.detach()  # the builder's Temml process, if it has one, is not this worker's
    _WORKER = setup, jobs


def _render_in_worker(index: int) -> _Done:
    assert _WORKER is not None
    setup, jobs = _WORKER
    data = _finished(setup, jobs[index])[1]
    return _Done(data, setup.math.take_fresh())


def _finished(setup: Setup, job: Job) -> tuple[Entry, bytes]:
    """The entry with its math, and pickled, as the render cache keeps it (when it lasts)."""
    entry = render_entry(job.source)
    entry = fill_entry_math(entry, setup.math.render_all(math_snippets(entry)))
    data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    if entry.lasting(setup.math.available):
        setup.renders.put_pickled(job.key, data)
    return entry, data
