"""The cache files older versions of the builder wrote go at the next build (publish/retired.py);
nothing else in the cache folder does."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.publish.retired import forget_retired
from site_builder.store import PickleStore


def _names(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_a_build_removes_the_caches_older_versions_left_and_keeps_its_own(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    archive = make_archive({"t/A-x/solution.md": "# X\n\nThe sum $a+b$.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    assert build_site(options).published
    cache = options.cache
    own = _names(cache)
    math = next(name for name in own if name.startswith("math-temml-"))
    old = {
        "code-b25ac7825c1acab7.sqlite": b"SQLite format 3\0",  # the highlight cache of older versions
        "math-temml-0.10.0-0123456789.sqlite": b"",  # another Temml's math cache
        "math-temml-0.10.0-0123456789.sqlite-wal": b"",
        "math-temml-0.10.0.json": b"{}",  # the math cache before SQLite
        "fonts/source-8b2a6834cfe1f4e0f3724ffa59fe9200.ttf": b"\0\1\0\0",  # the math font decompressed
    }
    for name, data in old.items():
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(data)
    PickleStore(cache / "parsed").put("snapshot-v1", {"an older": "snapshot"})
    mine = {"notes.txt": b"", "codes/a.sqlite": b"", "math-notes.json": b"", "cpp/a.cpp": b""}  # not ours, or not only
    for name, data in mine.items():
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(data)

    (archive / "t/A-x/solution.md").write_text("# X\n\nThe sum $a+b+c$.\n")  # a build that loads again
    assert build_site(options).published

    left = _names(cache)
    assert sorted({*old, "parsed/sn/snapshot-v1.pickle"} & left) == []
    assert {*mine, math} <= left
    assert {n for n in own if not n.startswith("fonts/") and not n.startswith("render/")} <= left


def test_only_retired_names_are_removed_and_each_is_reported(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    for name in ("code-1.sqlite", "math-temml-9-x.sqlite", "math-temml-1-y.sqlite", "math-temml-1-y.sqlite-shm"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "math-temml-0.9.json").write_text("{}")
    (tmp_path / "code-2.sqlite").mkdir()  # a folder: no version wrote one of these names
    (tmp_path / "code-3.sqlite").symlink_to(tmp_path / "verify.json")
    (tmp_path / "code-4.sqlite").symlink_to(tmp_path / "code-2.sqlite")  # a link is removed, not followed
    (tmp_path / "verify.json").write_text("{}")
    assert forget_retired(tmp_path, "math-temml-1-y.sqlite") == [
        "code-1.sqlite",
        "code-3.sqlite",
        "code-4.sqlite",
        "math-temml-0.9.json",
        "math-temml-9-x.sqlite",
    ]
    assert caplog.messages == []  # the folder is left alone, not tried and warned about
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "code-2.sqlite",
        "math-temml-1-y.sqlite",
        "math-temml-1-y.sqlite-shm",
        "verify.json",
    ]


def test_a_name_that_cannot_be_removed_is_logged_and_the_others_still_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for name in ("code-1.sqlite", "code-2.sqlite"):
        (tmp_path / name).write_bytes(b"")
    unlink = Path.unlink

    def refused(path: Path, missing_ok: bool = False) -> None:
        if path.name == "code-1.sqlite":
            raise PermissionError(13, "Permission denied")
        unlink(path, missing_ok)

    monkeypatch.setattr(Path, "unlink", refused)
    with caplog.at_level(logging.WARNING, logger="site_builder.publish.retired"):
        assert forget_retired(tmp_path, "math-temml-1-y.sqlite") == ["code-2.sqlite"]
    assert [p.name for p in tmp_path.iterdir()] == ["code-1.sqlite"]
    assert caplog.messages == [f"cache file {tmp_path / 'code-1.sqlite'} not removed: [Errno 13] Permission denied"]
