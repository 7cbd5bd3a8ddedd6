"""Which media types a browser opens as a document that runs scripts (publish/mediatypes.py)."""

from __future__ import annotations

import pytest

from site_builder.publish.mediatypes import active_suffixes, is_active_type, is_xml_type


@pytest.mark.parametrize(
    "kind",
    [
        "text/html", "TEXT/HTML; charset=utf-8", "application/xhtml+xml", "text/x-server-parsed-html",
        "text/xml", "application/xml", "image/svg+xml", "application/xml-dtd", "Text/XSL", "message/rfc822",
        " application/x-shockwave-flash ", "multipart/related; type=text/html",
        "application/xml; charset=utf-8; x=y", "text/xsl; a=b; c=d",
    ],
)  # fmt: skip
def test_documents_that_run_scripts_are_active(kind: str) -> None:
    assert is_active_type(kind)


@pytest.mark.parametrize(
    "kind",
    ["text/plain", "image/png", "application/pdf", "text/plain; x=text/html", "html/plain", "application/zip"],
)
def test_other_types_are_not(kind: str) -> None:
    assert not is_active_type(kind)


def test_xml_types_by_their_subtype() -> None:
    assert is_xml_type("text/xml") and is_xml_type("image/svg+xml") and is_xml_type("application/xml-external")
    assert not is_xml_type("xml/plain") and not is_xml_type("text/xmlish") and not is_xml_type("text/x+xmlx")


def test_a_suffix_in_a_folder_name_is_not_the_files() -> None:
    assert active_suffixes("notes.html/readme.txt") == []
    assert active_suffixes("a.b/page.HTML") == ["html"]


def test_only_the_last_part_of_a_path_is_the_files_name() -> None:
    """Folders with dots, deeper than one level, and no spaces in the path to split on."""
    assert active_suffixes("notes.html.d/readme.txt") == []
    assert active_suffixes("problems/a.html.d/data/readme.txt") == []
    assert active_suffixes("problems/a.txt.d/data/page.xhtml") == ["xhtml"]
