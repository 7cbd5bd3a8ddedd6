"""task-maker's constraints (source/constraints.py): gen/constraints.py read without running it, and
``\\constraints{NAME}`` in a statement, Markdown or LaTeX, in text or math."""

from __future__ import annotations

import pytest
from conftest import ArchiveMaker, load_one

from site_builder.errors import Diagnostic
from site_builder.model import SourceFile
from site_builder.render.latex import render_latex
from site_builder.render.latex.symbols import grouped
from site_builder.render.markdown import render_markdown
from site_builder.source.constraints import task_maker_constants


def constants(name: str, text: str) -> tuple[tuple[tuple[str, str], ...], list[Diagnostic]]:
    found: list[Diagnostic] = []
    return task_maker_constants({name: SourceFile(name, text, len(text))}, "t/walrus", found), found


def test_the_numbers_and_texts_of_constraints_py_are_read_without_running_it() -> None:
    text = (
        "import os\n"
        "MAXN = 300_000\nMAXT = 10**4\nMOD = 10**9 + 7\nMAXNT = MAXN\nNEG = -5\nHALF = 0.5\nNAME = 'walrus'\n"
        "subtasks = [{}, dict(MAXN=10)]\n"  # a list: not a constant
        "RUN = os.system('touch /tmp/pwned')\n"  # a call: never made, never a constant
        "BIG = 2**100000\nHUGE = 10**10**9\nZERO = 1 // 0\nFLAG = True\nA = B = 3\nMAXN2 = MAXN * 2 - 1\n"
        "LOW = -MAXT\nTWICE = 2 * MAXT\nONE = 7**0\nUNIT = 1**200\nTEXT = 'ab' * 3\nMINUS = -'ab'\nEDGE = 2**255\n"
        f"WIDE = {2**256 - 1}\nWIDER = {2**256}\nPRODUCT = 2**200 * 2**200\n"
    )
    assert constants("gen/constraints.py", text) == (
        (
            ("MAXN", "300000"),
            ("MAXT", "10000"),
            ("MOD", "1000000007"),
            ("MAXNT", "300000"),
            ("NEG", "-5"),
            ("HALF", "0.5"),
            ("NAME", "walrus"),
            ("MAXN2", "599999"),
            ("LOW", "-10000"),
            ("TWICE", "20000"),
            ("ONE", "1"),
            ("UNIT", "1"),
            ("EDGE", str(2**255)),
            ("WIDE", str(2**256 - 1)),
        ),
        [],
    )
    # a sum the parser reads but too deep to add up: not a constant (deeper, the parser refuses it: below)
    assert constants("gen/constraints.py", "X = " + "1 + " * 2000 + "1\nY = 2\n") == ((("Y", "2"),), [])


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("MAXN = 3\nMAXT = (\n", 2, "'(' was never closed"),
        ("X = " + "(" * 300 + "1" + ")" * 300 + "\n", 1, "too many nested parentheses"),
        ("X = 1\0\n", 0, "source code string cannot contain null bytes"),
        ("X = " + "1+" * 100_000 + "1\n", 0, "the file is too deeply nested or not text (RecursionError)"),
    ],
)
def test_a_constraints_file_that_is_not_python_is_one_warning(text: str, line: int, message: str) -> None:
    found, problems = constants("gen/constraints.py", text)
    assert found == ()
    assert [(d.path, d.line, d.message, d.level) for d in problems] == [
        ("t/walrus/gen/constraints.py", line, f"cannot read it: {message}", "warning")
    ]


def test_a_constraints_yaml_that_is_no_mapping_is_an_error_naming_its_line() -> None:
    found, problems = constants("gen/constraints.yaml", "MAXN: 3\nMAXN: [\n")
    assert found == () and [(d.path, d.line) for d in problems] == [("t/walrus/gen/constraints.yaml", 3)]
    assert problems[0].message.startswith("invalid YAML")


def test_constraints_yaml_gives_its_numbers_and_texts() -> None:
    text = "MAXN: 200000\nMAXQ: 2e5\nnote: text\nlist: [1, 2]\nflag: true\nnot a name: 3\n"
    assert constants("gen/constraints.yaml", text) == ((("MAXN", "200000"), ("MAXQ", "2e5"), ("note", "text")), [])


@pytest.mark.parametrize(
    ("value", "math", "shown"),
    [
        ("300000", True, "300\\,000"),
        ("300000", False, "300\u202f000"),
        ("1000000007", True, "1\\,000\\,000\\,007"),
        ("10000", False, "10\u202f000"),
        ("2000", True, "2000"),
        ("-200000", True, "-200\\,000"),
        ("0.5", True, "0.5"),
        ("walrus", False, "walrus"),
        ("١٢٣٤٥٦", False, "١٢٣٤٥٦"),  # digits, but not ASCII ones: as they are
    ],
)
def test_a_number_of_five_digits_or_more_is_grouped_as_the_booklet_prints_it(
    value: str, math: bool, shown: str
) -> None:
    assert grouped(value, math) == shown


def test_markdown_writes_constraints_in_text_and_in_math_and_names_an_unknown_one() -> None:
    text = "# Walrus\n\nLimits: $1 \\le N \\le \\constraints{MAXN}$ and\n"
    text += "at most \\constraints{MAXT} tests, \\constraints{MAXX}.\n"
    doc, warnings = render_markdown(text, "t/walrus/statement/statement.md", constants={"MAXN": "300000", "MAXT": "10"})
    assert doc.html == '<p>Limits: <math-slot n="0"></math-slot> and\nat most 10 tests, \\constraints{MAXX}.</p>\n'
    assert doc.math[0].tex == "1 \\le N \\le 300\\,000"
    assert warnings == [(4, "\\constraints{MAXX}: gen/constraints.py defines no constant 'MAXX'")]


def test_latex_writes_constraints_as_it_writes_a_package_s_constants() -> None:
    text = "Limits: $N \\le \\constraints{MAXN}$, at most \\constraints{MAXN} walruses; \\constraints{MAXX}.\n"
    doc, warnings = render_latex(text, "t/walrus/statement.tex", constants={"MAXN": "300000"})
    assert "at most 300\u202f000 walruses" in doc.html and '<code class="unknown">MAXX</code>' in doc.html
    assert [m.tex for m in doc.math] == ["N \\le 300\\,000"]
    assert warnings == [(1, "\\constraints{MAXX}: gen/constraints.py defines no constant 'MAXX'")]


def test_a_task_maker_task_s_statement_shows_its_constraints(make_archive: ArchiveMaker) -> None:
    from site_builder.render.content import render_entry

    files = {
        "t/walrus/task.yaml": "name: walrus\ntitle: Walrus\n",
        "t/walrus/gen/constraints.py": "MAXN = 300_000\nMAXT = 10\n",
        "t/walrus/statement/statement.md": "# Walrus\n\n$N \\le \\constraints{MAXN}$, \\constraints{MAXT} tests.\n",
        "t/walrus/sol/solution.py": "print(1)\n",
    }
    _, source = load_one(make_archive, files)
    assert source.meta.constants == (("MAXN", "300000"), ("MAXT", "10"))
    entry = render_entry(source)
    assert entry.statement is not None and ", 10 tests." in entry.statement.html
    assert {m.tex for m in entry.statement.math} == {"N \\le 300\\,000"}  # (the summary's formula too)
