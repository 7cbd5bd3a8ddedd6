"""``site-builder check``: everything a build does but write, with reports CI can read and branch on."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ArchiveMaker, write_tree

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


@pytest.mark.parametrize("how", ["GITHUB_WORKSPACE", "git work tree"])
def test_annotations_and_json_name_files_from_the_repository_s_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """CI runs anywhere (here: the project folder is elsewhere), GitHub places annotations by their
    path in the repository: the archive is its folder ``problems/``."""
    repo = tmp_path / "repo"
    write_tree(repo / "problems", {**FAILING, "t/B-fine/problem.yaml": "rating: high\n"})
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    if how == "GITHUB_WORKSPACE":
        monkeypatch.setenv("GITHUB_WORKSPACE", str(repo))
    elif shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    else:
        (repo / ".git").mkdir()
    elsewhere = tmp_path / "elsewhere"
    assert _run(elsewhere, repo / "problems", "--format", "github", "-q") == 1
    lines = capsys.readouterr().out.splitlines()
    assert "::error file=problems/t/B-fine/problem.yaml,line=1::rating must be a whole number, not str" in lines
    assert any(line.startswith("::warning file=problems/t/A-sum/samples/1.in::") for line in lines)
    assert _run(elsewhere, repo / "problems", "--format", "json") == 1
    report = json.loads(capsys.readouterr().out)
    paths = [d["path"] for d in report["diagnostics"]]
    assert paths == ["problems/t/A-sum/samples/1.in", "problems/t/B-fine/problem.yaml"]
    assert [row["entry"] for row in report["verification"]] == ["problems/t/A-sum", "problems/t/B-fine"]


def test_without_a_repository_files_are_named_from_the_project_folder(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    archive = make_archive({**FAILING, "t/B-fine/problem.yaml": "rating: high\n"})
    assert _run(tmp_path, archive, "--format", "github", "-q") == 1
    assert "::error file=archive/t/B-fine/problem.yaml,line=1::" in capsys.readouterr().out


def test_a_missing_archive_is_named_with_the_flag_that_changes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("build", "check"):
        assert main([command, "--root", str(tmp_path)]) == 1
        err = capsys.readouterr().err.splitlines()
        assert err[0] == (
            f"archive: archive folder not found: {tmp_path.resolve() / 'archive'} (set --archive, or run in the"
            " archive's folder; `site-builder init` starts a new one)"
        )
        assert err[1] == ("Check failed." if command == "check" else "Build failed; no site was written.")
    (tmp_path / "site").mkdir()  # a site of an earlier build: it stays
    assert main(["build", "--root", str(tmp_path), "--archive", str(tmp_path / "gone")]) == 1
    err = capsys.readouterr().err
    assert f"archive folder not found: {tmp_path.resolve() / 'gone'} (set --archive" in err
    assert "Build failed; the previous site was left as it was." in err
