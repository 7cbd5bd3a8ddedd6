"""Whether the published site is current: built from exactly the inputs a build would read now.

A build that changes nothing should cost little more than reading the archive. The digest covers
the archive (file contents, by their digests), the configuration, templates, static files, this
program, the libraries and tools whose output ends up in pages, and the build options that matter.
The manifest of the published site (see ``output``) keeps the digest of the build that wrote it,
and a kept site is trusted only while every published file still has the size and time it was
written with.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from . import output
from .archive import load_archive, load_git_dates
from .config import BuildOptions, SiteConfig, load_site_config
from .errors import Diagnostic
from .math import MathRenderer
from .model import EntrySource
from .report import BuildReport, report_from_summary
from .store import LIBRARIES as RENDERER_LIBRARIES
from .store import PickleStore, library_versions

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
    seconds: float = 0.0  # how long reading took


YAML_MEMO = "yaml-v1"


def load_inputs(options: BuildOptions) -> Loaded:
    started = time.perf_counter()
    config = load_site_config(options)
    git_dates = load_git_dates(options.archive)
    store = PickleStore(options.cache / "parsed")
    memo = store.get(YAML_MEMO)
    memo = memo if isinstance(memo, dict) else {}
    known = len(memo)
    sources, problems = load_archive(options.archive, options.display(options.archive), git_dates, memo)
    if len(memo) != known:
        store.put(YAML_MEMO, memo if len(memo) < 4 * len(sources) + 100 else {})
    math = MathRenderer.cache_name(options.root)
    program = program_fingerprint(options)
    inputs = inputs_key(options, config, problems, sources, math, program)
    return Loaded(config, git_dates, sources, problems, inputs, program, time.perf_counter() - started)


def kept_build(options: BuildOptions) -> tuple[BuildReport | None, Loaded]:
    """Read the inputs; if the published site is current for them, the last build's report again.

    This module imports no renderer, so a build that changes nothing starts quickly.
    """
    started = time.perf_counter()
    loaded = load_inputs(options)
    loading = loaded.seconds
    if options.rerun:
        return None, loaded
    summary = output.current_summary(options, loaded.inputs)
    if summary is None:
        return None, loaded
    seconds = time.perf_counter() - started
    timings = {"load": loading, "check published": seconds - loading}
    return report_from_summary(summary, options.out, seconds, timings), loaded


def inputs_key(
    options: BuildOptions,
    config: SiteConfig,
    problems: list[Diagnostic],
    sources: list[EntrySource],
    math: str,
    program: str,
) -> str:
    """The digest of everything a full build reads; ``math`` names the math renderer and its version,
    ``program`` is ``program_fingerprint``."""
    digest = hashlib.sha256()
    for part in (
        program,
        math,
        repr(config),
        repr(problems),
        repr((options.verify, options.strict, same_interpreter(options.interpreter), str(options.out))),
        tool_fingerprint(same_interpreter(options.interpreter)),
    ):
        digest.update(part.encode())
    for source in sources:
        files = tuple((f.name, f.digest, f.binary) for f in source.files)  # texts are in the digests
        digest.update(repr((files, replace(source, files=(), samples=()))).encode())
    return digest.hexdigest()


def same_interpreter(interpreter: str) -> str:
    """One spelling for one interpreter: ``.venv/bin/python`` and ``.venv/bin/python3`` are the same
    program in the same environment (``make site`` and a script may name it differently)."""
    path = os.path.abspath(interpreter)
    return os.path.join(os.path.dirname(path), os.path.basename(os.path.realpath(path)))


def program_fingerprint(options: BuildOptions) -> str:
    """This program's code, templates and static files, and the libraries whose output ends up in
    pages: any change to them changes every page."""
    digest = hashlib.sha256(library_versions(RENDERER_LIBRARIES + LIBRARIES).encode())
    for folder, pattern in ((Path(__file__).parent, "*.py"), (options.templates, "*"), (options.static, "*")):
        if folder.is_dir():
            for path in sorted(folder.rglob(pattern)):
                if path.is_file():
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
