"""Results remembered for the very objects they were worked out for.

The dev server keeps every unchanged entry as the same object from one save to the next, so what was
worked out for it still holds: a save in an archive of ten thousand entries then works out again only
what concerns the entries it changed (an edited entry is a new object)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``work(item)``, remembered while ``item`` is the same object (it is held, so its id stays its own)."""

    def __init__(self, work: Callable[[K], V]) -> None:
        self.work = work
        self.known: dict[int, tuple[K, V]] = {}

    def __call__(self, item: K) -> V:
        known = self.known.get(id(item))
        if known is None or known[0] is not item:
            known = self.known[id(item)] = (item, self.work(item))
        return known[1]

    def keep_only(self, items: Iterable[K]) -> None:
        """Forget every object but ``items``."""
        known = self.known
        self.known = {id(i): known[id(i)] for i in items if id(i) in known and known[id(i)][0] is i}
