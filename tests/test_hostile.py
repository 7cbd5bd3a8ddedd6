"""Hostile input comes out inert, and an interrupted build never damages the published site."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

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


@pytest.mark.parametrize("delay", [0.3, 0.8, 2.5])
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_killed_build_leaves_a_complete_site(tmp_path: Path, delay: float, how: signal.Signals) -> None:
    """Killed at any moment, the site is the previous build's or the new one's, whole, never a mix."""
    archive, cache = tmp_path / "archive", tmp_path / "cache"
    shutil.copytree(ROOT / "archive", archive)

    def command(out: Path) -> list[str]:
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
            "--no-verify",
            "--jobs",
            "1",
        ]

    def snapshot(out: Path) -> dict[Path, bytes]:
        return {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    subprocess.run(command(tmp_path / "site"), cwd=ROOT, check=True, capture_output=True)
    before = snapshot(tmp_path / "site")
    writeup = archive / "icpc/2024/B-flood-season/solution.tex"
    writeup.write_text(writeup.read_text().replace("Common pitfalls", "Common traps"))
    subprocess.run(command(tmp_path / "expected"), cwd=ROOT, check=True, capture_output=True)
    expected = snapshot(tmp_path / "expected")
    shutil.rmtree(cache / "render")  # the next build renders everything again: slow enough to be caught
    process = subprocess.Popen(
        command(tmp_path / "site"), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(delay)
    process.send_signal(how)
    process.wait(timeout=60)
    after = snapshot(tmp_path / "site")
    assert after in (before, expected)
    if delay < 1:
        assert after == before, "killed half-way: the previous site, untouched"
    subprocess.run(command(tmp_path / "site"), cwd=ROOT, check=True, capture_output=True)
    assert snapshot(tmp_path / "site") == expected, "the next build completes, from a usable cache"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []
