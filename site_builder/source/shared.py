"""TeX files outside a problem folder that its documents ``\\input``: a contest's shared template one
level up, or at the archive's top (Baltic OI and Kodsport keep them so). Pure: which paths of the
archive an entry's ``.tex`` files name; ``archive.py`` reads them, and only inside the archive.

TeX finds an ``\\input`` from the folder of the document it compiles, so each name is taken from the
folder of every ``.tex`` file of the entry (the document may be any of them) and of the file naming
it; the renderer then looks each up from its document's folder (``input_name``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable, Mapping

from ..model import EntrySource

INPUT = re.compile(r"\\(?:input|include)\s*\{([^{}]*)\}")
MAX_SHARED = 64  # files outside the folder one entry may read: a template and what it inputs


def input_name(name: str, folder: str) -> str | None:
    """The key in ``inputs`` of the file ``\\input{name}`` names: its path from the document's folder,
    normalised (``../common/t.tex``); None when it leads outside the archive (``folder``: the document's
    folder in the archive, "" when not known: then outside the document's own folder)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", name, re.I) or name.startswith(("/", "\\", "~")) or "\0" in name:
        return None
    joined = posixpath.normpath(posixpath.join(folder or ".", name.replace("\\", "/")))
    if joined == ".." or joined.startswith("../"):
        return None
    return posixpath.relpath(joined, folder) if folder else joined


def outside_names(texts: Iterable[str], folders: Iterable[str], entry: str) -> list[str]:
    """The paths, relative to the archive, that ``\\input`` names in ``texts`` reach from any of
    ``folders`` (relative to the archive) outside the problem folder ``entry`` (with and without
    ``.tex``), never outside the archive; in order, without repeats."""
    found: dict[str, None] = {}
    inside = entry + "/" if entry else ""  # "": the archive is the problem folder
    for text in texts:
        if "\\input" not in text and "\\include" not in text:
            continue
        for match in INPUT.finditer(text):
            for folder in folders:
                key = input_name(match.group(1).strip(), folder)
                if key is None or not key.startswith("../"):
                    continue
                path = posixpath.normpath(posixpath.join(folder, key))
                if not (path + "/").startswith(inside):
                    found.update({path: None, path + ".tex": None})
    return list(found)


def document_folders(entry: str, names: Iterable[str]) -> list[str]:
    """The folders, relative to the archive, of an entry's ``.tex`` files: where its documents may be."""
    return sorted(
        {posixpath.join(entry, name.rpartition("/")[0]).rstrip("/") for name in names if name.endswith(".tex")}
    )


def entries_reading(paths: Collection[str], sources: Mapping[str, EntrySource]) -> set[str]:
    """The entries (of ``sources``, by folder) that read one of ``paths`` (relative to the archive) from
    outside their folder: whose shared files hold it (a template at the contest's top, or a file of
    another problem folder), or, for a file its folder did not have when it was read (one just made),
    whose documents ``\\input`` it."""
    wanted = {p for p in paths if p.endswith(".tex") or "." not in posixpath.basename(p)}
    if not wanted:
        return set()
    found = {s.path for s in sources.values() if s.shared and not wanted.isdisjoint([f.name for f in s.shared])}
    made = {p for p in wanted if not _known(p, sources)}
    stems = {posixpath.basename(p).removesuffix(".tex") for p in made}  # what an \input of it must say
    for source in sources.values() if made else ():
        texts = [
            f.text
            for f in source.files
            if f.name.endswith(".tex") and f.text is not None and any(stem in f.text for stem in stems)
        ]
        folders = document_folders(source.path, [f.name for f in source.files]) if texts else []
        if texts and not made.isdisjoint(outside_names(texts, folders, source.path)):
            found.add(source.path)
    return found


def _known(path: str, sources: Mapping[str, EntrySource]) -> bool:
    """Whether ``path`` was a file of its problem folder when that was last read."""
    folder, _, name = path.rpartition("/")
    while folder and folder not in sources:
        folder, _, above = folder.rpartition("/")
        name = f"{above}/{name}"
    return bool(folder) and any(f.name == name for f in sources[folder].files)
