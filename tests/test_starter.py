"""site-builder init: an archive's own repository, from an empty folder to a site that passes CI,
and never an overwrite."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from site_builder.arguments import command_parser as _parser
from site_builder.cli import main
from site_builder.source.config import parse_site_config
from site_builder.starter import IGNORED, PLACEHOLDER, WORKFLOW, missing_ignores, site_title, starter_files


def test_init_writes_site_yaml_gitignore_and_workflow_and_says_what_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "cp-archive"
    assert main(["init", str(repo)]) == 0
    out = capsys.readouterr().out
    for name in ("site.yaml", ".gitignore", ".github/workflows/pages.yml"):
        assert f"created {name}\n" in out
    assert f"cd {repo}" in out and "site-builder new icpc/" in out and "site-builder build" in out
    assert "SITE_BUILDER" in out and "GitHub Actions" in out
    assert parse_site_config((repo / "site.yaml").read_text(), "site.yaml").title == "Cp Archive"
    assert [line for line in (repo / ".gitignore").read_text().splitlines() if not line.startswith("#")] == list(
        IGNORED
    )
    assert (repo / ".github/workflows/pages.yml").read_text() == WORKFLOW


def test_init_never_overwrites_and_names_what_it_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "site.yaml").write_text("title: Mine\n")
    (tmp_path / ".gitignore").write_text("site/\n*.pyc\n")
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "kept site.yaml as it was\n" in out
    assert "kept .gitignore as it was; add /.cache/, /.site.lock, /.site.tmp-* to it\n" in out
    assert "created .github/workflows/pages.yml\n" in out
    assert (tmp_path / "site.yaml").read_text() == "title: Mine\n"
    assert (tmp_path / ".gitignore").read_text() == "site/\n*.pyc\n"
    assert main(["init", str(tmp_path)]) == 0
    assert "created" not in capsys.readouterr().out


def test_beside_an_archive_folder_site_yaml_goes_into_it(tmp_path: Path) -> None:
    (tmp_path / "archive").mkdir()
    assert main(["init", str(tmp_path)]) == 0
    assert (tmp_path / "archive/site.yaml").is_file() and not (tmp_path / "site.yaml").exists()
    assert (tmp_path / ".gitignore").is_file()


def test_titles_and_ignores() -> None:
    assert site_title("my_archive") == "My Archive" and site_title("ICPC-notes") == "ICPC Notes"
    assert site_title("...") == "Problem Archive"
    assert parse_site_config(starter_files('Tom\'s "A: B"')["site.yaml"], "s").title == 'Tom\'s "A: B"'
    assert missing_ignores("site\n/.cache\n.site.lock\n") == ["/.site.tmp-*"]


def test_the_workflow_installs_builds_with_the_pages_address_and_publishes_site() -> None:
    workflow = yaml.safe_load(WORKFLOW)
    assert workflow["permissions"] == {"contents": "read"}
    assert PLACEHOLDER in workflow["env"]["SITE_BUILDER"]
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert any("bubblewrap" in run and "g++" in run for run in runs)
    assert any("pip install" in run and "$SITE_BUILDER" in run for run in runs)
    assert any(step.get("uses", "").startswith("actions/setup-node@") for step in steps)
    [pages] = [step for step in steps if step.get("uses", "").startswith("actions/configure-pages@")]
    [build] = [step for step in steps if "site-builder build" in step.get("run", "")]
    assert build["env"]["BASE_URL"] == "${{ steps." + pages["id"] + ".outputs.base_url }}"
    assert '--base-url "$BASE_URL"' in build["run"]
    [upload] = [step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "site"
    [cache] = [step for step in steps if step.get("uses", "").startswith("actions/cache@")]
    assert cache["with"]["path"].split() == [".cache", "~/.local/state/site-builder"]
    # a branch may commit .cache (pickles run code when loaded) or a site link: gone before the restore
    [clean] = [i for i, step in enumerate(steps) if step.get("run", "").startswith("rm -rf ")]
    assert clean < steps.index(cache) and {".cache", "site"} <= set(steps[clean]["run"].split())
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    commands = [line.strip() for run in runs for line in run.splitlines() if line.strip().startswith("site-builder")]
    assert len(commands) == 2
    for command in commands:
        _parser().parse_args(shlex.split(command)[1:])  # exits on an unknown option


def test_docs_deploy_shows_the_workflow_init_writes() -> None:
    text = (ROOT / "docs/deploy.md").read_text(encoding="utf-8")
    shown = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert shown is not None and shown.group(1) == WORKFLOW


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_init_new_build_and_check_from_an_archive_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    assert main(["new", "icpc/2030/A-x"]) == 0
    assert "created icpc/2030/A-x/solution.py\n" in capsys.readouterr().out
    assert not (repo / "archive").exists()  # the repository is the archive
    assert main(["build", "--jobs", "1"]) == 0
    assert "Built 1 entry in 1 track" in capsys.readouterr().out
    assert main(["check", "--jobs", "1", "--fail-on", "failing", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["errors"], report["failing"]) == (0, 0)
    assert [(row["entry"], row["status"]) for row in report["verification"]] == [("icpc/2030/A-x", "verified")]
    assert main(["check", "--jobs", "1", "--fail-on", "failing", "--format", "github"]) == 0
    # What the build left is ignored; what init and new wrote is the repository's.
    status = sorted(_git(repo, "status", "--porcelain", "--ignored").splitlines())
    assert status == [
        "!! .cache/",
        "!! .site.lock",
        "!! site/",
        "?? .github/",
        "?? .gitignore",
        "?? icpc/",
        "?? site.yaml",
    ]
