"""``site-builder check``: everything a build does but write, with reports CI can read and branch on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ArchiveMaker

from site_builder.cli import main
from site_builder.errors import Diagnostic
from site_builder.publish.report import github_annotation

FAILING = {
    "t/A-sum/solution.md": "## Idea\n\nAdd.\n",
    "t/A-sum/solution.py": "a, b = map(int, input().split())\nprint(a - b)\n",
    "t/A-sum/samples/1.in": "2 3\n",
    "t/A-sum/samples/1.ans": "5\n",
    "t/B-fine/solution.md": "## Idea\n\nEcho.\n",
    "t/B-fine/solution.py": "print(input())\n",
    "t/B-fine/samples/1.in": "7\n",
    "t/B-fine/samples/1.ans": "7\n",
}


def _run(tmp_path: Path, archive: Path, *extra: str) -> int:
    where = ["--root", str(tmp_path), "--archive", str(archive), "--jobs", "1"]
    return main(["check", *where, *extra])


def test_check_reports_as_json_writes_no_site_and_exits_by_fail_on(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive(FAILING)
    assert _run(tmp_path, archive, "--format", "json") == 0  # a failing sample is a warning
    report = json.loads(capsys.readouterr().out)
    assert (report["command"], report["entries"], report["errors"], report["failing"]) == ("check", 2, 0, 1)
    assert report["published"] is False and not (tmp_path / "site").exists()
    statuses = {row["entry"].rsplit("/", 1)[-1]: row["status"] for row in report["verification"]}
    assert statuses == {"A-sum": "failing", "B-fine": "verified"}
    [warning] = report["diagnostics"]
    assert warning["path"].endswith("t/A-sum/samples/1.in") and warning["level"] == "warning"
    assert warning["message"].startswith("solution.py: Wrong Answer")
    assert _run(tmp_path, archive, "--format", "json", "--fail-on", "failing") == 1
    assert _run(tmp_path, archive, "--format", "json", "--fail-on", "warning") == 1
    capsys.readouterr()
    (archive / "t/B-fine/problem.yaml").write_text("rating: high\n")
    (archive / "t/A-sum/solution.py").write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    assert _run(tmp_path, archive, "--format", "json") == 1  # an error
    report = json.loads(capsys.readouterr().out)
    assert (report["errors"], report["failing"], report["ok"]) == (1, 0, False)
    assert report["diagnostics"][0]["line"] == 1
    assert not (tmp_path / "site").exists()


def test_build_and_check_print_the_same_diagnostics(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive({**FAILING, "t/B-fine/problem.yaml": "rating: high\n"})
    assert _run(tmp_path, archive) == 1
    checked = capsys.readouterr()
    assert "Checked 2 entries in 1 track" in checked.out and "no site written" in checked.out
    assert main(["build", "--root", str(tmp_path), "--archive", str(archive), "--jobs", "1"]) == 1
    built = capsys.readouterr()
    assert "Built 2 entries in 1 track" in built.out
    lines = [line for line in checked.err.splitlines() if not line.startswith("  verifying")]
    assert len(lines) == 2 and lines == [line for line in built.err.splitlines() if not line.startswith("  verifying")]
    assert _run(tmp_path, archive, "-q") == 1
    quiet = capsys.readouterr()
    assert quiet.out == "" and quiet.err.splitlines() == lines


def test_github_format_annotates_files_and_lines(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive({**FAILING, "t/B-fine/problem.yaml": "rating: high\n"})
    assert _run(tmp_path, archive, "--format", "github", "-q") == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("::error file=") and "problem.yaml,line=1::rating must be" in line for line in lines)
    assert any(
        line.startswith("::warning file=") and "samples/1.in::solution.py: Wrong Answer" in line for line in lines
    )


def test_github_annotations_escape_what_would_end_a_command() -> None:
    text = github_annotation(Diagnostic("a,b:c.tex", 3, "50% wrong\nsecond line", "warning"))
    assert text == "::warning file=a%2Cb%3Ac.tex,line=3::50%25 wrong%0Asecond line"


def test_a_fatal_configuration_error_is_reported_in_the_format_asked_for(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive({**FAILING, "site.yaml": "title: [unclosed\n"})
    assert _run(tmp_path, archive, "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["fatal"] is True
    assert report["diagnostics"][0]["path"].endswith("site.yaml")


def test_the_documented_github_workflow_runs_commands_that_exist() -> None:
    """docs/deploy.md's workflow: valid YAML, the cache kept, and every site-builder command it runs parses."""
    import re
    import shlex

    import yaml
    from conftest import ROOT

    from site_builder.cli import _parser

    text = (ROOT / "docs/deploy.md").read_text(encoding="utf-8")
    workflow = yaml.safe_load(re.search(r"```yaml\n(.*?)```", text, re.S).group(1))  # type: ignore[union-attr]
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert "make site" in runs
    [cache] = [step for step in steps if step.get("uses", "").startswith("actions/cache@")]
    assert cache["with"]["path"] == ".cache"
    [upload] = [step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "site"
    assert workflow["permissions"] == {"contents": "read"}
    commands = [c for run in runs for c in run.split("&&") if "site-builder" in c]
    assert commands
    for command in commands:
        words = shlex.split(command)
        _parser().parse_args(words[1:])  # exits on an unknown option
