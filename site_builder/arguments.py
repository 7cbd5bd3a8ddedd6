"""The command line's words: its parser, and whether a build uses the archive's watcher. Kept apart
from ``cli.py`` so that ``launch.py`` can read a command without importing the builder."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="site-builder", description="Build the problem archive into a static site.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command")
    build = commands.add_parser("build", help="build the archive into a static site")
    _common(build)
    build.add_argument("--strict", action="store_true", help="treat warnings as errors; publish nothing then")
    build.add_argument("--timings", action="store_true", help="print how long each stage took")
    _verifying(build)
    _reporting(build)
    check = commands.add_parser(
        "check", help="load, render and verify the archive as a build does, without writing a site (for CI)"
    )
    _common(check)
    _verifying(check)
    _reporting(check)
    serve = commands.add_parser("serve", help="build, serve on localhost, rebuild and reload on every change")
    _common(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    serve.add_argument("--open", action="store_true", help="open the site in a browser")
    new = commands.add_parser("new", help="start a new entry: problem.yaml, write-up, solver, sample")
    new.add_argument("path", help="path inside the archive, e.g. icpc/2024/A-some-title")
    new.add_argument("--md", action="store_true", help="write-up in Markdown (solution.md) instead of LaTeX")
    new.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: .)")
    new.add_argument("--archive", type=Path, help=ARCHIVE_HELP)
    init = commands.add_parser(
        "init", help="make a folder an archive's repository: site.yaml, .gitignore, a GitHub Pages workflow"
    )
    init.add_argument("folder", nargs="?", type=Path, default=Path("."), help="the repository's folder (default: .)")
    schema = commands.add_parser("schema", help="print the JSON Schema of problem.yaml or site.yaml (for editors)")
    schema.add_argument("file", choices=("problem", "site"))
    return parser


ARCHIVE_HELP = "archive folder (default: ROOT/archive, or ROOT itself when it holds site.yaml or problem folders)"


class _Version(argparse.Action):
    """``--version``, its version looked up only when asked for (``importlib.metadata``: 25 ms a start)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"site-builder {_version()}")
        parser.exit()


def _version() -> str:
    """The installed distribution's version (a checkout that is not installed says so)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("site-builder")
    except PackageNotFoundError:
        return "(not installed)"


def _verifying(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--rerun",
        action="store_true",
        help="run every solver again, ignoring cached verdicts, and check every published file",
    )
    command.add_argument("--no-verify", action="store_true", help="do not run solvers (pages say 'Not run')")


def _reporting(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default); json: one JSON document on stdout; github: GitHub Actions annotations",
    )
    command.add_argument(
        "--fail-on",
        choices=("error", "failing", "warning"),
        default="error",
        help="exit 1 on errors (default); 'failing': also on an entry with a failing sample; 'warning': on any message",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="print the messages only, no progress or summary")


def _common(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--root", type=Path, default=Path.cwd(), help="project folder: archive/, site/, .cache/ (default: .)"
    )
    command.add_argument("--archive", type=Path, help=ARCHIVE_HELP)
    command.add_argument("--out", type=Path, help="output folder (default: ROOT/site)")
    command.add_argument("--cache", type=Path, help="cache folder (default: ROOT/.cache)")
    command.add_argument(
        "--base-url",
        default="",
        metavar="URL",
        help="the site's address (http or https), over site.yaml's base_url: sitemap.xml, canonical links, 404 page",
    )
    command.add_argument("--jobs", type=int, default=0, metavar="N", help="worker processes (default: cores)")
    command.add_argument("--python", default=sys.executable, metavar="PATH", help="interpreter for solvers")


def watching() -> str:
    """Whether a build uses the archive's watcher (see ``source/watched.py``): ``SITE_BUILDER_WATCH=0``
    never, ``=1`` always, starting one if none runs; else a running one, and one is started only for a
    build in a terminal outside CI (a process a script's build leaves behind would surprise it)."""
    said = os.environ.get("SITE_BUILDER_WATCH", "").strip().lower()
    if said in ("0", "no", "off", "false"):
        return ""
    if said in ("1", "yes", "on", "true"):
        return "start"
    return "start" if sys.stderr.isatty() and not os.environ.get("CI") else "ask"
