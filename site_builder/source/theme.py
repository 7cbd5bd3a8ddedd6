"""Where pages' templates and the site's static files come from: a theme, and an archive's overrides.

The default theme ships inside this package (``site_builder/theme``; in a checkout those are links
to the project's ``templates/`` and ``static/``). An archive changes single files of it without
copying the rest, as MkDocs' ``custom_dir`` does: ``overrides/templates/entry.html`` beside
``site.yaml`` replaces the theme's ``entry.html``, ``overrides/static/style.css`` its stylesheet, and
a new file in either is added. ``site.yaml`` may name another folder inside the archive
(``overrides: theme``).

Overrides are part of the archive, so they are read like the archive: a folder that leaves it, or
a link inside it, is refused; their templates run in Jinja's sandbox (see ``publish/pages``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..theme import PACKAGED

OVERRIDES = "overrides"  # the folder beside site.yaml, unless site.yaml names another


@dataclass(frozen=True, slots=True)
class Theme:
    """Folders searched in order, the archive's overrides first: a file found in an earlier one wins."""

    templates: tuple[Path, ...]
    static: tuple[Path, ...]
    overrides: Path | None = None  # the archive's overrides folder, if it has one

    def static_files(self) -> dict[str, Path]:
        """Every static file to publish, by its path under ``static/``."""
        files: dict[str, Path] = {}
        for folder in reversed(self.static):
            files.update(_files(folder))
        return dict(sorted(files.items()))

    def static_file(self, relative: str) -> Path | None:
        """The file published as ``static/<relative>`` (None: there is none)."""
        for folder in self.static:
            path = folder / relative
            if path.is_file() and not _linked(folder, path):
                return path
        return None

    def folders(self) -> tuple[Path, ...]:
        return (*self.templates, *self.static)

    def links(self) -> list[Path]:
        """The symbolic links in the overrides folder, which are not followed."""
        if self.overrides is None:
            return []
        found = []
        for top, dirs, names in os.walk(self.overrides):
            found += [Path(top, n) for n in (*dirs, *names) if os.path.islink(os.path.join(top, n))]
        return sorted(found)


def default_theme(root: Path) -> tuple[Path, Path]:
    """The theme's templates and static folders: the project's own ``templates/`` and ``static/``
    when ``root`` has them (this project's checkout, or a copy of the theme to change freely),
    else the theme packaged with the builder."""
    if (root / "templates").is_dir():
        return root / "templates", root / "static"
    return (PACKAGED / "templates").resolve(), (PACKAGED / "static").resolve()


def load_theme(templates: Path, static: Path, archive: Path, named: str, shown: str) -> Theme:
    """The theme with the archive's overrides over it. ``named``: the folder ``site.yaml`` names
    ("" for the default ``overrides``), ``shown``: how messages name site.yaml's folder."""
    folder = archive / (named or OVERRIDES)
    if not named and not folder.is_dir():
        return Theme((templates,), (static,))
    where = f"{shown}/site.yaml"
    if named and not folder.is_dir():
        message = f"overrides: folder {named!r} not found: {folder} (change overrides: in site.yaml)"
        raise ConfigError(where, None, message)
    real, inside = os.path.realpath(folder), os.path.realpath(archive)
    if folder.is_symlink() or os.path.commonpath([real, inside]) != inside:
        raise ConfigError(where, None, f"overrides: {named or OVERRIDES!r} must be a folder inside the archive")
    return Theme((folder / "templates", templates), (folder / "static", static), folder)


def _files(folder: Path) -> dict[str, Path]:
    """The regular files below ``folder`` by relative path; links are not followed (an archive's
    link could name any file of the machine)."""
    found: dict[str, Path] = {}
    if not folder.is_dir() or folder.is_symlink():
        return found
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(top, d)))
        for name in sorted(names):
            path = Path(top, name)
            if not name.startswith(".") and not path.is_symlink() and path.is_file():
                found[path.relative_to(folder).as_posix()] = path
    return found


def _linked(folder: Path, path: Path) -> bool:
    """Whether ``path`` below ``folder`` is, or lies below, a symbolic link."""
    for part in (path, *path.parents):
        if part == folder:
            return part.is_symlink()
        if part.is_symlink():
            return True
    return False


def theme_display(shown: str, folder: Path) -> str:
    """How messages name a folder of the theme, ``shown`` as the build shows paths: from the project
    root, or inside this package."""
    if Path(shown).is_absolute() and folder.is_relative_to(PACKAGED):
        return f"site_builder/theme/{folder.relative_to(PACKAGED).as_posix()}"
    return shown
