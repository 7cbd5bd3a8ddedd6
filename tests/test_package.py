"""ICPC/Kattis problem packages published as entries: problem.yaml of both versions, layout, validators."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.errors import MetadataError
from site_builder.model import Checker, Metadata
from site_builder.source.layout import native_layout, package_layout
from site_builder.source.package import is_package, parse_package_metadata
from site_builder.source.yamlfile import parse_yaml_mapping

HAS_GXX = shutil.which("g++") is not None

LEGACY_YAML = """\
name: Ferry Fares
author: Ada Park, Ben Ode and Cy Lund
source: Autumn Cup 2025
source_url: https://example.org/autumn
license: cc by
rights_owner: Archive Committee
validation: default
validator_flags: float_tolerance 1e-6
keywords: geometry binary-search
"""
MODERN_YAML = """\
problem_format_version: 2025-09
name:
  en: Lakeside Lanterns
  de: Laternen am See
uuid: 5b7d4c2e-0000-4000-8000-000000000001
credits:
  authors: [Ada Park <ada@example.org>]
  testers:
    - name: Ben Ode
      email: ben@example.org
  translators:
    de: Cy Lund
source:
  name: Spring Contest 2025
  url: https://example.org/spring
license: cc by-sa
rights_owner: Archive Committee
limits:
  time_limit: 2
keywords: [greedy, sorting]
constants:
  max_n: 100
"""


def parse(text: str, test_group: str | None = None) -> tuple[Metadata, list[str]]:
    data, lines = parse_yaml_mapping(text, "p/problem.yaml", MetadataError)
    group = (parse_yaml_mapping(test_group, "g", MetadataError)[0], "p/data/test_group.yaml") if test_group else None
    meta, warnings = parse_package_metadata(data, lines, "p/problem.yaml", group)
    return meta, [str(w) for w in warnings]


def test_legacy_problem_yaml() -> None:
    meta, warnings = parse(LEGACY_YAML)
    assert warnings == []
    assert meta.package == "legacy" and meta.title == "Ferry Fares"
    assert meta.credits == (("Authors", ("Ada Park", "Ben Ode", "Cy Lund")),)
    assert (meta.source, meta.source_url) == ("Autumn Cup 2025", "https://example.org/autumn")
    assert (meta.license, meta.rights_owner) == ("CC BY", "Archive Committee")  # as a page names it
    assert meta.tags == ("geometry", "binary-search")
    # The default validator is case-insensitive unless told otherwise (as Kattis's is).
    assert meta.checker == Checker(case_sensitive=False, float_absolute=1e-6, float_relative=1e-6)
    assert meta.validation == "default" and meta.validator_args == ("float_tolerance", "1e-6")


def test_modern_problem_yaml_and_test_group_flags() -> None:
    meta, warnings = parse(MODERN_YAML, "output_validator_args: [case_sensitive, float_relative_tolerance, '1e-4']\n")
    assert warnings == []
    assert meta.package == "2025-09" and meta.title == "Lakeside Lanterns"
    assert meta.credits == (("Authors", ("Ada Park",)), ("Testers", ("Ben Ode",)), ("Translators", ("Cy Lund",)))
    assert (meta.source, meta.source_url) == ("Spring Contest 2025", "https://example.org/spring")
    assert meta.time_limit == 2.0 and meta.tags == ("greedy", "sorting")
    assert meta.checker == Checker(case_sensitive=True, float_relative=1e-4)
    assert meta.constants == (("max_n.value", "100"), ("max_n", "100"))


def test_credits_shorthand_and_source_list() -> None:
    meta, _ = parse("problem_format_version: 2025-09\nname: X\ncredits: Dee Ray\nsource: [A Cup, {name: B Open}]\n")
    assert meta.credits == (("Authors", ("Dee Ray",)),) and meta.source == "A Cup; B Open"


def test_unknown_keys_name_the_version_and_the_closest_key() -> None:
    _, warnings = parse("problem_format_version: 2025-09\nname: X\nkeywrds: [a]\nauthor: Old Style\n")
    assert warnings == [
        "p/problem.yaml:3: warning: unknown key 'keywrds' for problem package format 2025-09; did you mean 'keywords'?",
        "p/problem.yaml:4: warning: unknown key 'author' for problem package format 2025-09",
    ]


def test_wrong_types_are_errors_with_lines() -> None:
    _, found = parse("name: X\nlimits:\n  time_limit: -1\nvalidator_flags: float_tolerance\nkeywords: 5\n")
    assert found == [
        "p/problem.yaml:3: limits: time_limit must be a positive number of seconds, not -1",
        "p/problem.yaml:4: validator flag float_tolerance needs a non-negative number after it",
        "p/problem.yaml:5: keywords must be a list of strings",
    ]


def test_unknown_default_validator_flag_is_a_warning() -> None:
    _, warnings = parse("name: X\nvalidator_flags: case_sensitive sloppy\n")
    assert warnings == ["p/problem.yaml:2: warning: the default output validator has no flag 'sloppy'"]


def test_package_is_recognised_by_folders_or_keys() -> None:
    assert is_package({"statement/problem.en.md"}, set())
    assert is_package({"problem.yaml"}, {"name"})
    assert not is_package({"problem.yaml", "solution.py", "samples/1.in"}, {"title", "tags"})


def test_layout_of_a_2025_09_package() -> None:
    names = [
        "problem.yaml",
        "statement/problem.de.tex",
        "statement/problem.en.tex",
        "statement/problem.en.pdf",
        "statement/lanterns.svg",
        "solution/solution.en.tex",
        "submissions/accepted/b.py",
        "submissions/accepted/a.cpp",
        "submissions/accepted/Main.java",
        "submissions/accepted/a.py",
        "submissions/wrong_answer/greedy.py",
        "output_validator/validator.py",
        "output_validator/graphcheck.py",
        "data/sample/1.in",
        "data/sample/1.ans",
    ]
    layout = package_layout(names, Metadata(package="2025-09"), has_samples=True)
    assert layout.statements == (("en", "statement/problem.en.tex"), ("de", "statement/problem.de.tex"))
    assert layout.statement_pdf == "statement/problem.en.pdf"
    assert layout.writeup == "solution/solution.en.tex"
    assert layout.solvers == (
        "submissions/accepted/a.py",
        "submissions/accepted/b.py",
        "submissions/accepted/a.cpp",
        "submissions/accepted/Main.java",
    )
    assert layout.shown == ()
    assert layout.validator is not None and layout.validator.language == "python"
    assert layout.validator.main == "validator.py" and layout.validator.folder == "output_validator"
    assert layout.missing == ()


def test_layout_of_a_legacy_package_and_what_is_missing() -> None:
    names = ["problem.yaml", "problem_statement/problem.tex", "problem_statement/solution.tex"]
    names += ["output_validators/check/check.cpp", "output_validators/check/validate.h"]
    layout = package_layout(names, Metadata(package="legacy", validation="custom"), has_samples=False)
    assert layout.statements == (("en", "problem_statement/problem.tex"),)
    assert layout.writeup == "problem_statement/solution.tex"
    assert layout.validator is not None and layout.validator.language == "cpp"
    assert layout.validator.files == ("output_validators/check/check.cpp", "output_validators/check/validate.h")
    assert [m.split(" (")[0] for m in layout.missing] == ["samples", "an accepted submission"]
    bare = package_layout(["problem.yaml"], Metadata(package="legacy", validation="custom"), has_samples=False)
    assert len(bare.missing) == 5


def test_python_validator_entry_point() -> None:
    def main(*files: str) -> str:
        layout = package_layout([f"output_validator/{f}" for f in files], Metadata(package="2025-09"), True)
        assert layout.validator is not None
        return layout.validator.main

    assert main("check.py") == "check.py"
    assert main("util.py", "Main.py") == "Main.py"
    assert main("b.py", "a.py") == "a.py"
    assert main("__main__.py", "__init__.py", "helper.py") == "__main__.py"


def test_native_layout_is_unchanged() -> None:
    names = [
        "solution.tex",
        "solution.py",
        "solution.cpp",
        "solution.java",
        "solution.hs",
        "statement.md",
        "checker.py",
    ]
    layout = native_layout(names)
    assert layout.statements == (("en", "statement.md"),) and layout.writeup == "solution.tex"
    assert layout.solvers == ("solution.py", "solution.cpp", "solution.java") and layout.shown == ("solution.hs",)
    assert layout.validator is not None and layout.validator.main == "checker.py"


# ---------------------------------------------------------------- whole packages, built

SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PAIR_VALIDATOR = """\
import sys
from pairs import read_pair

with open(sys.argv[1]) as f:
    target = sum(map(int, f.read().split()))
got = read_pair(sys.stdin.read())
if got is None or sum(got) != target:
    with open(sys.argv[3] + "judgemessage.txt", "w") as f:
        f.write(f"pair {got} does not add up to {target}")
    sys.exit(43)
sys.exit(42)
"""
PAIRS = """\
def read_pair(text):
    parts = text.split()
    return tuple(map(int, parts)) if len(parts) == 2 else None
"""
MODERN_STATEMENT = r"""\problemname{Lakeside Lanterns}
\illustration{0.3}{lanterns.svg}{Lanterns on the shore}
Split the total of $a$ and $b$ (at most \constant{max_n}) into two parts.
\section*{Input}
Two integers.
\section*{Output}
Any two integers with the same sum.
\nextsample
\remainingsamples
"""
GERMAN_STATEMENT = r"""\problemname{Laternen am See}
Zerlege die Summe.
"""
SLIDES = r"""\documentclass{beamer}
\begin{document}
\begin{frame}{Observation}
\begin{itemize}
\item<1-> Any split works. \pause
\item<2-> \alert{Output} the input.
\end{itemize}
\end{frame}
\end{document}
"""


JAVA_TOTAL = """import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println((a + b) + " 0");
    }
}
"""
JAVA = shutil.which("javac") is not None and shutil.which("java") is not None


def modern_package(folder: str) -> dict[str, str | bytes]:
    return {
        f"{folder}/problem.yaml": MODERN_YAML,
        f"{folder}/statement/problem.en.tex": MODERN_STATEMENT,
        f"{folder}/statement/problem.de.tex": GERMAN_STATEMENT,
        f"{folder}/statement/lanterns.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n',
        f"{folder}/solution/solution.en.tex": SLIDES,
        f"{folder}/data/sample/1.in": "1 2\n",
        f"{folder}/data/sample/1.ans": "3 0\n",
        f"{folder}/data/sample/2.in": "5 5\n",
        f"{folder}/data/sample/2.ans": "10 0\n",
        f"{folder}/submissions/accepted/echo.py": "print(input())\n",
        f"{folder}/submissions/accepted/total.py": "a, b = map(int, input().split())\nprint(a + b, 0)\n",
        f"{folder}/submissions/accepted/Main.java": JAVA_TOTAL,
        f"{folder}/submissions/accepted/total.hs": "main = interact $ show . sum . map read . words\n",
        f"{folder}/submissions/wrong_answer/off.py": "print(0, 0)\n",
        f"{folder}/output_validator/validator.py": PAIR_VALIDATOR,
        f"{folder}/output_validator/pairs.py": PAIRS,
    }


def test_a_bapctools_package_without_its_samples_is_told_where_they_come_from() -> None:
    names = ["problem.yaml", "generators/generators.yaml", "problem_statement/problem.en.tex"]
    layout = package_layout(names, Metadata(package="legacy"), has_samples=False)
    assert any("generators/generators.yaml makes them" in m and "commit data/sample/" in m for m in layout.missing)
    layout = package_layout(names[::2], Metadata(package="legacy"), has_samples=False)
    assert "samples (data/sample/*.in with *.ans)" in layout.missing


def build(make_archive: ArchiveMaker, files: dict[str, str | bytes], tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / "site"
    archive = make_archive(files)
    report = build_site(options_for(archive, out))
    return out, [str(d).replace(str(archive), "archive") for d in report.diagnostics]


def test_a_2025_09_package_publishes_as_an_entry(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    out, diagnostics = build(make_archive, modern_package("icpc/2025/A-lanterns"), tmp_path)
    assert diagnostics == []
    page = (out / "icpc/2025/A-lanterns/index.html").read_text()
    assert "A. Lakeside Lanterns · Problem Archive</title>" in page
    assert f"Verified {6 if JAVA else 4}/{6 if JAVA else 4}" in page  # every run of every language
    # Both Python submissions ran on both samples; the validator (which imports its own module) accepted them.
    assert accepted_runs(page) == (6 if JAVA else 4)  # Java runs where a JDK is installed
    assert "submissions/accepted/total.hs" in page and "shown, not run at build time" in page
    # Statement: English first, German as a second tab; the illustration comes from statement/.
    assert page.index('id="tab-lang-en"') < page.index('id="tab-lang-de"')
    assert 'src="statement/lanterns.svg"' in page and "Zerlege die Summe" in page
    assert page.count('class="statement-sample"') == 2 and "(at most 100)" in page
    # Beamer slides: the frame title is a section of the editorial; overlays leave no trace.
    editorial = page[page.index('id="editorial"') : page.index('id="code"')]
    assert re.search(r'<h3 id="observation">Observation', editorial) and "&lt;1-&gt;" not in editorial
    for text in ("Ada Park", "Ben Ode", "Cy Lund", "CC BY-SA, © Archive Committee", "format 2025-09"):
        assert text in page
    assert '<a href="https://example.org/spring" rel="external">Spring Contest 2025</a>' in page
    assert (out / "icpc/2025/A-lanterns/output_validator/pairs.py").read_text() == PAIRS


def test_a_wrong_submission_in_accepted_is_rejected_by_the_validator(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files = modern_package("icpc/2025/A-lanterns")
    files["icpc/2025/A-lanterns/submissions/accepted/off.py"] = "print(0, 0)\n"
    out, diagnostics = build(make_archive, files, tmp_path)
    assert (
        "archive/icpc/2025/A-lanterns/data/sample/1.in: warning: submissions/accepted/off.py: Wrong Answer: "
        "pair (0, 0) does not add up to 3"
    ) in diagnostics
    assert "Failing: Python 2/2" in (out / "icpc/2025/A-lanterns/index.html").read_text()


def test_a_legacy_package_with_flags_and_a_problemname(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    folder = "icpc/2024/B-fares"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": LEGACY_YAML.replace("name: Ferry Fares\n", ""),
        f"{folder}/problem_statement/problem.tex": "\\problemname{Ferry Fares}\nCompute a third of $n$.\n",
        f"{folder}/problem_statement/solution.tex": "\\section{Idea}\nDivide by three.\n",
        f"{folder}/data/sample/1.in": "1\n",
        f"{folder}/data/sample/1.ans": "0.333333333\n",
        f"{folder}/data/sample/2.in": "yes\n",
        f"{folder}/data/sample/2.ans": "YES\n",
        f"{folder}/submissions/accepted/third.py": "s = input()\nprint(s if not s.isdigit() else int(s) / 3 + 1e-8)\n",
        f"{folder}/submissions/accepted/third.kt": "fun main() { println(readLine()) }\n",
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == []
    page = (out / f"{folder}/index.html").read_text()
    # Verified: the float is within 1e-6, and "yes" matches "YES" (the default validator ignores case).
    assert "B. Ferry Fares · Problem Archive</title>" in page and "Verified 2/2" in page
    assert "Divide by three" in page and "format legacy" in page and "Kotlin" in page


def test_a_package_missing_parts_still_publishes_and_says_so(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    folder = "icpc/2025/C-sketch"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "problem_format_version: 2025-09\nname: Sketch\nuuid: x\n",
        f"{folder}/statement/problem.en.md": "Only a statement so far.\n",
        f"{folder}/output_validators/old/check.py": "import sys\nsys.exit(42)\n",
    }
    archive = make_archive(files)
    report = build_site(options_for(archive, tmp_path / "site"))
    out, diagnostics = tmp_path / "site", [str(d).replace(str(archive), "archive") for d in report.diagnostics]
    where = "archive/icpc/2025/C-sketch: warning: problem package lacks"
    assert sorted(d.split(" (")[0] for d in diagnostics) == [f"{where} an accepted submission", f"{where} samples"]
    # No write-up is the common case (most packages publish none): said on the page and once in the summary.
    assert "1 package has no write-up (each says so on its page)" in report.notes
    page = (out / f"{folder}/index.html").read_text()
    assert "Only a statement so far." in page
    assert (
        "This package lacks samples (data/sample/*.in with *.ans), an accepted submission (submissions/accepted/) "
        "and a write-up (solution/solution.en.tex or .md; legacy: problem_statement/solution.tex)." in page
    )
    assert "No samples" in page


def test_default_validation_ignores_a_validator_folder_with_a_warning(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    folder = "icpc/2024/D-sum"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "name: Sum\nvalidation: default\n",
        f"{folder}/problem_statement/problem.en.tex": "Add.\n",
        f"{folder}/problem_statement/solution.en.tex": "Add them.\n",
        f"{folder}/data/sample/1.in": "1 2\n",
        f"{folder}/data/sample/1.ans": "3\n",
        f"{folder}/submissions/accepted/sum.py": SUM,
        f"{folder}/output_validators/never/check.py": "import sys\nsys.exit(43)\n",
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == [
        "archive/icpc/2024/D-sum/problem.yaml: warning: output_validators/never/ is not used: "
        "problem.yaml says validation: default"
    ]
    assert "Verified 1/1" in (out / f"{folder}/index.html").read_text()


CPP_HEADER = """\
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
inline std::string feedback_dir;
[[noreturn]] inline void verdict(int code, const char* why) {
    if (why) {
        std::FILE* f = std::fopen((feedback_dir + "judgemessage.txt").c_str(), "w");
        std::fputs(why, f);
        std::fclose(f);
    }
    std::exit(code);
}
"""
CPP_VALIDATOR = """\
#include "judging.h"
#include <fstream>
int main(int argc, char** argv) {
    feedback_dir = argv[3];
    std::ifstream in(argv[1]);
    long long a, b, x, y;
    in >> a >> b;
    if (std::scanf("%lld %lld", &x, &y) != 2) verdict(43, "expected two integers");
    if (x + y != a + b) verdict(43, "wrong sum");
    verdict(42, nullptr);
}
"""


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_a_cpp_validator_is_built_with_its_own_header(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = modern_package("icpc/2025/A-lanterns")
    del files["icpc/2025/A-lanterns/output_validator/validator.py"]
    del files["icpc/2025/A-lanterns/output_validator/pairs.py"]
    files["icpc/2025/A-lanterns/output_validator/validator.cpp"] = CPP_VALIDATOR
    files["icpc/2025/A-lanterns/output_validator/judging.h"] = CPP_HEADER
    files["icpc/2025/A-lanterns/submissions/accepted/words.py"] = "print('three', 'zero')\n"
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == [
        f"archive/icpc/2025/A-lanterns/data/sample/{n}.in: warning: submissions/accepted/words.py: Wrong Answer: "
        "expected two integers"
        for n in (1, 2)
    ]
    page = (out / "icpc/2025/A-lanterns/index.html").read_text()
    assert accepted_runs(page) == (6 if JAVA else 4) and "Failing: Python 2/2" in page


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_a_validator_that_does_not_compile_is_an_error(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = modern_package("icpc/2025/A-lanterns")
    del files["icpc/2025/A-lanterns/output_validator/validator.py"]
    del files["icpc/2025/A-lanterns/output_validator/pairs.py"]
    files["icpc/2025/A-lanterns/output_validator/validator.cpp"] = '#include "missing.h"\nint main() {}\n'
    out, diagnostics = build(make_archive, files, tmp_path)
    # One error for the validator, at the line its compiler names; no solver is run, nor called failing.
    [error] = diagnostics
    assert error.startswith("archive/icpc/2025/A-lanterns/output_validator/validator.cpp:1: ")
    assert (
        "Checker does not build: output_validator/: compile error: validator.cpp:1:10: fatal error: missing.h" in error
    )
    page = (out / "icpc/2025/A-lanterns/index.html").read_text()
    assert (
        "Checker does not build" in page
        and page.count("fatal error: missing.h") == 1
        and 'title="Checker Error"' not in page
    )


C_VALIDATOR = r"""#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r");
    long long a, b, x, y;
    if (!in || fscanf(in, "%lld %lld", &a, &b) != 2) return 1;
    if (scanf("%lld %lld", &x, &y) != 2) return 43;
    return x + y == a + b ? 42 : 43;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_c_validator_is_compiled_from_the_language_table(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = modern_package("icpc/2025/A-lanterns")
    del files["icpc/2025/A-lanterns/output_validator/validator.py"]
    del files["icpc/2025/A-lanterns/output_validator/pairs.py"]
    files["icpc/2025/A-lanterns/output_validator/check.c"] = C_VALIDATOR
    files["icpc/2025/A-lanterns/submissions/accepted/off.py"] = "print(0, 1)\n"
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == [
        f"archive/icpc/2025/A-lanterns/data/sample/{n}.in: warning: submissions/accepted/off.py: Wrong Answer: "
        "output_validator/ rejected the output"
        for n in (1, 2)
    ]
    page = (out / "icpc/2025/A-lanterns/index.html").read_text()
    assert accepted_runs(page) == (6 if JAVA else 4)


def test_2025_09_constants_in_every_form_and_in_submissions_and_validators(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    folder = "icpc/2026/C-counts"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": (
            "problem_format_version: 2025-09\nname: Counts\ntype: pass-fail\n"
            "constants:\n  LIMIT:\n    value: 5000000\n    tex: 5 \\cdot 10^6\n    WORD: five million\n"
            "  SIX: 6\n  RATE: {value: 10.0, GERMAN: '10,0'}\n"
        ),
        f"{folder}/statement/problem.en.tex": (
            "\\problemname{Counts}\nPrint \\constant{SIX} at most \\constant{LIMIT.WORD} times "
            "($n \\le \\constant{LIMIT.tex}$, rate \\constant{RATE.GERMAN}, \\constant{SIX.value}).\n"
            "Unknown: \\constant{LIMIT.roman}.\n"
        ),
        f"{folder}/solution/solution.en.md": "# Idea\n\nPrint {{SIX}}.\n",
        f"{folder}/statement/problem.de.md": "Gib {{SIX}} aus, höchstens {{LIMIT.WORD}} mal; {{NOPE}} bleibt.\n",
        f"{folder}/data/sample/1.in": "\n",
        f"{folder}/data/sample/1.ans": "6\n",
        f"{folder}/submissions/accepted/six.py": "print({{SIX}})\n",
        f"{folder}/submissions/accepted/six.cpp": (
            '#include <cstdio>\nint main() { std::printf("%d\\n", {{SIX.value}}); }\n'
        ),
        f"{folder}/output_validator/validator.py": (
            "import sys\nwant = {{SIX}}\ngot = int(sys.stdin.read().split()[0])\nsys.exit(42 if got == want else 43)\n"
        ),
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == [
        f"archive/{folder}/statement/problem.en.tex:3: warning: \\constant{{LIMIT.roman}}: "
        "problem.yaml defines no constant 'LIMIT.roman'"
    ]
    page = (out / folder / "index.html").read_text()
    assert "Print 6 at most five million times" in page and "rate 10,0, 6)" in page
    assert "Gib 6 aus, höchstens five million mal; {{NOPE}} bleibt." in page
    assert accepted_runs(page) == 2  # both submissions printed 6, and the validator wanted 6
    assert "print({{SIX}})" in re.sub(r"<[^>]+>", "", page)  # the page shows the source as it is written


def test_constants_that_the_format_does_not_allow_are_errors() -> None:
    for yaml_text, message in (
        ("constants: {2x: 1}\n", "constants: '2x' is not a name ([a-zA-Z_][a-zA-Z0-9_]*)"),
        ("constants: {K: {tex: '10^5'}}\n", "constants: K has variants but no 'value'"),
        ("constants: {K: [1, 2]}\n", "constants: K.value must be an integer, a number or a string"),
    ):
        _, found = parse("problem_format_version: 2025-09\nname: X\n" + yaml_text)
        assert found == [f"p/problem.yaml:3: {message}"]


@pytest.mark.parametrize(
    ("kinds", "interactive", "multi_pass"),
    [
        ("pass-fail interactive", True, False),  # problem-package-format's own example writes it so
        (["scoring", "multi-pass"], False, True),
        ("interactive multi-pass", True, True),
        ("pass-fail", False, False),
    ],
)
def test_a_problem_type_may_be_a_list_or_values_apart_in_one_string(
    kinds: str | list[str], interactive: bool, multi_pass: bool
) -> None:
    from site_builder.source.package import parse_package_metadata

    data = {"problem_format_version": "2025-09", "name": "X", "type": kinds}
    meta, diagnostics = parse_package_metadata(data, {}, "problem.yaml")
    assert (meta.interactive, meta.multi_pass) == (interactive, multi_pass)
    assert diagnostics == []


def test_a_scoring_package_lists_its_subtasks_and_judges_its_samples(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """Olympiad packages (``type: scoring``) give points by test group, each group's ``testdata.yaml``
    saying its score (``accept_score``, else the top of its ``range``) and what its input validator checks."""
    folder = "olympiad/2024/C-bridges"
    group = "on_reject: break\naccept_score: {points}\nrange: 0 {points}\ninput_validator_flags: n={n}\n"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "name: Bridges\ntype: scoring\n",
        f"{folder}/problem_statement/problem.en.tex": "\\problemname{Bridges}\nAdd the two numbers.\n",
        f"{folder}/data/sample/1.in": "2 3\n",
        f"{folder}/data/sample/1.ans": "5\n",
        f"{folder}/data/secret/testdata.yaml": "on_reject: continue\nrange: 0 100\n",
        f"{folder}/data/secret/group1/testdata.yaml": group.format(points=30, n=10),
        f"{folder}/data/secret/group1/01.in": "1 1\n",
        f"{folder}/data/secret/group2/testdata.yaml": "range: 0 70\n",
        f"{folder}/data/secret/group2/01.in": "1 2\n",
        f"{folder}/data/secret/group10/01.in": "1 3\n",
        f"{folder}/submissions/accepted/sum.py": SUM,
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == []  # a package without a write-up says so on its page, and once in the summary
    assert "This package lacks a write-up" in (out / f"{folder}/index.html").read_text()
    page = (out / f"{folder}/index.html").read_text()
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>(.*?)</td></tr>", page)
    assert rows == [("group1", "30", "<code>n=10</code>"), ("group2", "70", ""), ("group10", "\u2013", "")]
    assert "Verified 1/1" in page


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_a_validator_with_build_and_run_scripts_is_built_by_them(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """A validator folder with ``build``/``run`` scripts is built as the format says: ``build`` in the sandbox,
    then ``run``; its other sources are not compiled together (here a second ``main`` beside it would clash)."""
    folder = "icpc/2019/D-pairs"
    checker = "output_validators/pairs"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "name: Pairs\nvalidation: custom\n",
        f"{folder}/problem_statement/problem.en.tex": "\\problemname{Pairs}\nPrint two numbers with the sum.\n",
        f"{folder}/data/sample/1.in": "5\n",
        f"{folder}/data/sample/1.ans": "2 3\n",
        f"{folder}/submissions/accepted/split.py": "n = int(input())\nprint(1, n - 1)\n",
        f"{folder}/{checker}/build": "#!/bin/sh\ng++ -O2 -o judge judge.cpp\n",
        f"{folder}/{checker}/run": '#!/bin/sh\nexec ./judge "$@"\n',
        f"{folder}/{checker}/judge.cpp": CPP_SUM_JUDGE,
        f"{folder}/{checker}/generator.cpp": "int main() { return 0; }\n",
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == []
    assert "Verified 1/1" in (out / f"{folder}/index.html").read_text()

    files[f"{folder}/{checker}/build"] = "#!/bin/sh\ng++ -o judge judge.cpp missing.cpp\n"
    out, diagnostics = build(make_archive, files, tmp_path / "again")
    [error] = diagnostics
    assert "Checker does not build: output_validators/pairs/: build failed:" in error and "missing.cpp" in error
    assert "Checker does not build" in (out / f"{folder}/index.html").read_text()


@pytest.mark.skipif(not HAS_GXX, reason="needs g++")
def test_a_submission_with_build_and_run_scripts_is_built_and_run_by_them(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """An accepted submission that is a folder with ``build``/``run`` scripts: ``build`` compiles in the
    sandbox, ``run`` is what runs on each sample (here it passes an argument the program needs), the
    folder's files are listed as sources; a build that fails is the submission's compile error."""
    folder = "icpc/2019/E-sums"
    scripted = f"{folder}/submissions/accepted/scripted"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "name: Sums\n",
        f"{folder}/problem_statement/problem.en.tex": "\\problemname{Sums}\nAdd two numbers.\n",
        f"{folder}/data/sample/1.in": "2 3\n",
        f"{folder}/data/sample/1.ans": "5\n",
        f"{folder}/data/sample/2.in": "10 -4\n",
        f"{folder}/data/sample/2.ans": "6\n",
        f"{scripted}/build": "#!/bin/sh\ng++ -O2 -o adder src/adder.cpp\n",
        f"{scripted}/run": "#!/bin/sh\nexec ./adder plus\n",
        f"{scripted}/src/adder.cpp": CPP_ADDER,
        f"{scripted}/src/unused_main.cpp": "int main() { return 1; }\n",
    }
    out, diagnostics = build(make_archive, files, tmp_path)
    assert diagnostics == []
    page = (out / f"{folder}/index.html").read_text()
    assert "Verified 2/2" in page
    assert "submissions/accepted/scripted/src/adder.cpp" in page  # its files are shown as sources
    assert "an accepted submission" not in page  # the folder is the package's accepted submission

    files[f"{scripted}/src/adder.cpp"] = CPP_ADDER.replace("a + b", "a + b + 1")  # same cache: built again
    out, diagnostics = build(make_archive, files, tmp_path)
    assert "Failing: build/run scripts 2/2" in (out / f"{folder}/index.html").read_text()

    files[f"{scripted}/build"] = "#!/bin/sh\ng++ -o adder src/adder.cpp src/unused_main.cpp\n"
    out, diagnostics = build(make_archive, files, tmp_path / "again")
    page = (out / f"{folder}/index.html").read_text()
    assert "build failed:" in page and "multiple definition of" in page and "Verified" not in page
    assert any("submissions/accepted/scripted/" in d for d in diagnostics)

    files[f"{scripted}/build"] = "#!/bin/sh\ng++ -o adder src/adder.cpp\n"
    del files[f"{scripted}/run"]
    (make_archive(files) / scripted / "run").unlink()
    out, diagnostics = build(make_archive, files, tmp_path / "no-run")
    assert "the build left no executable named run" in (out / f"{folder}/index.html").read_text()


CPP_ADDER = r"""#include <cstring>
#include <iostream>
int main(int argc, char **argv) {
    if (argc != 2 || std::strcmp(argv[1], "plus") != 0) return 3;
    long long a, b;
    std::cin >> a >> b;
    std::cout << a + b << "\n";
}
"""


CPP_SUM_JUDGE = r"""#include <fstream>
#include <iostream>
int main(int argc, char **argv) {
    std::ifstream in(argv[1]);
    long long n, a, b;
    in >> n;
    if (!(std::cin >> a >> b)) return 43;
    return a + b == n ? 42 : 43;
}
"""


def accepted_runs(page: str) -> int:
    """How many runs on a sample the page lists as accepted (each solver's line under each sample)."""
    return len(re.findall(r'class="solver-name">[^<]*</span> <span class="badge verdict verdict-ac"', page))


def test_accepted_submissions_that_submissions_yaml_permits_to_fail_are_shown_not_run(
    make_archive: ArchiveMaker,
) -> None:
    """2025-09's ``submissions/submissions.yaml`` may permit an accepted/ submission other verdicts."""
    from conftest import load_one

    package = "t/A-sum"
    expectations = (
        "accepted/slow*:\n  permitted: [AC, TLE]\n"
        "accepted/{odd,even}.py:\n  permitted: [WA]\n"
        "accepted/exact:\n  permitted: [WA]\n"  # a glob matches a whole name, not its start
        "accepted/main.py:\n  permitted: [AC]\n  message: the model solution\n"
    )
    files = {
        f"{package}/problem.yaml": "problem_format_version: 2025-09\nname: Sum\n",
        f"{package}/data/sample/1.in": "1 2\n",
        f"{package}/data/sample/1.ans": "3\n",
        f"{package}/submissions/submissions.yaml": expectations,
    }
    for name in ("main.py", "slow.py", "slowest.cpp", "odd.py", "even.py", "exact.py"):
        files[f"{package}/submissions/accepted/{name}"] = "print(3)\n"
    _, source = load_one(make_archive, files)
    assert source.layout.solvers == ("submissions/accepted/exact.py", "submissions/accepted/main.py")
    assert source.layout.shown == tuple(
        f"submissions/accepted/{n}" for n in ("even.py", "odd.py", "slow.py", "slowest.cpp")
    )


def test_a_submissions_yaml_key_of_endless_alternatives_rules_nothing_out_and_costs_nothing() -> None:
    from site_builder.source.layout import not_held_to_accepted

    solvers = ("submissions/accepted/a.py", "submissions/accepted/b.py")
    hostile = {"accepted/" + "{a,b}" * 40 + ".py": {"permitted": ["WA"]}, "accepted/b.py": {"permitted": ["TLE"]}}
    assert not_held_to_accepted(solvers, hostile) == {"submissions/accepted/b.py"}
