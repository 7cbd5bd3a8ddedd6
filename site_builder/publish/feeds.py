"""The site's files for machines: ``sitemap.xml``, the Atom feed ``feed.xml`` and
``verification.json`` (pure: each from the linked site)."""

from __future__ import annotations

import heapq
import html
import json
import uuid

from ..model import Entry, Site
from .outputs import Output, entry_url


def render_sitemap(site: Site) -> Output:
    """``sitemap.xml``: every page's absolute address (``site.base_url`` must be set)."""
    base = site.base_url.rstrip("/") + "/"
    paths = ["index.html", "tags/index.html"]
    paths += [t.url for t in site.tracks]
    paths += [f"tags/{t.slug}/index.html" for t in site.tags]
    paths += [entry_url(e) for e in site.entries]
    updated = {entry_url(e): e.updated for e in site.entries}
    rows = []
    for path in paths:
        lastmod = f"<lastmod>{updated[path]}</lastmod>" if path in updated else ""
        rows.append(f"  <url><loc>{html.escape(base + path)}</loc>{lastmod}</url>\n")
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + "".join(rows) + "</urlset>\n"
    )
    return Output("sitemap.xml", text.encode("utf-8"))


FEED_ENTRIES = 50


def feed_entries(site: Site) -> list[Entry]:
    """The entries the feed lists: those most recently added or changed (by the date their folder last
    changed)."""
    return heapq.nlargest(FEED_ENTRIES, site.entries, key=lambda e: (e.updated, e.path))  # a save's feed: no sort


def feed_summaries(site: Site) -> tuple[str | None, ...]:
    """The summaries the feed shows: the only page of the theme's but an entry's own that shows one."""
    return tuple(e.summary_text for e in feed_entries(site))


def render_feed(site: Site) -> Output:
    """``feed.xml``: an Atom feed of the entries most recently added or changed (by the date their
    folder last changed). Links are relative to the feed, or absolute under ``base_url``."""
    base = site.base_url.rstrip("/") + "/" if site.base_url else ""
    latest = feed_entries(site)
    items = []
    for entry in latest:
        url = base + entry_url(entry)
        title = f"{entry.label}. {entry.title}" if entry.label else entry.title
        summary = f"\n    <summary>{html.escape(entry.summary_text)}</summary>" if entry.summary_text else ""
        items.append(
            f"  <entry>\n    <title>{html.escape(title)}</title>\n"
            f'    <link rel="alternate" type="text/html" href="{html.escape(url)}"/>\n'
            f"    <id>{_feed_id(site, entry_url(entry))}</id>\n"
            f"    <updated>{_atom_date(entry.updated)}</updated>{summary}\n  </entry>\n"
        )
    updated = _atom_date(latest[0].updated) if latest else "1970-01-01T00:00:00Z"
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"  <title>{html.escape(site.title)}: new and changed entries</title>\n"
        f'  <link rel="self" type="application/atom+xml" href="{html.escape(base)}feed.xml"/>\n'
        f'  <link rel="alternate" type="text/html" href="{html.escape(base)}index.html"/>\n'
        f"  <id>{_feed_id(site, '')}</id>\n  <updated>{updated}</updated>\n"
        f"  <author><name>{html.escape(site.title)}</name></author>\n" + "".join(items) + "</feed>\n"
    )
    return Output("feed.xml", text.encode("utf-8"))


def _feed_id(site: Site, path: str) -> str:
    """A stable id: the page's address under ``base_url``, else a name-based UUID of the site and path."""
    if site.base_url:
        return html.escape(site.base_url.rstrip("/") + "/" + path)
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'problem-archive:{site.title}:{path}')}"


def _atom_date(day: str) -> str:
    return f"{day}T00:00:00Z" if len(day) == 10 else day


def render_verification_report(site: Site) -> Output:
    """``verification.json``: every verdict of the build, for machines."""
    rows = [
        {
            "entry": _folder(entry),
            "solver": run.solver,
            "solver_hash": run.source_hash,
            "sample": verdict.sample,
            "verdict": verdict.code,
            "time": verdict.seconds,
        }
        for entry in site.entries
        for run in entry.runs
        for verdict in run.verdicts
    ]
    notes = [
        {"entry": _folder(entry), "solver": run.solver, "solver_hash": run.source_hash, "note": run.note}
        for entry in site.entries
        for run in entry.runs
        if run.note
    ]
    statuses = {_folder(entry): entry.verification[1] for entry in site.entries}
    text = json.dumps({"results": rows, "not_run": notes, "status": statuses}, indent=1, sort_keys=True)
    return Output("verification.json", (text + "\n").encode("utf-8"))


def _folder(entry: Entry) -> str:
    """The entry's folder in the archive, as machines read it: "." for the archive itself (a package's
    own repository)."""
    return entry.path or "."
