"""The verdict cache (``verify/cache.py``): verdicts by their job's key, and an entry's verification kept
whole, recalled only while every verdict it names is still kept, and never from a file it cannot read.
Whole builds that reuse it are in ``test_verify.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_builder.model import SolverRun, Verdict
from site_builder.verify.cache import Recalled, ResultCache

AC = Verdict("1", "AC", 0.25, "7\n", False, "")
WA = Verdict("2", "WA", 0.5, "8\n", True, "expected 7")


def saved(path: Path, cache: ResultCache) -> ResultCache:
    cache.save()
    return ResultCache(path)


def two_saved(path: Path) -> ResultCache:
    """A cache that kept k1 (Accepted) and k2 (Wrong Answer), as the next build reads it."""
    cache = ResultCache(path)
    cache.record("k1", AC)
    cache.record("k2", WA)
    return saved(path, cache)


def whole() -> Recalled:
    runs = (SolverRun("solution.py", "python", "abc", (AC, WA), ""), SolverRun("slow.cpp", "cpp", "def", (), "no g++"))
    return Recalled(runs, (("k1", "k2"), ()), ("programs/ab",))


def test_a_verdict_is_kept_by_its_key_across_builds(tmp_path: Path) -> None:
    again = two_saved(tmp_path / "verdicts.json")
    assert (again.verdict("k1"), again.verdict("k2"), again.verdict("k3")) == (AC, WA, None)


def test_a_verdict_of_another_shape_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    path.write_text(json.dumps({"list": [1, 2], "old": {"sample": "1", "code": "AC"}, "text": "AC"}))
    cache = ResultCache(path)
    assert [cache.verdict(k) for k in ("list", "old", "text")] == [None, None, None]
    assert cache.warning is None


def test_an_unreadable_cache_is_discarded_with_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    path.write_text("{not json")
    cache = ResultCache(path)
    assert cache.verdict("k1") is None
    assert cache.warning is not None and cache.warning.startswith("verification cache verdicts.json is unreadable")


def test_an_entry_is_recalled_whole_while_its_verdicts_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    cache = ResultCache(path)
    cache.record("k1", AC)
    cache.record("k2", WA)
    cache.remember("entry", whole())
    again = saved(path, cache)
    assert again.recall("entry") == whole()
    assert whole().jobs == ("k1", "k2")
    assert again.recall("other") is None


def test_an_entry_whose_verdict_was_pruned_is_verified_again(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    cache = ResultCache(path)
    cache.record("k1", AC)
    cache.remember("entry", whole())  # k2 is not kept
    assert saved(path, cache).recall("entry") is None


def test_an_entry_kept_in_another_layout_is_verified_again(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    cache = ResultCache(path)
    cache.record("k1", AC)
    odd: object
    for odd in (
        {"runs": [["solution.py", "python", "abc", ["k1"]]], "programs": []},  # a field short
        {"runs": [["solution.py", "python", "abc", "", ["k1"]]]},  # no programs
        {"runs": 3, "programs": []},
        {"programs": []},
        ["runs"],
    ):
        cache.put("entry", odd)
        assert cache.recall("entry") is None, odd


def test_remembering_what_is_already_kept_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    cache = ResultCache(path)
    cache.remember("entry", whole())
    again = saved(path, cache)
    again.remember("entry", whole())
    assert not again.dirty
    changed = Recalled(whole().runs, whole().keys, ())
    again.remember("entry", changed)
    assert again.dirty


def test_keeping_only_some_verdicts_forgets_the_others(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.json"
    again = two_saved(path)
    again.keep_only({"k1", "k2"})
    assert not again.dirty  # nothing to forget: the file is not written again
    again.keep_only({"k1"})
    assert again.dirty
    kept = saved(path, again)
    assert (kept.verdict("k1"), kept.verdict("k2")) == (AC, None)


def test_an_entry_whose_runs_and_keys_do_not_pair_up_is_refused(tmp_path: Path) -> None:
    """Kept, it would be recalled with a run (and its verdicts) left out."""
    cache = ResultCache(tmp_path / "verdicts.json")
    with pytest.raises(ValueError, match="zip"):
        cache.remember("entry", Recalled(whole().runs, whole().keys[:1], ()))
    assert cache.recall("entry") is None
