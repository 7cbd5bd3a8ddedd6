"""The search index's records: what each entry's is, a key that changes whenever it may, and where
the records of a shard come from when Pagefind must index the shard again.

A card (``Entry.card``) leaves out the entry's searchable text, the largest part of it: a build of
10,000 entries would hold 100 MB of it. An entry is listed by its record's key instead, made from the
render key of its content and its track's title; a shard whose keys are those of a cached shard is
taken from the cache without any record made. A shard to index again takes each record made at once
(from an entry rendered just now), else as it was kept with the shard's last index when its key is
the same, else made from the whole entry (from the render cache): one edited entry makes one record.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..model import Entry, Site
from ..store import PickleStore
from .outputs import entry_url
from .pages import heading


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


@functools.lru_cache(maxsize=4096)  # entries share their tags: 10,000 entries, a few hundred sets of tags
def tag_synonyms(tags: tuple[str, ...]) -> str:
    """The other names of these tags (``TAG_SYNONYMS``), that the tags do not hold already."""
    said = " ".join(tags).lower().replace("-", " ")  # "chinese-remainder-theorem" holds "chinese remainder theorem"
    found = [word for group in TAG_SYNONYMS if any(_holds(said, w) for w in group) for word in group]
    return " ".join(w for w in dict.fromkeys(found) if not _holds(said, w))


def _holds(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word.replace('-', ' '))}(?!\w)", text) is not None


@dataclass(frozen=True, slots=True)
class Listed:
    """An entry as the search index lists it: its record's URL and key, with the record when it was
    made at once (from a whole entry), else the card to make it from, and its track's title."""

    url: str
    key: str
    record: Record | None = None
    card: Entry | None = None
    track_title: str = ""


def listed(entry: Entry, track_title: str, content_key: str | None = None) -> Listed:
    """``entry`` as the index lists it. ``content_key``: the render key of its content (the entry is
    what the render cache keeps under it); without one, the entry must be whole, and its record is
    its own key. A card with its searchable text (as a render worker sends it) makes its record too."""
    record = search_record(entry, track_title) if entry.complete or entry.search_text else None
    if content_key is not None:
        key = record_key(content_key, track_title)
    elif record is not None:
        key = hashlib.sha256(repr(tuple(record_fields(record))).encode("utf-8", "surrogateescape")).hexdigest()
    else:
        raise ValueError(f"{entry.path}: a card has no search record without the render key of its content")
    return Listed(entry_url(entry), key, record, None if record is not None else entry, track_title)


def record_key(content_key: str, track_title: str) -> str:
    """The key of the search record of an entry whose content has this render key."""
    return hashlib.sha256(f"{record_code()}\0{content_key}\0{track_title}".encode()).hexdigest()


def search_listing(site: Site, keys: Mapping[str, str]) -> list[Listed]:
    """The site's entries as the index lists them, in the order of their paths (the order Pagefind
    is fed in: the same records always make the same bundle); ``keys``: render keys, by path."""
    titles = {track.id: track.title for track in site.tracks}
    return [listed(e, titles[e.track], keys.get(e.path)) for e in sorted(site.entries, key=lambda e: e.path)]


@functools.cache
def record_code() -> str:
    """A digest of the code that makes a record from a rendered entry (this module, the heading and
    the URL), so that a record's key changes with it. (How a document becomes plain text is the
    renderer's, in the render key.)"""
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in ("records.py", "pages.py", "outputs.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def record_fields(record: Record) -> list[str]:
    return [record.url, record.title, record.text, record.editorial]


def kept_key(first_url: str) -> str:
    """The cache's name of the records kept with the last index of the shard that starts at this URL."""
    return "search-records-v1-" + hashlib.sha256(first_url.encode("utf-8", "surrogateescape")).hexdigest()


class Records:
    """The records of shards to index: each made at once, or kept with the shard's last index under
    the same key, or made from the whole entry ``whole`` gives for a card (the render cache's; without
    ``whole``, the card itself, which has no searchable text)."""

    def __init__(self, cache: PickleStore | None, whole: Callable[[Entry], Entry] | None = None) -> None:
        self.cache, self.whole = cache, whole

    def at_hand(self, shard: list[Listed], name: str | None = None) -> list[Record] | None:
        """The shard's records if none needs a whole entry (None if one does). ``name``: the shard's
        in the cache, if not its first URL (``kept_key``)."""
        found = self._found(shard, name)
        return None if any(r is None for r in found) else [r for r in found if r is not None]

    def made(self, shard: list[Listed]) -> list[Record]:
        return [r or self._from_whole(item) for item, r in zip(shard, self._found(shard), strict=True)]

    def _found(self, shard: list[Listed], name: str | None = None) -> list[Record | None]:
        """Each record made at once or kept (None where neither)."""
        kept = self._kept(shard, name)
        return [item.record or kept.get((item.url, item.key)) for item in shard]

    def keep(self, shard: list[Listed], records: list[Record], name: str | None = None) -> None:
        """Keep the records of a shard just indexed, by URL and key (plain strings: no class of ours)."""
        if self.cache is not None and shard:
            rows = [[item.url, item.key, *record_fields(r)] for item, r in zip(shard, records, strict=True)]
            self.cache.put(kept_key(name or shard[0].url), rows)

    def _kept(self, shard: list[Listed], name: str | None) -> dict[tuple[str, str], Record]:
        if self.cache is None or not shard or all(item.record is not None for item in shard):
            return {}
        kept = self.cache.get(kept_key(name or shard[0].url))
        if not isinstance(kept, list):
            return {}
        return {(row[0], row[1]): Record(*row[2:]) for row in kept if isinstance(row, list) and len(row) == 6}

    def _from_whole(self, item: Listed) -> Record:
        assert item.card is not None
        entry = self.whole(item.card) if self.whole is not None else item.card
        return search_record(entry, item.track_title)
