"""Judging a run: its output compared with the answer (``compare.py``) or given to the problem's output
validator (a Kattis one, a testlib or a CMS checker: ``checkers.py``), run in the sandbox; and what a
crash, a slow run or a failing validator is reported as."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable

from ..model import Verdict
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..sandbox.runner import RunResult, Toolchain
from .checkers import checker_arguments, judge_checker
from .compare import compare_output
from .jobs import Job
from .options import VerifyOptions
from .runtimes import python_runtime
from .solvers import MAX_PROGRAM, ValidatorProgram, _program_files, _unpacked_tree

SHOWN_OUTPUT = 64 * 1024


def _mib(size: int) -> str:
    return f"{size >> 30} GiB" if size % (1 << 30) == 0 else f"{size >> 20} MiB"


MAX_SAMPLE = 256 * sandbox.MiB


def judge(job: Job, result: RunResult, options: VerifyOptions, feedback: dict[str, bytes] | None = None) -> Verdict:
    """``feedback``: a multi-pass problem's feedback folder, kept from pass to pass (``nextpass.in``
    in it after a pass: the input of the next)."""
    seconds = round(result.cpu, 3)
    output_bytes = result.stdout
    output = output_bytes[:SHOWN_OUTPUT].decode("utf-8", "replace")
    truncated = len(output_bytes) > SHOWN_OUTPUT

    def verdict(code: str, message: str = "") -> Verdict:
        return Verdict(job.sample.name, code, seconds, output, truncated, message)

    if over := over_time(result, job):
        return verdict("TLE", over)
    if result.output_exceeded:
        return verdict("OLE", f"printed more than {job.limits.output // sandbox.MiB} MiB")
    if result.signal is not None or result.exit_code != 0:
        return verdict("RTE", _crash_message(result, job.limits.memory))
    if job.sample.answer is None:
        return verdict("GEN", "no answer file: this output is what the solver printed, not verified")
    if job.validator is not None:
        return _custom_check(job, job.validator, output_bytes, verdict, options, feedback)
    comparison = compare_output(output_bytes.decode("utf-8", "replace"), job.sample.answer, job.checker)
    return verdict("AC") if comparison.accepted else verdict("WA", comparison.message)


def over_time(result: RunResult, job: Job) -> str:
    """Why a run is a Time Limit ("" when it is not), as judges decide it: by the CPU time of its every
    process, which a busy machine does not inflate; by the wall-clock backstop only for a run that used
    no more than its limit of CPU time and still did not end (it sleeps, or waits for input that never comes)."""
    limit, stop = job.time_limit, job.limits.cpu_seconds
    killed = result.signal == signal.SIGKILL and result.cpu >= stop  # RLIMIT_CPU's hard limit is SIGKILL
    if result.signal == signal.SIGXCPU or killed:
        return f"stopped at {stop:g} s of CPU time: over the time limit of {limit:g} s"
    if result.cpu > limit:
        return f"CPU time {result.cpu:.2f} s: over the time limit of {limit:g} s"
    if result.timed_out:
        return (
            f"Time Limit Exceeded (wall): stopped after {job.limits.wall:g} s of wall-clock time, with "
            f"{result.cpu:.2f} s of CPU time (limit {limit:g} s): it sleeps or waits for input, or this "
            "machine was too busy to run it"
        )
    return ""


def _validator_files_for(validator: ValidatorProgram, given: str, answer: str) -> dict[str, bytes | tuple[bytes, int]]:
    files: dict[str, bytes | tuple[bytes, int]] = {name: text.encode() for name, text in validator.files}
    files.update({"input": given.encode(), "answer": answer.encode()})
    files.update(_program_files(validator.program, "validator"))
    if validator.built is not None:
        files.update(_unpacked_tree(read_regular(validator.built, MAX_PROGRAM)))
    return files


def _crash_message(result: RunResult, memory: int) -> str:
    if result.signal is not None:
        name = (
            signal.Signals(result.signal).name
            if result.signal in signal.Signals._value2member_map_
            else str(result.signal)
        )
        reason = {"SIGKILL": "killed", "SIGSEGV": "segmentation fault", "SIGXFSZ": "wrote a file over the size limit"}
        text = f"killed by {name} ({reason.get(name, 'signal')})"
    else:
        text = f"exit code {result.exit_code}"
    tail = result.stderr.strip().splitlines()[-12:]
    if said := _exception_line(tail):
        text += f": {said}"
    if any("MemoryError" in line for line in tail):
        text += f"; out of memory (limit {_mib(memory)} address space)"
    return text + ("\n" + "\n".join(tail) if tail else "")


_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))(?::\s*(.*))?$")


_PYTHON_LOCATION = re.compile(r'^\s*File "[^"]*", line (\d+)')


def _exception_line(tail: list[str]) -> str:
    """A Python traceback's last word, for a crash's first line: ``ValueError: bad``, and for a program
    Python could not compile, where: ``SyntaxError: invalid syntax (line 3)`` ("" for other output)."""
    for line in reversed(tail):
        m = _EXCEPTION.match(line)
        if m is None:
            continue
        said = line.strip()[:300]
        if m.group(1) in ("SyntaxError", "IndentationError", "TabError"):
            where = next((w.group(1) for t in tail if (w := _PYTHON_LOCATION.match(t))), None)
            said += f" (line {where})" if where else ""
        return said
    return ""


def _custom_check(
    job: Job,
    validator: ValidatorProgram,
    output: bytes,
    verdict: Callable[[str, str], Verdict],
    options: VerifyOptions,
    feedback: dict[str, bytes] | None = None,
) -> Verdict:
    """Kattis output validator: VALIDATOR INPUT ANSWER FEEDBACK_DIR [ARGS] < OUTPUT; 42 accepts, 43 rejects.
    With ``feedback`` (a multi-pass problem), the feedback folder's files go in and come back."""
    assert job.sample.answer is not None
    if validator.note:
        return verdict("CE" if validator.broken else "NJ", validator.note)
    try:
        files = _validator_files_for(validator, job.sample.input, job.sample.answer)
    except OSError as error:
        return verdict("CE", f"cannot read the compiled {validator.name}: {error.strerror}")
    if validator.convention != "kattis":
        return _other_check(job, validator, output, verdict, files, options)
    argv = [*validator.argv, "input", "answer", "feedback/", *validator.args]
    if feedback is not None:
        files.update({f"feedback/{name}": (data, 0o644) for name, data in feedback.items()})  # it may change them
    result = sandbox.run(
        argv,
        output,
        job.limits,
        files=files,
        toolchain=python_runtime(options.interpreter)[1] if not validator.toolchain_free else Toolchain(),
        dirs=("feedback",),
        collect="feedback/" if feedback is not None else "feedback/judgemessage.txt",
    )
    collected = result.collected
    if feedback is not None:
        feedback.clear()
        feedback.update(_unpacked(collected))
        collected = feedback.get("judgemessage.txt", b"")
    message = collected[:8192].decode("utf-8", "replace").strip()[:2000]
    if result.exit_code == 42:
        return verdict("AC", message)
    if result.exit_code == 43:
        return verdict("WA", message or f"{validator.name} rejected the output")
    return verdict("CE", _validator_failure(validator, result))


def _other_check(
    job: Job,
    validator: ValidatorProgram,
    output: bytes,
    verdict: Callable[[str, str], Verdict],
    files: dict[str, bytes | tuple[bytes, int]],
    options: VerifyOptions,
) -> Verdict:
    """A testlib checker (Polygon's) or a CMS one, given the output as a file (``checkers.py``)."""
    files["output"] = output
    argv = [*validator.argv, *checker_arguments(validator.convention)]
    toolchain = python_runtime(options.interpreter)[1] if validator.program is None else Toolchain()
    result = sandbox.run(argv, None, job.limits, files=files, toolchain=toolchain)
    judged = judge_checker(validator.convention, validator.name, result)
    return verdict(judged.code, judged.message)


def _validator_failure(validator: ValidatorProgram, result: RunResult) -> str:
    if result.timed_out:
        why = "timed out"
    elif result.signal:
        why = f"killed by signal {result.signal}"
    else:
        why = f"exit code {result.exit_code}"
    said = result.stderr.strip()[-2000:]
    return f"{validator.name} failed ({why}); it must exit with 42 or 43" + (f". It printed:\n{said}" if said else "")


def _unpacked(archive: bytes) -> dict[str, bytes]:
    """The plain files at the top of a feedback folder, from the tar a run's shell wrote (read in
    memory only: nothing is extracted anywhere)."""
    import io
    import tarfile

    found: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                if member.isfile() and name and "/" not in name and member.size <= MAX_SAMPLE:
                    data = tar.extractfile(member)
                    if data is not None:
                        found[name] = data.read()
    except (tarfile.TarError, OSError, EOFError):
        return {}
    return found
