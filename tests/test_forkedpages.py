"""Rendering a cold build's pages in two processes (``publish/forkedpages.py``): every page placed
once, by one of the two, with its digest; what the copy did not report is left to the caller."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_watcher import wait_for

from site_builder.publish import forkedpages
from site_builder.publish.forkedpages import CLAIMS, PER_CHUNK, chunks_of, render_in_two
from site_builder.publish.output import digest
from site_builder.publish.outputs import Output

Plan = dict[str, Callable[[], Output]]


def _plan(entries: int, render: Callable[[str], bytes]) -> Plan:
    """A home page, then per entry its page and two code pages, as ``PageRenderer.plan`` orders them."""
    paths = ["index.html", "tags/index.html"]
    for n in range(entries):
        paths += [f"t/e{n}/index.html", f"t/e{n}/code-a-py.html", f"t/e{n}/code-b-md.html"]
    return {path: (lambda path=path: Output(path, render(path))) for path in paths}


def _by_pid(path: str) -> bytes:
    return f"{path} {os.getpid()}".encode()


def _no_figures(path: str) -> list[Output]:
    return []


def _copy_begins(marker: Path, render: Callable[[str], bytes]) -> Callable[[str], bytes]:
    """``render``, where this process's pages wait until the copy has begun one: on a busy machine
    this process could take every chunk before the copy, just forked, claims one."""
    builder = os.getpid()

    def rendered(path: str) -> bytes:
        if os.getpid() != builder:
            marker.touch()
        else:
            wait_for(marker.exists, 30)
        return render(path)

    return rendered


def test_both_processes_render_and_every_page_is_placed_once_with_its_digest(tmp_path: Path) -> None:
    plan = _plan(60, _copy_begins(tmp_path / "copy-began", _by_pid))
    gc.freeze()  # as the builder has its archive and cards (``store.lasting``): they must stay so
    frozen = gc.get_freeze_count()
    try:
        placed = render_in_two(plan, tmp_path, _no_figures)
        assert gc.get_freeze_count() > frozen // 2  # (a few may have been freed meanwhile)
    finally:
        gc.unfreeze()
    assert set(placed) == set(plan)
    makers = set()
    for path, (key, figures) in placed.items():
        data = (tmp_path / path).read_bytes()
        assert key == digest(data) and figures == ()
        text, pid = data.decode().rsplit(" ", 1)
        assert text == path
        makers.add(int(pid))
    assert os.getpid() in makers and len(makers) == 2  # this process and its copy, both
    assert not list(tmp_path.rglob(".*.tmp*"))  # (``write_atomic``'s)


def test_the_builders_own_work_is_done_here_once_while_the_copy_renders(tmp_path: Path) -> None:
    done: list[int] = []

    def meanwhile() -> None:
        wait_for((tmp_path / "copy-began").exists, 30)  # (done before the fork, it would wait in vain)
        done.append(os.getpid())

    plan = _plan(60, _copy_begins(tmp_path / "copy-began", _by_pid))
    assert set(render_in_two(plan, tmp_path, _no_figures, meanwhile)) == set(plan)
    assert done == [os.getpid()]


def test_an_entrys_pages_stay_in_one_chunk_and_chunks_are_bounded() -> None:
    paths = list(_plan(10, _by_pid))
    chunks = chunks_of(paths)
    assert [p for chunk in chunks for p in chunk] == paths
    assert chunks[0][:2] == ["index.html", "tags/index.html"]
    for chunk in chunks:
        assert not chunk[0].rpartition("/")[2].startswith("code-")  # never a code page without its entry's page
    assert len(chunks[1]) == 3 * PER_CHUNK  # whole entries, PER_CHUNK of them
    many = list(_plan(CLAIMS * 5, _by_pid))
    assert len(chunks_of(many)) <= CLAIMS  # the claims fit the pipe they are written into before the fork


def test_the_pages_of_a_copy_slower_than_this_process_are_waited_for(tmp_path: Path) -> None:
    builder = os.getpid()

    def render(path: str) -> bytes:
        if os.getpid() != builder:
            time.sleep(0.1)  # its chunk, a dozen pages, ends well after this process's last
        return _by_pid(path)

    plan = _plan(60, _copy_begins(tmp_path / "copy-began", render))
    placed = render_in_two(plan, tmp_path, _no_figures)
    assert set(placed) == set(plan)
    assert any(not (tmp_path / p).read_bytes().endswith(str(builder).encode()) for p in placed)


def test_the_figures_of_each_page_are_written_and_reported(tmp_path: Path) -> None:
    plan = _plan(30, _by_pid)

    def figures(path: str) -> list[Output]:  # every entry page shows the same figure, and one of its own
        if not path.endswith("/index.html") or not path.startswith("t/"):
            return []
        own = f"figures/{path.split('/')[1]}.svg"
        return [Output("figures/shared.svg", b"<svg/>"), Output(own, own.encode())]

    placed = render_in_two(plan, tmp_path, figures)
    assert set(placed) == set(plan)
    _, drawn = placed["t/e7/index.html"]
    assert drawn == (("figures/shared.svg", digest(b"<svg/>")), ("figures/e7.svg", digest(b"figures/e7.svg")))
    assert (tmp_path / "figures/shared.svg").read_bytes() == b"<svg/>"
    assert (tmp_path / "figures/e29.svg").read_bytes() == b"figures/e29.svg"
    assert not list(tmp_path.rglob(".*.tmp*"))  # (``write_atomic``'s)


def test_pages_the_copy_failed_on_are_left_to_the_caller(tmp_path: Path) -> None:
    builder = os.getpid()

    def render(path: str) -> bytes:
        if os.getpid() != builder and path.endswith("code-b-md.html"):
            raise ValueError("a template error")
        return _by_pid(path)

    plan = _plan(60, _copy_begins(tmp_path / "copy-began", render))
    placed = render_in_two(plan, tmp_path, _no_figures)
    for path, (key, _) in placed.items():
        assert key == digest((tmp_path / path).read_bytes())
    # The copy stopped at the first code page of its first chunk: that page and the rest of its chunk
    # are left; this process rendered every other chunk, its own code pages too.
    missing = [p for p in plan if p not in placed]
    assert missing and missing[0].endswith("code-b-md.html")
    chunk = next(c for c in chunks_of(list(plan)) if missing[0] in c)
    assert missing == chunk[chunk.index(missing[0]) :]
    assert sum(p.endswith("code-b-md.html") for p in placed) > 40


def test_a_page_that_fails_here_stops_both_and_is_left_to_the_caller(tmp_path: Path, copies: list[int]) -> None:
    builder = os.getpid()

    def render(path: str) -> bytes:
        if os.getpid() == builder and path.startswith("t/e"):
            raise ValueError("a template error")
        time.sleep(0.001)  # the copy's pages: half a second in all, were it not stopped
        return _by_pid(path)

    plan = _plan(200, render)
    started = time.monotonic()
    placed = render_in_two(plan, tmp_path, _no_figures)
    assert time.monotonic() - started < 30
    # the failing page, and what the copy had not done when it was stopped: the caller renders them
    # (and raises at that page, or at an earlier one the copy failed on)
    assert len(set(plan) - set(placed)) > len(plan) // 2
    for path, (key, _) in placed.items():
        assert key == digest((tmp_path / path).read_bytes())
    _assert_reaped(copies)


def test_a_copy_that_hangs_is_given_up_after_its_silence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copies: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    builder = os.getpid()
    monkeypatch.setattr(forkedpages, "SILENCE", 1.0)

    def render(path: str) -> bytes:
        if os.getpid() != builder:
            time.sleep(3600)  # as if waiting for a lock no thread will release
        return _by_pid(path)

    plan = _plan(60, _copy_begins(tmp_path / "copy-began", render))
    started = time.monotonic()
    placed = render_in_two(plan, tmp_path, _no_figures)
    assert time.monotonic() - started < 30
    assert placed and set(plan) - set(placed)  # this process's share, not the copy's
    _assert_reaped(copies)
    (said,) = [r.getMessage() for r in caplog.records if r.name == forkedpages.__name__ and r.levelname == "WARNING"]
    assert said == "the process rendering half of the pages said nothing for 1 s; its pages rendered here"


def test_without_a_copy_nothing_is_placed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    done: list[int] = []
    assert render_in_two(_plan(60, _by_pid), tmp_path, _no_figures, lambda: done.append(1)) == {}
    assert not list(tmp_path.iterdir()) and done == [1]  # the builder's own work still done, once


def test_a_failure_of_the_builders_own_work_stops_the_copy_and_goes_on(tmp_path: Path, copies: list[int]) -> None:
    def failing() -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        render_in_two(_plan(60, _by_pid), tmp_path, _no_figures, failing)
    _assert_reaped(copies)


def test_placed_pages_are_recorded_as_written_with_their_figures() -> None:
    page, drawn = forkedpages.outputs("t/e/index.html", ("d1", (("figures/a.svg", "d2"),)))
    assert page == Output("t/e/index.html", b"", digest="d1", written=True)
    assert drawn == [Output("figures/a.svg", b"", digest="d2", written=True)]


def test_only_enough_pages_with_more_than_one_process_are_split() -> None:
    assert forkedpages.worth_splitting(forkedpages.SPLIT_LEAST, 2)
    assert not forkedpages.worth_splitting(forkedpages.SPLIT_LEAST - 1, 2)
    assert not forkedpages.worth_splitting(10_000, 1)


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process IDs of the copies started."""
    started: list[int] = []
    start = forkedpages._Copy.__init__

    def recorded(self: forkedpages._Copy, pid: int, reports: int) -> None:
        started.append(pid)
        start(self, pid, reports)

    monkeypatch.setattr(forkedpages._Copy, "__init__", recorded)
    return started


def _assert_reaped(copies: list[int]) -> None:
    assert copies
    for pid in copies:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
