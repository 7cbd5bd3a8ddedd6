"""The record a published build leaves for the next one to start from (``quick.py``).

For every folder of the archive's stamp, its part of the stamp (``stamp.Stamp.folders``); for every
entry, where its page and search record are and digests of what other pages show of it; the site
around the pages (``frame``). With it, a build that finds the archive changed in a few problem
folders can tell which entries those are, and whether any page but theirs could change, without
reading any other folder. Written by every build that publishes (full or quick), in the cache: its
entries and folders in buckets (``PickleStore.put_buckets``), so that a quick build rewrites the few
buckets its entries and folders are in, not a record of the whole archive (14 MB of pickle at 10,000
entries, 0.3 s to write), then the rest of it (the head).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from ..model import Entry, EntrySource, Site
from ..store import PickleStore
from .catalog import neighbours
from .feeds import feed_entries
from .outputs import entry_url

STORE = "resume"  # the cache's folder of it
RECORD = "resume-v4"  # the head: the record but its entries and folders, and the order of its entries
ENTRIES = "resume-entries-v1"  # its entries' buckets, tagged with the head's token
FOLDERS = "resume-folders-v1"  # its folders' buckets, likewise


class Noted(NamedTuple):
    """One entry as the last build left it (a tuple: 10,000 of them pickle three times faster than as
    dataclasses)."""

    url: str  # its page, from the site's root
    slug: str
    content_key: str  # the render key of its content (``Builder._render_key``)
    listing: str  # a digest of what other pages show of it, and its verdicts (``listing``)
    runs: str  # a digest of its runs (``verification.json`` shows each)
    summary: str | None  # its first paragraph (the feed shows it)
    chars: str  # the characters its math draws (the font is cut to every entry's)
    track: str
    track_title: str
    around: tuple[str | None, str | None]  # the paths of its neighbours, whose cards its page shows
    source_key: str  # ``freshness.source_key``
    clean: bool  # no problem of its own to report


@dataclass(frozen=True, slots=True)
class Resume:
    settings: str  # ``freshness.settings_key``: the program, configuration, theme and options
    git: str  # a digest of the archive's git dates
    out: str
    folders: dict[str, str]  # each folder's part of the stamp, "" for one with a file too new to vouch for
    entries: dict[str, Noted]  # by path, in the order a full build loads them
    outside: frozenset[str]  # the folders (from the archive's top) of files documents input from outside their own
    problems: str  # the archive's own problems, as ``inputs_key`` takes them
    frame: Site  # the site with no entries in it: what an entry's page shows around the entry
    feed: frozenset[str]  # the entries the feed lists (``feeds.feed_entries``): the only list showing a first paragraph
    # the entries quick builds changed since the full build, whose search records are in the fresh
    # index (``search.FRESH``), sorted
    fresh: tuple[str, ...] = ()
    token: str = ""  # the tag of its buckets: the full build's that made it


def git_digest(git_dates: dict[str, int]) -> str:
    return hashlib.sha256(json.dumps(git_dates, sort_keys=True).encode()).hexdigest()


def framed(site: Site) -> Site:
    """The site as an entry's page shows it, without its ten thousand cards (``pages.site_frame``)."""
    return replace(
        site,
        entries=(),
        tracks=tuple(replace(t, entries=()) for t in site.tracks),
        tags=tuple(replace(t, entries=()) for t in site.tags),
    )


def listing_digest(shown: str, verification: object) -> str:
    return hashlib.sha256(f"{shown}\0{verification!r}".encode("utf-8", "surrogateescape")).hexdigest()


def runs_digest(entry: Entry) -> str:
    return hashlib.sha256(repr(entry.runs).encode("utf-8", "surrogateescape")).hexdigest()


def noted_entries(
    site: Site, shown: dict[str, str], keys: dict[str, str], sources: dict[str, str], clean: set[str], order: list[str]
) -> dict[str, Noted]:
    """Each entry of ``site`` as ``Noted``, in ``order``: ``shown``, what lists show of each (``catalog.listed``);
    ``keys``, its render key; ``sources``, its ``source_key``; ``clean``, those with no problem."""
    titles = {t.id: t.title for t in site.tracks}
    links = neighbours(site)
    by_path = {e.path: e for e in site.entries}
    noted = {}
    for path in order:
        entry = by_path.get(path)
        if entry is None:
            continue
        prev, nxt = links.get(path, (None, None))
        noted[path] = Noted(
            url=entry_url(entry),
            slug=entry.slug,
            content_key=keys[path],
            listing=listing_digest(shown[path], entry.verification),
            runs=runs_digest(entry),
            summary=entry.summary_text,
            chars=entry.math_chars,
            track=entry.track,
            track_title=titles.get(entry.track, entry.track),
            around=(prev.path if prev else None, nxt.path if nxt else None),
            source_key=sources[path],
            clean=path in clean,
        )
    return noted


def record_of(
    site: Site,
    sources: list[EntrySource],
    shown: dict[str, str],
    content_keys: dict[str, str],
    source_keys: dict[str, str],
    clean: set[str],
    problems: str,
) -> Resume:
    """The record of a build of ``site`` from ``sources`` (see ``noted_entries``), but its settings, git
    dates, output folder and folders' stamps, which the caller gives it (``dataclasses.replace``)."""
    noted = noted_entries(site, shown, content_keys, source_keys, clean, [s.path for s in sources])
    outside = frozenset(os.path.dirname(os.path.join("/", f.name))[1:] for s in sources for f in s.shared)
    feed = frozenset(e.path for e in feed_entries(site))
    return Resume("", "", "", {}, noted, outside, problems, framed(site), feed)


def load(cache: Path) -> Resume | None:
    """The record, or None when there is none whole (a full build stopped before its head was saved)."""
    store = PickleStore(cache / STORE)
    head = store.get(RECORD)
    if (
        not isinstance(head, dict)
        or not isinstance(head.get("record"), Resume)
        or not isinstance(head.get("order"), list)
    ):
        return None
    record: Resume = head["record"]
    entries = store.get_buckets(ENTRIES, record.token)
    folders = store.get_buckets(FOLDERS, record.token)
    if entries is None or folders is None or entries.keys() != set(head["order"]):
        return None
    return replace(record, entries={path: entries[path] for path in head["order"]}, folders=folders)


def save(cache: Path, record: Resume, before: Resume | None = None) -> None:
    """Save the record: all of it, under a new token, its head last; or, after ``before`` (as ``load``
    gave it), its head and the buckets of the entries and folders that changed since, the folders last:
    a build stopped in between leaves folders that differ from the archive's, whose entries the next
    build makes again (and its head names them among the search index's fresh entries)."""
    store = PickleStore(cache / STORE)
    record = replace(record, token=before.token if before is not None else secrets.token_hex(8))
    head = {"record": replace(record, entries={}, folders={}), "order": list(record.entries)}
    if before is None:
        store.put_buckets(ENTRIES, record.entries, None, record.token)
        store.put_buckets(FOLDERS, record.folders, None, record.token)
        store.put(RECORD, head)
        return
    store.put(RECORD, head)
    # (``is`` first: an unchanged entry's is the very value ``load`` gave, and comparing 10,000 took 30 ms)
    entries = {path: noted for path, noted in record.entries.items() if not _same(before.entries.get(path), noted)}
    store.update_buckets(ENTRIES, entries, set(before.entries) - set(record.entries), record.token)
    folders = {folder: part for folder, part in record.folders.items() if not _same(before.folders.get(folder), part)}
    store.update_buckets(FOLDERS, folders, set(before.folders) - set(record.folders), record.token)


def _same(old: object, new: object) -> bool:
    return old is new or old == new


def forget(cache: Path) -> None:
    """No record: the next build reads the archive (a build that published without making one)."""
    PickleStore(cache / STORE).delete(RECORD)
