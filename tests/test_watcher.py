"""The archive's watcher (source/watcher.py, inotify.py) and the stamp taken with it (source/watched.py).

What matters: a build that stamps again only the folders the watcher names gets the stamp a build
that stats every file gets (``restamp`` equals ``load_stamp``), whatever happened in between; a build
without an answer from a watcher stamps every file; a watcher goes away by itself."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Container, Iterator
from pathlib import Path

import pytest
from conftest import ArchiveMaker, refuse_listing

from site_builder.arguments import watching
from site_builder.source import watched, watcher
from site_builder.source.inotify import OVERFLOW, Event, Inotify
from site_builder.source.stamp import Stamp, load_stamp, restamp, walk_stamp
from site_builder.source.walk import Skip
from site_builder.source.watcher import ENDED, Ended, Tree, serve
from site_builder.source.watchsocket import SOCKET

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


class Watched:
    """An archive, a watcher's tree of it in this process, and the stamp a build took after its answer."""

    def __init__(self, archive: Path, own: frozenset[str] = frozenset()) -> None:
        self.archive, self.root, self.skip = archive, str(archive), own
        self.notify = Inotify()
        self.tree = Tree(self.notify, self.root, own, 100_000)
        self.tree.start()
        self.since = self.asked([None, None])  # (lost: a new watcher) before the first stamp, as a build does
        self.stamp, self.parts = walk_stamp(archive, own, parts=True)

    def asked(self, since: list[object]) -> list[object]:
        self.tree.take(self.notify.read())
        answer = self.tree.answer(since)
        self.answer = answer
        return [answer["token"], answer["seq"]]

    def changed(self) -> list[str]:
        """The folders the watcher names, as a build asks (and the next question starts after them)."""
        self.since = self.asked(self.since)
        assert "lost" not in self.answer, self.answer
        return list(self.answer["changed"])

    def check(self) -> list[str]:
        """Restamp what the watcher names; it must equal a stamp of every file. The folders named."""
        changed = self.changed()
        stamp, self.parts = restamp(self.archive, self.skip, self.parts, watched._absolute(self.root, changed))
        whole = load_stamp(self.archive, self.skip)
        assert stamp.digest == whole.digest, changed
        assert dict(stamp.folders) == dict(whole.folders) and stamp.newest_ns == whole.newest_ns
        self.stamp = stamp
        return changed

    def close(self) -> None:
        self.notify.close()


@pytest.fixture
def archive(make_archive: ArchiveMaker) -> Path:
    return make_archive(
        {
            "site.yaml": "title: T\n",
            "icpc/2020/A-x/solution.md": "ab",
            "icpc/2020/A-x/data/sample/1.in": "1\n",
            "icpc/2020/B-y/solution.md": "cd",
            "icpc/2021/C-z/solution.md": "ef",
        }
    )


def test_each_kind_of_change_is_named_and_restamped_as_a_stamp_of_every_file(archive: Path, tmp_path: Path) -> None:
    w = Watched(archive)
    try:
        assert w.check() == []
        with open(archive / "icpc/2020/A-x/solution.md", "r+b") as f:  # in place: no new file, no rename
            f.write(b"XY")
        assert w.check() == ["icpc/2020/A-x"]
        os.chmod(archive / "icpc/2020/B-y/solution.md", 0o600)
        assert w.check() == ["icpc/2020/B-y"]
        os.utime(archive / "icpc/2021/C-z/solution.md", ns=(1, 1))
        assert w.check() == ["icpc/2021/C-z"]
        (archive / "icpc/2020/A-x/data/sample/2.in").write_text("2\n")
        (archive / "icpc/2020/A-x/data/sample/1.in").unlink()
        (archive / "icpc/2020/B-y/solution.md").rename(archive / "icpc/2021/C-z/moved.md")
        w.check()
        (archive / "icpc/2022/D-w/data/secret").mkdir(parents=True)
        (archive / "icpc/2022/D-w/data/secret/1.in").write_text("1\n")
        assert "icpc/2022/D-w/data/secret" in w.check()
        (archive / "icpc/2022/D-w/data/secret/1.in").write_text("12\n")  # in a folder watched since it was made
        assert w.check() == ["icpc/2022/D-w/data/secret"]
    finally:
        w.close()


def test_a_renamed_folder_s_watches_follow_it(archive: Path, tmp_path: Path) -> None:
    """inotify's watches stay on the folders, not the paths: after a rename, what changes below the new
    name is named by it (and the old name's changes are no longer reported for it)."""
    w = Watched(archive)
    try:
        (archive / "icpc/2020").rename(archive / "icpc/2019")
        w.check()
        (archive / "icpc/2019/A-x/data/sample/1.in").write_text("changed\n")
        assert w.check() == ["icpc/2019/A-x/data/sample"]
        outside = tmp_path / "outside"
        (archive / "icpc/2021").rename(outside)  # out of the archive: what happens there no longer counts
        w.check()
        (outside / "C-z/solution.md").write_text("gone")
        assert w.check() == []
        outside.rename(archive / "icpc/2021")  # and back, with the change made outside
        w.check()
        (archive / "icpc/2021/C-z/solution.md").write_text("back")
        assert w.check() == ["icpc/2021/C-z"]
    finally:
        w.close()


def test_folders_deleted_replaced_and_unhidden_are_restamped_as_a_whole(archive: Path) -> None:
    w = Watched(archive)
    try:
        shutil.rmtree(archive / "icpc/2020/A-x")
        w.check()
        (archive / "icpc/2020/A-x").write_text("a file where a folder was")
        w.check()
        (archive / "icpc/2020/A-x").unlink()
        assert w.check() == ["icpc/2020"]
        (archive / ".hidden/E-v").mkdir(parents=True)
        (archive / ".hidden/E-v/solution.md").write_text("x")
        assert w.check() == [""]  # the archive's folder lists it, but nothing below it is watched
        (archive / ".hidden/E-v/solution.md").write_text("xy")
        assert w.check() == []
        (archive / ".hidden").rename(archive / "visible")
        w.check()
        (archive / "visible/E-v/solution.md").write_text("xyz")
        assert w.check() == ["visible/E-v"]
    finally:
        w.close()


def test_a_folder_with_a_link_is_stamped_every_time_for_its_target_s_changes(archive: Path) -> None:
    """A link's stamp is its target's, which changes in another folder (or outside the archive)."""
    (archive / "icpc/2021/C-z/shared.md").symlink_to(archive / "icpc/2020/B-y/solution.md")
    w = Watched(archive)
    try:
        (archive / "icpc/2020/B-y/solution.md").write_text("longer than before")
        assert w.check() == ["icpc/2020/B-y"]  # the link's folder is not named: it is stamped anyway
    finally:
        w.close()


def test_the_output_and_cache_folders_are_not_watched(archive: Path) -> None:
    own = archive / "site"
    own.mkdir()
    w = Watched(archive, frozenset({str(own)}))
    try:
        (own / "sub").mkdir()
        (own / "sub/index.html").write_text("x")
        assert w.check() == []
        (archive / ".cache").mkdir()
        (archive / ".cache/x.json").write_text("{}")
        assert w.check() == [""]  # the folder's list of names changed; nothing in it is watched
        (archive / ".cache/x.json").write_text("{1}")
        assert w.check() == []
        shutil.rmtree(own)
        w.check()
        own.mkdir()  # made again while watched: still not watched
        (own / "index.html").write_text("y")
        assert w.check() == [""]
    finally:
        w.close()


def test_lost_events_or_another_watcher_s_token_mean_every_file_is_stamped(archive: Path) -> None:
    w = Watched(archive)
    try:
        for n in range(3):
            (archive / "icpc/2020/A-x/solution.md").write_text(f"before {n}")
            w.changed()
        since = w.since
        w.tree.take([Event(-1, OVERFLOW, "")])
        w.asked(since)
        assert w.answer.get("lost") is True
        w.asked(["another", 0])
        assert w.answer.get("lost") is True
        later = w.asked(w.asked([None, None]))  # from a token and seq after the loss, changes are named again
        (archive / "icpc/2021/C-z/solution.md").write_text("new")
        w.asked(later)
        assert w.answer.get("changed") == ["icpc/2021/C-z"]
        assert int(str(since[1])) >= 3
        for n in range(int(str(since[1])) + 5):  # more events after a loss than before it: still lost
            (archive / "icpc/2021/C-z/solution.md").write_text(f"again {n}")
            w.asked(later)
        w.asked(since)
        assert w.answer.get("lost") is True
    finally:
        w.close()


def test_a_folder_s_own_change_or_an_unwatched_one_s_does_not_hide_the_next(archive: Path, tmp_path: Path) -> None:
    w = Watched(archive)
    try:
        os.chmod(archive / "icpc/2020/A-x", 0o700)  # an event about a subfolder, in its parent
        w.check()
        (archive / "icpc/2020/A-x/solution.md").write_text("still watched")
        assert w.check() == ["icpc/2020/A-x"]
        (archive / "icpc/2021").rename(tmp_path / "away")
        w.check()
        (tmp_path / "away/C-z/solution.md").write_text("an event of a watch no longer in the archive")
        (archive / "icpc/2020/B-y/solution.md").write_text("and one after it")
        assert w.check() == ["icpc/2020/B-y"]
    finally:
        w.close()


class Refusing(Inotify):
    """inotify that refuses to watch one folder (gone meanwhile, or no watch left)."""

    def __init__(self, refused: str, errno_: int) -> None:
        super().__init__()
        self.refused, self.errno_ = refused, errno_

    def watch(self, folder: str) -> int:
        if folder == self.refused:
            raise OSError(self.errno_, os.strerror(self.errno_), folder)
        return super().watch(folder)


def test_a_folder_gone_before_it_is_watched_is_skipped_and_no_watch_left_ends_the_watcher(archive: Path) -> None:
    notify = Refusing(str(archive / "icpc/2021"), errno.ENOENT)  # (the first of its folders it would watch)
    try:
        tree = Tree(notify, str(archive), frozenset(), 100)
        tree.start()
        assert str(archive / "icpc/2020/A-x") in tree.wds and str(archive / "icpc/2021") not in tree.wds
    finally:
        notify.close()
    notify = Refusing(str(archive / "icpc/2020"), errno.ENOSPC)
    try:
        with pytest.raises(Ended) as ended:
            Tree(notify, str(archive), frozenset(), 100).start()
        assert ended.value.lasting and "no more watches" in str(ended.value)
    finally:
        notify.close()


def test_a_folder_that_cannot_be_listed_is_watched_and_the_others_still_are(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refuse_listing(monkeypatch, archive / "icpc/2021")  # (the first folder listed below icpc/)
    notify = Inotify()
    try:
        tree = Tree(notify, str(archive), frozenset(), 100)
        tree.start()
        assert str(archive / "icpc/2021") in tree.wds and str(archive / "icpc/2020/A-x") in tree.wds
    finally:
        notify.close()


def test_a_watcher_may_watch_as_many_folders_as_it_is_allowed_and_no_link(archive: Path) -> None:
    (archive / "icpc/2020/loop").symlink_to(archive)  # (followed, it would never end)
    folders = [archive, *(p for p in archive.rglob("*") if p.is_dir() and not p.is_symlink())]
    notify = Inotify()
    try:
        tree = Tree(notify, str(archive), frozenset(), len(folders))
        tree.start()
        assert sorted(tree.wds) == sorted(map(str, folders))
    finally:
        notify.close()


def wait_for(check: object, seconds: float = 10.0) -> None:
    ends = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < ends, "timed out"
        time.sleep(0.05)


def watcher_running(cache: Path) -> bool:
    return watcher_pid(cache) is not None


def processes() -> Iterator[tuple[int, list[bytes], str, int]]:
    """Each process: its id, arguments, state and parent's id."""
    for proc in Path("/proc").iterdir():
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
            state, parent = (proc / "stat").read_text().rpartition(")")[2].split()[:2]
            yield int(proc.name), args, state, int(parent)
        except (OSError, ValueError):
            continue


def watcher_pid(cache: Path) -> int | None:
    """The watcher for ``cache`` that runs (not a zombie), if one does."""
    socket = os.fsencode(cache / SOCKET)
    return next((pid for pid, args, state, _ in processes() if socket in args and state != "Z"), None)


def zombie_children() -> list[int]:
    return [pid for pid, _, state, parent in processes() if parent == os.getpid() and state == "Z"]


def accepts(path: Path) -> bool:
    """Whether something listens on the socket ``path`` (a connection made and closed at once)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


class Served:
    """A watcher serving in a thread of this process (as its own process does: ``watcher.serve``)."""

    def __init__(self, archive: Path, cache: Path, own: frozenset[str] = frozenset()) -> None:
        self.cache, self.socket = cache, cache / SOCKET
        self.ended: list[BaseException | None] = []
        self.thread = threading.Thread(target=self._serve, args=(str(archive), str(self.socket), own), daemon=True)
        self.thread.start()
        wait_for(lambda: bool(self.ended) or accepts(self.socket))  # (its socket is there before it listens)

    def _serve(self, root: str, path: str, own: frozenset[str]) -> None:
        try:
            serve(root, path, own)
            self.ended.append(None)
        except BaseException as e:  # (Ended, or a test's failure: the test looks)
            self.ended.append(e)

    def stop(self) -> None:
        if self.thread.is_alive():
            assert watched.ask(self.cache, {"stop": True}) is not None
            self.thread.join(10)
        assert not self.thread.is_alive() and not self.socket.exists()


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir()
    return folder


def stamp_of(archive: Path, cache: Path, skip: Container[str] = frozenset()) -> Stamp:
    """The stamp with the watcher, checked against a stamp of every file; no watcher started."""
    found = watched.watched_stamp(archive, skip, cache, frozenset(), False)
    whole = load_stamp(archive, skip)
    assert found.digest == whole.digest and dict(found.folders) == dict(whole.folders)
    assert found.newest_ns == whole.newest_ns and found.skip is skip
    return found


@pytest.mark.parametrize("rebase_from", [0.0, 1.0])  # each stamp kept whole, or as differences from the first
def test_a_build_stamps_with_a_watcher_s_answers_as_it_would_without(
    archive: Path, cache: Path, rebase_from: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watched, "REBASE_FROM", rebase_from)
    served = Served(archive, cache)
    try:
        first = stamp_of(archive, cache).digest  # a new watcher: every file stamped, and each folder's part kept
        assert stamp_of(archive, cache).digest == first  # nothing changed: the kept stamp, its folders read if asked
        (archive / "icpc/2020/A-x/solution.md").write_text("changed")
        assert stamp_of(archive, cache).digest != first
        (archive / "icpc/2020/A-x/solution.md").write_text("again")
        stamp_of(archive, cache)
        shutil.rmtree(archive / "icpc/2021")
        stamp_of(archive, cache)
        (archive / "icpc/2020/B-y/solution.md").write_text("an edit after a folder went: it stays gone")
        stamp_of(archive, cache)
        (archive / "icpc/2021/C-z").mkdir(parents=True)
        (archive / "icpc/2021/C-z/solution.md").write_text("back")
        stamp_of(archive, cache)
        assert len(list((cache / "stamp").rglob("*.pickle"))) == (3 if rebase_from else 2)  # no record left behind
    finally:
        served.stop()
    stamp_of(archive, cache)  # no watcher: every file


def test_the_kept_parts_are_for_the_folders_skipped_when_they_were_taken(archive: Path, cache: Path) -> None:
    """``site.yaml``'s ``exclude``, or other output folders, change what the stamp takes of the archive."""
    (archive / "site/sub").mkdir(parents=True)
    (archive / "site/sub/index.html").write_text("x")
    served = Served(archive, cache)
    try:
        own = frozenset({str(archive / "site")})
        for skip in (own, frozenset(), own, Skip(own, str(archive)), Skip(own, str(archive), ("2021",))):
            stamp_of(archive, cache, skip)
            stamp_of(archive, cache, skip)
    finally:
        served.stop()


def test_a_new_watcher_s_first_answer_means_every_file_is_stamped(archive: Path, cache: Path) -> None:
    """Between two watchers, nothing watches: what changed then is only found by stamping every file."""
    served = Served(archive, cache)
    stamp_of(archive, cache)
    first = stamp_of(archive, cache).digest
    served.stop()
    (archive / "icpc/2020/A-x/solution.md").write_text("while no watcher ran")
    served = Served(archive, cache)
    try:
        assert stamp_of(archive, cache).digest != first
    finally:
        served.stop()


def test_a_link_s_target_outside_the_archive_is_stamped_every_time(archive: Path, cache: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside.md"
    target.write_text("one")
    (archive / "icpc/2021/C-z/linked.md").symlink_to(target)
    served = Served(archive, cache)
    try:
        stamp_of(archive, cache)
        first = stamp_of(archive, cache).digest
        target.write_text("two, longer")  # no event in the archive
        assert stamp_of(archive, cache).digest != first
    finally:
        served.stop()


def test_kept_parts_that_are_gone_mean_a_stamp_of_every_file(archive: Path, cache: Path) -> None:
    """Another build may have replaced them; a stamp's folders are then taken from the archive."""
    (archive / "site").mkdir()
    (archive / "site/index.html").write_text("x")
    skip = frozenset({str(archive / "site")})
    served = Served(archive, cache)
    try:
        stamp_of(archive, cache, skip)
        stamp_of(archive, cache, skip)
        for kept in (cache / "stamp").rglob(watched.PARTS + "*"):
            kept.unlink()
        stamp_of(archive, cache, skip)  # nothing changed: the kept digest, the folders from the archive
        (archive / "icpc/2020/A-x/solution.md").write_text("changed")
        stamp_of(archive, cache, skip)
    finally:
        served.stop()


def test_a_build_without_a_watcher_starts_one_for_its_archive_and_own_folders(
    archive: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(watched, "_spawn", started.append)
    own = frozenset({str(cache), str(archive / "site")})
    stamp_of(archive, cache)  # (not asked to start one)
    watched.watched_stamp(archive, frozenset(), cache, own, True)
    assert len(started) == 1 and started[0][0] == sys.executable
    assert started[0][-4:] == [str(archive), str(cache / SOCKET), *sorted(own)]


def test_a_watcher_answers_ends_when_asked_and_ignores_what_is_no_question(archive: Path, cache: Path) -> None:
    served = Served(archive, cache)
    try:
        first = watched.ask(cache, {"since": None})
        assert first is not None and first["lost"] is True and first["archive"] == str(archive)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(served.socket))
        conn.sendall(b"not json\n")
        assert conn.recv(100) == b""  # no answer, and the watcher goes on
        conn.close()
        (archive / "icpc/2020/A-x/solution.md").write_text("changed")
        answer = watched.ask(cache, {"since": [first["token"], first["seq"]]})
        assert answer is not None and answer["changed"] == ["icpc/2020/A-x"]
        second = Served(archive, cache)  # a second watcher on the same socket: it ends at once
        second.thread.join(10)
        assert second.ended == [None] and watched.ask(cache, {"since": None}) is not None
    finally:
        served.stop()
    assert served.ended == [None]


def test_a_watcher_takes_a_question_in_pieces_and_outlives_one_it_cannot_answer(
    archive: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watcher, "CHECK_SECONDS", 0.05)  # (and it looks often whether to end: it need not)
    served = Served(archive, cache)
    try:
        assert served.socket.stat().st_mode & 0o777 == 0o600
        for pieces in ([b"[]\n"], [b'{"since"', b": null}\n"]):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(served.socket))
                for piece in pieces:
                    conn.sendall(piece)
                    time.sleep(0.1)
                answer = conn.recv(1 << 16)
            assert (answer == b"{}\n") if pieces == [b"[]\n"] else json.loads(answer)["lost"] is True
        time.sleep(0.3)
        assert served.thread.is_alive() and watched.ask(cache, {"since": None}) is not None
    finally:
        served.stop()


def test_a_watcher_whose_socket_is_replaced_ends(archive: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watcher, "CHECK_SECONDS", 0.05)
    served = Served(archive, cache)
    served.socket.unlink()
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.bind(str(served.socket))  # another's, at its path
    served.thread.join(10)
    assert not served.thread.is_alive() and served.socket.exists()  # (the other's is left as it is)
    other.close()


@pytest.mark.parametrize("how", ["socket removed", "idle", "archive deleted"])
def test_a_watcher_ends_by_itself(how: str, archive: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watcher, "CHECK_SECONDS", 0.05)
    monkeypatch.setattr(watcher, "IDLE_SECONDS", 0.3 if how == "idle" else 60.0)
    served = Served(archive, cache)
    if how == "socket removed":
        served.socket.unlink()
    elif how == "archive deleted":
        shutil.rmtree(archive)
    served.thread.join(10)
    assert not served.thread.is_alive()
    assert not served.socket.exists()
    if how == "archive deleted":
        assert isinstance(served.ended[0], Ended) and not served.ended[0].lasting
    else:
        assert served.ended == [None]


class FakeWatcher:
    """A socket that answers each question with ``answer`` (None: never)."""

    def __init__(self, cache: Path, answer: bytes | None) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(cache / SOCKET))
        self.listener.listen(1)
        self.answer, self.held = answer, list[socket.socket]()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        self.held.append(conn)
        conn.recv(1 << 16)  # the question (unread, closing would reset the connection)
        if self.answer is not None:
            for at in range(0, len(self.answer), 1 << 16):
                conn.sendall(self.answer[at : at + (1 << 16)])
            conn.close()


@pytest.mark.parametrize(
    ("sent", "taken"),
    [
        (None, False),
        (b"[]", False),
        (b'{"seq": "1"}', False),
        (b'{"seq": 1, "changed": ["' + b"x" * (3 << 20) + b'"]}', True),  # three MiB, in pieces
    ],
)
def test_an_answer_is_taken_whole_and_only_when_it_is_one(
    sent: bytes | None, taken: bool, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watched, "ANSWER_SECONDS", 0.3)
    fake = FakeWatcher(cache, sent)  # (kept: a watcher that does not answer holds the connection open)
    started = time.monotonic()
    answer = watched.ask(cache, {"since": None})
    assert (answer is not None) == taken and time.monotonic() - started < 5
    if taken:
        assert answer is not None and len(answer["changed"][0]) == 3 << 20
    fake.listener.close()


def test_a_watcher_for_other_folders_is_stopped_and_not_believed(archive: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    watched.start_watcher(cache, str(archive), frozenset({str(tmp_path / "elsewhere")}))
    wait_for((cache / SOCKET).exists)
    found = watched.watched_stamp(archive, frozenset(), cache, frozenset(), False)
    assert found.digest == load_stamp(archive).digest
    wait_for(lambda: not (cache / SOCKET).exists())  # told to stop


def test_a_watcher_ends_when_its_socket_is_removed(archive: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    watched.start_watcher(cache, str(archive), frozenset())
    wait_for((cache / SOCKET).exists)
    answer = watched.ask(cache, {"since": None})
    assert answer is not None and answer["lost"] is True
    pid = watcher_pid(cache)
    assert pid is not None
    assert os.getsid(pid) != os.getsid(0)  # a session of its own: a terminal's Ctrl-C is not for it
    assert all(os.readlink(f"/proc/{pid}/fd/{fd}") == os.devnull for fd in (0, 1, 2))  # no terminal, no pipe held
    assert not zombie_children()  # the shell that started it is reaped
    assert next(parent for found, _, _, parent in processes() if found == pid) != os.getpid()  # none to reap
    (cache / SOCKET).unlink()
    wait_for(lambda: not watcher_running(cache), 15)


@pytest.mark.parametrize(
    ("said", "terminal", "ci", "expected"),
    [
        ("0", True, "", ""),
        ("off", True, "", ""),
        ("1", False, "true", "start"),
        ("", True, "", "start"),
        ("", True, "true", "ask"),
        ("", False, "", "ask"),
    ],
)
def test_a_watcher_is_started_by_a_build_in_a_terminal_outside_ci_or_when_asked(
    said: str, terminal: bool, ci: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SITE_BUILDER_WATCH", said)
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: terminal)
    assert watching() == expected


def test_a_watcher_with_too_many_folders_ends_and_none_is_started_for_a_day(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notify = Inotify()
    try:
        with pytest.raises(Ended) as ended:
            Tree(notify, str(archive), frozenset(), 3).start()  # the archive has more than three folders
        assert ended.value.lasting
    finally:
        notify.close()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / (SOCKET + ENDED)).write_text("more than 3 folders\n")
    started: list[object] = []
    monkeypatch.setattr(watched, "_spawn", started.append)
    watched.start_watcher(cache, str(archive), frozenset())
    assert started == []
    old = time.time() - watched.GIVE_UP_SECONDS - 60
    os.utime(cache / (SOCKET + ENDED), (old, old))
    watched.start_watcher(cache, str(archive), frozenset())
    assert len(started) == 1


def test_a_watcher_that_cannot_watch_every_folder_says_why_beside_its_socket(
    archive: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watcher.inotify, "watch_limit", lambda: 8)  # two folders each
    served = Served(archive, cache)
    served.thread.join(10)
    assert isinstance(served.ended[0], Ended) and served.ended[0].lasting
    assert "more than 2 folders" in (cache / (SOCKET + ENDED)).read_text()
    assert not served.socket.exists()


def test_no_watcher_is_asked_or_started_where_its_socket_s_path_is_too_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket's address holds about 100 bytes: a longer path is no socket, and a watcher started for it
    would only fail."""
    started: list[object] = []
    monkeypatch.setattr(watched, "_spawn", started.append)
    short = tmp_path / "c"
    short.mkdir()
    watched.start_watcher(short, str(tmp_path), frozenset())
    cache = tmp_path / ("c" * 120)
    cache.mkdir()
    watched.start_watcher(cache, str(tmp_path), frozenset())
    assert watched.ask(cache, {"since": None}) is None
    assert len(started) == 1  # the short one's
