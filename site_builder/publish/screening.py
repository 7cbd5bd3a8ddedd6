"""Which archive files the site publishes as they are, which only sanitized, and which not at all.

A browser that opens an HTML, XML or SVG file from the site runs its scripts with the site's own
rights (its origin): they could rewrite any page or read what readers keep there. So SVG images
are published sanitized (``svg.py``), and every file a host would serve as such a document (by the
media types of its suffixes, ``mediatypes.py``) is withheld and listed on the entry's page as not
published, unless ``site.yaml`` says ``publish_active_files: true``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import Diagnostic
from ..model import UNPUBLISHED_DATA, EntrySource
from ..render.svg import SvgSanitizer
from ..source.samples import is_sample_file
from ..source.testdata import is_test_data
from .mediatypes import is_active

# The files a package format describes its problem in, which this page shows: withheld when active,
# with no warning (every package has one, and its author has nothing to change).
DESCRIPTORS = {"polygon": ("problem.xml",)}
DESCRIPTOR_REASON = "the package's description, which this page shows"
ACTIVE_REASON = (
    "a browser would run it as a page of this site (set publish_active_files: true in site.yaml to publish it)"
)


@dataclass(frozen=True, slots=True)
class Screened:
    """The sources, each with the files it withholds and notes on them; and the sanitized file to
    publish in place of each SVG image, by its path in the site."""

    sources: list[EntrySource]
    sanitized: dict[str, Path]


def is_svg(name: str) -> bool:
    return name.lower().endswith(".svg")


def unpublished_data(name: str, publish_data: str, sample: bool = False) -> bool:
    """Whether ``site.yaml``'s ``publish_data`` keeps the test file ``name`` off the site; ``sample``:
    the entry shows it as a sample (a Polygon package's ``tests/01`` marked sample in problem.xml)."""
    if publish_data == "all":
        return False
    if sample or is_sample_file(name):
        return publish_data == "none"
    return is_test_data(name)


def screen(
    sources: list[EntrySource], archive: Path, sanitizer: SvgSanitizer, publish_active: bool, publish_data: str
) -> Screened:
    images = {f.digest: archive / s.path / f.name for s in sources for f in s.files if is_svg(f.name)}
    outcomes = sanitizer.clean(images) if images else {}
    sanitized: dict[str, Path] = {}
    screened = []
    for source in sources:
        withheld: list[tuple[str, str]] = []
        notes: list[Diagnostic] = []
        samples = {name for s in source.samples for name in (s.input_file, s.answer_file) if name}
        for item in source.files:
            if unpublished_data(item.name, publish_data, item.name in samples):
                withheld.append((item.name, UNPUBLISHED_DATA))
            elif is_svg(item.name):
                outcome = outcomes[item.digest]
                if outcome.path is None:
                    withheld.append((item.name, outcome.problem))
                    notes.append(_note(source, item.name, outcome.line, f"not published: {outcome.problem}"))
                    continue
                sanitized[f"{source.slug or source.path}/{item.name}"] = outcome.path
                if outcome.removed:
                    removed = ", ".join(outcome.removed)
                    said = f"published without what a browser would run or load: {removed}"
                    notes.append(_note(source, item.name, 0, said))
            elif not publish_active and is_active(item.name, item.text):
                if item.name in DESCRIPTORS.get(source.meta.package or "", ()):
                    withheld.append((item.name, DESCRIPTOR_REASON))  # nothing for its author to fix
                    continue
                withheld.append((item.name, ACTIVE_REASON))
                notes.append(_note(source, item.name, 0, f"not published: {ACTIVE_REASON}"))
        if withheld or notes:
            diagnostics = tuple(dict.fromkeys((*source.diagnostics, *notes)))  # screened twice: noted once
            source = replace(source, withheld=tuple(withheld), diagnostics=diagnostics)
        screened.append(source)
    return Screened(screened, sanitized)


def _note(source: EntrySource, name: str, line: int, message: str) -> Diagnostic:
    """A warning on one of the entry's files (its path made only for a file that has one: 100,000 of
    them in a large archive)."""
    return Diagnostic(source.display_path(name), line, message, "warning")
