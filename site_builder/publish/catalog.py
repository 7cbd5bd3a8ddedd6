"""Links rendered entries into the site: tracks in page order, tags, reserved names (pure)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import replace
from functools import lru_cache

from ..errors import Diagnostic
from ..model import Entry, Site, Tag, Track
from ..render.document import slugify
from ..source.config import DEFAULT_TITLE, SiteConfig
from ..source.paths import RESERVED_TOP, infer_folder_name, natural_key, url_slug

RESERVED_TRACKS = RESERVED_TOP  # a second guard: the walk loads no folder of these (source/archive.py)


def entry_order(entry: Entry) -> tuple[object, ...]:
    """Track pages list groups newest first (numbers in group names descend), labels ascending."""
    return (_groups_order(entry.groups), natural_key(entry.label or ""), entry.title.lower(), entry.path)


@lru_cache(maxsize=4096)  # an archive has few group paths; the dev server relinks the site on every save
def _groups_order(groups: tuple[str, ...]) -> tuple[object, ...]:
    return tuple(tuple((k, -v) if isinstance(v, int) else (k, v) for k, v in natural_key(g)) for g in groups)


def link_site(config: SiteConfig, entries: list[Entry], archive_prefix: str) -> tuple[Site, list[Diagnostic]]:
    problems: list[Diagnostic] = []
    by_track: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry.track in RESERVED_TRACKS:
            problems.append(
                Diagnostic(
                    f"{archive_prefix}/{entry.track}", 0, f"track folder name {entry.track!r} is reserved; rename it"
                )
            )
            continue
        by_track[entry.track].append(entry)
    for name in sorted(set(config.tracks) - set(by_track)):
        problems.append(
            Diagnostic(f"{archive_prefix}/site.yaml", 0, f"track {name!r} has no folder with entries", "warning")
        )
    tracks = _unique_slugs(
        tuple(_track(name, items, config) for name, items in _ordered_tracks(by_track, config)),
        archive_prefix,
        problems,
    )
    ordered = tuple(e for t in tracks for e in t.entries)
    return (
        Site(
            title=config.title or site_title(ordered),
            description=config.description,
            base_url=config.base_url,
            repo_url=config.repo_url.rstrip("/"),
            repo_branch=config.repo_branch,
            tracks=tracks,
            tags=_tags(ordered),
            entries=ordered,
            footer=config.footer,
            judge_url=config.judge_url,
        ),
        problems,
    )


def site_title(entries: tuple[Entry, ...]) -> str:
    """The site's title when site.yaml names none: a package's own repository (its one entry's path is
    "") is about that problem, and named by its folder ("doomsday-rule": "Doomsday Rule", as ``init``
    would write it); an archive of them is a "Problem Archive"."""
    own = next((e for e in entries if e.path == ""), None)
    return infer_folder_name(own.slug.rpartition("/")[2]).title if own is not None else DEFAULT_TITLE


def _ordered_tracks(by_track: dict[str, list[Entry]], config: SiteConfig) -> list[tuple[str, list[Entry]]]:
    """Tracks in the order site.yaml lists them, then the rest alphabetically."""
    listed = [name for name in config.tracks if name in by_track]
    rest = sorted(set(by_track) - set(listed), key=natural_key)
    return [(name, by_track[name]) for name in listed + rest]


def track_title(config: SiteConfig, name: str) -> str:
    """site.yaml's title, or one made from the folder: short words are the acronyms contests are named
    by (``icpc`` is "ICPC", ``ioi-2024`` "IOI 2024"), longer ones capitalized (``classics``)."""
    info = config.tracks.get(name)
    if info:
        return info.title
    return humanised(name)


def humanised(name: str) -> str:
    """A folder's name as a contest is named: ``round-102`` is "Round 102", ``nwerc-2023`` "NWERC 2023",
    ``dp`` "DP", but ``sort`` "Sort": a word is an acronym when it is a contest's (``CONTESTS``), or
    short and without a vowel (``bfs``, ``kth``, ``wf``)."""
    words = name.replace("_", " ").replace("-", " ").split()
    return " ".join(w.upper() if _acronym(w) else w.capitalize() for w in words) or name


def _acronym(word: str) -> bool:
    lower = word.lower()
    return word.isalpha() and (lower in CONTESTS or (len(word) <= 4 and not VOWELS.intersection(lower)))


VOWELS = frozenset("aeiouy")
# Contests and olympiads whose folders are named by their acronyms: ICPC regionals and finals, the
# olympiads and their regional rounds, and judges' contest series.
CONTESTS = frozenset(
    {
        *("icpc", "acm", "nwerc", "swerc", "seerc", "cerc", "nerc", "bapc", "ncpc", "gcpc", "nac", "ecna"),
        *("ncna", "scusa", "nenac", "rmrc", "socal", "amrc", "apac", "euc", "lac", "ccpc", "ioi", "apio"),
        *("ceoi", "boi", "balkan", "egoi", "eoi", "joi", "noi", "oii", "ois", "poi", "coci", "usaco"),
        *("abc", "arc", "agc", "ahc", "cses", "uva", "spoj", "ucup", "ntnu", "ipsc"),
    }
)


def _track(name: str, items: list[Entry], config: SiteConfig) -> Track:
    info = config.tracks.get(name)
    return Track(
        id=name,
        title=track_title(config, name),
        description=info.description if info else "",
        entries=tuple(sorted(items, key=entry_order)),
    )


def _unique_slugs(tracks: tuple[Track, ...], archive_prefix: str, problems: list[Diagnostic]) -> tuple[Track, ...]:
    """Each track's URL as its entries have it ("Über Track" -> "Uber-Track"); a second track whose
    URL is taken (also when they differ only in case) is an error, and gets a numbered URL."""
    taken: dict[str, str] = {}
    result = []
    for track in sorted(tracks, key=lambda t: natural_key(t.id)):
        slug = base = url_slug(track.id)
        n = 1
        while slug.lower() in taken:
            n += 1
            slug = f"{base}-{n}"
        if n > 1:
            first = taken[base.lower()]
            message = f"this track's URL {base}/ is already {archive_prefix}/{first}'s; rename one of them"
            problems.append(Diagnostic(f"{archive_prefix}/{track.id}", 0, message))
        taken[slug.lower()] = track.id
        result.append(replace(track, slug=slug))
    by_id = {t.id: t for t in result}
    return tuple(by_id[t.id] for t in tracks)


def _tags(entries: tuple[Entry, ...]) -> tuple[Tag, ...]:
    groups: dict[str, list[Entry]] = defaultdict(list)
    names: dict[str, str] = {}
    for entry in entries:
        for tag in entry.tags:
            slug = _tag_slug(tag)
            names.setdefault(slug, tag)
            groups[slug].append(entry)
    return tuple(Tag(names[s], s, tuple(groups[s])) for s in sorted(groups))


_tag_slug = lru_cache(maxsize=4096)(slugify)


def relinked(site: Site, swaps: list[tuple[Entry, Entry]]) -> Site:
    """The site with each ``(old, new)`` of ``swaps``: ``new`` where ``old`` was. What ``link_site`` makes
    of entries whose tracks, order and tags did not change, in a fraction of its time: the entries are
    found by identity, reading only the site's lists, not ten thousand entries scattered in memory."""

    def swapped(items: tuple[Entry, ...]) -> tuple[Entry, ...]:
        ids = list(map(id, items))
        changed = list(items)
        for old, new in swaps:
            if id(old) in ids:
                changed[ids.index(id(old))] = new
        return tuple(changed)

    # Only the lists that hold one: its track's and its tags' (a track or tag of thousands read for nothing).
    tracks = {old.track for old, _ in swaps}
    tags = {_tag_slug(tag) for old, _ in swaps for tag in old.tags}
    return replace(
        site,
        tracks=tuple(replace(t, entries=swapped(t.entries)) if t.id in tracks else t for t in site.tracks),
        tags=tuple(replace(t, entries=swapped(t.entries)) if t.slug in tags else t for t in site.tags),
        entries=swapped(site.entries),
    )


def neighbours_of(site: Site, entry: Entry) -> tuple[Entry | None, Entry | None]:
    """``neighbours(site)[entry.path]``, found in the entry's track alone."""
    items = next(t.entries for t in site.tracks if t.id == entry.track)
    return _around(items, next(i for i, e in enumerate(items) if e.path == entry.path))


def neighbours(site: Site) -> dict[str, tuple[Entry | None, Entry | None]]:
    """Previous and next entry of every entry, within its track, in page order."""
    result: dict[str, tuple[Entry | None, Entry | None]] = {}
    for track in site.tracks:
        items = track.entries
        for i, entry in enumerate(items):
            result[entry.path] = _around(items, i)
    return result


def _around(items: tuple[Entry, ...], i: int) -> tuple[Entry | None, Entry | None]:
    return (items[i - 1] if i else None, items[i + 1] if i + 1 < len(items) else None)


def listed(entry: Entry, summaries: bool = True) -> str:
    """What pages other than the entry's own can show of it: its card (``Entry.card``) but the plain
    text of its statement and write-up and the line counts and digests of its code, which only its
    page and the search index show, nor the characters its math draws (the font's cut, a file of its
    own), nor its runs, which each caller adds as its pages show them. Equal for an entry whose
    write-up changed in words only, so the home, track and tag pages are kept then. Without
    ``summaries`` (its first paragraph, its documents'), which of the theme's pages only the entry's
    own and the feed show (``feed_summaries``): an archive's own templates may show them anywhere."""
    card = entry.card() if entry.complete else entry
    solvers, sources = (tuple(replace(c, lines=0, digest="") for c in files) for files in (card.solvers, card.sources))
    card = replace(card, search_text="", solvers=solvers, sources=sources, runs=(), math_chars="")
    if not summaries:
        documents = {
            "statement": card.statement and replace(card.statement, summary_html=None),
            "solution": card.solution and replace(card.solution, summary_html=None),
            "translations": tuple(replace(d, summary_html=None) for d in card.translations),
        }
        card = replace(card, summary_html=None, summary_text=None, **documents)  # type: ignore[arg-type]
    return repr(card)


def listed_digest(entry: Entry, summaries: bool = True) -> str:
    """The digest of ``listed``, as lists are keyed by it (``Builder._write_pages``, ``quick``)."""
    return hashlib.sha256(listed(entry, summaries).encode()).hexdigest()


def group_title(name: str) -> str:
    """A group's folders in words: ``round-102`` is "Round 102", ``2024/day-1`` "2024 · Day 1"."""
    return " \u00b7 ".join(humanised(part) for part in name.split("/") if part)


def group_entries(track: Track) -> list[tuple[str, list[Entry]]]:
    """A track's entries in runs of one group each (a track page's sections)."""
    groups: list[tuple[str, list[Entry]]] = []
    for entry in track.entries:
        name = entry.group
        if not groups or groups[-1][0] != name:
            groups.append((name, []))
        groups[-1][1].append(entry)
    return groups
