"""Errors a user can cause, and the diagnostics collected over a build.

Every message reads ``path:line: message`` with a path relative to the project
and a 1-based line where one is known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal, Self, TypeVar

Level = Literal["error", "warning"]
T = TypeVar("T")


class Compact:
    """Pickles a frozen dataclass with slots as its class and the values ``__init__`` takes.

    The dataclass default restores each object through ``fields()`` and ``object.__setattr__``;
    the render cache holds tens of thousands of such objects, and building them through
    ``__init__`` loads it about twice as fast. (A field ``__init__`` does not take is a memo,
    and is not pickled.)
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return type(self), tuple(getattr(self, name) for name in init_fields(type(self)))

    def evolve(self, **changes: object) -> Self:
        """``dataclasses.replace``, for hot paths: the same new value, several times faster."""
        return type(self)(*(changes[n] if n in changes else getattr(self, n) for n in init_fields(type(self))))


def init_fields(cls: type) -> tuple[str, ...]:
    """The fields of a dataclass that ``__init__`` takes, in its order."""
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.init)
    return names


_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic(Compact):
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

    def __reduce__(self) -> tuple[type, tuple[str, int, str]]:
        """Pickled with its own arguments, to come back whole from a worker process."""
        return type(self), (self.path, self.line, self.message)

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


class Gathered:
    """The errors of one file, gathered so that all of them are reported at once: each part is
    parsed by ``value``, which keeps the error and gives a default instead."""

    def __init__(self) -> None:
        self.errors: list[Diagnostic] = []

    def value(self, parse: Callable[[], T], default: T) -> T:
        try:
            return parse()
        except SiteError as error:
            self.errors.append(error.diagnostic())
            return default
