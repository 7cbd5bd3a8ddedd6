"""Walks ``archive/``, reads problem folders, and builds ``EntrySource`` values.

``load_*`` functions read the disk; ``parse_*``/``infer_*`` functions interpret values.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import Diagnostic, MetadataError, SiteError
from ..model import MAX_TEXT_BYTES, MISSING_WRITEUP, PACKAGE_NAMES, EntrySource, Layout, Metadata, Sample, SourceFile
from .cms import is_cms
from .foreign import load_cms, load_polygon
from .gitdates import load_git_dates
from .layout import native_layout, package_layout, package_validator
from .metadata import metadata_from_mapping, positive_number, slow_time_limit, time_limit_problem
from .package import is_package, parse_package_metadata, subtasks
from .polygon import is_polygon
from .shared import MAX_SHARED, document_folders, outside_names
from .snapshot import Signature, Snapshot, file_signature
from .yamlfile import Memo, parse_yaml_mapping

log = logging.getLogger(__name__)

SAMPLE_DIRS = ("samples", "data/sample")
MiB = 1024 * 1024
MAX_FILE_BYTES = 256 * MiB  # larger files are not published (nor read: a 5 GB sparse file reads as zeros)
_LABELLED = re.compile(r"^([A-Z]{1,2}[0-9]{0,2})[-_ ](.+)$")
_YEAR = re.compile(r"^(19|20)[0-9]{2}$")
_SAFE_PART = re.compile(r"^[A-Za-z0-9._-]+$")
_BACKUP = re.compile(r"(~$|^\.|^#.*#$|\.sw[a-p]$|^4913$|\.tmp$|\.bak$)")


@dataclass(frozen=True, slots=True)
class FolderName:
    label: str | None
    title: str


def is_ignored(name: str) -> bool:
    """Hidden files, editor backups and swap files are never part of the archive."""
    return bool(_BACKUP.search(name)) or name == "__pycache__"


PACKAGE_FOLDERS = frozenset({"problem_statement", "statement", "submissions"})


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


def is_problem_dir(folder: Path) -> bool:
    """Whether ``folder`` on disk is a problem folder, as ``find_problem_folders`` decides (False when
    it is gone or is not a folder)."""
    try:
        with os.scandir(folder) as scan:
            listing = [(e.name, e.is_dir()) for e in scan]
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
    repository, with its tracks at the top); else ``root/archive``, to be reported missing.
    ``skip``: the output and cache folders (absolute paths), never looked into."""
    nested = root / "archive"
    if nested.is_dir():
        return nested
    if (root / "site.yaml").is_file() or holds_problem_folder(root, skip):
        return root
    return nested


def holds_problem_folder(folder: Path, skip: frozenset[str] = frozenset(), limit: int = 2000) -> bool:
    """Whether a problem folder lies below ``folder``, looked for breadth first in at most ``limit``
    folders (a home folder is not searched whole), past hidden and builder's folders."""
    pending = [str(folder)]
    for top in pending:
        if len(pending) > limit:
            return False
        try:
            with os.scandir(top) as scan:
                kinds = [(e, _is_dir(e)) for e in scan]
        except OSError:
            continue
        files = {e.name for e, is_dir in kinds if not is_dir}
        if BUILDER_MARKER in files:
            continue
        dirs = [e for e, is_dir in kinds if is_dir and not is_ignored(e.name) and not e.is_symlink()]
        if top != str(folder) and is_problem_folder(files, {e.name for e in dirs}):
            return True
        pending += [e.path for e in dirs if e.path not in skip]
    return False


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


def infer_folder_name(name: str) -> FolderName:
    """``X-quartets`` -> label X, title "Quartets"; ``bridge-inspection`` -> "Bridge Inspection"."""
    match = _LABELLED.match(name)
    label, rest = (match.group(1), match.group(2)) if match else (None, name)
    words = [w for w in re.split(r"[-_ ]+", rest) if w]
    title = " ".join(w if any(c.isupper() for c in w) else w.capitalize() for w in words)
    return FolderName(label=label, title=title or name)


def infer_year(groups: tuple[str, ...]) -> int | None:
    for group in reversed(groups):
        if _YEAR.match(group):
            return int(group)
    return None


@lru_cache(maxsize=65536)
def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders "2" before "10"; names that differ only in case keep one fixed order."""
    parts = tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in re.split(r"(\d+)", text) if p)
    return (*parts, (2, text))


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
    skip: frozenset[str] = frozenset(),
    unread: list[tuple[str, str]] | None = None,
) -> list[Path]:
    """Every problem folder below ``archive``, in a stable order. Does not descend into one, nor
    into a symbolic link, nor into a folder of ``skip`` (the build's output and cache, as absolute
    paths) or one that holds the ``BUILDER_MARKER``. ``listing``: the folders as listed just before
    (see ``Stamp``); ``deep`` gets each folder (relative to ``archive``) not entered because it is
    ``too_deep``; ``unread`` each folder that looks like a problem of a format the builder does not read,
    with that format in words (not entered either)."""
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


@dataclass(frozen=True, slots=True)
class Stamp:
    """What ``stat`` says about every file of an archive (path, size, times, inode), as one digest."""

    digest: str
    newest_ns: int  # the latest modification or status-change time of any file
    # The folders as listed for the stamp: loading the archive right after need not list them again.
    listing: Listing = field(default_factory=dict, compare=False, repr=False)


def load_stamp(archive: Path, skip: frozenset[str] = frozenset()) -> Stamp:
    """The archive's stamp, from its folders and ``stat`` alone: no file is read.

    A file cannot change without changing its stamp (a rewrite sets the change time, which no
    program can set back), except within one tick of the file system's clock: a stamp only vouches
    for files whose times are older than that (see ``newest_ns``). The folders ``find_problem_folders``
    does not enter (``skip``, and those with the ``BUILDER_MARKER``) are not stamped either."""
    lines: list[str] = []
    newest = 0
    listing: Listing = {}
    pending = [str(archive)]
    while pending:
        folder = pending.pop()
        if folder in skip:
            lines.append(f"{folder}\0skipped")
            continue
        try:
            with os.scandir(folder) as scan:
                found = listing[folder] = sorted(scan, key=lambda e: e.name)
        except OSError as e:
            lines.append(f"{folder}\0{e.errno}")
            continue
        if any(entry.name == BUILDER_MARKER for entry in found):
            lines.append(f"{folder}\0{BUILDER_MARKER}")
            continue
        for entry in found:
            if is_ignored(entry.name) and entry.name != ".timelimit":  # packages' .timelimit is read
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
                lines.append(entry.path + "/")
                continue
            try:
                info = entry.stat()
            except OSError as e:
                lines.append(f"{entry.path}\0{e.errno}")
                continue
            lines.append(f"{entry.path}\0{file_signature(info)}")
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    digest = hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()
    return Stamp(digest, newest, listing)


def load_entry(
    folder: Path,
    archive: Path,
    prefix: str,
    git_dates: dict[str, int],
    memo: Memo | None = None,
    real_archive: str | None = None,
    snapshot: Snapshot | None = None,
    listed: Listing | None = None,
) -> EntrySource:
    """One problem folder; ``real_archive`` is ``archive`` with symbolic links resolved, when known;
    ``snapshot``: folders loaded before, taken from there while ``stat`` says the same of them;
    ``listed``: folders listed just before (see ``Stamp``)."""
    rel = os.path.relpath(folder, archive).replace(os.sep, "/")
    where = f"{prefix}/{rel}" if prefix else rel
    diagnostics: list[Diagnostic] = []
    listing = _list_files(folder, real_archive or os.path.realpath(archive), where, diagnostics, listed, rel)
    timelimit = _timelimit_stat(folder, listed)
    signature = (
        prefix,
        tuple((name, file_signature(info)) for name, _, info in listing),
        tuple(git_dates.get(f"{rel}/{name}") for name, _, _ in listing),
        file_signature(timelimit) if timelimit else None,
        repr(diagnostics),
    )
    key = str(folder)
    real = real_archive or os.path.realpath(archive)
    if snapshot is not None and (known := snapshot.get(key, signature)) is not None:
        return _with_shared(known, archive, real)
    digests = _unchanged_digests(snapshot.previous(key) if snapshot is not None else None, signature[1])
    source = _load_entry(folder, rel, prefix, where, listing, diagnostics, git_dates, memo, digests)
    if snapshot is not None:
        stats = [info for _, _, info in listing] + ([timelimit] if timelimit else [])
        snapshot.remember(key, signature, stats, source)
    return _with_shared(source, archive, real)


def _with_shared(source: EntrySource, archive: Path, real_archive: str) -> EntrySource:
    """``source`` with the .tex files outside its folder that its documents ``\\input`` (``shared.py``),
    read now, each time (no file of the folder says when they change), and from inside the archive only."""
    texts = [f.text for f in source.files if f.name.endswith(".tex") and f.text is not None]
    folders = document_folders(source.path, [f.name for f in source.files])
    pending = outside_names(texts, folders, source.path)
    read: dict[str, SourceFile] = {}
    diagnostics: list[Diagnostic] = []
    while pending and len(read) < MAX_SHARED:
        name = pending.pop(0)
        if name in read or (item := _load_shared(archive, real_archive, name, source, diagnostics)) is None:
            continue
        read[name] = item
        pending += outside_names([item.text or ""], folders, source.path)
    if not read and not diagnostics:
        return source
    return replace(source, shared=tuple(read.values()), diagnostics=(*source.diagnostics, *diagnostics))


def _load_shared(
    archive: Path, real_archive: str, name: str, source: EntrySource, diagnostics: list[Diagnostic]
) -> SourceFile | None:
    """One file outside the entry's folder that it inputs (None when there is none by that name); a
    symbolic link that leads out of the archive is not followed (a warning)."""
    path = os.path.join(archive, *name.split("/"))
    shown = f"{source.archive_prefix}/{name}" if source.archive_prefix else name
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or any(is_ignored(part) for part in name.split("/")):
        return None
    real = os.path.realpath(path)
    if not real.startswith(real_archive.rstrip(os.sep) + os.sep):
        message = f"{source.path} inputs it, but it is a symbolic link leading out of the archive; not read"
        diagnostics.append(Diagnostic(shown, 0, message, "warning"))
        return None
    return _load_file(real, info.st_size, name, shown, diagnostics)


def _unchanged_digests(
    previous: tuple[Signature, EntrySource] | None, stats: tuple[tuple[str, object], ...]
) -> dict[str, str]:
    """The digests of the test data files that ``stat`` says are as the folder's last load found
    them: a changed statement does not hash a package's gigabytes of data again."""
    if previous is None:
        return {}
    before = dict(previous[0][1]) if isinstance(previous[0][1], tuple) else {}
    now = dict(stats)
    return {
        f.name: f.digest for f in previous[1].files if hashed_only(f.name) and before.get(f.name) == now.get(f.name)
    }


def _timelimit_stat(folder: Path, listed: Listing | None) -> os.stat_result | None:
    """What ``stat`` says of the folder's ``.timelimit``, if it has one."""
    try:
        found = next((e for e in _entries(str(folder), listed) if e.name == ".timelimit"), None)
        return found.stat() if found is not None else None
    except OSError:
        return None


def _load_entry(
    folder: Path,
    rel: str,
    prefix: str,
    where: str,
    listing: list[tuple[str, str, os.stat_result]],
    diagnostics: list[Diagnostic],
    git_dates: dict[str, int],
    memo: Memo | None,
    digests: dict[str, str],
) -> EntrySource:
    parts = tuple(rel.split("/"))
    names = infer_folder_name(parts[-1])
    files, newest = _load_files(listing, where, diagnostics, git_dates, rel, digests)
    file_names = [f.name for f in files]
    if "problem.yaml" not in file_names and is_polygon(set(file_names)):
        meta, layout, samples = load_polygon(files, folder, where, diagnostics, hashed_only)
    elif "problem.yaml" not in file_names and is_cms(set(file_names), {n.split("/")[0] for n in file_names}):
        meta, layout, samples = load_cms(files, folder, where, diagnostics, hashed_only, memo)
    else:
        meta = _load_metadata(files, where, diagnostics, memo)
        if meta.package is not None and meta.time_limit is None:
            meta = replace(meta, time_limit=_load_timelimit(folder, where, diagnostics))
        samples = _load_samples(files, where, diagnostics)
        known = meta.package is not None
        layout = package_layout(file_names, meta, bool(samples)) if known else native_layout(file_names)
    if meta.package is not None:
        diagnostics += _package_notes(layout, meta, file_names, where)
    updated = datetime.fromtimestamp(newest, UTC).date().isoformat()
    return EntrySource(
        path=rel,
        slug=url_slug(rel),
        archive_prefix=prefix,
        track=parts[0],
        groups=parts[1:-1],
        folder_label=names.label,
        folder_title=names.title,
        folder_year=infer_year(parts[1:-1]),
        meta=meta,
        files=tuple(files),
        samples=tuple(samples),
        updated=updated,
        diagnostics=tuple(diagnostics),
        layout=layout,
    )


def _package_notes(layout: Layout, meta: Metadata, names: list[str], where: str) -> list[Diagnostic]:
    kind = PACKAGE_NAMES.get(meta.package or "", "problem package")
    lacks = [part for part in layout.missing if part != MISSING_WRITEUP]  # most packages have none: counted once
    notes = [Diagnostic(where, 0, f"{kind} lacks {part}", "warning") for part in lacks]
    unused = package_validator(names) if kind == "problem package" else None
    if meta.validation == "default" and unused is not None:
        message = f"{unused.folder}/ is not used: problem.yaml says validation: default"
        notes.append(Diagnostic(f"{where}/problem.yaml", 0, message, "warning"))
    return notes


def _load_timelimit(folder: Path, where: str, diagnostics: list[Diagnostic]) -> float | None:
    """The ``.timelimit`` file DOMjudge and BAPCtools read (seconds), when a package has one."""
    try:
        text = (folder / ".timelimit").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    problem = time_limit_problem(text[:40])
    if problem:
        diagnostics.append(Diagnostic(f"{where}/.timelimit", 1, f"the time limit {problem}"))
        return None
    number = positive_number(text)
    diagnostics += slow_time_limit(f"{where}/.timelimit", 1, number)
    return number


def load_archive(
    archive: Path,
    prefix: str,
    git_dates: dict[str, int] | None = None,
    memo: Memo | None = None,
    snapshot: Snapshot | None = None,
    listed: Listing | None = None,
    skip: frozenset[str] = frozenset(),
) -> tuple[list[EntrySource], list[Diagnostic]]:
    """Load every problem folder. Errors in one folder are recorded on that entry.

    ``memo``: YAML files already parsed, by content (see ``yamlfile``); ``snapshot``: folders
    loaded before; ``listed``: folders listed just before (see ``Stamp``); ``skip``: the build's
    output and cache folders (see ``find_problem_folders``)."""
    if not archive.is_dir():
        raise MetadataError(prefix or str(archive), None, missing_archive(archive))
    if git_dates is None:
        git_dates = load_git_dates(archive)
    entries: list[EntrySource] = []
    problems: list[Diagnostic] = []
    real_archive = os.path.realpath(archive)
    refused: set[str] = set()
    deep: list[str] = []
    unread: list[tuple[str, str]] = []
    folders = find_problem_folders(archive, listed, deep, skip, unread)
    for rel in deep:
        message = f"{too_deep(rel + '/x')}: nothing below it is read (move the problem folders up)"
        problems.append(Diagnostic(f"{prefix}/{rel}", 0, message))
    for rel, kind in unread:
        message = f"this folder looks like {kind}, a format the builder does not read; not published"
        problems.append(Diagnostic(f"{prefix}/{rel}", 0, message, "warning"))
    for folder in folders:
        rel = folder.relative_to(archive).as_posix()
        if where := reserved_folder(rel):
            if where not in refused:
                refused.add(where)
                name = where.rsplit("/", 1)[-1]
                shown = repr(name) if _slug_part(name) == name else f"{name!r} (in URLs {_slug_part(name)!r})"
                message = f"the name {shown} is the site's own; rename the folder (nothing in it is published or run)"
                problems.append(Diagnostic(f"{prefix}/{where}", 0, message))
            continue
        if folder.parent == archive:
            problems.append(
                Diagnostic(
                    f"{prefix}/{rel}", 0, "a problem folder must sit inside a track folder (archive/<track>/...)"
                )
            )
            continue
        entries.append(load_entry(folder, archive, prefix, git_dates, memo, real_archive, snapshot, listed))
    return unique_slugs(entries), problems


def missing_archive(archive: Path) -> str:
    """What to say when the archive folder is not there: where it was looked for, and how to name another."""
    return (
        f"archive folder not found: {archive} (set --archive, or run in the archive's folder;"
        " `site-builder init` starts a new one)"
    )


# The site's own files at its top, whose names no track folder may take (compared without case:
# a static host may not tell them apart), and the name of every folder's page.
RESERVED_TOP = frozenset(
    {"index.html", "404.html", "static", "pagefind", "tags", "sitemap.xml", "verification.json", "feed.xml"}
)
PAGE = "index.html"


def reserved_folder(rel: str) -> str:
    """The folder on a problem folder's path whose name a page or file of the site's own needs:
    the path up to it ("" if none)."""
    parts = rel.split("/")
    for index, part in enumerate(parts):
        names = {part.lower(), _slug_part(part).lower()}  # as a folder, and as its URL
        if PAGE in names or (index == 0 and names & RESERVED_TOP):
            return "/".join(parts[: index + 1])
    return ""


@lru_cache(maxsize=65536)  # the dev server sorts every entry by it on each save
def walk_order(path: str) -> tuple[tuple[tuple[int, int | str], ...], ...]:
    """Sort key of a problem folder's path: the order ``find_problem_folders`` finds them in."""
    return tuple(natural_key(part) for part in path.split("/"))


def url_slug(path: str) -> str:
    """The URL of a problem folder: each part kept where it is URL-safe, letters folded to ASCII,
    anything else a hyphen ("A-Über Brücke" -> "A-Uber-Brucke"); stable, so links keep working."""
    return "/".join(_slug_part(part) for part in path.split("/"))


def _slug_part(part: str) -> str:
    if _SAFE_PART.match(part):
        return part
    folded = unicodedata.normalize("NFKD", part).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", folded).strip("-.")
    return slug or "x-" + hashlib.sha1(part.encode()).hexdigest()[:8]


def unique_slugs(entries: list[EntrySource]) -> list[EntrySource]:
    """Two folders whose URLs would be the same (also when they differ only in case): an error on the
    second (in ``walk_order``), which gets a numbered URL so that both are still published."""
    taken: dict[str, EntrySource] = {}
    result = []
    for entry in entries:
        slug, n = entry.slug, 1
        while slug.lower() in taken:
            n += 1
            slug = f"{entry.slug}-{n}"
        if n > 1:
            first = taken[entry.slug.lower()]
            message = f"this folder's URL {entry.slug}/ is already {first.display_path()}'s; rename one of them"
            problem = Diagnostic(entry.display_path(), 0, message)
            entry = replace(entry, slug=slug, diagnostics=(*entry.diagnostics, problem))
        taken[slug.lower()] = entry
        result.append(entry)
    return result


def _list_files(
    folder: Path,
    root: str,
    where: str,
    diagnostics: list[Diagnostic],
    listed: Listing | None = None,
    rel_root: str = "",
) -> list[tuple[str, str, os.stat_result]]:
    """Every file of a problem folder (files first, then subfolders, in natural order): its name in
    the folder, its path, and what ``stat`` says of it. ``root``: the archive folder with symbolic
    links resolved; links may not lead out of it."""
    listing = []
    pending = [("", str(folder))]
    while pending:
        prefix, directory = pending.pop(0)
        found = sorted((e for e in _entries(directory, listed) if not is_ignored(e.name)), key=_natural_name)
        subfolders = []
        for entry in found:
            rel = prefix + entry.name
            if deep := too_deep(f"{rel_root}/{rel}"):
                diagnostics.append(Diagnostic(f"{where}/{rel}", 0, f"{deep}; not published"))
                continue
            if entry.is_dir(follow_symlinks=False):
                subfolders.append((rel + "/", entry.path))
                continue
            if entry.is_symlink() and not os.path.realpath(entry.path).startswith(root + os.sep):
                diagnostics.append(
                    Diagnostic(f"{where}/{rel}", 0, "symbolic link leads outside the archive; not published")
                )
                continue
            try:
                if entry.is_file():
                    listing.append((rel, entry.path, entry.stat()))
            except OSError as e:  # a link in a loop, or a file gone meanwhile
                diagnostics.append(Diagnostic(f"{where}/{rel}", 0, f"cannot read it: {e.strerror}; not published"))
        pending[0:0] = subfolders
    return listing


def _load_files(
    listing: list[tuple[str, str, os.stat_result]],
    where: str,
    diagnostics: list[Diagnostic],
    git_dates: dict[str, int],
    rel_root: str,
    digests: dict[str, str],
) -> tuple[list[SourceFile], int]:
    """The listed files, read (test data only hashed, or its digest taken from ``digests``), and
    the newest date among them (git's, else the modification time)."""
    files: list[SourceFile] = []
    newest = 0
    for rel, path, info in listing:
        if hashed_only(rel):
            item = _load_test_data(path, info.st_size, rel, f"{where}/{rel}", diagnostics, digests.get(rel))
        else:
            item = _load_file(path, info.st_size, rel, f"{where}/{rel}", diagnostics)
        if item is not None:
            files.append(item)
            stamp = git_dates.get(f"{rel_root}/{rel}")
            newest = max(newest, stamp if stamp is not None else int(info.st_mtime))
    return files, newest


def _read_bytes(path: str, size: int) -> bytes:
    """A whole file of ``size`` bytes (as ``stat`` said), with plain system calls.

    A buffered file object costs more than the read itself, and so does a large read buffer: it is
    allocated fresh for every call. One read of ``size + 1`` bytes finds a file that is as ``stat``
    said; one that grew or shrank meanwhile is read on to its end."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(fd, size + 1)
        if len(data) == size:
            return data
        chunks, total = [data], len(data)
        while total <= MAX_TEXT_BYTES and (chunk := os.read(fd, 1 << 16)):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _digest_file(path: str) -> tuple[str, int]:
    """The SHA-1 and size of a file too large to hold as text, read a piece at a time."""
    digest = hashlib.sha1()
    size = 0
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise OSError(errno.EFBIG, "it grew while being read")
    finally:
        os.close(fd)
    return digest.hexdigest(), size


TEST_DATA = "test data: published as it is, shown on no page"


def _load_test_data(
    path: str, size: int, rel: str, shown: str, diagnostics: list[Diagnostic], known: str | None
) -> SourceFile | None:
    """A test data file, never read whole: hashed a piece at a time (``known``: its digest, when
    ``stat`` says it is unchanged since it was last hashed)."""
    if _over_limit(size, shown, diagnostics):
        return None
    if known is not None:
        return SourceFile(name=rel, text=None, size=size, digest=known, binary=TEST_DATA)
    try:
        digest, size = _digest_file(path)
    except OSError as e:
        diagnostics.append(Diagnostic(shown, 0, f"cannot read: {e.strerror}"))
        return None
    return SourceFile(name=rel, text=None, size=size, digest=digest, binary=TEST_DATA)


def _over_limit(size: int, shown: str, diagnostics: list[Diagnostic]) -> bool:
    if size <= MAX_FILE_BYTES:
        return False
    message = f"{size / MiB:.0f} MiB is over the {MAX_FILE_BYTES // MiB} MiB limit for a file; not published"
    diagnostics.append(Diagnostic(shown, 0, message, "warning"))
    return True


def _load_file(path: str, size: int, rel: str, shown: str, diagnostics: list[Diagnostic]) -> SourceFile | None:
    if _over_limit(size, shown, diagnostics):
        return None
    try:
        if size > MAX_TEXT_BYTES:
            digest, size = _digest_file(path)
            why = f"{size / MiB:.1f} MiB is over the {MAX_TEXT_BYTES // MiB} MiB limit for text the site shows"
            return SourceFile(name=rel, text=None, size=size, digest=digest, binary=why)
        data = _read_bytes(path, size)
    except OSError as e:
        diagnostics.append(Diagnostic(shown, 0, f"cannot read: {e.strerror}"))
        return None
    digest = hashlib.sha1(data).hexdigest()
    if len(data) > MAX_TEXT_BYTES:  # it grew since ``stat``
        why = f"{len(data) / MiB:.1f} MiB is over the {MAX_TEXT_BYTES // MiB} MiB limit for text the site shows"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why)
    if (nul := data.find(b"\x00", 0, 8192)) >= 0:
        why = f"binary data (a NUL byte at offset {nul}), not text"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if _is_text_name(rel) and not is_test_data(rel):
            line = data.count(b"\n", 0, e.start) + 1
            diagnostics.append(
                Diagnostic(shown, line, f"not valid UTF-8 (byte offset {e.start}); save the file as UTF-8")
            )
        why = f"not valid UTF-8 (byte offset {e.start})"
        return SourceFile(name=rel, text=None, size=len(data), digest=digest, binary=why)
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return SourceFile(name=rel, text=text, size=len(data), digest=digest)


_OTHER_TESTS = re.compile(r"^(tests/\d+(\.a)?|input/input\d+\.txt|output/output\d+\.txt)$")


def is_test_data(rel: str) -> bool:
    """A package's test data other than its samples (``data/secret``, ``data/bad``...; a Polygon
    package's ``tests/01``, ``tests/01.a``; a CMS task's ``input/input0.txt``, ``output/output0.txt``):
    shown on no page, so invalid UTF-8 there (often on purpose) is no one's mistake; published only
    when ``site.yaml`` says ``publish_data: all``."""
    return (rel.startswith("data/") and not rel.startswith("data/sample/")) or bool(_OTHER_TESTS.match(rel))


def is_sample_file(rel: str) -> bool:
    return rel.startswith(tuple(f"{folder}/" for folder in SAMPLE_DIRS))


def hashed_only(rel: str) -> bool:
    """A file of a problem folder that the builder never reads whole: test data other than the YAML
    files that describe its groups. Its bytes may be gigabytes."""
    return is_test_data(rel) and not rel.endswith((".yaml", ".yml"))


_TEXT_SUFFIXES = {
    ".tex",
    ".md",
    ".txt",
    ".py",
    ".cpp",
    ".cc",
    ".c",
    ".h",
    ".java",
    ".yaml",
    ".yml",
    ".in",
    ".ans",
    ".out",
}


def _is_text_name(name: str) -> bool:
    return Path(name).suffix.lower() in _TEXT_SUFFIXES


def _load_metadata(
    files: list[SourceFile], where: str, diagnostics: list[Diagnostic], memo: Memo | None = None
) -> Metadata:
    """Our own ``problem.yaml``, or a problem package's (with its ``data/test_group.yaml``)."""
    item = next((f for f in files if f.name == "problem.yaml"), None)
    names = {f.name for f in files}
    path = f"{where}/problem.yaml"
    try:
        data, lines = parse_yaml_mapping(item.text, path, MetadataError, memo) if item and item.text else ({}, {})
        if not is_package(names, set(data)):
            meta, warnings = metadata_from_mapping(data, lines, path)
        else:
            meta, warnings = parse_package_metadata(data, lines, path, _load_test_group(files, where))
            if meta.scoring:
                meta = replace(meta, subtasks=subtasks(_load_groups(files, where, diagnostics)))
    except SiteError as e:
        diagnostics.append(e.diagnostic())
        return Metadata(package="legacy") if is_package(names, set()) else Metadata()
    diagnostics.extend(warnings)
    return meta


TEST_GROUP_FILES = ("data/test_group.yaml", "data/sample/test_group.yaml", "data/testdata.yaml")


def _load_test_group(files: list[SourceFile], where: str) -> tuple[dict[str, Any], str] | None:
    item = next((f for name in TEST_GROUP_FILES for f in files if f.name == name), None)
    if item is None or item.text is None:
        return None
    path = f"{where}/{item.name}"
    return parse_yaml_mapping(item.text, path, MetadataError)[0], path


_GROUP_FILES = ("test_group.yaml", "testdata.yaml")


def _load_groups(
    files: list[SourceFile], where: str, diagnostics: list[Diagnostic]
) -> list[tuple[str, dict[str, Any]]]:
    """The test groups of ``data/secret/``: each folder in it, with its ``test_group.yaml`` (legacy:
    ``testdata.yaml``) read (empty without one; a broken one is an error, and read as empty)."""
    folders = sorted(
        {f.name.split("/")[2] for f in files if f.name.startswith("data/secret/") and f.name.count("/") >= 3},
        key=natural_key,
    )
    groups = []
    for folder in folders:
        item = next((f for n in _GROUP_FILES for f in files if f.name == f"data/secret/{folder}/{n}"), None)
        settings: dict[str, Any] = {}
        if item is not None and item.text is not None:
            try:
                settings = parse_yaml_mapping(item.text, f"{where}/{item.name}", MetadataError)[0]
            except SiteError as e:
                diagnostics.append(e.diagnostic())
        groups.append((folder, settings))
    return groups


def _load_samples(files: list[SourceFile], where: str, diagnostics: list[Diagnostic]) -> list[Sample]:
    by_name = {f.name: f for f in files}
    samples: list[Sample] = []
    for folder in SAMPLE_DIRS:
        stems = sorted(
            {
                n[len(folder) + 1 :].rsplit(".", 1)[0]
                for n in by_name
                if n.startswith(folder + "/")
                and n.rsplit(".", 1)[-1] in ("in", "ans", "out", "interaction")
                and n.count("/") == folder.count("/") + 1
            },
            key=natural_key,
        )
        for stem in stems:
            sample = _pair(by_name, folder, stem, where, diagnostics)
            if sample is not None:
                samples.append(sample)
    return samples


def _pair(
    by_name: dict[str, SourceFile], folder: str, stem: str, where: str, diagnostics: list[Diagnostic]
) -> Sample | None:
    base = f"{folder}/{stem}"
    given = by_name.get(f"{base}.in")
    answer = by_name.get(f"{base}.ans") or by_name.get(f"{base}.out")
    transcript = by_name.get(f"{base}.interaction")
    if transcript is not None and transcript.text is None:
        why = transcript.binary or "not UTF-8 text"
        diagnostics.append(Diagnostic(f"{where}/{transcript.name}", 0, f"sample file cannot be shown: {why}"))
        transcript = None
    if given is None and transcript is not None:  # shown only: the judge's input is not given
        text = transcript.text or ""
        return Sample(stem, transcript.name, None, "", None, text, transcript.name)
    if given is None:
        orphan = answer.name if answer else f"{base}.ans"
        diagnostics.append(Diagnostic(f"{where}/{orphan}", 0, f"answer file without input: add {base}.in"))
        return None
    if given.text is None or (answer is not None and answer.text is None):
        bad = given if given.text is None else answer
        assert bad is not None
        why = bad.binary or "not UTF-8 text"
        diagnostics.append(Diagnostic(f"{where}/{bad.name}", 0, f"sample file cannot be shown: {why}; {bad.remedy()}"))
        return None
    return Sample(
        name=stem,
        input_file=given.name,
        answer_file=answer.name if answer else None,
        input=given.text,
        answer=answer.text if answer else None,
        transcript=transcript.text if transcript else None,
        transcript_file=transcript.name if transcript else None,
    )
