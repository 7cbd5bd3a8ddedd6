"""What the SVG sanitizer's worker answers is checked again here before an image is published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_builder.publish import svg
from site_builder.sandbox.runner import RunResult

SAFE = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>'
ACTIVE = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
HANDLER = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'


class FakeWorker:
    """Stands in for DOMPurify in the sandbox: answers what it is told to, and counts its runs."""

    def __init__(self, answers: list[object], exit_code: int = 0) -> None:
        self.answers, self.exit_code, self.runs = answers, exit_code, 0

    def __call__(self, argv: list[str], stdin: bytes, *args: object, **kwargs: object) -> RunResult:
        self.runs += 1
        assert len(json.loads(stdin)) == len(self.answers)
        out = json.dumps(self.answers).encode()
        return RunResult(self.exit_code, None, 0.1, 0.1, out, "worker says no\n", False, False)


@pytest.fixture
def sanitizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> svg.SvgSanitizer:
    made = svg.SvgSanitizer(tmp_path, tmp_path / "cache")
    made.node, made.modules = "/usr/bin/node", tmp_path  # as if installed: the worker is faked
    monkeypatch.setattr(svg, "interpreter_folders", lambda node: ())
    return made


def test_an_image_the_sanitizer_passes_but_that_still_runs_a_script_is_withheld(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = FakeWorker([{"svg": ACTIVE}, {"svg": HANDLER}, {"svg": SAFE, "removed": ["script"]}])
    monkeypatch.setattr(svg.sandbox, "run", worker)
    texts = ["one", "two", "three"]
    first = sanitizer.clean_texts(texts)
    active, handler, safe = (first[k] for k in first)
    assert (active.path, active.problem) == (None, "still active after sanitizing (<script>)")
    assert (handler.path, handler.problem) == (None, "still active after sanitizing (onload)")
    assert safe.path is not None and safe.path.read_text() == SAFE and safe.removed == ("script",)
    assert safe.problem == ""
    assert sanitizer.clean_texts(texts) == first and worker.runs == 1  # kept: withheld stays withheld


def test_errors_and_failures_of_the_sanitizer_withhold_the_image(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(svg.sandbox, "run", FakeWorker([{"error": "not an SVG", "line": 3}, {"svg": 5}]))
    told = sanitizer.clean_texts(["a", "b"])
    assert [(c.path, c.problem, c.line) for c in told.values()] == [
        (None, "not an SVG", 3),
        (None, "the SVG sanitizer gave no answer for it", 0),
    ]
    failing = FakeWorker([{"svg": SAFE}], exit_code=1)
    monkeypatch.setattr(svg.sandbox, "run", failing)
    for _ in range(2):  # a failed run is not kept: it is tried again
        (outcome,) = sanitizer.clean_texts(["c"]).values()
        assert (outcome.path, outcome.problem) == (None, "the SVG sanitizer failed: worker says no")
    assert failing.runs == 2
