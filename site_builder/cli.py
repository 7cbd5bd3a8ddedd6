"""Command line: ``site-builder build``. The only module that prints and sets exit codes."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from .arguments import command_parser, watching
from .errors import Diagnostic, SiteError
from .freshness import Probe, kept_build
from .publish.lock import build_lock
from .publish.report import (
    BuildReport,
    diagnostic_fields,
    failing_entries,
    github_annotation,
    relocated,
    relocated_diagnostic,
    report_document,
)
from .render.workers import EarlyStart
from .scaffold import create_entry
from .source.archive import missing_archive
from .source.config import BuildOptions, make_options
from .source.walk import is_problem_dir, work_tree


def main(argv: list[str] | None = None) -> int:
    return run(command_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """The command ``args`` says (``command_parser``'s); its exit code."""
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(name)s: %(message)s")
    # A build keeps hundreds of thousands of objects (the archive, the rendered entries) and makes
    # few reference cycles: with the default threshold, collecting after every 700 allocations took
    # a tenth of a build from warm caches.
    gc.set_threshold(50_000, 20, 10)
    if args.command in ("build", "check"):
        return _build(args)
    if args.command == "serve":
        return _serve(args)
    if args.command == "new":
        return _new(args)
    if args.command == "init":
        return _init(args)
    if args.command == "schema":
        from .schemas import PROBLEM, SITE

        sys.stdout.write((PROBLEM if args.file == "problem" else SITE).read_text(encoding="utf-8"))
        return 0
    command_parser().print_help()
    return 2


def _serve(args: argparse.Namespace) -> int:
    options = make_options(
        args.root,
        args.archive,
        args.out,
        jobs=args.jobs,
        interpreter=args.python,
        cache=args.cache,
        base_url=args.base_url,
    )
    if _theme_missing(options):
        return 2
    if not options.archive.is_dir():
        print(shown(str(_no_archive(options))), file=sys.stderr)
        return 1
    _sandbox_ready(strict=False)
    _node_ready(options.root)

    from .serve.server import DevServer  # the watcher and the renderers, only for this command

    server = DevServer(options, args.host, args.port, report=UpdatePrinter())
    try:
        url = server.start()
    except SiteError as e:
        print(shown(str(e)), file=sys.stderr)
        server.stop()
        return 1
    except OSError as e:
        print(f"cannot listen on {args.host}:{args.port}: {e.strerror}", file=sys.stderr)
        server.stop()
        return 1
    print(f"Serving {options.display(options.out)}/ at {url} (Ctrl-C to stop)", flush=True)
    if args.open:
        import webbrowser  # only for --open: its import costs every command 10 ms

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopping.")
    finally:
        server.stop()
    return 0


def _new(args: argparse.Namespace) -> int:
    root = args.root.resolve()
    options = make_options(root, args.archive)  # the archive a build there would read
    archive = options.archive
    try:
        created = create_entry(archive, args.path, args.md, options.display(archive))
    except SiteError as e:
        print(shown(str(e)), file=sys.stderr)
        return 1
    for path in created:
        print(f"created {path.relative_to(root) if path.is_relative_to(root) else path}")
    return 0


def _init(args: argparse.Namespace) -> int:
    """Make ``args.folder`` an archive's repository: the files it lacks, and what to do next."""
    from .starter import WORKFLOW_PATH, missing_ignores, site_title, starter_files, write_missing

    folder = args.folder.resolve()
    archive = "archive" if (folder / "archive").is_dir() else ""  # this project's layout: site.yaml goes there
    try:
        created, kept = write_missing(folder, starter_files(site_title(folder.name), archive))
    except OSError as e:
        print(shown(f"{e.filename or folder}: cannot write: {e.strerror or e}"), file=sys.stderr)
        return 1
    for name in created:
        print(shown(f"created {name}"))
    for name in kept:
        lacking = missing_ignores(_text_of(folder / name)) if name == ".gitignore" else []
        hint = f"; add {', '.join(lacking)} to it" if lacking else ""
        print(shown(f"kept {name} as it was{hint}"))
    steps = [f"  cd {shown(str(args.folder))}"] if folder != Path.cwd().resolve() else []
    if archive or not is_problem_dir(folder):  # a package's own repository: its site shows that one entry
        steps.append(
            "  site-builder new icpc/2024/A-first-problem   # an entry: problem.yaml, statement, write-up, solver,"
            " sample"
        )
    steps += [
        "  site-builder build                           # the site in site/: open site/index.html",
        "  site-builder serve                           # http://127.0.0.1:8000/, rebuilt on every save",
    ]
    print(
        "Next:\n" + "\n".join(steps) + "\n"
        f"Before pushing to GitHub, set SITE_BUILDER in {WORKFLOW_PATH} to where pip installs site-builder\n"
        'from; then, in the repository\'s Settings > Pages, choose "GitHub Actions" as the source.'
    )
    return 0


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _build(args: argparse.Namespace) -> int:
    """``build``, or ``check`` (everything but writing the site); the exit code CI branches on."""
    checking = args.command == "check"
    options = make_options(
        args.root,
        args.archive,
        args.out,
        jobs=args.jobs,
        strict=getattr(args, "strict", False),
        cache=args.cache,
        verify=not args.no_verify,
        rerun=args.rerun,
        interpreter=args.python,
        base_url=args.base_url,
        watch=watching(),
    )
    chatty = args.format == "text" and not args.quiet
    if _theme_missing(options):
        return 2
    kept = "the previous site was left as it was" if options.out.exists() else "no site was written"
    failed = "Check failed." if checking else f"Build failed; {kept}."
    if not options.archive.is_dir():
        return _print_failure(args, _no_archive(options), failed, options)
    if not _sandbox_ready(options.strict, chatty):
        return 1
    _node_ready(options.root)
    early = EarlyStart(options)  # workers that get ready while the archive is read, when it will pay
    progress = ProgressPrinter(sys.stderr.isatty()) if chatty else None
    try:
        report = _check(options, early, progress) if checking else _publish(options, early, progress)
    except SiteError as e:
        return _print_failure(args, e.diagnostic(), failed, options)
    except OSError as e:  # the cache's disk is full, or not writable
        where = options.display(Path(e.filename)) if e.filename else options.display(options.cache)
        return _print_failure(args, Diagnostic(where, 0, f"cannot write: {e.strerror or e}"), failed, options)
    except KeyboardInterrupt:
        print("Interrupted." if checking else f"Interrupted; {kept}.", file=sys.stderr)
        return 130
    finally:
        early.close()
    if args.format != "text":
        report = relocated(report, _repository_path(options))
    _print_report(report, options.display(options.out), args)
    return 1 if _fails(report, args.fail_on) or (options.strict and report.diagnostics) else 0


def _no_archive(options: BuildOptions) -> Diagnostic:
    return Diagnostic(options.display(options.archive), 0, missing_archive(options.archive))


def _repository_path(options: BuildOptions) -> Callable[[str], str]:
    """How ``--format github`` and ``json`` name a file: from the top of the archive's repository
    (``GITHUB_WORKSPACE`` when set, else the git work tree that holds the archive), as GitHub
    places annotations; a path outside it, or one that names no file, as messages do."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    top = Path(workspace).resolve() if workspace else work_tree(options.archive)

    def where(path: str) -> str:
        full = Path(os.path.normpath(options.root / path))
        if top is None or not full.is_relative_to(top) or not os.path.lexists(full):
            return path
        return full.relative_to(top).as_posix()

    return where


def _theme_missing(options: BuildOptions) -> bool:
    """Whether the theme's templates are gone (a broken install), said on stderr."""
    if options.templates.is_dir():
        return False
    print(f"{options.templates}: the theme's templates are missing; install site-builder again", file=sys.stderr)
    return True


def _publish(options: BuildOptions, early: EarlyStart, progress: ProgressPrinter | None) -> BuildReport:
    with build_lock(options, waiting=_say_waiting, told=_say):
        report, loaded = kept_build(options, reading=early, quick=partial(_quick, options))
        if report is not None:
            return report
        from .build import build_site  # renderers, Jinja and Pygments: only when there is work to do

        return build_site(options, progress, loaded, early.pool)


def _quick(options: BuildOptions, probe: Probe) -> BuildReport | None:
    from .quick import quick_build  # renderers: only when a few entries changed

    return quick_build(options, probe)


def _check(options: BuildOptions, early: EarlyStart, progress: ProgressPrinter | None) -> BuildReport:
    from .build import Builder
    from .freshness import load_inputs

    with build_lock(options, waiting=_say_waiting, told=_say), Builder(options, progress, early.pool) as builder:
        return builder.check_all(load_inputs(options))  # the caches a build uses: one at a time


def _fails(report: BuildReport, fail_on: str) -> bool:
    """Whether ``report`` fails a run with ``--fail-on fail_on``."""
    if fail_on == "warning":
        return bool(report.diagnostics)
    if fail_on == "failing":
        return report.errors > 0 or failing_entries(report) > 0
    return report.errors > 0


def _print_failure(args: argparse.Namespace, diagnostic: Diagnostic, failed: str, options: BuildOptions) -> int:
    """A problem that stopped the build or check, in the format asked for."""
    if args.format != "text":
        diagnostic = relocated_diagnostic(diagnostic, _repository_path(options))
    if args.format == "json":
        document = {"command": args.command, "ok": False, "fatal": True, "diagnostics": [diagnostic_fields(diagnostic)]}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    elif args.format == "github":
        print(github_annotation(diagnostic))
    else:
        print(shown(str(diagnostic)), file=sys.stderr)
    print(failed, file=sys.stderr)
    return 1


def _say_waiting(message: str) -> None:
    print(shown(f"{message} ..."), file=sys.stderr, flush=True)


def _say(message: str) -> None:
    print(shown(message), file=sys.stderr, flush=True)


def _node_ready(root: Path) -> None:
    """Install the workers' Node packages once, when Node.js is here but they are not (a builder
    installed from PyPI or a wheel, away from this project's checkout)."""
    from .nodepackages import NEEDED, install_node_packages, missing_node_packages, user_modules

    if not missing_node_packages(root):
        return
    where = user_modules().parent
    print(
        f"Installing the Node packages for math and SVG images ({', '.join(NEEDED)}) into {where}, once.",
        file=sys.stderr,
    )
    problem = install_node_packages()
    if problem:
        print(shown(f"WARNING: {problem}; math is shown as TeX source and SVG images are withheld"), file=sys.stderr)


def _sandbox_ready(strict: bool, chatty: bool = True) -> bool:
    """Say how archive code (solvers, checkers, compilers, git) runs (unless not ``chatty``: warnings
    only); refuse under ``--strict`` when unsandboxed."""
    from .sandbox.runner import isolation_level

    level = isolation_level()
    if level.isolated:
        if chatty:
            print(f"Sandbox: {level.describe()}.")
        return True
    print(f"WARNING: archive code runs without a sandbox: {level.describe()}.", file=sys.stderr)
    if strict:
        print("--strict: refusing to run archive code without a sandbox; nothing was built.", file=sys.stderr)
        return False
    print("WARNING: build only archives you trust here, or install bubblewrap.", file=sys.stderr)
    return True


class UpdatePrinter:
    """The dev server's line per update, after the messages an author has not seen yet: every message
    the first time, then only new ones (each save would otherwise repeat every warning of the site),
    and always the errors of an update that failed."""

    def __init__(self) -> None:
        self.known: set[Diagnostic] | None = None  # the messages of the last published update

    def __call__(self, report: BuildReport) -> None:
        current = set(report.diagnostics)
        known = self.known if self.known is not None and report.published else set()
        for diagnostic in sorted(current - known):
            print(shown(str(diagnostic)), file=sys.stderr)
        notes = [f"{_count(report.written, 'file')} written"]
        if current & known:
            notes.append(f"{_count(len(current & known), 'earlier message')} not repeated")
        if report.published and self.known is not None and self.known - current:
            notes.append(f"{_count(len(self.known - current), 'message')} gone")
        state = "FAILED, still serving the last good pages"
        if report.published:
            state = "built" if self.known is None else "updated"
            self.known = current
        print(f"[{time.strftime('%H:%M:%S')}] {state} in {report.seconds * 1000:.0f} ms ({'; '.join(notes)})")


class ProgressPrinter:
    """A bar on a terminal; a plain line every tenth of the work otherwise."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if total == 0:
            return
        if self.tty:
            filled = 30 * done // total
            end = "\n" if done == total else ""
            print(
                f"\r  verifying [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} samples", end=end, file=sys.stderr
            )
            return
        step = 10 * done // total
        if step != self.shown:
            self.shown = step
            print(f"  verifying: {done}/{total} samples", file=sys.stderr)


def _print_summary(report: BuildReport) -> None:
    """Verification per track: how many entries are verified, failing, or could not be checked."""
    rows: dict[str, dict[str, int]] = {}
    for row in report.verification:
        counts = rows.setdefault(row.track, {"verified": 0, "failing": 0, "none": 0})
        counts[row.kind] += 1
    if not rows:
        return
    print(f"{'track':<16} {'entries':>7} {'verified':>9} {'failing':>8} {'unchecked':>10}")
    for track, c in rows.items():
        print(f"{shown(track):<16} {sum(c.values()):>7} {c['verified']:>9} {c['failing']:>8} {c['none']:>10}")
    for row in report.verification:
        if row.kind == "failing":
            print(shown(f"  failing: {row.display_path}: {row.text}"))
    if report.current:
        print("Nothing changed since the published build: the site was kept as it is.")
    elif report.solver_processes or report.published:
        print(f"Solver processes started: {report.solver_processes} (the rest came from the cache).")


def _print_report(report: BuildReport, out: str, args: argparse.Namespace) -> None:
    """The diagnostics (the same for ``build`` and ``check``) and the summary, in ``args.format``."""
    if args.format == "json":
        print(json.dumps(report_document(report, args.command), indent=2, ensure_ascii=False))
        return
    for diagnostic in report.diagnostics:
        if args.format == "github":
            print(github_annotation(diagnostic))
        else:
            print(shown(str(diagnostic)), file=sys.stderr)
    if args.quiet:
        return
    _print_summary(report)
    counts = f"{_count(report.errors, 'error')}, {_count(report.warnings, 'warning')}"
    built = f"{_count(report.entries, 'entry', 'entries')} in {_count(report.tracks, 'track')}"
    if args.command == "check":
        print(f"Checked {built} ({_count(report.pages, 'page')}) in {report.seconds:.2f} s; {counts}; no site written.")
    elif report.published:
        for note in report.notes:
            print(f"Note: {note}.")
        held = f", {_bytes(report.size)}" if report.size else ""
        print(f"Built {built} ({_count(report.pages, 'page')}{held}) into {out}/ in {report.seconds:.2f} s; {counts}.")
    else:
        kept = f"{out}/ was left as it was" if report.out.exists() else "no site was written"
        print(f"Nothing published (--strict): {counts}; {kept}.", file=sys.stderr)
    if getattr(args, "timings", False):
        for name, seconds in report.timings.items():
            print(f"  {name:<16} {seconds * 1000:8.1f} ms")


# Characters that would move the cursor, retitle the window or reorder text in a terminal.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """``text`` as the terminal may show it: control characters written as escapes (``\\n``,
    ``\\x1b``), so that no file name or checker message can forge a line or drive the terminal."""
    return CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _bytes(size: int) -> str:
    """A site's size as static hosts state their limits: "1.1 GB" (decimal units)."""
    if size < 1000:
        return f"{size} bytes"
    value, unit = size / 1000, "kB"
    for larger in ("MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, larger
    return f"{value:.1f} {unit}"


def _count(number: int, singular: str, plural: str = "") -> str:
    """ "1 entry", "2 entries", "0 errors"."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


if __name__ == "__main__":
    sys.exit(main())
