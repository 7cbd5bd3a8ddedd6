"""TikZ pictures: drawn by TeX in the sandbox, sanitized, cached, and placeholders without TeX."""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.model import TexPicture
from site_builder.render.pictures import PictureRenderer, tex_document

ROOT = Path(__file__).resolve().parent.parent
HAVE_TEX = bool(shutil.which("latex") and shutil.which("dvisvgm"))
needs_tex = pytest.mark.skipif(not HAVE_TEX, reason="no latex and dvisvgm on this machine")
PREAMBLE = (
    "\\usepackage[dvipsnames]{xcolor}\n\\usepackage{tikz}\n\\newcommand{\\spot}[1]{\\fill[BrickRed] (#1) circle (2pt);}"
)


def picture(source: str, preamble: str = PREAMBLE, line: int = 10) -> TexPicture:
    return TexPicture(source, preamble, line)


def test_the_document_loads_xcolor_options_before_tikz_and_leaves_unknown_packages_out() -> None:
    document = tex_document(picture("\\tikz \\draw (0,0) -- (1,0);", PREAMBLE + "\n\\usepackage{nosuchpackage}"))
    lines = document.splitlines()
    assert lines.index("\\usepackage[dvipsnames]{xcolor}") < lines.index("\\usepackage{tikz}")
    assert "nosuchpackage" not in document
    assert "\\newcommand{\\spot}" in document and lines[-1] == "\\end{document}"


@needs_tex
def test_a_picture_is_drawn_as_a_sanitized_svg_with_its_size(tmp_path: Path) -> None:
    renderer = PictureRenderer(ROOT, tmp_path, tmp_path)
    drawing = picture("\\begin{tikzpicture}\n\\draw (0,0) -- (2,0);\n\\spot{1,0}\n\\end{tikzpicture}")
    (result,) = renderer.draw_all([drawing]).values()
    assert result.error == ""
    assert result.svg.startswith("<?xml") and "<svg" in result.svg
    assert 56 < result.width < 62  # 2 cm of line and the dots' half-widths: 56.9 pt and a little
    assert "#9" in result.svg.lower() or "fill=" in result.svg  # the colour came through
    assert list((tmp_path / "pictures").glob("*.json")), "kept in the cache"
    again = PictureRenderer(ROOT, tmp_path, tmp_path)
    again.sanitizer = None  # type: ignore[assignment]  # from the cache: nothing is drawn or sanitized again
    assert list(again.draw_all([drawing]).values()) == [result]


@needs_tex
def test_hostile_tex_cannot_inject_script_or_read_files(tmp_path: Path) -> None:
    renderer = PictureRenderer(ROOT, tmp_path, tmp_path)
    raw = "\\special{dvisvgm:raw <script>alert(1)</script><a href='javascript:alert(2)'><text>x</text></a>}"
    injected = picture(f"\\begin{{tikzpicture}}\\draw (0,0) -- (1,1);{raw}\\end{{tikzpicture}}")
    reading = picture("\\begin{tikzpicture}\\node {\\input{/etc/hostname}};\\end{tikzpicture}")
    writing = picture(
        "\\begin{tikzpicture}\\immediate\\write18{touch /tmp/pwned}\\draw (0,0)--(1,0);\\end{tikzpicture}"
    )
    results = renderer.draw_all([injected, reading, writing])
    svg = results[injected].svg
    assert svg and "script" not in svg.lower() and "javascript" not in svg.lower()
    assert results[reading].svg == "" and "TeX failed" in results[reading].error
    assert not Path("/tmp/pwned").exists()


@needs_tex
def test_a_tex_error_names_the_line_in_the_picture(tmp_path: Path) -> None:
    renderer = PictureRenderer(ROOT, tmp_path, tmp_path)
    broken = picture("\\begin{tikzpicture}\n\\draw (0,0) -- (1,0);\n\\nosuchmacro\n\\end{tikzpicture}")
    (result,) = renderer.draw_all([broken]).values()
    assert (result.error, result.line) == ("TeX failed: Undefined control sequence.", 3)


def test_without_tex_each_picture_is_a_placeholder_and_one_warning(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name in ("latex", "dvisvgm") else real_which(name))
    text = (
        "\\section{Idea}\nA picture:\n\\begin{tikzpicture}\n\\draw (0,0) -- (1,0);\n\\node at (0,0) {a};\n"
        "\\end{tikzpicture}\nand another \\tikz \\draw (0,0) circle (1pt); inline.\n"
    )
    archive = make_archive({"t/one/solution.tex": text, "t/one/solution.py": "print(1)\n"})
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    found = [(d.line, d.message) for d in report.diagnostics if "TikZ" in d.message]
    needed = "TikZ picture not drawn: install a TeX system with TikZ and dvisvgm (Debian: texlive-pictures, dvisvgm)"
    assert found == [(3, needed), (7, needed)]
    page = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    assert page.count('class="missing-picture"') == 2


@needs_tex
def test_a_built_page_shows_the_drawing_and_the_failing_picture_is_named(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    text = (
        "\\documentclass{article}\n\\usepackage{tikz}\n\\newcommand{\\side}{2}\n\\begin{document}\n"
        "\\begin{tikzpicture}\n\\draw (0,0) rectangle (\\side,1);\n\\end{tikzpicture}\n\n"
        "\\begin{tikzpicture}\n\\draw (0,0) -- (1,0);\n\\undefinedinpicture\n\\end{tikzpicture}\n\\end{document}\n"
    )
    archive = make_archive({"t/one/solution.tex": text, "t/one/solution.py": "print(1)\n"})
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    found = [(d.path.rsplit("/", 1)[-1], d.line, d.message) for d in report.diagnostics if "TikZ" in d.message]
    assert found == [("solution.tex", 11, "TikZ picture TeX failed: Undefined control sequence.")]
    page = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    (data,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    svg = base64.b64decode(data).decode("utf-8")
    assert "<path" in svg and "<script" not in svg


def tiny_png(width: int = 3, height: int = 2) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@needs_tex
def test_an_image_inside_a_picture_is_drawn_into_it(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    text = (
        "\\begin{tikzpicture}\n\\draw (0,0) -- (2,0);\n"
        "\\node at (1,0) {\\includegraphics[width=5mm]{img/lamp}};\n\\end{tikzpicture}\n"
    )
    files = {"t/one/solution.tex": text, "t/one/solution.py": "print(1)\n", "t/one/img/lamp.png": tiny_png()}
    archive = make_archive(files)
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert [d.message for d in report.diagnostics if "TikZ" in d.message] == []
    page = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    (data,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    svg = base64.b64decode(data).decode("utf-8")
    assert re.search(r'<image [^>]*href="data:image/png;base64,', svg), svg[:2000]


def test_image_sizes_come_from_png_and_jpeg_headers() -> None:
    from site_builder.render.pictures import bitmap_size

    assert bitmap_size(tiny_png(7, 5)) == (7, 5)
    jpeg = b"\xff\xd8" + b"\xff\xe0\x00\x04\x00\x00" + b"\xff\xc0\x00\x0b\x08\x00\x09\x00\x0c\x01\x01\x11\x00"
    assert bitmap_size(jpeg) == (12, 9)
    assert bitmap_size(b"GIF89a....") is None
