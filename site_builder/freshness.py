"""Whether the published site is current: built from exactly the inputs a build would read now.

A build that changes nothing should cost little more than reading the archive. The digest covers
the archive (file contents, by their digests), the configuration, templates, static files, this
program, the libraries and tools whose output ends up in pages, and the build options that matter.
The manifest of the published site (see ``publish/output``) keeps the digest of the build that
wrote it, and a kept site is trusted while its stamp is the one the manifest recorded
(``manifest.site_stamp``; with ``--rerun``, while every published file has its recorded size and time).
This is the build's concern as a whole, so it sits beside ``build.py``, above the stages it reads.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import Diagnostic
from .model import EntrySource
from .publish import manifest
from .publish.lock import CACHE_LOCK
from .publish.report import BuildReport, report_from_summary
from .publish.trust import claim
from .render.math import MathRenderer
from .source.archive import load_archive
from .source.config import BuildOptions, SiteConfig, load_site_config, load_theme_of
from .source.gitdates import load_git_dates
from .source.snapshot import SETTLED_NS, Snapshot
from .source.stamp import Stamp, load_stamp
from .source.theme import Theme
from .source.walk import BUILDER_MARKER
from .source.watched import watched_stamp
from .store import LIBRARIES as RENDERER_LIBRARIES
from .store import JsonStore, PickleStore, bucket_keys, lasting, library_versions, write_json

log = logging.getLogger(__name__)

LIBRARIES = ("jinja2", "pagefind-bin", "pyyaml")


@dataclass(frozen=True, slots=True)
class Loaded:
    """What every build reads first: the configuration and the archive, and the digest of all inputs."""

    config: SiteConfig
    git_dates: dict[str, int]
    sources: list[EntrySource]
    problems: list[Diagnostic]
    inputs: str
    program: str  # the digest of this program's code, templates, static files and libraries
    theme: Theme
    seconds: float = 0.0  # how long reading took
    settings: str = ""  # ``settings_key``
    # Each archive folder's part of the stamp it was read after (``Probe.vouched``), for ``publish/resume``;
    # None when not known. (Not the stamp itself: its listing holds a ``DirEntry`` for every file.)
    folders: dict[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Probe:
    """What a build learns before it reads any file of the archive: the archive's stamp, and all
    the other inputs (configuration, git dates, this program, tools and options) as one digest."""

    started_ns: int  # wall-clock time just before the stamp was taken
    stamp: Stamp
    config: SiteConfig
    git_dates: dict[str, int]
    program: str
    settings: str
    theme: Theme

    def key(self) -> str:
        """Equal for two probes when no input can have changed between them."""
        dates = json.dumps(self.git_dates, sort_keys=True)
        return hashlib.sha256(f"{self.stamp.digest}\0{self.settings}\0{dates}".encode()).hexdigest()

    def vouched(self) -> dict[str, str]:
        """Each folder's part of the stamp (``Stamp.folders``), but "" for one with a file changed within a
        tick of the file system's clock (see ``settled``): a later change could leave its part as it is."""
        settled = self.started_ns - SETTLED_NS
        return {folder: digest if latest < settled else "" for folder, (digest, latest) in self.stamp.folders.items()}

    def settled(self) -> bool:
        """Whether every file is older than the stamp by more than a tick of the file system's clock,
        so that a later change must show in its times. (A file written twice within one tick, once
        before and once after the stamp was taken, could otherwise keep the stamp unchanged.)"""
        return self.stamp.newest_ns < self.started_ns - SETTLED_NS


GIT_DATES = "git-dates.json"  # the archive's git dates, with the commit they are for
STAMPS = "archive-stamp.json"  # the probe key of the last full read, and the inputs digest it gave
YAML_MEMO = "yaml-v1"
SNAPSHOT = "snapshot-v2"  # the problem folders as last loaded (see ``snapshot``), in buckets by folder


def probe_inputs(options: BuildOptions) -> Probe:
    options.cache.mkdir(parents=True, exist_ok=True)
    if said := claim(options.cache, {CACHE_LOCK, BUILDER_MARKER}):  # (a build's lock has claimed it, and said so)
        log.warning("%s: %s", options.cache, said)
    started_ns = time.time_ns()
    config = load_site_config(options)
    skip = options.skipped(config)
    if options.watch:
        stamp = watched_stamp(options.archive, skip, options.cache, options.own_folders, options.watch == "start")
    else:
        stamp = load_stamp(options.archive, skip)
    theme = load_theme_of(options, config)
    program = program_fingerprint(theme)
    settings = settings_key(options, config, MathRenderer.cache_name(options.root), program)
    return Probe(
        started_ns, stamp, config, load_git_dates(options.archive, options.cache / GIT_DATES), program, settings, theme
    )


def load_inputs(options: BuildOptions, probe: Probe | None = None) -> Loaded:
    """Read the configuration and the archive (``probe``: taken just before, if it was)."""
    started = time.perf_counter()
    probe = probe or probe_inputs(options)
    store = PickleStore(options.cache / "parsed")
    memo = store.get(YAML_MEMO)
    memo = memo if isinstance(memo, dict) else {}
    known = len(memo)
    last = store.get_buckets(SNAPSHOT, probe.program)  # those this same program loaded, if any
    snapshot = Snapshot(probe.started_ns - SETTLED_NS, last)
    shown = options.display(options.archive)
    listed, skip = probe.stamp.listing, probe.stamp.skip
    with lasting():
        sources, problems = load_archive(options.archive, shown, probe.git_dates, memo, snapshot, listed, skip)
    if len(memo) != known:
        store.put(YAML_MEMO, memo if len(memo) < 4 * len(sources) + 100 else {})
    if snapshot.changed:
        store.put_buckets(SNAPSHOT, snapshot.seen, last, probe.program)
    store.keep_only({YAML_MEMO, *bucket_keys(SNAPSHOT)})  # not an older format's (266 MB at 10,000 entries)
    inputs = inputs_key(probe.settings, problems, sources)
    if probe.settled():
        record = {"probe": probe.key(), "inputs": inputs}
        if JsonStore(options.cache / STAMPS, "archive stamp").data != record:
            write_json(options.cache / STAMPS, record)
    seconds = time.perf_counter() - started
    found = (sources, problems, inputs, probe.program, probe.theme, seconds, probe.settings, probe.vouched())
    return Loaded(probe.config, probe.git_dates, *found)


def stamped_inputs(options: BuildOptions, probe: Probe) -> str | None:
    """The inputs digest of the archive as it is, without reading it: known when the last full read
    was taken with the same probe key (every file with the same size, times and inode)."""
    stamps = JsonStore(options.cache / STAMPS, "archive stamp")
    inputs = stamps.get("inputs")
    return inputs if isinstance(inputs, str) and stamps.get("probe") == probe.key() else None


def kept_build(
    options: BuildOptions,
    reading: Callable[[Stamp], None] | None = None,
    quick: Callable[[Probe], BuildReport | None] | None = None,
) -> tuple[BuildReport | None, Loaded | None]:
    """If the published site is current for the inputs as they are, the last build's report again
    (and no ``Loaded``); else no report, and the inputs as read. ``reading`` is called just before
    the archive is read, if it is; ``quick`` before that, when the archive changed: its report, if it
    gives one, is the build's (``quick.quick_build``).

    This module imports no renderer, so a build that changes nothing starts quickly. It does not
    even read the archive when its stamp is that of the last full read."""
    started = time.perf_counter()
    if options.rerun:
        return None, load_inputs(options)
    probe = probe_inputs(options)
    inputs = stamped_inputs(options, probe)
    summary = manifest.current_summary(options, inputs) if inputs is not None else None
    timings = {"probe": time.perf_counter() - started}
    if summary is None:
        if quick is not None and (report := quick(probe)) is not None:
            timings = {**timings, **report.timings}
            return replace(report, seconds=time.perf_counter() - started, timings=timings), None
        if reading is not None:
            reading(probe.stamp)
        loaded = load_inputs(options, probe)
        timings["load"] = loaded.seconds
        summary = manifest.current_summary(options, loaded.inputs)
        if summary is None:
            return None, replace(loaded, seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    return report_from_summary(summary, options.out, seconds, timings), None


def settings_key(options: BuildOptions, config: SiteConfig, math: str, program: str) -> str:
    """The digest of every input but the archive: ``math`` names the math renderer and its version,
    ``program`` is ``program_fingerprint``."""
    digest = hashlib.sha256()
    for part in (
        program,
        math,
        repr(config),
        repr((options.verify, options.strict, same_interpreter(options.interpreter), str(options.out))),
        tool_fingerprint(same_interpreter(options.interpreter)),
    ):
        digest.update(part.encode())
    return digest.hexdigest()


def inputs_key(settings: str, problems: list[Diagnostic], sources: list[EntrySource]) -> str:
    """The digest of everything a full build reads (``settings``: see ``settings_key``)."""
    return inputs_of(settings, repr(problems), [source_key(source) for source in sources])


def source_key(source: EntrySource) -> str:
    return hashlib.sha1(source.key_text().encode("utf-8", "surrogateescape")).hexdigest()


def inputs_of(settings: str, problems: str, keys: list[str]) -> str:
    """``inputs_key`` from the ``source_key`` of each entry, in order: a build that reloaded a few
    entries (``quick``) makes it from the others' as the last build kept them."""
    return hashlib.sha256("\0".join([settings, problems, *keys]).encode()).hexdigest()


def same_interpreter(interpreter: str) -> str:
    """One spelling for one interpreter: ``.venv/bin/python`` and ``.venv/bin/python3`` are the same
    program in the same environment (``make site`` and a script may name it differently)."""
    path = os.path.abspath(interpreter)
    return os.path.join(os.path.dirname(path), os.path.basename(os.path.realpath(path)))


def program_fingerprint(theme: Theme) -> str:
    """This program's code, the theme's templates and static files (with the archive's overrides),
    and the libraries whose output ends up in pages: any change to them changes every page."""
    digest = hashlib.sha256(library_versions(RENDERER_LIBRARIES + LIBRARIES).encode())
    code = Path(__file__).parent  # site_builder/, every subpackage
    for index, (folder, pattern) in enumerate(((code, "*.py"), *((f, "*") for f in theme.folders()))):
        digest.update(f"{index}\0".encode())  # which folder: an override, or the theme's own file
        if folder.is_dir():
            for path in sorted(folder.rglob(pattern)):
                if path.is_file() and not path.is_symlink():
                    digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def tool_fingerprint(interpreter: str) -> str:
    """The interpreter and tools solvers and math run with (a new g++ can change verdicts)."""
    parts = []
    for tool in (interpreter, shutil.which("g++"), shutil.which("node")):
        if tool is None:
            parts.append("-")
            continue
        try:
            info = os.stat(os.path.realpath(tool))
            parts.append(f"{tool}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{tool}:?")
    return "|".join(parts)
