"""The archive's git dates: from git in the sandbox, and kept with the commit HEAD names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import ArchiveMaker

from site_builder.source import gitdates
from site_builder.source.gitdates import load_git_dates


def _git(folder: Path, *args: str, date: str = "2021-03-04T05:06:07Z") -> None:
    env = {
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "PATH": "/usr/bin:/bin",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "HOME": str(folder.parent),
    }
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each run of git, by the repository it ran in."""
    ran: list[str] = []
    real = gitdates._git_log

    def counted(top: Path, inside: str) -> dict[str, int] | None:
        ran.append(inside)
        return real(top, inside)

    monkeypatch.setattr(gitdates, "_git_log", counted)
    return ran


def test_the_dates_are_kept_while_head_names_the_same_commit(
    tmp_path: Path, make_archive: ArchiveMaker, logs: list[str]
) -> None:
    archive = make_archive({"t/A-x/solution.md": "x"})
    cache = tmp_path / "git-dates.json"
    _git(archive, "init", "-q")
    _git(archive, "add", ".")
    _git(archive, "commit", "-q", "-m", "x")
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1614834367}
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1614834367} and len(logs) == 1
    (archive / "t/A-x/solution.md").write_text("y")  # an uncommitted edit has no date of its own
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1614834367} and len(logs) == 1
    _git(archive, "commit", "-q", "-am", "y", date="2022-01-01T00:00:00Z")
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1640995200} and len(logs) == 2
    _git(archive, "pack-refs", "--all")  # the branch's commit now only in packed-refs
    assert not list((archive / ".git/refs/heads").iterdir())
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1640995200} and len(logs) == 2
    _git(archive, "checkout", "-q", "--detach", "HEAD~1")
    assert load_git_dates(archive, cache) == {"t/A-x/solution.md": 1614834367} and len(logs) == 3


def test_a_head_that_is_a_link_or_names_a_path_outside_is_not_followed(
    tmp_path: Path, make_archive: ArchiveMaker, logs: list[str]
) -> None:
    archive = make_archive({"t/A-x/solution.md": "x"})
    _git(archive, "init", "-q")
    _git(archive, "add", ".")
    _git(archive, "commit", "-q", "-m", "x")
    git = archive / ".git"
    commit = (git / "refs/heads" / (git / "HEAD").read_text().split("/")[-1].strip()).read_text().strip()
    outside = tmp_path / "elsewhere"
    outside.write_text(commit)
    (git / "HEAD").write_text("ref: refs/../../../elsewhere\n")
    assert gitdates._history_key(git, "") is None
    (git / "HEAD").unlink()
    (git / "HEAD").symlink_to(outside)
    assert gitdates._history_key(git, "") is None
    # without a key git runs (here it fails: HEAD is no longer git's) and nothing is kept
    cache = tmp_path / "git-dates.json"
    load_git_dates(archive, cache)
    assert logs == [""] and not cache.exists()
