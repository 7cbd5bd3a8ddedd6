"""What a problem folder's path means: the label, title and year its names give, its URL (unique
across the site), its place in the order of the walk, and the names the site keeps for its own files."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

from ..errors import Diagnostic
from ..model import EntrySource

_LABELLED = re.compile(r"^([A-Z]{1,2}[0-9]{0,2})[-_ ](.+)$")


_YEAR = re.compile(r"^(19|20)[0-9]{2}$")


_SAFE_PART = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass(frozen=True, slots=True)
class FolderName:
    label: str | None
    title: str


def infer_folder_name(name: str) -> FolderName:
    """``X-quartets`` -> label X, title "Quartets"; ``bridge-inspection`` -> "Bridge Inspection"."""
    match = _LABELLED.match(name)
    label, rest = (match.group(1), match.group(2)) if match else (None, name)
    words = [w for w in re.split(r"[-_ ]+", rest) if w]
    title = " ".join(w if any(c.isupper() for c in w) else w.capitalize() for w in words)
    return FolderName(label=label, title=title or name)


def infer_year(groups: tuple[str, ...]) -> int | None:
    for group in reversed(groups):
        if _YEAR.match(group):
            return int(group)
    return None


@lru_cache(maxsize=65536)
def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders "2" before "10"; names that differ only in case keep one fixed order."""
    parts = tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in re.split(r"(\d+)", text) if p)
    return (*parts, (2, text))


# The site's own files at its top, whose names no track folder may take (compared without case:
# a static host may not tell them apart), and the name of every folder's page.
RESERVED_TOP = frozenset(
    {"index.html", "404.html", "static", "pagefind", "tags", "sitemap.xml", "verification.json", "feed.xml"}
)


PAGE = "index.html"
# The track of the problem folders at the archive's top: a contest's repository holds its packages there.
ROOT_TRACK = "problems"


def entry_url_path(rel: str) -> str:
    """Where a problem folder's pages are in the site, before ``url_slug``: its path, under ``ROOT_TRACK``
    when it sits at the archive's top (every page of an entry is inside its track's folder)."""
    return rel if "/" in rel else f"{ROOT_TRACK}/{rel}"


def joined(folder: str, name: str) -> str:
    """``name`` in ``folder``, a path in the archive ("": the archive's top, a package's own repository)."""
    return f"{folder}/{name}" if folder else name


def reserved_folder(rel: str) -> str:
    """The folder on a problem folder's path whose name a page or file of the site's own needs:
    the path up to it ("" if none)."""
    parts = rel.split("/")
    for index, part in enumerate(parts):
        names = {part.lower(), _slug_part(part).lower()}  # as a folder, and as its URL
        if PAGE in names or (index == 0 and names & RESERVED_TOP):
            return "/".join(parts[: index + 1])
    return ""


@lru_cache(maxsize=65536)  # the dev server sorts every entry by it on each save
def walk_order(path: str) -> tuple[tuple[tuple[int, int | str], ...], ...]:
    """Sort key of a problem folder's path: the order ``find_problem_folders`` finds them in."""
    return tuple(natural_key(part) for part in path.split("/"))


@lru_cache(maxsize=65536)  # the dev server looks for renumbered folders among every entry on each save
def url_slug(path: str) -> str:
    """The URL of a problem folder: each part kept where it is URL-safe, letters folded to ASCII,
    anything else a hyphen ("A-Über Brücke" -> "A-Uber-Brucke"); stable, so links keep working."""
    return "/".join(_slug_part(part) for part in path.split("/"))


def _slug_part(part: str) -> str:
    if _SAFE_PART.match(part):
        return part
    folded = unicodedata.normalize("NFKD", part).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", folded).strip("-.")
    return slug or "x-" + hashlib.sha1(part.encode()).hexdigest()[:8]


def unique_slugs(entries: list[EntrySource]) -> list[EntrySource]:
    """Two folders whose URLs would be the same (also when they differ only in case): an error on the
    second (in ``walk_order``), which gets a numbered URL so that both are still published."""
    taken: dict[str, EntrySource] = {}
    result = []
    for entry in entries:
        slug, n = entry.slug, 1
        while slug.lower() in taken:
            n += 1
            slug = f"{entry.slug}-{n}"
        if n > 1:
            first = taken[entry.slug.lower()]
            message = f"this folder's URL {entry.slug}/ is already {first.display_path()}'s; rename one of them"
            problem = Diagnostic(entry.display_path(), 0, message)
            entry = replace(entry, slug=slug, diagnostics=(*entry.diagnostics, problem))
        taken[slug.lower()] = entry
        result.append(entry)
    return result
