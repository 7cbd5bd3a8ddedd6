"""Cache keys by construction: every input that can change a verdict changes its key.

The inputs are walked field by field (``dataclasses.fields``), so a field added later to what a job
is made from is changed here too, and must either change the key or be listed in ``NOT_A_VERDICT``
with the reason it cannot change a verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from site_builder.model import Checker, EntrySource, Metadata, Sample, Subtask
from site_builder.verify import jobs
from site_builder.verify.jobs import Solver, ValidatorProgram, VerifyOptions

# (class, field) -> why changing it cannot change a verdict (or which other field carries it to the key).
NOT_A_VERDICT: dict[tuple[type, str], str] = {
    (Solver, "name"): "the same source in another file is judged the same",
    (Solver, "note"): "a solver with a note is not run: it has no jobs",
    (ValidatorProgram, "name"): "how messages name it",
    (ValidatorProgram, "argv"): "made from the interpreter (keyed by version) and the files (the digest)",
    (ValidatorProgram, "files"): "the digest is of every file and argument",
    (ValidatorProgram, "args"): "the digest is of every file and argument",
    (ValidatorProgram, "broken"): "a broken validator has a note, which is keyed",
    (ValidatorProgram, "program"): "compiled from the files the digest covers",
    (ValidatorProgram, "built"): "built by the validator's own build script from the files the digest covers",
    (ValidatorProgram, "convention"): "in the validator's digest (how it is called and read)",
    (Sample, "name"): "the same input and answer are judged the same under any name",
    (Sample, "input_file"): "only where the input came from",
    (Sample, "answer_file"): "only where the answer came from",
    (Sample, "transcript"): "shown on the page instead of input and answer, never run",
    (Sample, "transcript_file"): "only where the transcript came from",
    (VerifyOptions, "jobs"): "how many run at once",
    (VerifyOptions, "rerun"): "runs every job again, whatever the cache holds",
    (VerifyOptions, "cache_dir"): "where the cache is",
    (VerifyOptions, "cpp_standard"): "reaches the key through the compiled program's folder (the compiler's key)",
    (VerifyOptions, "time_limit"): "the default for problems without one; the base problem has one (see below)",
    (VerifyOptions, "memory"): "the default for problems without one; the base problem has one (see below)",
    **{
        (Metadata, name): "shown on the page, never used to run or judge"
        for name in ("title", "label", "source", "year", "tags", "rating", "summary", "status", "credits", "source_url")
        if name
    },
    **{(Metadata, name): "shown on the page" for name in ("license", "rights_owner", "validation")},
    (Metadata, "scoring"): "shown on the page (a subtasks table); samples are judged as in any problem",
    (Metadata, "subtasks"): "shown on the page",
    (Metadata, "validator_args"): "in the validator's digest",
    (Metadata, "package"): "changes which files and arguments solvers and validators get: in their digests",
    (Metadata, "constants"): "substituted into solvers and validators before their digests are taken",
}


def changed(value: Any) -> Iterator[tuple[str, Any]]:
    """Each way of changing ``value`` a little: (which field, the changed value); fields of a dataclass
    one at a time, recursively."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            for where, new in changed(getattr(value, f.name)):
                here = f"{type(value).__name__}.{f.name}"
                yield (
                    f"{here}/{where}" if where.startswith(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) else here + where,
                    (dataclasses.replace(value, **{f.name: new})),
                )
        return
    if isinstance(value, bool):
        yield "", not value
    elif isinstance(value, int | float):
        yield "", value * 2 + 1
    elif isinstance(value, str):
        yield "", value + "x"
    elif isinstance(value, Path):
        yield "", value.parent / "x" / value.name  # another folder: compiled programs are keyed by theirs
    elif isinstance(value, tuple) and value and all(isinstance(v, int | float) for v in value):
        for i, item in enumerate(value):  # a pair of numbers keeps its length
            yield f"[{i}]", (*value[:i], item * 2 + 1, *value[i + 1 :])
    elif isinstance(value, tuple):
        yield "", (*value, value[-1] if value else "x")
    else:
        raise AssertionError(f"no way to change {value!r}: give the base object a value of a known type")


SAMPLE = Sample("1", "samples/1.in", "samples/1.ans", "1 2\n", "3\n", "transcript", "samples/1.interaction")
META = Metadata(
    title="T", label="A", source="S", year=2020, tags=("x",), rating=3, summary="s", time_limit=2.0,
    memory_limit=256, checker=Checker("tokens", False, 1e-6, 1e-6), source_url="u", license="l",
    rights_owner="r", validator_args=("a",), package="2025-09", validation="custom", interactive=False,
    multi_pass=False, validation_passes=2, constants=(("n", "5"),), credits=(("Authors", ("A",)),),
    scoring=False, subtasks=(Subtask("g1", 10.0),),
)  # fmt: skip
SOLVER = Solver(
    "solution.py", "python", "print(3)", ("python3", "solution.py"), "", Path("/c/abc/program"), (("a", "b"),)
)
VALIDATOR = ValidatorProgram(
    "v.py",
    ("python3", "v.py"),
    (("v.py", "x"),),
    ("a",),
    "d1",
    "",
    False,
    Path("/c/v/validator"),
    "kattis",
    Path("/c/v/built.tar"),
)
OPTIONS = VerifyOptions(interpreter="/usr/bin/python3", time_limit=3.0, time_margin=(2.0, 1.0))


def source(meta: Metadata = META, sample: Sample = SAMPLE) -> EntrySource:
    return EntrySource("t/A-x", "archive", "t", (), None, "x", None, meta, (), (sample,), "2020-01-01")


def key(
    meta: Metadata = META,
    sample: Sample = SAMPLE,
    solver: Solver = SOLVER,
    validator: ValidatorProgram | None = VALIDATOR,
    options: VerifyOptions = OPTIONS,
) -> str:
    (job,) = jobs._jobs(source(meta, sample), solver, Path("/archive"), validator, options)
    return job.key


@pytest.fixture(autouse=True)
def versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every interpreter path its own version, so that a changed interpreter is a changed version."""
    monkeypatch.setattr(jobs, "interpreter_version", lambda path: f"version of {path}")


def variants() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, base in [("meta", META), ("sample", SAMPLE), ("solver", SOLVER), ("validator", VALIDATOR)]:
        for where, new in changed(base):
            yield where, {name: new}
    for where, new in changed(OPTIONS):
        yield where, {"options": new}


def _field(where: str) -> tuple[type, str]:
    """The innermost class and field of a change: "Metadata.checker/Checker.mode" -> (Checker, "mode")."""
    owner, name = where.rsplit("/", 1)[-1].split("[")[0].split(".")
    classes = {c.__name__: c for c in (Metadata, Sample, Solver, ValidatorProgram, VerifyOptions, Checker)}
    return classes[owner], name


def test_every_input_of_a_verdict_changes_its_key() -> None:
    base = key()
    unchanged = [where for where, change in variants() if key(**change) == base and _field(where) not in NOT_A_VERDICT]
    assert unchanged == [], "these change what a run is judged by, but not its cache key"


def test_what_cannot_change_a_verdict_keeps_its_key() -> None:
    """The list above is honest: nothing in it changes the key (else it does not belong there)."""
    base = key()
    keyed = [where for where, change in variants() if _field(where) in NOT_A_VERDICT and key(**change) != base]
    assert keyed == []


def test_the_checker_the_limits_the_sample_and_the_code_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ones that matter most, by name: a float tolerance removed must not reuse an Accepted."""
    base = key()
    assert key(meta=dataclasses.replace(META, checker=Checker("tokens", False, None, 1e-6))) != base
    assert key(meta=dataclasses.replace(META, checker=Checker("exact"))) != base
    assert key(meta=dataclasses.replace(META, time_limit=None)) != base  # the build's default then
    assert key(
        meta=dataclasses.replace(META, time_limit=None), options=dataclasses.replace(OPTIONS, time_limit=9)
    ) != key(meta=dataclasses.replace(META, time_limit=None))
    assert key(meta=dataclasses.replace(META, memory_limit=None)) != base  # the format's default then
    unset = dataclasses.replace(META, memory_limit=None, package=None)  # no package: the build's default
    assert key(meta=unset, options=dataclasses.replace(OPTIONS, memory=512 << 20)) != key(meta=unset)
    assert key(sample=dataclasses.replace(SAMPLE, answer=None)) != base
    assert key(validator=None) != base
    monkeypatch.setattr(jobs, "_code_fingerprint", lambda: "other code")
    assert key() != base
    monkeypatch.setattr(jobs, "CACHE_VERSION", "other layout")
    assert key() != base
