"""A build of a few edited entries, from the record of the last build (``publish/resume``).

A full build reads every problem folder and goes over every entry a dozen times, though it renders
and writes only what changed: ten seconds at 10,000 entries for one edited write-up. When the
archive's stamp differs from the record's in a few problem folders alone, and each of their entries
is shown by other pages as before (its card, verdicts, math characters, and its first paragraph if
the feed lists it) and has no problem to report, a build loads, renders and verifies those entries
alone, and writes their
pages, files and ``samples.zip`` in place, each through a rename (as the dev server does), with the
search index's fresh part: the entries quick builds changed since the full build, indexed apart
(``_fresh_index``), whose records the browser takes over theirs in the shards. Then the manifest and
the record. Anything else (a folder that came or went, a new title, an
error, the archive's own templates, a change outside the problem folders...) is the full build's:
``quick_build`` then returns None having written nothing.

This is the build's concern as a whole, beside ``build.py``, whose ``Builder`` it extends.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from .build import Builder, entry_diagnostics
from .freshness import STAMPS, Probe, inputs_of, source_key
from .model import Entry, EntrySource
from .publish import manifest, output, resume
from .publish.catalog import RESERVED_TRACKS, listed_digest
from .publish.downloads import sample_archives
from .publish.outputs import Output
from .publish.rawfiles import plan_raw_files
from .publish.records import Listed, Records, record_key
from .publish.records import listed as search_listed
from .publish.report import BuildReport, report_from_summary
from .publish.resume import Noted, Resume
from .publish.search import (
    BUNDLE,
    FRESH,
    FRESH_NAME,
    SHARDS,
    cached_shard,
    indexed,
    pagefind_available,
    shard_folder,
    shard_outputs,
    shards_file,
    shards_of,
)
from .render.workers import cards_key
from .source.archive import load_entry
from .source.config import BuildOptions
from .source.walk import is_problem_dir
from .store import JsonStore, bucket_of, write_json

log = logging.getLogger(__name__)

QUICK_MOST = 8  # more changed entries than this: the full build, which renders them in parallel
# More entries in the search index's fresh part than this (each indexed again by every quick build, 4-5
# ms apiece): the full build, which indexes their shards again.
FRESH_MOST = 32


def quick_build(options: BuildOptions, probe: Probe) -> BuildReport | None:
    """The build of the archive as ``probe`` found it, if a few entries changed in ways only their own
    pages show since the recorded build (see the module's text); None, having written nothing, if not."""
    if options.rerun or options.strict:
        return None
    record = resume.load(options.cache)
    if record is None or record.out != str(options.out) or record.settings != probe.settings:
        return None
    if record.git != resume.git_digest(probe.git_dates):
        return None
    head = JsonStore(options.cache / manifest.HEAD, "manifest").data
    if not isinstance(head.get("summary"), dict) or head.get("out") != str(options.out):
        return None
    if head.get("stamp") != manifest.site_stamp(options.out):
        return None  # the published site is not as the manifest says
    changed = changed_entries(record, probe.stamp.folders, str(options.archive))
    if not changed or len(changed) > QUICK_MOST:
        return None
    builder = QuickBuilder(options)
    try:
        return builder.update(probe, record, head, changed)
    finally:
        builder.close()


def changed_entries(record: Resume, folders: Mapping[str, tuple[str, int]], archive: str) -> list[str] | None:
    """The entries (paths) whose folders' stamps differ from the record's; None when a folder outside
    every entry changed (or one that documents input from outside their own folders)."""
    old = record.folders
    moved = [f for f, (digest, _) in folders.items() if not old.get(f) or old[f] != digest]
    moved += [f for f in old if f not in folders]
    found = set()
    for folder in moved:
        if (folder[len(archive) + 1 :] if folder != archive else "") in record.outside:
            return None
        owner = owning_entry(folder, archive, record.entries)
        if owner is None:
            return None
        found.add(owner)
    return sorted(found)


def owning_entry(folder: str, archive: str, entries: dict[str, Noted]) -> str | None:
    """The entry whose problem folder holds ``folder`` (an absolute path below ``archive``)."""
    rel = folder[len(archive) + 1 :] if folder != archive else ""
    while True:
        if rel in entries:
            return rel
        if not rel:
            return None
        rel = rel.rpartition("/")[0]


class QuickBuilder(Builder):
    written = 0  # files the update wrote

    def update(self, probe: Probe, record: Resume, head: dict[str, Any], paths: list[str]) -> BuildReport | None:
        started = time.perf_counter()
        self.config, self.git_dates, self.theme = probe.config, probe.git_dates, probe.theme
        self.pages = self._page_renderer()
        if self.pages.shows_anything:
            return None  # the archive's own templates: any page may show any of an entry
        archive, skip = self.options.archive, self.skip
        if not all(is_problem_dir(archive / path, skip) for path in paths):
            return None
        shown = self.options.display(archive)
        sources = [load_entry(archive / path, archive, shown, self.git_dates, skip=skip) for path in paths]
        if any(s.slug != record.entries[s.path].slug for s in sources):
            return None  # a new URL (a folder that took another's)
        sources = self._screen(sources)
        mark = self._lap("load entries", started)
        # Each entry's card as last built (a changed one's: its code, highlighted then, is not highlighted again)
        last = {record.entries[s.path].content_key: self._card(record, s.path) for s in sources}
        bundle = {key: card for key, card in last.items() if card is not None}
        new_keys = {self._render_key(s) for s in sources}
        bundle = {key: card for key, card in bundle.items() if key not in new_keys}
        entries = self._verify(sources, self._render(sources, cards=False, bundle=bundle))
        if not all(self._shown_as_before(record, e) for e in entries):
            return None
        mark = self._lap("render entries", mark)
        edited = {e.path for e in entries}
        others = set("".join(noted.chars for path, noted in record.entries.items() if path not in edited))
        before = others.union(*(record.entries[path].chars for path in edited if path in record.entries))
        if others.union(*(e.math_chars for e in entries)) != before:
            return None  # the math font is cut again: every page's stylesheet
        with ThreadPoolExecutor(1) as pool:  # Pagefind indexes the fresh part meanwhile, in a process of its own
            indexing = pool.submit(self._fresh_index, record, entries)
            pages = self._entry_pages(record, entries)
            downloads = sample_archives(sources)
            made = [*(pages or ()), *(d.path for d in downloads)]
            raw, collisions = plan_raw_files(self.options, sources, made, self.sanitized)
            self._keep_cards(record, entries)  # (while Pagefind indexes: cards are kept by content, whatever follows)
            try:
                search = indexing.result()
            except Exception:  # Pagefind failed: the full build says so, with a site without search
                log.debug("quick build: the search index failed", exc_info=True)
                search = None
        if pages is None or collisions or search is None:
            return None
        mark = self._lap("pages and search", mark)
        delta, size = self._publish(sources, [*pages.values(), *downloads, *search[0]], raw, head)
        source_keys = {s.path: source_key(s) for s in sources}
        keys = [source_keys.get(path) or noted.source_key for path, noted in record.entries.items()]
        inputs = inputs_of(probe.settings, record.problems, keys)
        summary = {name: value for name, value in head["summary"].items() if name != "bytes"}
        manifest.save_delta(self.options.cache, self.options.out, delta, head, (inputs, summary), size)
        if probe.settled():
            write_json(self.options.cache / STAMPS, {"probe": probe.key(), "inputs": inputs})
        resume.save(self.options.cache, self._recorded(probe, record, source_keys, entries, search[1]), record)
        self._lap("write", mark)
        report = report_from_summary({**summary, "bytes": size}, self.options.out, 0.0, dict(self.timings))
        if report is None:
            return None
        return replace(report, current=False, written=self.written, solver_processes=self.solver_processes)

    def _keep_cards(self, record: Resume, entries: list[Entry]) -> None:
        """The cards a later quick build shows as neighbours, or takes the highlighted code of (``_card``)."""
        lasting = [e for e in entries if e.lasting(self.math.available)]
        cards = {self.content_keys[e.path]: e.evolve(runs=()).card() for e in lasting}
        old = {record.entries[e.path].content_key for e in entries} - set(cards)
        self.renders.update_buckets(cards_key(), cards, old)

    def _shown_as_before(self, record: Resume, entry: Entry) -> bool:
        """Whether other pages show the entry as the record's build did, and it has no problem."""
        noted = record.entries[entry.path]
        if not noted.clean or entry_diagnostics(entry):
            return False
        if resume.listing_digest(listed_digest(entry, False), entry.verification) != noted.listing:
            return False
        # Its first paragraph: its own pages and the feed's, when the feed lists it
        summary = entry.summary_text == noted.summary or entry.path not in record.feed
        return resume.runs_digest(entry) == noted.runs and summary

    def _entry_pages(self, record: Resume, entries: list[Entry]) -> dict[str, Output] | None:
        """Each entry's page and code pages, with their figure files, as the full build makes them: in
        the site's frame, between its neighbours' cards (``PageRenderer.entry_inputs`` names what an
        entry's page shows)."""
        assert self.pages is not None
        plan: dict[str, Any] = {}
        for entry in entries:
            paths = record.entries[entry.path].around
            prev, nxt = (self._card(record, path) for path in paths)
            if (prev is None and paths[0] is not None) or (nxt is None and paths[1] is not None):
                return None
            self.pages.plan_entry(plan, record.frame, entry, (prev, nxt), lambda e: e)
        made: dict[str, Output] = {}
        for path, render in plan.items():
            for item in (render(), *self.pages.figures_of(path)):
                made.setdefault(item.path, item)
        return made

    def _card(self, record: Resume, path: str | None) -> Entry | None:
        """The card of an entry the last full build bundled (``Builder._card_bundle``), from its bucket."""
        if path is None or path not in record.entries:
            return None
        key = record.entries[path].content_key
        card = (self.renders.bucket(cards_key(), bucket_of(key)) or {}).get(key)
        return card if isinstance(card, Entry) else None

    def _fresh_index(self, record: Resume, entries: list[Entry]) -> tuple[list[Output], tuple[str, ...]] | None:
        """The search index's fresh part (``search.FRESH``): the entries quick builds changed since the
        full build, these among them, indexed apart, and the list of shards naming their stale records
        in the others; with those entries' paths. None when it would hold more than FRESH_MOST entries
        or a record of an earlier one is not kept."""
        if not pagefind_available():
            return [], ()
        whole = {e.path: e for e in entries}
        changed = {p for p in whole if self.content_keys[p] != record.entries[p].content_key}  # not a bare save
        fresh = sorted({*record.fresh, *changed} - {p for p, n in record.entries.items() if n.track in RESERVED_TRACKS})
        if len(fresh) > FRESH_MOST:
            return None
        items: list[Listed] = []
        for path in fresh:
            noted = record.entries[path]
            if path in whole:
                items.append(search_listed(whole[path], noted.track_title, self.content_keys[path]))
            else:
                items.append(Listed(noted.url, record_key(noted.content_key, noted.track_title)))
        outputs: list[Output] = []
        if items:
            made = cached_shard(items, self.renders, fresh=True)  # the same records as a quick build indexed before
            if made is None:
                kept = Records(self.renders)
                records = kept.at_hand(items, FRESH_NAME)
                if records is None:
                    return None
                made = indexed(items, records, kept, fresh=True)
            outputs = shard_outputs(made, False)[1]
        listing = [Listed(n.url, "") for _, n in sorted(record.entries.items()) if n.track not in RESERVED_TRACKS]
        folders = [shard_folder(shard[0].url) for shard in shards_of(listing)[1:]]  # in the order of paths, as cut
        outputs.append(shards_file([*folders, FRESH] if items else folders, [item.url for item in items]))
        return outputs, tuple(fresh)

    def _publish(
        self,
        sources: list[EntrySource],
        made: list[Output],
        raw: list[output.RawFile],
        head: dict[str, Any],
    ) -> tuple[manifest.Delta, int]:
        """Write the entries' pages, files and samples.zip and the search index's fresh part in place,
        and remove what they no longer hold; the delta of the manifest that describes their folders
        now, and the site's bytes."""
        out = self.options.out
        below: dict[str, tuple[str, ...]] = {f"{s.slug or s.path}/": () for s in sources}
        shards = {FRESH, f"{BUNDLE}/{SHARDS}"} if pagefind_available() else set()
        below.update({folder: () for folder in shards})
        before = {folder: manifest.files_below(out, folder, other) for folder, other in below.items()}
        published = _published(out, made, before)
        self.written = output.write_in_place(out, made, published)
        wanted = {item.path for item in made}
        stale = {path for folder in shards for path in before[folder] if path not in wanted}
        output.remove_in_place(out, stale, published)
        entries = [folder.rstrip("/") for folder in below if folder not in shards]
        output.sync_raw_files(self.options, entries, raw, wanted)
        digests = {path: (key, True) for path, key in published.items() if path in wanted}
        digests.update((r.target, (r.digest, False)) for r in raw)
        delta = manifest.load_delta(self.options.cache, head.get("serial"))
        size = int(head["summary"].get("bytes", 0))
        for folder, other in below.items():
            size -= sum(info.st_size for info in before[folder].values())
            size += delta.describe(out, folder, other, digests)
        return delta, size

    def _recorded(
        self, probe: Probe, record: Resume, keys: dict[str, str], entries: list[Entry], fresh: tuple[str, ...]
    ) -> Resume:
        """The record with these entries as built now (``keys``: their ``source_key``; ``fresh``: the
        entries of the search index's fresh part)."""
        noted = dict(record.entries)
        for entry in entries:
            noted[entry.path] = noted[entry.path]._replace(
                content_key=self.content_keys[entry.path],
                chars=entry.math_chars,
                summary=entry.summary_text,
                source_key=keys[entry.path],
            )
        return replace(record, entries=noted, folders=probe.vouched(), fresh=fresh)


def _published(out: Path, made: list[Output], before: dict[str, dict[str, os.stat_result]]) -> dict[str, str]:
    """The digest of each file about to be written that the site has already, of the same size: read
    (a few small files; ``write_in_place`` then leaves those with the same bytes as they are)."""
    sizes = {path: info.st_size for files in before.values() for path, info in files.items()}
    return {item.path: manifest.file_digest(out / item.path) for item in made if sizes.get(item.path) == len(item.data)}


__all__ = ["QuickBuilder", "changed_entries", "quick_build"]
