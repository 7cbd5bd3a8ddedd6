"""Verification jobs and their keys: a job per solver and sample, with its limits, and the key of
everything that can change its verdict; an entry's key text (what verifying it reads); the code
fingerprint both keys carry, so that a verdict judged by other code is not reused."""

from __future__ import annotations

import hashlib
import json
import posixpath
import resource
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..model import Checker, EntrySource, Sample
from ..sandbox.runner import Limits
from .compiler import text_digest
from .options import VerifyOptions
from .runtimes import interpreter_version
from .solvers import Solver, ValidatorProgram, run_memory

CACHE_VERSION = "3"


@dataclass(frozen=True, slots=True)
class Job:
    entry: str
    solver: Solver
    sample: Sample
    archive_dir: Path
    checker: Checker
    validator: ValidatorProgram | None
    limits: Limits
    key: str
    # The problem's limit, in seconds of CPU time (a run that used more is a Time Limit); a run is
    # stopped only at ``limits.cpu``, the margin above it, or at ``limits.wall``, the backstop.
    time_limit: float = 10.0
    interactive: bool = False  # the solver talks to the validator instead of reading the sample
    multi_pass: bool = False  # the validator may ask for another pass (feedback/nextpass.in)
    passes: int = 2  # at most this many passes (limits: validation_passes)
    io_files: tuple[str, str] = ("", "")  # the files the solver reads and writes instead of stdin, stdout
    # A CMS communication task's (copies of the solver run at once, whether they talk through FIFOs named
    # in their arguments rather than their standard streams); None for any other task
    communication: tuple[int, bool] | None = None


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The verifier's and the sandbox's code: a change to how runs are made or judged is a change to
    every entry's key and every sample's (a verdict judged by other code is not this code's verdict)."""
    here = Path(__file__).parent
    sandbox = here.parent / "sandbox"
    code = [*sorted(here.glob("*.py")), *(sandbox / name for name in ("runner.py", "launcher.py", "descriptors.py"))]
    return text_digest("".join(p.read_text(encoding="utf-8") for p in code))


def _read_text(source: EntrySource) -> str:
    """What verifying an entry reads of it, as text: its path, metadata and layout, and its solvers',
    validator's and samples' files by digest. Not its write-up or statement: an author editing those
    keeps the entry's verification, and the dev server need not save the cache for each save."""
    layout = source.layout
    read = {*layout.solvers, *layout.graders, *(layout.validator.files if layout.validator else ())}
    scripted = tuple(n for n in layout.solvers if n.endswith("/"))
    read.update(f.name for f in source.files if scripted and f.name.startswith(scripted))
    read.update(name for s in source.samples for name in (s.input_file, s.answer_file) if name)
    read.update(f.name for f in source.files if f.name.startswith("include/"))
    files = tuple((f.name, f.digest, f.binary) for f in source.files if f.name in read)
    samples = tuple((s.name, s.input_file, s.answer_file, s.line) for s in source.samples)
    return repr((source.path, source.meta, layout, files, samples))


MARGIN_FACTOR = 2.0  # a run is stopped at twice its time limit of CPU time,


MARGIN_SECONDS = 1.0  # and at least a second over it;


WALL_FACTOR = 2.0  # and, whatever it used, at twice that in wall-clock time


def safety_margin(limit: float, factor: float = MARGIN_FACTOR, seconds: float = MARGIN_SECONDS) -> float:
    """How much CPU time a run may use before it is stopped: above its limit, so that the page can
    say how far over the limit a slow run went (any CPU time over the limit is a Time Limit)."""
    return max(limit * factor, limit + seconds)


def wall_backstop(cpu_stop: float) -> float:
    """When a run is stopped whatever CPU time it used: one that sleeps, or waits for input that does
    not come, uses none, and judges end it on the clock too, at a multiple of its limit. Generous,
    so that a busy machine, which slows a run's clock but not its CPU time, does not reach it."""
    return WALL_FACTOR * cpu_stop


def _jobs(
    source: EntrySource, solver: Solver, folder: Path, validator: ValidatorProgram | None, options: VerifyOptions
) -> list[Job]:
    """One job per sample, each with the key of everything that can change its verdict: the JSON
    text of a list whose middle two items are the sample's and the answer's digests."""
    time_limit = source.meta.time_limit or options.time_limit
    stop = safety_margin(time_limit, *options.time_margin)
    memory = run_memory(source, options)
    # As judges give it, the stack may take the whole memory: it is unlimited, within the address space.
    # Not the memory itself: glibc gives each new thread a stack of the stack limit's size, which never
    # fits in an address space of the same size (Python's threading, a C++ std::thread: "can't start").
    limits = Limits(wall=wall_backstop(stop), memory=memory, stack=resource.RLIM_INFINITY, cpu=stop)
    # the compiled (or script-built) program's key
    program = "/".join(p.parent.name for p in (solver.program, solver.built) if p is not None)
    communication = _communication(source, validator)
    before: list[str | None] = [CACHE_VERSION, _code_fingerprint(), solver.language, solver.digest]
    before += [" ".join(solver.argv), program, interpreter_version(solver.interpreter) if solver.interpreter else ""]
    after = [
        repr(source.meta.checker),
        validator.digest if validator else None,
        validator.note if validator else None,
        interpreter_version(options.interpreter) if solver.language == "python" or validator else "",
        repr(limits),
        repr(time_limit),  # what the run's CPU time is judged against (the limits are only where it stops)
        repr((source.meta.interactive, source.meta.multi_pass, source.meta.validation_passes)),
        repr(source.meta.io_files),
        repr((source.meta.communication, communication)),
    ]
    head, tail = _json_list(before)[:-1] + ", ", ", " + _json_list(after)[1:]
    jobs = []
    for sample in (s for s in source.samples if s.runnable):
        answer = "null" if sample.answer is None else _QUOTED(text_digest(sample.answer))
        given = text_digest(sample.input) + (f" (line {sample.line})" if sample.line else "")  # a statement's text
        text = f"{head}{_QUOTED(given)}, {answer}{tail}"
        key = hashlib.sha256(text.encode()).hexdigest()
        jobs.append(
            Job(
                source.path, solver, sample, folder, source.meta.checker, validator, limits, key, time_limit,
                source.meta.interactive, source.meta.multi_pass, source.meta.validation_passes,
                source.meta.io_files, communication,
            )
        )  # fmt: skip
    return jobs


def _communication(source: EntrySource, validator: ValidatorProgram | None) -> tuple[int, bool] | None:
    """How a CMS communication task's solver talks to its manager: ``user_io``, else as CMS's loader
    decides it (FIFOs named in the arguments when a stub is linked, else the standard streams)."""
    if validator is None or validator.convention != "cms-manager":
        return None
    processes, user_io = source.meta.communication
    stub = any(posixpath.basename(n).startswith("stub.") for n in source.layout.graders)
    return processes, user_io == "fifo_io" or (not user_io and stub)


_QUOTED = json.encoder.encode_basestring_ascii  # the C encoder json.dumps uses


def _json_list(parts: list[str | None]) -> str:
    """``json.dumps(parts)``, the same text, without building an encoder per call (5,000 keys a build)."""
    return "[" + ", ".join("null" if p is None else _QUOTED(p) for p in parts) + "]"
