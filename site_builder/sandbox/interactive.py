"""Two sandboxed runs side by side, each one's standard output piped to the other's standard input: a
submission and the interactive validator (or interactor) that judges it, as judges run them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .runner import Limits, RunResult, Toolchain, run


@dataclass(frozen=True, slots=True)
class Call:
    """One of several programs run at once: what ``run`` takes besides its standard streams."""

    argv: list[str]
    limits: Limits
    files: Mapping[str, bytes | tuple[bytes, int]] = field(default_factory=dict)
    toolchain: Toolchain = field(default_factory=Toolchain)
    dirs: tuple[str, ...] = ()
    collect: str | None = None
    passed: tuple[int, ...] = ()  # descriptors it gets as 4, 5, ... (``run``'s ``passed``)

    def run(self, stdin: bytes | None, stdin_fd: int | None = None, stdout_fd: int | None = None) -> RunResult:
        """Run it in a sandbox of its own (``stdin_fd``, ``stdout_fd``: as ``run`` takes them)."""
        return run(
            self.argv,
            stdin,
            self.limits,
            files=self.files,
            toolchain=self.toolchain,
            dirs=self.dirs,
            collect=self.collect,
            stdin_fd=stdin_fd,
            stdout_fd=stdout_fd,
            passed=self.passed,
        )


def run_interactive(submission: Call, validator: Call) -> tuple[RunResult, RunResult]:
    """Run a submission and an interactive validator at once, each in its own sandbox, the
    submission's standard output piped to the validator's standard input and back, as judges do."""
    to_validator = os.pipe2(os.O_CLOEXEC)
    to_submission = os.pipe2(os.O_CLOEXEC)
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(submission.run, None, to_submission[0], to_validator[1])
        second = pool.submit(validator.run, None, to_validator[0], to_submission[1])
        return first.result(), second.result()
