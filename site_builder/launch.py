"""``site-builder``: read the command, and hand a build to the archive's watcher when one runs (it has
the builder imported: ``buildhost.py``), else run it here (``cli.py``). Imports no more than it needs
to ask: a build handed over costs this process a few hundredths of a second."""

from __future__ import annotations

import json
import os
import resource
import socket
import sys
from pathlib import Path
from typing import Any

from .arguments import command_parser, watching
from .source.watchsocket import connect

START_SECONDS = 2.0  # a watcher slower than this to start the build is not waited for


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = command_parser().parse_args(argv)
    if args.command in ("build", "check") and watching():
        code = hand_off(argv, _cache(args), getattr(args, "timings", False))
        if code is not None:
            return code
    from .cli import run

    return run(args)


def _cache(args: Any) -> Path:
    """The cache folder, where the watcher's socket is (``config.make_options`` says the same)."""
    return Path(os.path.abspath(args.cache)) if args.cache else args.root.resolve() / ".cache"


def hand_off(argv: list[str], cache: Path, timings: bool = False) -> int | None:
    """The exit code of the build ``argv`` as the watcher of ``cache`` ran it; None when there is none,
    or it did not start the build (then this process runs it). ``timings``: say what it used."""
    conn = connect(cache, START_SECONDS)
    if conn is None:
        return None
    with conn:
        try:
            folder = os.open(".", os.O_PATH | os.O_DIRECTORY)
        except OSError:
            return None
        try:
            asked = json.dumps(request(argv)).encode() + b"\n"
            conn.sendall(asked[socket.send_fds(conn, [asked], [0, 1, 2, folder]) :])  # (a big one goes in pieces)
            reader = conn.makefile("rb")
            started = _message(reader.readline())
        except OSError:  # (no standard stream to pass, or no answer in time)
            return None
        except KeyboardInterrupt:  # (the build, if it started, sees the connection close)
            return 130
        finally:
            os.close(folder)
        if "started" not in started:
            return None
        conn.settimeout(None)
        return _outcome(conn, reader, timings)


def request(argv: list[str]) -> dict[str, Any]:
    from .buildhost import LIMITS, identity  # (the host's own module: what it compares, said once)

    return {
        "build": argv,
        "program": sys.argv[0],
        "identity": identity(),
        "environment": dict(os.environ),
        "umask": _umask(),
        "limits": {name: resource.getrlimit(getattr(resource, name)) for name in LIMITS},
        "encodings": [[stream.encoding, stream.errors] for stream in (sys.stdout, sys.stderr)],
    }


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _outcome(conn: socket.socket, reader: Any, timings: bool) -> int:
    """Wait for the build's end; Ctrl-C interrupts it (a second one leaves it to end by itself)."""
    try:
        ended = _message(reader.readline())
    except KeyboardInterrupt:
        try:
            conn.sendall(b"\n")  # (the child interrupts the build: it prints what it kept)
            ended = _message(reader.readline())
        except (KeyboardInterrupt, OSError):
            return 130
    except OSError:
        ended = {}
    code, used = ended.get("code"), ended.get("usage") or {}
    if not isinstance(code, int):
        print("site-builder: the build's process in the archive's watcher ended without an exit code", file=sys.stderr)
        return 1
    if timings and isinstance(used, dict):
        print(
            f"Ran in the archive's watcher: peak RSS {used.get('maxrss_kib', 0) / 1024:.0f} MiB, "
            f"CPU {used.get('cpu_s', 0):.2f} s",
            file=sys.stderr,
        )
    return code


def _message(line: bytes) -> dict[str, Any]:
    try:
        found = json.loads(line)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
