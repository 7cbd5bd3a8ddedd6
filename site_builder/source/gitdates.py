"""The last commit time of each archive file, from the archive's git history.

git runs in the sandbox, shown the repository's ``.git`` folder alone and read-only. Its answer is
kept in the cache with the commit ``HEAD`` names, which this module reads from ``.git`` as plain
files (never following a link, a few kilobytes at most): while that commit is the same, so is every
date, and a build that changes nothing starts no git and no sandbox.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..store import JsonStore, write_json

log = logging.getLogger(__name__)
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"ref: (refs/[A-Za-z0-9._/+-]+)")
PACKED_REFS_BYTES = 16 * 1024 * 1024


GIT_LIMITS = sandbox.Limits(wall=60.0, memory=2048 * sandbox.MiB, output=256 * sandbox.MiB)
# Settings that keep git from running anything a repository's own configuration names.
GIT_SETTINGS = ("safe.directory=*", "log.showSignature=false", "core.fsmonitor=false", "core.pager=cat")


def load_git_dates(archive: Path, cache: Path | None = None) -> dict[str, int]:
    """Last commit time (Unix seconds) of every file under ``archive``, keyed by relative path
    (``cache``: a JSON file that keeps the last answer with the commit it is for).

    git runs in the sandbox, shown the repository's ``.git`` folder alone and read-only: whatever
    the archive's own configuration makes it run (a signature program, a monitor) runs there too."""
    found = _repository(archive)
    if found is None:
        return {}
    top, inside = found
    key = _history_key(top / ".git", inside)
    kept = JsonStore(cache, "git dates") if cache is not None and key is not None else None
    if kept is not None and kept.get("key") == key and isinstance(dates := kept.get("dates"), dict):
        return {str(path): int(time) for path, time in dates.items()}
    dates = _git_log(top, inside)
    if kept is not None and dates is not None:
        write_json(kept.path, {"key": key, "dates": dates})
    return dates or {}


def _git_log(top: Path, inside: str) -> dict[str, int] | None:
    repo = "/repo" if sandbox.isolated() else str(top)  # without a sandbox, where it is
    where = f"{repo}/{inside}" if inside else repo
    settings = [arg for setting in GIT_SETTINGS for arg in ("-c", setting)]
    argv = ["git", *settings, "-C", where, "log", "--no-show-signature"]
    argv += ["--format=%x00%ct", "--name-only", "--relative", "--no-renames", "--", "."]
    try:
        shown = sandbox.Toolchain(((str(top / ".git"), "/repo/.git"),), dirs=(where,))
        result = sandbox.run(argv, None, GIT_LIMITS, toolchain=shown)
    except (OSError, ValueError):
        log.debug("git could not run on %s", top, exc_info=True)
        return None
    if result.exit_code != 0 or result.output_exceeded:
        return None
    return parse_git_log(result.stdout.decode("utf-8", "surrogateescape"))


def _repository(archive: Path) -> tuple[Path, str] | None:
    """The work tree whose ``.git`` folder holds ``archive``'s history, and ``archive``'s path in it."""
    real = Path(os.path.realpath(archive))
    for top in (real, *real.parents):
        marker = top / ".git"
        if marker.is_dir() and not marker.is_symlink():
            inside = real.relative_to(top).as_posix()
            return top, "" if inside == "." else inside
        if marker.exists() or marker.is_symlink():
            return None  # a worktree's or submodule's .git file: its history lives elsewhere
    return None


def parse_git_log(text: str) -> dict[str, int]:
    dates: dict[str, int] = {}
    stamp = 0
    for line in text.splitlines():
        if line.startswith("\x00"):
            stamp = int(line[1:])
        elif line and line not in dates:
            dates[line] = stamp
    return dates


def _history_key(git: Path, inside: str) -> str | None:
    """What the dates of ``inside`` follow from: the commit ``HEAD`` names (and a shallow clone's
    boundary, which a fetch can move without moving ``HEAD``). None when it cannot be told without
    git: then git runs."""
    head = _small_file(git / "HEAD", 4096)
    if head is None:
        return None
    commit = head if _COMMIT.fullmatch(head) else None
    ref = _REF.fullmatch(head)
    if ref is not None and ".." not in ref[1].split("/"):
        commit = _small_file(git / ref[1], 4096)
        if commit is None:
            packed = _small_file(git / "packed-refs", PACKED_REFS_BYTES) or ""
            found = re.search(rf"^([0-9a-f]+) {re.escape(ref[1])}$", packed, re.MULTILINE)
            commit = found[1] if found else None
    if commit is None or not _COMMIT.fullmatch(commit):
        return None
    shallow = _small_file(git / "shallow", PACKED_REFS_BYTES)
    return json.dumps([str(git), inside, commit, shallow])


def _small_file(path: Path, limit: int) -> str | None:
    """A regular file's text, stripped, if it is no longer than ``limit`` (no link is followed)."""
    try:
        data = read_regular(path, limit + 1)
    except OSError:
        return None
    return data.decode("ascii", "replace").strip() if len(data) <= limit else None
