"""What the site's generated files are (``Output``), and where an entry's pages go (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..model import Entry
from ..render.document import slugify


@dataclass(frozen=True, slots=True)
class Output:
    path: str  # posix, relative to the output folder
    data: bytes
    kept: str = ""  # set: the published file with this digest stays as it is, and ``data`` is empty
    digest: str = ""  # of ``data``, when whoever made it has computed it already
    written: bool = False  # already in the writer's temporary folder (``forkedpages``): ``data`` is empty


def root_of(path: str) -> str:
    """The relative prefix from a page at ``path`` back to the site root."""
    return "../" * path.count("/")


def entry_url(entry: Entry) -> str:
    return f"{entry.slug or entry.path}/index.html"


def code_url(entry: Entry, name: str) -> str:
    """The page of one of an entry's code files: ``<entry>/code-<file, slugged>.html``."""
    return f"{entry.slug or entry.path}/{code_page(name)}"


@lru_cache(maxsize=65536)  # the same few names in every entry, and the dev server plans every page on each save
def code_page(name: str) -> str:
    """A code file's page, as the entry's page links it (beside it)."""
    return f"code-{slugify(name)}.html"
