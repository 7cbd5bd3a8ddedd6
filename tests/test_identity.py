"""Results remembered by identity (``identity.ByIdentity``): the dev server's per-entry work on each save."""

from __future__ import annotations

from site_builder.identity import ByIdentity


def test_a_result_is_worked_out_once_per_object_and_again_for_an_equal_new_one() -> None:
    calls: list[list[int]] = []

    def work(item: list[int]) -> int:
        calls.append(item)
        return sum(item)

    memo = ByIdentity(work)
    first, same_text = [1, 2], [1, 2]
    assert (memo(first), memo(first)) == (3, 3) and len(calls) == 1
    assert memo(same_text) == 3 and len(calls) == 2  # an edited entry is a new object, even when equal
    first.append(4)  # objects are taken as unchanged while they are the same: the server never mutates entries
    assert memo(first) == 3 and len(calls) == 2


def test_forgotten_objects_are_worked_out_again_and_let_go() -> None:
    memo = ByIdentity(len)
    kept, dropped, also = [1], [1, 2], [1, 2, 3]
    for item in (kept, dropped, also):
        memo(item)
    memo.keep_only([kept, also])
    assert {id(k) for k in (kept, also)} == set(memo.known)
    assert memo(dropped) == 2 and set(memo.known) == {id(k) for k in (kept, also, dropped)}  # worked out again
