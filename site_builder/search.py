"""Full-text search: a Pagefind index of the entries, built in memory and published as outputs.

Pagefind splits its index into small fragments that the browser fetches per query, so a query
stays small for a 10,000-entry archive; its binary ships on PyPI (``pagefind-bin``). Each entry
is one record of plain text (title, tags, source, summary, statement and write-up, math as its TeX
source), written as one small HTML file for the Pagefind binary. The bundle is cached by a
digest of the records, so a rebuild that changed no searchable text does not run Pagefind.
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import json
import logging
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .model import Site
from .render import Output, entry_heading, entry_url
from .store import PickleStore

log = logging.getLogger(__name__)
BUNDLE = "pagefind"


@dataclass(frozen=True, slots=True)
class Record:
    url: str  # relative to the site root, e.g. "icpc/2022/X-quartets/index.html"
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class SearchIndex:
    outputs: tuple[Output, ...]
    problem: str | None = None  # why there is no index, when there is none
    key: str = ""  # its key in the cache, when it has one


def pagefind_available() -> bool:
    return importlib.util.find_spec("pagefind_bin") is not None


def search_records(site: Site) -> list[Record]:
    records = []
    for entry in site.entries:
        parts = [entry.title, " ".join(entry.tags), entry.source or "", entry.summary_text or "", entry.search_text]
        records.append(Record(entry_url(entry), entry_heading(site, entry), "\n".join(p for p in parts if p)))
    return records


def build_search_index(records: list[Record], cache: PickleStore | None = None) -> SearchIndex:
    """The Pagefind bundle for these records (cached by their content)."""
    if not records:
        return SearchIndex(())
    if not pagefind_available():
        return SearchIndex((), "Pagefind is not installed (pip install pagefind-bin): the site has no search")
    payload = json.dumps([[r.url, r.title, r.text] for r in records], sort_keys=True).encode()
    key = "search-v2-" + hashlib.sha256(payload).hexdigest()
    cached = cache.get(key) if cache is not None else None
    if isinstance(cached, list):  # plain (path, bytes) pairs: no class of ours in the cache
        return SearchIndex(tuple(Output(f"{BUNDLE}/{path}", data) for path, data in cached), key=key)
    try:
        files = sorted(_index(records))
    except Exception as e:
        log.debug("pagefind failed", exc_info=True)
        return SearchIndex((), f"Pagefind failed, the site has no search: {e}")
    if cache is not None:
        cache.put(key, files)
    return SearchIndex(tuple(Output(f"{BUNDLE}/{path}", data) for path, data in files), key=key)


def _index(records: list[Record]) -> list[tuple[str, bytes]]:
    """Run the Pagefind binary over one small HTML file per record; return its bundle's files.

    (Pagefind's Python API waits 0.1 s for every response it reads: 100 s for 1,000 entries.
    The binary indexes a folder of small files in well under a second.)
    """
    from pagefind_bin import get_executable  # type: ignore[import-untyped]

    with tempfile.TemporaryDirectory(prefix="site-builder-search-") as folder:
        pages, bundle = Path(folder) / "pages", Path(folder) / "bundle"
        for record in records:
            path = pages / record.url
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_document(record), encoding="utf-8")
        command = [
            str(get_executable()),
            "--site",
            str(pages),
            "--output-path",
            str(bundle),
            "--keep-index-url",
            "--force-language",
            "en",
            "--silent",
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise RuntimeError((done.stderr or done.stdout).strip()[-500:] or f"exit code {done.returncode}")
        return [(p.relative_to(bundle).as_posix(), p.read_bytes()) for p in sorted(bundle.rglob("*")) if p.is_file()]


def _document(record: Record) -> str:
    title = html.escape(record.title)
    paragraphs = "".join(f"<p>{html.escape(part)}</p>" for part in record.text.split("\n") if part.strip())
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><main data-pagefind-body><h1>{title}</h1>{paragraphs}</main></body></html>"
    )
