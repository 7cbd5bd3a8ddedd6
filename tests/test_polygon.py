"""Polygon packages (problem.xml): recognition, statement, samples, solutions, testlib checkers, warnings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.errors import MetadataError
from site_builder.model import EntrySource
from site_builder.render.content import render_entry
from site_builder.sandbox.runner import RunResult
from site_builder.source.polygon import parse_problem_xml
from site_builder.source.testdata import hashed_only
from site_builder.source.walk import is_problem_folder
from site_builder.verify.checkers import judge_checker
from site_builder.verify.options import VerifyOptions
from site_builder.verify.verifier import verify_entries
from tests.conftest import ArchiveMaker, fixture_files, load_one, options_for
from tests.sitecheck import check_site

FIXTURE = Path(__file__).parent / "fixtures" / "polygon" / "P-pair-sums"
FOLDER = "polygon/P-pair-sums"
HAS_GXX = shutil.which("g++") is not None


def package(**changes: str | None) -> dict[str, str | bytes]:
    """The fixture package as ``make_archive`` files, with files changed (or removed, for None)."""
    return fixture_files(FIXTURE, FOLDER, changes)


def messages(source: EntrySource) -> list[str]:
    return [str(d) for d in source.diagnostics]


def test_problem_xml_makes_a_folder_a_polygon_package(make_archive: ArchiveMaker) -> None:
    assert is_problem_folder({"problem.xml"}) and is_problem_folder({"problem.xml.polygon"})
    _, source = load_one(make_archive, package())
    meta = source.meta
    assert (meta.package, meta.title, meta.time_limit, meta.memory_limit) == ("polygon", "Pair Sums", 2.0, 256)
    assert meta.tags == ("implementation", "math") and messages(source) == []


def test_the_statement_is_composed_from_its_sections_and_the_tutorial_is_the_editorial(
    make_archive: ArchiveMaker,
) -> None:
    _, source = load_one(make_archive, package())
    entry = render_entry(source)
    assert entry.statement is not None and entry.solution is not None
    html = entry.statement.html
    assert html.index("You are handed") < html.index(">Input<") < html.index(">Output<") < html.index(">Note<")
    assert "a 64-bit integer holds every total" in entry.solution.html
    assert "statement-sections/english/legend.tex" in [c.name for c in entry.sources]
    assert entry.package_name == "Polygon package" and entry.checking == "testlib checker (files/check.cpp)"


def test_an_error_in_a_section_names_the_section(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package(**{"statement-sections/english/output.tex": "Print \\frobnicate{n}.\n"}))
    entry = render_entry(source)
    assert any("in output.tex, line 1: unknown macro \\frobnicate" in str(d) for d in entry.diagnostics)


def test_samples_are_the_tests_marked_sample_and_other_tests_are_test_data(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package())
    assert [(s.input_file, s.answer_file, s.answer) for s in source.samples] == [
        ("tests/01", "tests/01.a", "3\n7\n"),
        ("tests/02", "tests/02.a", "0\n"),
    ]
    assert hashed_only("tests/03") and hashed_only("tests/03.a") and not hashed_only("tests/notes.txt")


def test_without_tests_the_statement_examples_are_the_samples(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package(**{f"tests/0{n}{a}": None for n in (1, 2, 3) for a in ("", ".a")}))
    assert [(s.name, s.input_file, s.answer) for s in source.samples] == [
        ("01", "statement-sections/english/example.01", "3\n7\n")
    ]


def test_solutions_by_their_tags(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package())
    assert source.layout.solvers == ("solutions/short.py", "solutions/main.cpp")
    assert source.layout.shown == ("solutions/first-only.py",)  # wrong-answer: shown, not run


def test_standard_checkers_are_our_comparisons(make_archive: ArchiveMaker) -> None:
    xml = (FIXTURE / "problem.xml").read_text()
    custom = '<checker type="testlib">\n            <source path="files/check.cpp" type="cpp.g++17"/>'
    assert custom in xml
    standard = '<checker name="std::rcmp6.cpp" type="testlib">\n            <source path="files/check.cpp"/>'
    rcmp6 = xml.replace(custom, standard)
    _, source = load_one(make_archive, package(**{"problem.xml": rcmp6}))
    assert source.layout.validator is None
    assert (source.meta.checker.float_absolute, source.meta.checker.float_relative) == (1e-6, 1e-6)
    assert render_entry(source).checking == "tokens compared, numbers within 10⁻⁶ (absolute or relative)"


def test_missing_samples_are_looked_for_in_the_packages_own_language(make_archive: ArchiveMaker) -> None:
    xml = (FIXTURE / "problem.xml").read_text().replace('language="english"', 'language="russian"')
    _, source = load_one(make_archive, {f"{FOLDER}/problem.xml": xml})
    assert any("statement-sections/russian/example.01" in m for m in messages(source))


def test_a_package_with_only_problem_xml_says_what_it_lacks(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, {f"{FOLDER}/problem.xml": (FIXTURE / "problem.xml").read_text()})
    assert messages(source) == [
        f"archive/{FOLDER}: warning: Polygon package lacks {part}"
        for part in (
            "a statement (statement-sections/english/legend.tex, or statements/english/problem.tex)",
            "samples (tests marked sample in problem.xml, or statement-sections/english/example.01)",
            "solutions/main.cpp, which problem.xml names",
            "solutions/short.py, which problem.xml names",
            "solutions/first-only.py, which problem.xml names",
            "a solution tagged main or accepted in problem.xml",
            "its checker files/check.cpp, which problem.xml names",
        )
    ]


def test_a_checker_without_testlib_h_is_named(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package(**{"files/testlib.h": None}))
    assert messages(source) == [
        f"archive/{FOLDER}: warning: Polygon package lacks files/testlib.h, which its checker files/check.cpp includes"
    ]


def test_broken_problem_xml_is_an_error_with_its_line(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package(**{"problem.xml": "<problem>\n<names>\n</problem>\n"}))
    assert messages(source)[0].startswith(f"archive/{FOLDER}/problem.xml:3: not well-formed XML: mismatched tag")
    with pytest.raises(MetadataError, match="entity declaration"):
        parse_problem_xml('<!DOCTYPE p [<!ENTITY a "aaaa">]>\n<problem/>', "problem.xml")


def run(stderr: str, exit_code: int, stdout: bytes = b"") -> RunResult:
    return RunResult(exit_code, None, 0.1, 0.1, stdout, stderr, False, False)


def test_testlib_exit_codes() -> None:
    assert judge_checker("testlib", "check.cpp", run("ok 2 numbers", 0)).code == "AC"
    assert judge_checker("testlib", "check.cpp", run("wrong answer 3 != 4", 1)).message == "wrong answer 3 != 4"
    judged = judge_checker("testlib", "check.cpp", run("wrong output format extra", 2))
    assert (judged.code, judged.message) == ("WA", "presentation error: wrong output format extra")
    points = judge_checker("testlib", "check.cpp", run("points 7.5 shorter than the jury's", 7))
    assert (points.code, points.message) == ("AC", "points 7.5 shorter than the jury's")  # a scoring problem's
    failed = judge_checker("testlib", "check.cpp", run("FAIL answer is bad", 3))
    assert failed.code == "CE" and "its own failure (exit code 3)" in failed.message
    assert "answer is bad" in failed.message


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_the_testlib_checker_judges_every_solution(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    solutions = {
        "solutions/short.py": "n = int(input())\nfor _ in range(n):\n    print(sum(map(int, input().split())) + 1)\n",
        "solutions/main.cpp": None,
        "problem.xml": (FIXTURE / "problem.xml").read_text().replace('tag="main"', 'tag="rejected"'),
    }
    archive, source = load_one(make_archive, package(**solutions))
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    [run_] = report.runs[FOLDER]
    assert [(v.code, v.message) for v in run_.verdicts] == [
        ("WA", "wrong answer total 1 is 4, expected 3"),
        ("WA", "wrong answer total 1 is 1, expected 0"),
    ]
    extra = "n = int(input())\nfor _ in range(n):\n    print(sum(map(int, input().split())))\nprint(1)\n"
    archive, source = load_one(make_archive, package(**{**solutions, "solutions/short.py": extra}))
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    assert {v.message for v in report.runs[FOLDER][0].verdicts} == {
        "presentation error: wrong output format more output than 2 totals",
        "presentation error: wrong output format more output than 1 totals",
    }


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_the_package_builds_verified(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(package())
    report = build_site(options_for(archive, tmp_path / "site"))
    problems = [str(d).replace(str(archive), "archive") for d in report.diagnostics]
    assert problems == []  # problem.xml is withheld (XML), with no warning: the page shows what it says
    page = (tmp_path / "site" / FOLDER / "index.html").read_text()
    assert "the package&#39;s description, which this page shows" in page
    assert "Verified 4/4" in page and "Polygon package" in page and "Memory limit" in page
    # The tests marked sample are published as samples; the other tests are test data (publish_data: samples).
    published = tmp_path / "site" / FOLDER / "tests"
    assert sorted(p.name for p in published.iterdir()) == ["01", "01.a", "02", "02.a"]
    assert check_site(tmp_path / "site") == []


OLYMP = r"""\begin{problem}{Pair Sums}{standard input}{standard output}{2 seconds}{256 megabytes}
You are handed pairs; print each total, as in \t{3 4}.

\InputFile
Pairs, one a line.

\OutputFile
Totals.

\Examples
\begin{example}
\exmpfile{example.01}{example.01.a}%
\exmp{9 9
}{18
}%
\end{example}
\end{problem}
"""


def test_an_olymp_sty_statement_without_sections(make_archive: ArchiveMaker) -> None:
    sections = {f"statement-sections/english/{n}.tex": None for n in ("legend", "input", "output", "notes", "name")}
    _, source = load_one(make_archive, package(**sections, **{"statements/english/problem.tex": OLYMP}))
    assert source.layout.statements == (("en", "statements/english/problem.tex"),)
    entry = render_entry(source)
    assert entry.statement is not None and entry.statement.title == "Pair Sums" and entry.diagnostics == ()
    html = entry.statement.html
    assert "as in <code>3 4</code>" in html and html.index(">Input<") < html.index(">Output<") < html.index(
        ">Examples<"
    )
    # \exmpfile shows the first sample, from its files; \exmp the second (the package's tests/02).
    assert html.count('class="statement-sample"') == 2 and "5 -5" in html and "18" not in html


def test_tests_without_answers_give_way_to_the_statement_examples(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, package(**{"tests/01.a": None, "tests/02.a": None}))
    assert [(s.input_file, s.answer_file) for s in source.samples] == [
        ("statement-sections/english/example.01", "statement-sections/english/example.01.a")
    ]


INTERACTOR = """import sys

secret = int(open(sys.argv[1]).read())
for turn in range(1, 8):
    guess = int(input())
    print("=" if guess == secret else "<" if secret < guess else ">", flush=True)
    if guess == secret:
        open(sys.argv[2], "w").write(f"{turn}\\n")
        print(f"ok guessed in {turn}", file=sys.stderr)
        sys.exit(0)
print("wrong answer no guesses left", file=sys.stderr)
sys.exit(1)
"""
GUESSER = """low, high = 1, 100
while True:
    middle = (low + high) // 2
    print(middle, flush=True)
    said = input()
    if said == "=":
        break
    low, high = (low, middle - 1) if said == "<" else (middle + 1, high)
"""


def test_a_testlib_interactor_talks_to_the_solution(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    xml = (FIXTURE / "problem.xml").read_text()
    start, end = xml.index("<checker"), xml.index("</checker>") + len("</checker>")
    xml = xml[:start] + '<interactor><source path="files/interactor.py" type="python.3"/></interactor>' + xml[end:]
    xml = xml.replace('tag="main"', 'tag="rejected"').replace('tag="wrong-answer"', 'tag="accepted"')
    files = {
        "problem.xml": xml,
        "files/interactor.py": INTERACTOR,
        "tests/01": "37\n",
        "tests/02": "100\n",
        "solutions/short.py": GUESSER,
        "solutions/first-only.py": "print(50, flush=True)\ninput()\n",
    }
    archive, source = load_one(make_archive, package(**files))
    assert source.meta.interactive and messages(source) == []
    assert render_entry(source).checking == "interactive, judged by the problem's interactor"
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    verdicts = {run.solver: [(v.code, v.message) for v in run.verdicts] for run in report.runs[FOLDER]}
    assert verdicts["solutions/short.py"] == [("AC", "ok guessed in 3"), ("AC", "ok guessed in 7")]
    assert [code for code, _ in verdicts["solutions/first-only.py"]] == ["WA", "WA"]
