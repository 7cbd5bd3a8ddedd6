"""Checks over a built site: well-formed HTML, internal links and anchors, no external resources."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# MathML elements Temml writes with explicit close tags; none are void.


@dataclass
class PageScan:
    ids: set[str] = field(default_factory=set)
    links: list[tuple[str, str]] = field(default_factory=list)  # (attribute, url)
    problems: list[str] = field(default_factory=list)


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = PageScan()
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and values.get("name") == "description" and not (values.get("content") or "").strip():
            self.scan.problems.append("empty meta description (search results and link previews show none)")
        if values.get("id"):
            ident = str(values["id"])
            if ident in self.scan.ids:
                self.scan.problems.append(f"duplicate id {ident!r}")
            self.scan.ids.add(ident)
        for attribute in ("href", "src"):
            if values.get(attribute) is not None:
                kind = "link.canonical" if tag == "link" and values.get("rel") == "canonical" else f"{tag}.{attribute}"
                self.scan.links.append((kind, str(values[attribute])))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.scan.problems.append(f"self-closed non-void <{tag}/>")
        saved = list(self.stack)
        self.handle_starttag(tag, attrs)
        self.stack = saved

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.scan.problems.append(
                f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}> (line {self.getpos()[0]})"
            )
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()


def scan_page(text: str) -> PageScan:
    scanner = _Scanner()
    scanner.feed(text)
    scanner.close()
    if scanner.stack:
        scanner.scan.problems.append(f"unclosed elements at end: {scanner.stack}")
    return scanner.scan


def check_site(out: Path) -> list[str]:
    """Every problem found, as 'page: message' lines (empty when the site is sound)."""
    pages = {
        p.relative_to(out).as_posix(): scan_page(p.read_text(encoding="utf-8")) for p in sorted(out.rglob("*.html"))
    }
    problems = [f"{name}: {message}" for name, scan in pages.items() for message in scan.problems]
    for name, scan in pages.items():
        if name == "404.html":
            continue  # served at any address; links there are root-relative on purpose
        for attribute, url in scan.links:
            problems += [f"{name}: {attribute}={url!r}: {p}" for p in _check_link(out, name, attribute, url, pages)]
    return problems


def _check_link(out: Path, page: str, attribute: str, url: str, pages: dict[str, PageScan]) -> list[str]:
    parts = urlsplit(url)
    if parts.scheme in ("http", "https", "mailto"):
        return (
            [] if attribute in ("a.href", "link.canonical") else ["external resource"]
        )  # a canonical link loads nothing
    if parts.scheme or url.startswith("/"):
        return ["absolute or non-http URL"]
    target = (Path(page).parent / unquote(parts.path)).as_posix() if parts.path else page
    resolved = _normalise(target)
    if resolved is None or not (out / resolved).exists():
        return [f"target {target} does not exist"]
    if (out / resolved).is_dir():
        return ["link to a folder (use index.html so file:// works)"]
    if parts.fragment and resolved.endswith(".html") and unquote(parts.fragment) not in pages[resolved].ids:
        return [f"anchor #{parts.fragment} not found in {resolved}"]
    return []


def _normalise(path: str) -> str | None:
    parts: list[str] = []
    for piece in path.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(piece)
    return "/".join(parts)
