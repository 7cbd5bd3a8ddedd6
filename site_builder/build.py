"""Orchestration: load the archive, render everything, and write the site atomically.

With static copying this is the only module that writes to the output folder. The site is
written into a temporary sibling folder and swapped in only when complete, so a failed or
interrupted build leaves the previous site untouched.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import highlight
from .archive import load_archive
from .catalog import link_site
from .config import BuildOptions, load_site_config
from .content import fill_entry_math, math_snippets, render_entry
from .errors import BuildError, Diagnostic, Level
from .math import MathRenderer
from .model import Entry, EntrySource, SolverRun, Verdict
from .render import Output, PageRenderer, render_verification_report
from .verify import Progress, VerifyOptions, VerifyReport, verify_entries

log = logging.getLogger(__name__)
PARALLEL_THRESHOLD = 16  # below this many entries, worker start-up costs more than it saves


@dataclass(frozen=True, slots=True)
class BuildReport:
    diagnostics: tuple[Diagnostic, ...]
    entries: int
    tracks: int
    pages: int
    published: bool
    seconds: float
    out: Path
    timings: dict[str, float] = field(default_factory=dict)
    entry_list: tuple[Entry, ...] = ()
    solver_processes: int = 0

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.level == "warning")


def build_site(options: BuildOptions, progress: Progress | None = None) -> BuildReport:
    """Build the archive into ``options.out``. Raises ``SiteError`` for problems that stop the build."""
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = now - since
        return now

    config = load_site_config(options)
    archive_shown = options.display(options.archive)
    sources, problems = load_archive(options.archive, archive_shown)
    mark = lap("load", started)
    entries = render_entries(sources, options.workers)
    mark = lap("render entries", mark)
    entries, math_problems = _fill_math(entries, options)
    mark = lap("math", mark)
    verification = _verify(sources, options, config.time_limit, progress)
    entries = [replace(e, runs=verification.runs.get(e.path, ())) for e in entries]
    mark = lap("verify", mark)
    site, link_problems = link_site(config, entries, archive_shown)
    outputs = PageRenderer(options.templates, options.display(options.templates)).render_site(site)
    outputs.append(render_verification_report(site))
    mark = lap("pages", mark)
    raw, collisions = plan_raw_files(options, sources, outputs)
    verdict_problems = [d for e in entries for d in verification_diagnostics(e)]
    if verification.cache_warning:
        problems.append(Diagnostic(options.display(options.cache), 0, verification.cache_warning, "warning"))
    diagnostics = tuple(
        sorted(
            {
                *problems,
                *math_problems,
                *link_problems,
                *collisions,
                *verdict_problems,
                *(d for e in entries for d in e.diagnostics),
            }
        )
    )
    publish = not (options.strict and diagnostics)
    if publish:
        write_site(options, outputs, raw)
    lap("write", mark)
    return BuildReport(
        diagnostics=diagnostics,
        entries=len(entries),
        tracks=len(site.tracks),
        pages=sum(1 for o in outputs if o.path.endswith(".html")),
        published=publish,
        seconds=time.perf_counter() - started,
        out=options.out,
        timings=timings,
        entry_list=site.entries,
        solver_processes=verification.started,
    )


def _verify(
    sources: list[EntrySource], options: BuildOptions, time_limit: float, progress: Progress | None
) -> VerifyReport:
    if not options.verify:
        return VerifyReport()
    settings = VerifyOptions(
        interpreter=options.interpreter,
        jobs=options.workers,
        rerun=options.rerun,
        cache_dir=options.cache,
        read_only=tuple(dict.fromkeys((options.root, options.archive, options.out.parent))),
        time_limit=time_limit,
    )
    return verify_entries(sources, options.archive, settings, progress)


def verification_diagnostics(entry: Entry) -> list[Diagnostic]:
    """Failing samples are warnings (the page shows them loudly); a broken checker is an error."""
    found: list[Diagnostic] = []
    for run in entry.runs:
        if run.note and run.note.startswith("compile error"):
            first = run.note.splitlines()[1] if "\n" in run.note else run.note
            found.append(
                Diagnostic(
                    f"{entry.display_path}/{run.solver}", _compile_line(first), "does not compile: " + first, "warning"
                )
            )
        found += [_verdict_diagnostic(entry, run, v) for v in run.verdicts if v.code != "AC"]
    return found


def _verdict_diagnostic(entry: Entry, run: SolverRun, verdict: Verdict) -> Diagnostic:
    sample = next(s for s in entry.samples if s.name == verdict.sample)
    first_line = verdict.message.splitlines()[0] if verdict.message else ""
    level: Level = "error" if verdict.code == "CE" else "warning"
    where = f"{entry.display_path}/{sample.input_file}"
    return Diagnostic(where, 0, f"{run.solver}: {verdict.name}" + (f": {first_line}" if first_line else ""), level)


def _compile_line(message: str) -> int:
    match = re.match(r"solution\.cpp:(\d+):", message)
    return int(match.group(1)) if match else 0


def render_entries(sources: list[EntrySource], workers: int) -> list[Entry]:
    """Render every entry's content, in parallel worker processes for larger archives."""
    if workers <= 1 or len(sources) < PARALLEL_THRESHOLD:
        return [render_entry(s) for s in sources]
    chunk = max(1, len(sources) // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(render_entry, sources, chunksize=chunk))


def _fill_math(entries: list[Entry], options: BuildOptions) -> tuple[list[Entry], list[Diagnostic]]:
    problems: list[Diagnostic] = []
    snippets = [s for e in entries for s in math_snippets(e)]
    with MathRenderer(options.root, options.cache) as math:
        if math.cache_warning:
            problems.append(Diagnostic(options.display(math.cache_path), 0, math.cache_warning, "warning"))
        if snippets and not math.available:
            problems.append(Diagnostic(options.display(options.archive), 0, math.unavailable_reason(), "warning"))
        results = math.render_all(snippets)
        math.save_cache()
    return [fill_entry_math(e, results) for e in entries], problems


def plan_raw_files(
    options: BuildOptions, sources: list[EntrySource], outputs: list[Output]
) -> tuple[list[tuple[Path, str]], list[Diagnostic]]:
    """Every archive file to publish byte-identical beside its page, minus those a page would overwrite."""
    pages = {o.path for o in outputs}
    raw: list[tuple[Path, str]] = []
    problems: list[Diagnostic] = []
    for source in sources:
        for item in source.files:
            target = f"{source.path}/{item.name}"
            if target in pages:
                problems.append(
                    Diagnostic(
                        source.display_path(item.name), 0, "this file would overwrite the generated page; rename it"
                    )
                )
                continue
            raw.append((options.archive / source.path / item.name, target))
    return raw, problems


def write_site(options: BuildOptions, outputs: list[Output], raw: list[tuple[Path, str]]) -> None:
    """Write everything into a temporary folder, then swap it in for ``options.out``."""
    out = options.out
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        tmp.chmod(0o755)
        for output in outputs:
            write_content(tmp, output.path, output.data)
        _copy_static(options, tmp)
        for source, target in raw:
            destination = tmp / target
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        swap_into_place(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BuildError(options.display(out), None, f"cannot write the site: {e}") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_content(folder: Path, path: str, data: bytes) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _copy_static(options: BuildOptions, tmp: Path) -> None:
    if options.static.is_dir():
        shutil.copytree(options.static, tmp / "static", dirs_exist_ok=True)
    write_content(tmp, "static/pygments.css", highlight.stylesheet().encode("utf-8"))
    math = MathRenderer.font_file(options.root)
    if math is not None:
        write_content(tmp, "static/fonts/Temml.woff2", math.read_bytes())


def _remove_stale_temporaries(out: Path) -> None:
    """Folders left by builds that were killed before they could clean up."""
    for stale in out.parent.glob(f".{out.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


def swap_into_place(new: Path, out: Path) -> None:
    """Make ``new`` appear at ``out`` in one step (Linux: renameat2 RENAME_EXCHANGE); remove the old site."""
    if not out.exists():
        os.rename(new, out)
        return
    if not _exchange(new, out):
        old = out.with_name(f".{out.name}.tmp-old-{os.getpid()}")
        os.rename(out, old)
        os.rename(new, out)
        new = old
    shutil.rmtree(new, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths; False where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EXDEV):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))
