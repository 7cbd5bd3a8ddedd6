"""Which archive files are published as they are, sanitized, or withheld (publish/screening.py), with a
sanitizer that answers as told: the rules of screening alone, fast enough to run for every mutant."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.errors import Diagnostic
from site_builder.model import UNPUBLISHED_DATA, EntrySource, Metadata, SourceFile
from site_builder.publish.screening import ACTIVE_REASON, is_svg, screen, unpublished_data
from site_builder.render.svg import Cleaned

ARCHIVE = Path("/archive")
EARLIER = Diagnostic("archive/t/A-x/problem.yaml", 2, "an earlier note", "warning")


class Sanitizer:
    """Gives each image the outcome ``outcomes`` holds for its digest (else a clean copy), and records what
    it was asked."""

    def __init__(self, outcomes: dict[str, Cleaned]) -> None:
        self.outcomes = outcomes
        self.asked: list[dict[str, Path]] = []

    def clean(self, images: dict[str, Path]) -> dict[str, Cleaned]:
        self.asked.append(images)
        return {d: self.outcomes.get(d, Cleaned(Path(f"/c/{d}.svg"))) for d in images}


def entry(
    *names: str, path: str = "t/A-x", slug: str = "t/a-x", digests: dict[str, str] | None = None, text: str = "x"
) -> EntrySource:
    files = tuple(SourceFile(n, text, 1, (digests or {}).get(n, f"d-{n}")) for n in names)
    return EntrySource(
        path, "archive", "t", (), None, "x", None, Metadata(), files, (), "2020-01-01", (EARLIER,), slug=slug
    )


def screened(
    *sources: EntrySource, outcomes: dict[str, Cleaned] | None = None, active: bool = False, data: str = "samples"
) -> tuple[list[EntrySource], dict[str, Path], Sanitizer]:
    sanitizer = Sanitizer(outcomes or {})
    result = screen(list(sources), ARCHIVE, sanitizer, active, data)  # type: ignore[arg-type]
    return result.sources, result.sanitized, sanitizer


@pytest.mark.parametrize(
    ("name", "setting", "withheld"),
    [
        ("data/secret/1.in", "samples", True),
        ("data/secret/1.in", "none", True),
        ("data/secret/1.in", "all", False),
        ("data/sample/1.in", "samples", False),
        ("data/sample/1.in", "none", True),
        ("data/sample/1.in", "all", False),
        ("samples/1.in", "none", True),
        ("solution.py", "none", False),
        ("data.txt", "samples", False),
    ],
)
def test_publish_data_keeps_test_files_off_the_site(name: str, setting: str, withheld: bool) -> None:
    assert unpublished_data(name, setting) is withheld
    (source,), _, _ = screened(entry(name), data=setting)
    assert source.withheld == (((name, UNPUBLISHED_DATA),) if withheld else ())
    assert source.diagnostics == (EARLIER,), "the page counts unpublished test data; no note for each file"


def test_svg_by_the_last_suffix_of_the_files_name() -> None:
    assert is_svg("a.svg") and is_svg("figs/A.SVG") and is_svg("x.tar.svg")
    assert not is_svg("a.svg.txt") and not is_svg("fig.svg/readme") and not is_svg("svg") and not is_svg("a.svgz")


def test_a_sanitized_image_is_published_in_place_of_its_file_by_its_path_in_the_site() -> None:
    clean = Cleaned(Path("/cache/svg/d1.svg"))
    sources, sanitized, sanitizer = screened(
        entry("fig.svg", "notes.txt", digests={"fig.svg": "d1"}), outcomes={"d1": clean}
    )
    assert sanitizer.asked == [{"d1": ARCHIVE / "t/A-x/fig.svg"}]
    assert sanitized == {"t/a-x/fig.svg": Path("/cache/svg/d1.svg")}
    assert sources[0].withheld == () and sources[0].diagnostics == (EARLIER,)


def test_an_entry_without_a_slug_publishes_by_its_path() -> None:
    clean = Cleaned(Path("/cache/svg/d1.svg"))
    _, sanitized, _ = screened(entry("fig.svg", slug="", digests={"fig.svg": "d1"}), outcomes={"d1": clean})
    assert sanitized == {"t/A-x/fig.svg": Path("/cache/svg/d1.svg")}


def test_what_the_sanitizer_took_out_is_a_warning() -> None:
    clean = Cleaned(Path("/c/d1.svg"), removed=("script", "onload"))
    (source,), _, _ = screened(entry("fig.svg", digests={"fig.svg": "d1"}), outcomes={"d1": clean})
    note = Diagnostic(
        "archive/t/A-x/fig.svg", 0, "published without what a browser would run or load: script, onload", "warning"
    )
    assert source.diagnostics == (EARLIER, note) and source.withheld == ()


def test_an_image_the_sanitizer_refuses_is_withheld_with_why_and_where() -> None:
    refused = Cleaned(None, "not well-formed XML", 7)
    (source,), sanitized, _ = screened(entry("fig.svg", "b.svg", digests={"fig.svg": "d1"}), outcomes={
        "d1": refused, "d-b.svg": Cleaned(Path("/c/b.svg"))
    })  # fmt: skip
    assert source.withheld == (("fig.svg", "not well-formed XML"),)
    assert source.diagnostics == (
        EARLIER, Diagnostic("archive/t/A-x/fig.svg", 7, "not published: not well-formed XML", "warning")
    )  # fmt: skip
    assert sanitized == {"t/a-x/b.svg": Path("/c/b.svg")}, "the next image is screened still"


def test_the_same_image_in_two_entries_is_sanitized_once() -> None:
    clean = Cleaned(Path("/c/d1.svg"))
    one, two = entry("a.svg", digests={"a.svg": "d1"}), entry("b.svg", path="u/B", slug="u/b", digests={"b.svg": "d1"})
    _, sanitized, sanitizer = screened(one, two, outcomes={"d1": clean})
    assert len(sanitizer.asked) == 1 and list(sanitizer.asked[0]) == ["d1"]
    assert sanitized == {"t/a-x/a.svg": Path("/c/d1.svg"), "u/b/b.svg": Path("/c/d1.svg")}


def test_no_images_no_sanitizer() -> None:
    _, sanitized, sanitizer = screened(entry("a.txt"))
    assert sanitizer.asked == [] and sanitized == {}


def test_a_page_a_browser_would_run_is_withheld_unless_the_site_says_so() -> None:
    (source,), _, _ = screened(entry("page.html", "readme.txt"))
    assert source.withheld == (("page.html", ACTIVE_REASON),)
    note = Diagnostic("archive/t/A-x/page.html", 0, f"not published: {ACTIVE_REASON}", "warning")
    assert source.diagnostics == (EARLIER, note)
    (source,), _, _ = screened(entry("page.html", "readme.txt"), active=True)
    assert source.withheld == () and source.diagnostics == (EARLIER,)


def test_source_code_typed_as_xml_is_withheld_by_its_text() -> None:
    """A host serves ``.rs`` as an XML type: Rust source is inert (XML parsing stops at its first
    character), a file that starts as an XML document is not."""
    (source,), _, _ = screened(entry("main.rs", text="fn main() {}\n"))
    assert source.withheld == ()
    (source,), _, _ = screened(entry("main.rs", text="<html><script>alert(1)</script></html>"))
    assert source.withheld == (("main.rs", ACTIVE_REASON),)


def test_test_data_is_withheld_as_test_data_even_when_a_browser_would_run_it() -> None:
    (source,), sanitized, _ = screened(entry("data/secret/1.html", "data/secret/2.svg"))
    assert source.withheld == (("data/secret/1.html", UNPUBLISHED_DATA), ("data/secret/2.svg", UNPUBLISHED_DATA))
    assert sanitized == {} and source.diagnostics == (EARLIER,)


def test_screened_twice_each_note_is_kept_once() -> None:
    (once,), _, _ = screened(entry("page.html"))
    (twice,), _, _ = screened(once)
    assert twice.diagnostics == once.diagnostics and twice.withheld == once.withheld
