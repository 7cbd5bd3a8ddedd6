"""Problem folders taken from the last load: only settled ones are remembered, and any change shows."""

from __future__ import annotations

import hashlib
import os
import time
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import ArchiveMaker

from site_builder.source.archive import load_archive
from site_builder.source.snapshot import SETTLED_NS, Snapshot, settled


def test_a_folder_is_remembered_only_when_its_files_have_settled(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/solution.md": "# X\n", "t/A-x/samples/1.in": "1\n"})
    folder = str(archive / "t/A-x")
    now = time.time_ns()
    # Written a moment ago: a second write within one clock tick could keep every stat the same.
    just_written = Snapshot(now - SETTLED_NS)
    load_archive(archive, "archive", {}, None, just_written)
    assert just_written.seen == {} and not just_written.changed
    # As if the build ran long after the last write: remembered, and taken as it was next time.
    settled = Snapshot(now + SETTLED_NS)
    [first], _ = load_archive(archive, "archive", {}, None, settled)
    assert list(settled.seen) == [folder] and settled.changed
    again = Snapshot(now + SETTLED_NS, settled.seen)
    [second], _ = load_archive(archive, "archive", {}, None, again)
    assert second is first and not again.changed
    # A changed file, an added one and a removed folder each show.
    (archive / "t/A-x/solution.md").write_text("# Y\n")
    [changed], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, settled.seen))
    text = changed.file("solution.md")
    assert changed is not first and text is not None and text.text == "# Y\n"
    (archive / "t/A-x/samples/1.ans").write_text("2\n")
    [added], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, settled.seen))
    assert added.samples[0].answer == "2\n"
    gone = Snapshot(now + SETTLED_NS, {**settled.seen, str(archive / "t/B-gone"): settled.seen[folder]})
    load_archive(archive, "archive", {}, None, gone)
    assert gone.changed and str(archive / "t/B-gone") not in gone.seen


def test_test_data_is_hashed_in_pieces_and_hashed_again_only_when_it_changed(
    make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package's data is never read whole; a changed statement does not hash its data again."""
    from site_builder.source import files

    secret = b"7 8\n" * 100_000
    archive = make_archive(
        {
            "t/p/problem.yaml": "name: P\n",
            "t/p/statement/problem.en.md": "Add.\n",
            "t/p/data/sample/1.in": "1 2\n",
            "t/p/data/sample/1.ans": "3\n",
            "t/p/data/secret/1.in": secret,
            "t/p/data/secret/2.in": b"\xff\x00 binary\n",
            "t/p/data/secret/testdata.yaml": "points: 5\n",
        }
    )
    real_read, real_digest = files._read_bytes, files._digest_file
    hashed: list[str] = []

    def read(path: str, size: int) -> bytes:
        assert "/data/secret/" not in path or path.endswith(".yaml"), f"{path} was read whole"
        return real_read(path, size)

    def digest(path: str) -> tuple[str, int]:
        hashed.append(path.rsplit("/", 1)[-1])
        return real_digest(path)

    monkeypatch.setattr(files, "_read_bytes", read)
    monkeypatch.setattr(files, "_digest_file", digest)
    now = time.time_ns()
    first = Snapshot(now + SETTLED_NS)
    [entry], _ = load_archive(archive, "archive", {}, None, first)
    data = entry.file("data/secret/1.in")
    assert data is not None and data.text is None and data.size == len(secret)
    assert data.digest == hashlib.sha1(secret).hexdigest() and data.binary == files.TEST_DATA
    assert entry.samples[0].input == "1 2\n"  # samples are read, to be shown and run
    assert entry.file("data/secret/testdata.yaml").text == "points: 5\n"  # type: ignore[union-attr]
    assert sorted(hashed) == ["1.in", "2.in"]
    # The statement changes: the folder is loaded again, its unchanged data is not hashed again.
    hashed.clear()
    (archive / "t/p/statement/problem.en.md").write_text("Add two numbers.\n")
    [again], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, first.seen))
    assert again.file("data/secret/1.in") == data and hashed == []
    # A site links the data (publish_data: all), then goes (rm -r site): the change time moved twice,
    # the data did not. The folder is loaded again (its files' stat changed), its data not hashed.
    os.link(archive / "t/p/data/secret/1.in", archive.parent / "published.in")
    (archive.parent / "published.in").unlink()
    [linked], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, first.seen))
    assert linked.file("data/secret/1.in") == data and hashed == []
    # A rewritten data file is hashed again, alone.
    (archive / "t/p/data/secret/1.in").write_bytes(b"1 1\n")
    [rewritten], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, first.seen))
    changed = rewritten.file("data/secret/1.in")
    assert hashed == ["1.in"] and changed is not None and changed.digest == hashlib.sha1(b"1 1\n").hexdigest()


def stat(mtime_ns: int, ctime_ns: int) -> Any:
    return SimpleNamespace(st_mtime_ns=mtime_ns, st_ctime_ns=ctime_ns)


def test_a_file_has_settled_only_when_both_its_times_are_before_the_line() -> None:
    line = 10 * SETTLED_NS
    assert settled(stat(line - 1, line - 1), line)
    assert not settled(stat(line, line - 5), line) and not settled(stat(line - 5, line), line)


def test_a_folder_taken_from_the_snapshot_is_kept_for_the_next_build_and_a_reloaded_one_is_saved() -> None:
    line = 10 * SETTLED_NS
    source, reloaded = object(), object()
    snapshot = Snapshot(line, {"a": (("old",), source), "b": (("b",), source)})  # type: ignore[dict-item]
    assert snapshot.get("b", ("b",)) is source
    # "a" changed since: loaded again, remembered with its new signature, in place of the old one
    assert snapshot.get("a", ("new",)) is None
    snapshot.remember("a", ("new",), [stat(line - 1, line - 1)], reloaded)  # type: ignore[arg-type]
    assert snapshot.changed  # as many folders as before, but one of them new: saved again
    following = Snapshot(line, snapshot.seen)
    assert following.get("a", ("new",)) is reloaded and following.get("b", ("b",)) is source
    assert not following.changed
