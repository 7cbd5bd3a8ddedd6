"""render/bitmaps.py: smaller WebP copies of a statement's large photos, made by Pillow in the sandbox,
offered in ``srcset``, and published as files by ``publish/pages.py``."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from pathlib import Path

import pytest
from conftest import an_entry

from site_builder.model import Document
from site_builder.publish.pages import figures_as_files
from site_builder.render import bitmaps
from site_builder.render.bitmaps import BitmapScaler, Scaled, parse_copies, wanted_widths, with_srcset
from site_builder.source.images import webp_size

needs_pillow = pytest.mark.skipif(bitmaps._pillow() is None, reason="Pillow is not installed")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def noisy_png(width: int, height: int) -> bytes:
    """A PNG of random grey pixels: it does not compress, like a photo."""
    rows = b"".join(b"\x00" + os.urandom(width) for _ in range(height))
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b"")


def webp(width: int, height: int) -> bytes:
    """A lossless WebP's header: enough for its size to be read."""
    body = b"\x2f" + ((width - 1) | (height - 1) << 14).to_bytes(4, "little") + b"\x00" * 8
    chunk = b"VP8L" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def framed(*copies: tuple[int, int, bytes]) -> bytes:
    return b"".join(struct.pack(">III", w, h, len(d)) + d for w, h, d in copies)


def test_copies_are_wanted_of_large_files_only_at_widths_well_below_their_own() -> None:
    assert wanted_widths((1920, 1080), 3_000_000) == (480, 960)
    assert wanted_widths((2816, 2112), 3_000_000) == (480, 960, 1600)
    assert wanted_widths((590, 400), 3_000_000) == ()  # 480 is not worth it for 590
    assert wanted_widths((1920, 1080), 50_000) == ()  # a small file: shown as it is
    assert wanted_widths((1920, 1080), 40 << 20) == ()  # too large to read
    assert wanted_widths(None, 3_000_000) == ()


def test_only_webp_images_of_the_widths_asked_for_are_taken_from_the_sandbox() -> None:
    good = parse_copies(framed((480, 270, webp(480, 270)), (960, 540, webp(960, 540))), (480, 960))
    assert [w for w, _ in good.copies] == [480, 960] and good.error == ""
    assert parse_copies(framed((480, 270, webp(480, 270))), (480, 960)).copies  # the image was narrower
    for bad in (
        framed((480, 270, b"<svg onload=alert(1)>" + b"x" * 20)),  # not a WebP
        framed((480, 270, webp(481, 270))),  # not the width it claims
        framed((960, 540, webp(960, 540))),  # not the width asked for first
        framed((480, 270, webp(480, 270)))[:-3],  # cut short
        framed((480, 270, webp(480, 270)), (960, 540, webp(960, 540)), (1, 1, webp(1, 1))),  # too many
    ):
        scaled = parse_copies(bad, (480, 960))
        assert scaled.copies == () and scaled.error, bad[:40]


def test_a_scaled_image_offers_its_copies_and_its_original_and_others_are_left_alone() -> None:
    text = '<p><img src="st/a&amp;b, c.png" alt="A" width="1920"></p><img src="st/small.png" alt="B">'
    scaled = {"st/a&b, c.png": (Scaled(((480, b"one"), (960, b"two"))), 1920), "st/small.png": (Scaled(), 300)}
    out = with_srcset(text, scaled)
    one, two = (base64.b64encode(d).decode() for d in (b"one", b"two"))
    srcset = f"data:image/webp;base64,{one} 480w, data:image/webp;base64,{two} 960w, st/a%26b%2C%20c.png 1920w"
    assert f'<img src="st/a&amp;b, c.png" srcset="{srcset}" sizes="{bitmaps.SIZES}" alt="A"' in out
    assert '<img src="st/small.png" alt="B">' in out


def test_the_page_links_each_copy_as_a_file_named_by_its_content() -> None:
    copy = webp(480, 270)
    data = base64.b64encode(copy).decode()
    text = (
        f'<img src="a.png" srcset="data:image/webp;base64,{data} 480w, a.png 1920w" sizes="100vw" alt="A">'
        '<img src="b.png" srcset="data:image/webp;base64,PHN2Zz4= 480w, b.png 900w" alt="not a WebP">'
    )
    entry = an_entry("t/a", title="A", statement=Document(file="s.md", html=text))
    linked, files = figures_as_files(entry, "../../")
    assert linked.statement is not None
    html = linked.statement.html
    assert "data:image/webp;base64," + data not in html
    ((name, payload),) = [(f.path, f.data) for f in files]
    assert name.startswith("figures/") and name.endswith(".webp") and payload == copy
    assert f'srcset="../../{name} 480w, a.png 1920w"' in html
    assert "data:image/webp;base64,PHN2Zz4= 480w" in html  # not a WebP: never a file of the site


@needs_pillow
def test_pillow_in_the_sandbox_makes_the_copies_and_they_are_kept(tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(noisy_png(1200, 60))
    scaled = BitmapScaler(tmp_path / "cache").scaled(image, "d1", (480, 960))
    assert scaled.error == ""
    assert [(w, webp_size(d)) for w, d in scaled.copies] == [(480, (480, 24)), (960, (960, 48))]
    image.write_bytes(b"gone")  # from the cache now: by the digest it had
    assert BitmapScaler(tmp_path / "cache").scaled(image, "d1", (480, 960)) == scaled


@needs_pillow
def test_an_image_pillow_refuses_gets_no_copies_and_says_why(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"  # a header claiming 60000 x 60000 pixels (3.6 billion): never decoded
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 0, 0, 0, 0))
    bomb.write_bytes(noisy_png(1, 1)[:8] + header + _chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + b"\0" * 200_000)
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"\xff\xd8" + b"not a picture" * 10_000)
    scaler = BitmapScaler(tmp_path / "cache")
    refused = {path.name: scaler.scaled(path, path.name, (480,)) for path in (bomb, junk)}
    assert all(s.copies == () and s.error.startswith("Pillow could not read it") for s in refused.values()), refused
    assert "DecompressionBomb" in refused["bomb.png"].error


@needs_pillow
def test_an_animated_png_gets_no_still_copies(tmp_path: Path) -> None:
    from PIL import Image  # our own image, made here

    frames = [Image.new("RGB", (800, 60), colour) for colour in ("red", "blue")]
    image = tmp_path / "moving.png"
    frames[0].save(image, save_all=True, append_images=frames[1:], duration=200)
    assert BitmapScaler(tmp_path / "cache").scaled(image, "d", (480,)) == Scaled()


@needs_pillow
def test_an_outcome_that_may_differ_next_time_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(noisy_png(600, 10))

    def busy(*args: object, **kwargs: object) -> object:
        raise OSError("no more processes")

    monkeypatch.setattr("site_builder.sandbox.runner.run", busy)
    scaler = BitmapScaler(tmp_path / "cache")
    assert scaler.scaled(image, "d", (480,)).error == "Pillow could not be started: no more processes"
    assert scaler.scaled(tmp_path / "missing.png", "e", (480,)).error.startswith("cannot read it")
    assert not (tmp_path / "cache").exists()  # tried again next time
