"""CMS tasks (task.yaml): recognition, statement, samples, solutions, CMS checkers, subtasks, warnings."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from site_builder.build import build_site
from site_builder.model import Subtask
from site_builder.publish.downloads import sample_files
from site_builder.render.content import render_entry
from site_builder.sandbox.runner import RunResult
from site_builder.source.archive import load_archive
from site_builder.source.cms import statement_examples
from site_builder.source.testdata import hashed_only
from site_builder.source.walk import is_problem_folder
from site_builder.verify.checkers import judge_checker
from site_builder.verify.options import VerifyOptions
from site_builder.verify.verifier import verify_entries
from tests.conftest import ArchiveMaker, fixture_files, load_one, options_for
from tests.sitecheck import check_site

FIXTURE = Path(__file__).parent / "fixtures" / "cms" / "C-mirror-words"
FOLDER = "ioi/C-mirror-words"
HAS_GXX = shutil.which("g++") is not None


def task(**changes: str | None) -> dict[str, str | bytes]:
    """The fixture task as ``make_archive`` files, with files changed (or removed, for None)."""
    return fixture_files(FIXTURE, FOLDER, changes)


def test_task_yaml_makes_a_folder_a_cms_task(make_archive: ArchiveMaker) -> None:
    assert is_problem_folder({"task.yaml"}) and is_problem_folder({"task.yml"}, {"sol"})
    assert not is_problem_folder({"task.yml"}, {"roles"})  # an Ansible task list is not one
    _, source = load_one(make_archive, task())
    meta = source.meta
    assert (meta.package, meta.title, meta.time_limit, meta.memory_limit) == ("cms", "Mirror Words", 1.5, 128)
    assert meta.subtasks == (Subtask("1", 40.0), Subtask("2", 60.0)) and source.diagnostics == ()


def test_statement_samples_solutions_and_checker(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, task())
    assert [(s.input_file, s.answer_file) for s in source.samples] == [
        ("att/input0.txt", "att/output0.txt"),
        ("att/input1.txt", "att/output1.txt"),
    ]
    assert source.layout.solvers == ("sol/mirror.py", "sol/mirror.cpp")
    assert hashed_only("input/input0.txt") and hashed_only("output/output0.txt")
    entry = render_entry(source)
    assert entry.statement is not None and "Print every word spelt backwards" in entry.statement.html
    assert entry.checking == "CMS checker (check/checker.py)" and entry.package_name == "CMS task"


def test_samples_named_after_the_task_in_its_statement_folder(make_archive: ArchiveMaker) -> None:
    """The Italian olympiad's archive keeps samples beside the statement, named after the task."""
    files = task(**{"att/input0.txt": None, "att/output0.txt": None, "att/input1.txt": None, "att/output1.txt": None})
    files |= {f"{FOLDER}/testo/mirror.input0.txt": "ab\n", f"{FOLDER}/testo/mirror.output0.txt": "ba\n"}
    files |= {f"{FOLDER}/testo/mirror.input1.txt": "abc\n"}
    _, source = load_one(make_archive, files)
    assert [(s.name, s.input_file, s.answer_file, s.answer) for s in source.samples] == [
        ("0", "testo/mirror.input0.txt", "testo/mirror.output0.txt", "ba\n"),
        ("1", "testo/mirror.input1.txt", None, None),
    ]


def test_subtasks_from_score_type_parameters(make_archive: ArchiveMaker) -> None:
    yaml = (FIXTURE / "task.yaml").read_text() + "score_type: GroupMin\nscore_type_parameters: [[30, 2], [70, '1-2']]\n"
    _, source = load_one(make_archive, task(**{"task.yaml": yaml}))
    assert source.meta.subtasks == (Subtask("1 (2 tests)", 30.0), Subtask("2 (tests 1-2)", 70.0))


def test_a_task_with_only_task_yaml_says_what_it_lacks(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, {f"{FOLDER}/task.yaml": "name: mirror\n"})
    assert [str(d) for d in source.diagnostics] == [
        f"archive/{FOLDER}: warning: CMS task lacks {part}"
        for part in (
            "a statement (statement/statement.md or .tex, or testo/testo.tex)",
            "samples (att/input0.txt with att/output0.txt)",
            "a solution (sol/)",
        )
    ]


def test_a_grader_given_to_contestants_keeps_solutions_from_running_too(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, task(**{"att/grader.c": "int main() { return 0; }\n"}))
    assert source.layout.solvers == () and "sol/mirror.py" in source.layout.shown
    assert any("without att/grader.c" in str(d) for d in source.diagnostics)


def test_a_grader_is_compiled_with_the_solvers_of_its_language_and_keeps_the_others_from_running(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """As CMS compiles a submission with ``sol/grader.cpp``: the grader has ``main`` and calls the
    solution's function (declared in the header beside it); a Python solution has no grader to run with."""
    files = task(
        **{
            "sol/grader.cpp": GRADER,
            "sol/mirror.h": "#include <string>\nstd::string mirror(const std::string &word);\n",
            "sol/mirror.cpp": '#include "mirror.h"\nstd::string mirror(const std::string &w) {\n'
            "    return std::string(w.rbegin(), w.rend());\n}\n",
            "check/checker.py": None,
        }
    )
    archive, source = load_one(make_archive, files)
    assert source.layout.solvers == ("sol/mirror.cpp",) and "sol/mirror.py" in source.layout.shown
    assert source.layout.graders == ("sol/grader.cpp", "sol/mirror.h")
    assert [str(d) for d in source.diagnostics] == [
        f"archive/{FOLDER}: warning: CMS task lacks a way to run sol/mirror.py without sol/grader.cpp"
        " (they are shown, not run)"
    ]
    if HAS_GXX:
        report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
        assert [v.code for v in report.runs[FOLDER][0].verdicts] == ["AC", "AC"]


def test_the_grader_given_to_contestants_is_preferred_it_reads_the_samples_as_shown(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, task(**{"sol/grader.cpp": "// binary\n", "att/grader.cpp": "// text\n"}))
    assert source.layout.graders == ("att/grader.cpp",) and source.layout.solvers == ("sol/mirror.cpp",)


GRADER = """#include <iostream>
#include "mirror.h"
int main() {
    int n;
    std::cin >> n;
    for (std::string word; n-- > 0 && std::cin >> word;) std::cout << mirror(word) << '\\n';
}
"""


def test_cms_scores() -> None:
    def run(stdout: bytes, stderr: str = "", exit_code: int = 0) -> RunResult:
        return RunResult(exit_code, None, 0.1, 0.1, stdout, stderr, False, False)

    assert judge_checker("cms", "check/", run(b"1.0\n", "fine")).code == "AC"
    assert (judge_checker("cms", "check/", run(b"0.5\n", "half")).message) == "score 0.5: half"
    assert judge_checker("cms", "check/", run(b"0\n")).code == "WA"
    assert judge_checker("cms", "check/", run(b"lots\n")).code == "CE"
    assert judge_checker("cms", "check/", run(b"2\n")).code == "CE"
    assert judge_checker("cms", "check/", run(b"1\n", "", 1)).code == "CE"
    python2 = "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?"
    assert "it is Python 2 code" in judge_checker("cms", "cor/correttore.py", run(b"", python2, 1)).message
    assert "Python 2" not in judge_checker("cms", "cor/correttore.py", run(b"", "SyntaxError: bad", 1)).message


def test_the_cms_checker_judges_the_solutions(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    solutions = {"sol/mirror.cpp": None, "sol/mirror.py": "n = int(input())\nprint(input()[::-1])\n"}
    archive, source = load_one(make_archive, task(**solutions))
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    [run] = report.runs[FOLDER]
    assert [(v.code, v.message) for v in run.verdicts] == [
        ("WA", "score 0.5: 1 of 2 words mirrored"),
        ("AC", "all words mirrored"),
    ]


def test_a_manager_the_build_cannot_run_keeps_the_solutions_shown(make_archive: ArchiveMaker) -> None:
    """Only a compiled ``check/manager`` (cmsMake's output), no source: nothing can talk to the solutions."""
    manager = {"check/checker.py": None, "check/manager": "\x7fELF", "check/board.cpp": "int f();\n"}
    _, source = load_one(make_archive, task(**manager))
    assert source.layout.validator is None and source.layout.solvers == ()
    assert [str(d) for d in source.diagnostics] == [
        f"archive/{FOLDER}: warning: CMS task lacks a way to run solutions without check/manager"
        " (they are shown, not run)"
    ]


COMMUNICATION = Path(__file__).parent / "fixtures" / "cms" / "D-higher-lower"
GUESSING = "ioi/D-higher-lower"


def test_a_communication_task_s_manager_judges_and_its_stub_is_linked(make_archive: ArchiveMaker) -> None:
    _, source = load_one(make_archive, fixture_files(COMMUNICATION, GUESSING, {}))
    layout = source.layout
    assert layout.validator is not None and layout.validator.convention == "cms-manager"
    assert layout.validator.files == ("check/manager.cpp",) and layout.solvers == ("sol/halving.cpp",)
    assert layout.graders == ("sol/stub.cpp", "sol/higherlower.h") and source.diagnostics == ()
    assert source.meta.communication == (1, "")
    assert render_entry(source).checking == "CMS communication manager (check/manager.cpp)"


@pytest.mark.skipif(not HAS_GXX, reason="g++ is not installed")
def test_a_communication_task_runs_its_solutions_with_the_manager(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """The solution, linked with the stub, talks to the manager through the FIFOs named in its arguments;
    the manager's score judges it: one that asks too many questions is a Wrong Answer."""
    linear = '#include "higherlower.h"\nvoid play(int n) {\n    for (int y = 1; ask(y) != 0; y++) {}\n}\n'
    files = fixture_files(COMMUNICATION, GUESSING, {"sol/linear.cpp": linear})
    archive, source = load_one(make_archive, files)
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=2))
    found = {run.solver: [(v.code, v.message) for v in run.verdicts] for run in report.runs[GUESSING]}
    assert found == {
        "sol/halving.cpp": [("AC", "found in 3 questions"), ("AC", "found in 10 questions")],
        "sol/linear.cpp": [("WA", "score 0: more than 8 questions"), ("WA", "score 0: more than 11 questions")],
    }


TWO_COPIES = """import sys
first, second = open("input.txt").read().split()  # as CMS gives it, beside the manager (and on stdin)
to_copies = [open(sys.argv[2 + 2 * i], "w") for i in range(2)]  # a copy opens its input first
streams = [(open(sys.argv[1 + 2 * i]), to_copies[i]) for i in range(2)]
for (_, to_copy), number in zip(streams, (first, second)):
    print(number, file=to_copy, flush=True)
said = [from_copy.readline().split() for from_copy, _ in streams]
if said == [["0", str(2 * int(first))], ["1", str(2 * int(second))]]:
    print(1.0)
    print("both doubled", file=sys.stderr)
else:
    print(0.0)
    print(f"the copies said {said}", file=sys.stderr)
"""
DOUBLE = "import sys\nprint(sys.argv[1], 2 * int(input()))\n"


@pytest.mark.parametrize(
    ("solution", "code", "message"),
    [
        (DOUBLE, "AC", "both doubled"),
        (DOUBLE.replace("2 *", "3 *"), "WA", "score 0: the copies said"),
        # the copies crash: that is the verdict (a score of 0, as CMS gives it), whatever the manager says
        ("raise SystemExit(3)\n", "RTE", "exit code 3"),
    ],
)
def test_several_copies_talk_to_the_manager_on_their_standard_streams(
    make_archive: ArchiveMaker, tmp_path: Path, solution: str, code: str, message: str
) -> None:
    """``num_processes: 2`` with ``user_io: std_io``: each copy's standard streams are its FIFOs and its
    index is its argument; the manager gets the FIFOs of every copy in order (from it, to it), and the input
    as ``input.txt`` too."""
    yaml = "name: double\ntime_limit: 1\nnum_processes: 2\nuser_io: std_io\n"
    files = {"task.yaml": yaml, "check/manager.py": TWO_COPIES, "sol/double.py": solution, "att/input0.txt": "4 7\n"}
    archive, source = load_one(make_archive, {f"{GUESSING}/{name}": text for name, text in files.items()})
    assert source.meta.communication == (2, "std_io")
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    [verdict] = report.runs[GUESSING][0].verdicts
    assert (verdict.code, verdict.message[: len(message)]) == (code, message)


def test_how_a_communication_task_runs_is_read_from_task_yaml(make_archive: ArchiveMaker) -> None:
    base = "name: double\n"
    for extra, expected in [
        ("", (1, "")),
        ("task_type_parameters: [3, stub, fifo_io]\n", (3, "fifo_io")),
        ("num_processes: 2\nuser_io: std_io\n", (2, "std_io")),
    ]:
        _, source = load_one(make_archive, {f"{GUESSING}/task.yaml": base + extra, f"{GUESSING}/sol/a.py": ""})
        assert source.meta.communication == expected
    for extra, said in [("num_processes: 0\n", "num_processes must be"), ("user_io: pipes\n", "user_io must be")]:
        _, source = load_one(make_archive, {f"{GUESSING}/task.yaml": base + extra, f"{GUESSING}/sol/a.py": ""})
        assert any(said in str(d) and "task.yaml:2:" in str(d) for d in source.diagnostics)


FILE_IO = """with open("input.txt") as given, open("output.txt", "w") as out:
    n = int(given.readline())
    for _ in range(n):
        print(given.readline().strip()[::-1], file=out)
"""


def test_solutions_read_and_write_the_files_task_yaml_names(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """``infile``/``outfile`` name files solutions use (by default input.txt and output.txt, as
    cmsImportTask reads them); a grader that reads stdin unless ``EVAL`` is defined (CMS defines it, the
    build does not) is given the input there too, and what it prints is its output."""
    yaml = (FIXTURE / "task.yaml").read_text()
    named = yaml.replace('infile: ""', "infile: input.txt").replace('outfile: ""', "outfile: output.txt")
    unnamed = yaml.replace('infile: ""\n', "").replace('outfile: ""\n', "")
    for text, expected in ((named, ["AC", "AC"]), (unnamed, ["AC", "AC"]), (yaml, ["RTE", "RTE"])):
        files = task(**{"task.yaml": text, "check/checker.py": None, "sol/mirror.cpp": None, "sol/mirror.py": FILE_IO})
        archive, source = load_one(make_archive, files)
        report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
        assert [v.code for v in report.runs[FOLDER][0].verdicts] == expected, text
    files = task(**{"task.yaml": named, "check/checker.py": None, "sol/mirror.cpp": None})  # stdin, stdout
    archive, source = load_one(make_archive, files)
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    assert [v.code for v in report.runs[FOLDER][0].verdicts] == ["AC", "AC"]
    _, source = load_one(make_archive, task(**{"task.yaml": yaml.replace('infile: ""', "infile: ../x")}))
    assert any("infile must be a plain file name" in str(d) for d in source.diagnostics)


def test_the_task_builds_verified_with_its_subtasks_on_the_page(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(task())
    report = build_site(options_for(archive, tmp_path / "site"))
    assert [str(d) for d in report.diagnostics] == []
    page = (tmp_path / "site" / FOLDER / "index.html").read_text()
    assert "CMS task" in page and "<tr><td>1</td><td>40</td></tr>" in page and "<tr><td>2</td><td>60</td></tr>" in page
    assert f"Verified {4 if HAS_GXX else 2}/{4 if HAS_GXX else 2}" in page
    assert not (tmp_path / "site" / FOLDER / "input").exists()  # test data: publish_data is samples
    assert check_site(tmp_path / "site") == []


EXAMPLES = r"""\InputFile
The number of words, then the words.
\Examples
\begin{example}
\exmp{
    2
    star
    level
}{%
rats
level
}%
\end{example}
\begin{example}
\exmp{1\\ abc}{cba}
\end{example}
\begin{example}\exmp{1
abc}{cba}\end{example}
"""


def test_the_examples_of_a_tex_statement_are_read_as_data() -> None:
    """Each ``\\exmp{input}{output}`` whose texts are data, as a test file would hold them: comments and
    indentation gone, a line break at the end; one with TeX in it (``\\\\``) is not data."""
    assert statement_examples(EXAMPLES) == [(5, "2\nstar\nlevel\n", "rats\nlevel\n"), (17, "1\nabc\n", "cba\n")]


def test_a_task_without_sample_files_runs_on_its_statement_s_examples(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """As the Italian olympiad's older tasks keep them: only in the statement, as ``\\exmp``."""
    samples = {f"att/{kind}{n}.txt": None for kind in ("input", "output") for n in (0, 1)}
    files = task(**samples, **{"statement/statement.md": None, "testo/testo.tex": EXAMPLES, "check/checker.py": None})
    archive, source = load_one(make_archive, files)
    assert [(s.name, s.input_file, s.line) for s in source.samples] == [
        ("1", "testo/testo.tex", 5),
        ("2", "testo/testo.tex", 17),
    ]
    assert source.diagnostics == () and sorted(sample_files(source)) == ["1.ans", "1.in", "2.ans", "2.in"]
    report = verify_entries([source], archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    python = next(run for run in report.runs[FOLDER] if run.solver == "sol/mirror.py")
    assert [v.code for v in python.verdicts] == ["AC", "AC"]


def test_the_task_s_own_solution_is_the_one_that_must_pass(make_archive: ArchiveMaker) -> None:
    """Beside ``sol/soluzione.*`` (what cmsMake makes the outputs with), a task keeps slow, partial and
    wrong solutions on purpose: they are shown, not run."""
    files = task(**{"sol/soluzione.py": "print(1)\n", "sol/soluzione_py.py": "print(2)\n", "sol/parziale.cpp": ""})
    _, source = load_one(make_archive, files)
    assert source.layout.solvers == ("sol/soluzione.py", "sol/soluzione_py.py")
    assert source.layout.shown == ("sol/mirror.cpp", "sol/mirror.py", "sol/parziale.cpp")


def test_statements_kept_one_per_language_are_read_english_first(make_archive: ArchiveMaker) -> None:
    """Beside ``statement.<language>.md`` files, a language-less ``statement.tex`` that only stands in for
    the PDF is not the statement, and an empty PDF is not linked."""
    files = task(**{"statement/statement.md": None})
    files |= {
        f"{FOLDER}/statement/statement.tex": "\\begin{document}Stands in for the PDF.\\end{document}\n",
        f"{FOLDER}/statement/statement.pdf": b"",
        f"{FOLDER}/statement/statement.fr.md": "Écrivez chaque mot à l'envers.\n",
        f"{FOLDER}/statement/statement.en.md": "Write every word backwards.\n",
        f"{FOLDER}/statement/statement.en.tex": "Not this one: the Markdown is preferred.\n",
    }
    _, source = load_one(make_archive, files)
    assert source.layout.statements == (("en", "statement/statement.en.md"), ("fr", "statement/statement.fr.md"))
    assert source.layout.statement_pdf is None
    entry = render_entry(source)
    assert entry.statement is not None and "Write every word backwards" in entry.statement.html
    assert [t.language for t in entry.translations] == ["fr"]


def test_a_group_s_list_of_test_names_is_said_in_a_few_words(make_archive: ArchiveMaker) -> None:
    """task-maker names every test of a group (``002|003|...``): a page says how many, not all fifty names."""
    every = "|".join(f"{n:03}" for n in range(50))
    groups = f"[[0, '000|001'], [40, '{every}'], [30, 'a1|a2|b7|c9'], [30, 'x[0-9]+']]"
    yaml = (FIXTURE / "task.yaml").read_text() + f"score_type: GroupMin\nscore_type_parameters: {groups}\n"
    _, source = load_one(make_archive, task(**{"task.yaml": yaml}))
    assert [s.name for s in source.meta.subtasks] == [
        "1 (tests 000, 001)",
        "2 (50 tests: 000-049)",
        "3 (4 tests: a1, a2 ... c9)",
        "4 (tests x[0-9]+)",
    ]


def test_the_primary_language_s_statement_comes_first(make_archive: ArchiveMaker) -> None:
    """``primary_language`` says which statement is the task's own (here the English one is a stub)."""
    yaml = (FIXTURE / "task.yaml").read_text() + "primary_language: hu\n"
    files = task(**{"task.yaml": yaml, "statement/statement.md": None})
    files |= {f"{FOLDER}/statement/statement.en.md": "To do.\n", f"{FOLDER}/statement/statement.hu.md": "Minden szó.\n"}
    _, source = load_one(make_archive, files)
    assert source.layout.statements == (("hu", "statement/statement.hu.md"), ("en", "statement/statement.en.md"))


def test_a_sample_linked_to_the_statement_s_copy_is_run(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """Task folders keep one copy of a sample (``statement/input0.txt``) and link ``att/`` to it."""
    solutions = {"sol/mirror.cpp": None, "sol/mirror.py": "for _ in range(int(input())):\n    print(input()[::-1])\n"}
    files = task(**solutions, **{f"att/{name}{n}.txt": None for name in ("input", "output") for n in (0, 1)})
    files |= {f"{FOLDER}/statement/input0.txt": "2\nab\ncd\n", f"{FOLDER}/statement/output0.txt": "ba\ndc\n"}
    archive = make_archive(files)
    (archive / FOLDER / "att").mkdir()
    for name in ("input0.txt", "output0.txt"):
        (archive / FOLDER / "att" / name).symlink_to(f"../statement/{name}")
    entries, _ = load_archive(archive, "archive", {})
    report = verify_entries(entries, archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    [run] = report.runs[FOLDER]
    assert [(v.sample, v.code) for v in run.verdicts] == [("0", "AC")]
    # A link to another problem's folder in the archive is followed too, as the page shows its sample;
    # one that leads out of the archive is not (the loader does not publish it either).
    (archive / "shared").mkdir()
    (archive / "shared" / "input1.txt").write_text("1\nxyz\n")
    (archive / FOLDER / "att" / "input1.txt").symlink_to(
        os.path.relpath(archive / "shared" / "input1.txt", archive / FOLDER / "att")
    )
    (archive / FOLDER / "att" / "output1.txt").write_text("zyx\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("1\nsecret\n")
    (archive / FOLDER / "att" / "input2.txt").symlink_to(outside)
    (archive / FOLDER / "att" / "output2.txt").write_text("terces\n")
    entries, _ = load_archive(archive, "archive", {})
    report = verify_entries(entries, archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    [run] = report.runs[FOLDER]
    assert [(v.sample, v.code) for v in run.verdicts] == [("0", "AC"), ("1", "AC")]


def test_task_maker_s_annotations_say_which_solutions_must_pass_the_samples(make_archive: ArchiveMaker) -> None:
    """``@check-accepted: *`` (or the examples' subtask) must pass; one expected to fail, or a template that
    says nothing beside solutions that do, is shown, not run, even when it is named ``solution_*``."""
    files = task(
        **{
            "sol/mirror.py": "# @check-accepted: *\nprint(1)\n",
            "sol/mirror.cpp": "// @check-accepted: examples small\nint main() {}\n",
            "sol/greedy.py": "# @check-wrong-answer: examples all\nprint(2)\n",
            "sol/partial.py": "# @check-accepted: small\n# @check-time-limit-exceeded: all\nprint(3)\n",
            "sol/solution_py.py": "# write your solution here\nprint(42)\n",
        }
    )
    _, source = load_one(make_archive, files)
    assert source.layout.solvers == ("sol/mirror.py", "sol/mirror.cpp")
    assert source.layout.shown == ("sol/greedy.py", "sol/partial.py", "sol/solution_py.py")
    # Where the task's own solution is among those said to pass, it is what runs: authors copy the
    # annotation into wrong solutions too.
    files[f"{FOLDER}/sol/solution_py.py"] = "# @check-accepted: *\nprint(4)\n"
    _, source = load_one(make_archive, files)
    assert source.layout.solvers == ("sol/solution_py.py",)


def test_a_groups_list_of_test_names_is_said_briefly_whatever_the_names() -> None:
    from site_builder.source.cms import _tests

    assert _tests("002|003|004|005") == "4 tests: 002-005"
    assert _tests("a|b") == "tests a, b"
    # names a hostile task.yaml may give: a digit int() does not read, a number of 5,000 digits
    assert _tests("a|\u00b2|b|c") == "4 tests: a, \u00b2 ... c"
    huge = "1" * 5000
    assert _tests("|".join([huge] * 4)) == f"4 tests: {huge}, {huge} ... {huge}"
