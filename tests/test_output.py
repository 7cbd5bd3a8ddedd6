"""Publishing: unchanged files are reused, a no-op build writes nothing, a tampered site is rewritten."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import ROOT, ArchiveMaker, options_for

from site_builder.build import build_site


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(ROOT / "templates", root / "templates")
    shutil.copytree(ROOT / "static", root / "static")
    return root


def test_unchanged_files_are_reused_and_noop_writes_nothing(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-one/solution.md": "## Idea\n\nOne.\n", "t/B-two/solution.md": "## Idea\n\nTwo.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    page_one = tmp_path / "site/t/A-one/index.html"
    inode = page_one.stat().st_ino
    build_site(options)
    assert page_one.stat().st_ino == inode, "a no-op build must not replace anything"
    (archive / "t/B-two/solution.md").write_text("## Idea\n\nTwo, edited.\n")
    build_site(options)
    assert "Two, edited." in (tmp_path / "site/t/B-two/index.html").read_text()
    assert page_one.stat().st_ino == inode, "an unchanged page is linked from the previous site, not rewritten"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []


def test_a_tampered_site_is_written_again(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-one/solution.md": "## Idea\n\nOne.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    page = tmp_path / "site/t/A-one/index.html"
    original = page.read_bytes()
    page.write_bytes(b"defaced")
    build_site(options)
    assert page.read_bytes() == original
