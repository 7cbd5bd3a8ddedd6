"""What a build reports: diagnostics, counts and every entry's verification, and its stored summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import Diagnostic
from ..model import MISSING_WRITEUP, Site


class VerificationRow(NamedTuple):
    track: str
    kind: str  # "verified", "failing" or "none"
    text: str  # "Verified 3/3", "Failing 1/3"...
    display_path: str


@dataclass(frozen=True, slots=True)
class BuildReport:
    diagnostics: tuple[Diagnostic, ...]
    entries: int
    tracks: int
    pages: int
    published: bool
    seconds: float
    out: Path
    timings: dict[str, float] = field(default_factory=dict)
    verification: tuple[VerificationRow, ...] = ()  # per entry, for the summary the CLI prints
    solver_processes: int = 0
    written: int = 0
    current: bool = False  # nothing the site is built from changed: the published site was kept as it is
    notes: tuple[str, ...] = ()  # what the summary says once about the whole site (see ``site_notes``)
    size: int = 0  # the published site's bytes (0: not known, or nothing was published)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.level == "warning")


def verification_rows(site: Site | None) -> tuple[VerificationRow, ...]:
    if site is None:
        return ()
    return tuple(VerificationRow(e.track, *e.verification, e.display_path) for e in site.entries)


NO_SITEMAP = "no sitemap.xml: it needs the site's address; set base_url in site.yaml, or build with --base-url URL"


def site_notes(site: Site | None) -> tuple[str, ...]:
    """What the build's summary says once about the site as a whole (not a warning: nothing is wrong):
    no sitemap without an address, and how many packages have no write-up (each page says it)."""
    if site is None:
        return ()
    notes = [] if site.base_url else [NO_SITEMAP]
    bare = sum(1 for entry in site.entries if MISSING_WRITEUP in entry.missing)
    if bare:
        notes.append(f"{bare} package{' has' if bare == 1 else 's have'} no write-up (each says so on its page)")
    return tuple(notes)


def summary_of(diagnostics: tuple[Diagnostic, ...], site: Site, pages: int) -> dict[str, Any]:
    """What a build reports, as JSON, kept with the published site so that a build that changes
    nothing can say it again."""
    return {
        "diagnostics": [list(astuple(d)) for d in diagnostics],
        "verification": [list(row) for row in verification_rows(site)],
        "entries": len(site.entries),
        "tracks": len(site.tracks),
        "pages": pages,
        "notes": list(site_notes(site)),
    }


def report_from_summary(
    summary: dict[str, Any], out: Path, seconds: float, timings: dict[str, float]
) -> BuildReport | None:
    """The report of a kept site, from its stored summary (None if the summary is not readable)."""
    try:
        diagnostics = tuple(Diagnostic(*d) for d in summary["diagnostics"])
        rows = tuple(VerificationRow(*row) for row in summary["verification"])
        entries, tracks, pages = int(summary["entries"]), int(summary["tracks"]), int(summary["pages"])
        notes = tuple(str(note) for note in summary.get("notes", ()))
        size = int(summary.get("bytes", 0))
    except (KeyError, TypeError, ValueError):
        return None
    return BuildReport(
        diagnostics=diagnostics,
        entries=entries,
        tracks=tracks,
        pages=pages,
        published=True,
        seconds=seconds,
        out=out,
        timings=timings,
        verification=rows,
        current=True,
        notes=notes,
        size=size,
    )


def relocated(report: BuildReport, where: Callable[[str], str]) -> BuildReport:
    """``report`` with each file and entry named by ``where`` (for CI: from the repository's top)."""
    diagnostics = tuple(sorted(relocated_diagnostic(d, where) for d in report.diagnostics))
    rows = tuple(row._replace(display_path=where(row.display_path)) for row in report.verification)
    return replace(report, diagnostics=diagnostics, verification=rows)


def relocated_diagnostic(diagnostic: Diagnostic, where: Callable[[str], str]) -> Diagnostic:
    return Diagnostic(where(diagnostic.path), diagnostic.line, diagnostic.message, diagnostic.level)


def failing_entries(report: BuildReport) -> int:
    return sum(1 for row in report.verification if row.kind == "failing")


def report_document(report: BuildReport, command: str) -> dict[str, Any]:
    """The report as JSON for CI: counts, every diagnostic and every entry's verification."""
    return {
        "command": command,
        "ok": report.errors == 0,
        "published": report.published,
        "entries": report.entries,
        "tracks": report.tracks,
        "pages": report.pages,
        "errors": report.errors,
        "warnings": report.warnings,
        "failing": failing_entries(report),
        "seconds": round(report.seconds, 3),
        "diagnostics": [diagnostic_fields(d) for d in report.diagnostics],
        "notes": list(report.notes),
        "verification": [
            {"entry": row.display_path, "track": row.track, "status": row.kind, "text": row.text}
            for row in report.verification
        ],
    }


def diagnostic_fields(d: Diagnostic) -> dict[str, Any]:
    return {"path": d.path, "line": d.line or None, "level": d.level, "message": d.message}


def github_annotation(diagnostic: Diagnostic) -> str:
    """A GitHub Actions workflow command that shows ``diagnostic`` on its file and line in a pull request."""
    where = f"file={_property(diagnostic.path)}" + (f",line={diagnostic.line}" if diagnostic.line else "")
    return f"::{diagnostic.level} {where}::{_data(diagnostic.message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
