"""The math font, cut down to the characters the site's math draws, and Temml's stylesheet naming it.

STIX Two Math (from @fontsource/stix-two-math) is 400 KB; the math of an archive uses a few
hundred of its glyphs. fontTools keeps those, their variants and the parts the OpenType MATH table
builds stretched delimiters, radicals and big operators from, and every layout feature (script
alternates, primes), and writes WOFF2. It cuts the package's WOFF file, the same font without
TrueType hinting (``render/math.py``'s ``STIX_OUTLINES``): read in milliseconds, where the WOFF2
file's outlines take half a second, and a third smaller cut. The result is the same bytes for the
same characters, and is published under a name made from its digest (``STIXTwoMath-<digest>.woff2``), which
``temml.css`` names: a browser never takes an old cut of the font for a new one. Each cut is kept in
``.cache/fonts/`` by a key of the font, this module, fontTools' version and the characters, so a build that
changes none of them does not cut again (a cut takes a quarter of a second).
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..render.math import MathSources
from ..store import write_atomic

log = logging.getLogger(__name__)

STYLESHEET = "temml.css"
FONT_PREFIX = "STIXTwoMath-"
_FONT_URL = re.compile(rb"url\(['\"]?\./STIXTwoMath\.woff2['\"]?\)")
_KEPT = 8  # cuts kept in the cache: a dev server and a build (or two checkouts) may take turns


@dataclass(frozen=True, slots=True)
class MathAssets:
    """What pages with math load: Temml's stylesheet and the font cut it names, by path in static/."""

    files: dict[str, bytes]
    chars: str  # the characters the font was cut to
    problem: str | None = None  # why the whole font is published instead, when it could not be cut


def site_math_chars(chars: list[str]) -> str:
    """The characters of every page's math together, sorted."""
    return "".join(sorted(set("".join(chars))))


def math_assets(sources: MathSources, chars: str, cache: Path) -> MathAssets:
    """Temml's stylesheet naming a cut of the math font to ``chars``, and that cut."""
    problem = None
    try:
        cut = cut_font(sources.outlines, chars, cache)
    except Exception as e:  # fontTools raises many kinds; the whole font still shows every formula
        problem = f"the math font could not be cut to the characters used ({type(e).__name__}: {e}); published whole"
        log.warning("%s", problem)
        cut = sources.font
    name = f"{FONT_PREFIX}{hashlib.sha256(cut).hexdigest()[:16]}.woff2"
    css = _FONT_URL.sub(f"url('./{name}')".encode(), sources.stylesheet)
    return MathAssets({STYLESHEET: css, name: cut}, chars, problem)


def cut_font(font: bytes, chars: str, cache: Path) -> bytes:
    """``font`` (any format fontTools reads) cut to ``chars`` as WOFF2, from the cache when it was cut
    so before."""
    from fontTools import version as fonttools_version

    rules = Path(__file__).read_bytes()  # how this module cuts
    key = hashlib.sha256(b"\0".join([hashlib.sha256(font).digest(), rules, fonttools_version.encode(), chars.encode()]))
    path = cache / "fonts" / f"{key.hexdigest()[:32]}.woff2"
    try:
        data = path.read_bytes()
        os.utime(path)  # recently used: kept by ``_forget_old_cuts``
        return data
    except OSError:
        pass
    data = _subset(font, chars)
    write_atomic(path, data)
    _forget_old_cuts(path.parent)
    return data


# Always kept: printable ASCII and the Greek letters. FreeType's auto-hinter, which Chromium on Linux
# uses, places its alignment zones by reference letters of each script ("x", "o", "H", "β"...): a
# cut without them snaps the formulas' glyphs to other heights, a pixel off the whole font's.
ALWAYS_KEPT = "".join(map(chr, range(0x20, 0x7F))) + "".join(chr(c) for c in range(0x391, 0x3CA) if c != 0x3A2)


def _subset(font: bytes, chars: str) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    face = TTFont(io.BytesIO(font), recalcBBoxes=False, recalcTimestamp=False)
    face.flavor = "woff2"
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # ssty (script forms), primes, the stylistic sets Temml's CSS asks for
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.recalc_timestamp = False
    options.prune_unicode_ranges = False  # the whole font's metrics and ranges: browsers lay formulas out by them
    options.prune_codepage_ranges = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted({ord(ch) for ch in chars + ALWAYS_KEPT}))
    subsetter.subset(face)  # the MATH table's variants and assemblies of the kept glyphs are kept too
    out = io.BytesIO()
    face.save(out)
    return out.getvalue()


def _forget_old_cuts(folder: Path) -> None:
    cuts = sorted(folder.glob("*.woff2"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for stale in cuts[_KEPT:]:
        stale.unlink(missing_ok=True)
