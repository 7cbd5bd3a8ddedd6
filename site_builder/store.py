"""Content-addressed pickles under ``.cache/``: the render cache of entries.

Keys are hashes of everything that determines a value (file contents, the renderer's own source
code, library versions), never modification times. A value that cannot be read back is treated
as missing; writes go through a rename, so a killed build never leaves half a file.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

# The modules whose code decides how an entry renders: a change to any of them invalidates the cache.
RENDERER_MODULES = (
    "content.py",
    "document.py",
    "fastlex.py",
    "highlight.py",
    "latex.py",
    "latex_parser.py",
    "markdown.py",
    "model.py",
    "errors.py",
)
LIBRARIES = ("pygments", "markdown-it-py", "mdit-py-plugins")


@lru_cache(maxsize=1)
def renderer_fingerprint() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in RENDERER_MODULES:
        digest.update((here / name).read_bytes())
    for library in LIBRARIES:
        try:
            digest.update(f"{library}={importlib.metadata.version(library)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{library}=?".encode())
    return digest.hexdigest()


class PickleStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        try:
            with open(self._path(key), "rb") as handle:
                return pickle.load(handle)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            return None  # corrupt or from an older layout: render again

    def put(self, key: str, value: Any) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
