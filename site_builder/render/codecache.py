"""Highlighted source files kept across builds, by their name and text and by this renderer: an edited
write-up does not have its entry's unchanged code highlighted again. (In a fresh process Pygments takes
about a second to set up its lexers' rules: most of a one-edit build of a small archive.)"""

from __future__ import annotations

import glob
import hashlib
import os
from pathlib import Path
from typing import Any

from ..model import CodeFile, Entry, EntrySource, SourceFile
from ..store import SqliteStore, renderer_fingerprint


class CodeCache:
    """The highlighted HTML of source files in ``.cache/code-<renderer>.sqlite``; a worker process sends
    what it highlighted to the builder (``take_fresh``), which keeps it (``save``)."""

    def __init__(self, cache: Path) -> None:
        self.path = cache / f"code-{renderer_fingerprint()[:16]}.sqlite"
        self.store = SqliteStore(self.path, "code cache")
        self.fresh: dict[str, Any] = {}
        self.hits: set[str] = set()  # the keys ``known`` found: not to be written again

    @staticmethod
    def key(item: SourceFile) -> str:
        return hashlib.sha256(f"{item.name}\0{item.text}".encode("utf-8", "surrogateescape")).hexdigest()

    def known(self, item: SourceFile) -> CodeFile | None:
        """``item`` as it was highlighted before, if it was."""
        key = self.key(item)
        value = self.store.get(key)
        if not isinstance(value, dict) or not all(isinstance(value.get(k), t) for k, t in _FIELDS.items()):
            return None
        self.hits.add(key)
        return CodeFile(item.name, value["language"], value["html"], value["lines"])

    def remember(self, source: EntrySource, entry: Entry) -> None:
        """The code files of ``entry``, rendered from ``source`` just now, for the next builds."""
        items = {f.name: f for f in source.files if f.text is not None}
        for code in (*entry.solvers, *entry.sources):
            item = items.get(code.name)
            if item is not None and code.html:
                key = self.key(item)
                if key not in self.hits:
                    self.fresh[key] = {"language": code.language, "html": code.html, "lines": code.lines}

    def take_fresh(self) -> dict[str, Any]:
        """In a worker: what it highlighted since the last call, for the builder's cache."""
        fresh, self.fresh = self.fresh, {}
        return fresh

    def keep(self, fresh: dict[str, Any]) -> None:
        self.fresh.update(fresh)

    def save(self) -> None:
        """Write what was highlighted; the files of other renderers go (each is of no use to this one)."""
        if not self.fresh:
            return
        for key, value in self.take_fresh().items():
            self.store.put(key, value)
        self.store.save()
        for other in glob.glob(str(self.path.parent / "code-*.sqlite")):
            if other != str(self.path):
                os.unlink(other)


_FIELDS = {"language": str, "html": str, "lines": int}
