"""Hostile input comes out inert, and an interrupted build never damages the published site."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import ROOT, ArchiveMaker, options_for

from site_builder.build import build_site

OUR_SCRIPTS = {"static/theme.js", "static/site.js"}


class ScriptFinder(HTMLParser):
    """Everything in a page that could run: script elements, on* attributes, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if (
                name in ("href", "src", "action", "formaction", "xlink:href")
                and value
                and (
                    value.strip()
                    .lower()
                    .replace("\t", "")
                    .replace("\n", "")
                    .startswith(("javascript:", "vbscript:", "data:text"))
                )
            ):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag in ("script", "iframe", "object", "embed", "base"):
            source = dict(attrs).get("src") or ""
            if tag != "script" or not any(source.endswith(s) for s in OUR_SCRIPTS):
                self.found.append(f"<{tag} src={source!r}>")


def executable_content(page: str) -> list[str]:
    finder = ScriptFinder()
    finder.feed(page)
    return finder.found


HOSTILE = {
    "t/A-md/problem.yaml": 'title: "<script>alert(1)</script>"\n'
    'tags: ["<img src=x onerror=alert(1)>", "a\\" onmouseover=\\"x"]\n'
    'summary: "<b onclick=alert(1)>hi</b>"\nsource: "javascript:alert(1)"\n',
    "t/A-md/solution.md": "## <script>alert(2)</script>\n\n<img src=x onerror=alert(3)> [link](javascript:alert(4)) "
    "[also](JaVaScRiPt:alert(5)) ![img](javascript:alert(6)) <a href='javascript:alert(7)'>x</a>\n\n"
    "```html\n<script>alert(8)</script>\n```\n\n$\\href{javascript:alert(9)}{x}$\n",
    "t/A-md/statement.md": "<iframe src=https://evil.example></iframe>\n\n<svg onload=alert(10)>\n",
    "t/A-md/<img src=x onerror=alert(11)>.txt": "file name",
    "t/B-tex/solution.tex": "\\section{<script>alert(12)</script>}\n\\href{javascript:alert(13)}{click} "
    "\\url{javascript:alert(14)} <b onclick=x>\n\n\\begin{verbatim}\n<script>alert(15)</script>\n\\end{verbatim}\n",
    "t/B-tex/problem.yaml": "title: Tex\n",
}


def test_hostile_markup_comes_out_inert(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(HOSTILE)
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert report.published
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) > 5
    for page in pages:
        if "pagefind" in page.parts:
            continue
        assert executable_content(page.read_text(encoding="utf-8")) == [], page
    entry = (tmp_path / "site/t/A-md/index.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in entry, "the title is shown, escaped"


def test_the_scanner_would_catch_an_injection() -> None:
    assert executable_content('<p onclick="x">a</p><a href="javascript:y">b</a><script>z</script>') == [
        "<p onclick=...>",
        "<a href='javascript:y'>",
        "<script src=''>",
    ]


class _Scene(NamedTuple):
    """An archive with one write-up edited, the site built before the edit with a cache from after it
    (render cache emptied, so the next build renders everything again), and both sites' files."""

    archive: Path
    site: Path
    cache: Path
    before: dict[Path, bytes]
    expected: dict[Path, bytes]


def _snapshot(out: Path) -> dict[Path, bytes]:
    return {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _quick_build(archive: Path, out: Path, cache: Path) -> list[str]:
    return _cli_build(archive, out, cache, "--no-verify", "--jobs", "1")


@pytest.fixture(scope="module")
def edited_scene(tmp_path_factory: pytest.TempPathFactory) -> _Scene:
    """Built once for all the kill tests: each kills a build of its own copy."""
    base = tmp_path_factory.mktemp("killed")
    archive, cache = base / "archive", base / "cache"
    shutil.copytree(ROOT / "archive", archive)
    subprocess.run(_quick_build(archive, base / "site", cache), cwd=ROOT, check=True, capture_output=True)
    writeup = archive / "icpc/2024/B-flood-season/solution.tex"
    writeup.write_text(writeup.read_text().replace("Common pitfalls", "Common traps"))
    subprocess.run(_quick_build(archive, base / "expected", cache), cwd=ROOT, check=True, capture_output=True)
    shutil.rmtree(cache / "render")  # the next build renders everything again: slow enough to be caught
    return _Scene(archive, base / "site", cache, _snapshot(base / "site"), _snapshot(base / "expected"))


@pytest.mark.parametrize("delay", [0.3, 0.8, 2.5])
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_killed_build_leaves_a_complete_site(
    tmp_path: Path, edited_scene: _Scene, delay: float, how: signal.Signals
) -> None:
    """Killed at any moment, the site is the previous build's or the new one's, whole, never a mix."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    shutil.copytree(edited_scene.site, site, symlinks=True)
    shutil.copytree(edited_scene.cache, cache, symlinks=True)
    command = _quick_build(edited_scene.archive, site, cache)
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(how)
    process.wait(timeout=60)
    after = _snapshot(site)
    assert after in (edited_scene.before, edited_scene.expected)
    if delay < 1:
        assert after == edited_scene.before, "killed half-way: the previous site, untouched"
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    assert _snapshot(site) == edited_scene.expected, "the next build completes, from a usable cache"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []


def test_folder_names_with_spaces_and_letters_get_stable_unique_urls(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    from sitecheck import check_site

    solver = "print(int(input()) * 2)\n"
    files: dict[str, str | bytes] = {}
    for folder in ("t/A-Über Brücke", "t/A-Uber-Brucke", "t/B-x", "t/b-x", "t/山"):
        files |= {
            f"{folder}/solution.md": f"# {folder}\n\nText.\n",
            f"{folder}/solution.py": solver,
            f"{folder}/samples/1 one.in": "2\n",
            f"{folder}/samples/1 one.ans": "4\n",
            f"{folder}/notes and more.txt": "notes\n",
        }
    archive = make_archive(files)
    out = tmp_path / "site"
    report = build_site(options_for(archive, out))
    assert sorted(str(d).replace(str(archive), "archive") for d in report.diagnostics) == [
        "archive/t/A-Über Brücke: this folder's URL t/A-Uber-Brucke/ is already archive/t/A-Uber-Brucke's; "
        "rename one of them",
        "archive/t/b-x: this folder's URL t/b-x/ is already archive/t/B-x's; rename one of them",
    ]
    # Every folder is still published; the second of a colliding pair under a numbered URL.
    for slug in (
        "A-Uber-Brucke",
        "A-Uber-Brucke-2",
        "B-x",
        "b-x-2",
        "x-" + hashlib.sha1("山".encode()).hexdigest()[:8],
    ):
        page = (out / "t" / slug / "index.html").read_text(encoding="utf-8")
        assert "Verified 1/1" in page and 'href="notes%20and%20more.txt"' in page
        assert (out / "t" / slug / "samples" / "1 one.in").read_text() == "2\n"
    assert check_site(out) == []
    # The same archive always gives the same URLs.
    again = build_site(options_for(archive, tmp_path / "again"))
    assert (
        sorted(p.relative_to(tmp_path / "again").as_posix() for p in (tmp_path / "again").rglob("index.html"))
        == sorted(p.relative_to(out).as_posix() for p in out.rglob("index.html"))
        and again.published
    )


def test_huge_and_repetitive_inputs_have_clear_limits(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    paragraph = "A long statement paragraph with $x_i$ in it. " * 40 + "\n\n"
    archive = make_archive(
        {
            "t/A-huge/statement.md": paragraph * (20 * 1024 * 1024 // len(paragraph)),  # 20 MB
            "t/A-huge/solution.md": "# Huge\n\nThe statement is too big to show.\n",
            # A built-in macro used more often than the 200,000 expansions a document's own macros may make.
            "t/B-many/solution.tex": "\\section{Many}\n" + "\\o " * 300_000 + "\n",
        }
    )
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert [str(d).replace(str(archive), "archive") for d in report.diagnostics] == [
        "archive/t/A-huge/statement.md: cannot render it: 20.0 MiB is over the 4 MiB limit for text the site shows;"
        " shorten or split it to under 4 MiB: the page shows all of it"
    ]
    huge = (tmp_path / "site/t/A-huge/index.html").read_text(encoding="utf-8")
    assert "over the 4 MiB limit" in huge and "The statement is too big to show." in huge
    assert (tmp_path / "site/t/A-huge/statement.md").stat().st_size == (
        archive / "t/A-huge/statement.md"
    ).stat().st_size
    many = (tmp_path / "site/t/B-many/index.html").read_text(encoding="utf-8")
    editorial = many[many.index('id="editorial"') : many.index('id="code"')]
    assert editorial.count("\u00f8") == 300_000


def test_names_and_checker_messages_cannot_forge_lines_or_drive_the_terminal(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    checker = (
        "import sys\nopen(sys.argv[3] + '/judgemessage.txt', 'w').write('\\x1b]0;owned\\x07\\x1b[2Kwrong\\u202e')\n"
        "sys.exit(43)\n"
    )
    archive = make_archive(
        {
            "t/A-x/solution.py": "print(5)\n",
            "t/A-x/samples/1.in": "1\n",
            "t/A-x/samples/1.ans": "5\n",
            "t/A-x/checker.py": checker,
            "t/A-x/bad\nt/Z-forged/problem.yaml:1: error: forged.txt": "x",
            "t/A-x/problem.yaml": "title: X\ntime_limit: 3\nbogus_key: 1\n",
        }
    )
    argv = [sys.executable, "-m", "site_builder.cli", "build", "--archive", str(archive), "--out", str(tmp_path / "s")]
    done = subprocess.run(
        [*argv, "--cache", str(tmp_path / "c")], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    shown = done.stdout + done.stderr
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert not any(line.startswith("t/Z-forged") for line in shown.splitlines())
    assert "\\x1b]0;owned" in shown  # the message is there, escaped


def test_a_renderer_that_fails_on_one_entry_stops_only_that_entry(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.render import content

    real = content.RENDERERS[".md"]

    def fragile(text: str, *args: object, **kwargs: object) -> object:
        if "BOOM" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, *args, **kwargs)

    monkeypatch.setitem(content.RENDERERS, ".md", fragile)
    archive = make_archive({"t/A-bad/solution.md": "# Bad\n\nBOOM\n", "t/B-good/solution.md": "# Good\n\nFine.\n"})
    report = build_site(options_for(archive, tmp_path / "site"))
    (error,) = [str(d) for d in report.diagnostics if d.level == "error"]
    assert error.endswith(
        "/t/A-bad/solution.md: cannot render it: the renderer failed on it "
        "(RecursionError: maximum recursion depth exceeded); please report this file"
    )
    assert "Fine." in (tmp_path / "site" / "t" / "B-good" / "index.html").read_text()
    assert "the renderer failed on it" in (tmp_path / "site" / "t" / "A-bad" / "index.html").read_text()


def test_markdown_links_and_images_stay_on_this_site_and_in_the_folder() -> None:
    from site_builder.render.markdown import render_markdown

    text = (
        "![up](%2e%2e/%2e%2e/secret.png) ![gone](missing.png) ![ok](fig.png) [host](//evil.example/x) "
        "[slashes](\\\\\\\\evil.example/x) [rel](other.html#x)\n"
    )
    document, warnings = render_markdown(text, "t/A/solution.md", assets={"fig.png": None}, asset_base="A/")
    assert 'src="A/fig.png"' in document.html and document.html.count("<img") == 1
    hrefs = re.findall(r'href="([^"]*)"', document.html)
    assert not any(h.startswith(("//", "\\", "/\\")) or ":" in h for h in hrefs), hrefs  # no other host
    assert '<a href="other.html#x">rel</a>' in document.html
    assert [message for _, message in warnings] == [
        "image '%2e%2e/%2e%2e/secret.png' dropped: images must be files in the problem folder",
        "image 'missing.png' not found in the problem folder; dropped",
    ]


def test_folders_named_as_the_sites_own_files_are_refused_whole(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    entry = {
        "solution.py": "print(5)\n",
        "samples/1.in": "1\n",
        "samples/1.ans": "5\n",
        "solution.md": "# X\n\nText.\n",
    }
    files: dict[str, str | bytes] = {}
    for folder in ("static/A-x", "Pagefind/A-x", "verification.json/A-x", "t/index.html", "t/A-fine"):
        files |= {f"{folder}/{name}": text for name, text in entry.items()}
    files["static/style.css"] = "body { display: none }"
    archive = make_archive(files)
    report = build_site(options_for(archive, tmp_path / "site"))
    errors = sorted(str(d).split("archive/", 1)[1] for d in report.diagnostics if d.level == "error")
    assert errors == [
        "Pagefind: the name 'Pagefind' is the site's own; rename the folder (nothing in it is published or run)",
        "static: the name 'static' is the site's own; rename the folder (nothing in it is published or run)",
        "t/index.html: the name 'index.html' is the site's own; rename the folder (nothing in it is published or run)",
        "verification.json: the name 'verification.json' is the site's own; rename the folder"
        " (nothing in it is published or run)",
    ]
    site = tmp_path / "site"
    assert (site / "static" / "style.css").read_text().startswith((ROOT / "static" / "style.css").read_text())
    verified = json.loads((site / "verification.json").read_text())["results"]
    assert {r["entry"] for r in verified} == {"t/A-fine"}  # no other folder's solver ran
    assert not (site / "Pagefind" / "A-x").exists() and (site / "t" / "A-fine" / "index.html").is_file()


def test_a_symbolic_link_loop_is_that_files_error(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/solution.md": "# X\n\nText.\n", "t/B-y/solution.md": "# Y\n\nMore.\n"})
    (archive / "t" / "A-x" / "loop").symlink_to("loop")
    (archive / "t" / "A-x" / "one").symlink_to("two")
    (archive / "t" / "A-x" / "two").symlink_to("one")
    report = build_site(options_for(archive, tmp_path / "site"))
    errors = sorted(str(d).rsplit("/t/", 1)[1] for d in report.diagnostics if d.level == "error")
    assert errors == [
        f"A-x/{name}: cannot read it: Too many levels of symbolic links; not published"
        for name in ("loop", "one", "two")
    ]
    assert (tmp_path / "site" / "t" / "A-x" / "index.html").is_file()
    assert (tmp_path / "site" / "t" / "B-y" / "index.html").is_file()


EVIL_SVG = """<?xml version="1.0"?>
<?xml-stylesheet href="https://evil.example/x.xsl" type="text/xsl"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 20 10"
     onload="alert(1)">
<script>alert(2)</script>
<style><![CDATA[@import url(https://evil.example/x.css); .a { fill: url(https://evil.example/f#x) }]]></style>
<style><![CDATA[.b { fill: #123 } .c > .d { fill: url(#g) }]]></style>
<foreignObject width="9" height="9">
<iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(3)"/></foreignObject>
<a xlink:href="javascript:alert(4)"><text x="1" y="5" style="fill:u\\72l(https://evil.example/y)">label</text></a>
<image href="https://evil.example/track.png" width="3" height="3"/>
<set attributeName="onmouseover" to="alert(5)"/>
<html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(6)</html:script>
<rect id="r" class="b" width="8" height="4" fill="url(#g)"/><use href="#r" x="10"/>
</svg>
"""


def test_active_files_are_withheld_and_svg_images_sanitized(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    from site_builder.render.svg import unsafe_part

    archive = make_archive(
        {
            "t/A-x/solution.md": "# X\n\n![figure](evil.svg)\n",
            "t/A-x/evil.svg": EVIL_SVG,
            "t/A-x/broken.svg": '<svg xmlns="http://www.w3.org/2000/svg">\n<text>&nbsp;</text></svg>\n',
            "t/A-x/plain.svg": '<svg viewBox="0 0 2 2"><rect width="1" height="1"/></svg>\n',
            "t/A-x/page.html": "<script>alert(7)</script>",
            "t/A-x/Page2.XHTML": "<html xmlns='http://www.w3.org/1999/xhtml'><script>alert(8)</script></html>",
            "t/A-x/data/feed.xml": "<x/>",
            "site.yaml": "publish_data: all\n",  # test data published too: an active file there is withheld still
        }
    )
    site = tmp_path / "site"
    report = build_site(options_for(archive, site, verify=False))
    assert report.published
    shown = sorted(str(d).split("/t/", 1)[1] for d in report.diagnostics)
    withheld = "not published: a browser would run it as a page of this site (set publish_active_files: true"
    assert shown == [
        f"A-x/Page2.XHTML: warning: {withheld} in site.yaml to publish it)",
        "A-x/broken.svg:2: warning: not published: not well-formed XML: undefined entity",
        f"A-x/data/feed.xml: warning: {withheld} in site.yaml to publish it)",
        "A-x/evil.svg: warning: published without what a browser would run or load: onload, <script>,"
        " a style sheet loading from elsewhere, <foreignObject>, a reference to javascript:alert(4),"
        " the style loading from elsewhere, a reference to https://evil.example/track.png, <set>",
        f"A-x/page.html: warning: {withheld} in site.yaml to publish it)",
        "A-x/plain.svg: warning: not published: not an SVG image: its <svg> element lacks"
        ' xmlns="http://www.w3.org/2000/svg", so browsers do not draw it',
    ]
    published = sorted(p.relative_to(site / "t/A-x").as_posix() for p in (site / "t/A-x").rglob("*"))
    assert published == ["code-solution-md.html", "evil.svg", "index.html", "solution.md"]  # and our page of its source
    svg = (site / "t/A-x/evil.svg").read_text()
    assert unsafe_part(svg) == ""
    assert not re.search(r"script|onload|foreignObject|evil\.example|javascript|xml-stylesheet|\\", svg, re.I)
    assert '<rect id="r" class="b" width="8" height="4" fill="url(#g)"/><use href="#r" x="10"/>' in svg
    assert ".b { fill: #123 } .c &gt; .d { fill: url(#g) }" in svg  # a style sheet that loads nothing stays
    page = (site / "t/A-x/index.html").read_text()
    assert re.search(r'<img src="evil\.svg" alt="figure"[^<>]* loading="lazy" decoding="async">', page)
    assert '<span class="withheld" title="Not published: a browser would run it' in page
    assert "page.html (not published)" in page and 'href="page.html"' not in page

    (archive / "site.yaml").write_text("publish_active_files: true\n")
    again = build_site(options_for(archive, tmp_path / "again", verify=False))
    assert (tmp_path / "again/t/A-x/page.html").read_text() == "<script>alert(7)</script>"
    assert not (tmp_path / "again/t/A-x/broken.svg").exists()  # an SVG is never published unsanitized
    assert len(again.diagnostics) == 3  # broken.svg and plain.svg not published, evil.svg cleaned


@pytest.mark.parametrize(
    ("svg", "found"),
    [
        ('<svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>', "<script>"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><g onclick="x"/></svg>', "onclick"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><a href=" http://x/"/></svg>', "href=' http://x/'"),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink"><use x:href="a.svg#b"/>'
            "</svg>",
            "href='a.svg#b'",
        ),
        ('<svg xmlns="http://www.w3.org/2000/svg"><style>@import "x";</style></svg>', "<style> loading from elsewhere"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><style>a{b:url( "//x")}</style></svg>', "<style> loading"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><g fill="url(http://x#a)"/></svg>', "fill='url(http://x#a)'"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><g style="fill:\\75rl(x)"/></svg>', "style="),
        ('<svg xmlns="http://www.w3.org/2000/svg"><p xmlns="http://www.w3.org/1999/xhtml"/></svg>', "<p>"),
        ('<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"/>', "a document type"),
        ('<?xml-stylesheet href="x"?><svg xmlns="http://www.w3.org/2000/svg"/>', "a processing instruction"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><animate attributeName="href"/></svg>', "<animate>"),
        ("<svg><", "not well-formed"),
    ],
)
def test_the_check_after_sanitizing_trusts_nothing(svg: str, found: str) -> None:
    from site_builder.render.svg import unsafe_part

    assert found in unsafe_part(svg)
    fine = '<svg xmlns="http://www.w3.org/2000/svg"><style>a{fill:url(#g)}</style><use href="#r"/></svg>'
    assert unsafe_part(fine) == ""


def test_track_folder_names_become_urls_by_the_rule_problem_folders_follow(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    from sitecheck import check_site

    page = "# T\n\nText.\n"
    tracks = ("javascript:alert(document.domain)", "Über Track", "Uber-track", 'a"b<c', "Static!", "index.html ")
    archive = make_archive({f"{track}/A-x/solution.md": page for track in tracks})
    site = tmp_path / "site"
    report = build_site(options_for(archive, site, verify=False))
    errors = sorted(str(d).replace(f"{archive}/", "archive/").split("archive/", 1)[1] for d in report.diagnostics)
    assert errors == [
        "Static!: the name 'Static!' (in URLs 'Static') is the site's own; rename the folder"
        " (nothing in it is published or run)",
        "index.html : the name 'index.html ' (in URLs 'index.html') is the site's own; rename the folder"
        " (nothing in it is published or run)",
        "Über Track/A-x: this folder's URL Uber-Track/A-x/ is already archive/Uber-track/A-x's; rename one of them",
        "Über Track: this track's URL Uber-Track/ is already archive/Uber-track's; rename one of them",
    ]
    home = (site / "index.html").read_text()
    assert executable_content(home) == []
    for url in ("javascript-alert-document.domain", "Uber-track", "Uber-Track-2", "a-b-c"):
        assert f'href="{url}/index.html"' in home
        assert (site / url / "index.html").is_file()
    assert (site / "static" / "style.css").read_text().startswith((ROOT / "static" / "style.css").read_text())
    assert check_site(site) == []


def test_folders_too_deep_or_long_are_named_and_the_rest_published(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    page = "# T\n\nText.\n"
    deep = "/".join(["d"] * 200)
    inner = "/".join(["e"] * 40)
    long = "/".join(["n" * 250] * 5)
    archive = make_archive(
        {
            f"t/{deep}/A-deep/solution.md": page,
            f"t/B-inner/{inner}/file.txt": "x",
            "t/B-inner/solution.md": page,
            f"t/{long}/C-long/solution.md": page,
            "t/D-ok/solution.md": page,
        }
    )
    site = tmp_path / "site"
    report = build_site(options_for(archive, site, verify=False))
    shown = sorted(str(d).split("archive/", 1)[1] for d in report.diagnostics)
    n250 = "n" * 250
    assert shown == [
        f"t/B-inner/{'/'.join(['e'] * 31)}: nested deeper than 32 folders; not published",
        f"t/{'/'.join(['d'] * 31)}: nested deeper than 32 folders: nothing below it is read"
        " (move the problem folders up)",
        f"t/{n250}/{n250}/{n250}/{n250}/{n250}: its path is longer than 1024 bytes: nothing below it is read"
        " (move the problem folders up)",
    ]
    assert (site / "t/D-ok/index.html").is_file() and (site / "t/B-inner/index.html").is_file()


def test_input_fan_out_is_refused_and_errors_in_inlined_files_name_them() -> None:
    from site_builder.errors import LatexError
    from site_builder.render.latex import render_latex

    fan = {f"f{n}.tex": "Some words of text here.\n" + f"\\input{{f{n + 1}}}\n" * 10 for n in range(7)}
    fan["f7.tex"] = "x" * 1000
    started = time.perf_counter()
    with pytest.raises(LatexError) as refused:
        render_latex("\\section{A}\n\\input{f0}\n", "t/A/solution.tex", inputs=fan)
    assert time.perf_counter() - started < 60  # it used to run for minutes, then out of memory
    assert str(refused.value).startswith("t/A/f") and "inlines over 8 MiB of TeX in all; refused" in str(refused.value)

    loop = {"a.tex": "Text.\n\n\\input{b}\n", "b.tex": "One.\nTwo.\n\\input{a}\n"}
    with pytest.raises(LatexError) as looped:
        render_latex("\\section{A}\n\\input{a}\n", "t/A/solution.tex", inputs=loop)
    assert str(looped.value) == "t/A/b.tex:3: \\input nests too deep or loops: a.tex -> b.tex -> a.tex"


def test_a_huge_sparse_file_is_not_read(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "t/A-x/solution.md": "# X\n\nText.\n",
            "t/A-x/solution.py": "print(int(input()) * 2)\n",
            "t/A-x/samples/1.in": "2\n",
            "t/A-x/samples/1.ans": "4\n",
            "t/A-x/data/big.in": "",
            "t/A-x/data/mid.bin": "",
            "site.yaml": "publish_data: all\n",
        }
    )
    with open(archive / "t/A-x/data/big.in", "r+b") as f:
        f.truncate(5 * 1024**3)  # 5 GiB of holes: no disk used, but reading it whole takes all the memory
    with open(archive / "t/A-x/data/mid.bin", "r+b") as f:
        f.truncate(40 * 1024**2)
    report = build_site(options_for(archive, tmp_path / "site"))
    assert [str(d).split("/t/", 1)[1] for d in report.diagnostics] == [
        "A-x/data/big.in: warning: 5120 MiB is over the 256 MiB limit for a file; not published"
    ]
    assert not (tmp_path / "site/t/A-x/data/big.in").exists()
    assert (tmp_path / "site/t/A-x/data/mid.bin").stat().st_size == 40 * 1024**2
    assert "Verified 1/1" in (tmp_path / "site/t/A-x/index.html").read_text()


def _cli_build(archive: Path, out: Path, cache: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "site_builder.cli",
        "build",
        "--root",
        str(ROOT),
        "--archive",
        str(archive),
        "--out",
        str(out),
        "--cache",
        str(cache),
        *extra,
    ]


def test_builds_on_one_site_and_cache_take_turns(tmp_path: Path) -> None:
    archive, out, cache = tmp_path / "archive", tmp_path / "site", tmp_path / "cache"
    shutil.copytree(ROOT / "archive", archive)
    command = _cli_build(archive, out, cache, "--no-verify", "--jobs", "1")
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)  # the first usually holds the locks by now; on a busy machine, the second may take them
    second = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    _, err1 = first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, err1 + second.stderr
    assert "Traceback" not in err1 + second.stderr
    waited = r"waiting for another build \(process \d+\) that holds \S+(build|\.site)\.lock \.\.\."
    assert [bool(re.search(waited, err)) for err in (err1, second.stderr)] in ([False, True], [True, False])
    assert (out / "index.html").is_file() and not list(tmp_path.glob(".site.tmp*"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mounts a small tmpfs: root only")
def test_a_full_cache_disk_is_one_line_naming_the_file(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(small)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        archive, out = tmp_path / "archive", tmp_path / "site"
        shutil.copytree(ROOT / "archive", archive)
        out.mkdir()
        (out / "index.html").write_text("the previous site")
        done = subprocess.run(
            _cli_build(archive, out, small / "cache", "--no-verify"), cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 1 and "Traceback" not in done.stderr
        lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING")]
        assert re.fullmatch(r"\S+/small/cache/\S+: cannot write: No space left on device", lines[0]), lines
        assert lines[1] == "Build failed; the previous site was left as it was."
        assert (out / "index.html").read_text() == "the previous site"
        assert not [p for p in small.rglob("*") if ".tmp" in p.name]  # no half-written files left
    finally:
        subprocess.run(["umount", str(small)])


def test_an_unclosed_dollar_in_markdown_is_a_warning_at_its_line() -> None:
    from site_builder.render.markdown import render_markdown

    text = "# T\n\nFine $x$ and a dollar \\$5 and `$code`.\n\nFirst line\nthen $x + y never closes.\n"
    _, warnings = render_markdown(text, "t/A/solution.md")
    assert warnings == [(6, "a '$' that opens math is never closed; write \\$ for a dollar sign")]


# An XML document whose XHTML-namespace <script> Chromium runs when a host serves it as XML or XHTML.
ACTIVE_XML = (
    '<?xml version="1.0"?>\n<x xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(document.domain)</h:script>'
    '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert("xhtml")</script></html></x>\n'
)
ISSUE_34_SUFFIXES = (".xhtm", ".xpdl", ".rdf", ".mml", ".atom", ".rss", ".xsd", ".rng")


def test_only_what_hosts_serve_as_inert_is_published(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """Issue #34: files a host serves as HTML, XML or any +xml type (by mime-db, nginx, Apache, Debian or
    Python's tables) are withheld, whatever the suffix; test data, source code, images, PDFs and archives are
    published, and the dev server never sends a type a browser would run for them."""
    from site_builder.serve.web import content_type

    base = "t/A-x"
    active = {f"{base}/evil{suffix}": ACTIVE_XML for suffix in ISSUE_34_SUFFIXES}
    active |= {f"{base}/data/secret/1.html.in": "<script>alert(1)</script>", f"{base}/fake.rs": ACTIVE_XML}
    ordinary: dict[str, str | bytes] = {
        f"{base}/{name}": "1 2\n"
        for name in ("data/secret/1.in", "data/secret/1.ans", "1.out", "input", "notes.txt", "judge.interaction")
    }
    ordinary |= {f"{base}/tests/01.1": "3\n", f"{base}/solution.cpp": "int main() {}\n", f"{base}/gen.py": "print(1)\n"}
    ordinary |= {f"{base}/solution.rs": "use std::io;\nfn main() {}\n", f"{base}/figure.png": b"\x89PNG\r\n\x1a\n"}
    ordinary |= {f"{base}/statement.pdf": b"%PDF-1.4\n", f"{base}/tests.zip": b"PK\x05\x06" + bytes(18)}
    site_yaml = {"site.yaml": "publish_data: all\n", f"{base}/solution.md": "# X\n\nText.\n"}
    archive = make_archive({**active, **ordinary, **site_yaml})
    site = tmp_path / "site"
    report = build_site(options_for(archive, site, verify=False))
    assert report.published
    withheld = sorted(d.path.split(f"{base}/", 1)[1] for d in report.diagnostics if "not published" in d.message)
    assert withheld == sorted(name.split(f"{base}/", 1)[1] for name in active)
    ours = {p for p in (site / base).glob("code-*.html") if '<main id="main" class="page">' in p.read_text()}
    files = [p for p in (site / base).rglob("*") if p.is_file() and p not in ours]  # but the code pages we made
    published = sorted(p.relative_to(site / base).as_posix() for p in files)
    expected = sorted(name.split(f"{base}/", 1)[1] for name in {**ordinary, f"{base}/solution.md": ""})
    assert published == sorted([*expected, "index.html"])
    page = (site / base / "index.html").read_text(encoding="utf-8")
    for name in active:
        assert f"{name.rsplit('/', 1)[1]} (not published)" in page
    for path in files:
        if path.name != "index.html":
            kind = content_type(path)
            assert not re.search(r"html|xml", kind), (path.name, kind)
    for suffix in ISSUE_34_SUFFIXES:  # (as the dev server would serve them, were they there)
        assert content_type(Path(f"evil{suffix}")) == "application/octet-stream"

    (archive / "site.yaml").write_text("publish_data: all\npublish_active_files: true\n")
    again = build_site(options_for(archive, tmp_path / "again", verify=False))
    assert again.diagnostics == () and (tmp_path / "again" / base / "evil.xhtm").read_text() == ACTIVE_XML


OVERRIDE_ATTACKS = [
    ('{{ "x"|center(6000000000)|length }}', "memory"),
    ('{{ "{:>6000000000}".format("x")|length }}', "memory"),
    ('{{ "%6000000000s"|format("x")|length }}', "memory"),
    (
        '{% set ns = namespace(s="x" * 9000000) %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}',
        "memory",
    ),
    (
        "{% set ns = namespace(l=[0] * 9000000) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}",
        "memory",
    ),
    ('{{ (["x"] * 1000)|join("y" * 9000000)|length }}', "memory"),
    ("{{ lipsum(100000000)|length }}", "time"),
    ('{% for a in "x" * 9000000 %}{% for b in "x" * 9000000 %}{% endfor %}{% endfor %}', "time"),
    ('{{ ("x" * 9000000)|wordwrap(1)|length }}', "time"),
]


@pytest.mark.parametrize(("body", "limit"), OVERRIDE_ATTACKS)
def test_an_override_template_has_a_memory_cap_and_a_deadline_for_all_it_does(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, body: str, limit: str
) -> None:
    """Issue #34: every operation, not a list of capped operators: the page's process has its memory capped
    and its time limited, and a page over either is an error at its template's line; nothing is published."""
    from site_builder.errors import TemplateError
    from site_builder.publish import sandboxed

    # A memory bomb fails at once; its deadline is long, so that a loaded machine cannot make it a timeout.
    monkeypatch.setattr(sandboxed, "PAGE_SECONDS", 1.0 if limit == "time" else 20.0)
    monkeypatch.setattr(sandboxed, "MEMORY_BYTES", 256 << 20)
    archive = make_archive(
        {"t/A-one/solution.md": "# One\n\nText.\n", "overrides/templates/home.html": f"start\n{body}\n"}
    )
    started = time.perf_counter()
    with pytest.raises(TemplateError) as info:
        build_site(options_for(archive, tmp_path / "site", verify=False))
    assert time.perf_counter() - started < 60
    assert info.value.path.endswith("/archive/overrides/templates/home.html") and info.value.line == 2
    why = "the page needs more than 256 MiB of memory" if limit == "memory" else "the page took more than 1 s"
    assert info.value.message == f"while rendering index.html: {why}" + (
        "; stopped" if limit == "memory" else " to render; stopped"
    )
    assert not (tmp_path / "site").exists()


def test_an_override_that_asked_for_gigabytes_fails_the_build_at_its_line(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """The issue's page took the builder to 5.9 GB and reported no error; now the build fails at once,
    at the template's line, and the previous site stays."""
    import resource

    archive = make_archive(
        {
            "t/A-one/solution.md": "# One\n\nText.\n",
            "overrides/templates/base.html": 'x\n{{ "x"|center(6000000000)|length }}\n',
        }
    )
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the previous site")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(
        _cli_build(archive, out, tmp_path / "cache", "--no-verify"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("Sandbox")]
    assert lines[0] == (
        f"{archive}/overrides/templates/base.html:2: while rendering index.html: "
        "the page needs more than 1024 MiB of memory; stopped"
    ), lines
    assert lines[1] == "Build failed; the previous site was left as it was."
    assert (out / "index.html").read_text() == "the previous site"
    if before < 2 << 20:  # (kilobytes: the most any child of this test process took, this build's included)
        assert after < 2 << 20, f"{after} KB"


def test_macro_expansion_is_linear_in_the_document_and_has_a_budget() -> None:
    """Issue #34: 199,000 uses of a one-letter macro in 3.6 MB took minutes, each expansion copying the rest of
    the document; the expansions of a document make at most 16 MiB of text, an error at the line past it."""
    from site_builder.errors import LatexError
    from site_builder.render.latex.macros import MAX_EXPANDED, Macros, expand_macros

    uses = 199_000
    text = "\\newcommand{\\a}{x}\n" + "Some word \\a here\n" * uses
    assert len(text) > 3_500_000
    started = time.perf_counter()
    expanded = expand_macros(text, "t/A/solution.tex", Macros())
    assert time.perf_counter() - started < 60
    assert expanded.count("Some word xhere\n") == uses  # TeX skips the space after a control word
    started = time.perf_counter()  # a picture's setup command whose group never closes: looked for once
    assert expand_macros("\\usepackage{ " * 100_000, "t/A/solution.tex", Macros()).count("{") == 100_000
    assert time.perf_counter() - started < 60

    body = "y" * 65536
    over = MAX_EXPANDED // len(body) + 1  # the use that makes the expansions pass the budget
    with pytest.raises(LatexError) as info:
        expand_macros(f"\\newcommand{{\\b}}{{{body}}}\n" + "\\b\n" * (over + 10), "t/A/solution.tex", Macros())
    assert (
        str(info.value)
        == f"t/A/solution.tex:{over + 1}: \\b: macro expansions make over 16 MiB of text in all; refused"
    )


def test_links_an_archive_holds_in_place_of_the_site_cache_or_lock_are_never_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive's repository is where its builds run (CI builds contributors' branches there): a ``site``
    link to another folder had the build replace that folder's files, and a ``.site.lock`` link had it
    truncate the file it names. Each is refused with its name, and nothing behind it changes."""
    from conftest import write_tree

    from site_builder.cli import main

    repo, victim = tmp_path / "repo", tmp_path / "victim"
    write_tree(repo, {"t/A-x/solution.md": "## Idea\n\nX.\n"})
    write_tree(victim, {"keep.txt": "precious\n", "f.txt": "mine\n"})
    placed = {"site": victim, ".cache": victim, ".site.lock": victim / "f.txt", "public": victim}
    for name, target in placed.items():
        (repo / name).symlink_to(target)
        flags = ["--out", str(repo / "public/site")] if name == "public" else []
        assert main(["build", "--root", str(repo), "--jobs", "1", "--no-verify", *flags]) == 1
        said = capsys.readouterr().err
        assert f"{name}: is a symbolic link" in said, said
        assert sorted(p.name for p in victim.iterdir()) == ["f.txt", "keep.txt"]
        assert (victim / "f.txt").read_text() == "mine\n" and (victim / "keep.txt").read_text() == "precious\n"
        (repo / name).unlink()
    (repo / ".cache").mkdir(exist_ok=True)
    (repo / ".cache/.site-builder").unlink(missing_ok=True)
    (repo / ".cache/.site-builder").symlink_to(victim / "marker")  # a link where the marker goes: replaced
    assert main(["build", "--root", str(repo), "--jobs", "1", "--no-verify"]) == 0
    assert not (victim / "marker").exists() and not (repo / ".cache/.site-builder").is_symlink()
    assert (repo / "site/t/A-x/index.html").is_file()


class _Planted:
    """A pickle that, loaded, leaves a file: what a committed cache could do with any code."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.write_text, (self.path, "ran\n"))


def test_a_cache_folder_that_came_with_the_archive_is_emptied_before_anything_is_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The caches hold pickles, which run code when loaded: a repository's committed .cache (here the YAML
    memo every build reads) ran its code in the builder. A cache folder whose token no build of this user
    made is emptied first; one the user's builds made is kept, wherever it was copied."""
    import pickle

    from conftest import write_tree

    from site_builder.cli import main
    from site_builder.errors import ConfigError
    from site_builder.publish.trust import OWNER, claim

    repo, ran = tmp_path / "repo", tmp_path / "ran.txt"
    planted = pickle.dumps(_Planted(ran))
    write_tree(repo, {"t/A-x/solution.md": "## Idea\n\nX.\n", ".cache/parsed/ya/yaml-v1.pickle": planted})
    write_tree(tmp_path / "elsewhere", {"keep.pickle": "mine\n"})
    (repo / ".cache/render").symlink_to(tmp_path / "elsewhere")  # emptied as a link, not followed
    build = ["build", "--root", str(repo), "--jobs", "1", "--no-verify"]
    assert main(build) == 0
    assert not ran.exists() and ".cache: the cache folder was not made by a build of yours" in capsys.readouterr().err
    assert (tmp_path / "elsewhere/keep.pickle").read_text() == "mine\n" and not (repo / ".cache/render").is_symlink()
    assert main(build) == 0 and "Nothing changed" in capsys.readouterr().out  # its own now: kept
    shutil.copytree(repo / ".cache", tmp_path / "copy")  # a copy of one of the user's caches: still theirs
    assert main([*build, "--cache", str(tmp_path / "copy")]) == 0
    assert "was not made by a build" not in capsys.readouterr().err
    (repo / ".cache" / OWNER).write_text("ab" * 32)  # a token from elsewhere, with a planted pickle beside it
    write_tree(repo, {".cache/parsed/ya/yaml-v1.pickle": planted})
    (repo / "t/A-x/solution.md").write_text("## Idea\n\nX, again.\n")
    assert main(build) == 0 and not ran.exists()
    assert "was not made by a build" in capsys.readouterr().err
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")  # what the builder's library is given as its cache
    with pytest.raises(ConfigError, match="is a symbolic link"):
        claim(tmp_path / "linked", ())
    assert (tmp_path / "elsewhere/keep.pickle").is_file()


def test_without_a_state_folder_to_write_every_build_starts_cold_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A home folder no one may write (a container's): the cache's token cannot be kept, so the next build
    cannot trust the cache; each build still runs, empties it, and says why once."""
    from conftest import write_tree

    from site_builder.cli import main
    from site_builder.publish import trust

    write_tree(tmp_path, {"repo/t/A-x/solution.md": "## Idea\n\nX.\n", "state": "a file, not a folder\n"})
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    build = ["build", "--root", str(tmp_path / "repo"), "--jobs", "1", "--no-verify"]
    for _ in range(2):
        monkeypatch.setattr(trust, "_MADE", set())  # each build a process of its own, as the command runs
        assert main(build) == 0
        said = capsys.readouterr().err
        assert said.count("cannot keep the cache's token (") == 1 and "set XDG_STATE_HOME" in said, said
    assert (tmp_path / "repo/site/t/A-x/index.html").is_file()
    monkeypatch.delenv("XDG_STATE_HOME")  # and no home folder known at all: the same
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: (_ for _ in ()).throw(RuntimeError("no HOME"))))
    monkeypatch.setattr(trust, "_MADE", set())
    assert main(build) == 0 and "cannot keep the cache's token (no home folder is known" in capsys.readouterr().err
