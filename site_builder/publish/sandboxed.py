"""Jinja's sandbox for templates that come from an archive (theme overrides), with bounds.

``SandboxedEnvironment`` keeps a template from Python's internals, and so from the machine. What it
leaves open is work without end: ``range`` is capped at 100,000 items, but two loops over it nest to
ten billion steps, and ``"x" * 10**10`` asks for ten gigabytes. Here a page's loops over ``range``
stop when the page has taken ``PAGE_SECONDS``, and ``*`` and ``**`` refuse results beyond
``MAX_ITEMS`` items or ``MAX_EXPONENT``: a contributor's template can fail a build, not hold the
build machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import jinja2.sandbox
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context

PAGE_SECONDS = 10.0
MAX_ITEMS = 10_000_000  # characters of a string, or items of a list, made by "*"
MAX_EXPONENT = 1_000


class ArchiveTemplates(jinja2.sandbox.SandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.clock = threading.local()  # each thread's page and its deadline
        self.globals["range"] = self._range

    def start_page(self, seconds: float | None = None) -> None:
        """A page starts rendering (in this thread): its loops have ``seconds`` from now."""
        seconds = PAGE_SECONDS if seconds is None else seconds
        self.clock.deadline = time.monotonic() + seconds
        self.clock.seconds = seconds

    def _range(self, *args: int) -> TimedRange:
        return TimedRange(jinja2.sandbox.safe_range(*args), self)

    def check_time(self) -> None:
        deadline = getattr(self.clock, "deadline", None)
        if deadline is not None and time.monotonic() > deadline:
            raise SecurityError(f"the page took more than {self.clock.seconds:g} s of loops; stopped")

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and _number(right) and abs(right) > MAX_EXPONENT and _number(left) and abs(left) > 1:
            raise SecurityError(f"an exponent above {MAX_EXPONENT} is refused")
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, list, tuple)) and _number(times) and len(sequence) * times > MAX_ITEMS:
                    raise SecurityError(f"a string or list of more than {MAX_ITEMS:,} items is refused")
        return super().call_binop(context, operator, left, right)


class TimedRange:
    """``range``, whose every step checks the page's deadline (``len`` and indexing as a range's)."""

    def __init__(self, numbers: range, templates: ArchiveTemplates) -> None:
        self.numbers = numbers
        self.templates = templates

    def __iter__(self) -> Iterator[int]:
        for number in self.numbers:
            self.templates.check_time()
            yield number

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, index: int) -> int:
        return self.numbers[index]

    def __contains__(self, number: object) -> bool:
        return number in self.numbers


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
