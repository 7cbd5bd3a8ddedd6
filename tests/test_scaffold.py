"""site-builder new: a complete skeleton that builds, and never an overwrite."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import options_for

from site_builder.build import build_site
from site_builder.cli import main
from site_builder.errors import SiteError
from site_builder.scaffold import create_entry, new_entry_files


def test_files_of_a_new_entry() -> None:
    files = new_entry_files("icpc/2024/A-some-title", markdown=False)
    assert sorted(files) == [
        "problem.yaml",
        "samples/1.ans",
        "samples/1.in",
        "solution.py",
        "solution.tex",
        "statement.md",
    ]
    assert files["problem.yaml"] == "title: Some Title\nlabel: A\ntags: []\nstatus: draft\n"
    assert "\\title{Some Title}" in files["solution.tex"]
    assert "solution.md" in new_entry_files("cf/B-x", markdown=True)
    assert "solution.tex" in new_entry_files("A-top-level", markdown=False)  # a contest's repository: its top


@pytest.mark.parametrize("path", ["", "../outside/A-x", "icpc/../../x", "icpc/.hidden/A-x"])
def test_bad_paths_are_refused(path: str) -> None:
    with pytest.raises(SiteError):
        new_entry_files(path, markdown=False)


def test_new_entry_builds_as_an_unfinished_draft(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    created = create_entry(archive, "icpc/2024/A-some-title", markdown=False, shown="archive")
    assert len(created) == 6
    report = build_site(options_for(archive, tmp_path / "site"))
    assert [d for d in report.diagnostics if d.level == "error"] == []
    page = (tmp_path / "site/icpc/2024/A-some-title/index.html").read_text()
    assert "Draft" in page and "A. Some Title" in page
    # Its example sample is solved by its example solver: a new entry is verified, never failing.
    assert [(row.kind, row.text) for row in report.verification] == [("verified", "Verified 1/1")]


def test_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "archive"
    (archive / "icpc/2024/A-x").mkdir(parents=True)
    (archive / "icpc/2024/A-x/solution.py").write_text("mine\n")
    code = main(["new", "icpc/2024/A-x", "--root", str(tmp_path), "--archive", str(archive)])
    assert code == 1
    assert "A-x/solution.py: already exists; nothing was created" in capsys.readouterr().err
    assert (archive / "icpc/2024/A-x/solution.py").read_text() == "mine\n"
    assert sorted(p.name for p in (archive / "icpc/2024/A-x").iterdir()) == ["solution.py"]


def test_refuses_an_entry_inside_a_problem_folder(tmp_path: Path) -> None:
    """A folder inside a problem folder is one of its files: no build would read an entry there."""
    archive = tmp_path / "archive"
    (archive / "icpc/2024/A-x").mkdir(parents=True)
    (archive / "icpc/2024/A-x/problem.yaml").write_text("title: X\n")
    with pytest.raises(SiteError, match="a problem folder: every folder in it is one of its files") as info:
        create_entry(archive, "icpc/2024/A-x/extra/B-y", markdown=False, shown="archive")
    assert info.value.path == "archive/icpc/2024/A-x" and not (archive / "icpc/2024/A-x/extra").exists()
    assert create_entry(archive, "icpc/2024/B-y", markdown=False, shown="archive")  # beside it: an entry
