"""Mutation testing of the modules that keep archives safe and verdicts true (``make mutate``).

mutmut 3 plants one small change at a time (an operator, a constant, a dropped argument) in a
module's functions and runs the tests that exercise it: a mutant no test notices is a hole in the
tests, unless it is equivalent (it changes nothing anyone could observe), and then docs/testing.md
says why. Each module is mutated on its own, against the test files of ``MODULES`` only, in a
scratch folder of its own (``.mutate/<module>/``, git-ignored), afresh each time: the score is that
of the tests as they are now.

    python tests/mutate/run.py                      # every module below
    python tests/mutate/run.py verify/compare.py    # one (a path under site_builder/)
    python tests/mutate/run.py verify/jobs.py:_jobs,_read_text   # only these functions or methods of it
    python tests/mutate/run.py verify/jobs.py:_jobs --tests=tests/test_cache_keys.py   # checked by these only
    python tests/mutate/run.py verify/jobs.py:_jobs__mutmut_3,_jobs__mutmut_7   # only these mutants (names as printed)
    python tests/mutate/run.py --children=1 sandbox/runner.py:follow   # one mutant at a time (a shared machine)

The modules of ``WHOLE_FILE`` run as processes of their own, with the standard library alone: mutmut's
mutated code imports mutmut, which they cannot, so each of their mutants (made and named as mutmut
makes them) is written into a copy of the file in the scratch folder, and the module's tests run
against it, one mutant at a time, stopping at the first failure.

It prints the score per module and every surviving mutant as a diff, marking those docs/testing.md
explains; it exits 1 when a survivor is not explained there. A mutant whose tests pass 60 s of CPU time
(a loop it made) is stopped, and counted killed.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = ROOT / ".mutate"
EXPLAINED = ROOT / "docs" / "testing.md"
CHILDREN = 2  # the machines have two cores (``--children=1`` where others measure on them)

# module (under site_builder/) -> the test files that check it; keep each set small and fast.
MODULES: dict[str, tuple[str, ...]] = {
    "verify/compare.py": ("tests/test_compare.py",),
    # the verifier's modules, each checked by the same two files (verify/options.py has no function to mutate)
    "verify/jobs.py": ("tests/test_cache_keys.py", "tests/test_verifier.py", "tests/test_verify.py"),
    "verify/verifier.py": ("tests/test_verifier.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    "verify/solvers.py": ("tests/test_solvers.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    "verify/runs.py": ("tests/test_runs.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    "verify/judging.py": ("tests/test_judging.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    "verify/diagnostics.py": ("tests/test_diagnostics.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    # testlib's and CMS's conventions, from a run's facts (the whole builds of test_polygon and test_cms: minutes)
    "verify/checkers.py": (
        "tests/test_checkers.py",
        "tests/test_judging.py",
        "tests/test_polygon.py::test_testlib_exit_codes",
        "tests/test_cms.py::test_cms_scores",
    ),
    "verify/cache.py": ("tests/test_verdict_cache.py", "tests/test_verify.py", "tests/test_cache_keys.py"),
    # test_hostile.py builds whole sites (minutes per mutant) and one of its tests has a one-second deadline,
    # which a traced run on a loaded machine misses: only the tests of it that check the module.
    "publish/screening.py": ("tests/test_screening.py", "tests/test_media_types_active.py"),
    "publish/mediatypes.py": ("tests/test_mediatypes.py", "tests/test_media_types_active.py"),
    "render/svg.py": (
        "tests/test_svg.py",
        "tests/test_hostile.py::test_the_check_after_sanitizing_trusts_nothing",
        "tests/test_hostile.py::test_active_files_are_withheld_and_svg_images_sanitized",
    ),
    "freshness.py": (
        "tests/test_freshness.py",
        "tests/test_cache_keys.py",
        "tests/test_build.py::test_a_build_that_changes_nothing_keeps_the_site",
        "tests/test_build.py::test_a_settled_archive_is_checked_by_its_stamp_without_being_read",
    ),
    "render/latex/macros.py": ("tests/test_macros.py", "tests/test_latex.py"),
    "source/metadata.py": ("tests/test_metadata.py", "tests/test_compare.py"),
    "store.py": ("tests/test_store.py", "tests/test_cache_keys.py"),
    # what the freshness probe stands on: the archive's stamp and walk, and the folder snapshot
    "source/snapshot.py": ("tests/test_snapshot.py", "tests/test_freshness.py"),
    "source/stamp.py": ("tests/test_stamp.py", "tests/test_freshness.py", "tests/test_watcher.py"),
    # the watcher that names the folders a stamp takes again, and the stamp taken with it
    "source/watcher.py": (
        "tests/test_watcher.py",
        "tests/test_launch.py::test_the_watcher_hands_a_build_s_request_and_descriptors_to_its_host_and_closes_its_own",
        "tests/test_launch.py::test_a_watcher_without_a_host_answers_a_build_s_request_as_a_question",
    ),
    "source/watched.py": (
        "tests/test_watcher.py",
        "tests/test_launch.py::test_the_host_reads_the_kept_stamp_parts_ahead_as_a_build_reads_them",
    ),
    # a build handed to the watcher: its client and its host, by the tests that run them in the test's own
    # process (the others start a watcher as a process of its own, whose code mutmut neither sees nor runs)
    "launch.py": (
        "tests/test_launch.py::test_without_a_watcher_or_with_watching_off_the_build_runs_itself",
        "tests/test_launch.py::test_a_build_the_watcher_does_not_start_runs_itself",
        "tests/test_launch.py::test_a_handed_build_ends_with_its_child_s_code_or_says_it_has_none",
        "tests/test_launch.py::test_ctrl_c_while_a_handed_build_runs_asks_the_watcher_to_interrupt_it",
        "tests/test_launch.py::test_the_cache_a_build_asks_in_is_the_one_its_options_name",
        "tests/test_launch.py::test_only_a_build_or_a_check_is_handed_over",
    ),
    "buildhost.py": (
        "tests/test_launch.py::test_a_build_from_another_builder_python_or_place_is_refused_and_another_builder_ends_the_watcher",
        "tests/test_launch.py::test_the_place_is_the_cgroup_and_namespaces",
        "tests/test_launch.py::test_the_child_takes_the_build_s_streams_folder_mask_limits_and_environment",
        "tests/test_launch.py::test_the_host_reads_the_record_ahead_after_its_builds_end",
        "tests/test_launch.py::test_the_host_keeps_a_working_sandbox_s_probe_and_not_a_failed_one",
        "tests/test_launch.py::test_a_build_the_watcher_does_not_start_runs_itself",
        "tests/test_launch.py::test_the_identity_is_the_python_the_builder_s_folder_and_the_place",
        "tests/test_launch.py::test_the_code_stamp_follows_the_builder_s_files_and_pip_s_folders_not_bytecode",
        "tests/test_launch.py::test_a_running_build_is_not_reaped_and_nothing_is_read_ahead_while_none_ended",
        "tests/test_launch.py::test_the_host_forks_a_child_that_runs_the_build_and_says_its_code",
    ),
    "publish/retired.py": ("tests/test_retired.py",),
    "render/rawhtml.py": ("tests/test_rawhtml.py",),
    "source/constraints.py": ("tests/test_constraints.py",),  # reads an archive's Python without running it
    "sandbox/launcher.py": (
        "tests/test_launcher.py",
        "tests/test_capabilities.py",
        "tests/test_sandbox.py",
        "tests/test_redteam.py",
    ),
    "sandbox/isolation.py": (
        "tests/test_capabilities.py",
        "tests/test_sandbox.py::test_a_toolchain_under_tmp_is_shown_elsewhere_and_runs",
        "tests/test_sandbox.py::test_paths_in_the_sandboxs_own_places_are_shown_under_run_host",
        "tests/test_sandbox.py::test_limits_and_environment_reach_the_program",
        "tests/test_sandbox.py::test_the_sandbox_command_shows_what_the_spec_names_and_nothing_writable_besides_scratch",
        "tests/test_sandbox.py::test_the_isolation_says_what_it_is",
        "tests/test_sandbox.py::test_the_isolation_probe_says_why_a_sandbox_does_not_start",
        "tests/test_sandbox.py::test_the_isolation_probe_runs_with_nothing_of_the_builder_and_gives_up_in_time",
        "tests/test_redteam.py::test_a_solver_reaches_nothing_of_the_host",
        "tests/test_redteam.py::test_a_run_leaves_nothing_for_the_next_in_the_same_sandbox",
    ),
    "sandbox/seccomp.py": (
        "tests/test_sandbox.py::test_the_seccomp_filter_decides_by_number_and_flags",
        "tests/test_sandbox.py::test_a_clone_whose_flags_look_like_an_allowed_personality_is_still_refused",
        "tests/test_redteam.py::test_every_family_the_filter_refuses_is_probed",
        "tests/test_redteam.py::test_the_filter_refuses_what_runs_never_need",
        "tests/test_redteam.py::test_the_filter_leaves_what_programs_need",
    ),
    # its tests remove groups only inside a group of their own: a mutant that removed the groups of builds still
    # running would end other people's runs on a shared machine
    "sandbox/cgroup.py": ("tests/test_cgroup.py",),
    "sandbox/runner.py": (
        "tests/test_runner.py",
        "tests/test_run.py",
        "tests/test_sandbox.py",
        "tests/test_redteam.py",
    ),
    "sandbox/descriptors.py": ("tests/test_descriptors.py", "tests/test_run.py"),
    "sandbox/interactive.py": ("tests/test_run.py",),
    # the placing process (``python -I -S copying.py``, so in WHOLE_FILE) and the copies it makes
    "publish/copying.py": ("tests/test_copying.py",),
    # the site's writer: a build's files staged, then swapped or moved into place; a failed build leaves the
    # published site as it was (the dev server's writes in place are checked by test_serve, too slow here:
    # ONLY has the functions a build calls)
    "publish/output.py": (
        "tests/test_output.py",
        "tests/test_copying.py",
        "tests/test_forkedpages.py",
        "tests/test_build.py::test_failed_build_leaves_the_previous_site_untouched",
        "tests/test_build.py::test_strict_publishes_nothing_on_warnings",
        "tests/test_build.py::test_a_build_that_changes_nothing_keeps_the_site",
        "tests/test_build.py::test_the_manifest_knows_every_published_file_by_the_digest_of_its_bytes",
        "tests/test_build.py::test_worker_processes_build_the_same_site_as_one_process",
    ),
    # a first build's pages rendered by the builder and a forked copy: every page placed once, or left
    "publish/forkedpages.py": (
        "tests/test_forkedpages.py",
        "tests/test_output.py::test_files_another_process_wrote_are_recorded_and_let_go_when_published_unchanged",
        "tests/test_build.py::test_a_first_builds_pages_made_by_two_processes_are_the_one_process_pages",
    ),
    # Ctrl-C: runs stopped at once, and no verdict made of them
    "sandbox/stopping.py": (
        "tests/test_runner.py",
        "tests/test_verify.py::test_ctrl_c_stops_the_running_solvers_rather_than_waiting_for_their_limits",
    ),
}
# Modules of which only these functions are mutated when none are named: the rest of the module is not the
# safety or freshness code the list is for, or is checked by tests too slow to run per mutant.
ONLY: dict[str, tuple[str, ...]] = {
    # a build's writer and its swap; not the dev server's writes in place (write_in_place, sync_raw_files...)
    "publish/output.py": (
        *("digest", "__init__", "has", "cold", "written", "add", "add_raw", "finish", "abandon", "_helper"),
        *("_sent", "_copied", "_conflicts", "_move_changed", "_link_unchanged", "_guarded", "_place", "_placed"),
        *("_copy", "_staged", "make_folder", "_ancestors", "_static_files", "_remove_stale_temporaries"),
        *("swap_into_place", "_exchange"),
    ),
}
# Modules run as ``python -I -S module.py`` (standard library only, in a process of their own, and again
# inside the sandbox): mutmut's trampolines import mutmut there, and its tracing of the test process never
# sees them called. Each of their mutants is planted in a copy of the whole file instead (see
# ``run_whole_file``); the value is how long one mutant's tests may take before it counts as a timeout
# (a mutant that hangs a run: killed, as mutmut counts it).
WHOLE_FILE: dict[str, int] = {"sandbox/launcher.py": 400, "publish/copying.py": 120}
# Mutants never planted, by what their changed line says: run, they would harm the machine rather than fail a
# test. The launcher outside a sandbox ending "everything" (``kill(-1)``: every process its user may signal,
# all of them for root) instead of its run's processes only.
UNSAFE: dict[str, re.Pattern[str]] = {"sandbox/launcher.py": re.compile(r"_end_everything\(\) if \(\w+\) or True")}
# Too slow to run once per mutant (minutes each); the hand-written cases beside them check the same rules.
DESELECTED = ("tests/test_compare.py::test_every_flag_gives_kattis_verdict_on_generated_pairs",)
COPIED = ("templates", "static", "archive", "package.json", "package-lock.json")
# The packaged theme's folders, links to templates/ and static/ that mutmut's copy of site_builder leaves
# out: a build of an archive that is its own repository's root renders with them.
THEME_LINKS = ("site_builder/theme/templates", "site_builder/theme/static")
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
STATUS: dict[int | None, str] = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
}
STATUS |= {37: "caught by type check", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout"}
STATUS |= {-11: "segfault", -9: "segfault", None: "not checked"}


@dataclass(frozen=True)
class Score:
    module: str
    killed: int
    total: int
    survivors: tuple[tuple[str, str], ...]  # (mutant name, status)

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.total if self.total else 100.0


def mutmut_config(module: str, tests: tuple[str, ...]) -> str:
    """The [tool.mutmut] table for one module, appended to a copy of the project's pyproject.toml."""
    deselected = [f"--deselect={test}" for test in DESELECTED]
    lines = [
        "[tool.mutmut]",
        'source_paths = ["site_builder"]',
        f'only_mutate = ["site_builder/{module}"]',
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
        f"pytest_add_cli_args = {json.dumps(['-p', 'no:cacheprovider', '-q', '-x', *deselected])}",
        f"also_copy = {json.dumps([*COPIED, *THEME_LINKS])}",
        "use_git_change_detection = false",
    ]
    return "\n".join(lines) + "\n"


def prepare(module: str, tests: tuple[str, ...]) -> Path:
    """A fresh scratch folder holding the project as mutmut reads it, configured for ``module``."""
    slug = module.removesuffix(".py").replace("/", "-")
    work = SCRATCH / slug
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("site_builder", "tests", *COPIED):
        if (ROOT / name).exists():
            (work / name).symlink_to(ROOT / name)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(text + "\n" + mutmut_config(module, tests), encoding="utf-8")
    return work


def selected(module: str, functions: tuple[str, ...]) -> list[str]:
    """mutmut's name patterns for the mutants of ``functions`` (functions, or methods of any class) of
    ``module``; none (every mutant) when no function is named."""
    dotted = "site_builder." + module.removesuffix(".py").replace("/", ".")
    names = [f if "__mutmut_" in f else f"{f}__mutmut_*" for f in functions]  # a mutant's own name: that one
    return [p for f in names for p in (f"{dotted}.x_{f}", f"{dotted}.xǁ*ǁ{f}")]


def run_module(module: str, tests: tuple[str, ...], functions: tuple[str, ...] = (), children: int = CHILDREN) -> Score:
    work = prepare(module, tests)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the mutants, not the checkout
    mutmut = Path(sys.executable).with_name("mutmut")
    only = f" (only {', '.join(functions)})" if functions else ""
    print(f"== {module}{only}: mutating, checked by {' '.join(tests)}", flush=True)
    log = work / "mutmut.log"
    patterns = selected(module, functions)
    with log.open("w") as out:
        command = [str(mutmut), "run", "--max-children", str(children), *patterns]
        with subprocess.Popen(command, cwd=work, env=env, stdout=out, stderr=out) as done:
            while done.poll() is None:
                stop_looping_mutants(done.pid)
                time.sleep(2)
    meta = work / "mutants" / "site_builder" / f"{module}.meta"
    if done.returncode != 0 or not meta.is_file():
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{module}: mutmut failed (exit {done.returncode}); see {log}\n{tail}")
    codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    statuses = {
        name: STATUS.get(code, "suspicious")
        for name, code in codes.items()
        if not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns)
    }
    survivors = tuple(sorted((n, s) for n, s in statuses.items() if s not in KILLED))
    killed = sum(1 for s in statuses.values() if s in KILLED)
    return Score(module, killed, len(statuses), survivors)


MUTANT_CPU_SECONDS = 60  # a mutant's tests take seconds; past this it loops (mutmut's own limit allows minutes)


def stop_looping_mutants(parent: int) -> None:
    """Kill each of mutmut's children (one mutant's tests, named ``mutmut: <mutant>``) that has used more
    than ``MUTANT_CPU_SECONDS`` of CPU time: a loop the mutant made. mutmut counts the kill as killed,
    as it counts its own timeouts."""
    ticks = os.sysconf("SC_CLK_TCK")
    for folder in Path("/proc").iterdir():
        try:
            fields = (folder / "stat").read_text().rsplit(")", 1)[1].split()
            name = (folder / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except (OSError, IndexError):
            continue
        cpu = (int(fields[11]) + int(fields[12])) / ticks  # utime and stime; fields[1] is the parent
        if int(fields[1]) == parent and name.startswith("mutmut: ") and cpu > MUTANT_CPU_SECONDS:
            print(f"   stopped {name[8:]} after {MUTANT_CPU_SECONDS} s of CPU time", flush=True)
            os.kill(int(folder.name), signal.SIGKILL)


def whole_file_mutants(module: str, work: Path, patterns: list[str]) -> dict[str, str]:
    """The mutants mutmut makes of the functions of ``module`` whose names match ``patterns`` (all when
    there are none), by mutmut's name, each as the text of the whole file with that one change (mutmut
    reads its configuration from ``work``)."""
    import libcst as cst
    from mutmut.mutation.file_mutation import create_mutations, deep_replace
    from mutmut.mutation.trampoline_templates import mangle_function_name

    path = ROOT / "site_builder" / module
    here = Path.cwd()
    os.chdir(work)
    try:
        tree, mutations, _, _ = create_mutations(str(path), path.read_text(encoding="utf-8"))
    finally:
        os.chdir(here)
    owner = {
        id(method): node.name.value
        for node in tree.body
        if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock)
        for method in node.body.body
    }
    dotted = "site_builder." + module.removesuffix(".py").replace("/", ".")
    numbers: Counter[str] = Counter()
    mutants: dict[str, str] = {}
    for mutation in mutations:  # numbered per function in mutmut's order: the names match its own
        function = mutation.contained_by_top_level_function
        if not isinstance(function, cst.FunctionDef):
            continue  # mutmut leaves code outside functions alone
        key = mangle_function_name(name=function.name.value, class_name=owner.get(id(function)))
        numbers[key] += 1
        name = f"{dotted}.{key}__mutmut_{numbers[key]}"
        if patterns and not any(fnmatch.fnmatchcase(name, p) for p in patterns):
            continue
        changed = deep_replace(tree, mutation.original_node, mutation.mutated_node)
        assert isinstance(changed, cst.Module)
        mutants[name] = changed.code
    return mutants


def run_whole_file(module: str, tests: tuple[str, ...], functions: tuple[str, ...] = ()) -> Score:
    """Score ``module`` (one of ``WHOLE_FILE``) by planting each mutant in a copy of the project's code
    and running its tests there (``pytest -x``), one mutant at a time. ^C stops it: the score is then
    of the mutants judged so far."""
    work = prepare(module, tests)
    (work / "site_builder").unlink()
    shutil.copytree(ROOT / "site_builder", work / "site_builder", ignore=shutil.ignore_patterns("__pycache__"))
    target = work / "site_builder" / module
    original = target.read_text(encoding="utf-8")
    mutants = whole_file_mutants(module, work, selected(module, functions))
    unsafe = UNSAFE.get(module)
    for name in [n for n, text in mutants.items() if unsafe and unsafe.search(text)]:
        print(f"not run (it would harm the machine; see UNSAFE): {name}", flush=True)
        del mutants[name]
    only = f" (only {', '.join(functions)})" if functions else ""
    print(
        f"== {module}{only}: {len(mutants)} mutants, each in the whole file, checked by {' '.join(tests)}", flush=True
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(work)}
    deselected = [f"--deselect={test}" for test in DESELECTED]
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *deselected, *tests]
    if (status := _judge(command, work, env, WHOLE_FILE[module])) != "survived":  # as mutmut's clean run
        raise SystemExit(f"{module}: its tests do not pass unchanged ({status}); see {work / 'pytest.log'}")
    statuses: dict[str, str] = {}
    diffs: dict[str, str] = {}
    try:
        for count, (name, text) in enumerate(mutants.items(), 1):
            if (work / "site_builder").is_symlink():  # another run's prepare() took the folder: the checkout's code
                raise SystemExit(f"{work} was made afresh by another run of this script; stopped")
            target.write_text(text, encoding="utf-8")
            diff = difflib.unified_diff(original.splitlines(), text.splitlines(), lineterm="", n=1)
            diffs[name] = "\n".join(line for line in diff if not line.startswith(("---", "+++")))
            started = time.monotonic()
            statuses[name] = _judge(command, work, env, WHOLE_FILE[module])
            by = _first_failure(work / "pytest.log") if statuses[name] == "killed" else ""
            seconds = time.monotonic() - started
            print(f"[{count}/{len(mutants)}] {name}: {statuses[name]}{by} ({seconds:.0f} s)", flush=True)
    except KeyboardInterrupt:
        print(f"stopped: {len(statuses)} of {len(mutants)} mutants judged", flush=True)
    finally:
        if not (work / "site_builder").is_symlink():
            target.write_text(original, encoding="utf-8")
        (work / "diffs.json").write_text(json.dumps(diffs), encoding="utf-8")
    survivors = tuple(sorted((n, s) for n, s in statuses.items() if s not in KILLED))
    return Score(module, sum(1 for s in statuses.values() if s in KILLED), len(statuses), survivors)


def _first_failure(log: Path) -> str:
    """The test that failed first, as pytest's summary names it (a kill by a test that fails now and then
    is no kill: check it)."""
    failed = [
        line.split(" - ")[0]
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith(("FAILED", "ERROR"))
    ]
    return f" by {failed[0].split(' ', 1)[-1]}" if failed else ""


def _judge(command: list[str], work: Path, env: dict[str, str], limit: int) -> str:
    """How one planted mutant fared: pytest's exit status read as mutmut reads it."""
    log = (work / "pytest.log").open("w")
    with subprocess.Popen(command, cwd=work, env=env, stdout=log, stderr=log, start_new_session=True) as tests:
        try:
            code: int | None = tests.wait(limit)
        except subprocess.TimeoutExpired:
            code = 36
        except KeyboardInterrupt:
            os.killpg(tests.pid, signal.SIGKILL)
            raise
        finally:
            log.close()
        if code == 36:
            os.killpg(tests.pid, signal.SIGKILL)
    return STATUS.get(code, "suspicious")


def show(module: str, name: str) -> str:
    slug = module.removesuffix(".py").replace("/", "-")
    if module in WHOLE_FILE:
        diffs = json.loads((SCRATCH / slug / "diffs.json").read_text(encoding="utf-8"))
        return str(diffs.get(name, ""))
    mutmut = Path(sys.executable).with_name("mutmut")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(mutmut), "show", name], cwd=SCRATCH / slug, env=env, capture_output=True, text=True)
    return "\n".join(line for line in done.stdout.splitlines() if line.startswith(("-", "+", "@@")))


def explained_names() -> set[str]:
    """The mutants docs/testing.md lists as equivalent or harmless (by their mutmut names)."""
    text = EXPLAINED.read_text(encoding="utf-8") if EXPLAINED.is_file() else ""
    return set(re.findall(r"`(site_builder\.[\w.ǁ]+__mutmut_\d+)`", text))


def main(argv: list[str]) -> int:
    tests = tuple(a.removeprefix("--tests=") for a in argv if a.startswith("--tests="))
    children = int(([CHILDREN] + [a.removeprefix("--children=") for a in argv if a.startswith("--children=")])[-1])
    argv = [a for a in argv if not a.startswith(("--tests=", "--children="))]
    chosen = [a.removeprefix("site_builder/").partition(":") for a in argv] or [(m, "", "") for m in MODULES]
    chosen = [(m, sep, only or ",".join(ONLY.get(m, ()))) for m, sep, only in chosen]
    unknown = [m for m, _, _ in chosen if m not in MODULES]
    if unknown:
        print(f"not a mutated module: {', '.join(unknown)} (see MODULES in {Path(__file__).name})", file=sys.stderr)
        return 2
    explained = explained_names()
    scores = [
        run_whole_file(m, tests or MODULES[m], tuple(f for f in only.split(",") if f))
        if m in WHOLE_FILE
        else run_module(m, tests or MODULES[m], tuple(f for f in only.split(",") if f), children)
        for m, _, only in chosen
    ]
    unexplained = 0
    for score in scores:
        if not score.survivors:
            continue
        print(f"\n== {score.module}: {len(score.survivors)} surviving")
        for name, status in score.survivors:
            known = name in explained
            unexplained += not known
            mark = "explained in docs/testing.md" if known else "NOT EXPLAINED"
            print(f"-- {name} ({status}; {mark})\n{show(score.module, name)}")
    print("\nmodule                          killed/total  score")
    for score in scores:
        print(f"{score.module:32}{score.killed:>6}/{score.total:<6}  {score.percent:5.1f}%")
    killed, total = sum(s.killed for s in scores), sum(s.total for s in scores)
    print(f"{'all':32}{killed:>6}/{total:<6}  {100.0 * killed / max(total, 1):5.1f}%")
    print(f"{unexplained} surviving mutants not explained in docs/testing.md")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
