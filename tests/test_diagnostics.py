"""What a verification tells the build's report (``verify/diagnostics.py``): each warning and error,
its file, line and words exactly, from runs made by hand (no solver runs here)."""

from __future__ import annotations

from conftest import an_entry

from site_builder.errors import Diagnostic
from site_builder.model import CHECKER_NOT_BUILT, Entry, Sample, SolverRun, Verdict
from site_builder.verify.diagnostics import verification_diagnostics

SAMPLES = (
    Sample("1", "data/sample/1.in", "data/sample/1.ans", "", ""),
    Sample("2", "data/sample/2.in", None, "", None),
)


def entry(*runs: SolverRun, samples: tuple[Sample, ...] = SAMPLES) -> Entry:
    return an_entry("t/A-x", samples=samples, display_path="archive/t/A-x", runs=runs)


def run(solver: str, *verdicts: tuple[str, str, str], note: str = "") -> SolverRun:
    """``verdicts``: (sample, code, message) each."""
    return SolverRun(solver, "cpp", "h", tuple(Verdict(s, code, 0.1, "", False, m) for s, code, m in verdicts), note)


def said(found: list[Diagnostic]) -> list[tuple[str, int, str, str]]:
    return [(d.path, d.line, d.message, d.level) for d in found]


def test_accepted_runs_say_nothing() -> None:
    assert verification_diagnostics(entry(run("a.py", ("1", "AC", "fine"), ("2", "AC", "")))) == []
    assert verification_diagnostics(entry()) == []


def test_a_failing_sample_is_a_warning_at_the_samples_file_with_the_first_line_of_why() -> None:
    runs = run("a.cpp", ("1", "WA", "line 2 differs\nexpected 3, got 4"), ("2", "TLE", ""), ("1", "RTE", "\n"))
    assert said(verification_diagnostics(entry(runs))) == [
        ("archive/t/A-x/data/sample/1.in", 0, "a.cpp: Wrong Answer: line 2 differs", "warning"),
        ("archive/t/A-x/data/sample/2.in", 0, "a.cpp: Time Limit", "warning"),
        ("archive/t/A-x/data/sample/1.in", 0, "a.cpp: Runtime Error", "warning"),
    ]


def test_a_statement_s_example_is_named_at_its_line_in_the_statement() -> None:
    example = (Sample("1", "statement.tex", "statement.tex", "1\n", "2\n", line=14),)
    found = verification_diagnostics(entry(run("a.cpp", ("1", "WA", "no")), samples=example))
    assert said(found) == [("archive/t/A-x/statement.tex", 14, "a.cpp: Wrong Answer: no", "warning")]


def test_a_solver_that_does_not_compile_is_a_warning_at_the_compilers_line() -> None:
    note = "compile error:\nIn function 'int main()':\na.cpp:7:3: error: 'x' was not declared\n  7 | x;\n"
    java = "compile error:\nMain.java:4: error: ';' expected\n"
    elsewhere = "compile error:\nsrc/main/Main.java:9: error: x\n"  # the same name in a folder of the build's
    header = "compile error:\nIn file included from b.cc:1:\n./tree.h:3:1: error: expected ';'\n"
    found = verification_diagnostics(
        entry(
            run("a.cpp", note=note),
            run("submissions/accepted/Main.java", note=java),
            run("b.cc", note=header),
            run("Main.java", note=elsewhere),
            run("c.cc", note="compile error:\n\n  \n"),
        )
    )
    assert said(found) == [
        ("archive/t/A-x/a.cpp", 7, "does not compile: a.cpp:7:3: error: 'x' was not declared", "warning"),
        (
            "archive/t/A-x/submissions/accepted/Main.java",
            4,
            "does not compile: Main.java:4: error: ';' expected",
            "warning",
        ),
        ("archive/t/A-x/b.cc", 0, "does not compile: ./tree.h:3:1: error: expected ';'", "warning"),  # not b.cc's line
        ("archive/t/A-x/Main.java", 9, "does not compile: src/main/Main.java:9: error: x", "warning"),
        ("archive/t/A-x/c.cc", 0, "does not compile (the compiler said nothing)", "warning"),
    ]
    first = "compile error:\nnote: first\nwarning: unused\n"  # nothing names an error: the first line said
    assert said(verification_diagnostics(entry(run("d.cc", note=first))))[0][2] == "does not compile: note: first"
    others = ("not run: Python 2", "could not start g++", "")  # other notes are not compile errors
    assert [verification_diagnostics(entry(run("e.cc", note=n))) for n in others] == [[], [], []]


def test_a_sample_without_an_answer_is_said_once() -> None:
    one = verification_diagnostics(entry(run("a.py", ("2", "GEN", ""))))
    two = verification_diagnostics(entry(run("a.py", ("2", "GEN", "")), run("b.py", ("2", "GEN", ""))))
    where = "archive/t/A-x/data/sample/2.in"
    assert said(one) == [
        (where, 0, "sample 2 has no answer file: the solver's output is shown, not verified", "warning")
    ]
    each = "sample 2 has no answer file: the output of each solver is shown, not verified"
    assert said(two) == [(where, 0, each, "warning")]


def test_runs_not_judged_for_one_reason_are_one_warning_and_each_reason_its_own() -> None:
    found = verification_diagnostics(
        entry(
            run("a.py", ("1", "NJ", "no validator\nmore"), ("2", "NJ", "no validator")),
            run("b.py", ("2", "NJ", "no validator"), ("1", "NJ", "other reason")),
        )
    )
    assert said(found) == [
        ("archive/t/A-x/data/sample/1.in", 0, "Not Judged (3 runs): no validator", "warning"),
        ("archive/t/A-x/data/sample/1.in", 0, "Not Judged (b.py on sample 1): other reason", "warning"),
    ]
    alone = verification_diagnostics(entry(run("b.py", ("2", "AC", ""), ("2", "NJ", "why"))))
    assert said(alone) == [("archive/t/A-x/data/sample/2.in", 0, "Not Judged (b.py on sample 2): why", "warning")]


def test_a_checker_that_crashes_is_one_error_per_way_it_failed_naming_the_runs_it_stopped() -> None:
    crash = "checker.py failed (exit code 1); it must exit with 42 or 43. It printed:\nTraceback\nValueError: bad"
    found = verification_diagnostics(
        entry(
            run("a.py", ("2", "CE", crash), ("1", "CE", crash.replace("bad", "worse"))),
            run("b.py", ("1", "CE", "checker.py failed (timed out); it must exit with 42 or 43")),
        )
    )
    head = "checker.py failed (exit code 1); it must exit with 42 or 43. It printed:"
    assert said(found) == [
        # the first run's own words: its error line, not the second's
        ("archive/t/A-x/data/sample/2.in", 0, f"Checker crashed: {head} ValueError: bad (2 runs)", "error"),
        (
            "archive/t/A-x/data/sample/1.in",
            0,
            "Checker crashed: checker.py failed (timed out); it must exit with 42 or 43 (b.py on sample 1)",
            "error",
        ),
    ]


def test_a_checker_that_does_not_build_is_one_error_at_its_compilers_line() -> None:
    note = f"{CHECKER_NOT_BUILT}\noutput_validator/: compile error:\nIn file included\nvalidator.cpp:12:5: error: no\n"
    runs = (run("a.py", ("1", "CE", "not judged"), note=note), run("b.py", ("1", "CE", "not judged"), note=note))
    found = verification_diagnostics(entry(*runs))
    message = "Checker does not build: output_validator/: compile error: validator.cpp:12:5: error: no"
    # at the validator's file, once, before what the runs' verdicts say (the runs it stopped are named there)
    assert said(found)[0] == ("archive/t/A-x/output_validator/validator.cpp", 12, message, "error")
    assert said(found)[1:] == [
        ("archive/t/A-x/data/sample/1.in", 0, "Checker crashed: not judged (2 runs)", "error"),
    ]


def test_a_checker_error_without_a_file_and_line_is_at_the_first_sample() -> None:
    unlocated = f"{CHECKER_NOT_BUILT}\noutput_validator/: build failed:\nmake: *** missing.cpp\n"
    found = verification_diagnostics(entry(run("a.py", note=unlocated)))
    assert said(found) == [
        (
            "archive/t/A-x/data/sample/1.in",
            0,
            "Checker does not build: output_validator/: build failed: make: *** missing.cpp",
            "error",
        )
    ]
    nothing_said = f"{CHECKER_NOT_BUILT}\nchecker.py: compile error:\n"  # a head that names no folder, and no detail
    assert said(verification_diagnostics(entry(run("a.py", note=nothing_said)))) == [
        ("archive/t/A-x/data/sample/1.in", 0, "Checker does not build: checker.py: compile error:", "error")
    ]
    no_samples = verification_diagnostics(entry(run("a.py", note=unlocated), samples=()))
    assert no_samples == []  # nothing was to be judged


def test_checker_failures_are_told_apart_by_their_first_line() -> None:
    found = verification_diagnostics(
        entry(run("a.py", ("1", "CE", "checker.py failed (exit code 3)")), run("b.py", ("1", "CE", "x.py failed")))
    )
    assert [d.message for d in found] == [
        "Checker crashed: checker.py failed (exit code 3) (a.py on sample 1)",
        "Checker crashed: x.py failed (b.py on sample 1)",
    ]


def test_a_checker_error_is_at_the_validator_s_line_only_when_its_compiler_names_both() -> None:
    unlocated = f"{CHECKER_NOT_BUILT}\noutput_validator/: compile error:\nmake: *** no rule\n"
    printed = "checker.py failed (exit code 1); it must exit with 42 or 43. It printed:\nvalidate.cpp:3: error here"
    found = verification_diagnostics(entry(run("a.py", ("1", "CE", printed), note=unlocated)))
    assert said(found) == [
        (
            "archive/t/A-x/data/sample/1.in",
            0,
            "Checker does not build: output_validator/: compile error: make: *** no rule",
            "error",
        ),
        (  # a crash's own words that look like a compiler's are not a place in the package
            "archive/t/A-x/data/sample/1.in",
            0,
            f"Checker crashed: {printed.replace(chr(10), ' ')} (a.py on sample 1)",
            "error",
        ),
    ]
