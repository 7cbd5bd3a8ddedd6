"""The size in CSS pixels of an archive's image, from the first bytes of the file (PNG, JPEG, GIF,
WebP, SVG): pages give every image its ``width`` and ``height``, so that nothing moves when it loads.

Pure: bytes in, a size (or None when the header does not say) out. The bytes come from the archive and
are hostile: every read is bounded by what is there, and a header that makes no sense gives None.
"""

from __future__ import annotations

import re
import struct

# What is read of a file too large to hold whole: a JPEG's size follows its Exif block (at most 64 KiB)
# and any other metadata blocks; an SVG's is on its root element.
HEAD_BYTES = 256 * 1024
MAX_SIDE = 1 << 16  # no image of a problem statement is larger; a header that says so is not believed

# JPEG "start of frame" markers (every coding: baseline, progressive, lossless, arithmetic), which carry the size
_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})  # markers with no length after them (TEM, RST0-7)


SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")  # the images a page shows as they are


def is_image_name(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def image_size(name: str, data: bytes) -> tuple[int, int] | None:
    """The width and height an image is shown at, by default, in CSS pixels: a bitmap's pixels (a
    JPEG's turned as its Exif orientation turns it, as browsers do), an SVG's ``width`` and ``height``
    (else its ``viewBox``)."""
    if name.lower().endswith(".svg"):
        return _checked(svg_size(data))
    return _checked(png_size(data) or jpeg_size(data) or gif_size(data) or webp_size(data))


def _checked(size: tuple[float, float] | None) -> tuple[int, int] | None:
    if size is None:
        return None
    width, height = round(size[0]), round(size[1])
    return (width, height) if 0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE else None


def png_size(data: bytes) -> tuple[int, int] | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return None


def gif_size(data: bytes) -> tuple[int, int] | None:
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    return None


def webp_size(data: bytes) -> tuple[int, int] | None:
    """A WebP's canvas: lossy (``VP8 ``), lossless (``VP8L``) or extended (``VP8X``)."""
    if len(data) < 30 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's size from its frame header, walking the marker segments before it."""
    if not data.startswith(b"\xff\xd8"):
        return None
    turned = False
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte before a marker
            i += 1
            continue
        if marker in _STANDALONE:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if length < 2:
            return None
        if marker == 0xE1:
            turned = turned or _exif_turned(data[i + 4 : i + 2 + length])
        elif marker in _SOF:
            if i + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return (height, width) if turned else (width, height)
        i += 2 + length
    return None


def _exif_turned(block: bytes) -> bool:
    """Whether an Exif block's orientation turns the picture a quarter (orientations 5 to 8): its
    width and height are then swapped on screen."""
    if not block.startswith(b"Exif\x00\x00") or len(block) < 14:
        return False
    tiff = block[6:]
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None:
        return False
    (first,) = struct.unpack(order + "I", tiff[4:8])
    if first + 2 > len(tiff):
        return False
    (count,) = struct.unpack(order + "H", tiff[first : first + 2])
    for n in range(count):
        at = first + 2 + 12 * n
        if at + 12 > len(tiff):
            return False
        tag, kind, _, value = struct.unpack(order + "HHIH", tiff[at : at + 10])
        if tag == 0x0112 and kind == 3:
            return value in (5, 6, 7, 8)
    return False


_SVG_ROOT = re.compile(rb"<svg\b[^>]*>", re.I)
_ATTRIBUTE = r"""\s{}\s*=\s*["']\s*([^"']*?)\s*["']"""
_LENGTH = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(px|pt|pc|mm|cm|in|)")
_PX = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}


def svg_size(data: bytes) -> tuple[float, float] | None:
    """An SVG's ``width`` and ``height`` in absolute units, else its ``viewBox``'s (a browser shows an
    SVG with neither at 300 by 150, a size its author did not choose: None then)."""
    root = _SVG_ROOT.search(data[:HEAD_BYTES])
    if root is None:
        return None
    tag = root.group().decode("utf-8", "replace")
    width, height = _svg_length(tag, "width"), _svg_length(tag, "height")
    box = re.search(_ATTRIBUTE.format("viewBox"), tag)
    numbers = box.group(1).replace(",", " ").split() if box else []
    try:
        box_width, box_height = (float(numbers[2]), float(numbers[3])) if len(numbers) == 4 else (0.0, 0.0)
    except ValueError:
        box_width = box_height = 0.0
    if width and height:
        return width, height
    if box_width > 0 and box_height > 0:  # one side given: the other by the box's proportions
        if width:
            return width, width * box_height / box_width
        if height:
            return height * box_width / box_height, height
        return box_width, box_height
    return None


def _svg_length(tag: str, name: str) -> float | None:
    found = re.search(_ATTRIBUTE.format(name), tag)
    length = _LENGTH.fullmatch(found.group(1)) if found else None
    return float(length.group(1)) * _PX[length.group(2)] if length else None
