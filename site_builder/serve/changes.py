"""What a changed file means for the dev server: a pure, unit-tested classification."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..source.walk import is_ignored, is_unread

ENTRY_MARKERS = ("problem.yaml",)


class ChangeKind(enum.Enum):
    IGNORED = "ignored"  # editor backups, swap files, hidden files, the output folder itself
    ENTRY = "entry"  # a file inside one problem folder (write-up, statement, solver, asset)
    SAMPLE = "sample"  # a sample test of one problem folder
    TEMPLATE = "template"  # re-render every page; no re-parsing, no solver runs
    STATIC = "static"  # copy that one file
    CONFIG = "config"  # site.yaml: full rebuild
    UNKNOWN = "unknown"  # anything else under the archive: full rebuild


@dataclass(frozen=True, slots=True)
class Change:
    kind: ChangeKind
    path: str  # relative to the area it belongs to (archive, templates, static)
    entry: str | None = None  # the problem folder, relative to the archive, for ENTRY and SAMPLE


def ignored_path(relative: str) -> bool:
    """Whether no change to this path (inside a watched folder) can change the site: a hidden file
    no build reads, an editor's backup or swap file, or anything inside a hidden folder."""
    parts = PurePosixPath(relative).parts
    return not parts or any(is_ignored(p) for p in parts[:-1]) or is_unread(parts[-1])


def classify(area: str, relative: str, problem_folders: frozenset[str], overrides: str = "") -> Change:
    """Classify one changed path.

    ``area`` is "archive", "templates" or "static"; ``relative`` is the path inside it;
    ``problem_folders`` are the known problem folders (relative to the archive); ``overrides``: the
    archive's overrides folder the last build used, relative to the archive ("": none). A file in
    its ``templates/`` or ``static/`` is a template or static file like the theme's own; any other
    change to it (the folder itself, or one of those two, made or removed) rebuilds the site.
    """
    if ignored_path(relative):
        return Change(ChangeKind.IGNORED, relative)
    parts = PurePosixPath(relative).parts
    if area == "archive" and overrides and relative.startswith(overrides + "/"):
        below = relative[len(overrides) + 1 :]
        for kind, area_folder in ((ChangeKind.TEMPLATE, "templates/"), (ChangeKind.STATIC, "static/")):
            if below.startswith(area_folder):
                return Change(kind, below[len(area_folder) :])
        return Change(ChangeKind.UNKNOWN, relative)
    if area == "templates":
        return Change(ChangeKind.TEMPLATE, relative)
    if area == "static":
        return Change(ChangeKind.STATIC, relative)
    if relative == "site.yaml":
        return Change(ChangeKind.CONFIG, relative)
    folder = _owning_folder(parts, problem_folders)
    if folder is not None:
        inside = PurePosixPath(*parts[len(PurePosixPath(folder).parts) :]).as_posix()
        is_sample = inside.startswith(("samples/", "data/sample/"))
        return Change(ChangeKind.SAMPLE if is_sample else ChangeKind.ENTRY, relative, folder)
    name = parts[-1]
    if len(parts) >= 2 and (name in ENTRY_MARKERS or name.startswith("solution.")):
        return Change(ChangeKind.ENTRY, relative, PurePosixPath(*parts[:-1]).as_posix())  # a new problem folder
    return Change(ChangeKind.UNKNOWN, relative)


def _owning_folder(parts: tuple[str, ...], problem_folders: frozenset[str]) -> str | None:
    for depth in range(len(parts), 0, -1):
        candidate = PurePosixPath(*parts[:depth]).as_posix()
        if candidate in problem_folders:
            return candidate
    return "" if "" in problem_folders else None  # the archive is the problem folder (a package's repository)
