"""Templates that come from an archive (theme overrides): Jinja's sandbox, and a process of their own.

``SandboxedEnvironment`` keeps a template from Python's internals, and so from the machine. What it
leaves open is work without end: ``"x"|center(6000000000)`` asks for gigabytes, and two loops over a
long string take hours. No list of capped operators closes that, so the pages of such templates are
rendered in a process forked from the builder (``PageProcess``), whose address space is capped
(``RLIMIT_AS``: what the builder had, plus ``MEMORY_BYTES``) and whose page is stopped after
``PAGE_SECONDS`` (by ``SIGALRM``, where the template is, so the error names its line): whatever the
template does, it can fail a build, not hold the build machine. A page over a limit is an error at
its template's line, and the next page gets a new process. ``*`` and ``**`` are also refused results
beyond ``MAX_ITEMS`` items or ``MAX_EXPONENT`` before they are made (one such step takes long).

One process serves every page of a site: it is forked when a page of a new site is asked for, so it has
the site as the builder has it, and each page's values travel to it pickled, with the site's own objects
(entries, tracks, tags) sent as references to its copy of them. What comes back is the page's bytes, or
the failure as JSON: the builder unpickles nothing the process sends.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import io
import json
import os
import pickle
import resource
import select
import signal
import struct
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2.sandbox
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context

PAGE_SECONDS = 10.0  # to render one page
MEMORY_BYTES = 1 << 30  # the memory a page may take, beyond what the builder has
MAX_PAGE_BYTES = 256 << 20  # a page's size
MAX_ITEMS = 10_000_000  # characters of a string, or items of a list, made by "*"
MAX_EXPONENT = 1_000


class PageLimitError(Exception):
    """A page over one of its limits (raised where the template is, so its line is known)."""


def limit_message(error: MemoryError | PageLimitError) -> str:
    if isinstance(error, MemoryError):
        return f"the page needs more than {MEMORY_BYTES >> 20} MiB of memory; stopped"
    return str(error)


class ArchiveTemplates(jinja2.sandbox.SandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and _number(right) and abs(right) > MAX_EXPONENT and _number(left) and abs(left) > 1:
            raise SecurityError(f"an exponent above {MAX_EXPONENT} is refused")
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, list, tuple)) and _number(times) and len(sequence) * times > MAX_ITEMS:
                    raise SecurityError(f"a string or list of more than {MAX_ITEMS:,} items is refused")
        return super().call_binop(context, operator, left, right)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The process that renders the pages

REPEAT_SECONDS = 1.0  # after the deadline, how often it is raised again
GRACE_SECONDS = 5.0  # after the page's deadline, for the process to say so itself, before it is killed
_HEADER = struct.Struct("<Q")
_PIPE_BYTES = 1 << 20  # Linux's most for a pipe (/proc/sys/fs/pipe-max-size), unless raised


@dataclass(frozen=True, slots=True)
class Failure:
    """A page that failed in the process: where and why, as ``TemplateError`` takes them (``path`` empty:
    the process could not say, as when it was killed)."""

    path: str
    line: int
    message: str


@dataclass(slots=True)
class _Child:
    pid: int
    commands: int  # the pipe we write pages to
    replies: int  # the pipe we read results from


class PageProcess:
    """Renders ``render(*args) -> bytes`` in a forked process, one call at a time."""

    def __init__(self, render: Callable[..., bytes]) -> None:
        self.render = render
        self.lock = threading.Lock()
        self.child: _Child | None = None
        self.shared: tuple[object, ...] = ()
        self.ids: dict[int, int] = {}
        self._finalizer: Callable[[], object] | None = None

    def call(self, shared: tuple[object, ...], *args: object) -> bytes | Failure:
        """``render(*args)`` in the process. ``shared``: objects the process must have as the builder has
        them now, which ``args`` refer to rather than copy (another tuple starts another process)."""
        with self.lock:
            if self.child is None or shared is not self.shared:
                self.stop()
                self._start(shared)
            assert self.child is not None
            payload = self._pickle(args)
            try:
                _write_frame(self.child.commands, payload)
            except BrokenPipeError:  # it ended between two pages: once more, in a new one
                self.stop()
                self._start(self.shared)
                _write_frame(self.child.commands, payload)
            return self._reply()

    def stop(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        self.child = None

    # The builder's side

    def _start(self, shared: tuple[object, ...]) -> None:
        self.shared = shared
        self.ids = {id(o): n for n, o in enumerate(shared)}
        commands_read, commands = os.pipe()
        replies, replies_write = os.pipe()
        for fd in (commands, replies):  # a page and its values fit: neither side waits for the other to read
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        pid = os.fork()
        if pid == 0:  # the process: it never returns from here
            try:
                os.close(commands)
                os.close(replies)
                _serve(self.render, shared, commands_read, replies_write)
            finally:
                os._exit(70)
        os.close(commands_read)
        os.close(replies_write)
        self.child = _Child(pid, commands, replies)
        self._finalizer = weakref.finalize(self, _end, self.child)

    def _pickle(self, args: tuple[object, ...]) -> bytes:
        ids, shared = self.ids, self.shared

        class Pickler(pickle.Pickler):
            def persistent_id(self, obj: Any) -> int | None:
                index = ids.get(id(obj))
                return index if index is not None and shared[index] is obj else None

        buffer = io.BytesIO()
        Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(args)
        return buffer.getvalue()

    def _reply(self) -> bytes | Failure:
        assert self.child is not None
        deadline = time.monotonic() + PAGE_SECONDS + GRACE_SECONDS
        data = _read_frame(self.child.replies, deadline)
        if data is None:
            return Failure("", 0, self._ended(time.monotonic() >= deadline))
        if data.startswith(b"P"):  # (a page as bytes, or a failure as JSON: nothing from there is unpickled)
            return data[1:]
        self.stop()  # a page that failed leaves nothing of itself for the next
        path, line, message = json.loads(data[1:])
        return Failure(str(path), int(line), str(message))

    def _ended(self, late: bool) -> str:
        """Why the process gave no answer; it is ended."""
        assert self.child is not None
        pid, status = self.child.pid, 0
        if not late:  # it closed its pipe: it is ending
            with contextlib.suppress(ChildProcessError):
                status = os.waitpid(pid, 0)[1]
        self.stop()
        if late:
            return f"the page took more than {PAGE_SECONDS + GRACE_SECONDS:g} s to render; stopped"
        if os.WIFSIGNALED(status):
            return f"the process rendering the page ended by signal {os.WTERMSIG(status)}"
        return "the process rendering the page ended without a result"


def _end(child: _Child) -> None:
    """End the process (at once: it has no page, or one that is given up) and reap it."""
    for fd in (child.commands, child.replies):
        with contextlib.suppress(OSError):
            os.close(fd)
    try:
        os.kill(child.pid, signal.SIGKILL)
        os.waitpid(child.pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


# The process's side


def _serve(render: Callable[..., bytes], shared: tuple[object, ...], commands: int, replies: int) -> None:
    """Render pages as they come, until the builder closes the pipe, or a page fails."""
    _confine(commands, replies)
    state = {"rendering": False}

    def alarm(signum: int, frame: object) -> None:
        if state["rendering"]:
            raise PageLimitError(f"the page took more than {PAGE_SECONDS:g} s to render; stopped")

    signal.signal(signal.SIGALRM, alarm)
    while True:
        data = _read_frame(commands, None)
        if data is None:
            os._exit(0)
        try:
            state["rendering"] = True
            # After the deadline, again every second: code that catches it cannot get past it (the
            # builder ends the process GRACE_SECONDS after the deadline). Not sooner: Jinja needs a
            # moment to point the first one's traceback at the template's line, and a second one
            # raised there would name no line (it did, every 50 ms, on a loaded machine).
            signal.setitimer(signal.ITIMER_REAL, PAGE_SECONDS, REPEAT_SECONDS)
            unpickler = pickle.Unpickler(io.BytesIO(data))
            unpickler.persistent_load = shared.__getitem__  # type: ignore[method-assign]
            page = render(*unpickler.load())
            state["rendering"] = False
            if len(page) > MAX_PAGE_BYTES:
                raise PageLimitError(f"the page is over {MAX_PAGE_BYTES >> 20} MiB; stopped")
            reply = b"P" + page
        except BaseException as e:  # a TemplateError has its place; anything else fails the page too
            state["rendering"] = False
            failure = [str(getattr(e, "path", "")), int(getattr(e, "line", 0) or 0), _reason(e)]
            reply = b"E" + json.dumps(failure).encode()
        finally:
            state["rendering"] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        del data
        try:
            _write_frame(replies, reply)
        except BaseException:
            os._exit(0)
        if reply.startswith(b"E"):
            os._exit(0)
        del reply


def _reason(error: BaseException) -> str:
    if isinstance(error, (MemoryError, PageLimitError)):
        return limit_message(error)
    return str(getattr(error, "message", "") or error) or type(error).__name__


def _confine(commands: int, replies: int) -> None:
    """The forked process's start: none of the builder's files, signals or threads' garbage, and its memory capped."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    keep = {0, 1, 2, commands, replies}
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        if int(name) not in keep:
            with contextlib.suppress(OSError):  # (the folder's own, closed by now)
                os.close(int(name))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C is the builder's, which ends this process
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.freeze()  # the builder's objects stay as they are: no collection walks (and copies) them
    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + MEMORY_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def _read_frame(fd: int, deadline: float | None) -> bytes | None:
    """One frame, or None at the end of the pipe or past ``deadline``."""
    header = _read_exactly(fd, _HEADER.size, deadline)
    if header is None:
        return None
    return _read_exactly(fd, _HEADER.unpack(header)[0], deadline)


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    data = bytearray()
    waiting = select.poll()
    waiting.register(fd, select.POLLIN)
    while len(data) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not waiting.poll(left * 1000):
                return None
        chunk = os.read(fd, min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)
