"""What the SVG sanitizer's worker answers is checked again here before an image is published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_builder.render import svg
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


def test_images_are_sanitized_in_batches_of_at_most_the_batch_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(svg, "BATCH_BYTES", 10)
    sizes = {"a": 4, "b": 6, "c": 4, "d": 6, "e": 11, "f": 1}
    todo = {key: (f"digest {key}", "x" * size) for key, size in sizes.items()}
    assert [list(batch) for batch in svg._batches(todo)] == [["a", "b"], ["c", "d"], ["e"], ["f"]]
    assert svg._batches({}) == []


@pytest.mark.parametrize(("line", "kept"), [(1, 1), (7, 7), (0, 0), (-3, 0), ("3", 0), (None, 0)])
def test_an_error_s_line_is_kept_only_if_it_is_one(line: object, kept: int) -> None:
    data, cleaned = svg._outcome({"error": "not an SVG", "line": line})
    assert data is None and (cleaned.path, cleaned.problem, cleaned.line) == (None, "not an SVG", kept)


def test_without_node_or_the_libraries_images_are_withheld_saying_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(svg, "find_node_modules", lambda root, names: None)
    without = svg.SvgSanitizer(tmp_path, tmp_path / "cache")
    (outcome,) = without.clean_texts([SAFE]).values()
    assert (outcome.path, outcome.problem) == (
        None, "cannot be checked for scripts: DOMPurify and jsdom are not installed (run `npm ci`)"
    )  # fmt: skip
    monkeypatch.setattr(svg.shutil, "which", lambda name: None)
    (outcome,) = svg.SvgSanitizer(tmp_path, tmp_path / "cache").clean_texts([SAFE]).values()
    assert outcome.problem == "cannot be checked for scripts: Node.js is not installed"


def test_a_new_dompurify_or_jsdom_sanitizes_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules = tmp_path / "node_modules"
    for name in svg.LIBRARIES:
        (modules / name).mkdir(parents=True)
        (modules / name / "package.json").write_text('{"version": "1.0.0"}')
    monkeypatch.setattr(svg, "find_node_modules", lambda root, names: modules)
    monkeypatch.setattr(svg, "interpreter_folders", lambda node: ())
    worker = EchoWorker()
    monkeypatch.setattr(svg.sandbox, "run", worker)

    def sanitized() -> None:
        made = svg.SvgSanitizer(tmp_path, tmp_path / "cache")
        made.node = "/usr/bin/node"
        (outcome,) = made.clean_texts([SAFE]).values()
        assert outcome.path is not None

    sanitized()
    sanitized()
    assert len(worker.given) == 1, "the same libraries: from the cache"
    for name in svg.LIBRARIES:
        (modules / name / "package.json").write_text('{"version": "1.0.1"}')
        sanitized()
    assert len(worker.given) == 3


def test_node_installed_outside_usr_is_shown_in_the_sandbox_where_it_is(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []

    def run(argv: list[str], stdin: bytes, limits: object, **kwargs: object) -> RunResult:
        seen.append(kwargs["toolchain"])
        return RunResult(0, None, 0.1, 0.1, json.dumps([{"svg": SAFE}]).encode(), "", False, False)

    monkeypatch.setattr(svg.sandbox, "run", run)
    monkeypatch.setattr(svg, "interpreter_folders", lambda node: (Path("/opt/node-22"),))
    sanitizer.clean_texts([SAFE])
    (toolchain,) = seen
    assert ("/opt/node-22", "/opt/node-22") in toolchain.binds  # type: ignore[attr-defined]


def test_an_image_that_cannot_be_kept_in_the_cache_is_withheld_saying_why(
    sanitizer: svg.SvgSanitizer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(svg.sandbox, "run", EchoWorker())
    sanitizer.folder = tmp_path / "a file"
    sanitizer.folder.write_text("not a folder")
    (outcome,) = sanitizer.clean_texts([SAFE]).values()
    assert (outcome.path, outcome.problem) == (
        None,
        f"cannot keep the sanitized image in {tmp_path / 'a file'}: File exists",
    )


def test_what_the_sanitizer_says_it_removed_is_kept_only_as_a_list_of_names() -> None:
    assert svg._outcome({"svg": SAFE, "removed": ["script", 3]})[1].removed == ("script", "3")
    assert svg._outcome({"svg": SAFE, "removed": "script"})[1].removed == ()
    assert svg._outcome({"svg": SAFE})[1].removed == ()


def test_an_element_in_a_namespace_with_a_space_is_refused() -> None:
    """expat names an element "namespace local" and refuses a namespace holding that space, so that
    nothing can pass as an SVG element by its namespace's name."""
    fake = '<svg xmlns="http://www.w3.org/2000/svg"><a:script xmlns:a="http://www.w3.org/2000/svg x"/></svg>'
    assert svg.unsafe_part(fake).startswith("not well-formed")


def test_only_the_text_of_style_elements_is_read_as_css() -> None:
    text = "<text>@import url(http://x) \\75 rl(y)</text><g><style>a{fill:red}</style></g><text>src(z)</text>"
    assert svg.unsafe_part(f'<svg xmlns="{svg.SVG_NS}">{text}<style>b{{}}</style></svg>') == ""


def test_css_after_a_style_inside_a_style_is_read_too() -> None:
    nested = f'<svg xmlns="{svg.SVG_NS}"><style>a{{}}<style>b{{}}</style>@import "http://x/";</style></svg>'
    assert svg.unsafe_part(nested) == "<style> loading from elsewhere"


def inside_svg(body: str, prolog: str = "") -> str:
    return svg.unsafe_part(f'{prolog}<svg xmlns="{svg.SVG_NS}">{body}</svg>')


def test_what_the_re_check_finds_is_named_exactly() -> None:
    assert inside_svg("", '<!DOCTYPE svg [<!ENTITY a "b">]>') == "a document type, an entity"
    assert inside_svg("", '<?xml-stylesheet href="x.css"?>') == "a processing instruction"
    far = "http://example.org/" + "x" * 60
    assert inside_svg(f'<a href="{far}"/>') == f"href={far[:40]!r}"


def test_src_is_a_reference_as_href_is() -> None:
    assert inside_svg('<g src="http://evil.example/x"/>') == "src='http://evil.example/x'"
    assert inside_svg('<g src="#here"/>') == ""


def test_attributes_other_than_style_are_css_only_when_they_name_a_url() -> None:
    assert inside_svg('<text aria-label="C:\\dir image-set src(x)">a</text>') == ""
    assert inside_svg('<g fill="URL(http://x/)"/>') == "fill='URL(http://x/)'"


def test_a_style_sheet_split_by_character_references_is_read_whole() -> None:
    assert inside_svg("<style>a{fill:ur&#108;(http://x/)}</style>") == "<style> loading from elsewhere"
