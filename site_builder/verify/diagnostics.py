"""What a verification tells the build's report: failing samples and solvers that do not
compile as warnings, a checker that does not build or crashes as one error, at the file and line
its compiler names where it does."""

from __future__ import annotations

import posixpath
import re

from ..errors import Diagnostic
from ..model import CHECKER_NOT_BUILT, Entry, SolverRun, Verdict


def verification_diagnostics(entry: Entry) -> list[Diagnostic]:
    """Failing samples are warnings (the page shows them loudly); a broken checker is an error, once:
    a validator that does not build judges no run, and one that crashes is named once per way it failed."""
    found: list[Diagnostic] = []
    broken: dict[str, list[tuple[str, str]]] = {}  # a checker failure -> the (solver, sample) runs it stopped
    unbuilt = next((r.note.partition("\n")[2] for r in entry.runs if r.note.startswith(CHECKER_NOT_BUILT)), None)
    if unbuilt is not None and entry.samples:
        found.append(_checker_diagnostic(entry, "Checker does not build", unbuilt, []))
    unanswered: dict[str, int] = {}  # a sample without an answer file -> the solvers whose output it shows
    unjudged: dict[str, list[tuple[str, str]]] = {}  # why runs were not judged -> those (solver, sample) runs
    for run in entry.runs:
        if run.note and run.note.startswith("compile error"):
            first = _error_line(run.note.partition("\n")[2])
            where = f"{entry.display_path}/{run.solver}"
            said = "does not compile" + (f": {first}" if first else " (the compiler said nothing)")
            found.append(Diagnostic(where, _compile_line(first, run.solver), said, "warning"))
        for verdict in run.verdicts:
            if verdict.code == "CE":
                broken.setdefault(verdict.message.partition("\n")[0], []).append((run.solver, verdict.sample))
            elif verdict.code == "GEN":  # the sample's, not the solver's: said once
                unanswered[verdict.sample] = unanswered.get(verdict.sample, 0) + 1
            elif verdict.code == "NJ":  # why the validator judged nothing: the same for every run, said once
                unjudged.setdefault(verdict.message.partition("\n")[0], []).append((run.solver, verdict.sample))
            elif verdict.code != "AC":
                found.append(_verdict_diagnostic(entry, run, verdict))
    for sample, solvers in unanswered.items():
        shown = "the output of each solver" if solvers > 1 else "the solver's output"
        said = f"sample {sample} has no answer file: {shown} is shown, not verified"
        found.append(Diagnostic(f"{entry.display_path}/{_sample_input(entry, sample)}", 0, said, "warning"))
    for reason, runs in unjudged.items():
        counted = f"{runs[0][0]} on sample {runs[0][1]}" if len(runs) == 1 else f"{len(runs)} runs"
        where = f"{entry.display_path}/{_sample_input(entry, runs[0][1])}"
        found.append(Diagnostic(where, 0, f"Not Judged ({counted}): {reason}", "warning"))
    for runs in broken.values():
        solver, sample = runs[0]
        message = next(v.message for r in entry.runs if r.solver == solver for v in r.verdicts if v.sample == sample)
        found.append(_checker_diagnostic(entry, "Checker crashed", message, runs))
    return found


def _verdict_diagnostic(entry: Entry, run: SolverRun, verdict: Verdict) -> Diagnostic:
    first_line = verdict.message.splitlines()[0] if verdict.message else ""
    sample = next(s for s in entry.samples if s.name == verdict.sample)
    said = f"{run.solver}: {verdict.name}" + (f": {first_line}" if first_line else "")
    # at the sample's file (a statement's example: at its line there)
    return Diagnostic(f"{entry.display_path}/{sample.input_file}", sample.line, said, "warning")


def _checker_diagnostic(entry: Entry, what: str, message: str, runs: list[tuple[str, str]]) -> Diagnostic:
    """A checker failure at the validator's file and line when its compiler names them, else at the
    first sample it failed on (the entry's first, for one that judged none); with the compiler's error
    line, and the runs it stopped."""
    head, _, rest = message.partition("\n")
    detail = _error_line(rest)  # "compile error:" then the compiler's line; ". It printed:" then the checker's
    sample = runs[0][1] if runs else entry.samples[0].name
    where, line = f"{entry.display_path}/{_sample_input(entry, sample)}", 0
    folder = re.fullmatch(r"(\S+/): compile error:", head)
    located = re.match(r"([^:\s/]+):(\d+):", detail)
    if folder and located:
        where, line = f"{entry.display_path}/{folder.group(1)}{located.group(1)}", int(located.group(2))
    stopped = f" ({runs[0][0]} on sample {sample})" if len(runs) == 1 else f" ({len(runs)} runs)" if runs else ""
    return Diagnostic(where, line, f"{what}: {head}{' ' + detail if detail else ''}{stopped}")  # an error


def _sample_input(entry: Entry, name: str) -> str:
    return next(s.input_file for s in entry.samples if s.name == name)


def _error_line(text: str) -> str:
    """The line of a compiler's (or checker's) output that says what went wrong: the first that
    names an error, else the first that is not blank ("" for none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "error" in line.lower()), lines[0] if lines else "")


def _compile_line(message: str, solver: str) -> int:
    """The line a compiler's message names in the solver's own file (``Main.java:4: error: ...``,
    ``a.cpp:7:3: error: ...``, any language), else 0: a header's line is not the solver's."""
    match = re.match(r"(?:\./)?([^:\s]+):(\d+):", message)
    return int(match.group(2)) if match and posixpath.basename(match.group(1)) == posixpath.basename(solver) else 0
