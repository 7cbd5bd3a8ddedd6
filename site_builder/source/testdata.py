"""Which files of a problem folder are a package's test data (shown on no page, never read whole,
only hashed), and the digests of those a folder's last load hashed that ``stat`` says are unchanged."""

from __future__ import annotations

import re

from ..model import EntrySource
from .snapshot import Signature, same_bytes


def _unchanged_digests(
    previous: tuple[Signature, EntrySource] | None, stats: tuple[tuple[str, object], ...]
) -> dict[str, str]:
    """The digests of the test data files that ``stat`` says are as the folder's last load found
    them: a changed statement does not hash a package's gigabytes of data again.

    By their size, modification time and inode, not their change time: the site hard-links its
    published data from the archive (``publish_data: all``), and each link made or removed, by a
    build or by ``rm -r site``, moves the change time of the archive's file. (A rewrite in place
    that keeps the size and sets the modification time back to the nanosecond goes unseen.)"""
    if previous is None:
        return {}
    before = dict(previous[0][1]) if isinstance(previous[0][1], tuple) else {}
    now = dict(stats)
    return {
        f.name: f.digest
        for f in previous[1].files
        if hashed_only(f.name) and same_bytes(before.get(f.name), now.get(f.name))
    }


_OTHER_TESTS = re.compile(r"^(tests/\d+(\.a)?|input/input\d+\.txt|output/output\d+\.txt)$")


def is_test_data(rel: str) -> bool:
    """A package's test data other than its samples (``data/secret``, ``data/bad``...; a Polygon
    package's ``tests/01``, ``tests/01.a``; a CMS task's ``input/input0.txt``, ``output/output0.txt``):
    shown on no page, so invalid UTF-8 there (often on purpose) is no one's mistake; published only
    when ``site.yaml`` says ``publish_data: all``."""
    return (rel.startswith("data/") and not rel.startswith("data/sample/")) or bool(_OTHER_TESTS.match(rel))


def hashed_only(rel: str) -> bool:
    """A file of a problem folder that the builder never reads whole: test data other than the YAML
    files that describe its groups. Its bytes may be gigabytes."""
    return is_test_data(rel) and not rel.endswith((".yaml", ".yml"))
