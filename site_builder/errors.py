"""Errors a user can cause, and the diagnostics collected over a build.

Every message reads ``path:line: message`` with a path relative to the project
and a 1-based line where one is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    """One error or warning, sortable by location."""

    path: str
    line: int
    message: str
    level: Level = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        prefix = "warning: " if self.level == "warning" else ""
        return f"{where}: {prefix}{self.message}"


class SiteError(Exception):
    """An error in the archive, templates or configuration, located in a file."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line or 0
        self.message = message

    def __str__(self) -> str:
        return str(self.diagnostic())

    def diagnostic(self, level: Level = "error") -> Diagnostic:
        return Diagnostic(self.path, self.line, self.message, level)


class ConfigError(SiteError):
    """Invalid site configuration (``site.yaml``)."""


class MetadataError(SiteError):
    """Invalid ``problem.yaml`` or archive layout."""


class LatexError(SiteError):
    """A LaTeX document that cannot be converted."""


class TemplateError(SiteError):
    """A Jinja template that fails to load or render."""


class BuildError(SiteError):
    """A failure while writing the site."""
