"""Which archive files a host would serve as documents a browser runs, by the media types of their suffixes.

A static host takes a file's ``Content-Type`` from its name: GitHub Pages and Node's servers from mime-db,
nginx and Apache from their ``mime.types``, ``site-builder serve`` and Python's ``http.server`` from Python's
``mimetypes`` (which reads Debian's ``/etc/mime.types`` too). A browser runs the scripts of what it opens as
HTML or XML, on the site's origin. ``activesuffixes.ACTIVE_SUFFIXES`` lists every suffix that any of those
tables maps to such a type (``is_active_type``); it is generated from the tables, and
``tests/test_mediatypes.py`` fails when an installed table knows one it lacks. Every other file is
published: text, images (SVG sanitized), PDF, archives, source code, and files with no suffix or one no
table knows, which hosts serve as ``application/octet-stream``.
"""

from __future__ import annotations

from ..source.languages import LANGUAGES
from .activesuffixes import ACTIVE_SUFFIXES

# Types a browser opens as a document that runs scripts, besides HTML and XML: web archives, Flash.
_ACTIVE_TYPES = frozenset(
    {"text/xsl", "multipart/related", "message/rfc822", "application/x-mimearchive"}
    | {"application/x-shockwave-flash", "application/futuresplash", "application/vnd.adobe.flash.movie"}
)
_XML_LEADING = "\ufeff \t\r\n"  # what may come before an XML document's first "<": a byte order mark, spaces


def is_active_type(media_type: str) -> bool:
    """Whether a browser may open a response of this type as a document that runs scripts: HTML, XML and any
    ``+xml`` type (Chromium opens only some, Firefox more), XSL, web archives and Flash."""
    kind = media_type.split(";", 1)[0].strip().lower()
    return is_xml_type(kind) or "html" in kind.partition("/")[2] or kind in _ACTIVE_TYPES


def is_xml_type(media_type: str) -> bool:
    sub = media_type.partition("/")[2]
    return sub == "xml" or sub.endswith("+xml") or sub.startswith("xml-")


def active_suffixes(name: str) -> list[str]:
    """The suffixes of a file's name that a host serves as an active document, in order. Every suffix
    counts, not only the last: Apache types a file by the last suffix its table knows, so it serves
    ``1.html.in`` as HTML."""
    base = name.rsplit("/", 1)[-1].lower()
    return [part for part in base.split(".")[1:] if part in ACTIVE_SUFFIXES]


def is_active(name: str, text: str | None) -> bool:
    """Whether a host would serve the file as a document that runs scripts. ``text``: the file's text, if it
    is read: source code whose suffix a table maps to an XML type (``.rs``: ``application/rls-services+xml``)
    is inert unless it starts as an XML document does, with "<" (a browser's XML parser stops at the first
    character of anything else, and shows nothing of it)."""
    found = active_suffixes(name)
    if not found:
        return False
    last = found[-1]
    return not (
        found == [last]
        and name.lower().endswith("." + last)
        and "." + last in LANGUAGES
        and all(is_xml_type(kind) for kind in ACTIVE_SUFFIXES[last])
        and text is not None
        and not text.lstrip(_XML_LEADING).startswith("<")
    )
