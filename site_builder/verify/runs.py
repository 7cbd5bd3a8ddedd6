"""Running a job: the solver in the sandbox on its sample, pass after pass for a multi-pass problem, its
files in and out for a task that reads and writes files; or, for an interactive problem, the solver and
the output validator talking through pipes. Each result is judged by ``judging.py``."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ..model import Verdict
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..sandbox.interactive import Call, run_interactive
from ..sandbox.runner import RunResult, Toolchain
from .checkers import judge_interactor
from .communication import run_communication
from .jobs import Job
from .judging import MAX_SAMPLE, _crash_message, _validator_failure, _validator_files_for, judge, over_time
from .options import VerifyOptions
from .runtimes import python_runtime
from .solvers import ValidatorProgram, runtime_language
from .toolchains import Installed, installed, sandboxed


def run_job(job: Job, options: VerifyOptions) -> Verdict:
    """Run one solver on one sample and judge the result."""
    solver = job.solver
    tools = installed(runtime_language(solver.language), solver.interpreter or options.interpreter)
    if job.communication is not None and job.validator is not None:
        return run_communication(job, job.validator, tools, options)
    if job.interactive and job.validator is not None:
        return _interactive(job, job.validator, tools, options)
    try:
        sample = job.sample  # a statement's example is its text; a sample file, its bytes
        stdin = sample.input.encode() if sample.line else read_regular(_sample_input(job), MAX_SAMPLE)
        files = solver.files()
    except OSError as error:
        return Verdict(job.sample.name, "RTE", 0.0, "", False, f"cannot read {error.filename}: {error.strerror}")
    feedback: dict[str, bytes] = {}
    passes = job.passes if job.multi_pass else 1
    for number in range(1, passes + 1):
        result = _run_solver(job, tools, stdin, files)
        verdict = judge(job, result, options, feedback if job.multi_pass else None)
        nextpass = feedback.pop("nextpass.in", None)
        if not job.multi_pass:
            return verdict
        if verdict.code != "AC" or nextpass is None:
            return replace(verdict, message=f"pass {number} of {passes}: {verdict.message}".rstrip(": "))
        if number == passes:
            message = f"the validator asked for a pass after the last one ({passes}) allowed"
            return replace(verdict, code="CE", message=message)
        stdin = nextpass
        # The next pass's input is the validator's input too, as BAPCtools and DOMjudge give it.
        job = replace(job, sample=replace(job.sample, input=nextpass.decode("utf-8", "replace")))
    raise AssertionError("unreachable")


def _sample_input(job: Job) -> Path:
    """The sample's input file, a symbolic link followed when it leads to a file of the archive, as the
    archive's loader follows it to show the sample (task folders link ``att/input0.txt`` to
    ``statement/input0.txt``; a contest's problems may share one sample); any other link is left for
    ``read_regular`` to refuse."""
    path = job.archive_dir / job.sample.input_file
    if not path.is_symlink():
        return path
    archive = job.archive_dir
    for _ in Path(job.entry).parts:  # the problem folder is the archive's folder joined with its path
        archive = archive.parent
    real, root = os.path.realpath(path), os.path.realpath(archive)
    return Path(real) if real.startswith(root + os.sep) else path


def _run_solver(job: Job, tools: Installed, stdin: bytes, files: dict[str, bytes | tuple[bytes, int]]) -> RunResult:
    """One run of the job's solver on ``stdin``; a task whose solutions read and write files (a CMS
    task's ``infile``, ``outfile``) gets the input as that file too, and its output is what that file holds,
    else what it printed: CMS compiles with ``EVAL`` defined, which the build does not, and graders choose
    the files or the standard streams by it (``#ifdef EVAL``)."""
    infile, outfile = job.io_files
    if infile:
        files = {**files, infile: stdin}
    result = sandbox.run(
        list(job.solver.argv),
        stdin,
        tools.limits(job.limits),
        files=files,
        toolchain=sandboxed(tools.toolchain),
        collect=outfile or None,
    )
    if not outfile or not result.collected:  # no output file: what it printed
        return result
    return replace(result, stdout=result.collected)


# Two ends this close are one: a solver that loses its validator ends a moment after it (end of
# input, a broken pipe), and two launchers notice their runs' ends a few milliseconds apart. Then
# the validator's rejection decides (problemtools tells the order apart; a solver that crashed
# within that moment of its validator's rejection is Wrong Answer here, with the crash noted).
SAME_MOMENT = 0.05


def _interactive(job: Job, validator: ValidatorProgram, tools: Installed, options: VerifyOptions) -> Verdict:
    """The solver and the validator talking through pipes, both sandboxed; judged as judges do: the
    validator's rejection first, then the solver's time and crash, then the validator's acceptance."""
    sample = job.sample

    def verdict(code: str, message: str, seconds: float = 0.0) -> Verdict:
        return Verdict(sample.name, code, round(seconds, 3), "", False, message)

    if validator.note:
        return verdict("CE" if validator.broken else "NJ", validator.note)
    try:
        files = job.solver.files()
        checking = _validator_files_for(validator, sample.input, sample.answer or "")
    except OSError as error:
        return verdict("CE", f"cannot read {error.filename}: {error.strerror}")
    testlib = validator.convention == "testlib-interactor"  # interactor input output: 0 accepts
    arguments = ["input", "output"] if testlib else ["input", "answer", "feedback/", *validator.args]
    solver_run, checked = run_interactive(
        Call(list(job.solver.argv), tools.limits(job.limits), files, sandboxed(tools.toolchain)),
        Call(
            [*validator.argv, *arguments],
            job.limits,
            checking,
            sandboxed(python_runtime(options.interpreter)[1]) if not validator.toolchain_free else Toolchain(),
            ("feedback",),
            "feedback/judgemessage.txt",
        ),
    )
    seconds = solver_run.cpu
    message = checked.collected[:8192].decode("utf-8", "replace").strip()[:2000]
    rejected = checked.exit_code == 43
    if testlib and not checked.timed_out:
        judged = judge_interactor(validator.name, checked)
        if judged.code == "CE":
            return verdict("CE", judged.message)
        rejected, message = judged.code == "WA", judged.message
    elif checked.exit_code not in (42, 43) and not checked.timed_out:
        return verdict("CE", _validator_failure(validator, checked))
    moment = 0.0 if over_time(solver_run, job) else SAME_MOMENT  # a solver stopped for its time is what ended it
    if rejected and checked.ended <= solver_run.ended + moment:  # the validator ended first: its verdict stands
        crashed = solver_run.signal is not None or solver_run.exit_code not in (0, None)
        also = (
            f"\n(the solver also ended with {_crash_message(solver_run, job.limits.memory).splitlines()[0]})"
            if crashed
            else ""
        )
        return verdict(
            "WA", (message or f"{validator.name} rejected the interaction") + also, min(seconds, job.time_limit)
        )
    # Either side stopped on the clock stops the other: the solver's CPU time says which of the two it was.
    if over := over_time(replace(solver_run, timed_out=solver_run.timed_out or checked.timed_out), job):
        return verdict("TLE", over, seconds)
    if solver_run.signal is not None or solver_run.exit_code != 0:
        return verdict("RTE", _crash_message(solver_run, job.limits.memory), seconds)
    if rejected:
        return verdict("WA", message or f"{validator.name} rejected the interaction", seconds)
    return verdict("AC", message, seconds)
