"""The archive's watcher as a build's host: the watcher's process (``source/watcher.py``) has the builder
imported, and a build handed to it (``launch.py``) runs in a child it forks, as the build would have
run itself: the same arguments, environment, working folder, standard streams, file mode mask and
resource limits, with no module imported again. The child's exit code and resource use go back to
the build's own process, which waits for it; when that process ends or is interrupted, the child is
interrupted (``SIGINT``, as Ctrl-C at a terminal).

A build is refused, and runs in its own process, unless it runs the same Python and builder from the
same cgroup and namespaces; when the builder's code or the installed libraries changed since the host
imported them, it is refused and the watcher ends, so that the next build starts one with the new code.
The host handles requests only from its own user (``watcher.py`` checks), who could run the build
anyway: it gives no one anything they did not have."""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import resource
import signal
import site
import socket
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
# What an edit's build imports (every module of a build, and the renderers of an entry's files).
PRELOADED = ("site_builder.cli", "site_builder.quick", "site_builder.render.content", "site_builder.serve.changes")
LIMITS = tuple(name for name in dir(resource) if name.startswith("RLIMIT_"))


def identity() -> dict[str, Any]:
    """What must be the same in a build's process and the host's for the host to run it."""
    return {"python": [sys.executable, sys.version], "package": str(PACKAGE), "place": place()}


def place() -> list[str]:
    """The cgroup and namespaces this process runs in: a build in another (a container, a memory-capped
    CI step) runs in its own process, under its own limits."""
    found = []
    with contextlib.suppress(OSError):
        found.append(Path("/proc/self/cgroup").read_text())
    for name in ("ipc", "mnt", "net", "pid", "user", "uts"):
        with contextlib.suppress(OSError):
            found.append(os.readlink(f"/proc/self/ns/{name}"))
    return found


def code_stamp() -> dict[str, list[int]]:
    """The builder's files and the installed libraries' folders, as their ``stat`` says: any change
    means the imported code is not what a new process would import."""
    stamps = {}
    for folder, _, names in os.walk(PACKAGE):
        for name in names:
            if not name.endswith(".pyc"):
                with contextlib.suppress(OSError):
                    stamps[os.path.join(folder, name)] = _stat(os.path.join(folder, name))
    for folder in [*site.getsitepackages(), site.getusersitepackages()]:  # (where pip installs libraries)
        with contextlib.suppress(OSError):
            stamps[folder] = _stat(folder)
    return stamps


def _stat(path: str) -> list[int]:
    found = os.stat(path)
    return [found.st_mtime_ns, found.st_size, found.st_ino]


class BuildHost:
    """``watcher.Host``: forks a child for each build handed to it, and reaps them. Before the first and
    after each, it reads the last build's record (``resume.load``), which a child would read first."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self.children: set[int] = set()
        self.code: dict[str, list[int]] = {}
        self.me = identity()

    def ready(self) -> None:
        for name in PRELOADED:
            importlib.import_module(name)
        from .render.workers import prepare_lexers
        from .sandbox import isolation
        from .source.languages import judge_languages

        prepare_lexers()  # (what a build would make again each time: tables of the builder's own files)
        judge_languages()
        if not isolation.detect().isolated:
            isolation.detect.cache_clear()  # (a sandbox that works stays so; one that did not, each build tries)
        self.code = code_stamp()
        self.read_ahead()

    def read_ahead(self) -> None:
        from .publish import resume
        from .source import watched
        from .store import reading_ahead

        with reading_ahead():
            resume.load(self.cache)
            watched.kept_parts(self.cache)
        gc.collect()
        gc.freeze()  # what the children share with the host is not touched by their collections

    def hand(self, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> bool:
        """Start the build ``request`` asks for (its standard streams and folder in ``fds``); whether the
        watcher should end (its code is not the builder's any more)."""
        identity = request.get("identity")
        if not isinstance(identity, dict) or identity.get("place") != self.me["place"]:
            _send(conn, {"refused": "the build runs in another cgroup or namespace"})
            return False
        if identity != self.me or code_stamp() != self.code:
            _send(conn, {"refused": "the builder changed since this watcher started"})
            return True
        if len(fds) != 4 or not isinstance(request.get("build"), list):
            _send(conn, {"refused": "not a build's request"})
            return False
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's own process, tested through the builds it runs
            _child(conn, request, fds)
        self.children.add(pid)
        return False

    def busy(self) -> bool:
        return bool(self.children)

    def reap(self) -> None:
        ended = False
        for pid in list(self.children):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            self.children.discard(pid)
            ended = True
        if ended and not self.children:
            self.read_ahead()


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(message).encode() + b"\n")


def _child(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:  # pragma: no cover
    """The forked child: become the build's process, run it, say how it ended; never returns."""
    try:
        _become(conn, request, fds)
    except (OSError, ValueError, TypeError, KeyError) as e:
        _send(conn, {"refused": f"cannot run the build here: {e}"})
        os._exit(0)
    _send(conn, {"started": os.getpid()})
    finished = threading.Event()
    threading.Thread(target=_interrupt_on_hang_up, args=(conn, finished), daemon=True).start()
    code = 1
    try:
        from .cli import main

        code = main(request["build"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # as an uncaught exception in the build's own process: printed, exit 1
        traceback.print_exc()
    finally:
        finished.set()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        _send(conn, {"code": code, "usage": usage()})
        os._exit(0)


def _become(conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:  # pragma: no cover
    """Take the build's standard streams, folder, mask, limits and environment; let go of the host's."""
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    os.fchdir(fds[3])
    keep = conn.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)
    # As a build started at a terminal: the host's shell started it with Ctrl-C and Ctrl-\ ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    os.umask(int(request["umask"]))
    for name, (soft, hard) in request["limits"].items():
        if name in LIMITS:
            resource.setrlimit(getattr(resource, name), (int(soft), int(hard)))
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["environment"].items()})
    sys.argv = [str(request["program"]), *map(str, request["build"])]
    (out, out_errors), (err, err_errors) = request["encodings"]
    # New streams: the host's were /dev/null's, which can seek (a pipe cannot) and is no terminal.
    sys.stdin = _stream(0, "r", None, None)
    sys.stdout = _stream(1, "w", out, out_errors)
    sys.stderr = _stream(2, "w", err, err_errors)
    conn.settimeout(None)


def _stream(fd: int, mode: str, encoding: str | None, errors: str | None) -> Any:
    """A standard stream as Python opens its own: line by line to a terminal, and stderr always."""
    lines = fd == 2 or os.isatty(fd)
    return open(fd, mode, encoding=encoding, errors=errors, closefd=False, buffering=1 if lines else -1)


def _interrupt_on_hang_up(conn: socket.socket, finished: threading.Event) -> None:  # pragma: no cover
    """The build's process asks to interrupt (it was, or it ended): interrupt the build, once."""
    with contextlib.suppress(OSError):
        conn.recv(1)
    if not finished.is_set():
        os.kill(os.getpid(), signal.SIGINT)


def usage() -> dict[str, float]:
    """This process's and its children's peak memory (the largest of them, KiB) and CPU seconds."""
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime
    return {"maxrss_kib": max(mine.ru_maxrss, theirs.ru_maxrss), "cpu_s": round(cpu, 3)}


def main(argv: list[str]) -> None:  # pragma: no cover - its own process, tested through its socket
    """``ROOT SOCKET [OWN_FOLDER...]``: started by ``watched.start_watcher``, detached from it."""
    from .source import watcher

    os.chdir("/")
    root, path, *own = argv
    with contextlib.suppress(watcher.Ended):
        watcher.serve(root, path, frozenset(own), BuildHost(Path(path).parent))
    sys.exit(0)
