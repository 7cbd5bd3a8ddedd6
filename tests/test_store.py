"""The caches' stores (store.py): what is put is got back, what cannot be read is missing (and said
once), and nothing is ever half written."""

from __future__ import annotations

import errno
import json
import os
import pickle
import sqlite3
import threading
from pathlib import Path

import pytest

from site_builder import store
from site_builder.store import JsonStore, PickleStore, SqliteStore, library_versions, write_atomic, write_json

KEY = "ab" + "c" * 62


def test_a_pickled_value_comes_back_and_is_kept_by_the_first_two_characters_of_its_key(tmp_path: Path) -> None:
    kept = PickleStore(tmp_path)
    assert kept.get(KEY) is None and not kept.has(KEY)
    kept.put(KEY, {"a": (1, 2)})
    assert kept.get(KEY) == {"a": (1, 2)} and kept.has(KEY)
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] == [f"ab/{KEY}.pickle"]
    kept.put_pickled("cd" + KEY, pickle.dumps([3]))
    assert PickleStore(tmp_path).get("cd" + KEY) == [3]


def test_values_are_kept_compressed_and_pickles_of_older_versions_still_read(tmp_path: Path) -> None:
    kept = PickleStore(tmp_path)
    html = '<span class="k">int</span> <span class="n">x</span>;\n' * 2000  # as highlighted code is
    kept.put(KEY, html)
    stored = (tmp_path / "ab" / f"{KEY}.pickle").read_bytes()
    assert stored.startswith(store.ZSTD_MAGIC) and len(stored) * 20 < len(html)
    assert kept.get(KEY) == html
    (tmp_path / "ab" / f"{KEY}.pickle").write_bytes(pickle.dumps(["written", "plain"]))  # before compression
    assert kept.get(KEY) == ["written", "plain"]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not a pickle",
        store.ZSTD_MAGIC + b"not a frame",
        store.packed(pickle.dumps("cut short"))[:-3],
        pickle.dumps(1)[:-2],
        b"\x80\x05cnowhere\nNothing\n.",  # a class of a module since moved
        b"\x80\x05csite_builder.model\nNoSuchClass\n.",  # a class since renamed
    ],
)
def test_a_value_that_cannot_be_read_back_is_missing(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / f"{KEY}.pickle").write_bytes(data)
    assert PickleStore(tmp_path).get(KEY) is None


def test_keep_only_deletes_every_other_value(tmp_path: Path) -> None:
    kept = PickleStore(tmp_path)
    keys = [f"{n:02}" + "x" * 10 for n in range(4)]
    for key in keys:
        kept.put(key, key)
    (tmp_path / "notes.txt").write_text("not a value")
    kept.keep_only({keys[0], keys[2]})
    assert [k for k in keys if kept.has(k)] == [keys[0], keys[2]]
    assert (tmp_path / "notes.txt").is_file()


def test_a_bucketed_dict_is_used_whole_and_only_with_its_tag(tmp_path: Path) -> None:
    kept = PickleStore(tmp_path)
    assert kept.get_buckets("snap", "program") is None
    kept.put_buckets("snap", {"t/A": (1,), "t/B": (2,)}, None, "program")
    assert kept.get_buckets("snap", "program") == {"t/A": (1,), "t/B": (2,)}
    assert kept.get_buckets("snap", "other program") is None
    assert kept.get_buckets("snap") is None  # no tag is another tag
    keys = store.bucket_keys("snap")
    kept.put(keys[3], {"tag": "program", "items": ["t/A"]})
    assert kept.get_buckets("snap", "program") is None
    kept.put(keys[3], ["program"])
    assert kept.get_buckets("snap", "program") is None
    kept.put(keys[3], {"tag": "program", "items": {}})
    assert kept.get_buckets("snap", "program") is not None
    (tmp_path / keys[5][:2] / f"{keys[5]}.pickle").unlink()
    assert kept.get_buckets("snap", "program") is None  # a bucket missing: none is used


def test_one_changed_item_rewrites_one_bucket(tmp_path: Path) -> None:
    kept = PickleStore(tmp_path)
    items = {f"t/E{i}": (i,) for i in range(300)}
    kept.put_buckets("snap", items, None)
    last = kept.get_buckets("snap")
    assert last == items
    files = [tmp_path / key[:2] / f"{key}.pickle" for key in store.bucket_keys("snap")]
    assert len(files) == store.BUCKETS and all(f.is_file() for f in files)
    times = {p: p.stat().st_mtime_ns for p in files}
    seen = dict(last)
    seen["t/E7"] = (7, "loaded again")  # a new object, equal or not: its bucket is written
    kept.put_buckets("snap", seen, last)
    assert [p for p in files if p.stat().st_mtime_ns != times[p]] == [files[store.bucket_of("t/E7")]]
    assert kept.get_buckets("snap") == seen
    last = kept.get_buckets("snap")
    assert last is not None
    seen = dict(last)
    del seen["t/E9"]  # a key gone
    times = {p: p.stat().st_mtime_ns for p in files}
    kept.put_buckets("snap", seen, last)
    assert [p for p in files if p.stat().st_mtime_ns != times[p]] == [files[store.bucket_of("t/E9")]]


def test_a_json_store_keeps_what_is_put_once_saved(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "verify.json"
    first = JsonStore(path, "verdict cache")
    assert first.get("k") is None and first.warning is None
    first.save()
    assert not path.exists(), "nothing put: nothing written"
    first.put("k", [1, "v"])
    assert not path.exists(), "written when saved, not when put"
    first.save()
    assert json.loads(path.read_text()) == {"k": [1, "v"]}
    assert JsonStore(path, "verdict cache").get("k") == [1, "v"]
    path.write_text('{"k": 2}')
    first.save()
    assert json.loads(path.read_text()) == {"k": 2}, "saved once: not again until something is put"


@pytest.mark.parametrize(("text", "why"), [("[1, 2]", "not a JSON object"), ("{", "Expecting")])
def test_an_unreadable_json_store_is_discarded_with_a_warning(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "verify.json"
    path.write_text(text)
    found = JsonStore(path, "verdict cache")
    assert found.data == {} and found.warning is not None
    assert found.warning.startswith("verdict cache verify.json is unreadable and was discarded (")
    assert why in found.warning and found.warning.endswith(")")
    if text == "[1, 2]":
        assert found.warning == "verdict cache verify.json is unreadable and was discarded (not a JSON object)"


def test_a_sqlite_store_reads_a_key_at_a_time_and_writes_on_save(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "math.sqlite"
    first = SqliteStore(path, "math cache")
    assert first.get("x") is None and not path.exists(), "reading makes no file"
    first.save()
    assert not path.exists()
    first.put("x", {"html": "<math/>"})
    assert first.get("x") == {"html": "<math/>"}, "what is put is read before it is saved"
    assert SqliteStore(path, "math cache").get("x") is None
    first.save()
    assert first.pending == {}
    second = SqliteStore(path, "math cache")
    assert second.get("x") == {"html": "<math/>"} and second.get("y") is None and second.warning is None
    second.put("x", {"html": "<mi/>"})
    second.save()
    assert SqliteStore(path, "math cache").get("x") == {"html": "<mi/>"}


def test_an_unreadable_sqlite_store_is_discarded_once_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "math.sqlite"
    path.write_bytes(b"not a database, " * 100)
    found = SqliteStore(path, "math cache")
    assert found.get("x") is None
    assert found.warning is not None and found.warning.startswith("math cache math.sqlite is unreadable")
    warning = found.warning
    found.put("x", 1)
    found.save()
    assert found.warning == warning and SqliteStore(path, "math cache").get("x") == 1


def test_a_sqlite_store_with_a_bad_value_discards_the_file(tmp_path: Path) -> None:
    path = tmp_path / "math.sqlite"
    made = SqliteStore(path, "math cache")
    made.put("x", 1)
    made.save()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE store SET value = '{' WHERE key = 'x'")
    found = SqliteStore(path, "math cache")
    assert found.get("x") is None and not path.exists()
    assert found.warning == (
        "math cache math.sqlite is unreadable and was discarded "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
    )


def test_a_sqlite_store_that_fails_to_save_is_discarded_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "math.sqlite"
    made = SqliteStore(path, "math cache")
    assert made.get("x") is None
    made.put("x", 1)
    made.save()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE store")
    made.put("y", 2)
    made.save()
    assert made.warning == "math cache math.sqlite is unreadable and was discarded (no such table: store)"


def test_a_forked_process_opens_its_own_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "math.sqlite"
    made = SqliteStore(path, "math cache")
    made.put("x", 1)
    made.save()
    parents = made._db()
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert made._db() is not parents and made.get("x") == 1


def test_write_json_is_sorted_and_read_back(tmp_path: Path) -> None:
    write_json(tmp_path / "a" / "x.json", {"b": 1, "a": [2]})
    assert (tmp_path / "a" / "x.json").read_text() == '{"a": [2], "b": 1}'


def test_a_big_object_is_written_in_pieces_as_the_one_string_json_would_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder import store

    monkeypatch.setattr(store, "JSON_PIECE", 3)
    files = {f"t/{n:02}/index.html": (f"d{n}", n, n * 10) for n in (7, 1, 12, 3, 9, 4, 11)}
    data = {"stamp": "s", "files": files, "pages": {"z": "\u00e9", "a": "b"}, "summary": {"bytes": 3}}
    pieces = list(store.json_pieces(data))
    assert len(pieces) == 8  # braces, the files' three pieces in theirs, and the other three items in one
    assert b"".join(pieces) == json.dumps(data, sort_keys=True).encode()
    write_json(tmp_path / "m.json", data)
    assert JsonStore(tmp_path / "m.json", "manifest").data == json.loads(json.dumps(data))
    # A big object at the top (a page cache: 40,000 keys), its items a few at a time too, with a big
    # object among them, first, last or beside another, or alone.
    flat = {f"k{n:02}": [n, "\u00e9\\"] for n in (5, 2, 8, 1, 9, 0, 3)}
    for mixed in (flat, {**flat, "k04": files}, {**flat, "a": files}, {**flat, "z": files, "y": files}, {"f": files}):
        assert b"".join(store.json_pieces(mixed)) == json.dumps(mixed, sort_keys=True).encode()
    assert len(list(store.json_pieces(flat))) == 5  # braces, and three pieces of at most three items


def test_a_value_json_cannot_write_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        write_json(tmp_path / "x.json", {"a": 1, "b": object()})
    assert list(tmp_path.iterdir()) == []


def test_write_atomic_replaces_the_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "new" / "file.bin"
    write_atomic(target, b"one")
    write_atomic(target, b"two", mode=0o600)
    assert target.read_bytes() == b"two" and target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["file.bin"]


def test_a_failed_write_keeps_no_half_file_and_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "file.bin"
    target.write_bytes(b"before")

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError) as info:
        write_atomic(target, b"after")
    assert (info.value.errno, info.value.strerror, info.value.filename) == (
        errno.ENOSPC, "No space left on device", str(target)
    )  # fmt: skip
    assert target.read_bytes() == b"before" and [p.name for p in tmp_path.iterdir()] == ["file.bin"]


def test_library_versions_name_each_library_and_a_missing_one() -> None:
    found = library_versions(("pygments", "no-such-library-here")).split(" ")
    assert len(found) == 2 and found[0].startswith("pygments=") and found[0] != "pygments=?"
    assert found[1] == "no-such-library-here=?"


def test_library_versions_are_what_python_s_own_metadata_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """They are read from the ``dist-info`` folders' names, without ``importlib.metadata`` (50 ms)."""
    import importlib.metadata

    from site_builder import freshness
    from site_builder.store import LIBRARIES

    names = (*LIBRARIES, *freshness.LIBRARIES, "zstandard", "watchdog", "markupsafe")
    said = " ".join(f"{name}={importlib.metadata.version(name)}" for name in names)

    def not_asked(name: str) -> str:
        raise AssertionError(f"importlib.metadata asked for {name}")

    monkeypatch.setattr(importlib.metadata, "version", not_asked)
    assert library_versions(names) == said


def test_the_renderer_fingerprint_follows_the_renderers_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "render" / "latex").mkdir(parents=True)
    (tmp_path / "render" / "latex" / "parser.py").write_text("one")
    monkeypatch.setattr(store, "__file__", str(tmp_path / "store.py"))
    store.renderer_fingerprint.cache_clear()
    try:
        base = store.renderer_fingerprint()
        (tmp_path / "render" / "latex" / "parser.py").write_text("two")
        store.renderer_fingerprint.cache_clear()
        assert store.renderer_fingerprint() != base
        (tmp_path / "render" / "other.py").write_text("not a renderer")
        (tmp_path / "render" / "latex" / "parser.py").write_text("one")
        store.renderer_fingerprint.cache_clear()
        assert store.renderer_fingerprint() == base
    finally:
        store.renderer_fingerprint.cache_clear()


def test_stores_make_the_folders_they_are_kept_in(tmp_path: Path) -> None:
    PickleStore(tmp_path / "a" / "b").put(KEY, 1)
    write_atomic(tmp_path / "c" / "d" / "file", b"x")
    made = SqliteStore(tmp_path / "e" / "f" / "math.sqlite", "math cache")
    made.put("x", 1)
    made.save()
    assert PickleStore(tmp_path / "a" / "b").get(KEY) == 1 and (tmp_path / "c/d/file").read_bytes() == b"x"
    assert SqliteStore(tmp_path / "e" / "f" / "math.sqlite", "math cache").get("x") == 1


def test_a_write_that_fails_before_its_temporary_file_exists_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: Path, mode: str = "r") -> object:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "open", full)
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "file.bin", b"x")
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(tmp_path / "file.bin"))


def test_a_process_keeps_one_connection(tmp_path: Path) -> None:
    made = SqliteStore(tmp_path / "math.sqlite", "math cache")
    made.put("x", 1)
    made.save()
    assert made._db() is made._db() and made._db(create=True) is made._db()


def test_a_discarded_store_closes_its_connection(tmp_path: Path) -> None:
    made = SqliteStore(tmp_path / "math.sqlite", "math cache")
    made.put("x", 1)
    made.save()
    connection = made._db()
    assert connection is not None
    made._discard(ValueError("bad"))
    with pytest.raises(sqlite3.ProgrammingError):
        connection.execute("SELECT 1")
    assert made.warning == "math cache math.sqlite is unreadable and was discarded (bad)" and made.get("x") is None


def test_a_store_that_cannot_be_made_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object, **__: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refused)
    made = SqliteStore(tmp_path / "math.sqlite", "math cache")
    made.put("x", 1)
    made.save()
    assert made.warning == "math cache math.sqlite is unreadable and was discarded (unable to open database file)"
    assert made.pending == {"x": 1}, "kept in memory: the build goes on without the cache"


def test_a_store_is_read_from_any_thread_of_its_process(tmp_path: Path) -> None:
    """The dev server's threads share the builder's stores."""
    made = SqliteStore(tmp_path / "math.sqlite", "math cache")
    made.put("x", 1)
    made.save()
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(made.get("x")))
    reader.start()
    reader.join()
    assert found == [1] and made.warning is None


def test_keep_only_bears_another_build_deleting_the_same_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = PickleStore(tmp_path)
    keys = [f"{n:02}" + "x" * 10 for n in range(3)]
    for key in keys:
        kept.put(key, key)
    unlink = Path.unlink

    def raced(self: Path, missing_ok: bool = False) -> None:
        unlink(self)  # the other build was first
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", raced)
    kept.keep_only({keys[0]})
    monkeypatch.undo()
    assert [k for k in keys if kept.has(k)] == [keys[0]]


def test_what_is_made_as_lasting_is_left_out_of_later_collections_and_collection_goes_on() -> None:
    import gc

    from site_builder.store import lasting

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with lasting():
        assert not gc.isenabled()  # no collection while the archive's objects are made
        made = [[n] for n in range(1000)]  # lists are tracked (a dict of numbers is not)
    assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    gc.unfreeze()  # as it was for the other tests
    gc.disable()
    with lasting():
        pass
    assert not gc.isenabled()  # a caller that had turned collection off keeps it off
    gc.enable()
