"""Solver verification: tiny solvers that are correct, wrong, slow, crashing, noisy or hostile."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ArchiveMaker, an_entry, cpu_burners, options_for, pinned

from site_builder.model import EntrySource
from site_builder.source.archive import load_archive
from site_builder.source.languages import judge_languages
from site_builder.verify import jobs, toolchains, verifier
from site_builder.verify.jobs import Job
from site_builder.verify.options import VerifyOptions
from site_builder.verify.toolchains import interpreter_for
from site_builder.verify.verifier import Verifier, VerifyReport, verify_entries

ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
SOLVERS = {
    "correct": ADD,
    "wrong": "a, b = map(int, input().split())\nprint(a + b + 1)\n",
    "float_close": "print(0.3333333)\n",
    "float_far": "print(0.334)\n",
    "loop": "while True:\n    pass\n",
    "sleeps": "import time\ntime.sleep(30)\n",
    "crash": "def f():\n    raise ValueError('boom at depth')\nf()\n",
    "noisy": "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(chunk)\n",
    "memory": "block = bytearray(4 * 1024 ** 3)\nprint(len(block))\n",
    "no_stdin": "print(42)\n",
}
ANSWERS = {"float_close": "0.333333333\n", "float_far": "0.333333333\n", "no_stdin": "42\n"}
EXPECTED = {
    "correct": "AC",
    "wrong": "WA",
    "float_close": "AC",
    "float_far": "WA",
    "loop": "TLE",
    "sleeps": "TLE",
    "crash": "RTE",
    "noisy": "OLE",
    "memory": "RTE",
    "no_stdin": "AC",
}


def verify(archive: Path, tmp_path: Path, **kwargs: object) -> VerifyReport:
    sources, _ = load_archive(archive, "archive")
    settings: dict[str, object] = dict(kwargs)
    options = VerifyOptions(cache_dir=tmp_path / "cache", jobs=2, **settings)  # type: ignore[arg-type]
    return verify_entries(sources, archive, options)


def entry(name: str, solver: str, answer: str = "5\n", extra: dict[str, str] | None = None) -> dict[str, str]:
    base = f"t/A-{name}"
    files = {
        f"{base}/problem.yaml": "time_limit: 1\nchecker:\n  float_tolerance: 1e-6\n",
        f"{base}/solution.py": solver,
        f"{base}/samples/1.in": "2 3\n",
        f"{base}/samples/1.ans": answer,
    }
    return files | {f"{base}/{k}": v for k, v in (extra or {}).items()}


def test_every_behaviour_gets_its_verdict(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {}
    for name, code in SOLVERS.items():
        files |= entry(name.replace("_", "-"), code, ANSWERS.get(name, "5\n"))
    archive = make_archive(files)
    before = snapshot(archive)
    report = verify(archive, tmp_path)
    verdicts = {path.split("A-")[1].replace("-", "_"): runs[0].verdicts[0] for path, runs in report.runs.items()}
    assert {name: v.code for name, v in verdicts.items()} == EXPECTED
    assert (
        verdicts["wrong"].message
        == "line 1, token 1: expected '5' (answer line 1), got '6'; difference 1 is above the tolerance"
    )
    assert "above the tolerance" in verdicts["float_far"].message
    assert "ValueError: boom at depth" in verdicts["crash"].message
    assert "out of memory" in verdicts["memory"].message
    assert verdicts["loop"].seconds < 3 and verdicts["sleeps"].seconds < 3
    assert len(verdicts["noisy"].output) == 64 * 1024 and verdicts["noisy"].output_truncated
    assert snapshot(archive) == before


def test_children_that_outlive_the_solver_are_killed(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    marker = f"site-builder-orphan-{os.getpid()}"
    code = (
        "import os, subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}'], start_new_session=True)\n"
        "if os.fork() == 0:\n    import time\n    time.sleep(60)\n"
        "print(5)\n"
    )
    archive = make_archive(entry("orphans", code))
    started = time.perf_counter()
    report = verify(archive, tmp_path)
    assert report.runs["t/A-orphans"][0].verdicts[0].code == "AC"
    assert time.perf_counter() - started < 30  # not waiting for the children's 60 s; loose for a busy machine
    time.sleep(0.2)
    survivors = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert survivors == []


def test_solver_cannot_change_the_archive(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive({})
    target = archive / "t" / "A-hostile"
    code = (
        "import os\n"
        "open('scratch.txt', 'w').write('fine: my own working directory')\n"
        f"for path in ['{target}/solution.py', '{archive}/planted.txt']:\n"
        "    try:\n"
        "        open(path, 'w').write('overwritten')\n"
        "    except OSError:\n"
        "        pass\n"
        f"try:\n    os.remove('{target}/samples/1.ans')\nexcept OSError:\n    pass\n"
        "print(5)\n"
    )
    archive = make_archive(entry("hostile", code))
    before = snapshot(archive)
    report = verify(archive, tmp_path)
    assert report.runs["t/A-hostile"][0].verdicts[0].code == "AC"
    assert snapshot(archive) == before


def test_custom_checker_accepts_any_valid_answer(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    checker = (
        "import sys\n"
        "given = open(sys.argv[1]).read().split()\n"
        "got = sys.stdin.read().split()\n"
        "feedback = open(sys.argv[3] + '/judgemessage.txt', 'w')\n"
        "if len(got) == 2 and sorted(got) == sorted(given):\n    sys.exit(42)\n"
        "feedback.write(f'expected a permutation of {given}, got {got}')\n"
        "sys.exit(43)\n"
    )
    files = entry("swap", "a, b = input().split()\nprint(b, a)\n", "2 3\n", {"checker.py": checker})
    files |= entry("bad", "print('2 2')\n", "2 3\n", {"checker.py": checker})
    files |= entry("broken", "print(5)\n", "5\n", {"checker.py": "raise SystemExit(1)\n"})
    report = verify(make_archive(files), tmp_path)
    swap, bad, broken = (report.runs[f"t/A-{n}"][0].verdicts[0] for n in ("swap", "bad", "broken"))
    assert swap.code == "AC"
    assert (bad.code, bad.message) == ("WA", "expected a permutation of ['2', '3'], got ['2', '2']")
    assert broken.message == "checker.py failed (exit code 1); it must exit with 42 or 43"


def test_sample_without_answer_is_generated(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    files = entry("gen", ADD)
    del files["t/A-gen/samples/1.ans"]
    report = verify(make_archive(files), tmp_path)
    verdict = report.runs["t/A-gen"][0].verdicts[0]
    assert (verdict.code, verdict.output) == ("GEN", "5\n")


def test_second_run_starts_no_solver(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(entry("one", ADD) | entry("two", SOLVERS["wrong"]))
    first = verify(archive, tmp_path)
    assert first.started == 2
    second = verify(archive, tmp_path)
    assert second.started == 0 and second.runs == first.runs
    (archive / "t/A-two/solution.py").write_text("print(sum(map(int, input().split())))\n")
    third = verify(archive, tmp_path)
    assert third.started == 1 and third.runs["t/A-two"][0].verdicts[0].code == "AC"
    assert verify(archive, tmp_path, rerun=True).started == 2


def test_corrupt_cache_is_discarded_with_a_warning(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(entry("one", ADD))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "verify.json").write_text("{not json")
    report = verify(archive, tmp_path)
    assert report.cache_warning and "discarded" in report.cache_warning
    assert report.runs["t/A-one"][0].verdicts[0].code == "AC"


def test_a_run_over_the_whole_archive_forgets_verdicts_no_job_asked_for(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    archive = make_archive(entry("one", ADD))
    options = VerifyOptions(cache_dir=tmp_path / "cache", jobs=1)
    kept = tmp_path / "cache" / "verify.json"

    def run(whole: bool) -> tuple[int, int]:
        """The verdicts kept, and the entries' verifications kept whole."""
        sources, _ = load_archive(archive, "archive")
        Verifier(options).run(sources, archive, whole=whole)
        keys = json.loads(kept.read_text())
        return sum(1 for k in keys if not k.startswith("entry:")), sum(1 for k in keys if k.startswith("entry:"))

    assert run(False) == (1, 1)
    (archive / "t/A-one/solution.py").write_text(ADD + "# changed\n")
    assert run(False) == (2, 2)  # a part of the archive: the other verdict may still be wanted
    assert run(True) == (1, 1)


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_an_entry_verified_before_is_recalled_whole_until_it_or_a_verdict_changes(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpp = '#include <cstdio>\nint main(){long long a,b;std::scanf("%lld %lld",&a,&b);std::printf("%lld\\n",a+b);}\n'
    write_up = {"solution.md": "## Idea\n\nAdd them.\n"}
    archive = make_archive(entry("cpp", ADD, extra={"solution.cpp": cpp}) | entry("py", ADD, extra=write_up))
    options = VerifyOptions(cache_dir=tmp_path / "cache", jobs=1)
    kept = tmp_path / "cache" / "verify.json"
    planned: list[str] = []

    def counted(source: EntrySource, *args: Any) -> list[Job]:
        planned.append(source.path)
        return jobs._jobs(source, *args)

    monkeypatch.setattr(verifier, "_jobs", counted)  # as the verifier plans them

    def run() -> VerifyReport:
        planned.clear()
        sources, _ = load_archive(archive, "archive")
        return Verifier(options).run(sources, archive, whole=True)

    first = run()
    assert sorted(planned) == ["t/A-cpp", "t/A-cpp", "t/A-py"] and first.started == 3
    shutil.rmtree(tmp_path / "cache" / "programs")
    again = run()  # nothing planned, nothing compiled: no program is needed for verdicts already known
    assert planned == [] and again.runs == first.runs and again.started == 0
    assert not (tmp_path / "cache" / "programs").exists()
    (archive / "t/A-py/solution.md").write_text("## Idea\n\nAdd the two numbers.\n")
    assert run().runs == first.runs and planned == []  # verification does not read the write-up
    (archive / "t/A-py/samples/1.ans").write_text("6\n")
    changed = run()
    assert planned == ["t/A-py"] and changed.started == 1 and changed.runs["t/A-py"][0].verdicts[0].code == "WA"
    verdicts = json.loads(kept.read_text())
    gone = next(k for k in verdicts if not k.startswith("entry:"))
    kept.write_text(json.dumps({k: v for k, v in verdicts.items() if k != gone}))
    last = run()  # a verdict gone: its entry is planned job by job, and that one job runs again
    assert planned and last.started == 1

    def codes(report: VerifyReport) -> dict[str, list[list[str]]]:
        return {path: [[v.code for v in r.verdicts] for r in runs] for path, runs in report.runs.items()}

    assert codes(last) == codes(changed) == {"t/A-cpp": [["AC"], ["AC"]], "t/A-py": [["WA"]]}


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_cpp_solver_is_compiled_once_and_checked(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    cpp = '#include <cstdio>\nint main(){long long a,b;std::scanf("%lld %lld",&a,&b);std::printf("%lld\\n",a+b);}\n'
    files = entry("cpp", ADD, extra={"solution.cpp": cpp}) | entry(
        "broken-cpp", ADD, extra={"solution.cpp": "int main( {"}
    )
    archive = make_archive(files)
    report = verify(archive, tmp_path)
    python, compiled = report.runs["t/A-cpp"]
    assert (python.solver, compiled.solver, compiled.verdicts[0].code) == ("solution.py", "solution.cpp", "AC")
    broken = report.runs["t/A-broken-cpp"][1]
    assert broken.verdicts == () and broken.note.startswith("compile error:") and "solution.cpp:1" in broken.note
    assert len(list((tmp_path / "cache" / "programs").glob("*/program"))) == 1


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_a_run_over_the_whole_archive_deletes_programs_no_solver_needs(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    cpp = '#include <cstdio>\nint main(){std::puts("5");}\n'
    archive = make_archive(entry("cpp", ADD, extra={"solution.cpp": cpp}))
    options = VerifyOptions(cache_dir=tmp_path / "cache", jobs=1)
    programs = tmp_path / "cache" / "programs"

    def run(whole: bool) -> list[str]:
        sources, _ = load_archive(archive, "archive")
        Verifier(options).run(sources, archive, whole=whole)
        return sorted(p.parent.name for p in programs.glob("*/program"))

    (first,) = run(True)
    (archive / "t/A-cpp/solution.cpp").write_text(cpp + "// changed\n")
    both = run(True)  # the old program is recent: a build sharing the cache may be about to run it
    (second,) = set(both) - {first}
    old = time.time() - 2 * 3600
    os.utime(programs / first, (old, old))
    assert run(False) == both  # a part of the archive: other programs may still be wanted
    assert run(True) == [second]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_fork_bomb_is_contained(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    marker = f"site-builder-bomb-{os.getpid()}"
    code = (
        "import os, sys\n"
        f"sys.argv.append('{marker}')\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        pass\n"
    )
    archive = make_archive(entry("bomb", code))
    started = time.perf_counter()
    report = verify(archive, tmp_path)
    verdict = report.runs["t/A-bomb"][0].verdicts[0]
    assert verdict.code in ("TLE", "RTE")
    # A bomb that escaped the run's group would hold the build until something else ended it. The
    # bound is a hang's, not a speed's: alone this takes ~5 s, and 14 s on a machine at load 19.
    assert time.perf_counter() - started < 60
    time.sleep(0.3)
    leftovers = subprocess.run(["pgrep", "-f", "solution.py"], capture_output=True, text=True).stdout.split()
    assert [pid for pid in leftovers if Path(f"/proc/{pid}/cwd").resolve().name.startswith("site-builder-run-")] == []


def test_a_solver_may_write_in_its_working_folder_and_tmp(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    code = "open('scratch.txt', 'w').write('x')\nopen('/tmp/more.txt', 'w').write('y')\nprint(5)\n"
    archive = make_archive(entry("scratch", code))
    report = verify(archive, tmp_path)
    assert report.runs["t/A-scratch"][0].verdicts[0].code == "AC"


def test_solver_has_no_network(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """A solver cannot reach a server on the host's loopback: its network namespace has its own."""
    import socket

    from site_builder.sandbox.runner import isolated

    if not isolated():
        pytest.skip("no sandbox on this machine (bubblewrap is not available)")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            "    print('connected')\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n"
        )
        archive = make_archive(entry("net", code, answer="refused 111\n"))
        verdict = verify(archive, tmp_path).runs["t/A-net"][0].verdicts[0]
    assert (verdict.code, verdict.output) == ("AC", "refused 111\n")  # ECONNREFUSED: nobody listens there


def test_verdict_keys_are_the_json_they_always_were() -> None:
    """Cached verdicts stay valid: the key text is exactly ``json.dumps`` of its parts."""
    import json

    from site_builder.verify.jobs import _json_list

    for parts in (["2", "python", None, 'é"\\\n\x00 😀'], [], [None], ["Limits(wall=2.0, memory=None)"]):
        assert _json_list(parts) == json.dumps(parts)


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_builds_compiling_one_program_at_once_all_get_it(tmp_path: Path) -> None:
    """``make site`` beside ``make serve`` share the cache: each compiles in a folder of its own."""
    from concurrent.futures import ThreadPoolExecutor

    from site_builder.source.languages import judge_languages
    from site_builder.verify.compiler import Compiler, Source

    files = {"solution.cpp": '#include <cstdio>\nint main(){std::puts("5");}\n'}
    source = Source.of(judge_languages()["cpp"], files, "solution.cpp")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: Compiler(tmp_path / "cpp").compile(source), range(4)))
    assert all(program is not None and note == "" for program, note in results)
    (folder,) = (tmp_path / "cpp").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["program"]  # no sources, no error, no half-written file


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_sources_that_include_bits_stdcxx_share_one_precompiled_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.verify import compiler as verify

    calls: list[list[str]] = []
    real_run, real_sandboxed = subprocess.run, verify.sandbox.run
    verify.sandbox.isolation_level()  # probed before recording starts

    def recording(argv: list[str], *args: object, **kwargs: object) -> object:
        calls.append([str(a) for a in argv])
        return real_run(argv, *args, **kwargs)  # type: ignore[call-overload]

    def sandboxed(argv: list[str], *args: object, **kwargs: object) -> object:
        calls.append([str(a) for a in argv])
        return real_sandboxed(argv, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verify.subprocess, "run", recording)  # precompiling the header (no archive code)
    monkeypatch.setattr(verify.sandbox, "run", sandboxed)  # compiling the sources
    compiler = verify.Compiler(tmp_path / "cpp")
    program = '#include <bits/stdc++.h>\nint main(){long long a,b; std::cin>>a>>b; std::cout<<a OP b<<"\\n";}\n'
    made = compiler.headers / "bits" / "stdc++.h.gch"

    def compiled(text: str) -> str:
        calls.clear()
        source = verify.Source.of(verify.judge_languages()["cpp"], {"solution.cpp": text}, "solution.cpp")
        binary, note = compiler.compile(source)
        assert binary is not None and note == "", note
        return real_run([str(binary)], input="6 7\n", capture_output=True, text=True, check=True).stdout

    assert compiled(program.replace("OP", "+")) == "13\n"  # the first one makes the header, then uses it
    shown = verify.PCH if verify.sandbox.isolated() else str(compiler.headers)
    assert made.is_file() and ["-I", shown] == calls[-1][1:3]
    assert compiled(program.replace("OP", "*")) == "42\n"
    assert len(calls) == 1 and "-I" in calls[0]  # the next one only compiles
    assert compiled('#include <cstdio>\nint main(){std::puts("1");}\n') == "1\n"
    assert "-I" not in calls[0]
    # A program with the header still compiles where the precompiled one does not fit (a macro first).
    assert compiled("#define _GLIBCXX_DEBUG 1\n" + program.replace("OP", "-")) == "-1\n"
    # Pruning the cache keeps the header for the next build.
    compiler.keep_only(set(), settled=0)
    assert made.is_file() and [p.name for p in (tmp_path / "cpp").iterdir()] == [compiler.headers.name]


# ---------------------------------------------------------------- every language of languages.yaml

# A solution to "add two numbers" in each language, as judges run it: each reads two integers.
IN_EVERY_LANGUAGE = {
    "python": ("solution.py", ADD),
    "cpp": (
        "solution.cpp",
        "#include <bits/stdc++.h>\n"
        "int main() {\n"
        "    long long a, b; std::cin >> a >> b;\n"
        "    std::vector<int> v{1};\n"
        "    auto cmp = (a <=> b);  // C++20: the three-way comparison, std::ssize\n"
        "    (void)cmp;\n"
        "    std::cout << a + b + std::ssize(v) - 1 << '\\n';\n"
        "}\n",
    ),
    "c": (
        "solution.c",
        '#include <stdio.h>\nint main(void) { long long a, b; scanf("%lld %lld", &a, &b);'
        ' printf("%lld\\n", a + b); }\n',
    ),
    "java": (
        "solution.java",  # a public class Main in a file of another name, as our own folders have it
        "import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n        System.out.println(in.nextLong() + in.nextLong());\n"
        "    }\n}\n",
    ),
    "kotlin": (
        "solution.kt",
        'fun main() {\n    val (a, b) = readLine()!!.split(" ").map { it.toLong() }\n    println(a + b)\n}\n',
    ),
    "rust": (
        "solution.rs",
        "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
        "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
        '    println!("{}", v[0] + v[1]);\n}\n',
    ),
    "go": (
        "solution.go",
        'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n'
        "\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n",
    ),
    "csharp": (
        "solution.cs",
        "using System;\nclass Program {\n    static void Main() {\n"
        "        var p = Console.ReadLine().Split(' ');\n"
        "        Console.WriteLine(long.Parse(p[0]) + long.Parse(p[1]));\n"
        "    }\n}\n",
    ),
}


def test_every_language_of_the_table_has_a_solution_here() -> None:
    from site_builder.source.languages import judge_languages

    assert set(judge_languages()) == set(IN_EVERY_LANGUAGE)


@pytest.mark.parametrize("language", sorted(IN_EVERY_LANGUAGE))
def test_each_installed_language_compiles_runs_and_is_judged(
    make_archive: ArchiveMaker, tmp_path: Path, language: str
) -> None:
    from site_builder.source.languages import judge_languages
    from site_builder.verify.toolchains import installed

    tools = installed(judge_languages()[language], VerifyOptions().interpreter)
    name, source = IN_EVERY_LANGUAGE[language]
    archive = make_archive(
        {
            "t/A-x/problem.yaml": "time_limit: 5\n",
            f"t/A-x/{name}": source,
            "t/A-x/samples/1.in": "2 3\n",
            "t/A-x/samples/1.ans": "5\n",
            "t/A-x/samples/2.in": "-7 1000000000000\n",
            "t/A-x/samples/2.ans": "999999999993\n",
        }
    )
    (run,) = verify(archive, tmp_path).runs["t/A-x"]
    if tools.missing:
        assert run.note == f"not run: {tools.missing}" and run.verdicts == ()
        pytest.skip(f"{language}: {tools.missing} on this machine (the page says so)")
    assert (run.language, run.note) == (language, "")
    assert [v.code for v in run.verdicts] == ["AC", "AC"], [v.message for v in run.verdicts]


def test_a_tool_in_a_shared_bin_folder_has_no_installation_to_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """g++ in /usr/bin: its "installation" would be all of /usr, seconds of every verifying build and
    every package's /etc folder shown to the compiler. A JDK's own folder is still looked through."""
    from site_builder.verify import toolchains

    walked: list[str] = []
    real_walk = os.walk
    monkeypatch.setattr(toolchains.os, "walk", lambda top: walked.append(str(top)) or real_walk(top))
    assert toolchains._outside_links.__wrapped__("/usr/bin/x86_64-linux-gnu-g++-12") == ()
    assert toolchains._outside_links.__wrapped__("/usr/local/bin/gcc") == ()
    jdk = tmp_path / "jvm" / "jdk-17"
    (jdk / "bin").mkdir(parents=True)
    (jdk / "conf").symlink_to("/etc/passwd")
    assert toolchains._outside_links.__wrapped__(str(jdk / "bin" / "java")) == (("/etc/passwd", "/etc/passwd"),)
    assert walked == [str(jdk)]


@pytest.mark.skipif(not Path("/usr/bin/g++").exists(), reason="needs g++")
def test_cpp_sees_online_judge_and_c_too(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """Judges define ONLINE_JUDGE: a solution that reads input.txt without it reads stdin with it."""
    body = (
        '    long long a, b;\n#ifndef ONLINE_JUDGE\n    freopen("input.txt", "r", stdin);\n#endif\n'
        '    scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b);\n    return 0;\n}\n'
    )
    cpp, c = f"#include <cstdio>\nint main() {{\n{body}", f"#include <stdio.h>\nint main(void) {{\n{body}"
    archive = make_archive(entry("oj", "print(5)\n", extra={"solution.cpp": cpp, "solution.c": c}))
    runs = verify(archive, tmp_path).runs["t/A-oj"]
    assert [(r.solver, [v.code for v in r.verdicts]) for r in runs] == [
        ("solution.py", ["AC"]),
        ("solution.cpp", ["AC"]),
        ("solution.c", ["AC"]),
    ]


def test_python2_is_not_run_and_says_so(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(
        {
            "t/A-x/problem.yaml": "name: X\n",
            "t/A-x/submissions/accepted/old.py": "#!/usr/bin/env python2\nprint sum(map(int, raw_input().split()))\n",
            "t/A-x/submissions/accepted/new.py": ADD,
            "t/A-x/data/sample/1.in": "2 3\n",
            "t/A-x/data/sample/1.ans": "5\n",
        }
    )
    runs = {r.solver: r for r in verify(archive, tmp_path).runs["t/A-x"]}
    assert (
        runs["submissions/accepted/old.py"].note == "not run: Python 2 (this build runs Python 3, as judges do today)"
    )
    assert [v.code for v in runs["submissions/accepted/new.py"].verdicts] == ["AC"]


MATCHING = "match input().split():\n    case [a, b]:\n        print(int(a) + int(b))\n"  # Python 3.10
ON_PYPY = "import sys, __pypy__\n" + ADD  # runs only on PyPy
PYPY = shutil.which("pypy3")


def test_python_runs_with_pypy_unless_pypy_cannot_parse_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """As Kattis runs Python 3: PyPy when installed; a program using syntax newer than PyPy's Python runs
    with the build's interpreter; one that imports ``__pypy__`` is not run without PyPy."""
    python, build = judge_languages()["python"], "/usr/bin/python3"
    monkeypatch.setattr(toolchains, "_pypy", lambda command: ("/opt/pypy/bin/pypy3", (3, 9)))
    assert interpreter_for(python, ADD, build) == ("/opt/pypy/bin/pypy3", "")
    assert interpreter_for(python, ON_PYPY, build) == ("/opt/pypy/bin/pypy3", "")
    assert interpreter_for(python, MATCHING, build) == (build, "")
    assert interpreter_for(python, "print(1\n", build) == ("/opt/pypy/bin/pypy3", "")  # PyPy says what is wrong
    monkeypatch.setattr(toolchains, "_pypy", lambda command: ("/opt/pypy/bin/pypy3", (3, 10)))
    assert interpreter_for(python, MATCHING, build) == ("/opt/pypy/bin/pypy3", "")
    monkeypatch.setattr(toolchains, "_pypy", lambda command: None)
    assert interpreter_for(python, ADD, build) == (build, "")
    needs = "not run: it imports __pypy__, and pypy3 is not installed"
    assert interpreter_for(python, ON_PYPY, build) == (build, needs)
    assert interpreter_for(python, "# import __pypy__\n" + ADD, build) == (build, "")


@pytest.mark.skipif(PYPY is None, reason="needs pypy3")
def test_pypy_runs_python_where_it_is_installed(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    archive = make_archive(
        {
            "t/A-x/problem.yaml": "name: X\n",
            "t/A-x/submissions/accepted/pypy.py": ON_PYPY,
            "t/A-x/submissions/accepted/matching.py": MATCHING,
            "t/A-x/submissions/accepted/wrong.py": "import __pypy__\nprint(4)\n",
            "t/A-x/data/sample/1.in": "2 3\n",
            "t/A-x/data/sample/1.ans": "5\n",
        }
    )
    runs = {r.solver.rsplit("/", 1)[1]: [v.code for v in r.verdicts] for r in verify(archive, tmp_path).runs["t/A-x"]}
    assert runs == {"pypy.py": ["AC"], "matching.py": ["AC"], "wrong.py": ["WA"]}


def test_python2_without_a_shebang_is_told_by_what_python3_says(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """Old packages' Python 2 submissions carry no mark: Python 3's own error (a print statement it cannot
    compile, a builtin it no longer has) shows them for what they are; other crashes say what Python said."""
    archive = make_archive(
        {
            "t/A-x/problem.yaml": "name: X\n",
            "t/A-x/submissions/accepted/prints.py": "a, b = map(int, input().split())\nprint a + b\n",
            "t/A-x/submissions/accepted/reads.py": "a, b = map(int, raw_input().split())\nprint(a + b)\n",
            "t/A-x/submissions/accepted/typo.py": "a, b = map(int, input().split()\nprint(a + b)\n",
            "t/A-x/submissions/accepted/raises.py": "raise ValueError('no input wanted')\n",
            "t/A-x/data/sample/1.in": "2 3\n",
            "t/A-x/data/sample/1.ans": "5\n",
        }
    )
    runs = {r.solver.rsplit("/", 1)[-1]: r for r in verify(archive, tmp_path).runs["t/A-x"]}
    assert runs["prints.py"].note.startswith("not run: Python 2") and not runs["prints.py"].verdicts
    assert runs["reads.py"].note.startswith("not run: Python 2") and not runs["reads.py"].verdicts
    [typo] = runs["typo.py"].verdicts
    assert (
        typo.code == "RTE"
        and typo.message.startswith("exit code 1: SyntaxError: ")
        and "(line 1)" in typo.message.splitlines()[0]
    )
    [raised] = runs["raises.py"].verdicts
    assert raised.message.startswith("exit code 1: ValueError: no input wanted\n")


@pytest.mark.parametrize(
    ("stderr", "python2"),
    [
        (
            "  File \"a.py\", line 2\n    print x\n    ^^^^^^^\nSyntaxError: Missing parentheses in call to 'print'",
            True,
        ),
        ('  File "a.py", line 4\n    except ValueError, e:\n    ^^^^^\nSyntaxError: multiple exception types', True),
        (
            '  File "a.py", line 1\n    x = 0755\n        ^\n'
            "SyntaxError: leading zeros in decimal integer literals are not permitted",
            True,
        ),
        ("Traceback (most recent call last):\nNameError: name 'xrange' is not defined", True),
        ("Traceback:\nAttributeError: 'dict' object has no attribute 'iteritems'", True),
        ("Traceback:\nModuleNotFoundError: No module named 'Queue'", True),
        ("Traceback:\nImportError: cannot import name 'lowercase' from 'string' (/usr/lib/string.py)", True),
        ("Traceback:\nImportError: cannot import name 'solve' from 'helper' (/tmp/helper.py)", False),
        ('  File "a.py", line 7\n    M = filter(lambda (n, p): p, xs)\n    ^\nSyntaxError: invalid syntax', True),
        ("  File \"a.py\", line 3\n    for t in map(lambda (t, b): t, s):\n    ^\nSyntaxError: expected ':'", True),
        ('  File "a.py", line 2\n    def area((w, h), k):\n             ^\nSyntaxError: invalid syntax', True),
        ("  File \"a.py\", line 2\n    f = lambda x: (x +\n    ^\nSyntaxError: '(' was never closed", False),
        ('  File "a.py", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax', False),
        ("Traceback:\nNameError: name 'sovle' is not defined", False),
        ("Traceback:\nModuleNotFoundError: No module named 'numpy'", False),
    ],
)
def test_python2_is_told_from_python3s_error(stderr: str, python2: bool) -> None:
    from site_builder.verify.toolchains import python2_failure

    assert python2_failure(stderr) is python2


def _entry_with(runs: list[tuple[str, str, list[str], str]], samples: int = 2) -> Any:
    from site_builder.model import Sample, SolverRun, Verdict

    made = [
        SolverRun(
            name, language, "h", tuple(Verdict(str(i), code, 0.1, "", False, "") for i, code in enumerate(codes)), note
        )
        for name, language, codes, note in runs
    ]
    sample = Sample("1", "1.in", "1.ans", "", "")
    return an_entry("t/A", samples=(sample,) * samples, display_path="t/A", runs=tuple(made))


@pytest.mark.parametrize(
    ("runs", "status"),
    [
        ([("solution.py", "python", ["AC", "AC"], ""), ("solution.cpp", "cpp", ["AC", "AC"], "")], "Verified 4/4"),
        ([("solution.py", "python", ["AC", "AC"], ""), ("solution.cpp", "cpp", ["WA", "AC"], "")], "Failing: C++ 1/2"),
        ([("a.cpp", "cpp", ["AC", "AC"], ""), ("Main.java", "java", [], "not run: javac not found")], "Verified 2/2"),
        ([("Main.java", "java", [], "not run: javac not found")], "No solver run: javac not found"),
        (
            [("a.py", "python", ["AC", "AC"], ""), ("b.cpp", "cpp", [], "compile error:\nb.cpp:1: x")],
            "Failing: C++ compile error",
        ),
        ([], "No solver"),
        (
            [
                ("a.cpp", "cpp", ["CE", "CE"], ""),
                ("b.cpp", "cpp", ["CE", "WA"], ""),
                ("M.java", "java", ["CE", "CE"], ""),
            ],
            "Checker crashed",  # the checker's failure, not the solvers': their WA still shows beside it
        ),
        (
            [("a.py", "python", [], "not judged: the checker does not build\nv.cpp:1: error: x")] * 2,
            "Checker does not build",
        ),
        (
            [("a.cpp", "cpp", [], "compile error:\na.cpp:1: x"), ("b.cpp", "cpp", [], "compile error:\nb.cpp:2: y")],
            "Failing: C++ compile error",
        ),
    ],
)
def test_the_status_counts_every_language(runs: list[tuple[str, str, list[str], str]], status: str) -> None:
    assert _entry_with(runs).verification[1] == status


def test_solvers_that_were_not_run_are_not_called_missing() -> None:
    from dataclasses import replace

    from site_builder.model import CodeFile

    solver = CodeFile(name="solution.py", language="python", html="", lines=1)
    assert replace(_entry_with([]), solvers=(solver,)).verification == ("none", "Not run")  # --no-verify


BURN = "import time\nstart = time.process_time()\nwhile time.process_time() - start < {}:\n    pass\nprint(5)\n"


def test_a_time_limit_is_cpu_time_with_a_wall_clock_backstop(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """As judges do: CPU time over the limit is a Time Limit however it ended; a run is stopped at
    the margin above the limit (twice it, at least a second over it) of CPU time, and, one that
    sleeps or waits, at twice that on the clock: a Time Limit that says it was the clock."""
    from site_builder.verify.jobs import safety_margin, wall_backstop

    assert (safety_margin(1), safety_margin(3), safety_margin(0.2)) == (2, 6, 1.2)
    assert safety_margin(3, 1.5, 0.5) == 4.5 and safety_margin(3, 1.0, 0.0) == 3  # site.yaml's time_margin
    assert wall_backstop(safety_margin(1)) == 4
    naps = "import time\ntime.sleep(1.3)\nprint(5)\n"
    stuck = "import time\ntime.sleep(30)\nprint(5)\n"
    loop = "while True:\n    pass\n"
    entries = entry("naps", naps) | entry("stuck", stuck) | entry("burns", BURN.format(1.3)) | entry("loop", loop)
    archive = make_archive(entries)
    report = verify(archive, tmp_path)
    (napped,) = report.runs["t/A-naps"][0].verdicts
    assert napped.code == "AC" and napped.message == "" and napped.seconds < 0.5  # the shown time is CPU time
    (stopped,) = report.runs["t/A-stuck"][0].verdicts
    assert stopped.code == "TLE" and stopped.seconds < 0.5
    assert stopped.message.startswith("Time Limit Exceeded (wall): stopped after 4 s of wall-clock time, with 0.")
    (burnt,) = report.runs["t/A-burns"][0].verdicts
    assert burnt.code == "TLE" and 1 < burnt.seconds < 2  # all of its 1.3 s, or what it had used on the clock's stop
    assert re.fullmatch(r"CPU time 1\.\d\d s: over the time limit of 1 s", burnt.message)
    (looped,) = report.runs["t/A-loop"][0].verdicts
    assert looped.code == "TLE" and looped.seconds > 1  # stopped at 2 s of CPU time, or on the clock before it
    assert re.fullmatch(r"(stopped at 2 s of CPU time|CPU time \d\.\d\d s): over the time limit of 1 s", looped.message)


@pytest.mark.serial
def test_a_busy_machine_does_not_turn_an_accepted_run_into_a_time_limit(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """Three programs burn the one CPU the solver keeps to, at its priority: its 0.4 s of CPU time take
    several times as long on the clock, past its limit of 1 s (it answers only if they did: alone, it
    is a Wrong Answer), and it is Accepted."""
    cpu = min(os.sched_getaffinity(0))
    pin = pinned(cpu)
    slowed = "import time\nbegun = time.monotonic()\n" + BURN.format(0.4).replace(
        "print(5)", "print(5 if time.monotonic() - begun > 1.2 else 'not slowed down')"
    )
    archive = make_archive(entry("crowded", pin + slowed))
    margin = (3.0, 1.0)  # stopped at 3 s of CPU time, 6 s on the clock
    (alone,) = verify(archive, tmp_path, time_margin=margin).runs["t/A-crowded"][0].verdicts  # its tools made
    assert alone.code == "WA" and "not slowed down" in alone.output
    with cpu_burners(cpu):
        time.sleep(0.2)  # the burners have started and keep to that CPU
        report = verify(archive, tmp_path, time_margin=margin, rerun=True)
    (verdict,) = report.runs["t/A-crowded"][0].verdicts
    assert verdict.code == "AC" and verdict.message == "" and 0.4 <= verdict.seconds < 1, verdict


# ---------------------------------------------------------------- interactive and multi-pass problems

GUESS_VALIDATOR = """import os
import sys

secret, limit = map(int, open(sys.argv[1]).read().split())


def end(code, message):
    with open(sys.argv[3] + "/judgemessage.txt", "w") as feedback:
        feedback.write(message)
    os._exit(code)  # nothing left to flush to a solver that may have gone


def say(word):
    try:
        print(word, flush=True)
    except BrokenPipeError:
        end(43, "the solver stopped reading")


for turn in range(1, limit + 1):
    line = sys.stdin.readline()
    if not line:
        end(43, "the solver stopped before guessing right")
    guess = int(line)
    if guess == secret:
        say("correct")
        end(42, f"found in {turn} guesses")
    say("higher" if guess < secret else "lower")
end(43, f"not found in {limit} guesses")
"""
GUESS_SOLVER = """lo, hi = 1, 1000
while True:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    answer = input()
    if answer == "correct":
        break
    lo, hi = (mid + 1, hi) if answer == "higher" else (lo, mid - 1)
"""
GUESS_CPP = """#include <iostream>
#include <string>
int main() {
    int lo = 1, hi = 1000;
    for (std::string answer; ; ) {
        int mid = (lo + hi) / 2;
        std::cout << mid << std::endl;
        std::cin >> answer;
        if (answer == "correct") return 0;
        if (answer == "higher") lo = mid + 1; else hi = mid - 1;
    }
}
"""


def guessing(folder: str, submissions: dict[str, str], kind: str = "interactive") -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": (
            f"problem_format_version: 2025-09\nname: Guess\ntype: {kind}\nlimits:\n  time_limit: 1\n"
        ),
        f"{folder}/output_validator/validator.py": GUESS_VALIDATOR,
        f"{folder}/data/sample/1.in": "377 10\n",
        f"{folder}/data/sample/1.ans": "377\n",
        f"{folder}/data/sample/2.in": "1000 10\n",
        f"{folder}/data/sample/2.ans": "1000\n",
    }
    return files | {f"{folder}/submissions/accepted/{name}": text for name, text in submissions.items()}


def test_an_interactive_problem_runs_the_solver_against_its_validator(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    submissions = {
        "search.py": GUESS_SOLVER,
        "always_one.py": "while True:\n    print(1, flush=True)\n    input()\n",
        "quits.py": "print(500, flush=True)\n",
        "crashes.py": "print(500, flush=True)\ninput()\nraise SystemExit(3)\n",
        "silent.py": "import time\ntime.sleep(30)\n",
    }
    if Path("/usr/bin/g++").exists():
        submissions["search.cpp"] = GUESS_CPP
    archive = make_archive(guessing("t/A-guess", submissions))
    runs = {r.solver.rsplit("/", 1)[1]: r for r in verify(archive, tmp_path).runs["t/A-guess"]}
    codes = {name: [v.code for v in run.verdicts] for name, run in runs.items()}
    assert codes["search.py"] == ["AC", "AC"] and runs["search.py"].verdicts[0].message == "found in 10 guesses"
    assert codes.get("search.cpp", ["AC", "AC"]) == ["AC", "AC"]
    assert codes["always_one.py"] == ["WA", "WA"] and runs["always_one.py"].verdicts[0].message.startswith(
        "not found in 10 guesses"
    )
    assert codes["quits.py"] == ["WA", "WA"], [v.message for v in runs["quits.py"].verdicts]
    assert codes["crashes.py"] == ["WA", "WA"]  # a moment before the validator's rejection: noted
    assert runs["crashes.py"].verdicts[0].message.endswith("(the solver also ended with exit code 3)")
    assert codes["silent.py"] == ["TLE", "TLE"]


DOUBLING_VALIDATOR = """import os
import sys

feedback = sys.argv[3]
state = os.path.join(feedback, "state")
given = int(open(state).read()) if os.path.exists(state) else int(open(sys.argv[1]).read())
got = int(sys.stdin.read())
if got != 2 * given:
    open(os.path.join(feedback, "judgemessage.txt"), "w").write(f"expected {2 * given}, got {got}")
    sys.exit(43)
if not os.path.exists(state) or ASK_AGAIN:
    open(state, "w").write(str(got))
    open(os.path.join(feedback, "nextpass.in"), "w").write(f"{got}\\n")
sys.exit(42)
"""


def doubling(folder: str, submissions: dict[str, str], ask_again: bool = False) -> dict[str, str | bytes]:
    return {
        f"{folder}/problem.yaml": "problem_format_version: 2025-09\nname: Twice\ntype: [pass-fail, multi-pass]\n",
        f"{folder}/output_validator/validator.py": DOUBLING_VALIDATOR.replace("ASK_AGAIN", str(ask_again)),
        f"{folder}/data/sample/1.in": "3\n",
        f"{folder}/data/sample/1.ans": "6\n",
    } | {f"{folder}/submissions/accepted/{name}": text for name, text in submissions.items()}


def test_a_multi_pass_problem_runs_every_pass(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """Pass 1 doubles the input; the validator asks for pass 2 with that result as its input, and
    keeps what it needs in its feedback folder: a solver right only the first time fails."""
    twice = "print(2 * int(input()))\n"
    once = "import os\nn = int(input())\nprint(2 * n if n == 3 else n)\n"
    archive = make_archive(doubling("t/A-twice", {"twice.py": twice, "once.py": once}))
    archive = make_archive(doubling("t/B-again", {"twice.py": twice}, ask_again=True))
    report = verify(archive, tmp_path)
    runs = {r.solver.rsplit("/", 1)[1]: r.verdicts[0] for r in report.runs["t/A-twice"]}
    assert (runs["twice.py"].code, runs["twice.py"].message) == ("AC", "pass 2 of 2")
    assert (runs["once.py"].code, runs["once.py"].message) == ("WA", "pass 2 of 2: expected 12, got 6")
    (again,) = report.runs["t/B-again"][0].verdicts
    assert again.code == "CE" and again.message == "the validator asked for a pass after the last one (2) allowed"


def test_interaction_samples_are_shown_as_transcripts_and_only_samples_with_input_run(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    from site_builder.build import build_site

    files = guessing("t/A-guess", {"search.py": GUESS_SOLVER})
    files["t/A-guess/data/sample/1.interaction"] = "<10\n>500\n<lower\n>250\n<correct\n"
    files["t/A-guess/data/sample/3.interaction"] = "<10\n>500\n<correct\n---\n<again\n>1\n"
    out = tmp_path / "site"
    report = build_site(options_for(make_archive(files), out))
    assert [str(d) for d in report.diagnostics if d.level == "error"] == []
    page = (out / "t" / "A-guess" / "index.html").read_text("utf-8")
    first = page[page.index('id="sample-1"') : page.index('id="sample-2"')]
    assert '<ol class="transcript"' in first and "377 10" not in first  # the judge's secret input is not shown
    assert '<li class="say-program"><span class="who">Program</span><pre class="io">250</pre></li>' in first
    second = page[page.index('id="sample-2"') : page.index('id="sample-3"')]
    assert "1000 10" in second and "transcript" not in second  # no .interaction: input and answer as before
    third = page[page.index('id="sample-3"') :]
    assert 'class="pass-break"' in third
    runs = json.loads((out / "verification.json").read_text("utf-8"))["results"]
    assert sorted(r["sample"] for r in runs if r["entry"] == "t/A-guess") == ["1", "2"]  # 3 has no input to run


def test_a_package_include_folder_is_given_to_every_submission_of_its_language(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    folder = "t/A-inc"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "problem_format_version: 2025-09\nname: Inc\nconstants: {K: 7}\n",
        f"{folder}/data/sample/1.in": "3\n",
        f"{folder}/data/sample/1.ans": "10\n",
        f"{folder}/include/python3/helper.py": "def add(a):\n    return a + {{K}}\n",
        f"{folder}/include/default/helper.h": "inline int add(int a) { return a + {{K}}; }\n",
        f"{folder}/submissions/accepted/uses.py": "from helper import add\nprint(add(int(input())))\n",
    }
    if Path("/usr/bin/g++").exists():
        files[f"{folder}/submissions/accepted/uses.cpp"] = (
            '#include <iostream>\n#include "helper.h"\n'
            'int main() { int a; std::cin >> a; std::cout << add(a) << "\\n"; }\n'
        )
    runs = {r.solver.rsplit("/", 1)[1]: r for r in verify(make_archive(files), tmp_path).runs[folder]}
    assert [v.code for v in runs["uses.py"].verdicts] == ["AC"], runs["uses.py"]
    if Path("/usr/bin/g++").exists():
        assert [v.code for v in runs["uses.cpp"].verdicts] == ["AC"], runs["uses.cpp"]


PASS_BY_INPUT_VALIDATOR = """import os
import sys

given = open(sys.argv[1]).read().split()
got = sys.stdin.read().split()
feedback = sys.argv[3]
if given[0] == "start":  # the first pass: its input is the sample's
    if got != [str(2 * int(given[1]))]:
        sys.exit(43)
    open(os.path.join(feedback, "nextpass.in"), "w").write(f"echo {got[0]}\\n")
    sys.exit(42)
sys.exit(42 if got == [given[1]] else 43)  # the second pass: its input is what the first pass made
"""


def test_a_later_pass_gives_the_validator_that_pass_input(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """BAPCtools' multi-pass validators tell the passes apart by the input file they are given."""
    files: dict[str, str | bytes] = {
        "t/A-pass/problem.yaml": "problem_format_version: 2025-09\nname: Passes\ntype: multi-pass\n",
        "t/A-pass/output_validator/validator.py": PASS_BY_INPUT_VALIDATOR,
        "t/A-pass/data/sample/1.in": "start 21\n",
        "t/A-pass/data/sample/1.ans": "42\n",
        "t/A-pass/submissions/accepted/both.py": (
            "word, n = input().split()\nprint(2 * int(n) if word == 'start' else n)\n"
        ),
    }
    (run,) = verify(make_archive(files), tmp_path).runs["t/A-pass"]
    assert [(v.code, v.message) for v in run.verdicts] == [("AC", "pass 2 of 2")]


def test_a_packages_memory_limit_is_the_runs_address_space_and_stack(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """As judges run them: a package's ``limits: memory`` (MiB) is what its runs get, for their address
    space, within which the stack is unlimited (a deep recursion is bounded by memory, not by 8 MiB), and
    a thread still starts (a stack limit of the whole memory left no room for a new thread's stack)."""
    solver = (
        "import threading\nfrom resource import *\n"
        "limits = (getrlimit(RLIMIT_AS)[0] >> 20, getrlimit(RLIMIT_STACK)[0] == RLIM_INFINITY)\n"
        "t = threading.Thread(target=print, args=limits)\n"
        "t.start()\nt.join()\n"
    )
    folder = "t/M-memory"
    archive = make_archive(
        {
            f"{folder}/problem.yaml": "problem_format_version: 2025-09\nname: Memory\nlimits:\n  memory: 1536\n",
            f"{folder}/data/sample/1.in": "\n",
            f"{folder}/data/sample/1.ans": "1536 True\n",
            f"{folder}/submissions/accepted/limits.py": solver,
            "t/M-format/problem.yaml": "problem_format_version: 2025-09\nname: Format's default\n",
            "t/M-format/data/sample/1.in": "\n",
            "t/M-format/data/sample/1.ans": "2048 True\n",
            "t/M-format/submissions/accepted/limits.py": solver,
        }
        | entry("default", solver, "1024 True\n")
    )
    report = verify(archive, tmp_path)
    verdicts = {path: runs[0].verdicts[0] for path, runs in report.runs.items()}
    assert {path: (v.code, v.output) for path, v in verdicts.items()} == {
        folder: ("AC", "1536 True\n"),
        "t/M-format": ("AC", "2048 True\n"),  # the format's default, which the page shows
        "t/A-default": ("AC", "1024 True\n"),  # no package: the build's own
    }


def test_a_compile_stopped_on_a_busy_machine_is_not_the_source_s_fault(tmp_path: Path) -> None:
    """A compile is limited by its CPU time; one stopped on the clock with little CPU time had no CPU to
    run on: it is not run this time and not kept as the source's error, and the next build compiles again."""
    import signal

    from site_builder.sandbox.runner import RunResult
    from site_builder.verify import compiler

    def result(cpu: float, wall: float, timed_out: bool, killed: int | None = None) -> RunResult:
        return RunResult(None, killed, wall, cpu, b"", "", timed_out, False)

    assert compiler.busy(result(20, 180, True)) and not compiler.busy(result(170, 180, True))
    assert "busy machine (20 s of CPU time)" in compiler._compile_failure(result(20, 180, True), "g++")
    assert "took longer than 180 s" in compiler._compile_failure(result(170, 180, True), "g++")
    over = "g++ took longer than 60 s of CPU time (run the build with --rerun to try again)"
    assert compiler._compile_failure(result(61, 70, False, signal.SIGXCPU), "g++") == over
    stopped = RunResult(4, None, 50, 58, b"", "g++: internal compiler error: CPU time limit exceeded", False, False)
    assert compiler._compile_failure(stopped, "g++") == over  # g++ reports its cc1plus stopped


def test_a_sample_without_an_answer_is_one_warning_whatever_the_number_of_solvers() -> None:
    from dataclasses import replace

    from site_builder.model import Sample
    from site_builder.verify.diagnostics import verification_diagnostics

    entry = _entry_with([("a.cpp", "cpp", ["GEN"], ""), ("b.cpp", "cpp", ["GEN"], ""), ("c.py", "python", ["WA"], "")])
    entry = replace(entry, samples=(Sample("0", "data/0.in", None, "1\n", None),))
    assert [(d.path, d.message) for d in verification_diagnostics(entry)] == [
        ("t/A/data/0.in", "c.py: Wrong Answer"),
        ("t/A/data/0.in", "sample 0 has no answer file: the output of each solver is shown, not verified"),
    ]


def test_a_package_without_the_validator_it_asks_for_is_run_but_not_judged(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """A public release that left out its output validator (``validation: custom``, no output_validators/):
    the default comparison would call every other right answer wrong, so the runs are made, their outputs
    kept, and no verdict given; one warning says why, whatever the number of runs."""
    from dataclasses import replace

    from site_builder.model import Sample
    from site_builder.verify.diagnostics import verification_diagnostics
    from site_builder.verify.solvers import MISSING_VALIDATOR

    archive = make_archive(
        {
            "t/A-x/problem.yaml": "name: X\nvalidation: custom\n",
            "t/A-x/submissions/accepted/any.py": "print(2)\n",
            "t/A-x/submissions/accepted/other.py": "print(3)\n",
            "t/A-x/data/sample/1.in": "1\n",
            "t/A-x/data/sample/1.ans": "1\n",
            "t/A-x/data/sample/2.in": "2\n",
            "t/A-x/data/sample/2.ans": "2\n",
        }
    )
    runs = verify(archive, tmp_path).runs["t/A-x"]
    assert [(r.solver, [(v.code, v.message, v.output) for v in r.verdicts]) for r in runs] == [
        (name, [("NJ", MISSING_VALIDATOR, out), ("NJ", MISSING_VALIDATOR, out)])
        for name, out in (("submissions/accepted/any.py", "2\n"), ("submissions/accepted/other.py", "3\n"))
    ]
    made = _entry_with([("any.py", "python", ["NJ", "NJ"], ""), ("other.py", "python", ["NJ", "NJ"], "")])
    why = {"message": MISSING_VALIDATOR}
    samples = tuple(Sample(n, f"{n}.in", f"{n}.ans", "", "") for n in ("0", "1"))
    runs_made = tuple(replace(r, verdicts=tuple(replace(v, **why) for v in r.verdicts)) for r in made.runs)
    entry = replace(made, runs=runs_made, samples=samples)
    assert entry.verification[0] != "failing"
    assert [(d.path, d.message, d.level) for d in verification_diagnostics(entry)] == [
        ("t/A/0.in", f"Not Judged (4 runs): {MISSING_VALIDATOR}", "warning")
    ]


def test_python_2_code_found_by_its_run_is_not_run_again_and_again(make_archive: ArchiveMaker, tmp_path: Path) -> None:
    """Python 2 that no first line announces shows itself when Python 3 runs it (``raw_input``): it is
    "not run: Python 2", with no verdict, on the first build and on every build that recalls it."""
    from site_builder.verify.solvers import PYTHON2_NOTE

    archive = make_archive(entry("old", "a, b = map(int, raw_input().split())\nprint(a + b)\n"))
    first = verify(archive, tmp_path).runs["t/A-old"]
    assert [(r.verdicts, r.note) for r in first] == [((), PYTHON2_NOTE)]
    assert verify(archive, tmp_path).runs["t/A-old"] == first  # recalled whole from the cache


def test_a_cache_from_before_keeps_no_verdict_beside_the_python_2_note() -> None:
    """A cache written before 9df6f2b kept the Runtime Error's key of a Python 2 solver: recalled now, the
    solver shows the note alone, as a first build shows it; other solvers keep theirs."""
    from site_builder.model import SolverRun, Verdict
    from site_builder.verify.cache import Recalled
    from site_builder.verify.solvers import PYTHON2_NOTE

    error = Verdict("1", "RTE", 0.02, "", message="exit code 1: NameError: name 'raw_input' is not defined")
    accepted = Verdict("1", "AC", 0.01, "3\n")
    old = Recalled(
        (SolverRun("a.py", "python", "h", (error,), PYTHON2_NOTE), SolverRun("b.cpp", "cpp", "g", (accepted,), "")),
        (("k1",), ("k2",)),
        ("p",),
    )
    settled = verifier._settled(old)
    assert settled.runs == (SolverRun("a.py", "python", "h", (), PYTHON2_NOTE), old.runs[1])
    assert settled.keys == ((), ("k2",)) and settled.programs == ("p",)
    assert verifier._settled(settled) is settled


def test_ctrl_c_stops_the_running_solvers_rather_than_waiting_for_their_limits(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """A build interrupted while a solver sleeps ends at once: the queued runs are dropped and the
    running one is stopped, not left to its wall-clock limit (here 40 s), and nothing is cached of it."""
    import signal
    import threading

    from site_builder.sandbox import stopping

    base = "t/A-sleeps"
    files = {
        f"{base}/problem.yaml": "time_limit: 10\n",
        f"{base}/solution.py": "import time\ntime.sleep(120)\n",
        **{f"{base}/samples/{i}.in": "2 3\n" for i in (1, 2, 3)},
        **{f"{base}/samples/{i}.ans": "5\n" for i in (1, 2, 3)},
    }
    archive = make_archive(files)
    ctrl_c = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))  # as a terminal sends it
    started = time.monotonic()
    ctrl_c.start()
    sources, _ = load_archive(archive, "archive")
    options = VerifyOptions(cache_dir=tmp_path / "cache", jobs=1)
    with pytest.raises(KeyboardInterrupt):
        verify_entries(sources, archive, options)
        time.sleep(60)  # (the interrupt came after the verification: it is still the test's)
    assert time.monotonic() - started < 25, "the build waited for the running solver"
    assert not stopping.stopped()  # runs may start again
    assert not (tmp_path / "cache" / "verify.json").exists()  # no verdict kept of the stopped run
