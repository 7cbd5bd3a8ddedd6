"""Full-text search: a Pagefind index of the entry pages, built in memory and published as outputs.

Pagefind splits its index into small fragments that the browser fetches per query, so a query
stays small for a 10,000-entry archive; its binary ships on PyPI (``pagefind[bin]``). Only the
part of an entry page marked ``data-pagefind-body`` is indexed: title, tags, summary, statement
and write-up, not navigation or code. The index is cached by the digests of the pages it was
built from, so a rebuild that changed no entry page does not run Pagefind at all.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import logging
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .render import Output
from .store import PickleStore

log = logging.getLogger(__name__)
BUNDLE = "pagefind"
MARKER = b"data-pagefind-body"


@dataclass(frozen=True, slots=True)
class SearchIndex:
    outputs: tuple[Output, ...]
    problem: str | None = None  # why there is no index, when there is none


def pagefind_available() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("pagefind", "pagefind_bin"))


def build_search_index(pages: list[Output], cache: PickleStore | None = None) -> SearchIndex:
    """The Pagefind bundle for the pages that mark a searchable body (entry pages)."""
    searchable = sorted((p for p in pages if p.path.endswith(".html") and MARKER in p.data), key=lambda p: p.path)
    if not searchable:
        return SearchIndex(())
    if not pagefind_available():
        return SearchIndex((), "Pagefind is not installed (pip install 'pagefind[bin]'): the site has no search")
    digest = hashlib.sha256()
    for page in searchable:
        digest.update(page.path.encode() + b"\0" + hashlib.sha1(page.data).digest())
    key = "search-" + digest.hexdigest()
    cached = cache.get(key) if cache is not None else None
    if isinstance(cached, SearchIndex):
        return cached
    try:
        files = _run_outside_any_loop(searchable)
    except Exception as e:
        log.debug("pagefind failed", exc_info=True)
        return SearchIndex((), f"Pagefind failed, the site has no search: {e}")
    result = SearchIndex(tuple(Output(f"{BUNDLE}/{path}", data) for path, data in sorted(files)))
    if cache is not None:
        cache.put(key, result)
    return result


def _run_outside_any_loop(pages: list[Output]) -> list[tuple[str, bytes]]:
    """Run the indexer's coroutine; in a thread of its own when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_index(pages))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(_index(pages))).result()


async def _index(pages: list[Output]) -> list[tuple[str, bytes]]:
    from pagefind.index import IndexConfig, PagefindIndex

    with tempfile.TemporaryDirectory(prefix="site-builder-search-") as folder:
        config = IndexConfig(keep_index_url=True, force_language="en", output_path=folder)
        async with PagefindIndex(config=config) as index:  # writes the bundle into folder on exit
            for page in pages:
                await index.add_html_file(content=page.data.decode("utf-8"), url="/" + page.path)
        root = Path(folder)
        return [(p.relative_to(root).as_posix(), p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()]
