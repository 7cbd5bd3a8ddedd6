"""The reader's journey in a real browser: search, filters, theme, copy, line anchors, accessibility.

Debian's Chromium driven by Playwright (never a downloaded browser), against the shipped archive
served over HTTP on localhost. Screenshots at phone and desktop widths, in both themes, are saved
to tests/artifacts/ for people to look at.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, options_for, serving

CHROMIUM = Path("/usr/bin/chromium")
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = ROOT / "tests" / "artifacts"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ENTRY = "icpc/2024/B-flood-season/index.html"
PAGES = {"home": "index.html", "track": "icpc/index.html", "entry": ENTRY}


@pytest.fixture(scope="module")
def site_url(built: Path) -> Iterator[str]:
    with serving(built) as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
    yield tab
    assert tab.console_errors == [], "no console errors on any tested page"
    context.close()


def test_search_finds_an_entry_by_a_word_from_its_write_up(page: Any, site_url: str) -> None:
    page.goto(site_url + "classics/index.html")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type("Tarjan")  # appears only in the Flood Season write-up
    page.wait_for_selector(".search-results [role=option]", timeout=15_000)
    titles = [a.inner_text() for a in page.query_selector_all(".search-results .result-title")]
    assert titles and "Flood Season" in titles[0]
    first = page.locator(".search-results [role=option]").first
    assert first.locator(".result-where").inner_text() == "Matches in the editorial"  # not quoted: a spoiler
    assert "tarjan" not in first.locator(".result-excerpt").inner_text().lower()
    # a combobox: the arrow key chooses, Escape closes the list and keeps the query, Enter opens
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#search-input", "aria-activedescendant") == "search-option-0"
    assert page.get_attribute("#search-input", "aria-expanded") == "true"
    page.keyboard.press("Escape")
    assert page.locator(".search-results").is_hidden()
    assert page.evaluate("document.activeElement.id") == "search-input"
    assert page.input_value("#search-input") == "Tarjan"
    page.wait_for_timeout(300)
    assert page.locator(".search-results").is_hidden()  # and it stays closed
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(".search-results [role=option]", timeout=15_000)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**/icpc/2024/B-flood-season/index.html")


def test_a_query_that_matches_nothing_finds_nothing_and_the_results_fit_a_phone(browser: Any, site_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
    tab = context.new_page()
    tab.goto(site_url + "classics/index.html")
    assert tab.get_attribute("#search-input", "placeholder") == "Search"  # no "/" key hint on a phone
    tab.fill("#search-input", "xyzzy")
    tab.wait_for_selector(".search-results .search-note", timeout=15_000)
    assert tab.inner_text(".search-results").strip() == "No entry matches \u201cxyzzy\u201d."
    tab.fill("#search-input", "Tarjan")
    tab.wait_for_selector(".search-results [role=option]", timeout=15_000)
    box = tab.locator(".search-results").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    context.close()


def test_filters_narrow_the_track_table(page: Any, site_url: str) -> None:
    page.goto(site_url + "icpc/index.html")
    rows = page.locator("tr[data-entry]")
    assert rows.count() == 8 and page.inner_text(".filter-count") == "Showing 8 of 8"
    page.select_option("select[data-filter=year]", "2024")
    assert page.inner_text(".filter-count") == "Showing 2 of 8"
    page.fill("input[data-filter=min]", "2000")
    assert page.inner_text(".filter-count") == "Showing 1 of 8"
    assert page.locator("tr[data-entry]:not([hidden])").inner_text().count("Flood Season") == 1
    page.select_option("select[data-filter=year]", "")
    page.fill("input[data-filter=min]", "")
    page.select_option("select[data-filter=tag]", "graphs")
    assert page.inner_text(".filter-count") == "Showing 2 of 8"  # a 2024 entry and a 2025 problem package
    assert page.evaluate("location.hash") == "#tag=graphs"  # the filter is in the address
    page.goto(site_url + "icpc/index.html#year=2024")
    assert page.inner_text(".filter-count") == "Showing 2 of 8"  # and a link with one applies it


@pytest.mark.parametrize("width", [1280, 820])
def test_every_cell_of_a_track_table_holds_its_own_content(page: Any, site_url: str, width: int) -> None:
    """The tags' column had no width of its own: beside a rating column it had almost none, and its
    chips ran over the ratings. Every tag chip, rating and badge lies inside its own cell."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site_url + "icpc/index.html")
    assert page.locator("table.entries td.num").count() >= 5  # tables with ratings beside their tags
    outside = page.evaluate(
        """() => [...document.querySelectorAll('table.entries td .tag, table.entries td .badge')]
            .filter(el => { const a = el.getBoundingClientRect(), c = el.closest('td').getBoundingClientRect();
                            return a.left < c.left - 0.5 || a.right > c.right + 0.5; })
            .map(el => el.textContent)"""
    )
    assert outside == []
    # At 820 px "combinatorics" was cut in two ("combinatori" / "cs"): a chip may break at its hyphens only.
    broken = page.evaluate(
        """() => [...document.querySelectorAll('table.entries td .tag')].filter(el => {
              const text = el.firstChild, range = document.createRange();
              let top = null;
              for (let i = 0; i < text.length; i++) {
                range.setStart(text, i); range.setEnd(text, i + 1);
                const here = range.getClientRects()[0].top;
                if (top !== null && Math.abs(here - top) > 2 && /\\w/.test(text.data[i - 1])) return true;
                top = here;
              }
              return false;
            }).map(el => el.textContent)"""
    )
    assert broken == []


@pytest.mark.parametrize("width", [375, 600, 820, 1280])
def test_the_search_and_the_theme_switch_share_a_line_in_the_header(page: Any, site_url: str, width: int) -> None:
    """At 820 px the switch wrapped alone to the start of a second line of the header."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site_url + "icpc/index.html")
    search, toggle = (page.locator(f"{s}").bounding_box() for s in (".search input", "#theme-toggle"))
    assert search is not None and toggle is not None
    assert abs((search["y"] + search["height"] / 2) - (toggle["y"] + toggle["height"] / 2)) < 2
    assert search["x"] < toggle["x"] and toggle["x"] + toggle["width"] <= width


def test_theme_toggle_is_remembered_across_pages(page: Any, site_url: str) -> None:
    page.emulate_media(color_scheme="light")
    page.goto(site_url + "index.html")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.goto(site_url + ENTRY)
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != background


def test_copy_button_copies_the_code_without_line_numbers(page: Any, site_url: str, built: Path) -> None:
    page.goto(site_url + ENTRY)
    page.click("#file-solution-py button[data-copy]")
    page.wait_for_function("document.querySelector('#file-solution-py button[data-copy]').textContent === 'Copied'")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == (built / "icpc/2024/B-flood-season/solution.py").read_text()


def test_line_anchor_scrolls_and_highlights(page: Any, site_url: str) -> None:
    page.goto(site_url + ENTRY + "#solution-py-L12")
    line = page.locator("#solution-py-L12")
    colour, marked, row = line.evaluate(
        "e => { const s = getComputedStyle(e, '::before');"
        " return [s.backgroundColor, parseFloat(s.width), e.closest('.code-lines').getBoundingClientRect().width]; }"
    )
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent") and abs(marked - row) < 1  # the whole row is marked
    gutter, code = page.evaluate(
        "[...document.querySelectorAll('#file-solution-py pre')].map(p => p.getBoundingClientRect().height)"
    )
    assert gutter == code  # numbers and lines keep step
    top = line.evaluate("e => e.getBoundingClientRect().top")
    assert 0 <= top < 900


def test_code_far_below_the_first_screen_is_drawn_only_when_scrolled_to(browser: Any, site_url: str) -> None:
    """A long page lays out what is near the screen (content-visibility), and a line link still lands."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    tab = context.new_page()
    tab.goto(site_url + ENTRY)
    code = tab.locator("#file-solution-py pre.code")
    drawn = "e => e.checkVisibility({contentVisibilityAuto: true})"
    assert code.evaluate("e => e.closest('figure').getBoundingClientRect().top") > 3 * 844
    assert code.evaluate(drawn) is False
    height = "e => e.closest('figure').getBoundingClientRect().height"
    room = code.evaluate(height)  # kept for its lines before they are drawn
    code.evaluate("e => e.closest('figure').scrollIntoView()")
    tab.wait_for_function(f"({drawn})(document.querySelector('#file-solution-py pre.code'))")
    assert room >= code.evaluate(height) > room - 48  # nothing below overlaps it, or moves much
    tab.goto(site_url + ENTRY + "#solution-py-L12")
    top = tab.locator("#solution-py-L12").evaluate("e => e.getBoundingClientRect().top")
    assert 0 <= top < 844
    context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_serious_accessibility_violations(browser: Any, site_url: str, name: str, theme: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=theme)
    tab = context.new_page()
    tab.goto(site_url + PAGES[name])
    tab.add_script_tag(path=str(AXE))
    result = tab.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    context.close()
    assert serious == []


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 900)])
def test_screenshots(browser: Any, site_url: str, width: int, height: int, theme: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
    tab = context.new_page()
    for name, path in PAGES.items():
        tab.goto(site_url + path)
        target = ARTIFACTS / f"{name}-{width}-{theme}.png"
        tab.screenshot(path=str(target), full_page=name != "entry")
        assert target.stat().st_size > 10_000
        overflow = tab.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name} at {width}px scrolls sideways by {overflow}px"
    context.close()


def test_every_page_passes_the_html_validator(built: Path) -> None:
    pages = sorted(str(p) for p in built.rglob("*.html") if "pagefind" not in p.parts)
    result = subprocess.run(
        ["npx", "--no-install", "html-validate", "--config", str(ROOT / ".htmlvalidate.json"), *pages],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


PACKAGE = "icpc/2025/A-lakeside-lanterns/index.html"


def test_statement_languages_are_tabs_that_remember_the_choice(page: Any, site_url: str) -> None:
    page.goto(site_url + PACKAGE)
    english, german = page.locator("#statement-lang-en"), page.locator("#statement-lang-de")
    assert english.is_visible() and not german.is_visible()
    assert page.get_attribute("#tab-lang-en", "aria-selected") == "true"
    page.click("#tab-lang-de")
    assert german.is_visible() and not english.is_visible() and "Laternen" in german.inner_text()
    page.keyboard.press("ArrowLeft")  # the tab list is keyboard-operable
    assert english.is_visible() and page.evaluate("document.activeElement.id") == "tab-lang-en"
    page.click("#tab-lang-de")
    page.goto(site_url + PACKAGE)
    assert german.is_visible(), "the chosen language is remembered"
    page.evaluate("localStorage.clear()")


def test_without_javascript_every_language_is_shown(browser: Any, site_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site_url + PACKAGE)
        assert page.locator("#statement-lang-en").is_visible() and page.locator("#statement-lang-de").is_visible()
        assert not page.locator("[data-tabs]").first.is_visible()
        assert page.locator(".lang-heading").all_inner_texts() == ["English", "Deutsch"]
    finally:
        context.close()


# Tap targets under 24 px, other than links inside running text, tables and code (WCAG 2.5.8 exempts those).
SMALL_TARGETS = """() => [...document.querySelectorAll('a, button, summary, input, select')]
  .filter(e => !e.closest('.prose p, .prose li, .prose dd, pre, td, .footnotes'))
  .filter(e => !(e.parentElement.tagName === 'P' && e.parentElement.textContent.length > e.textContent.length + 10))
  .map(e => [e, e.getBoundingClientRect()])
  .filter(([e, r]) => r.width && r.height && (r.width < 23.5 || r.height < 23.5))
  .map(([e, r]) => `${e.tagName} ${(e.textContent || '').trim().slice(0, 20)} ${Math.round(r.height)} px`)"""


def pages_of_every_kind(built: Path) -> list[str]:
    """Every page but the source listings (``code-*.html``, one template over and over), and of those,
    the widest (the longest line) of each kind of file: a phone's tour in half the pages."""
    pages = sorted(p.relative_to(built).as_posix() for p in built.rglob("*.html"))
    listings: dict[str, tuple[int, str]] = {}
    for name in pages:
        if name.rsplit("/", 1)[-1].startswith("code-"):
            kind = name.rsplit("-", 1)[-1]
            text = (built / name).read_text(encoding="utf-8")
            widest = max(len(html.unescape(re.sub(r"<[^>]*>", "", line))) for line in text.splitlines())
            listings[kind] = max(listings.get(kind, (-1, "")), (widest, name))
    chosen = {name for _, name in listings.values()}
    return [n for n in pages if not n.startswith("pagefind/") and (n in chosen or "/code-" not in f"/{n}")]


def test_on_a_phone_no_page_scrolls_sideways_and_the_contents_are_a_fold(
    browser: Any, site_url: str, built: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
    tab = context.new_page()
    wide: list[str] = []
    small: list[str] = []
    for name in pages_of_every_kind(built):
        tab.goto(site_url + name)
        if tab.evaluate("document.documentElement.scrollWidth") > 390:
            wide.append(name)
        small += [f"{name}: {t}" for t in tab.evaluate(SMALL_TARGETS)]
    assert wide == []
    assert small == []  # links and buttons that stand alone (not inside a sentence) are at least 24 px
    tab.goto(site_url + ENTRY)
    fold = tab.locator("details.toc-mobile")
    assert fold.is_visible() and not tab.locator(".toc-sidebar").is_visible()
    fold.locator("summary").click()
    links = fold.locator("a")
    assert links.count() >= 5
    heights = [links.nth(i).bounding_box()["height"] for i in range(links.count())]  # type: ignore[index]
    assert min(heights) >= 24, heights  # tap targets
    links.nth(1).click()
    assert tab.evaluate("location.hash") == "#samples"
    context.close()


def test_solutions_are_tabs_and_the_chosen_language_comes_first_on_the_next_page(page: Any, site_url: str) -> None:
    page.goto(site_url + ENTRY)
    python, cpp = page.locator("#code-panel-1"), page.locator("#code-panel-2")
    assert python.is_visible() and not cpp.is_visible()
    assert page.inner_text("#tab-code-2") == "solution.cpp"
    page.click("#tab-code-2")
    assert cpp.is_visible() and not python.is_visible()
    page.goto(site_url + "classics/graphs/G1-bridge-inspection/index.html")
    chosen = page.locator('[data-tabs="solution-language"] [aria-selected="true"]')
    assert chosen.get_attribute("data-key") == "cpp", "the chosen language is remembered"
    page.evaluate("localStorage.clear()")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_scroll_cue_of_display_math_is_invisible_where_nothing_scrolls(
    browser: Any, site_url: str, theme: str
) -> None:
    """The covers over a display formula's edge shadows take the colour of the box the formula is in
    (a theorem, a block): else they show as pale bands on a coloured box."""
    page = browser.new_page(color_scheme=theme)
    page.goto(site_url + "icpc/2023/B-garland-glow/index.html")
    mismatched = page.evaluate(
        """() => [...document.querySelectorAll('math[display=block]')].map(m => {
          let box = m.parentElement;
          while (box && getComputedStyle(box).backgroundColor === 'rgba(0, 0, 0, 0)') box = box.parentElement;
          const wanted = box ? getComputedStyle(box).backgroundColor : 'rgb(255, 255, 255)';
          const cover = getComputedStyle(m).backgroundImage.match(/rgba?\\([^)]*\\)/)[0];
          return [m.closest('.theorem, .block') ? 'boxed' : 'plain', cover, wanted];
        }).filter(([, cover, wanted]) => cover !== wanted)"""
    )
    boxed = page.evaluate("() => document.querySelectorAll('.theorem math[display=block]').length")
    page.close()
    assert boxed > 0
    assert mismatched == []


def test_on_a_phone_the_title_limits_and_statement_come_first_and_the_feed_is_linked(
    browser: Any, site_url: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
    tab = context.new_page()
    tab.goto(site_url + ENTRY)
    limits = tab.locator("dl.judge-box")
    assert limits.is_visible()
    assert "Time limit" in limits.inner_text() and "Answers" in limits.inner_text()
    title_box, limits_box = tab.locator("h1").bounding_box(), limits.bounding_box()
    statement_box = tab.locator("#statement").bounding_box()
    assert title_box and limits_box and statement_box
    assert title_box["y"] < limits_box["y"] < statement_box["y"] < 800  # the statement starts on the first screen
    feed = tab.evaluate("document.querySelector('link[rel=alternate][type=\"application/atom+xml\"]').href")
    response = tab.request.get(feed)
    assert response.status == 200 and b"<feed" in response.body()
    title = tab.evaluate("document.querySelector('h1').textContent").strip()
    assert title.split(". ", 1)[-1][:12] in response.body().decode()
    context.close()


def test_the_math_font_is_fetched_only_by_pages_with_math(browser: Any, site_url: str, built: Path) -> None:
    """Fast first paint: the math font (font-display: swap) is not requested by a page without math."""
    context = browser.new_context()
    try:
        fetched: dict[str, list[str]] = {}
        for name, path in (("entry", ENTRY), ("tags", "tags/index.html")):
            tab = context.new_page()
            urls: list[str] = []
            tab.on("request", lambda request, urls=urls: urls.append(request.url))
            tab.goto(site_url + path)
            tab.wait_for_load_state("networkidle")
            assert tab.locator("math").count() > 0 if name == "entry" else tab.locator("math").count() == 0
            fetched[name] = [u.rsplit("/", 1)[-1] for u in urls if u.endswith((".woff2", ".css"))]
            tab.close()
    finally:
        context.close()
    assert [u for u in fetched["entry"] if u.startswith("STIXTwoMath-")], fetched["entry"]  # its cut, by digest
    assert "temml.css" in fetched["entry"]
    assert fetched["tags"] == ["style.css"]  # one stylesheet; no math font nor math styles
    for sheet in ("style.css", "temml.css"):  # each math font: text shown at once, the font swapped in
        text = (built / "static" / sheet).read_text()
        assert text.count("@font-face") == text.count("font-display: swap") >= 1, sheet


def test_one_search_finds_entries_in_every_shard_of_the_index(
    page: Any, built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big archive's index comes in shards (a few entries each here), merged in the browser."""
    from site_builder.build import build_site
    from site_builder.publish import search
    from site_builder.publish.records import Listed

    monkeypatch.setattr(search, "SHARD_ENTRIES", 3)
    out = tmp_path / "site"
    assert build_site(options_for(ROOT / "archive", out, cache=built.parent / ".cache")).published
    shards = json.loads((out / "pagefind" / "shards.json").read_text())["shards"]
    assert len(shards) >= 2 and all((out / folder / "pagefind-entry.json").is_file() for folder in shards)
    titles = {}  # of every entry page, by URL
    for path in sorted(out.rglob("index.html")):
        found = re.search(r'<h1 data-pagefind-meta="title">([^<]*)</h1>', path.read_text())
        if found:
            titles[path.relative_to(out).as_posix()] = html.unescape(found[1]).rsplit(". ", 1)[-1]
    cut = search.shards_of([Listed(u, "") for u in sorted(titles)])
    assert len(cut) == len(shards) + 1
    with serving(out) as url:
        page.goto(url + "index.html")
        for shard in (cut[0], cut[-1]):  # an entry of the first shard, and one of the last
            title = titles[shard[0].url]
            page.fill("#search-input", title)
            page.wait_for_selector(f".search-results .result-title:has-text('{title}')", timeout=15_000)


def test_on_a_phone_the_page_does_not_move_when_the_search_box_and_theme_toggle_appear(
    browser: Any, site_url: str
) -> None:
    """Layout shift: theme.js, which runs before the first paint, keeps the room of what site.js shows
    later, so the content starts where it will stay (site.js held back here, as on a slow network)."""
    tops = []
    for blocked in (True, False):
        context = browser.new_context(viewport={"width": 390, "height": 800}, is_mobile=True, has_touch=True)
        tab = context.new_page()
        if blocked:
            tab.route("**/static/site.js", lambda route: route.abort())
        tab.goto(site_url + "index.html")
        tab.wait_for_load_state("load")
        assert tab.locator("#search-input").is_visible() != blocked
        tops.append(tab.evaluate("document.getElementById('main').getBoundingClientRect().top"))
        context.close()
    assert tops[0] == tops[1]
