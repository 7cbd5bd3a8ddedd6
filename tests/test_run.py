"""What ``runner.run`` hands a program and brings back, with real launchers, with namespaces and without: its
files and their modes, its folders, its environment, a file or a folder collected after it, standard
streams that are another program's pipes, descriptors passed on. (test_sandbox.py: its limits and its end.)"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from site_builder.sandbox import isolation
from site_builder.sandbox import runner as sandbox
from site_builder.sandbox.interactive import Call, run_interactive
from site_builder.sandbox.runner import Limits, Toolchain

SH = "/bin/sh"


def test_a_program_gets_its_files_folders_environment_and_input_and_a_file_is_collected(
    launchers: sandbox._Launchers,
) -> None:
    """Files are read-only unless a mode is given; the folders asked for are there to write in; home and
    the temporary folder are the working folder; a descriptor passed on is its 4 (a CMS communication
    task's FIFO); the file named is brought back after the run."""
    script = (
        "stat -c '%a %n' main.sh data/in.txt tool\n"
        '[ "$HOME" = "$PWD" ] && [ "$TMPDIR" = "$PWD" ] && echo home and temporary folder here\n'
        f'[ "$PWD" = {isolation.WORK} ] && echo in the sandbox || echo on the host\n'
        "cat; cat data/in.txt; ./tool; cat <&4\n"
        "echo collected > out/deep/result\n"
    )
    files: dict[str, bytes | tuple[bytes, int]] = {
        "main.sh": script.encode(),
        "data/in.txt": b"42\n",
        "tool": (b"#!/bin/sh\necho tool ran\n", 0o555),
    }
    passed, passing = os.pipe2(os.O_CLOEXEC)
    os.write(passing, b"passed on\n")
    os.close(passing)
    try:
        done = sandbox.run(
            [SH, "main.sh"],
            b"input\n",
            Limits(wall=10),
            files=files,
            dirs=("out/deep",),
            collect="out/deep/result",
            passed=(passed,),
        )
    finally:
        os.close(passed)
    where = "in the sandbox" if launchers.namespaces else "on the host"
    expected = "444 main.sh\n444 data/in.txt\n555 tool\nhome and temporary folder here\n"
    expected += f"{where}\ninput\n42\ntool ran\npassed on\n"
    assert (done.stdout.decode(), done.stderr, done.exit_code, done.collected) == (expected, "", 0, b"collected\n")
    assert 0 < done.wall < 10


def test_a_folder_is_collected_as_an_archive_of_its_files(launchers: sandbox._Launchers) -> None:
    script = b"mkdir -p out/sub && echo a > out/a && echo b > out/sub/b && echo written && cat"  # no input: none
    done = sandbox.run([SH, "-c", script.decode()], None, Limits(wall=10), collect="out/")
    with tarfile.open(fileobj=io.BytesIO(done.collected)) as archive:
        found = {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}  # type: ignore[union-attr]
    assert (done.stdout, found) == (b"written\n", {"./a": b"a\n", "./sub/b": b"b\n"})


def test_a_program_on_another_programs_pipes_ends_its_output_when_it_closes_it(launchers: sandbox._Launchers) -> None:
    """An interactive problem's two runs talk through pipes: the program reads the pipe given as its input
    and writes the one given as its output; when it closes its output, the
    other side sees the end at once, though the program (and its collecting shell) goes on, here until
    the other side answers it. A shell that kept the pipe open would leave both waiting until the deadline."""
    to_program, from_test = os.pipe2(os.O_CLOEXEC)
    to_test, from_program = os.pipe2(os.O_CLOEXEC)
    heard: list[bytes] = []

    def other_side() -> None:
        with os.fdopen(to_test, "rb") as reading:
            heard.append(reading.read())  # until the end of the program's output
        with os.fdopen(from_test, "wb") as answering:
            answering.write(b"bye\n")

    script = "read line; echo got $line; exec >&-; read answer; echo $answer > out"
    thread = threading.Thread(target=other_side, daemon=True)
    os.write(from_test, b"hello\n")
    thread.start()
    limits = Limits(wall=5)
    done = sandbox.run([SH, "-c", script], None, limits, collect="out", stdin_fd=to_program, stdout_fd=from_program)
    thread.join(10)
    assert (heard, done.stdout, done.collected, done.timed_out) == ([b"got hello\n"], b"", b"bye\n", False)


def test_an_interactive_validator_and_a_submission_talk_through_pipes(launchers: sandbox._Launchers) -> None:
    """``run_interactive``: each program's output is the other's input, and each runs as its ``Call`` says
    (its files, folders, toolchain, collected file and the descriptors passed on to it)."""
    judge = b"echo 21; read a; echo 21 $a $(cat /opt/judge/name) > feedback/message; [ $a = 42 ] && exit 42"
    validator = Call(
        [SH, "judge.sh"],
        Limits(wall=10),
        files={"judge.sh": judge},
        toolchain=Toolchain(made=(("/opt/judge/name", b"judge"),)),  # outside the working folder, in a sandbox
        dirs=("feedback",),
        collect="feedback/message",
    )
    passed, passing = os.pipe2(os.O_CLOEXEC)
    os.write(passing, b"2\n")
    os.close(passing)
    script = "read n; read f <&4; echo $((n * f * $(cat factor)))"
    submission = Call([SH, "-c", script], Limits(wall=10), files={"factor": b"1"}, passed=(passed,))
    try:
        solved, judged = run_interactive(submission, validator)
        # the collecting shell of a run on pipes hands them over through descriptors 4 and 5
        with pytest.raises(ValueError) as info:
            run_interactive(submission, replace(validator, passed=(passed,)))
    finally:
        os.close(passed)
    assert (solved.exit_code, solved.stdout, solved.timed_out) == (0, b"", False)
    assert (judged.exit_code, judged.stdout) == (42, b"")
    assert judged.collected == (b"21 42 judge\n" if launchers.namespaces else b"21 42\n")
    assert str(info.value) == "a run on another run's pipes that collects a file takes no descriptors passed on"
    # alone, a Call runs as ``run`` does, on its input
    assert Call([SH, "-c", "cat"], Limits(wall=10)).run(b"given\n").stdout == b"given\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="counts the processes of a user of its own, which only root can become")
def test_the_processes_a_user_already_has_are_counted() -> None:
    """An ordinary user's runs may fork as many processes as the limit allows beyond those it has: the
    count is of that user's processes (here of a user with none but those of the test)."""
    ready, readied = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.setresuid(54321, 54321, 54321)
            counts = [sandbox._running_processes()]
            for _ in range(3):
                if os.fork() == 0:
                    os.read(ready, 1)
                    os._exit(0)
            counts.append(sandbox._running_processes())
            os.write(readied, b"abc")
            os.write(2, f"{counts}\n".encode()) if counts != [1, 4] else None
            os._exit(0 if counts == [1, 4] else 1)
        finally:
            os._exit(2)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    assert sandbox._running_processes() >= 1  # this one, at least (and root's are counted here too)


def test_a_forked_child_starts_launchers_of_its_own_and_leaves_its_parents_alone() -> None:
    """A render worker forked from the builder runs things on launchers of its own, and its exit (which
    closes every launcher it knows of) leaves the builder's, which the builder goes on using."""
    pool = sandbox._LAUNCHERS
    sandbox.run(["true"], None, Limits(wall=10))
    ours = {launcher.process.pid for launcher in pool.started}
    out, into = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            done = sandbox.run(["true"], None, Limits(wall=10))
            theirs = {launcher.process.pid for launcher in sandbox._LAUNCHERS.started}
            os.write(into, f"{done.exit_code} {bool(theirs) and not theirs & ours}".encode())
            sandbox._LAUNCHERS.close()  # as a worker's exit does (atexit)
        finally:
            os._exit(0)
    os.close(into)
    with os.fdopen(out, "rb") as reading:
        said = reading.read().decode()
    os.waitpid(child, 0)
    assert said == "0 True"
    assert sandbox.run(["true"], None, Limits(wall=10)).exit_code == 0
    assert {launcher.process.pid for launcher in pool.started} == ours


def test_a_pool_forgotten_after_a_fork_holds_nothing_and_can_be_used() -> None:
    """What the child of a fork does with the pool it inherited (above, in a child; here in this process)."""
    pool = sandbox._Launchers(namespaces=False)
    pool.lock.acquire()  # as another thread of the parent held it when the process forked
    pool.started.append(object())  # type: ignore[arg-type]
    pool.forget()
    acquired = pool.lock.acquire(timeout=1)
    if acquired:
        pool.lock.release()  # for its close at exit
    assert (pool.started, pool.idle, acquired) == ([], {}, True)


def test_a_signal_is_told_from_an_exit_code_only_through_the_collecting_shell(launchers: sandbox._Launchers) -> None:
    """The shell that collects a file reports its program killed by signal N as 128 + N; a program that
    exits with 143 itself, run alone, exited with 143."""
    killed = sandbox.run([SH, "-c", "kill -TERM $$"], None, Limits(wall=10), collect="out")
    exited = sandbox.run([SH, "-c", "exit 143"], None, Limits(wall=10))
    assert (killed.signal, killed.exit_code, exited.signal, exited.exit_code) == (15, None, None, 143)


def test_the_builders_own_launchers_sandbox_runs_wherever_a_sandbox_can_be_had() -> None:
    """In this process, and in a builder started afresh (whose pool is made as the module is imported)."""
    code = "from site_builder.sandbox import runner; print(repr(runner.isolation_level()))"
    root = Path(sandbox.__file__).resolve().parents[2]  # the site_builder this test imported, a mutant's too
    env = {**os.environ, "PYTHONPATH": str(root)}
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=60
    )
    assert (sandbox.isolation_level(), fresh.stdout) == (isolation.detect(), f"{isolation.detect()!r}\n")
