"""The math font cut down to the characters the site's math draws (publish/mathfont.py): what is kept
(the MATH table, the stretchy forms), that the same characters give the same bytes, the cache, and,
in Chromium, that formulas look exactly as they do with the whole font."""

from __future__ import annotations

import functools
import http.server
import io
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, options_for, write_tree

from site_builder.publish import mathfont
from site_builder.render.document import math_characters
from site_builder.render.math import MathRenderer, MathSources
from site_builder.render.workers import soon

TTFont = pytest.importorskip("fontTools.ttLib").TTFont
SOURCES = MathRenderer.math_sources(ROOT)
needs_temml = pytest.mark.skipif(SOURCES is None, reason="needs npm ci (temml and @fontsource/stix-two-math)")


def test_the_characters_of_math_are_its_text_its_italic_letters_and_the_radical_of_a_root() -> None:
    html = (
        "<p>x and y outside</p><math><mi>n</mi><mo>&#x2264;</mo><msqrt><mn>2</mn></msqrt></math>"
        '<math display="block"><mi>&#x3b1;</mi><mtext>if k</mtext></math>'
    )
    chars = math_characters(html)
    assert chars == "".join(sorted(chars))
    for ch in "n\u2264\u221a2\u03b1ifk":
        assert ch in chars, ch
    assert "\U0001d45b" in chars and "\U0001d6fc" in chars  # italic n and alpha: a one-letter <mi> is drawn so
    variants = math_characters("<math><mi>&#x3d5;</mi><mi>&#x3f5;</mi><mi>&#x2202;</mi><mi>&#x2207;</mi></math>")
    assert {"\U0001d719", "\U0001d716", "\U0001d715", "\U0001d6fb"} <= set(variants)  # italic phi, epsilon, ∂, ∇
    assert "\u2262" in math_characters("<math><mo>&#x2261;&#x338;</mo></math>")  # drawn as the font's own ≢
    assert "x" not in chars and "y" not in chars and " " not in chars
    assert math_characters("<p>no math</p>") == ""


def test_a_site_without_square_roots_asks_for_no_radical() -> None:
    assert "\u221a" not in math_characters("<math><mfrac><mn>1</mn><mn>2</mn></mfrac></math>")


@needs_temml
def test_the_cut_keeps_the_math_table_and_the_stretchy_forms_of_what_it_keeps(tmp_path: Path) -> None:
    assert SOURCES is not None
    chars = "".join(sorted(set("()[]{}|=+\u2212\u2211\u222b\u221a0123456789nk")))
    cut = mathfont.cut_font(SOURCES.outlines, chars, tmp_path)
    assert len(cut) < len(SOURCES.font) / 5
    face = TTFont(io.BytesIO(cut))
    assert "MATH" in face and "GSUB" in face and "GPOS" in face
    kept = set(face.getBestCmap())
    assert {ord(ch) for ch in chars} <= kept
    assert ord("\u2202") not in kept  # a character no formula uses
    variants = face["MATH"].table.MathVariants
    tall = set(variants.VertGlyphCoverage.glyphs)
    cmap = face.getBestCmap()
    for ch in "(\u2211\u221a\u222b{":
        assert cmap[ord(ch)] in tall, ch  # taller forms and assemblies: \left(, big operators, radicals
        construction = variants.VertGlyphConstruction[variants.VertGlyphCoverage.glyphs.index(cmap[ord(ch)])]
        shapes = [v.VariantGlyph for v in construction.MathGlyphVariantRecord]
        assert all(shape in face.getGlyphOrder() for shape in shapes) and len(shapes) > 1, ch


@needs_temml
def test_the_cut_is_made_from_the_same_font_without_its_hinting() -> None:
    """The WOFF file the cut is made from (read in milliseconds) has the published WOFF2 font's glyphs,
    outlines, characters and math and layout tables; only the TrueType hinting is left out."""
    assert SOURCES is not None and SOURCES.outlines != SOURCES.font
    whole, outlines = TTFont(io.BytesIO(SOURCES.font)), TTFont(io.BytesIO(SOURCES.outlines))
    assert outlines.flavor == "woff" and whole.flavor == "woff2"
    assert outlines.getGlyphOrder() == whole.getGlyphOrder()
    assert outlines.getBestCmap() == whole.getBestCmap()
    for table in ("MATH", "GSUB", "GPOS", "GDEF", "hmtx", "OS/2", "hhea", "post"):
        assert outlines.getTableData(table) == whole.getTableData(table), table
    assert set(whole.keys()) - set(outlines.keys()) == {"cvt ", "fpgm", "prep"}
    glyphs, hinted = outlines["glyf"], whole["glyf"]
    for name in outlines.getGlyphOrder()[::50]:
        assert glyphs[name].getCoordinates(glyphs)[0] == hinted[name].getCoordinates(hinted)[0], name


@needs_temml
def test_the_same_characters_give_the_same_bytes_and_a_cut_is_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SOURCES is not None
    first = mathfont.math_assets(SOURCES, "abc\u2211", tmp_path / "one")
    second = mathfont.math_assets(SOURCES, "abc\u2211", tmp_path / "two")  # another cache: cut again
    assert first.files == second.files and first.problem is None
    (name,) = [n for n in first.files if n.startswith(mathfont.FONT_PREFIX)]
    assert f"url('./{name}')".encode() in first.files[mathfont.STYLESHEET]
    assert "fpgm" not in TTFont(io.BytesIO(first.files[name]))  # cut from the outlines without hinting
    assert b"STIXTwoMath.woff2" not in first.files[mathfont.STYLESHEET]
    grown = mathfont.math_assets(SOURCES, "abc\u2211\u222b", tmp_path / "one")
    assert name not in grown.files  # a new character: a new cut under a new name

    def no_cutting(font: bytes, chars: str) -> bytes:
        raise AssertionError("cut again although the cache has it")

    monkeypatch.setattr(mathfont, "_subset", no_cutting)
    assert mathfont.math_assets(SOURCES, "abc\u2211", tmp_path / "one").files == first.files


def test_a_font_that_cannot_be_cut_is_published_whole_with_a_warning(tmp_path: Path) -> None:
    sources = MathSources(b"@font-face { src: url('./STIXTwoMath.woff2'); }", b"the whole font", b"not a font")
    assets = mathfont.math_assets(sources, "a", tmp_path)
    assert assets.problem and "published whole" in assets.problem
    assert b"the whole font" in assets.files.values()


FORMULAS = r"""\section{Formulas}

A root $\sqrt{x^2 + 1}$, a tall one $\sqrt{\frac{a}{b}}$ and a cube root $\sqrt[3]{n}$.

\[ \left( \frac{\sum_{i=1}^{n} a_i}{\prod_{j=1}^{m} b_j} \right) = \left\{ \int_0^1 f(t)\, dt \right\} \]

\[ \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} \cdot \begin{bmatrix} x \\ y \end{bmatrix}
   = \left\lfloor \frac{n}{2} \right\rfloor + \binom{n}{k} \]

Euler's $\phi(n)$, a small $\epsilon$, and the other letters a browser slants:
$\vartheta \varkappa \varrho \varpi \varphi \varepsilon$, $\partial_x f$, $\nabla g$, and $a \not\equiv b$.
"""


@needs_temml
def test_formulas_look_the_same_with_the_cut_as_with_the_whole_font(browser: Any, tmp_path: Path) -> None:
    """Roots, \\left...\\right around fractions, big operators and matrices, shot in Chromium twice: with
    the published cut, and with the whole font served in its place. The pixels must be the same."""
    from site_builder.build import build_site

    assert SOURCES is not None
    archive, out = tmp_path / "archive", tmp_path / "site"
    write_tree(archive, {"drills/A-formulas/solution.tex": FORMULAS})
    report = build_site(options_for(archive, out, verify=False))
    assert report.published
    (cut,) = (out / "static").glob(f"{mathfont.FONT_PREFIX}*.woff2")
    assert cut.stat().st_size < len(SOURCES.font) / 5
    whole_font = SOURCES.font
    handler = functools.partial(Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    shots = []
    try:
        for whole in (False, True):
            context = browser.new_context(viewport={"width": 900, "height": 700})
            tab = context.new_page()
            if whole:
                tab.route(f"**/{cut.name}", lambda route: route.fulfill(body=whole_font, content_type="font/woff2"))
            tab.goto(f"http://127.0.0.1:{server.server_address[1]}/drills/A-formulas/index.html")
            tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            tab.evaluate("document.fonts.ready")
            assert tab.evaluate("document.fonts.check('16px STIX2', '\u2211')")
            maths = tab.locator("math").all()
            assert len(maths) >= 5
            shots.append(b"".join(m.screenshot() for m in maths))
            context.close()
    finally:
        server.shutdown()
        server.server_close()
    assert shots[0] == shots[1]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Pool:
    """An executor whose ``submit`` fails, or whose jobs end as a dead worker's do, or that runs them."""

    def __init__(self, how: str) -> None:
        self.how, self.ran = how, 0

    def submit(self, job: Any, *args: Any) -> Any:
        from concurrent.futures import BrokenExecutor, Future

        if self.how == "shut down":
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: Future[Any] = Future()
        if self.how == "worker died":
            future.set_exception(BrokenExecutor("a process in the pool was terminated abruptly"))
        else:
            self.ran += 1
            future.set_result(job(*args))
        return future


@pytest.mark.parametrize("how", ["works", "shut down", "worker died"])
def test_a_cut_asked_of_a_worker_is_made_here_when_the_workers_cannot(how: str, tmp_path: Path) -> None:
    pool = Pool(how)
    sources = MathSources(b"css", b"not a font", b"not a font")
    here = mathfont.math_assets(sources, "x", tmp_path)  # (the whole font, and why)
    assert soon(pool, mathfont.math_assets, sources, "x", tmp_path)() == here  # type: ignore[arg-type]
    assert pool.ran == (how == "works")
    assert soon(None, mathfont.math_assets, sources, "x", tmp_path)() == here
