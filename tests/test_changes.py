"""The dev server's change classifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.serve.changes import Change, ChangeKind, classify
from site_builder.serve.server import plan_rebuild

FOLDERS = frozenset({"icpc/2022/X-quartets", "cf/A-top"})


@pytest.mark.parametrize(
    ("area", "path", "kind", "entry"),
    [
        ("archive", "icpc/2022/X-quartets/solution.tex", ChangeKind.ENTRY, "icpc/2022/X-quartets"),
        ("archive", "icpc/2022/X-quartets/solution.py", ChangeKind.ENTRY, "icpc/2022/X-quartets"),
        ("archive", "icpc/2022/X-quartets/figure.svg", ChangeKind.ENTRY, "icpc/2022/X-quartets"),
        ("archive", "icpc/2022/X-quartets/samples/2.in", ChangeKind.SAMPLE, "icpc/2022/X-quartets"),
        ("archive", "icpc/2022/X-quartets/data/sample/1.ans", ChangeKind.SAMPLE, "icpc/2022/X-quartets"),
        ("archive", "icpc/2022/X-quartets", ChangeKind.ENTRY, "icpc/2022/X-quartets"),
        ("archive", "cf/A-top/problem.yaml", ChangeKind.ENTRY, "cf/A-top"),
        ("archive", "icpc/2024/B-new/solution.md", ChangeKind.ENTRY, "icpc/2024/B-new"),
        ("archive", "icpc/2024/B-new/problem.yaml", ChangeKind.ENTRY, "icpc/2024/B-new"),
        ("archive", "icpc/2024/B-new/notes.txt", ChangeKind.UNKNOWN, None),
        ("archive", "icpc/2024", ChangeKind.UNKNOWN, None),
        ("archive", "site.yaml", ChangeKind.CONFIG, None),
        ("archive", "icpc/2022/X-quartets/solution.tex~", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/.solution.tex.swp", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/4913", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/#solution.tex#", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/.#solution.tex", ChangeKind.IGNORED, None),
        ("archive", "icpc/.git/index", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/__pycache__/x.pyc", ChangeKind.IGNORED, None),
        ("archive", "icpc/2022/X-quartets/.timelimit", ChangeKind.ENTRY, "icpc/2022/X-quartets"),  # read
        ("archive", "icpc/2022/X-quartets/.git/.timelimit", ChangeKind.IGNORED, None),
        ("templates", "entry.html", ChangeKind.TEMPLATE, None),
        ("templates", "entry.html~", ChangeKind.IGNORED, None),
        ("static", "style.css", ChangeKind.STATIC, None),
        ("static", "fonts/x.woff2", ChangeKind.STATIC, None),
    ],
)
def test_classify(area: str, path: str, kind: ChangeKind, entry: str | None) -> None:
    change = classify(area, path, FOLDERS)
    assert (change.kind, change.entry) == (kind, entry)


@pytest.mark.parametrize(
    ("relative", "overrides", "kind", "path"),
    [
        ("overrides/templates/base.html", "overrides", ChangeKind.TEMPLATE, "base.html"),
        ("overrides/static/img/logo.svg", "overrides", ChangeKind.STATIC, "img/logo.svg"),
        ("look/templates/entry.html", "look", ChangeKind.TEMPLATE, "entry.html"),
        ("overrides/templates/base.html", "", ChangeKind.UNKNOWN, "overrides/templates/base.html"),  # new: rebuild
        ("overrides", "overrides", ChangeKind.UNKNOWN, "overrides"),  # the folder made or removed
        ("overrides/templates", "overrides", ChangeKind.UNKNOWN, "overrides/templates"),
        ("overrides/notes.txt", "overrides", ChangeKind.UNKNOWN, "overrides/notes.txt"),
        ("overrides/templates/base.html~", "overrides", ChangeKind.IGNORED, "overrides/templates/base.html~"),
        ("overrides-old/templates/base.html", "overrides", ChangeKind.UNKNOWN, "overrides-old/templates/base.html"),
    ],
)
def test_a_file_of_the_archive_s_overrides_is_a_template_or_static_file(
    relative: str, overrides: str, kind: ChangeKind, path: str
) -> None:
    change = classify("archive", relative, FOLDERS, overrides)
    assert (change.kind, change.path) == (kind, path)


def test_plan_coalesces_a_burst() -> None:
    changes = [
        classify("archive", "icpc/2022/X-quartets/solution.tex", FOLDERS),
        classify("archive", "icpc/2022/X-quartets/samples/1.in", FOLDERS),
        classify("templates", "entry.html", FOLDERS),
        classify("static", "style.css", FOLDERS),
    ]
    assert plan_rebuild(changes) == (False, {"icpc/2022/X-quartets"}, True, {"style.css"})
    assert plan_rebuild([classify("archive", "site.yaml", FOLDERS)])[0] is True


def test_new_problem_folders_are_found_on_disk_outermost_first(tmp_path: Path) -> None:
    from conftest import write_tree

    from site_builder.serve.server import new_problem_folders
    from site_builder.source.walk import Skip

    write_tree(
        tmp_path,
        {
            "t/A-known/solution.md": "Known.\n",
            "t/2024/B-new/solution.md": "New.\n",
            "t/2024/B-new/samples/1.in": "1\n",
            "t/P-package/problem.yaml": "name: P\n",
            "t/P-package/solution/solution.en.md": "A package's write-up, in a folder of its own.\n",
            "t/2024/C-empty/.keep": "",
            "Z-top/solution.md": "A problem folder at the archive's top: the problems track's.\n",
        },
    )
    pending = {
        ("archive", path)
        for path in (
            "t/2024",
            "t/2024/B-new",
            "t/2024/B-new/samples/1.in",
            "t/A-known/solution.md",
            "t/P-package/solution/solution.en.md",
            "t/2024/C-empty",
            "t/gone/solution.md",
            "Z-top/solution.md",
        )
    } | {("templates", "t/2024/D-template/solution.md")}
    found = new_problem_folders(tmp_path, frozenset({"t/A-known"}), pending)
    assert found == {"t/2024/B-new", "t/P-package", "Z-top"}
    assert classify("archive", "Y-new/problem.yaml", frozenset()).entry == "Y-new"  # before it is known
    folders = frozenset({"t/A-known"}) | found
    assert classify("archive", "t/2024/B-new", folders).entry == "t/2024/B-new"
    assert classify("archive", "t/2024/B-new/samples/1.in", folders).kind is ChangeKind.SAMPLE
    assert classify("archive", "t/2024", folders).kind is ChangeKind.UNKNOWN  # it may hold more
    # site.yaml's ``exclude``: no folder below one it names is a new entry
    skip = Skip(frozenset(), str(tmp_path), ("2024",))
    assert new_problem_folders(tmp_path, frozenset({"t/A-known"}), pending, skip) == {"t/P-package", "Z-top"}


def test_in_a_package_s_own_repository_every_change_is_its_one_entry_s(tmp_path: Path) -> None:
    """The archive is one problem folder (path ""): a solver saved in ``submissions/accepted/`` (which
    looks like a problem folder of its own) is a change to it, not a new entry; site.yaml is still the site's."""
    from conftest import write_tree

    from site_builder.serve.server import new_problem_folders

    write_tree(tmp_path, {"problem.yaml": "name: P\n", "submissions/accepted/solution.py": "print(1)\n"})
    pending = {("archive", "submissions/accepted/solution.py"), ("archive", "problem.yaml")}
    assert new_problem_folders(tmp_path, frozenset({""}), pending) == set()
    assert new_problem_folders(tmp_path, frozenset(), pending) == {"submissions/accepted"}  # as in an archive
    change = classify("archive", "submissions/accepted/solution.py", frozenset({""}))
    assert (change.kind, change.entry) == (ChangeKind.ENTRY, "")
    assert classify("archive", "data/sample/1.in", frozenset({""})) == Change(ChangeKind.SAMPLE, "data/sample/1.in", "")
    assert classify("archive", "site.yaml", frozenset({""})).kind is ChangeKind.CONFIG


def test_changes_in_the_output_the_cache_and_folders_a_build_wrote_are_none(tmp_path: Path) -> None:
    """An archive built in its own folder: the server's own writes into site/ are no edits."""
    from conftest import write_tree

    from site_builder.serve.server import ChangeCollector

    write_tree(tmp_path, {"old-site/.site-builder": "", "old-site/t/A-x/index.html": "", "t/A-x/solution.md": ""})
    collector = ChangeCollector({"archive": tmp_path}, excluded=(tmp_path / "site", tmp_path / "cache"))
    assert collector.locate(str(tmp_path / "site/t/A-x/index.html")) is None
    assert collector.locate(str(tmp_path / "site")) is None
    assert collector.locate(str(tmp_path / "cache/verify.json")) is None
    assert collector.locate(str(tmp_path / "old-site/t/A-x/index.html")) is None
    assert collector.locate(str(tmp_path / "t/A-x/solution.md")) == ("archive", "t/A-x/solution.md")
    assert collector.locate(str(tmp_path / "sitemap")) == ("archive", "sitemap")


def test_a_swap_file_or_the_builds_lock_is_no_change_and_does_not_stop_an_update(tmp_path: Path) -> None:
    """The flag that stops a dev-server update for the next save is raised by saves alone: not by an
    editor's swap file, nor by the lock file a build keeps beside its output folder (``.site.lock``)."""
    from watchdog.events import FileModifiedEvent, FileMovedEvent

    from site_builder.serve.server import ChangeCollector

    collector = ChangeCollector({"archive": tmp_path}, excluded=(tmp_path / "site", tmp_path / ".cache"))
    for path in (".site.lock", "t/A-x/.solution.tex.swp", "t/A-x/solution.tex~", "t/.hidden/solution.tex"):
        collector.on_any_event(FileModifiedEvent(str(tmp_path / path)))
    assert not collector.flag.is_set() and collector.take() == set()
    folder = tmp_path / "t/A-x"
    collector.on_any_event(FileMovedEvent(str(folder / "solution.tex.tmp~"), str(folder / "solution.tex")))
    assert collector.flag.is_set()
    assert ("archive", "t/A-x/solution.tex") in collector.take()


SHARED = {
    "c/A-first/solution.tex": "\\input{../B-second/defs}\nFirst: \\greeting.\n",
    "c/B-second/solution.tex": "\\input{defs}\nSecond: \\greeting.\n",
    "c/B-second/defs.tex": "\\newcommand{\\greeting}{hello}\n",
    "c/C-third/solution.tex": "\\input{../common/later}\nThird.\n",  # not there yet
    "c/D-fourth/solution.tex": "Fourth, on its own.\n",
}


def test_a_shared_file_in_another_problem_folder_updates_every_entry_that_inputs_it(tmp_path: Path) -> None:
    """A statement's \\input of a file in another problem folder: saving that file updates its own
    folder and every entry that reads it (their pages show what it defines); a file one of them
    inputs that was not there when it was read updates it when it is made."""
    from conftest import write_tree

    from site_builder.source.archive import load_archive

    write_tree(tmp_path / "archive", SHARED)
    loaded, _ = load_archive(tmp_path / "archive", "archive")
    sources = {s.path: s for s in loaded}
    folders = frozenset(sources)
    saved = classify("archive", "c/B-second/defs.tex", folders)
    assert (saved.kind, saved.entry) == (ChangeKind.ENTRY, "c/B-second")
    assert plan_rebuild([saved], sources) == (False, {"c/B-second", "c/A-first"}, False, set())
    made = classify("archive", "c/D-fourth/later.tex", folders)  # not what C inputs: ../common/later
    assert plan_rebuild([made], sources)[1] == {"c/D-fourth"}
    common = classify("archive", "c/common/later.tex", folders)
    assert common.kind is ChangeKind.UNKNOWN and plan_rebuild([common], sources)[0] is True  # outside every folder
    moved = {**SHARED, "c/C-third/solution.tex": "\\input{../D-fourth/later}\nThird.\n"}
    write_tree(tmp_path / "archive", moved)
    sources = {s.path: s for s in load_archive(tmp_path / "archive", "archive")[0]}
    assert plan_rebuild([made], sources)[1] == {"c/D-fourth", "c/C-third"}  # made now: C reads it
    assert plan_rebuild([classify("archive", "c/B-second/solution.tex", folders)], sources)[1] == {"c/B-second"}
