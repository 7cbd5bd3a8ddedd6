"""The walk of the archive: where the archive is, which folders are problem folders (and which look
like a problem of a format the builder does not read), which names are never part of it, how deep it
may go, and the builder's own folders it never enters. (Its stamp, what ``stat`` says of every file,
is ``stamp.py``'s.)"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Container, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from .cms import is_cms
from .paths import natural_key
from .polygon import is_polygon

T = TypeVar("T")

_BACKUP = re.compile(r"(~$|^\.|^#.*#$|\.sw[a-p]$|^4913$|\.tmp$|\.bak$)")


def is_ignored(name: str) -> bool:
    """Hidden files, editor backups and swap files are never part of the archive."""
    return bool(_BACKUP.search(name)) or name == "__pycache__"


READ_HIDDEN = frozenset({".timelimit"})  # hidden, but read: a legacy ICPC package's time limit


def is_unread(name: str) -> bool:
    """Whether no build reads a file of this name (``is_ignored``, but the hidden files read)."""
    return is_ignored(name) and name not in READ_HIDDEN


PACKAGE_FOLDERS = frozenset({"problem_statement", "statement", "submissions"})


class Skip:
    """The folders no walk of the archive enters: the output and cache folders (absolute paths), and those
    ``site.yaml``'s ``exclude`` names (``excluded``). ``folder in skip`` takes an absolute path. ``site``:
    the names at the archive's top that are the site's (``site.yaml``, the overrides folder), never files
    of the problem folder the archive is in a package's own repository."""

    def __init__(
        self,
        folders: frozenset[str],
        archive: str = "",
        exclude: tuple[str, ...] = (),
        site: frozenset[str] = frozenset(),
    ) -> None:
        self.folders, self.archive, self.exclude, self.site = folders, archive.rstrip("/"), exclude, site
        self._names = _any_of(tuple(p for p in exclude if "/" not in p))
        self._paths = _any_of(tuple(p.lstrip("/") for p in exclude if "/" in p))

    def __contains__(self, folder: object) -> bool:
        if folder in self.folders:
            return True
        if not self.exclude or not isinstance(folder, str) or not folder.startswith(self.archive + "/"):
            return False
        return excluded(folder[len(self.archive) + 1 :], self._names, self._paths)


def site_names(skip: Container[str]) -> frozenset[str]:
    """The names at the archive's top that are the site's, as ``skip`` says (see ``Skip``)."""
    return skip.site if isinstance(skip, Skip) else frozenset()


@lru_cache(maxsize=8)  # made for every build and every save the dev server takes
def _any_of(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None


def excluded(relative: str, names: re.Pattern[str] | None, paths: re.Pattern[str] | None) -> bool:
    """Whether ``exclude`` names a folder (its path from the archive's folder): a pattern without a
    ``/`` is matched against the folder's name, at any depth, and one with a ``/`` against its whole
    path, as ``.gitignore`` does; ``*`` of a path also matches a ``/``."""
    return bool((names and names.match(relative.rpartition("/")[2])) or (paths and paths.match(relative)))


def is_problem_folder(names: set[str], folders: set[str] | frozenset[str] = frozenset()) -> bool:
    """Our own problem folder (problem.yaml or a solution file), an ICPC problem package, a Polygon
    package (problem.xml) or a CMS task (task.yaml)."""
    if "problem.yaml" in names or any(n.startswith("solution.") for n in names):
        return True
    if is_polygon(names) or is_cms(names, folders):
        return True
    return bool(folders & PACKAGE_FOLDERS)


_NUMBERED_INPUT = re.compile(r"^(?:(\d+)\.in|I\.(\d+))$")


def unread_format(names: set[str], folders: set[str] | frozenset[str]) -> str:
    """The format a folder that is no problem folder of ours looks like a problem of, in words (one
    warning names it); "" when it looks like none."""
    if "info.toml" in names and ("task.md" in names or "sol" in folders):  # before CMS: it has sol/ and gen/
        return "a Library Checker problem (info.toml, task.md)"
    if "domjudge-problem.ini" in names:
        return "a DOMjudge problem (domjudge-problem.ini) without problem.yaml"
    if "statements" in folders and folders & {"tests", "solutions", "files", "statement-sections"}:
        return "a Polygon (Codeforces) package without problem.xml"
    if len(folders & {"sol", "gen", "att", "testo", "cor", "check"}) >= 2:
        return "a CMS task without task.yaml"
    for name in sorted(names):
        match = _NUMBERED_INPUT.match(name)
        number = match and (match.group(1) or match.group(2))
        if number and (f"{number}.out" in names or f"O.{number}" in names):
            return f"a USACO-style problem ({name} with its .out, and no problem.yaml)"
    return ""


def in_skipped(path: Path, skip: Container[str]) -> bool:
    """Whether ``path`` is a folder of ``skip`` or lies below one (``skip`` holds absolute paths)."""
    return str(path) in skip or any(str(above) in skip for above in path.parents)


def is_problem_dir(folder: Path, skip: Container[str] = frozenset(), listed: Listing | None = None) -> bool:
    """Whether ``folder`` on disk is a problem folder, as ``find_problem_folders`` decides (False when
    it is gone or is not a folder, or when it or a folder above it is one of ``skip``). ``listed``: the
    folders as listed just before (see ``Stamp``)."""
    if in_skipped(folder, skip):
        return False
    try:
        listing = [(e.name, _is_dir(e)) for e in _entries(str(folder), listed)]
    except OSError:
        return False
    files = {name for name, is_dir in listing if not is_dir}
    return is_problem_folder(files, {name for name, is_dir in listing if is_dir and not is_ignored(name)})


# A file the builder leaves in its output folder and its cache (``publish/output.py``,
# ``publish/lock.py``): a folder that holds it is never archive content, wherever it lies, so that
# an archive built into its own folder (``site/`` beside its tracks) never reads its site as a track.
BUILDER_MARKER = ".site-builder"


MARKER_TEXT = "Written by site-builder (its output or its cache): never read as part of an archive.\n"


def find_archive(root: Path, skip: frozenset[str] = frozenset()) -> Path:
    """The archive of the project folder ``root`` when none is named: ``root/archive`` where it is
    a folder; else ``root`` itself where it holds ``site.yaml`` or a problem folder (an archive
    repository, with its tracks at the top), or is one; else ``root/archive``, to be reported missing.
    ``skip``: the output and cache folders (absolute paths), never looked into."""
    nested = root / "archive"
    if nested.is_dir():
        return nested
    if (root / "site.yaml").is_file() or is_problem_dir(root) or holds_problem_folder(root, skip):
        return root  # (a problem folder itself: the build says what to do with one)
    return nested


def holds_problem_folder(folder: Path, skip: frozenset[str] = frozenset(), limit: int = 2000) -> bool:
    """Whether a problem folder lies below ``folder``, looked for breadth first in at most ``limit``
    folders (a home folder is not searched whole), past hidden and builder's folders."""
    return any(_found_below(folder, skip, limit, is_problem_folder))


def unread_below(folder: Path, skip: frozenset[str] = frozenset(), limit: int = 2000) -> tuple[int, str]:
    """How many folders below ``folder`` look like a problem of a format the builder does not read, and the
    format most of them look like, in words ((0, "") when none), looked for in at most ``limit`` folders:
    what to say when a folder holds no archive."""
    kinds: dict[str, int] = {}
    for kind in _found_below(folder, skip, limit, unread_format):
        kinds[kind] = kinds.get(kind, 0) + 1
    return sum(kinds.values()), max(kinds, key=lambda k: kinds[k], default="")


def _found_below(
    folder: Path, skip: frozenset[str], limit: int, found: Callable[[set[str], set[str]], T]
) -> Iterator[T]:
    """``found(files, folders)`` of each folder below ``folder`` where it is truthy (a folder so found is
    not looked into), breadth first, in at most ``limit`` folders, past hidden and builder's folders."""
    pending = [str(folder)]
    for top in pending:
        if len(pending) > limit:
            return
        try:
            with os.scandir(top) as scan:
                kinds = [(e, _is_dir(e)) for e in scan]
        except OSError:
            continue
        files = {e.name for e, is_dir in kinds if not is_dir}
        if BUILDER_MARKER in files:
            continue
        dirs = [e for e, is_dir in kinds if is_dir and not is_ignored(e.name) and not e.is_symlink()]
        if top != str(folder) and (value := found(files, {e.name for e in dirs})):
            yield value
            continue
        pending += [e.path for e in dirs if e.path not in skip]


def in_builder_folder(archive: Path, relative: str) -> bool:
    """Whether ``relative`` (a path inside ``archive``) lies in a folder that holds the ``BUILDER_MARKER``:
    an output or cache folder, whose changes are none of the archive's."""
    folder = archive
    for part in relative.split("/")[:-1]:
        folder = folder / part
        if (folder / BUILDER_MARKER).is_file():
            return True
    return False


def work_tree(path: Path) -> Path | None:
    """The top of the git work tree that holds ``path``: the nearest folder with a ``.git`` (a folder,
    or a worktree's or submodule's file), found without running git; None outside any."""
    real = Path(os.path.realpath(path))
    return next((top for top in (real, *real.parents) if os.path.lexists(top / ".git")), None)


Listing = dict[str, list[os.DirEntry[str]]]  # folders as listed: every entry, in order of name


# How deep and how long a path in the archive may be (components, and UTF-8 bytes): deeper ones
# are refused with an error, before they reach the system's PATH_MAX or anything recursive.
MAX_DEPTH = 32


MAX_PATH_BYTES = 1024


def too_deep(rel: str) -> str:
    """Why a path relative to the archive is too deep or long to publish ("" when it is not)."""
    if rel.count("/") >= MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} folders"
    if len(rel.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        return f"its path is longer than {MAX_PATH_BYTES} bytes"
    return ""


def find_problem_folders(
    archive: Path,
    listing: Listing | None = None,
    deep: list[str] | None = None,
    skip: Container[str] = frozenset(),
    unread: list[tuple[str, str]] | None = None,
) -> list[Path]:
    """Every problem folder below ``archive``, in a stable order, or ``archive`` alone when it is one (a
    package's own repository). Does not descend into one, nor into a symbolic link, nor into a folder
    of ``skip`` (the build's output and cache, as absolute paths, and the folders ``site.yaml``
    excludes: see ``Skip``) or one that holds the ``BUILDER_MARKER``. ``listing``: the folders as
    listed just before (see ``Stamp``); ``deep`` gets each folder (relative to ``archive``) not
    entered because it is ``too_deep``; ``unread`` each folder that looks like a problem of a format
    the builder does not read, with that format in words (not entered either)."""
    found: list[Path] = []
    pending = [str(archive)]
    root = len(str(archive)) + 1
    while pending:
        top = pending.pop()
        if top in skip:
            continue
        if len(top) > root and too_deep(top[root:] + "/x"):
            if deep is not None:
                deep.append(top[root:])
            continue
        try:
            entries = _entries(top, listing)
        except OSError:
            continue
        kinds = [(e, _is_dir(e)) for e in entries]
        files = {e.name for e, is_dir in kinds if not is_dir}
        if BUILDER_MARKER in files:
            continue
        dirs = sorted((e for e, is_dir in kinds if is_dir and not is_ignored(e.name)), key=_natural_name)
        if top == str(archive) and is_problem_folder(files, {e.name for e in dirs}):
            return [archive]  # a package's own repository: the archive is its one problem folder
        if top != str(archive) and is_problem_folder(files, {e.name for e in dirs}):
            found.append(Path(top))
            continue
        if top != str(archive) and (kind := unread_format(files, {e.name for e in dirs})):
            if unread is not None:
                unread.append((top[root:], kind))
            continue
        pending += [e.path for e in reversed(dirs) if not e.is_symlink()]
    return found


def _entries(folder: str, listing: Listing | None) -> list[os.DirEntry[str]]:
    """The entries of ``folder``: from ``listing`` where it has them, else listed now (OSError when
    the folder cannot be listed)."""
    if listing is not None and folder in listing:
        return listing[folder]
    with os.scandir(folder) as scan:
        return list(scan)


def _natural_name(entry: os.DirEntry[str]) -> tuple[tuple[int, int | str], ...]:
    return natural_key(entry.name)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether the entry is a folder or a link to one (as ``os.walk`` decides)."""
    try:
        return entry.is_dir()
    except OSError:
        return False
