"""TikZ pictures: drawn by TeX in the sandbox, sanitized, cached, and placeholders without TeX."""

from __future__ import annotations

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
    assert 'fill="#b8140b"' in result.svg.lower()  # the colour came through: dvipsnames' BrickRed
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
    said = "TeX failed: Undefined control sequence \\nosuchmacro (defined by a package this document does not load?)"
    assert (result.error, result.line) == (said, 3)


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
    said = "TikZ picture TeX failed: Undefined control sequence \\undefinedinpicture (defined by a package"
    assert found == [("solution.tex", 11, f"{said} this document does not load?)")]
    page = tmp_path / "site" / "t" / "one" / "index.html"
    ((svg, _),) = figures(page)
    assert "<path" in svg and "<script" not in svg


@needs_tex
def test_a_formula_with_a_tikz_picture_in_it_is_drawn_whole_by_tex(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """A macro that draws a ring around a number, used in math (its node sets math too): no math
    renderer draws TikZ, so TeX draws each such formula, inline or displayed; other math stays math."""
    text = (
        "\\documentclass{article}\n\\usepackage{tikz}\n"
        "\\newcommand*\\ringed[1]{\\tikz[baseline=(r.base)]{\\node[draw,circle,inner sep=1pt] (r) {$#1$};}}\n"
        "\\begin{document}\nFrom $\\ringed 2 \\to \\ringed 5$, a dot $x \\tikz \\fill (0,0) circle (1pt); y$,\n"
        "\\[ \\ringed 1 + \\ringed 1 = \\ringed 2 \\]\nand $a+b$.\n\\end{document}\n"
    )
    archive = make_archive({"t/one/solution.tex": text, "t/one/solution.py": "print(1)\n"})
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert [d.message for d in report.diagnostics if d.path.endswith("solution.tex")] == []
    page = tmp_path / "site" / "t" / "one" / "index.html"
    drawn = figures(page)
    assert len(drawn) == 3 and all("<path" in svg and "<script" not in svg for svg, _ in drawn)
    assert page.read_text("utf-8").count('class="tex-picture tex-display"') == 1
    assert "<math" in page.read_text("utf-8")  # a+b


def figures(page: Path) -> list[tuple[str, str]]:
    """The figures a page shows as files of the site's ``figures/`` (never inline): (their SVG text, the tag)."""
    text = page.read_text("utf-8")
    assert "data:image/svg+xml" not in text
    found = []
    for tag in re.findall(r"<img [^>]*>", text):
        source = re.search(r'src="([^"]+)"', tag)
        if source and "/figures/" in source.group(1):
            found.append(((page.parent / source.group(1)).resolve().read_text("utf-8"), tag))
    return found


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
    ((svg, _),) = figures(tmp_path / "site" / "t" / "one" / "index.html")
    assert re.search(r'<image [^>]*href="data:image/png;base64,', svg), svg[:2000]


def test_image_sizes_come_from_png_and_jpeg_headers() -> None:
    from site_builder.render.pictures import bitmap_size

    assert bitmap_size(tiny_png(7, 5)) == (7, 5)
    jpeg = b"\xff\xd8" + b"\xff\xe0\x00\x04\x00\x00" + b"\xff\xc0\x00\x0b\x08\x00\x09\x00\x0c\x01\x01\x11\x00"
    assert bitmap_size(jpeg) == (12, 9)
    assert bitmap_size(b"GIF89a....") is None


def tiny_pdf() -> bytes:
    """A one-page PDF of a filled square, written by hand (offsets computed)."""
    stream = b"0.8 0.2 0.2 rg 10 10 80 40 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 60] /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


HAVE_PDFTOCAIRO = bool(shutil.which("pdftocairo"))
needs_poppler = pytest.mark.skipif(not HAVE_PDFTOCAIRO, reason="no pdftocairo (poppler-utils) on this machine")


def _pdf_entry(make_archive: ArchiveMaker, broken: bytes = b"%PDF-1.4\nnot really a PDF\n") -> Path:
    return make_archive(
        {
            "t/one/solution.tex": "A square:\n\\includegraphics[width=5cm]{shape}\nand a broken one:\n"
            "\\includegraphics{broken.pdf}\n",
            "t/one/solution.py": "print(1)\n",
            "t/one/shape.pdf": tiny_pdf(),
            "t/one/broken.pdf": broken,
            "t/two/solution.md": "# Two\n\nThe square again: ![a square](shape.pdf)\n",
            "t/two/solution.py": "print(2)\n",
            "t/two/shape.pdf": tiny_pdf(),
        }
    )


@needs_poppler
def test_pdf_figures_are_converted_and_a_broken_one_is_a_link_and_a_warning(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    archive = _pdf_entry(make_archive)
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    found = [(d.path.rsplit("/", 1)[-1], d.line, d.message) for d in report.diagnostics if "PDF" in d.message]
    assert len(found) == 1 and found[0][:2] == ("solution.tex", 4), found
    assert found[0][2].startswith("PDF figure pdftocairo failed on broken.pdf")
    page = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    ((svg, tag),) = figures(tmp_path / "site" / "t" / "one" / "index.html")
    assert "<path" in svg and "script" not in svg
    assert 'style="width: 5cm"' in tag and 'loading="lazy"' in tag
    assert 'alt="shape"' in tag  # no caption: its file's name, never "PDF figure"
    assert re.search(r' width="[1-9][0-9]*" height="[1-9][0-9]*"', tag), tag  # pdftocairo's size, quoted with "
    assert '<a class="pdf-figure" href="broken.pdf">[figure: broken.pdf]</a>' in page
    markdown_page = (tmp_path / "site" / "t" / "two" / "index.html").read_text("utf-8")
    assert 'alt="shape"' in markdown_page and 'alt="PDF figure' not in markdown_page + page


def test_without_poppler_a_pdf_figure_is_a_link_never_not_found(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "pdftocairo" else real_which(name))
    archive = _pdf_entry(make_archive, tiny_pdf())
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    messages = [(d.line, d.message) for d in report.diagnostics if d.path.endswith("one/solution.tex")]
    needed = (
        "PDF figure not shown: install poppler-utils (pdftocairo) to show PDF figures; here it is a link to the PDF"
    )
    assert messages == [(2, needed), (4, needed)]
    assert not any("not found" in d.message for d in report.diagnostics)
    page = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    assert '<a class="pdf-figure" href="shape.pdf">[figure: shape.pdf]</a>' in page
    assert (tmp_path / "site" / "t" / "one" / "shape.pdf").is_file()  # what the link leads to is published
