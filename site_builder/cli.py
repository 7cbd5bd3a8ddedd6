"""Command line: ``site-builder build``. The only module that prints and sets exit codes."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from .build import BuildReport, build_site
from .config import make_options
from .errors import SiteError


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(name)s: %(message)s")
    if args.command == "build":
        return _build(args)
    parser.print_help()
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="site-builder", description="Build the problem archive into a static site.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    commands = parser.add_subparsers(dest="command")
    build = commands.add_parser("build", help="build the archive into a static site")
    build.add_argument(
        "--root", type=Path, default=Path.cwd(), help="project folder with templates/ and static/ (default: .)"
    )
    build.add_argument("--archive", type=Path, help="archive folder (default: ROOT/archive)")
    build.add_argument("--out", type=Path, help="output folder (default: ROOT/site)")
    build.add_argument(
        "--strict", action="store_true", help="treat warnings as errors; publish nothing if there are any"
    )
    build.add_argument("--jobs", type=int, default=0, metavar="N", help="worker processes (default: number of cores)")
    build.add_argument("--timings", action="store_true", help="print how long each stage took")
    return parser


def _build(args: argparse.Namespace) -> int:
    options = make_options(args.root, args.archive, args.out, jobs=args.jobs, strict=args.strict)
    if not options.templates.is_dir():
        print(
            f"{options.templates}: templates folder not found; run from the project folder or pass --root",
            file=sys.stderr,
        )
        return 2
    try:
        report = build_site(options)
    except SiteError as e:
        print(f"{e}", file=sys.stderr)
        print("Build failed; the previous site was left as it was.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted; the previous site was left as it was.", file=sys.stderr)
        return 130
    _print_report(report, options.display(options.out), args.timings)
    if report.errors or (args.strict and report.diagnostics):
        return 1
    return 0


def _print_report(report: BuildReport, out: str, timings: bool) -> None:
    for diagnostic in report.diagnostics:
        print(diagnostic, file=sys.stderr)
    counts = (
        f"{report.errors} error{'s' * (report.errors != 1)}, {report.warnings} warning{'s' * (report.warnings != 1)}"
    )
    if report.published:
        print(
            f"Built {report.entries} entries in {report.tracks} tracks ({report.pages} pages) into {out}/ "
            f"in {report.seconds:.2f} s; {counts}."
        )
    else:
        print(f"Nothing published (--strict): {counts}. {out}/ was left as it was.", file=sys.stderr)
    if timings:
        for name, seconds in report.timings.items():
            print(f"  {name:<16} {seconds * 1000:8.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
