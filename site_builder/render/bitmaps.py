"""Photos and screenshots of statements made light: smaller copies of each large bitmap, for ``srcset``.

Packages show photos and screenshots of several megabytes at a column's width (a 1920-pixel PNG of 3.7 MB
drawn 350 pixels wide on a phone). Each such image gets copies in WebP at a few widths, which the page
offers beside the original (``srcset`` and ``sizes``): a browser fetches the one its screen needs, and the
original stays the image's ``src`` and a file of the entry. The copies are made by Pillow in the sandbox,
as every program that reads archive content runs (an image decoder reads hostile bytes); what comes back
must be a WebP of the width asked for, or nothing is used. Outcomes are cached by the image's digest,
Pillow's version and this code. Without Pillow, pages show the originals.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import os
import re
import struct
import sys
from dataclasses import dataclass, replace
from functools import cache
from importlib.util import find_spec
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ..errors import Diagnostic
from ..model import Document, Entry, EntrySource
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..sandbox.runner import Limits, Toolchain, interpreter_folders
from ..source.images import webp_size
from ..store import installed_version, write_atomic

SCALED_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")  # not GIF, which may move (an animated PNG gets none either)
WIDTHS = (480, 960, 1600)  # a phone's column (at 1x and 2x), a desktop's at 2x
MIN_BYTES = 100 * 1024  # smaller images are not worth a copy
MAX_BYTES = 32 * 1024 * 1024  # larger images are shown as they are
MAX_PIXELS = 64_000_000  # Pillow refuses images that decode to more (a few bytes can claim billions)
# What the image is drawn at: its laid-out width (``auto``: a lazy image's, in browsers that know it), else
# the content column's, 48rem (--measure) wide, and the whole screen's width on a phone.
SIZES = "auto, (max-width: 50rem) 100vw, 48rem"
INSIDE = "/opt/pillow"  # where the sandbox shows Pillow
LIMITS = Limits(wall=30.0, memory=1024 * 1024 * 1024, output=32 * 1024 * 1024, scratch=64 * 1024 * 1024)
# Run by the sandbox's Python: the image in ``image``, each copy to stdout as width, height, length, bytes.
SCRIPT = """
import sys, struct, warnings
sys.path.insert(0, sys.argv[1])
from PIL import Image, ImageOps
Image.MAX_IMAGE_PIXELS = int(sys.argv[2])
warnings.simplefilter("error", Image.DecompressionBombWarning)
image = Image.open("image")
if getattr(image, "is_animated", False):  # an animated PNG or WebP: a still copy would not do
    sys.exit(0)
largest = int(sys.argv[-1])
turned = image.getexif().get(0x0112, 1) in (5, 6, 7, 8)  # a JPEG's Exif orientation swaps its sides
image.draft("RGB", (1, largest) if turned else (largest, 1))  # a JPEG decoded at a fraction of its size
image = ImageOps.exif_transpose(image)
image = image.convert("RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB")
for width in map(int, sys.argv[3:]):
    if width > image.width:
        break
    copy = image.resize((width, max(1, round(image.height * width / image.width))), Image.LANCZOS, reducing_gap=3.0)
    out = __import__("io").BytesIO()
    copy.save(out, "WEBP", quality=80, method=4)
    data = out.getvalue()
    sys.stdout.buffer.write(struct.pack(">III", copy.width, copy.height, len(data)) + data)
"""


@dataclass(frozen=True, slots=True)
class Scaled:
    """An image's copies: each width with its WebP bytes (none: the image is shown as it is), or
    ``error``: why none could be made."""

    copies: tuple[tuple[int, bytes], ...] = ()
    error: str = ""


def wanted_widths(size: tuple[int, int] | None, file_size: int) -> tuple[int, ...]:
    """The widths of the copies worth making of an image of ``size`` pixels and ``file_size`` bytes:
    those well below its own width (none for a small file, or one too large to read)."""
    if size is None or not MIN_BYTES <= file_size <= MAX_BYTES:
        return ()
    return tuple(w for w in WIDTHS if w * 5 <= size[0] * 4)


class BitmapScaler:
    """Makes the copies with Pillow in the sandbox; keeps them in ``<cache>/bitmaps``."""

    def __init__(self, cache_dir: Path) -> None:
        self.folder = cache_dir / "bitmaps"
        self.pillow = _pillow()

    def scaled(self, path: Path, digest: str, widths: tuple[int, ...]) -> Scaled:
        """The copies of the image at ``path`` (with that digest) at ``widths``: from the cache, or made now."""
        if not widths or self.pillow is None:
            return Scaled()
        key = hashlib.sha256(f"{_CODE}\0{self.pillow[1]}\0{digest}\0{widths}".encode()).hexdigest()[:32]
        kept = self._cached(key)
        if kept is None:
            kept, lasting = self._made(path, widths)
            if lasting:
                self._keep(key, kept)
        return kept

    def _made(self, path: Path, widths: tuple[int, ...]) -> tuple[Scaled, bool]:
        """The copies, and whether the outcome lasts: one that may differ next time (the file could not
        be read, the sandbox could not start, the run took too long on a busy machine) is not kept."""
        assert self.pillow is not None
        try:
            data = read_regular(path, MAX_BYTES + 1)
        except OSError as error:
            return Scaled(error=f"cannot read it: {error.strerror or error}"), False
        folder, _ = self.pillow
        python = os.path.realpath(sys.executable)
        isolated = sandbox.isolated()
        where = INSIDE if isolated else str(folder)
        shown = [name for name in ("PIL", "pillow.libs") if (folder / name).is_dir()]  # the package, its libraries
        binds = tuple((str(folder / name), f"{INSIDE}/{name}") for name in shown)
        toolchain = Toolchain(binds + tuple((str(f), str(f)) for f in interpreter_folders(python)))
        argv = [python, "-I", "-S", "-c", SCRIPT, where, str(MAX_PIXELS), *map(str, widths)]
        try:
            run = sandbox.run(argv, None, LIMITS, files={"image": data}, toolchain=toolchain)
        except OSError as error:
            return Scaled(error=f"Pillow could not be started: {error}"), False
        if run.timed_out:
            return Scaled(error=f"Pillow took over {LIMITS.wall:g} s"), False
        if run.exit_code != 0:
            why = run.stderr.strip().splitlines()[-1:] or [f"exit code {run.exit_code}"]
            return Scaled(error=f"Pillow could not read it: {why[0][:200]}"), True
        return parse_copies(run.stdout, widths), True

    def _cached(self, key: str) -> Scaled | None:
        try:
            value = json.loads((self.folder / f"{key}.json").read_text("utf-8"))
            copies = tuple((int(w), (self.folder / f"{key}-{int(w)}.webp").read_bytes()) for w in value["widths"])
            return Scaled(copies, str(value["error"]))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def _keep(self, key: str, scaled: Scaled) -> None:
        with contextlib.suppress(OSError):  # not kept: made again next time
            for width, data in scaled.copies:
                write_atomic(self.folder / f"{key}-{width}.webp", data)
            value = {"widths": [w for w, _ in scaled.copies], "error": scaled.error}
            write_atomic(self.folder / f"{key}.json", json.dumps(value).encode())


def parse_copies(stdout: bytes, widths: tuple[int, ...]) -> Scaled:
    """The copies the sandboxed run wrote, each checked: a WebP whose header says the width asked
    for, in order; anything else and none is used."""
    copies: list[tuple[int, bytes]] = []
    at = 0
    while at < len(stdout):
        if at + 12 > len(stdout) or len(copies) >= len(widths):
            return Scaled(error="Pillow's output was cut short or too long")
        width, height, length = struct.unpack(">III", stdout[at : at + 12])
        data = stdout[at + 12 : at + 12 + length]
        at += 12 + length
        if len(data) != length or width != widths[len(copies)] or webp_size(data) != (width, height):
            return Scaled(error="Pillow's output is not the WebP images asked for")
        copies.append((width, data))
    return Scaled(tuple(copies))


_IMG_SRC = re.compile(r'<img src="([^"]*)"')


def shown_bitmaps(documents_html: list[str]) -> list[str]:
    """The images the documents show by file name (as the renderers wrote their ``src``), once each."""
    return list(dict.fromkeys(html.unescape(m.group(1)) for text in documents_html for m in _IMG_SRC.finditer(text)))


def with_srcset(text: str, scaled: dict[str, tuple[Scaled, int]]) -> str:
    """The document's HTML with each scaled image offering its copies (as ``data:`` URLs, which the page
    makes files of: ``publish/pages.py``) and its original, at its width (``scaled``: by file name, the
    copies and the original's width)."""

    def one(m: re.Match[str]) -> str:
        found = scaled.get(html.unescape(m.group(1)))
        if found is None or not found[0].copies:
            return m.group(0)
        copies, width = found
        candidates = [f"data:image/webp;base64,{base64.b64encode(d).decode('ascii')} {w}w" for w, d in copies.copies]
        candidates.append(f"{quote(html.unescape(m.group(1)), safe='/')} {width}w")  # a space or comma would end it
        return f'{m.group(0)} srcset="{", ".join(candidates)}" sizes="{SIZES}"'

    return _IMG_SRC.sub(one, text)


def is_scaled_name(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in SCALED_SUFFIXES


@cache
def _pillow() -> tuple[Path, str] | None:
    """The folder holding Pillow (its ``PIL`` and bundled libraries), and its version; None without it."""
    spec = find_spec("PIL")  # found, not imported: the builder itself decodes no image
    if spec is None or spec.origin is None:
        return None
    version = installed_version("pillow")
    return (Path(spec.origin).resolve().parent.parent, version) if version is not None else None


_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]


def fill_entry_bitmaps(entry: Entry, source: EntrySource, scaler: BitmapScaler, folder: Path) -> Entry:
    """The entry with each large bitmap its documents show offering smaller copies (``folder``: the
    problem folder); a warning for each image Pillow could not read."""
    documents = [d for d in (entry.statement, entry.solution, *entry.translations) if d is not None]
    files = {f.name: f for f in source.files}
    scaled: dict[str, tuple[Scaled, int]] = {}
    problems: list[Diagnostic] = []
    for name in shown_bitmaps([d.html for d in documents]):
        item = files.get(name)
        if item is None or not is_scaled_name(name) or item.image_size is None:
            continue
        made = scaler.scaled(folder / name, item.digest, wanted_widths(item.image_size, item.size))
        scaled[name] = (made, item.image_size[0])
        if made.error:
            problems.append(Diagnostic(source.display_path(name), 0, f"no smaller copies: {made.error}", "warning"))
    if not any(s.copies for s, _ in scaled.values()) and not problems:
        return entry

    def fill(document: Document | None) -> Document | None:
        return None if document is None else replace(document, html=with_srcset(document.html, scaled))

    return replace(
        entry,
        statement=fill(entry.statement),
        solution=fill(entry.solution),
        translations=tuple(d for d in (fill(t) for t in entry.translations) if d is not None),
        diagnostics=entry.diagnostics + tuple(dict.fromkeys(problems)),
    )
