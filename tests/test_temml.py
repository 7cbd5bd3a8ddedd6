"""The Temml process (render/math.py): a batch of any size comes back whole and in order, written to
the process without a thread when its pipe holds it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from site_builder.render import math
from site_builder.render.math import MathRenderer, MathResult


@pytest.fixture
def renderer(tmp_path: Path) -> Iterator[MathRenderer]:
    found = MathRenderer(ROOT, tmp_path)
    if not found.available:
        pytest.skip(found.unavailable_reason())
    yield found
    found.close()


def _answers(renderer: MathRenderer, snippets: list[tuple[str, bool]]) -> list[MathResult]:
    """The batch's results; fails, and does not hang, if the two processes wait for each other."""
    results: list[MathResult] = []
    batch = threading.Thread(target=lambda: results.extend(renderer._run_batch(snippets)), daemon=True)
    batch.start()
    batch.join(timeout=60)
    if batch.is_alive():
        assert renderer.process is not None
        renderer.process.kill()
        pytest.fail("the batch never came back: each process waited for the other to read")
    return results


def test_a_batch_the_pipe_holds_is_written_without_a_thread(
    renderer: MathRenderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Any] = []
    real = threading.Thread

    def counted(*args: Any, **kwargs: Any) -> threading.Thread:
        started.append(kwargs.get("target"))
        return real(*args, **kwargs)

    renderer._process()
    assert renderer.room >= 1 << 16
    monkeypatch.setattr(math.threading, "Thread", counted)
    results = renderer._run_batch([(f"x^{{{n}}}", False) for n in range(40)])
    assert [f">{n}</mn>" in (r.html or "") for n, r in enumerate(results)] == [True] * 40
    assert started == []


def test_a_batch_larger_than_the_pipe_is_written_while_its_answers_are_read(renderer: MathRenderer) -> None:
    """Temml answers while it reads: with more of both than the pipes hold, the payload is written by
    another thread while the answers are read, so that neither process waits for the other (Node now
    queues what it writes, so a wait would not show here; every answer must come back, in order)."""
    renderer._process()
    filler = "\\text{" + "a few words to make the payload long " * 6 + "}"
    snippets = [(f"\\frac{{a_i}}{{b_i^{{{n}}}}} {filler}", n % 2 == 0) for n in range(12000)]
    assert sum(len(tex) + 30 for tex, _ in snippets) > 2 * renderer.room
    results = _answers(renderer, snippets)
    assert len(results) == len(snippets)
    assert all(f">{n}</mn>" in (r.html or "") for n, r in enumerate(results))
