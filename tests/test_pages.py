"""What pages show readers: files grouped at the end, messages without the builder's folders, track names."""

from __future__ import annotations

from pathlib import Path

from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.errors import Diagnostic
from site_builder.model import Entry
from site_builder.publish.catalog import track_title
from site_builder.publish.pages import file_groups, for_readers
from site_builder.source.config import SiteConfig


def test_files_are_grouped_by_what_they_are_for() -> None:
    files = (
        "problem.yaml",
        "statement/problem.en.tex",
        "data/sample/1.in",
        "data/secret/2.in",
        "submissions/accepted/a.py",
        "output_validator/v.cpp",
        "input_validators/iv.py",
        "generators/gen.py",
        "include/default/h.h",
        "notes/todo.txt",
    )
    assert file_groups(files) == [
        ("Problem files", ["problem.yaml"]),
        ("Statement and write-up", ["statement/problem.en.tex"]),
        ("Test data", ["data/sample/1.in", "data/secret/2.in"]),
        ("Submissions", ["submissions/accepted/a.py"]),
        ("Validators", ["output_validator/v.cpp", "input_validators/iv.py"]),
        ("Generators", ["generators/gen.py"]),
        ("Included with submissions", ["include/default/h.h"]),
        ("Other files", ["notes/todo.txt"]),
    ]


def test_messages_name_archive_paths_never_the_builders_folders() -> None:
    entry = Entry.__new__(Entry)
    object.__setattr__(entry, "path", "mz/darkalley")
    inside = Diagnostic("/tmp/build-7/archive/mz/darkalley/statement/problem.en.tex", 4, "oops", "warning")
    whole = Diagnostic("/home/ci/archive/mz/darkalley", 0, "lacks a write-up", "warning")
    assert for_readers(inside, entry) == "mz/darkalley/statement/problem.en.tex:4: warning: oops"
    assert for_readers(whole, entry) == "mz/darkalley: warning: lacks a write-up"


def test_track_names_from_folders_read_as_contests_are_named() -> None:
    config = SiteConfig()
    names = ("icpc", "ioi-2024", "classics", "codeforces-round", "nwerc_2023")
    assert [track_title(config, n) for n in names] == [
        "ICPC",
        "IOI 2024",
        "Classics",
        "Codeforces Round",
        "NWERC 2023",
    ]


def test_no_page_names_the_folder_the_archive_was_built_from(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {"t/A-x/solution.md": "# X\n\nText with an unclosed $ sign.\n", "t/A-x/solution.py": "print(1)\n"}
    )
    out = tmp_path / "site"
    report = build_site(options_for(archive, out, verify=False))
    assert report.diagnostics, "the fixture has a warning to show"
    for page in out.rglob("*.html"):
        assert str(tmp_path) not in page.read_text("utf-8"), page
