"""The archive's stamp (source/stamping.py ``load_stamp``): what ``stat`` says of every file the build reads, as
one digest, and the newest time of any of them. A build that finds the stamp it recorded reads nothing: so
no file the build reads may change without changing the stamp, whatever lies beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ArchiveMaker, refuse_listing

from site_builder.source import stamp as stamping
from site_builder.source.archive import load_archive
from site_builder.source.stamp import load_stamp, restamp, walk_stamp
from site_builder.source.walk import BUILDER_MARKER

MAY_FORK, RESULT = stamping._may_fork, stamping._Apart.result  # (the fixture below decides, in every test)


@pytest.fixture(autouse=True, params=["one process", "two processes"])
def processes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test with the walk in one process, and shared with a second from the archive's top, whose
    parts must come back (the first process stamping them itself would hide a second that fails)."""
    if request.param == "two processes":
        monkeypatch.setattr(stamping, "_SHARED_FROM", 2)
        monkeypatch.setattr(stamping, "_may_fork", lambda: True)

        def returned(apart: stamping._Apart) -> dict[str, tuple[str, int]] | None:
            found = RESULT(apart)
            assert found is not None, "the second process failed"
            return found

        monkeypatch.setattr(stamping._Apart, "result", returned)
    else:
        monkeypatch.setattr(stamping, "_may_fork", lambda: False)
    return str(request.param)


def changes_with(archive: Path, name: str, skip: frozenset[str] = frozenset()) -> bool:
    """Whether rewriting ``name`` (with as many bytes) changes the stamp."""
    before = load_stamp(archive, skip).digest
    path = archive / name
    path.write_bytes(path.read_bytes()[::-1])
    return load_stamp(archive, skip).digest != before


def test_a_file_after_an_unread_one_still_counts(make_archive: ArchiveMaker) -> None:
    """``.git`` and other names no build reads sort first in their folder: the files after them count."""
    archive = make_archive({".git/HEAD": "ref", ".hidden": "x", "t/A-x/.swp~": "x", "t/A-x/solution.md": "ab"})
    assert changes_with(archive, "t/A-x/solution.md")
    assert not changes_with(archive, ".git/HEAD") and not changes_with(archive, "t/A-x/.swp~")


def test_a_link_to_nowhere_is_stamped_and_the_files_after_it_still_count(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/b.md": "ab"})
    (archive / "t/A-x/a-gone").symlink_to(archive.parent / "nowhere")
    first = load_stamp(archive).digest
    assert changes_with(archive, "t/A-x/b.md")
    assert load_stamp(archive).digest != first


def test_a_folder_link_is_not_entered_so_a_loop_ends(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/a.md": "ab"})
    (archive / "t/A-x/loop").symlink_to(archive / "t")  # a walk that followed it would never end
    (archive / "t/outside").symlink_to(archive.parent)
    stamp = load_stamp(archive)
    assert sorted(stamp.listing) == sorted(str(archive / p) for p in ("", "t", "t/A-x"))


def test_a_folder_that_cannot_be_listed_is_stamped_and_the_others_still_count(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = make_archive({"a/x.md": "ab", "b/y.md": "ab", "c/z.md": "ab"})
    scandir = refuse_listing(monkeypatch, archive / "b")
    first = load_stamp(archive)
    assert str(archive / "b") not in first.listing
    assert changes_with(archive, "a/x.md") and changes_with(archive, "c/z.md")
    refused = load_stamp(archive).digest
    monkeypatch.setattr(os, "scandir", scandir)
    assert load_stamp(archive).digest != refused  # listed again: its files count again


def test_the_newest_time_is_the_latest_of_every_file_s_times(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"a.md": "a", "b.md": "b", "c.md": "c"})
    future = os.stat(archive / "a.md").st_ctime_ns + 3_600_000_000_000
    os.utime(archive / "a.md", ns=(future, future))  # the first file's modification time, an hour ahead
    assert load_stamp(archive).newest_ns == future
    for name in ("a.md", "b.md", "c.md"):
        os.utime(archive / name, ns=(0, 0))  # all modified long ago: their change times, now, are the newest
    times = [os.stat(archive / name).st_ctime_ns for name in ("a.md", "b.md", "c.md")]
    assert load_stamp(archive).newest_ns == max(times)


def test_a_name_that_is_not_utf8_is_stamped(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/a.md": "ab", "u/B-y/b.md": "ab"})
    os.mkdir(os.fsencode(str(archive / "t")) + b"/caf\xe9")  # a folder's name: in the digest of every folder's part
    odd = os.fsencode(str(archive / "t/A-x")) + b"/caf\xe9.in"
    with open(odd, "wb") as file:
        file.write(b"ab")
    first = load_stamp(archive).digest
    with open(odd, "wb") as file:
        file.write(b"ba")
    os.utime(odd, ns=(1, 1))
    assert load_stamp(archive).digest != first


def test_the_folders_a_build_skips_or_wrote_are_not_stamped_and_the_others_still_count(
    make_archive: ArchiveMaker,
) -> None:
    """The output and cache folders (``skip``) and a folder holding a build's marker (an old site inside the
    archive): nothing in them counts, and the folders walked after them still do (the walk takes the
    last listed first: ``z``, then ``site`` and ``old-site``, then ``a``)."""
    archive = make_archive(
        {"a/A-x/solution.md": "ab", "old-site/index.html": "ab", "site/index.html": "ab", "z/Z-x/solution.md": "ab"},
    )
    (archive / "old-site" / BUILDER_MARKER).write_text("a site\n")
    skip = frozenset({str(archive / "site")})
    assert not changes_with(archive, "site/index.html", skip) and not changes_with(archive, "old-site/index.html", skip)
    assert changes_with(archive, "a/A-x/solution.md", skip) and changes_with(archive, "z/Z-x/solution.md", skip)
    # what the stamp skipped, the archive's load skips too, from the stamp's listing
    stamp = load_stamp(archive, skip)
    (archive / "site/A-y").mkdir()
    (archive / "site/A-y/solution.md").write_text("# Y\n")
    sources, _ = load_archive(archive, "archive", {}, None, None, stamp.listing, stamp.skip)
    assert sorted(s.path for s in sources) == ["a/A-x", "z/Z-x"]


ENTRIES = {
    f"{track}/{year}/{label}-x/solution.md": label for track in "abcde" for year in (2020, 2021) for label in "AB"
}


def test_two_processes_stamp_as_one_does_and_the_archive_loads_whole(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    archive = make_archive(ENTRIES)
    monkeypatch.setattr(stamping, "_may_fork", lambda: False)
    alone = load_stamp(archive)
    monkeypatch.setattr(stamping, "_may_fork", lambda: True)
    monkeypatch.setattr(stamping, "_SHARED_FROM", 2)
    shared = load_stamp(archive)
    assert (shared.digest, shared.newest_ns, shared.folders) == (alone.digest, alone.newest_ns, alone.folders)
    assert len(shared.listing) < len(alone.listing) == len(alone.folders)  # the second process's are listed again
    sources, _ = load_archive(archive, "archive", {}, None, None, shared.listing, shared.skip)
    assert len(sources) == len(ENTRIES)


def test_when_the_second_process_fails_the_first_stamps_its_folders(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    archive = make_archive(ENTRIES)
    whole = load_stamp(archive).digest
    monkeypatch.setattr(stamping, "_SHARED_FROM", 2)
    monkeypatch.setattr(stamping, "_may_fork", lambda: True)
    parent, below_all = os.getpid(), stamping._StampWalk.below_all

    def failing(self: stamping._StampWalk, tops: list[str]) -> dict[str, tuple[str, int]]:
        if os.getpid() != parent:
            raise RuntimeError("the forked copy fails: it ends with status 1")
        return below_all(self, tops)

    monkeypatch.setattr(stamping._StampWalk, "below_all", failing)
    monkeypatch.setattr(stamping._Apart, "result", RESULT)  # its failure is the point here
    assert load_stamp(archive).digest == whole


def test_a_second_process_stamps_where_there_is_a_second_cpu_and_no_other_thread(
    monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    threads = 1
    monkeypatch.setattr(stamping.threading, "active_count", lambda: threads)
    monkeypatch.setattr(stamping.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert MAY_FORK()
    monkeypatch.setattr(stamping.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert not MAY_FORK()
    monkeypatch.delattr(stamping.os, "sched_getaffinity", raising=False)  # macOS: every CPU the machine has
    for cpus, expected in ((2, True), (1, False), (None, False)):
        monkeypatch.setattr(stamping.os, "cpu_count", lambda cpus=cpus: cpus)
        assert MAY_FORK() is expected
    threads = 2
    assert not MAY_FORK()  # a forked copy of a process with threads may find a lock held forever
    monkeypatch.delattr(stamping.os, "fork")
    threads = 1
    assert not MAY_FORK()


@pytest.mark.parametrize("failing", ["pipe", "fork"])
def test_when_no_second_process_starts_the_first_stamps_every_folder(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, processes: str, failing: str
) -> None:
    archive = make_archive(ENTRIES)
    whole = load_stamp(archive).digest
    monkeypatch.setattr(stamping, "_SHARED_FROM", 2)
    monkeypatch.setattr(stamping, "_may_fork", lambda: True)

    def refused() -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(stamping.os, failing, refused)
    assert load_stamp(archive).digest == whole


def test_each_folder_s_part_names_its_subfolders_and_whether_it_is_stamped_every_time(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parts a watcher's stamps start from (``walk_stamp(parts=True)``), alike from one process or two:
    a folder holding a link, or one that cannot be listed, is stamped every time (``restamp``)."""
    archive = make_archive({"a/x.md": "ab", "a/sub/y.md": "cd", "b/z.md": "ef", "c/w.md": "gh", "d/v.md": "ij"})
    (archive / "c/link.md").symlink_to(archive / "a/x.md")
    refuse_listing(monkeypatch, archive / "d")
    stamp, parts = walk_stamp(archive, parts=True)
    assert stamp.digest == load_stamp(archive).digest and set(parts) == set(stamp.folders)
    assert {folder: (digest, latest) for folder, (digest, latest, _, _) in parts.items()} == dict(stamp.folders)
    below = {folder[len(str(archive)) :]: part[2] for folder, part in parts.items()}
    assert below == {
        "": tuple(str(archive / name) for name in "abcd"),
        "/a": (str(archive / "a/sub"),),
        "/a/sub": (),
        "/b": (),
        "/c": (),
        "/d": (),
    }
    assert sorted(folder for folder, part in parts.items() if part[3]) == [str(archive / "c"), str(archive / "d")]
    assert walk_stamp(archive)[1] == {}  # (none asked for)


def test_a_stamp_again_from_no_parts_is_a_stamp_of_every_file(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"a/x.md": "ab", "a/sub/y.md": "cd", "b/z.md": "ef"})
    stamp, parts = restamp(archive, frozenset(), {}, set())
    assert stamp.digest == load_stamp(archive).digest and parts == walk_stamp(archive, parts=True)[1]
