"""An entry's solvers and output validator made ready to run (``verify/solvers.py``), from archives
loaded as a build loads them, with a compiler that records what it is asked and answers as told (the
real one compiles in the sandbox: ``test_verify.py`` and ``test_package.py`` run those)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import ArchiveMaker, load_one, write_tree

from site_builder.model import Metadata
from site_builder.sandbox import runner as sandbox
from site_builder.source.languages import JudgeLanguage, judge_language
from site_builder.verify import solvers
from site_builder.verify.compiler import Compiler, Source
from site_builder.verify.options import VerifyOptions
from site_builder.verify.runtimes import python_runtime
from site_builder.verify.solvers import (
    INTERACTIVE_NOTE,
    MISSING_VALIDATOR,
    PYTHON2_NOTE,
    Solver,
    ValidatorProgram,
)
from site_builder.verify.toolchains import Installed

OPTIONS = VerifyOptions(memory=700 * sandbox.MiB)
SAMPLE = {"data/sample/1.in": "1\n", "data/sample/1.ans": "1\n"}
PROGRAM, BUILT = Path("/compiled/program"), Path("/built/run.tar")


class Recording(Compiler):
    """The machine's tools, as the real compiler finds them; compiling and building are recorded and
    answered with ``compiled`` and ``scripted``; a language named in ``missing`` has no tools."""

    def __init__(self, folder: Path, compiled: tuple[Path | None, str] = (PROGRAM, ""), **answers: Any) -> None:
        super().__init__(folder)
        self.compiled, self.scripted = compiled, answers.get("scripted", (BUILT, ""))
        self.missing: dict[str, str] = answers.get("missing", {})
        self.asked: list[Source | dict[str, str]] = []

    def tools(self, language: JudgeLanguage) -> Installed:
        if language.id in self.missing:
            return Installed(language, self.missing[language.id])
        return super().tools(language)

    def compile(self, source: Source) -> tuple[Path | None, str]:
        self.asked.append(source)
        return self.compiled

    def build_scripted(self, files: dict[str, str]) -> tuple[Path | None, str]:
        self.asked.append(files)
        return self.scripted


@pytest.fixture
def make_archive(tmp_path: Path) -> ArchiveMaker:
    """An archive of its own for each call (conftest's adds to one)."""
    made = iter(range(1000))

    def make(files: dict[str, str | bytes]) -> Path:
        archive = tmp_path / f"archive-{next(made)}"
        write_tree(archive, files)
        return archive

    return make


def entry(make_archive: ArchiveMaker, files: dict[str, str | bytes], folder: str = "t/A-x") -> Any:
    return load_one(make_archive, {f"{folder}/{name}": text for name, text in files.items()})[1]


def made(
    make_archive: ArchiveMaker, tmp_path: Path, files: dict[str, str | bytes], **answers: Any
) -> tuple[list[Solver], Any]:
    compiler = Recording(tmp_path / "compiled", **answers)
    return solvers._solvers(entry(make_archive, files), OPTIONS, compiler), compiler


def by_name(found: list[Solver]) -> dict[str, Solver]:
    return {s.name: s for s in found}


def python_argv(main: str) -> tuple[str, ...]:
    return (python_runtime(OPTIONS.interpreter)[0], main)


def test_our_own_python_solver_runs_with_the_builds_python(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    found, compiler = made(make_archive, tmp_path, {"solution.py": "print(2)\n", "samples/1.in": "1\n"})
    assert found == [Solver("solution.py", "python", "print(2)\n", python_argv("solution.py"))]
    assert compiler.asked == []
    assert found[0].files() == {"solution.py": b"print(2)\n"}


def test_a_package_s_python_runs_on_pypy_with_its_include_files_and_constants(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    if (
        pypy := solvers.interpreter_for(judge_language("a.py"), "print(1)\n", OPTIONS.interpreter)[0]
    ) == OPTIONS.interpreter:
        pytest.skip("needs pypy3")
    files = {
        "problem.yaml": "name: X\nconstants:\n  top: 99\n",
        "submissions/accepted/a.py": "from lib import TOP\nprint({{top}})\n",
        "include/python3/lib.py": "TOP = {{top}}\n",
        "include/default/other.py": "never: python3's folder has files\n",
        **SAMPLE,
    }
    found, _ = made(make_archive, tmp_path, files)
    (solver,) = found
    runtime = python_runtime(pypy)[0]
    assert solver == Solver(
        "submissions/accepted/a.py",
        "python",
        "from lib import TOP\nprint(99)\n",
        (runtime, "a.py"),
        included=(("lib.py", "TOP = 99\n"),),
        interpreter=pypy,
    )
    assert solver.files() == {"a.py": b"from lib import TOP\nprint(99)\n", "lib.py": b"TOP = 99\n"}
    assert solver.digest == solvers.text_digest("from lib import TOP\nprint(99)\n" + repr((("lib.py", "TOP = 99\n"),)))
    clash = {**files, "include/python3/a.py": "the package's\n"}  # the format's include files win a clash of names
    assert [s.source for s in made(make_archive, tmp_path / "clash", clash)[0]] == ["the package's\n"]


def test_include_default_serves_a_language_without_a_folder_of_its_own(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files = {
        "problem.yaml": "name: X\n",
        "submissions/accepted/a.cpp": '#include "h.h"\nint main(){}\n',
        "include/default/h.h": "// {{missing}} stays\n",
        "include/java/h.h": "no\n",
        **SAMPLE,
    }
    found, compiler = made(make_archive, tmp_path, files)
    assert compiler.asked == [
        Source(
            judge_language("a.cpp"),
            (("a.cpp", '#include "h.h"\nint main(){}\n'), ("h.h", "// {{missing}} stays\n")),
            "a.cpp",
        )
    ]
    assert found == [
        Solver("submissions/accepted/a.cpp", "cpp", '#include "h.h"\nint main(){}\n', ("./program",), "", PROGRAM)
    ]


def test_our_own_folders_take_no_include_files(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    found, _ = made(
        make_archive, tmp_path, {"solution.py": "print(1)\n", "include/default/x.py": "X = 1\n", "samples/1.in": "1\n"}
    )
    assert [s.included for s in found] == [()]


def test_a_compile_error_is_the_solver_s_note_and_it_has_nothing_to_run(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files = {"solution.cpp": "int main({}\n", "samples/1.in": "1\n"}
    found, _ = made(make_archive, tmp_path, files, compiled=(None, "compile error:\nsolution.cpp:1: error"))
    assert found == [Solver("solution.cpp", "cpp", "int main({}\n", (), "compile error:\nsolution.cpp:1: error", None)]


PACKAGE = {"problem.yaml": "name: X\n", "submissions/accepted/a.py": "print(1)\n"}


@pytest.mark.parametrize(
    ("files", "name", "note"),
    [
        ({"solution.py": "#!/usr/bin/env python2\nprint 1\n"}, "solution.py", PYTHON2_NOTE),
        ({"solution.py2": "print(1)\n"}, "solution.py2", PYTHON2_NOTE),
        (
            {**PACKAGE, "include/python3/-rf.py": "x\n"},
            "submissions/accepted/a.py",
            "not run: a file name may not start with '-' or '@' (-rf.py)",
        ),
        (
            {**PACKAGE, "include/python3/@a.py": "x\n", "include/python3/-b.py": "x\n"},
            "submissions/accepted/a.py",
            "not run: a file name may not start with '-' or '@' (-b.py, @a.py)",
        ),
        ({**PACKAGE, "problem.yaml": "name: X\ntype: interactive\n"}, "submissions/accepted/a.py", INTERACTIVE_NOTE),
        (
            {**PACKAGE, "problem.yaml": "name: X\ntype: [multi-pass]\n"},
            "submissions/accepted/a.py",
            "not run: this multi-pass problem has no output validator to talk to the solver",
        ),
    ],
)
def test_a_solver_that_cannot_run_says_why_and_is_not_compiled(
    make_archive: ArchiveMaker, tmp_path: Path, files: dict[str, str], name: str, note: str
) -> None:
    found, compiler = made(make_archive, tmp_path, {**files, **SAMPLE, "samples/1.in": "1\n"})
    assert found == [Solver(name, "python", files[name], (), note)]
    assert compiler.asked == []


def test_a_solver_left_out_or_not_run_does_not_stop_those_after_it(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "problem.yaml": "name: X\n",
        "submissions/accepted/a/run": "#!/bin/sh\n",  # built by its scripts (folders come after files)
        "submissions/accepted/f/run": "#!/bin/sh\n",
        "submissions/accepted/b.cpp": b"\xff\xfe not text",  # not read as text: left out
        "submissions/accepted/c.py": "#!/usr/bin/python2\nprint 1\n",  # not run: Python 2
        "submissions/accepted/d.py": "print(1)\n",
        "submissions/accepted/e.cpp": "int main(){}\n",
        **SAMPLE,
    }
    source = load_one(make_archive, {f"t/A-x/{n}": t for n, t in files.items()})[1]
    compiler = Recording(tmp_path / "compiled")
    found = solvers._solvers(source, OPTIONS, compiler)
    assert sorted(s.name for s in found) == [f"submissions/accepted/{n}" for n in ("a/", "c.py", "d.py", "e.cpp", "f/")]
    assert [s.argv for s in found if s.name.endswith("e.cpp")] == [("./program",)]
    cpp = judge_language("e.cpp")
    assert [p for p in solvers._programs(source)] == [Source(cpp, (("e.cpp", "int main(){}\n"),), "e.cpp")]


def test_python_newer_than_pypy_s_runs_on_the_build_s_python(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    language = judge_language("a.py")
    if solvers.interpreter_for(language, "print(1)\n", OPTIONS.interpreter)[0] == OPTIONS.interpreter:
        pytest.skip("needs pypy3")
    newer = "match 1:\n    case 1:\n        print(1)\n"
    if solvers.interpreter_for(language, newer, OPTIONS.interpreter)[0] != OPTIONS.interpreter:
        pytest.skip("this PyPy reads match statements")
    found, _ = made(make_archive, tmp_path, {**PACKAGE, "submissions/accepted/a.py": newer, **SAMPLE})
    assert [(s.interpreter, s.argv) for s in found] == [(OPTIONS.interpreter, python_argv("a.py"))]


def test_an_interpreted_language_gets_the_run_s_memory_where_its_command_asks(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.source import languages

    table = tmp_path / "languages.yaml"  # the table with a language added, as a maintainer adds one
    script = "javascript:\n  name: JavaScript\n  suffixes: [.js]\n  run: [node, '--heap={memory_mb}', '{main}']\n"
    table.write_text(languages.TABLE.read_text(encoding="utf-8") + script, encoding="utf-8")
    monkeypatch.setattr(languages, "TABLE", table)
    languages.judge_languages.cache_clear()
    languages.judge_language.cache_clear()
    monkeypatch.setattr(Recording, "tools", lambda self, language: Installed(language))
    try:
        files = {"problem.yaml": "name: X\nlimits:\n  memory: 256\n", "submissions/accepted/a.js": "1\n", **SAMPLE}
        found, _ = made(make_archive, tmp_path, files)
    finally:
        monkeypatch.undo()
        languages.judge_languages.cache_clear()
        languages.judge_language.cache_clear()
    assert found == [Solver("submissions/accepted/a.js", "javascript", "1\n", ("node", "--heap=256", "a.js"))]


def test_a_language_whose_tools_are_missing_is_not_run(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {"solution.cpp": "int main(){}\n", "solution.py": "print(1)\n", "samples/1.in": "1\n"}
    found, compiler = made(make_archive, tmp_path, files, missing={"cpp": "g++ not found"})
    assert [(s.name, s.note, s.argv) for s in found] == [
        ("solution.py", "", python_argv("solution.py")),
        ("solution.cpp", "not run: g++ not found", ()),
    ]
    assert compiler.asked == []


def test_a_run_gets_the_package_s_memory_as_a_judge_gives_it(make_archive: ArchiveMaker) -> None:
    def memory(files: dict[str, str]) -> int:
        return (
            solvers.run_memory(entry(make_archive, {**files, "submissions/accepted/a.py": "", **SAMPLE}), OPTIONS) >> 20
        )

    assert memory({"problem.yaml": "name: X\nlimits:\n  memory: 512\n"}) == 512
    assert memory({"problem.yaml": "name: X\nlimits:\n  memory: 9000\n"}) == 4096  # at most MAX_MEMORY
    assert memory({"problem.yaml": "name: X\n"}) == 1024  # the legacy format's default
    assert memory({"problem.yaml": "problem_format_version: 2025-09\nname: X\n"}) == 2048
    ours = entry(make_archive, {"solution.py": "print(1)\n", "samples/1.in": "1\n"}, folder="t/B-ours")
    assert solvers.run_memory(ours, OPTIONS) == 700 * sandbox.MiB  # our own folder: the build's


def test_a_run_s_memory_reaches_the_command_of_a_language_that_takes_it(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Recording, "tools", lambda self, language: Installed(language))  # java, wherever it is
    files = {"problem.yaml": "name: X\nlimits:\n  memory: 300\n", "submissions/accepted/Main.java": "class Main{}\n"}
    found, _ = made(make_archive, tmp_path, {**files, **SAMPLE})
    assert found[0].argv == ("java", "-Xss256m", "-Xmx300m", "-XX:+UseSerialGC", "-jar", "program.jar")


def test_a_cms_grader_of_the_solver_s_language_and_its_headers_are_compiled_with_it(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    source = entry(
        make_archive,
        {
            "task.yaml": "name: x\ntitle: X\n",
            "sol/solution.cpp": '#include "grader.h"\nint f(){return 1;}\n',
            "sol/grader.cpp": "int main(){}\n",
            "sol/grader.h": "int f();\n",
            "sol/grader.hpp": "int g();\n",
            "sol/grader.py": "python's\n",
            "sol/solution.py": "print(1)\n",
            "testo/input0.txt": "1\n",
            "testo/output0.txt": "1\n",
        },
        folder="t/x",
    )
    if not source.layout.graders:
        pytest.skip("this layout is not read as a CMS task")
    cpp = solvers._solver_files(source, "sol/solution.cpp", "mine\n")
    headers = {"grader.h": "int f();\n", "grader.hpp": "int g();\n"}
    assert cpp == {"solution.cpp": "mine\n", "grader.cpp": "int main(){}\n", **headers}
    python = solvers._solver_files(source, "sol/solution.py", "mine\n")
    assert python == {"solution.py": "mine\n", **headers}  # an interpreted language links no grader
    same_name = solvers._solver_files(source, "sol/grader.cpp", "the solver's\n")
    assert same_name["grader.cpp"] == "the solver's\n"  # the solver's own file wins


def test_a_submission_folder_is_built_by_its_scripts_over_include_default(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files: dict[str, str | bytes] = {
        "problem.yaml": "name: X\nconstants:\n  n: 7\n",
        "submissions/accepted/s/build": "#!/bin/sh\necho {{n}}\n",
        "submissions/accepted/s/run": "#!/bin/sh\n./a\n",
        "submissions/accepted/s/lib/x.txt": "in a folder\n",
        "submissions/accepted/s/data.bin": b"\xff\xfe",  # not text: not given (the build reads text)
        "submissions/accepted/t.py": "print(1)\n",
        "include/default/common.txt": "{{n}} for all\n",
        "include/default/run": "overridden\n",
        **SAMPLE,
    }
    found, compiler = made(make_archive, tmp_path, files)
    given = {
        "build": "#!/bin/sh\necho 7\n",
        "run": "#!/bin/sh\n./a\n",
        "lib/x.txt": "in a folder\n",
        "common.txt": "7 for all\n",
    }
    assert compiler.asked == [given]
    digest = json.dumps(sorted((n, solvers.text_digest(t)) for n, t in given.items()))
    assert by_name(found)["submissions/accepted/s/"] == Solver(
        "submissions/accepted/s/", "build-run", digest, ("./run",), built=BUILT
    )


@pytest.mark.parametrize(
    ("answer", "note"),
    [
        ("make: *** no rule", "compile error:\nmake: *** no rule"),
        ("could not build: the sandbox did not start", "could not build: the sandbox did not start"),
    ],
)
def test_a_submission_folder_that_does_not_build_says_why(
    make_archive: ArchiveMaker, tmp_path: Path, answer: str, note: str
) -> None:
    files = {"problem.yaml": "name: X\n", "submissions/accepted/s/build": "#!/bin/sh\nexit 1\n", **SAMPLE}
    found, _ = made(make_archive, tmp_path, files, scripted=(None, answer))
    digest = json.dumps([["build", solvers.text_digest("#!/bin/sh\nexit 1\n")]])
    assert found == [Solver("submissions/accepted/s/", "build-run", digest, (), note)]


def test_a_submission_folder_that_cannot_run_is_not_built(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {"problem.yaml": "name: X\ntype: interactive\n", "submissions/accepted/s/run": "#!/bin/sh\n", **SAMPLE}
    found, compiler = made(make_archive, tmp_path, files)
    digest = json.dumps([["run", solvers.text_digest("#!/bin/sh\n")]])
    assert found == [Solver("submissions/accepted/s/", "build-run", digest, (), INTERACTIVE_NOTE)]
    assert compiler.asked == []
    files = {"problem.yaml": "name: X\n", "submissions/accepted/s/run": "", "submissions/accepted/s/@x": "", **SAMPLE}
    found, compiler = made(make_archive, tmp_path, files)
    digest = json.dumps([["@x", solvers.text_digest("")], ["run", solvers.text_digest("")]])
    note = "not run: a file name may not start with '-' or '@' (@x)"
    assert found == [Solver("submissions/accepted/s/", "build-run", digest, (), note)] and compiler.asked == []


def test_what_an_entry_needs_compiled(make_archive: ArchiveMaker) -> None:
    files = {
        "problem.yaml": "name: X\nvalidation: custom\n",
        "submissions/accepted/a.cpp": "int main(){}\n",
        "submissions/accepted/b.py": "print(1)\n",
        "submissions/accepted/Main.java": "class Main{}\n",
        "submissions/accepted/-c.cpp": "int main(){}\n",
        "output_validators/v/validate.cpp": "int main(){return 42;}\n",
        "output_validators/v/testlib.h": "// {{x}}\n",
        **SAMPLE,
    }
    programs = solvers._programs(entry(make_archive, files))
    cpp, java = judge_language("a.cpp"), judge_language("Main.java")
    assert programs == [
        Source(cpp, (("a.cpp", "int main(){}\n"),), "a.cpp"),
        Source(java, (("Main.java", "class Main{}\n"),), "Main.java"),
        Source(cpp, (("testlib.h", "// {{x}}\n"), ("validate.cpp", "int main(){return 42;}\n")), "validate.cpp"),
    ]
    python = {n: t for n, t in files.items() if not n.startswith("output_validators/")}
    interactive = {**python, "problem.yaml": "name: X\ntype: interactive\n"}  # and nothing to talk to
    assert solvers._programs(entry(make_archive, interactive)) == []  # its solvers cannot run
    python["output_validators/v/validate.py"] = "exit(42)\n"
    assert solvers._programs(entry(make_archive, python)) == programs[:2]  # a Python validator is not compiled
    scripted = {**python, "output_validators/v/run": "#!/bin/sh\n"}
    assert solvers._programs(entry(make_archive, scripted)) == programs[:2]  # nor one its scripts build
    unread: dict[str, str | bytes] = {**files, "output_validators/v/validate.cpp": b"\xff\xfe"}  # not text
    unread["output_validators/v/data.bin"] = b"\x00\xff"
    made = solvers._programs(entry(make_archive, unread))
    assert made == [*programs[:2], Source(cpp, (("testlib.h", "// {{x}}\n"),), "")]  # no source: a compile error


def validator(make_archive: ArchiveMaker, tmp_path: Path, files: dict[str, str], **answers: Any) -> Any:
    compiler = Recording(tmp_path / "compiled", **answers)
    return solvers._validator(entry(make_archive, {**files, **SAMPLE}), OPTIONS, compiler), compiler


def test_no_validator_is_the_default_comparison(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    assert validator(make_archive, tmp_path, {"problem.yaml": "name: X\n"})[0] is None
    assert validator(make_archive, tmp_path, {"problem.yaml": "name: X\nvalidation: default\n"})[0] is None
    ours = {"solution.py": "print(1)\n", "samples/1.in": "1\n"}
    assert validator(make_archive, tmp_path, ours)[0] is None


def test_a_package_without_the_validator_it_asks_for_judges_nothing(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    found, _ = validator(make_archive, tmp_path, {"problem.yaml": "name: X\nvalidation: custom\n"})
    digest = hashlib.sha256(MISSING_VALIDATOR.encode()).hexdigest()
    assert found == ValidatorProgram("output_validator/", (), (), (), digest, MISSING_VALIDATOR)
    assert not found.broken and not found.toolchain_free


def test_a_python_validator_runs_with_its_files_and_the_package_s_arguments(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files = {
        "problem.yaml": "name: X\nvalidation: custom\nvalidator_flags: float_tolerance 1e-6\nconstants:\n  k: 5\n",
        "output_validators/v/validate.py": "import helper\nK = {{k}}\n",
        "output_validators/v/helper.py": "pass\n",
    }
    found, compiler = validator(make_archive, tmp_path, files)
    shown = (("helper.py", "pass\n"), ("validate.py", "import helper\nK = 5\n"))
    args = ("float_tolerance", "1e-6")
    digest = hashlib.sha256(json.dumps([sorted(shown), list(args), "validate.py", "kattis"]).encode()).hexdigest()
    assert found == ValidatorProgram("output_validators/v/", python_argv("validate.py"), shown, args, digest)
    assert compiler.asked == [] and not found.toolchain_free


def digest(files: dict[str, str], args: tuple[str, ...] = (), main: str = "", convention: str = "kattis") -> str:
    """A validator's digest, of what decides its verdicts (its files, arguments, entry point and convention)."""
    return hashlib.sha256(json.dumps([sorted(files.items()), list(args), main, convention]).encode()).hexdigest()


def test_our_own_checker(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {"solution.py": "print(1)\n", "samples/1.in": "1\n", "checker.py": "exit(42)\n"}
    found, _ = validator(make_archive, tmp_path, files)
    checker = {"checker.py": "exit(42)\n"}
    assert found == ValidatorProgram(
        "checker.py", python_argv("checker.py"), tuple(checker.items()), (), digest(checker, (), "checker.py")
    )


def test_a_validator_s_digest_changes_with_each_thing_that_decides_it(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    base = {
        "problem.yaml": "name: X\nvalidation: custom\nvalidator_flags: a\n",
        "output_validators/v/validate.py": "exit(42)\n",
    }
    changed = [
        {**base, "output_validators/v/validate.py": "exit(43)\n"},
        {**base, "output_validators/v/more.py": "x\n"},
        {**base, "problem.yaml": "name: X\nvalidation: custom\nvalidator_flags: b\n"},
    ]
    digests = [validator(make_archive, tmp_path / str(i), files)[0].digest for i, files in enumerate([base, *changed])]
    assert len(set(digests)) == 4


CUSTOM = "name: X\nvalidation: custom\nvalidator_flags: -eps 1\n"
ARGS = ("-eps", "1")


def test_a_compiled_validator(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {"problem.yaml": CUSTOM, "output_validators/v/validate.cpp": "int main(){}\n"}
    found, compiler = validator(make_archive, tmp_path, files)
    assert compiler.asked == [Source(judge_language("a.cpp"), (("validate.cpp", "int main(){}\n"),), "validate.cpp")]
    shown = {"validate.cpp": "int main(){}\n"}
    assert found == ValidatorProgram(
        "output_validators/v/", ("./validator",), (), ARGS, digest(shown, ARGS), program=PROGRAM
    )
    assert found.toolchain_free


def test_a_validator_that_does_not_compile_is_the_package_s_fault_and_one_not_built_here_is_not(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files = {"problem.yaml": CUSTOM, "output_validators/v/validate.cpp": "int main({}\n"}
    key = digest({"validate.cpp": "int main({}\n"}, ARGS)
    broken, _ = validator(make_archive, tmp_path / "a", files, compiled=(None, "compile error:\nvalidate.cpp:1: x"))
    said = "output_validators/v/: compile error:\nvalidate.cpp:1: x"
    assert broken == ValidatorProgram("output_validators/v/", (), (), ARGS, key, said, True)
    busy, _ = validator(make_archive, tmp_path / "b", files, compiled=(None, "not run: g++ took too long here"))
    said = "g++ took too long here: the C++ output validator output_validators/v/ was not built, so outputs were not"
    assert busy == ValidatorProgram("output_validators/v/", (), (), ARGS, key, said + " judged")


def test_a_validator_built_by_its_scripts(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    scripts = {"build": "#!/bin/sh\n", "run": "#!/bin/sh\nexit 42\n"}
    files = {"problem.yaml": CUSTOM, **{f"output_validators/v/{n}": t for n, t in scripts.items()}}
    found, compiler = validator(make_archive, tmp_path / "a", files)
    assert compiler.asked == [scripts]
    assert found == ValidatorProgram("output_validators/v/", ("./run",), (), ARGS, digest(scripts, ARGS), built=BUILT)
    assert found.toolchain_free
    failed, _ = validator(make_archive, tmp_path / "b", files, scripted=(None, "build failed: no"))
    said = "output_validators/v/: build failed: no"
    assert failed == ValidatorProgram("output_validators/v/", (), (), ARGS, digest(scripts, ARGS), said, True)


def test_a_validator_with_a_name_read_as_an_option_is_not_run(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    shown = {"validate.py": "exit(42)\n", "-x.py": "\n"}
    files = {"problem.yaml": CUSTOM, **{f"output_validators/v/{n}": t for n, t in shown.items()}}
    found, compiler = validator(make_archive, tmp_path, files)
    said = "output_validators/v/: not run: a file name may not start with '-' or '@' (-x.py)"
    assert found == ValidatorProgram(
        "output_validators/v/", (), (), ARGS, digest(shown, ARGS, "validate.py"), said, True
    )
    assert compiler.asked == []


@pytest.mark.parametrize(
    ("name", "language"), [("Validate.java", "java"), ("validate.xyz", "unknown"), ("validate.rb", "ruby")]
)
def test_a_validator_in_a_language_the_build_cannot_run_judges_nothing(
    make_archive: ArchiveMaker, tmp_path: Path, name: str, language: str
) -> None:
    files = {"problem.yaml": CUSTOM, f"output_validators/v/{name}": "x\n"}
    found, compiler = validator(make_archive, tmp_path, files)
    said = f"output_validators/v/ is written in {language}, which the build cannot run; outputs were not judged"
    assert found == ValidatorProgram("output_validators/v/", (), (), ARGS, digest({name: "x\n"}, ARGS), said)
    assert compiler.asked == [] and not found.broken


def test_a_cms_checker_in_python_is_called_as_cms_calls_it(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {
        "task.yaml": "name: x\ntitle: X\n",
        "sol/solution.py": "print(1)\n",
        "check/checker.py": "print(1.0)\n",
        "testo/input0.txt": "1\n",
        "testo/output0.txt": "1\n",
    }
    source = entry(make_archive, files, folder="t/x")
    found = solvers._validator(source, OPTIONS, Recording(tmp_path / "compiled"))
    shown = {"checker.py": "print(1.0)\n"}
    expected = ValidatorProgram(
        "check/checker.py", python_argv("checker.py"), tuple(shown.items()), (), digest(shown, (), "checker.py", "cms"),
        convention="cms",
    )  # fmt: skip
    assert found == expected


def test_a_polygon_checker_is_named_by_its_source(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = {
        "problem.xml": '<problem><names><name language="english" value="X"/></names><judging><testset name="tests">'
        "<time-limit>1000</time-limit><memory-limit>268435456</memory-limit></testset></judging>"
        '<assets><checker type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker></assets>'
        "</problem>",
        "files/check.cpp": "int main(){}\n",
        "files/testlib.h": "\n",
        "statements/english/problem-properties.json": "{}",
    }
    source = entry(make_archive, files)
    if source.layout.validator is None or source.layout.validator.convention == "kattis":
        pytest.skip("this layout is not read as a Polygon package")
    found = solvers._validator(source, OPTIONS, Recording(tmp_path / "compiled"))
    shown = {"check.cpp": "int main(){}\n", "testlib.h": "\n"}
    assert found == ValidatorProgram(
        "files/check.cpp", ("./validator",), (), (), digest(shown, (), "", "testlib"), program=PROGRAM,
        convention="testlib",
    )  # fmt: skip


def test_a_compiled_program_and_a_built_folder_are_the_run_s_files(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.write_bytes(b"\x7fELF")
    compiled = Solver("a.cpp", "cpp", "src", ("./program",), program=program)
    assert compiled.files() == {"program": (b"\x7fELF", 0o555)}
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        members = (
            ("./run", b"#!/bin/sh\n", 0o755),
            ("lib/x", b"x", 0o600),
            ("others", b"o", 0o601),  # executable by others alone: still a program
            ("../up", b"no", 0o644),
            ("lib/./x", b"no", 0o644),
            ("lib//y", b"no", 0o644),
        )
        for name, body, mode in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(body), mode
            tar.addfile(info, io.BytesIO(body))
        folder = tarfile.TarInfo("lib")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        link = tarfile.TarInfo("link")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    built = tmp_path / "built.tar"
    built.write_bytes(data.getvalue())
    scripted = Solver("s/", "build-run", "d", ("./run",), built=built)
    assert scripted.files() == {"run": (b"#!/bin/sh\n", 0o755), "lib/x": (b"x", 0o644), "others": (b"o", 0o755)}
    squeezed = tmp_path / "built.tar.gz"  # the builder's own tars are plain: anything else is refused
    with tarfile.open(squeezed, "w:gz") as tar:
        tar.add(built, arcname="run")
    with pytest.raises(tarfile.ReadError):
        Solver("s/", "build-run", "d", ("./run",), built=squeezed).files()
    assert solvers._program_files(None, "program") == {}


def test_a_package_is_any_icpc_format_but_polygon_and_cms() -> None:
    def package(kind: str | None) -> bool:
        return solvers.kattis_package(SimpleNamespace(meta=Metadata(package=kind)))  # type: ignore[arg-type]

    assert [package(k) for k in (None, "polygon", "cms", "legacy", "2023-07", "2025-09")] == [
        False, False, False, True, True, True,
    ]  # fmt: skip


def test_the_scripted_language_runs_its_own_run_script() -> None:
    assert solvers.runtime_language("build-run").run == ("./run",)
    assert solvers.runtime_language("cpp") == judge_language("a.cpp")
