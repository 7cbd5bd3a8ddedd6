"""Real-browser checks in Debian's Chromium, driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import contextlib
import shutil
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, write_tree

from site_builder.serve.server import DevServer
from site_builder.source.config import make_options


@contextlib.contextmanager
def serving(root: Path) -> Iterator[DevServer]:
    """``site-builder serve`` of the project at ``root``, on a free port, until the block ends."""
    server = DevServer(make_options(root, jobs=1), port=0)
    server.start()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.stop()


def address(server: DevServer) -> str:
    assert server.httpd is not None
    return f"http://127.0.0.1:{server.httpd.server_address[1]}"


@pytest.fixture
def dev(tmp_path: Path) -> Iterator[DevServer]:
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    long = "\n\n".join(f"Paragraph {n} of the idea, long enough to scroll." for n in range(80))
    write_tree(tmp_path / "archive", {"t/A-alpha/solution.tex": f"\\section{{Idea}}\nFirst text.\n\n{long}\n"})
    with serving(tmp_path) as server:
        yield server


def test_open_page_reloads_after_an_edit_and_keeps_its_scroll(browser: Any, dev: DevServer) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{address(dev)}/t/A-alpha/index.html")
    page.evaluate("localStorage.setItem('fold:editorial', 'open')")  # a reader who reads write-ups
    page.reload()
    assert page.locator(".prose").first.inner_text().count("First text.") == 1
    page.evaluate("window.scrollTo(0, 1500)")
    page.wait_for_timeout(300)  # let the EventSource connect
    source = dev.options.archive / "t/A-alpha/solution.tex"
    source.write_text(source.read_text().replace("First text.", "Edited text."))
    # the page reloads: between the two documents there is no body, which the test must not read as an error
    page.wait_for_function("document.body?.innerText.includes('Edited text.')", timeout=10_000)
    page.wait_for_function("window.scrollY > 1000", timeout=5_000)
    # A save that no other page shows reloads its own page only: the track page open beside it stays.
    track = browser.new_page()
    track.goto(f"{address(dev)}/t/")
    track.evaluate("window.kept = 1")
    track.wait_for_timeout(300)
    source.write_text(source.read_text().replace("Paragraph 40 of", "The fortieth paragraph of"))
    page.wait_for_function("document.body?.innerText.includes('The fortieth paragraph')", timeout=10_000)
    track.wait_for_timeout(500)
    assert track.evaluate("window.kept") == 1
    assert errors == []


def test_a_hostile_svg_opened_on_its_own_runs_and_loads_nothing(browser: Any, tmp_path: Path) -> None:
    from test_hostile import EVIL_SVG

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {"t/A-x/solution.md": "# X\n\n![figure](evil.svg)\n", "t/A-x/evil.svg": EVIL_SVG, "t/A-x/page.html": "<b>"},
    )
    with serving(tmp_path) as server:
        base = f"{address(server)}/t/A-x"
        page = browser.new_page()
        dialogs: list[str] = []
        requests: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(f"{base}/evil.svg")
        page.mouse.move(5, 5)
        page.wait_for_timeout(500)
        assert dialogs == []
        assert [u for u in requests if not u.startswith(base)] == []
        assert page.evaluate("document.documentElement.localName") == "svg"
        assert page.evaluate("document.querySelectorAll('rect, use').length") == 2  # the drawing is intact
        page.goto(f"{base}/index.html")
        # The write-up is folded (no spoilers), and a lazy image in it loads once a reader opens it.
        page.evaluate("document.querySelector('.prose img').closest('details').open = true")
        drawn = "(() => { const i = document.querySelector('.prose img'); return i.complete && i.naturalWidth > 0 })()"
        page.wait_for_function(drawn, timeout=5_000)
        assert page.goto(f"{base}/page.html").status == 404  # type: ignore[union-attr]


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("javac") is None, reason="needs g++ and a JDK")
def test_each_languages_verdicts_stand_side_by_side(browser: Any, tmp_path: Path) -> None:
    """An entry with Python, C++ and Java solutions, one of them wrong on one sample: every verdict
    is beside its sample, the failing one's output is the one shown, and the header names it."""
    from test_verify import IN_EVERY_LANGUAGE

    from site_builder.build import build_site
    from site_builder.source.config import make_options

    files = {name: text for lang, (name, text) in IN_EVERY_LANGUAGE.items() if lang in ("python", "cpp", "java")}
    files["solution.cpp"] = files["solution.cpp"].replace("a + b + std::ssize(v) - 1", "(a > 100 ? a : a + b)")
    archive = {f"t/A-add/{name}": text for name, text in files.items()}
    archive |= {"t/A-add/solution.md": "# Add\n\nAdd the two numbers.\n", "t/A-add/samples/1.in": "2 3\n"}
    archive |= {"t/A-add/samples/1.ans": "5\n", "t/A-add/samples/2.in": "200 1\n", "t/A-add/samples/2.ans": "201\n"}
    write_tree(tmp_path / "archive", archive)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto((tmp_path / "site/t/A-add/index.html").as_uri())
    assert page.locator(".entry-status").inner_text().strip() == "Failing: C++ 1/2"
    # each sample: input and answer, one badge; a failing sample's check is open, a passing one's folded
    assert page.locator("#sample-1 .sample-verdict").inner_text().strip() == "Accepted all 3 solvers"
    assert page.locator("#sample-2 .sample-verdict").inner_text().strip() == "Wrong Answer solution.cpp"
    assert page.locator("#sample-1 details.sample-check").get_attribute("open") is None
    assert not page.locator("#sample-1 .verdicts").is_visible()
    assert page.locator("#sample-2 .verdicts").is_visible()
    page.click("#sample-1 details.sample-check > summary")
    rows = [page.locator(f"#sample-{n} .verdicts li").all_inner_texts() for n in (1, 2)]
    assert [[r.split()[:2] for r in row] for row in rows] == [
        [["solution.py", "Accepted"], ["solution.cpp", "Accepted"], ["solution.java", "Accepted"]],
        [["solution.py", "Accepted"], ["solution.cpp", "Wrong"], ["solution.java", "Accepted"]],
    ]
    assert page.locator("#sample-2 .io-solver").inner_text() == "solution.cpp"
    assert page.locator("#sample-2 pre.io-failed").inner_text().strip() == "200"
    page.locator("#samples").scroll_into_view_if_needed()
    artifacts = ROOT / "tests" / "artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=str(artifacts / "languages-side-by-side.png"))


def test_math_has_its_own_font_aligned_rows_and_numbers(browser: Any, tmp_path: Path) -> None:
    """A display sum and an align, on a machine with no math font of its own: the site's STIX Two Math
    draws them, the '=' signs of the rows line up, and the numbered rows show (1), (2)."""
    from site_builder.build import build_site
    from site_builder.source.config import make_options

    tex = (
        "\\begin{equation}\\label{eq:s}\nS = \\sum_{i=1}^{n} i\n\\end{equation}\n"
        "\\begin{align}\nT(n) &= 2T(n/2) + n \\\\\n  &= O(n \\log n) \\nonumber \\\\\nU &= 1\n\\end{align}\n"
        "See \\eqref{eq:s}.\n"
    )
    write_tree(tmp_path / "archive", {"t/A-math/solution.tex": tex})
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto((tmp_path / "site/t/A-math/index.html").as_uri() + "#editorial")  # the write-up: opened
    page.evaluate("document.fonts.ready")
    assert page.evaluate("document.fonts.check('20px STIX2')"), "the site's math font did not load"
    used = page.evaluate("[...document.fonts].filter(f => f.family.includes('STIX2')).map(f => f.status)")
    assert used == ["loaded"]
    equals = page.locator("math.tml-display").nth(1).locator("mo", has_text="=")
    xs = [box["x"] for box in (equals.nth(i).bounding_box() for i in range(3)) if box]
    assert len(xs) == 3 and max(xs) - min(xs) < 1.0, xs
    tags = page.locator("math .tml-tag").evaluate_all("tags => tags.map(t => t.textContent)")
    assert tags == ["(1)", "(2)", "(3)"]
    assert page.locator("a.ref").inner_text() == "(1)"
    artifacts = ROOT / "tests" / "artifacts"
    artifacts.mkdir(exist_ok=True)
    page.locator(".prose").screenshot(path=str(artifacts / "math-align.png"))


def test_a_sample_is_copied_with_one_click(browser: Any, tmp_path: Path) -> None:
    from site_builder.build import build_site
    from site_builder.source.config import make_options

    files = {"t/A-add/solution.py": "print(sum(map(int, input().split())))\n", "t/A-add/samples/1.in": "2 3\n"}
    files |= {"t/A-add/samples/1.ans": "5\n", "t/A-add/solution.md": "# Add\n\nAdd them.\n"}
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto((tmp_path / "site/t/A-add/index.html").as_uri())
    buttons = page.locator("#sample-1 .io-head .copy")
    names = [buttons.nth(i).get_attribute("aria-label") for i in range(3)]
    assert names == ["Copy sample 1 input", "Copy sample 1 output", "Copy sample 1 output of solution.py"]
    assert [buttons.nth(i).is_visible() for i in range(3)] == [True, True, False]  # the check is folded
    buttons.nth(0).click()
    assert page.evaluate("navigator.clipboard.readText()") == "2 3\n"
    assert buttons.nth(0).inner_text() == "Copied"
    page.click("#sample-1 details.sample-check > summary")
    buttons.nth(2).click()
    assert page.evaluate("navigator.clipboard.readText()") == "5\n"  # what the solver printed
    context.close()


def test_the_editorial_is_folded_until_opened_and_paper_is_printed_light(browser: Any, tmp_path: Path) -> None:
    from site_builder.build import build_site
    from site_builder.source.config import make_options

    files = {"t/A-x/solution.md": "# X\n\nThe trick is to sort.\n\n```python\nprint(1)\n```\n"}
    files |= {"t/B-y/solution.md": "# Y\n\nAnother trick.\n"}
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page = context.new_page()
    page.goto((tmp_path / "site/t/A-x/index.html").as_uri())
    assert not page.locator(".prose:has-text('The trick is to sort')").is_visible()  # spoilers: folded
    page.goto((tmp_path / "site/t/A-x/index.html").as_uri() + "#editorial")  # a link to it opens it
    assert page.locator(".prose:has-text('The trick is to sort')").is_visible()
    page.click("details.fold > summary")
    assert not page.locator(".prose:has-text('The trick is to sort')").is_visible()
    page.click("details.fold > summary")  # opened by the reader: open on the next entry too
    remembered = "s => Object.keys(localStorage).some(k => k.startsWith('fold:') && localStorage.getItem(k) === s)"
    page.wait_for_function(remembered, arg="open")  # the toggle event comes a moment after the click
    page.goto((tmp_path / "site/t/B-y/index.html").as_uri())
    assert page.evaluate("document.querySelector('details.fold').open") is True
    page.click("details.fold > summary")  # folded again: folded on the next page
    page.wait_for_function(remembered, arg="closed")
    page.goto((tmp_path / "site/t/A-x/index.html").as_uri())
    assert page.evaluate("document.querySelector('details.fold').open") is False
    page.emulate_media(media="print")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(255, 255, 255)", background  # the dark screen theme is not printed
    context.close()


def test_a_package_s_long_names_do_not_widen_a_phone_page(browser: Any, tmp_path: Path) -> None:
    """Real packages name files like submissions/accepted/brute_reconstruct_vectorized_transcribed.py
    and have several failing solvers per language: on a 390 px phone none of it may widen the page
    (tabs, verdict lists, the output's solver, source file summaries, the status badge, the folder)."""
    from site_builder.build import build_site

    base = "nwerc/averyveryverylongproblemfoldernamewithoutanybreaks"
    long = "brute_force_reconstruction_vectorized_and_transcribed_by_hand"
    files: dict[str, str | bytes] = {
        f"{base}/problem.yaml": "name: Long Names\nvalidation: custom\n",
        f"{base}/problem_statement/problem.en.md": "Print the sum of two numbers.\n",
        f"{base}/data/sample/1.in": "2 3\n",
        f"{base}/data/sample/1.ans": "5\n",
        # A validator that rejects every answer (exit code 43): each solver fails on the sample.
        f"{base}/output_validators/the_output_validator_folder/the_output_validator_source.py": (
            "import sys\nsys.exit(43)\n"
        ),
    }
    for n in range(3):
        files[f"{base}/submissions/accepted/{long}_{n}.py"] = "a, b = map(int, input().split())\nprint(a - b)\n"
    write_tree(tmp_path / "archive", files)
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto((tmp_path / f"site/{base}/index.html").as_uri())
    assert page.locator(".entry-status").inner_text().strip() == "Failing: Python 3/3 (3 solvers)"
    for details in page.locator("details").all():
        details.evaluate("d => d.open = true")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("section[aria-labelledby=code] .code-list li").count() == 2  # one shown, the others listed
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto((tmp_path / "site/nwerc/index.html").as_uri())  # the track's table: the status fits its column
    badge, wrap = page.locator("td .badge-failing").bounding_box(), page.locator(".table-wrap").bounding_box()
    assert badge and wrap and badge["x"] + badge["width"] <= wrap["x"] + wrap["width"]
    page.close()


def test_no_archive_file_runs_a_script_on_the_dev_server(browser: Any, tmp_path: Path) -> None:
    """Issue #34: XML documents under suffixes hosts serve as XML (.xhtm, .xpdl, .rdf, .mml, .atom, .rss,
    .xsd, .rng) are not published, so ``site-builder serve`` has nothing to run; published anyway
    (``publish_active_files: true``), it serves them as downloads. Served as the tables type them, the
    same files do run their scripts (the control)."""
    from test_hostile import ACTIVE_XML, ISSUE_34_SUFFIXES

    from site_builder.publish.activesuffixes import ACTIVE_SUFFIXES

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    files = {f"t/A-x/evil{suffix}": ACTIVE_XML for suffix in ISSUE_34_SUFFIXES}
    write_tree(tmp_path / "archive", {**files, "t/A-x/solution.md": "# X\n\nText.\n", "t/A-x/1.in": "1\n"})
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for publish in (False, True):
        (tmp_path / "archive/site.yaml").write_text(f"publish_active_files: {str(publish).lower()}\n")
        with serving(tmp_path) as server:
            base = f"{address(server)}/t/A-x"
            for suffix in ISSUE_34_SUFFIXES:
                if publish:  # a download: nothing to open
                    response = page.request.get(f"{base}/evil{suffix}")
                    assert response.ok and response.headers["content-type"] == "application/octet-stream"
                else:
                    assert page.goto(f"{base}/evil{suffix}").status == 404  # type: ignore[union-attr]
                    page.wait_for_timeout(100)
            assert page.request.get(f"{base}/1.in").headers["content-type"] == "text/plain; charset=utf-8"
    assert dialogs == []

    ran: dict[str, list[str]] = {}
    for suffix in ISSUE_34_SUFFIXES:
        for kind in ACTIVE_SUFFIXES[suffix[1:]]:
            page.route("http://127.0.0.1:9/**", partial(_fulfill, ACTIVE_XML, kind))
            try:
                page.goto(f"http://127.0.0.1:9/evil{suffix}")
                page.wait_for_timeout(200)
            except Exception as e:  # a type Chromium does not open is downloaded
                assert "Download is starting" in str(e)
            page.unroute("http://127.0.0.1:9/**")
            if dialogs:
                ran.setdefault(suffix, []).append(kind)
                dialogs.clear()
    assert ran.get(".xhtm") == ["application/xhtml+xml"] and ran.get(".xpdl") == ["application/xml"], ran
    assert set(ran) >= {".rdf", ".atom", ".rss", ".xsd", ".rng"}, ran  # (.mml: Chromium downloads MathML)
    page.close()


def _fulfill(body: str, kind: str, route: Any) -> None:
    route.fulfill(body=body, content_type=kind, headers={"X-Content-Type-Options": "nosniff"})


def test_a_sample_the_statement_places_is_not_repeated_and_names_are_never_cut(browser: Any, tmp_path: Path) -> None:
    """A statement that places sample 1 itself (\\nextsample): the samples list links to it instead of
    showing it again, and shows sample 2 whole; on a phone the sample's file names wrap, not cut."""
    from site_builder.build import build_site

    base = "t/A-add"
    files = {
        f"{base}/problem.yaml": "name: Add\n",
        f"{base}/problem_statement/problem.en.tex": "Add two numbers.\n\n\\nextsample\n\nMore text.\n",
        f"{base}/data/sample/1.in": "2 3\n",
        f"{base}/data/sample/1.ans": "5\n",
        f"{base}/data/sample/2-a-rather-long-sample-name.in": "7 8\n",
        f"{base}/data/sample/2-a-rather-long-sample-name.ans": "15\n",
        f"{base}/submissions/accepted/add.py": "print(sum(map(int, input().split())))\n",
    }
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto((tmp_path / f"site/{base}/index.html").as_uri())
    assert page.locator("pre.io:text-is('2 3')").count() == 1  # in the statement only
    assert page.locator("#statement-sample-1 pre.io").first.is_visible()
    placed = page.locator("#sample-1")
    assert "Shown in the statement" in placed.inner_text()
    assert placed.locator("a[href='#statement-sample-1']").count() == 1
    assert page.locator("#sample-2-a-rather-long-sample-name pre.io").first.inner_text() == "7 8\n"
    for link in page.locator(".sample .io-head a, .sample-files a").all():  # every name shown whole
        assert link.evaluate("a => a.scrollWidth <= a.clientWidth + 1"), link.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


def test_drawn_figures_are_files_with_their_caption_as_text_and_stay_on_a_rebuild(browser: Any, tmp_path: Path) -> None:
    """A TikZ picture in a figure with a caption: the page links a file named by its content (no
    ``data:`` URL in the page), with its size, loaded lazily, its caption as its alternative text;
    a build that keeps the page keeps the file."""
    from site_builder.build import build_site

    tex = (
        "\\begin{figure}\n\\begin{tikzpicture}\\draw (0,0) -- (2,1);\\end{tikzpicture}\n"
        "\\caption{A line from the origin to the tower}\n\\end{figure}\n"
    )
    write_tree(tmp_path / "archive", {"t/A-x/solution.tex": f"\\section{{Idea}}\n{tex}"})
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    for _ in range(2):
        build_site(make_options(tmp_path, jobs=1))
        html = (tmp_path / "site/t/A-x/index.html").read_text()
        assert "data:image/svg+xml" not in html
        figures = list((tmp_path / "site/figures").glob("*.svg"))
        assert len(figures) == 1 and f'src="../../figures/{figures[0].name}"' in html
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "site/t/A-x/index.html").as_uri() + "#editorial")
    image = page.locator("figure img")
    assert image.get_attribute("alt") == "A line from the origin to the tower"
    assert image.get_attribute("loading") == "lazy" and int(image.get_attribute("width") or 0) > 0
    assert int(image.get_attribute("height") or 0) > 0
    image.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('figure img').naturalWidth > 0", timeout=5_000)
    page.close()


def test_a_large_photo_reaches_a_phone_as_a_small_copy_and_the_original_stays_a_file(
    browser: Any, tmp_path: Path
) -> None:
    """A 1,200-pixel photo of 120 KB shown twice in a statement, at the column's width and 4 cm wide:
    a phone's screen gets the 480-pixel WebP copy (a file under figures/); a wide screen at twice the
    pixels gets the original for the wide one and the copy for the narrow one (``sizes`` says
    ``auto``: the width it is laid out at). Each keeps the original's size, and the original stays
    linked among the entry's files."""
    from test_bitmaps import noisy_png

    from site_builder.build import build_site
    from site_builder.render.bitmaps import _pillow

    if _pillow() is None:
        pytest.skip("Pillow is not installed")
    statement = "\\section*{X}\nWide:\n\n\\includegraphics{photo.png}\n\n"
    statement += "Narrow:\n\n\\includegraphics[width=4cm]{photo.png}\n"
    files: dict[str, str | bytes] = {"t/A-x/statement.tex": statement, "t/A-x/photo.png": noisy_png(1200, 100)}
    files["t/A-x/solution.md"] = "# X\n\nIdea.\n"
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    html = (tmp_path / "site/t/A-x/index.html").read_text()
    assert "data:image" not in html and len(list((tmp_path / "site/figures").glob("*.webp"))) == 2  # 480, 960
    url = (tmp_path / "site/t/A-x/index.html").as_uri()
    for width, scale, wanted in ((390, 1, ("480w", "480w")), (1280, 2, ("1200w", "480w"))):
        context = browser.new_context(viewport={"width": width, "height": 800}, device_scale_factor=scale)
        page = context.new_page()
        page.goto(url)
        chosen: list[str] = []
        for image, size in zip(page.locator("#main img").all(), wanted, strict=True):
            image.scroll_into_view_if_needed()
            image.evaluate("i => i.decode()")
            candidates = dict(c.split()[::-1] for c in (image.get_attribute("srcset") or "").split(", "))
            assert candidates["480w"].endswith(".webp") and candidates["1200w"] == "photo.png", candidates
            shown = image.evaluate("i => i.currentSrc")
            # Chromium may show a larger candidate it already holds (the wide image's original) instead of
            # fetching the small one: allowed, since nothing more is downloaded.
            cached = bool(chosen) and chosen[0].endswith("photo.png") and shown == chosen[0]
            assert shown.endswith(candidates[size].removeprefix("../..")) or cached, (width, shown, size)
            chosen.append(shown)
            assert (image.get_attribute("width"), image.get_attribute("height")) == ("1200", "100")
        assert page.locator("a[href='photo.png']").count() >= 1
        context.close()


def test_paper_gets_the_statement_and_whole_samples_and_the_code_only_with_the_editorial(
    browser: Any, tmp_path: Path
) -> None:
    from site_builder.build import build_site

    files = {"t/A-add/solution.py": "print(sum(map(int, input().split())))\n", "t/A-add/samples/1.in": "2 3\n"}
    files |= {"t/A-add/samples/1.ans": "5\n", "t/A-add/solution.md": "# Add\n\nThe trick: add them.\n"}
    files |= {"t/A-add/statement.md": "# Add\n\nAdd two numbers.\n", "t/A-add/helper.py": "x = 1\n"}
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / "site/t/A-add/index.html").as_uri())
    page.emulate_media(media="print")

    def shown(selector: str) -> bool:
        return bool(page.evaluate(f"[...document.querySelectorAll('{selector}')].some(e => e.offsetParent !== null)"))

    assert shown("#statement") and shown(".sample pre.io")
    assert not shown("button") and not shown("#editorial") and not shown("#code") and not shown("#files")
    assert page.evaluate("getComputedStyle(document.querySelector('.sample')).breakInside") == "avoid"
    page.evaluate("document.querySelector('details.fold').open = true")
    assert shown("#editorial") and shown("#code")
    page.close()


def test_the_entry_page_shows_one_solution_per_language_and_links_the_others_by_line(
    browser: Any, tmp_path: Path
) -> None:
    """Two accepted Python solutions and a C++ one: the page shows one per language (the shorter
    Python one) and lists the other with its verdict, on a page of its own whose lines can be
    linked; source files are links."""
    from site_builder.build import build_site

    add = "a, b = map(int, input().split())\nprint(a + b)\n"
    cpp = "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
    base = "t/A-add"
    files = {
        f"{base}/problem.yaml": "name: Add\n",
        f"{base}/problem_statement/problem.en.md": "Add two numbers.\n",
        f"{base}/data/sample/1.in": "2 3\n",
        f"{base}/data/sample/1.ans": "5\n",
        f"{base}/submissions/accepted/a_first.py": "# the long way round\n" * 3 + add,
        f"{base}/submissions/accepted/b_second.py": add.replace("a + b", "b + a"),
        f"{base}/submissions/accepted/c_third.cpp": cpp,
    }
    write_tree(tmp_path / "archive", files)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto((tmp_path / f"site/{base}/index.html").as_uri())
    shown = page.locator("section[aria-labelledby=code] .code-file .file-name").all_inner_texts()
    assert sorted(shown) == ["submissions/accepted/b_second.py", "submissions/accepted/c_third.cpp"]  # the shortest
    others = page.locator("section[aria-labelledby=code] .code-list li")
    assert others.count() == 1 and "a_first.py" in others.inner_text() and "Accepted" in others.inner_text()
    assert page.locator("section[aria-labelledby=sources] .code-list a").count() >= 1  # links, not code
    assert page.locator("section[aria-labelledby=sources] .code-file").count() == 0
    others.locator("a").click()
    page.wait_for_url("**/code-submissions-accepted-a-first-py.html")
    assert page.locator("h1").inner_text() == "submissions/accepted/a_first.py"
    assert "Accepted" in page.locator(".code-verdicts").inner_text()
    url = page.url
    page.goto("about:blank")
    page.goto(url + "#submissions-accepted-a_first-py-L2")
    top = page.locator("#submissions-accepted-a_first-py-L2").evaluate("e => e.getBoundingClientRect().top")
    assert 0 <= top < 900
    page.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_author_s_text_colours_keep_their_hue_and_are_readable(browser: Any, tmp_path: Path, theme: str) -> None:
    """``\\textcolor`` in gray, red, yellow and navy: axe-core finds no text below 4.5:1 on either theme."""
    from site_builder.build import build_site

    colours = ("{gray}", "{red}", "{yellow}", "{navy}", "[HTML]{1B7F3B}")
    text = "".join(f"\\textcolor{c}{{Coloured text number {n}.}}\n" for n, c in enumerate(colours))
    write_tree(tmp_path / "archive", {"t/A-hues/solution.tex": text})
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    build_site(make_options(tmp_path, jobs=1, verify=False))
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=theme)
    page.goto((tmp_path / "site/t/A-hues/index.html").as_uri())
    assert page.locator(".tex-color").count() == len(colours)
    red = page.locator(".tex-color").nth(1).evaluate("e => getComputedStyle(e).color")
    page.add_script_tag(path=str(ROOT / "node_modules" / "axe-core" / "axe.min.js"))
    result = page.evaluate("axe.run(document, {runOnly: ['color-contrast']})")
    assert [n["html"] for v in result["violations"] for n in v["nodes"]] == []
    assert red.startswith("oklch(") and red != page.locator("p").first.evaluate("e => getComputedStyle(e).color")
