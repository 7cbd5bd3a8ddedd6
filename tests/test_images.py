"""source/images.py: an archive image's size from its first bytes, and pages giving it to ``<img>``."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pytest
from conftest import ArchiveMaker, load_one, options_for

from site_builder.build import build_site
from site_builder.source.images import image_size


def png(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * 3 * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def jpeg(width: int, height: int, orientation: int | None = None, padding: int = 0) -> bytes:
    """A JPEG's segments up to its frame header: an Exif block (big-endian, one entry) when
    ``orientation`` is given, a comment of ``padding`` bytes, and a fill byte before the frame."""
    out = b"\xff\xd8"
    if orientation is not None:
        ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\x00" * 4
        exif = b"Exif\x00\x00" + b"MM\x00\x2a" + struct.pack(">I", 8) + ifd
        out += b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
    if padding:
        out += b"\xff\xfe" + struct.pack(">H", padding + 2) + b"x" * padding
    frame = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x11\x00" * 3
    return out + b"\xff\xff\xc2" + struct.pack(">H", len(frame) + 2) + frame + b"\xff\xd9"


def webp(kind: bytes, width: int, height: int) -> bytes:
    if kind == b"VP8 ":
        body = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    elif kind == b"VP8L":
        body = b"\x2f" + ((width - 1) | (height - 1) << 14).to_bytes(4, "little")
    else:
        body = b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    body += b"\x00" * 8
    chunk = kind + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


@pytest.mark.parametrize(
    ("name", "data", "size"),
    [
        ("a.png", png(7, 5), (7, 5)),
        ("a.jpg", jpeg(640, 480), (640, 480)),
        ("a.jpeg", jpeg(640, 480, orientation=1, padding=3000), (640, 480)),
        ("turned.jpg", jpeg(640, 480, orientation=6), (480, 640)),  # a phone photo held upright
        ("a.gif", b"GIF89a" + struct.pack("<HH", 33, 22) + b"\x00" * 8, (33, 22)),
        ("lossy.webp", webp(b"VP8 ", 300, 200), (300, 200)),
        ("lossless.webp", webp(b"VP8L", 300, 200), (300, 200)),
        ("extended.webp", webp(b"VP8X", 3000, 2000), (3000, 2000)),
        ("a.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80">', (120, 80)),
        ("pt.svg", b"<svg width='176.6pt' height='90pt' viewBox='0 0 176.6 90'>", (235, 120)),
        ("box.svg", b'<svg viewBox="0 0 400 100" xmlns="http://www.w3.org/2000/svg"></svg>', (400, 100)),
        ("half.svg", b'<svg width="200" viewBox="0,0,400,100"></svg>', (200, 50)),
        ("percent.svg", b'<svg width="100%" height="100%" viewBox="0 0 40 10"></svg>', (40, 10)),
        # an Exif block whose first entry lies past its end: not turned
        ("bad-exif.jpg", b"\xff\xd8\xff\xe1\x00\x10Exif\x00\x00II\x2a\x00\xff\xff\xff\x7f" + jpeg(9, 9)[2:], (9, 9)),
        ("stroke.svg", b'<svg stroke-width="3" viewBox="0 0 40 10"></svg>', (40, 10)),
    ],
)
def test_an_image_size_is_read_from_its_header(name: str, data: bytes, size: tuple[int, int]) -> None:
    assert image_size(name, data) == size


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("cut.png", png(7, 5)[:20]),
        ("cut.jpg", jpeg(640, 480)[:9]),  # the frame header cut off
        ("zero.png", png(0, 5)),
        ("loop.jpg", b"\xff\xd8\xff\xe0\x00\x00"),  # a segment length that does not advance
        ("text.png", b"not an image at all"),
        ("huge.gif", b"GIF89a" + struct.pack("<HH", 65535, 0) + b"\x00" * 4),
        ("none.svg", b"<svg xmlns='http://www.w3.org/2000/svg'><rect/></svg>"),  # 300 by 150: not the author's
        ("words.svg", b'<svg width="wide" height="tall"></svg>'),
        ("negative.svg", b'<svg viewBox="0 0 -5 10"></svg>'),
    ],
)
def test_a_header_that_does_not_say_gives_no_size(name: str, data: bytes) -> None:
    assert image_size(name, data) is None


def test_a_page_gives_each_archive_image_its_size(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "t/one/solution.tex": "A photo:\n\\includegraphics[width=0.5\\textwidth]{photo}\n"
            "a drawing: \\includegraphics{drawing.svg}\n",
            "t/one/photo.jpg": jpeg(1500, 844, padding=40),
            "t/one/drawing.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 30"><rect width="9"/></svg>',
            "t/two/solution.md": "# Two\n\n![a plot](img/plot.png)\n",
            "t/two/img/plot.png": png(64, 48),
        }
    )
    build_site(options_for(archive, tmp_path / "site", verify=False))
    one = (tmp_path / "site" / "t" / "one" / "index.html").read_text("utf-8")
    two = (tmp_path / "site" / "t" / "two" / "index.html").read_text("utf-8")
    tags = {m.group(1): m.group(0) for m in re.finditer(r'<img src="([^"]+)"[^>]*>', one + two)}
    assert 'width="1500" height="844"' in tags["photo.jpg"] and 'style="width: 50%"' in tags["photo.jpg"]
    assert 'width="60" height="30"' in tags["drawing.svg"]
    assert 'width="64" height="48"' in tags["img/plot.png"] and 'alt="a plot"' in tags["img/plot.png"]
    assert all('decoding="async"' in tag for tag in tags.values())


def test_a_large_photo_is_measured_without_being_read_whole(make_archive: ArchiveMaker) -> None:
    big = jpeg(4000, 3000, padding=60_000) + b"\x00" * (5 << 20)  # over the limit for text: only hashed
    _, source = load_one(make_archive, {"t/one/solution.md": "![x](big.jpg)\n", "t/one/big.jpg": big})
    assert source.file("big.jpg").image_size == (4000, 3000)
