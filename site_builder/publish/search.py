"""Full-text search: a Pagefind index of the entries, built in memory and published as outputs.

Pagefind splits its index into small fragments that the browser fetches per query, so a query
stays small for a 10,000-entry archive; its binary ships on PyPI (``pagefind-bin``). Each entry
is one record of plain text (heading, tags, source, summary, statement and write-up, math as its
TeX source), sent to the Pagefind binary's service over a pipe. The bundle is cached by a
digest of the records, so a rebuild that changed no searchable text does not run Pagefind.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..model import Entry, Site
from ..source.config import SiteConfig
from ..store import PickleStore
from .catalog import RESERVED_TRACKS, track_title
from .pages import Output, entry_url, heading

log = logging.getLogger(__name__)
BUNDLE = "pagefind"
# The Pagefind releases whose service protocol this module was tested with (``tests/test_versions.py``;
# the pin in pyproject.toml): it speaks Pagefind's internal service messages, not a public API.
TESTED_PAGEFIND = ("1.5",)


@dataclass(frozen=True, slots=True)
class Record:
    url: str  # relative to the site root, e.g. "icpc/2022/X-quartets/index.html"
    title: str
    text: str  # what a reader may see before solving: tags, source, authors, summary, statement
    editorial: str = ""  # the write-up: searched, but a result says when only it matched


# Names readers search for that a tag spells out, or the other way round: each group of words is
# indexed whole wherever a tag holds one of them ("kmp" finds a "Knuth-Morris-Pratt" tag).
TAG_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("kmp", "knuth-morris-pratt", "prefix function"),
    ("crt", "chinese remainder theorem"),
    ("fft", "fast fourier transform", "ntt"),
    ("dp", "dynamic programming"),
    ("bfs", "breadth-first search"),
    ("dfs", "depth-first search"),
    ("lca", "lowest common ancestor"),
    ("mst", "minimum spanning tree"),
    ("scc", "strongly connected components"),
    ("gcd", "greatest common divisor"),
    ("2-sat", "2sat", "two satisfiability"),
    ("dsu", "union-find", "union find", "disjoint set union"),
    ("bit", "fenwick tree", "binary indexed tree"),
    ("segment tree", "segtree"),
    ("suffix array", "sa"),
    ("geometry", "computational geometry"),
    ("max flow", "maxflow", "network flow", "flow"),
)


@dataclass(frozen=True, slots=True)
class SearchIndex:
    outputs: tuple[Output, ...]
    problem: str | None = None  # why there is no index, when there is none
    key: str = ""  # its key in the cache, when it has one


def pagefind_available() -> bool:
    return importlib.util.find_spec("pagefind_bin") is not None


def search_records(site: Site) -> list[Record]:
    """The site's records, in the order of their entries' paths (the order Pagefind is fed in:
    the same records always make the same bundle)."""
    titles = {track.id: track.title for track in site.tracks}
    return [search_record(e, titles[e.track]) for e in sorted(site.entries, key=lambda e: e.path)]


def search_record(entry: Entry, track_title: str) -> Record:
    """The entry's heading (track, year, label and title), then its searchable text: the words
    the page shows, each once (a summary taken from the write-up is in the write-up's text), with
    the names its tags go by; the write-up apart (``Entry.search_text`` has it after a form feed)."""
    summary = entry.summary_text if entry.summary_html else None
    statement, _, editorial = entry.search_text.partition("\f")
    people = sorted({name for _, names in entry.credits for name in names})
    parts = [" ".join(entry.tags), tag_synonyms(entry.tags), entry.source or "", ", ".join(people), summary or ""]
    parts.append(statement)
    return Record(entry_url(entry), heading(track_title, entry), "\n".join(p for p in parts if p), editorial.strip())


def tag_synonyms(tags: tuple[str, ...]) -> str:
    """The other names of these tags (``TAG_SYNONYMS``), that the tags do not hold already."""
    said = " ".join(tags).lower().replace("-", " ")  # "chinese-remainder-theorem" holds "chinese remainder theorem"
    found = [word for group in TAG_SYNONYMS if any(_holds(said, w) for w in group) for word in group]
    return " ".join(w for w in dict.fromkeys(found) if not _holds(said, w))


def _holds(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word.replace('-', ' '))}(?!\w)", text) is not None


class SearchFeed:
    """A build's search index, built while its entries are rendered.

    Entries are added as they come; their records go to Pagefind in the order of their paths, as
    soon as those before them have come (after ``start``: a build that renders few entries most
    likely keeps its cached index, and does not start Pagefind for nothing). ``finish`` looks the
    records up in the cache, and else lets Pagefind finish the index in the background.
    """

    def __init__(self, config: SiteConfig, cache: PickleStore | None, paths: Iterable[str]) -> None:
        self.config, self.cache = config, cache
        self.order = sorted(paths)
        self.records: dict[str, Record | None] = {}  # by path; None: the entry is in no track of the site
        self.sent = 0  # how many of ``order`` went to Pagefind
        self.session: PagefindSession | None = None

    def start(self) -> None:
        if self.session is None and pagefind_available():
            try:
                self.session = PagefindSession()
            except (OSError, RuntimeError):
                log.debug("pagefind did not start", exc_info=True)  # finish() runs it again, and says why
            self._send()

    def add(self, entry: Entry) -> None:
        reserved = entry.track in RESERVED_TRACKS
        self.records[entry.path] = None if reserved else search_record(entry, track_title(self.config, entry.track))
        self._send()

    def finish(self) -> Future[SearchIndex]:
        """The index of every record added, built in the background."""
        records = [r for p in self.order if (r := self.records.get(p)) is not None]
        session, self.session = self.session, None
        if session is not None and self.sent < len(self.order):  # an entry never came: start again
            session.close()
            session = None
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")
        future = pool.submit(build_search_index, records, self.cache, session)
        pool.shutdown(wait=False)  # the thread ends when the index is built
        return future

    def abandon(self) -> None:
        """Stop Pagefind: the build will not finish this index."""
        if self.session is not None:
            self.session.close()
            self.session = None

    def _send(self) -> None:
        while self.session is not None and self.sent < len(self.order) and self.order[self.sent] in self.records:
            record = self.records[self.order[self.sent]]
            try:
                if record is not None:
                    self.session.add(record)
            except RuntimeError:
                log.debug("pagefind stopped", exc_info=True)  # finish() runs it again, and says why
                self.session.close()
                self.session = None
            self.sent += 1


def build_search_index(
    records: list[Record],
    cache: PickleStore | None = None,
    session: PagefindSession | None = None,
    background: Callable[[PagefindSession], None] | None = None,
) -> SearchIndex:
    """The Pagefind bundle for these records (cached by their content). ``session``: Pagefind,
    already given just these records in this order.

    ``background``: run Pagefind so that it yields the CPU to whatever else runs (the dev server's
    refresh, behind the author's next save), and hand its session to this, so that it can be
    abandoned (``PagefindSession.abandon``) from another thread."""
    try:
        return _search_index(records, cache, session, background)
    finally:
        if session is not None:
            session.close()


def _search_index(
    records: list[Record],
    cache: PickleStore | None,
    session: PagefindSession | None,
    background: Callable[[PagefindSession], None] | None = None,
) -> SearchIndex:
    if not records:
        return SearchIndex(())
    if not pagefind_available():
        return SearchIndex((), "Pagefind is not installed (pip install pagefind-bin): the site has no search")
    payload = json.dumps([[r.url, r.title, r.text, r.editorial] for r in records], sort_keys=True).encode()
    key = "search-v5-" + hashlib.sha256(payload).hexdigest()
    cached = cache.get(key) if cache is not None else None
    if isinstance(cached, list):  # plain (path, bytes) pairs: no class of ours in the cache
        return SearchIndex(tuple(Output(f"{BUNDLE}/{path}", data) for path, data in cached), key=key)
    try:
        files = session.files() if session is not None else _index(records, background)
    except Exception as e:
        log.debug("pagefind failed", exc_info=True)
        return SearchIndex((), f"Pagefind failed, the site has no search: {e}")
    if cache is not None:
        cache.put(key, files)
    return SearchIndex(tuple(Output(f"{BUNDLE}/{path}", data) for path, data in files), key=key)


def _index(
    records: list[Record], background: Callable[[PagefindSession], None] | None = None
) -> list[tuple[str, bytes]]:
    """The Pagefind bundle's files for these records, in this order."""
    session = PagefindSession(background is not None)
    if background is not None:
        background(session)
    try:
        for record in records:
            session.add(record)
        return session.files()
    finally:
        session.close()


class PagefindSession:
    """One index built by the Pagefind binary in its service mode: records go in over a pipe as they
    come, the bundle's files come back over it. No file is written.

    (Pagefind's own Python API waits 0.1 s for every response it reads: 100 s for 1,000 entries.
    The service speaks base64-encoded JSON messages, each followed by a comma, on stdin and stdout.)
    """

    def __init__(self, background: bool = False) -> None:
        """``background``: at the lowest CPU priority (with ``nice``, where there is one), so that it
        takes only what no other process wants."""
        from pagefind_bin import get_executable  # type: ignore[import-untyped]

        nice = shutil.which("nice") if background else None
        self.process = subprocess.Popen(
            [*([nice, "-n", "19"] if nice else []), str(get_executable()), "--service"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: dict[int, dict[str, Any]] = {}
        self.arrived = threading.Condition()
        self.sent = 0
        self.reader = threading.Thread(target=self._read, name="pagefind-replies", daemon=True)
        self.reader.start()
        config = {"keep_index_url": True, "force_language": "en"}
        self.index = int(self._wait(self._send({"type": "NewIndex", "config": config}))["index_id"])

    def add(self, record: Record) -> None:
        self._send(
            {
                "type": "AddRecord",
                "index_id": self.index,
                "url": "/" + record.url,
                "content": _content(record) + _editorial(record),
                "language": "en",
                # where the write-up starts in the content: a result matched only there says so
                "meta": {"title": record.title, "editorial": str(len(_content(record)) + 1)},
            }
        )

    def files(self) -> list[tuple[str, bytes]]:
        """The bundle, once every record sent is indexed; raises RuntimeError if one was refused."""
        added = range(1, self.sent)
        with self.arrived:  # every record indexed (answered) before the bundle is asked for
            self.arrived.wait_for(lambda: all(n in self.replies for n in added) or not self.reader.is_alive(), 600)
        if not all(n in self.replies for n in added):
            raise RuntimeError("the Pagefind service stopped before it indexed every record")
        problems = [self.replies[n]["message"] for n in added if self.replies[n].get("type") == "Error"]
        if problems:
            raise RuntimeError(f"Pagefind refused {len(problems)} record(s): {problems[0]}")
        reply = self._wait(self._send({"type": "GetFiles", "index_id": self.index}))
        return sorted((f["path"], base64.b64decode(f["content"])) for f in reply["files"])

    def abandon(self) -> None:
        """Stop Pagefind now (from any thread): whoever feeds or waits on it gets a RuntimeError."""
        if self.process.poll() is None:
            self.process.kill()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.reader.join(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def _send(self, payload: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        number, self.sent = self.sent, self.sent + 1
        message = json.dumps({"message_id": number, "payload": payload}).encode()
        try:
            self.process.stdin.write(base64.b64encode(message) + b",")
            self.process.stdin.flush()
        except OSError as e:
            raise RuntimeError(f"the Pagefind service stopped ({e})") from e
        return number

    def _wait(self, number: int) -> dict[str, Any]:
        with self.arrived:
            self.arrived.wait_for(lambda: number in self.replies or not self.reader.is_alive(), timeout=600)
        reply = self.replies.get(number)
        if reply is None:
            raise RuntimeError("the Pagefind service stopped without an answer")
        if reply.get("type") == "Error":
            raise RuntimeError(str(reply.get("message")))
        return reply

    def _read(self) -> None:
        assert self.process.stdout is not None
        pending: list[bytes] = []  # the start of a message (the bundle's is megabytes long)
        stdout = self.process.stdout.fileno()
        try:
            while chunk := os.read(stdout, 1 << 20):
                if b"," not in chunk:
                    pending.append(chunk)
                    continue
                *messages, rest = (b"".join(pending) + chunk).split(b",")
                pending = [rest]
                replies = [json.loads(base64.b64decode(m)) for m in messages if m]
                with self.arrived:
                    self.replies.update((r["message_id"], r["payload"]) for r in replies)
                    self.arrived.notify_all()
        finally:
            with self.arrived:
                self.arrived.notify_all()  # the service ended: wake whoever waits


def _editorial(record: Record) -> str:
    """The write-up, after the rest of the record's content (see ``_content``)."""
    return " " + _content(Record(record.url, "", record.editorial)) if record.editorial else ""


def _content(record: Record) -> str:
    """The record as Pagefind would read it from a page: its heading, then one sentence per part.
    (The heading's middle dot becomes a colon: an excerpt may start at any word, and one starting
    "· B. River Ferry" reads as if something were cut off.)"""
    parts = [record.title.replace(" \u00b7 ", ": "), *(p.strip() for p in record.text.split("\n"))]
    return " ".join(p if p.endswith((".", "!", "?", ":")) else p + "." for p in parts if p)
