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


class EchoWorker:
    """Sanitizes by giving back what it was given, and records it."""

    def __init__(self) -> None:
        self.given: list[str] = []

    def __call__(self, argv: list[str], stdin: bytes, *args: object, **kwargs: object) -> RunResult:
        texts = json.loads(stdin)
        self.given += texts
        out = json.dumps([{"svg": text} for text in texts]).encode()
        return RunResult(0, None, 0.1, 0.1, out, "", False, False)


def test_an_image_file_is_read_whole_up_to_the_limit(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    worker = EchoWorker()
    monkeypatch.setattr(svg.sandbox, "run", worker)
    monkeypatch.setattr(svg, "MAX_SVG_BYTES", len(SAFE))
    (tmp_path / "fits.svg").write_text(SAFE)
    (tmp_path / "over.svg").write_text(SAFE + " ")
    (tmp_path / "latin1.svg").write_bytes(SAFE.replace("circle", "c\xefrcle").encode("latin-1"))
    images = {name: tmp_path / f"{name}.svg" for name in ("fits", "over", "latin1", "missing")}
    told = sanitizer.clean(images)
    assert worker.given == [SAFE], "read whole: the limit is the largest size allowed"
    assert told["fits"].path is not None and told["fits"].path.read_text() == SAFE
    assert (told["over"].path, told["over"].problem) == (None, "too large to check for scripts (over 0 MiB)")
    assert (told["latin1"].path, told["latin1"].problem) == (None, "not UTF-8 text, as an SVG image must be")
    assert (told["missing"].path, told["missing"].problem) == (None, "cannot be read: No such file or directory")


def test_the_size_limit_is_said_in_mebibytes(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(svg, "MAX_SVG_BYTES", 3 << 20)
    monkeypatch.setattr(svg, "read_regular", lambda path, cap: b" " * cap)
    (outcome,) = sanitizer.clean({"k": tmp_path / "big.svg"}).values()
    assert outcome.problem == "too large to check for scripts (over 3 MiB)"


@pytest.mark.parametrize(
    ("result", "why"),
    [
        (RunResult(None, 9, 60.0, 1.0, b"", "", True, False), "it took over 60 s"),
        (RunResult(3, None, 0.1, 0.1, b"", "", False, False), "exit code 3, and no answer"),
        (RunResult(1, None, 0.1, 0.1, b"", "first\nlast line\n\n", False, False), "last line"),
        (OSError("bubblewrap is not installed"), "bubblewrap is not installed"),
        (RunResult(0, None, 0.1, 0.1, b"not json", "", False, False), "Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_a_failed_sanitizer_says_why(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch, result: RunResult | OSError, why: str
) -> None:
    def run(*args: object, **kwargs: object) -> RunResult:
        if isinstance(result, OSError):
            raise result
        return result

    monkeypatch.setattr(svg.sandbox, "run", run)
    (outcome,) = sanitizer.clean_texts(["x"]).values()
    assert (outcome.path, outcome.problem) == (None, f"the SVG sanitizer failed: {why}")
