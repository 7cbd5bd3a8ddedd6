"""Loads the archive: every problem folder as an ``EntrySource``, its files read (``files.py``), its
``problem.yaml`` or package metadata, samples (``samples.py``) and layout; taken from the snapshot
while ``stat`` says the folder is unchanged, with the ``.tex`` files outside it that its documents input.

``load_*`` functions read the disk; ``parse_*``/``infer_*`` functions interpret values.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Container
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import Diagnostic, MetadataError, SiteError
from ..model import MISSING_WRITEUP, PACKAGE_NAMES, EntrySource, Layout, Metadata, SourceFile
from .cms import is_cms
from .files import _list_files, _load_file, _load_files
from .foreign import load_cms, load_polygon
from .gitdates import load_git_dates
from .layout import native_layout, not_held_to_accepted, package_layout, package_validator
from .metadata import metadata_from_mapping, positive_number, slow_time_limit, time_limit_problem
from .package import is_package, parse_package_metadata, subtasks
from .paths import (
    ROOT_TRACK,
    _slug_part,
    entry_url_path,
    infer_folder_name,
    infer_year,
    joined,
    natural_key,
    reserved_folder,
    unique_slugs,
    url_slug,
)
from .polygon import is_polygon
from .samples import _load_samples
from .shared import MAX_SHARED, document_folders, outside_names
from .snapshot import Snapshot, file_signature
from .testdata import _unchanged_digests, hashed_only
from .walk import Listing, _entries, find_problem_folders, is_ignored, too_deep, unread_below
from .yamlfile import Memo, parse_yaml_mapping

log = logging.getLogger(__name__)


def load_entry(
    folder: Path,
    archive: Path,
    prefix: str,
    git_dates: dict[str, int],
    memo: Memo | None = None,
    real_archive: str | None = None,
    snapshot: Snapshot | None = None,
    listed: Listing | None = None,
    skip: Container[str] = frozenset(),
) -> EntrySource:
    """One problem folder; ``real_archive`` is ``archive`` with symbolic links resolved, when known;
    ``snapshot``: folders loaded before, taken from there while ``stat`` says the same of them;
    ``listed``: folders listed just before (see ``Stamp``). The folder may be the archive itself (a
    package's own repository): its path is then "", and ``skip`` (see ``walk.Skip``) says what in it
    is the site's and the build's, not the package's."""
    real = real_archive or os.path.realpath(archive)
    rel = os.path.relpath(folder, archive).replace(os.sep, "/")
    rel = "" if rel == "." else rel
    where = "/".join(p for p in (prefix, rel) if p) or "."
    diagnostics: list[Diagnostic] = []
    listing = _list_files(folder, real, where, diagnostics, listed, rel, skip if not rel else frozenset())
    timelimit = _timelimit_stat(folder, listed)
    signature = (
        prefix,
        tuple((name, file_signature(info)) for name, _, info in listing),
        tuple(git_dates.get(joined(rel, name)) for name, _, _ in listing),
        file_signature(timelimit) if timelimit else None,
        repr(diagnostics),
        "" if rel else os.path.basename(real),  # the archive's own name names its one entry
    )
    key = str(folder)
    if snapshot is not None and (known := snapshot.get(key, signature)) is not None:
        return _with_shared(known, archive, real)
    digests = _unchanged_digests(snapshot.previous(key) if snapshot is not None else None, signature[1])
    name = rel.rpartition("/")[2] or os.path.basename(real)
    source = _load_entry(folder, rel, name, prefix, where, listing, diagnostics, git_dates, memo, digests)
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
    name: str,
    prefix: str,
    where: str,
    listing: list[tuple[str, str, os.stat_result]],
    diagnostics: list[Diagnostic],
    git_dates: dict[str, int],
    memo: Memo | None,
    digests: dict[str, str],
) -> EntrySource:
    parts = tuple(rel.split("/")) if rel else ()
    names = infer_folder_name(name)
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
        if known and "submissions/submissions.yaml" in file_names:
            layout = _with_expectations(layout, files, where, diagnostics, memo)
    layout = _without_empty_pdf(layout, files)
    if meta.package is not None:
        diagnostics += _package_notes(layout, meta, file_names, where)
    updated = datetime.fromtimestamp(newest, UTC).date().isoformat()
    return EntrySource(
        path=rel,
        slug=url_slug(entry_url_path(rel or name)),
        archive_prefix=prefix,
        track=parts[0] if len(parts) > 1 else ROOT_TRACK,
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


def _with_expectations(
    layout: Layout, files: list[SourceFile], where: str, diagnostics: list[Diagnostic], memo: Memo | None
) -> Layout:
    """The layout with the accepted submissions ``submissions/submissions.yaml`` permits to fail shown, not
    run (``layout.not_held_to_accepted``)."""
    item = next(f for f in files if f.name == "submissions/submissions.yaml")
    path = f"{where}/{item.name}"
    try:
        data, _ = parse_yaml_mapping(item.text, path, MetadataError, memo) if item.text else ({}, {})
    except SiteError as e:
        diagnostics.append(e.diagnostic())
        return layout
    ruled = not_held_to_accepted(layout.solvers, data)
    if not ruled:
        return layout
    solvers = tuple(n for n in layout.solvers if n not in ruled)
    return replace(layout, solvers=solvers, shown=tuple(sorted({*layout.shown, *ruled})))


def _without_empty_pdf(layout: Layout, files: list[SourceFile]) -> Layout:
    """The layout without its statement PDF when that file is empty: a placeholder some task folders keep
    until the PDF is made, which the page would link as the statement (it is still listed with the files)."""
    pdf = next((f for f in files if f.name == layout.statement_pdf), None)
    return replace(layout, statement_pdf=None) if pdf is not None and pdf.size == 0 else layout


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
    skip: Container[str] = frozenset(),
) -> tuple[list[EntrySource], list[Diagnostic]]:
    """Load every problem folder. Errors in one folder are recorded on that entry.

    ``memo``: YAML files already parsed, by content (see ``yamlfile``); ``snapshot``: folders
    loaded before; ``listed``: folders listed just before (see ``Stamp``); ``skip``: the build's
    output and cache folders, and those ``site.yaml`` excludes (see ``walk.Skip``)."""
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
    problems += _unread_warnings(unread, prefix)
    if not folders and not unread and not deep:
        problems.append(Diagnostic(prefix or ".", 0, NO_PROBLEM_FOLDER, "warning"))
    for folder in folders:
        rel = folder.relative_to(archive).as_posix()
        if folder != archive and (where := reserved_folder(entry_url_path(rel))):
            where = where if "/" in rel else rel  # a top folder's URL is in ROOT_TRACK's: only its own name counts
            if where not in refused:
                refused.add(where)
                name = where.rsplit("/", 1)[-1]
                shown = repr(name) if _slug_part(name) == name else f"{name!r} (in URLs {_slug_part(name)!r})"
                message = f"the name {shown} is the site's own; rename the folder (nothing in it is published or run)"
                problems.append(Diagnostic(f"{prefix}/{where}", 0, message))
            continue
        entries.append(load_entry(folder, archive, prefix, git_dates, memo, real_archive, snapshot, listed, skip))
    return unique_slugs(entries), problems


NO_PROBLEM_FOLDER = (
    "no problem folder found here, so the site lists nothing (a problem folder holds problem.yaml, a solution.*"
    " file, task.yaml, problem.xml, or an ICPC package's statement/ or problem_statement/); is this the"
    " archive? --archive names another; `site-builder new <track>/<name>` starts an entry"
)


UNREAD_EACH = 10  # folders of one unread format named a warning each; more are one warning that counts them


def _unread_warnings(unread: list[tuple[str, str]], prefix: str) -> list[Diagnostic]:
    """A warning for each folder that looks like a problem of a format the builder does not read; one for
    all those of a format when there are more than ``UNREAD_EACH`` (an archive of hundreds of them)."""
    by_kind: dict[str, list[str]] = {}
    for rel, kind in unread:
        by_kind.setdefault(kind, []).append(rel)
    warnings = []
    for kind, folders in by_kind.items():
        ending = f"{kind}, a format the builder does not read; not published"
        if len(folders) <= UNREAD_EACH:
            warnings += [
                Diagnostic(f"{prefix}/{rel}", 0, f"this folder looks like {ending}", "warning") for rel in folders
            ]
            continue
        named = ", ".join(folders[:3])
        message = f"{len(folders)} folders ({named} and {len(folders) - 3} more) look like {ending}"
        warnings.append(Diagnostic(prefix or ".", 0, message, "warning"))
    return warnings


def missing_archive(archive: Path) -> str:
    """What to say when the archive folder is not there: where it was looked for, what the folder around
    it holds when that looks like problems of a format the builder does not read, and how to name another."""
    count, kind = unread_below(archive.parent) if archive.parent.is_dir() else (0, "")
    unread = (
        f"; {archive.parent} holds no problem folder the builder reads, but {count} folder"
        f"{'s' if count > 1 else ''} that look{'' if count > 1 else 's'} like {kind}, a format it does not read"
        if count
        else ""
    )
    return (
        f"archive folder not found: {archive}{unread} (set --archive, or run in the archive's folder;"
        " `site-builder init` starts a new one)"
    )


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
