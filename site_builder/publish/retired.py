"""Forgetting the cache files an older version of the builder wrote and this one never reads.

A maintainer's CI keeps the cache folder from run to run, across upgrades of the builder. A cache
whose format or name changed would otherwise stay there for good: at 10,000 entries the highlight
cache retired in e1b7a9f is 1.6 GB, and the first snapshot format 266 MB. Only names that a
released version of this program wrote are removed (``RETIRED``), never a file the folder may
hold for another reason: ``--cache`` can name a folder that is not the builder's alone.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

# Names in the cache folder that older versions wrote, as glob patterns: the highlighted code cache,
# the math cache as JSON (before SQLite), and the math font decompressed (before its cut was made from
# the WOFF file). Not ``cpp/``, where C++ programs were kept before ``programs/``: a name another
# program may well use in a folder shared with it.
RETIRED = ("code-*.sqlite", "math-temml-*.json", "fonts/source-*.ttf")
MATH_CACHES = "math-temml-*.sqlite*"  # by Temml's version and worker (and SQLite's side files): one is read


def forget_retired(cache: Path, math_cache: str) -> list[str]:
    """Remove the retired files of ``cache``, and every math cache but ``math_cache``
    (the one this build reads); return the names removed. A file another process holds open stays
    readable to it (Unix); a name that cannot be removed is logged and left for the next build."""
    removed = []
    stale = [path for pattern in RETIRED for path in cache.glob(pattern)]
    stale += [path for path in cache.glob(MATH_CACHES) if not path.name.startswith(math_cache)]
    for path in sorted(stale):
        if path.is_dir() and not path.is_symlink():
            continue  # no version wrote a folder of these names
        try:
            path.unlink()
        except OSError as e:
            log.warning("cache file %s not removed: %s", path, e)  # tried again by the next build
            continue
        removed.append(path.name)
    return removed
