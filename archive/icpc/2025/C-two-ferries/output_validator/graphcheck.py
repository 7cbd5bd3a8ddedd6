"""Helpers for the "Two Ferries" output validator.

Everything that can go wrong with a team's output raises Reject with a message for the
judges. The graph itself is read from the trusted input file.
"""
from __future__ import annotations


class Reject(Exception):
    """The team's output is wrong or malformed; the message says why."""


class Tokens:
    """Whitespace-separated tokens of a team's output, read one at a time."""

    def __init__(self, text: str) -> None:
        self._tokens = text.split()
        self._pos = 0

    def peek(self) -> str | None:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def word(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise Reject(f"output ends where {what} was expected")
        self._pos += 1
        return token

    def integer(self, lo: int, hi: int, what: str) -> int:
        token = self.word(what)
        digits = token[1:] if token.startswith("-") else token
        if not digits.isdigit() or not digits.isascii() or len(digits) > 18 or (
            len(digits) > 1 and digits[0] == "0"
        ):
            raise Reject(f"expected an integer for {what}, got {shorten(token)!r}")
        value = int(token)
        if not lo <= value <= hi:
            raise Reject(f"{what} is {value}, but it must lie between {lo} and {hi}")
        return value

    def finish(self) -> None:
        token = self.peek()
        if token is not None:
            raise Reject(f"unexpected extra output starting with {shorten(token)!r}")


def shorten(token: str) -> str:
    return token if len(token) <= 30 else token[:27] + "..."


class Graph:
    """Pupils 1..n and their quarrels, read from the input file."""

    def __init__(self, text: str) -> None:
        numbers = [int(t) for t in text.split()]
        self.n, m = numbers[0], numbers[1]
        self.edges = [(numbers[2 + 2 * i], numbers[3 + 2 * i]) for i in range(m)]
        self._pairs = {(min(u, v), max(u, v)) for u, v in self.edges}

    def adjacent(self, u: int, v: int) -> bool:
        return (min(u, v), max(u, v)) in self._pairs


def check_split(graph: Graph, ferries: str) -> None:
    """ferries[i - 1] is the ferry of pupil i; no quarrel may stay on one ferry."""
    if len(ferries) != graph.n:
        raise Reject(f"the ferry string has length {len(ferries)}, expected {graph.n}")
    bad = next((c for c in ferries if c not in "AB"), None)
    if bad is not None:
        raise Reject(f"the ferry string contains {bad!r}; only 'A' and 'B' are allowed")
    for u, v in graph.edges:
        if ferries[u - 1] == ferries[v - 1]:
            raise Reject(f"pupils {u} and {v} quarrel but both take ferry {ferries[u - 1]}")


def check_odd_cycle(graph: Graph, cycle: list[int]) -> None:
    """cycle lists distinct pupils, each quarrelling with the next and the last with the first."""
    k = len(cycle)
    if k % 2 == 0:
        raise Reject(f"the cycle has even length {k}")
    seen: set[int] = set()
    for pupil in cycle:
        if pupil in seen:
            raise Reject(f"pupil {pupil} appears twice in the cycle")
        seen.add(pupil)
    for i in range(k):
        u, v = cycle[i], cycle[(i + 1) % k]
        if not graph.adjacent(u, v):
            raise Reject(f"pupils {u} and {v} are neighbours in the cycle but do not quarrel")
