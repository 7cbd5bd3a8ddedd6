"""A CMS communication task's run, as CMS makes it: the task's manager reads the sample's input on its
standard input (or from ``input.txt`` beside it) and talks to each copy of the solver (``num_processes``)
through a pair of FIFOs; the manager's score (0 to 1) on its standard output, its message on standard
error, judge the run.

Every program runs in a sandbox of its own, the manager under the solver's limits (times the number of
copies): it is the archive's code as much as the solver is. The FIFOs are made by the builder in a
folder of its own and handed to each run as descriptors that open nothing (``O_PATH``), which a run
opens by their paths ``/dev/fd/4``, ``/dev/fd/5``...: the manager gets, for each copy, the FIFO from it
and the FIFO to it; a copy gets the FIFO from the manager and the FIFO to it as arguments (``fifo_io``,
and its index after them when there are several copies) or as its standard input and output (``std_io``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import replace

from ..model import Verdict
from ..sandbox.interactive import Call
from ..sandbox.runner import Limits, RunResult, Toolchain
from .checkers import judge_checker
from .jobs import Job
from .judging import _crash_message, _validator_files_for, over_time
from .options import VerifyOptions
from .runtimes import python_runtime
from .solvers import ValidatorProgram
from .toolchains import Installed, sandboxed

FIRST_PASSED = 4  # the descriptor a run's first FIFO is (``runner.run``'s ``passed``)
# For ``std_io``: the FIFOs become the standard streams, the one from the manager opened first, as CMS's
# sandbox opens them (a manager opening them the other way round waits, as it would under CMS).
STD_IO = 'exec <"$0" >"$1" 4<&- 5<&-; shift; exec "$@"'
MANAGER_INPUT = "input.txt"  # where CMS puts the test's input beside the manager (it may write output.txt)
SETTLE = 0.05  # seconds between two nudges of a FIFO whose other side has ended


def run_communication(job: Job, manager: ValidatorProgram, tools: Installed, options: VerifyOptions) -> Verdict:
    """Run the job's solver (``job.communication``: how many copies, talking how) with the task's
    manager on the job's sample, and judge it as CMS does."""
    assert job.communication is not None
    copies, fifo_io = job.communication

    def verdict(code: str, message: str, seconds: float = 0.0) -> Verdict:
        return Verdict(job.sample.name, code, round(seconds, 3), "", False, message)

    if manager.note:
        return verdict("CE" if manager.broken else "NJ", manager.note)
    try:
        files = job.solver.files()
        managing = _validator_files_for(manager, job.sample.input, job.sample.answer or "")
        managing[MANAGER_INPUT] = job.sample.input.encode()  # CMS gives it as a file too, which managers read
    except OSError as error:
        return verdict("CE", f"cannot read {error.filename}: {error.strerror}")
    with _fifos(copies) as (paths, fds):
        runs: list[Call] = []
        for index in range(copies):
            to_user, from_user = fds[2 * index + 1], fds[2 * index]
            argv = [*job.solver.argv]
            if fifo_io:
                argv += [_path(0), _path(1)]
            else:
                argv = ["/bin/sh", "-c", STD_IO, _path(0), _path(1), *argv]
            argv += [str(index)] if copies > 1 else []
            limited = tools.limits(job.limits)
            runs.append(Call(argv, limited, files, sandboxed(tools.toolchain), passed=(to_user, from_user)))
        manager_argv = [*manager.argv, *(_path(i) for i in range(2 * copies))]
        toolchain = Toolchain() if manager.toolchain_free else sandboxed(python_runtime(options.interpreter)[1])
        limits = _manager_limits(job.limits, copies)
        stdin = job.sample.input.encode()
        managed_call = Call(manager_argv, limits, managing, toolchain, passed=tuple(fds))
        users, managed = _run_all(runs, managed_call, stdin, paths)
    return _judged(job, manager, users, managed, verdict)


def _path(index: int) -> str:
    return f"/dev/fd/{FIRST_PASSED + index}"


MANAGER_GRACE = 2.0  # seconds of wall-clock time the manager has after its solvers' last moment


def _manager_limits(limits: Limits, copies: int) -> Limits:
    """The manager's: the solver's, with time for every copy (CMS waits for all of them before judging),
    and on the clock a little more than they have, to judge a solver stopped on the clock."""
    return replace(limits, cpu=limits.cpu_seconds * copies, wall=limits.wall * copies + MANAGER_GRACE)


@contextlib.contextmanager
def _fifos(copies: int) -> Iterator[tuple[list[str], list[int]]]:
    """For each copy, the FIFO from it to the manager and the one back, in a fresh folder of the builder:
    their paths, and a descriptor of each that opens neither end (``O_PATH``: a run opens them itself)."""
    with tempfile.TemporaryDirectory(prefix="site-builder-fifos-") as folder:
        paths = [os.path.join(folder, f"{way}{i}") for i in range(copies) for way in ("from", "to")]
        fds: list[int] = []
        try:
            for path in paths:
                os.mkfifo(path, 0o600)
                os.chmod(path, 0o666)  # the sandbox's runs are another user (nobody, as root)
                fds.append(os.open(path, os.O_PATH | os.O_CLOEXEC))
            yield paths, fds
        finally:
            for fd in fds:
                os.close(fd)


def _run_all(users: list[Call], manager: Call, stdin: bytes, paths: list[str]) -> tuple[list[RunResult], RunResult]:
    """Every copy and the manager at once."""
    with ThreadPoolExecutor(max_workers=len(users) + 1) as pool:
        managed = pool.submit(manager.run, stdin)
        running = [pool.submit(call.run, None) for call in users]
        _nudge_until_done(managed, running, paths)
        return [r.result() for r in running], managed.result()


def _nudge_until_done(managed: Future[RunResult], running: list[Future[RunResult]], paths: list[str]) -> None:
    """Until every run has ended, the FIFOs of an ended one (a copy's two; all, once the manager has
    ended) are opened and closed again and again, so that the other side, waiting to open one whose end
    will never be opened now, goes on and sees the end of its input, as when its partner had opened the
    FIFO and died."""
    while pending := [f for f in (managed, *running) if not f.done()]:
        wait(pending, timeout=SETTLE, return_when="FIRST_COMPLETED")
        ended = (
            paths
            if managed.done()
            else [p for i, f in enumerate(running) if f.done() for p in paths[2 * i : 2 * i + 2]]
        )
        for path in ended:
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC))
        if ended:
            time.sleep(SETTLE)


def _judged(
    job: Job, manager: ValidatorProgram, users: list[RunResult], managed: RunResult, verdict: Callable[..., Verdict]
) -> Verdict:
    """As CMS judges it: the solver's time (all its copies' CPU time together), then the manager's own
    failure (it did not end, crashed, or printed no score: nothing a solver did is judged then), then the
    solver's crash, then the manager's score. A copy that waited for a manager that never ended is the
    manager's failure; a manager that failed after a copy crashed is that crash; a copy killed by a
    broken pipe after the manager rejected it is that rejection."""
    seconds = sum(r.cpu for r in users)
    judged = judge_checker("cms", manager.name, managed)
    for result in users:
        over = over_time(replace(result, cpu=seconds), job)
        if over and not (managed.timed_out and seconds <= job.time_limit):
            return verdict("TLE", over, seconds)
    crashed = sorted((r for r in users if r.signal is not None or r.exit_code != 0), key=lambda r: r.ended)
    first = crashed[0] if crashed else None
    if judged.code == "CE" and not (first and first.signal != signal.SIGPIPE and first.ended < managed.ended):
        return verdict("CE", judged.message)  # unless a copy crashed first, and the manager after it
    if first and not (judged.code == "WA" and all(r.signal == signal.SIGPIPE for r in crashed)):
        return verdict("RTE", _crash_message(first, job.limits.memory), seconds)
    return verdict(judged.code, judged.message, seconds)
