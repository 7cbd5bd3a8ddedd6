"""Ctrl-C for the runs in progress: ``stop_runs`` ends every sandboxed run of this process now,
rather than at its wall-clock limit, and keeps new ones from starting until ``resume_runs``.

A build interrupted while its solvers run waits for the threads that run them (``ThreadPoolExecutor``
cancels the queued runs, not the running ones): without this, up to a run's wall-clock limit (40 s
for a 10-s problem). Each run's ``Launcher.follow`` watches a pipe that ``stop_runs`` makes readable;
the run then tells its launcher to kill the program, and ``runner.run`` raises ``RunStopped``
instead of returning a result, so that no Time Limit Exceeded is made of it, or cached.
"""

from __future__ import annotations

import contextlib
import os
import threading


class RunStopped(BaseException):
    """A run ended by ``stop_runs``: it has no result. Not an ``Exception``: no handler of a run's
    failures may take it for a verdict."""


class _Stop:
    """The pipe, made per process (a forked child's runs are its own)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pid = 0
        self.read = self.write = -1
        self.stopped = False

    def fd(self) -> int:
        """The end that is readable once the runs are stopped."""
        with self.lock:
            if self.pid != os.getpid():
                if self.pid:  # the parent's, inherited
                    os.close(self.read)
                    os.close(self.write)
                self.read, self.write = os.pipe()
                os.set_blocking(self.write, False)
                os.set_blocking(self.read, False)
                self.pid, self.stopped = os.getpid(), False
            return self.read

    def stop(self) -> None:
        self.fd()
        with self.lock:
            self.stopped = True
            with contextlib.suppress(BlockingIOError):
                os.write(self.write, b"x")

    def resume(self) -> None:
        self.fd()
        with self.lock:
            self.stopped = False
            with contextlib.suppress(BlockingIOError):
                while os.read(self.read, 1 << 12):
                    pass


_STOP = _Stop()


def stop_runs() -> None:
    """End the runs in progress, and let none start (each raises ``RunStopped``)."""
    _STOP.stop()


def resume_runs() -> None:
    """Let runs start again (a new build of the same process)."""
    _STOP.resume()


def stopped() -> bool:
    return _STOP.stopped and _STOP.pid == os.getpid()


def stop_signal() -> int:
    """A descriptor that is readable once ``stop_runs`` was called."""
    return _STOP.fd()
