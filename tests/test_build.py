"""End to end: the shipped archive builds into a sound site; builds are deterministic and atomic."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import shutil
import sqlite3
import zipfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, ArchiveMaker, options_for, write_tree
from jinja2.filters import do_filesizeformat
from sitecheck import check_site, scan_page

from site_builder.build import build_site
from site_builder.cli import main
from site_builder.errors import TemplateError
from site_builder.freshness import kept_build, probe_inputs
from site_builder.model import Entry
from site_builder.publish import downloads, forkedpages, mathfont
from site_builder.publish.records import Record
from site_builder.render.workers import EarlyStart, cards_key
from site_builder.source.config import BuildOptions
from site_builder.source.testdata import is_test_data
from site_builder.source.walk import find_problem_folders
from site_builder.store import BUCKETS, bucket_keys


def entry_folders() -> list[Path]:
    return find_problem_folders(ROOT / "archive")


def test_every_page_exists(built: Path) -> None:
    for name in ("index.html", "404.html", "sitemap.xml", "tags/index.html", "static/style.css", "static/pygments.css"):
        assert (built / name).is_file(), name
    tracks = {p.relative_to(ROOT / "archive").parts[0] for p in entry_folders()}
    assert len(tracks) >= 3
    for track in tracks:
        assert (built / track / "index.html").is_file()
    folders = {p.relative_to(ROOT / "archive") for p in entry_folders()}
    assert len(folders) >= 12
    for folder in folders:
        assert (built / folder / "index.html").is_file(), folder


def test_site_is_well_formed_and_every_link_resolves(built: Path) -> None:
    assert check_site(built) == []


def test_raw_files_are_byte_identical(built: Path) -> None:
    """Every file as it is; SVG images sanitized, which leaves ours as they are but for an XML declaration."""
    svgs = 0
    for folder in entry_folders():
        for source in folder.rglob("*"):
            if source.is_file():
                rel = source.relative_to(ROOT / "archive")
                if is_test_data(source.relative_to(folder).as_posix()):  # publish_data: samples, the default
                    assert not (built / rel).exists(), rel
                    continue
                published = (built / rel).read_bytes()
                if source.suffix == ".svg":
                    svgs += 1
                    declaration, rest = published.split(b"\n", 1)
                    assert declaration == b'<?xml version="1.0" encoding="UTF-8"?>' and rest == source.read_bytes(), rel
                else:
                    assert published == source.read_bytes(), rel
    assert svgs >= 3


def test_test_data_is_counted_on_the_page_and_samples_come_as_one_zip(built: Path) -> None:
    folder = ROOT / "archive" / "icpc" / "2025" / "A-lakeside-lanterns"
    data = [p for p in (folder / "data").rglob("*") if p.is_file() and is_test_data(p.relative_to(folder).as_posix())]
    page = (built / "icpc" / "2025" / "A-lakeside-lanterns" / "index.html").read_text(encoding="utf-8")
    size = sum(p.stat().st_size for p in data)
    count = f"{len(data)} test files ({do_filesizeformat(size)})"
    assert f"Besides these, the package has {count} not published on this site" in page
    assert "data/secret/" not in page  # counted, not listed
    with zipfile.ZipFile(built / "icpc" / "2025" / "A-lakeside-lanterns" / "samples.zip") as archive:
        names = sorted(archive.namelist())
        assert names == sorted(p.name for p in (folder / "data" / "sample").iterdir() if p.suffix in (".in", ".ans"))
        for name in names:
            assert archive.read(name) == (folder / "data" / "sample" / name).read_bytes()
    assert '<a href="samples.zip" download>' in page


def test_math_is_mathml_and_nothing_is_left_unrendered(built: Path) -> None:
    pages = [p.read_text(encoding="utf-8") for p in built.rglob("index.html")]
    assert sum(page.count("<math") for page in pages) > 100
    for page in pages:
        assert "<math-slot" not in page
        assert 'class="math-source"' not in page


def test_no_external_requests(built: Path) -> None:
    """Stylesheets, scripts, images and fonts all come from the site itself; only <a> links leave it."""
    for page in built.rglob("*.html"):
        for attribute, url in scan_page(page.read_text(encoding="utf-8")).links:
            if attribute not in ("a.href", "link.canonical"):  # a canonical link names the page, loads nothing
                assert "://" not in url and not url.startswith("//"), (page, attribute, url)
    css = (built / "static" / "style.css").read_text()
    assert "http" not in css.replace("http://www.w3.org", "")


def test_two_builds_are_byte_identical(tmp_path: Path, built: Path) -> None:
    """With the same caches (verdicts carry measured times, so the cache is part of the input)."""
    again = tmp_path / "again"
    build_site(options_for(ROOT / "archive", again, cache=built.parent / ".cache"))
    first = {p.relative_to(built): p.read_bytes() for p in built.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_nested_lists_render_nested_on_a_real_page(built: Path) -> None:
    pages = [p.read_text(encoding="utf-8") for p in built.rglob("index.html")]
    assert any('<ol class="enum-2" type="a">' in page and '<ul class="items-1">' in page for page in pages)


def test_a_summary_is_shown_under_the_title_only_when_the_author_wrote_one(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    first = "Sort the boxes by width, then take the heaviest chain."
    archive = make_archive(
        {
            "t/A-taken/solution.md": f"## Idea\n\n{first}\n\nMore.\n",
            "t/B-given/problem.yaml": "summary: Boxes in boxes.\n",
            "t/B-given/solution.md": f"## Idea\n\n{first}\n",
        }
    )
    build_site(options_for(archive, tmp_path / "site"))
    taken = (tmp_path / "site/t/A-taken/index.html").read_text(encoding="utf-8")
    head, body = taken.split("</head>")
    assert f'<meta name="description" content="{first}">' in head
    assert 'class="summary"' not in body and body.count(f"<p>{first}</p>") == 1  # in the write-up only
    given = (tmp_path / "site/t/B-given/index.html").read_text(encoding="utf-8")
    assert '<p class="summary">Boxes in boxes.</p>' in given and given.count(f"<p>{first}</p>") == 1


def _project_copy(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(ROOT / "templates", root / "templates")
    shutil.copytree(ROOT / "static", root / "static")
    return root


def _options(root: Path, archive: Path, **kwargs: object) -> BuildOptions:
    base = options_for(archive, root / "site")
    values = {f: getattr(base, f) for f in base.__slots__}
    values.update(templates=root / "templates", static=root / "static", **kwargs)
    return BuildOptions(**values)  # type: ignore[arg-type]


def test_failed_build_leaves_the_previous_site_untouched(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    root = _project_copy(tmp_path)
    archive = make_archive({"t/A-one/solution.md": "## Idea\n\nFirst version.\n"})
    build_site(_options(root, archive))
    before = {p: p.read_bytes() for p in (root / "site").rglob("*") if p.is_file()}
    (root / "templates" / "entry.html").write_text(
        "{% extends 'base.html' %}{% block main %}{{ entry.nope }}{% endblock %}"
    )
    (archive / "t/A-one/solution.md").write_text("## Idea\n\nSecond version.\n")
    with pytest.raises(TemplateError) as info:
        build_site(_options(root, archive))
    assert info.value.path.endswith("templates/entry.html") and info.value.line == 1
    after = {p: p.read_bytes() for p in (root / "site").rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in root.iterdir() if p.name.startswith(".site.tmp")] == []


def test_broken_entry_is_published_with_its_error(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    root = _project_copy(tmp_path)
    archive = make_archive(
        {
            "t/A-good/solution.md": "## Idea\n\nFine.\n",
            "t/B-bad/solution.tex": "\\section{Idea}\nText with \\textbf{an open brace\n",
        }
    )
    report = build_site(_options(root, archive))
    assert report.published and report.errors == 1
    (error,) = [d for d in report.diagnostics if d.level == "error"]
    assert str(error).endswith("t/B-bad/solution.tex:2: unbalanced '{': this brace is never closed")
    page = (root / "site/t/B-bad/index.html").read_text()
    assert "unbalanced" in page and "solution.tex:2" in page
    assert "Fine." in (root / "site/t/A-good/index.html").read_text()


def test_strict_publishes_nothing_on_warnings(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    root = _project_copy(tmp_path)
    archive = make_archive({"t/A-x/solution.tex": "Uses \\frobnicate.\n"})
    report = build_site(_options(root, archive, strict=True))
    assert not report.published and report.warnings == 1
    assert not (root / "site").exists()


def test_cli_exit_codes_and_messages(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project_copy(tmp_path)
    archive = make_archive({"t/A-x/problem.yaml": "rating: high\n", "t/A-x/solution.md": "hi"})
    code = main(
        ["build", "--root", str(root), "--archive", str(archive), "--out", str(tmp_path / "out"), "--jobs", "1"]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "t/A-x/problem.yaml:1: rating must be a whole number, not str" in captured.err
    assert "Built 1 entry in 1 track (" in captured.out and "; 1 error, 0 warnings." in captured.out
    (archive / "t/A-x/problem.yaml").write_text("rating: 1200\n")
    assert main(["build", "--root", str(root), "--archive", str(archive), "--out", str(tmp_path / "out")]) == 0


def test_file_that_would_overwrite_a_page_is_refused(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    root = _project_copy(tmp_path)
    archive = make_archive({"t/A-x/solution.md": "hi", "t/A-x/index.html": "<p>mine</p>"})
    report = build_site(_options(root, archive))
    assert [d.message for d in report.diagnostics] == [
        "not published: a browser would run it as a page of this site"
        " (set publish_active_files: true in site.yaml to publish it)"
    ]
    assert "<p>mine</p>" not in (root / "site/t/A-x/index.html").read_text()
    (archive / "site.yaml").write_text("publish_active_files: true\n")
    report = build_site(_options(root, archive))
    assert any("would overwrite the generated page" in d.message for d in report.diagnostics)
    assert "<p>mine</p>" not in (root / "site/t/A-x/index.html").read_text()


def test_a_build_that_changes_nothing_keeps_the_site(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "t/A-x/solution.md": "# X\n\nText.\n",
            "t/A-x/solution.py": "print(int(input()) + 1)\n",
            "t/A-x/samples/1.in": "1\n",
            "t/A-x/samples/1.ans": "3\n",  # a failing sample: its warning must be reported again
            "t/B-y/solution.md": "# Y\n\nMore.\n",
        }
    )
    out = tmp_path / "site"
    options = options_for(archive, out)
    first = build_site(options)
    assert not first.current and first.warnings == 1
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    again = build_site(options)
    assert again.current and again.diagnostics == first.diagnostics and again.verification == first.verification
    assert (again.entries, again.tracks, again.pages) == (first.entries, first.tracks, first.pages)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    # Any input changing, or the published site being touched at its top, means a real build again.
    home = out / "index.html"
    home.write_text("vandalised")
    repaired = build_site(options)
    assert not repaired.current and home.read_text().startswith("<!DOCTYPE html>")
    assert first.written == len(stamps)
    assert build_site(options).current
    # A page below the top edited in place by hand (no folder changes) is seen by --rerun, which
    # checks every published file
    page = out / "t/B-y/index.html"
    page.write_text("vandalised")
    assert build_site(options).current
    repaired = build_site(options_for(archive, out, rerun=True))
    assert not repaired.current and "More." in page.read_text()
    assert build_site(options).current
    (archive / "t/B-y/solution.md").write_text("# Y\n\nChanged.\n")
    inodes = {p: p.stat().st_ino for p in out.rglob("*") if p.is_file()}
    changed = build_site(options)
    assert not changed.current and "Changed." in page.read_text()
    new = [p for p in out.rglob("*") if p.is_file() and inodes.get(p) != p.stat().st_ino]
    assert page in new and changed.written == len(new) < len(inodes) / 2  # the others are linked
    assert build_site(options).current
    assert not build_site(options_for(archive, out, rerun=True)).current


def test_an_unreadable_math_cache_is_discarded_with_a_warning(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    from site_builder.publish.trust import claim
    from site_builder.render.math import MathRenderer

    archive = make_archive({"t/A-x/solution.md": "# X\n\nThe sum $a+b$.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    options.cache.mkdir(parents=True)
    claim(options.cache, ())  # a cache of this user's builds (one that came with an archive is emptied)
    (options.cache / MathRenderer.cache_name(ROOT)).write_text("{not json")
    report = build_site(options)
    assert [d.message for d in report.diagnostics if "math cache" in d.message and "discarded" in d.message]
    assert "<math" in (tmp_path / "site/t/A-x/index.html").read_text()


def test_a_settled_archive_is_checked_by_its_stamp_without_being_read(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder import freshness
    from site_builder.source import files

    archive = make_archive({"t/A-x/solution.md": "# X\n\nText.\n", "t/B-y/solution.md": "# Y\n\nMore.\n"})
    out = tmp_path / "site"
    options = options_for(archive, out, verify=False)
    stamps = options.cache / freshness.STAMPS
    # Files written a moment ago may still change within one clock tick unseen: no stamp is kept. (An
    # hour for a tick: a slow machine's builds must not outlast it.)
    with monkeypatch.context() as fresh:
        fresh.setattr(freshness, "SETTLED_NS", 3600 * 10**9)
        assert not build_site(options).current and not stamps.exists()
        assert build_site(options).current and not stamps.exists()
    monkeypatch.setattr(freshness, "SETTLED_NS", 0)  # as if every file had been written long ago
    assert build_site(options).current and stamps.exists()

    def unread(*args: object) -> object:
        raise AssertionError("the archive was read")

    with monkeypatch.context() as patched:
        patched.setattr(freshness, "load_archive", unread)
        assert build_site(options).current
    # A full build reads no file either: each is remembered with its stat from the last read.
    with monkeypatch.context() as patched:
        patched.setattr(files, "_read_bytes", unread)
        assert not build_site(options_for(archive, out, verify=False, rerun=True)).current
    # The same size and modification time do not hide a rewrite: the change time moved.
    text = archive / "t/B-y/solution.md"
    before = text.stat()
    text.write_text("# Y\n\nMOre.\n")
    os.utime(text, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert text.stat().st_size == before.st_size
    assert not build_site(options).current and "MOre." in (out / "t/B-y/index.html").read_text()
    assert build_site(options).current
    (archive / "t/B-y/notes.txt").write_text("new file\n")
    assert not build_site(options).current and (out / "t/B-y/notes.txt").is_file()
    (archive / "t/B-y/notes.txt").unlink()
    assert not build_site(options).current and not (out / "t/B-y/notes.txt").exists()
    assert build_site(options).current


def test_a_full_build_renders_only_the_entry_pages_whose_inputs_changed(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.publish.pages import PageRenderer

    rendered: list[str] = []
    pages: list[str] = []  # every page rendered, entry pages and the others
    original, original_page = PageRenderer.render_entry, PageRenderer.page

    def counting(self: PageRenderer, site: object, entry: object, *rest: object) -> object:
        rendered.append(entry.path)  # type: ignore[attr-defined]
        return original(self, site, entry, *rest)  # type: ignore[arg-type]

    def counting_pages(self: PageRenderer, template: str, path: str, *rest: object, **values: object) -> object:
        pages.append(path)
        return original_page(self, template, path, *rest, **values)  # type: ignore[arg-type]

    monkeypatch.setattr(PageRenderer, "render_entry", counting)
    monkeypatch.setattr(PageRenderer, "page", counting_pages)
    entries = {f"t/{x}-e{x.lower()}/solution.md": f"# Title {x}\n\nText {x}.\n" for x in "ABCD"}
    archive = make_archive({**entries, "site.yaml": "base_url: https://archive.example.org/\n"})  # a sitemap too
    root = _project_copy(tmp_path)
    options = _options(root, archive)
    build_site(options)
    assert sorted(rendered) == ["t/A-ea", "t/B-eb", "t/C-ec", "t/D-ed"]
    assert {"index.html", "t/index.html", "tags/index.html", "404.html"} <= set(pages)
    # A full build that finds every entry as it was renders no page at all, listings included.
    for manifest in (options.cache / "published.json", options.cache / "published-head.json"):
        manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "inputs"}))
    rendered.clear()
    pages.clear()
    assert not build_site(options).current
    assert rendered == [] and pages == []

    def changed(path: str, text: str) -> list[str]:
        rendered.clear()
        pages.clear()
        (archive / path).write_text(text)
        build_site(options)
        return sorted(rendered)

    # C's text: only C's page, no listing. C's title: C's page and its neighbours', which link to it
    # by title, and every page that lists it.
    assert changed("t/C-ec/solution.md", "# Title C\n\nText C.\n\nA second paragraph.\n") == ["t/C-ec"]
    assert pages and all(page.startswith("t/C-ec/") for page in pages)  # its page and its source file's
    assert changed("t/C-ec/solution.md", "# Title Z\n\nOther text.\n") == ["t/B-eb", "t/C-ec", "t/D-ed"]
    assert {"index.html", "t/index.html"} <= set(pages)
    assert "tags/index.html" not in pages and "404.html" not in pages  # they show no entry's title
    # A kept page is byte for byte what a build from nothing makes.
    fresh = _options(root, archive, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache")
    build_site(fresh)
    for page in [*sorted(fresh.out.rglob("*.html")), fresh.out / "sitemap.xml", fresh.out / "verification.json"]:
        assert (options.out / page.relative_to(fresh.out)).read_bytes() == page.read_bytes(), page
    # A published site that was touched (at its top: see site_stamp), or a template that changed,
    # means rendering again.
    (options.out / "index.html").write_text("vandalised")
    assert changed("t/B-eb/solution.md", "# Title B\n\nNew.\n") == ["t/A-ea", "t/B-eb", "t/C-ec", "t/D-ed"]
    assert "Title A" in (options.out / "index.html").read_text()
    base = root / "templates/base.html"
    base.write_text(base.read_text().replace("</body>", "<!-- changed --></body>"))
    assert changed("t/B-eb/solution.md", "# Title B\n\nNewer.\n") == ["t/A-ea", "t/B-eb", "t/C-ec", "t/D-ed"]
    assert "<!-- changed -->" in (options.out / "t/A-ea/index.html").read_text()
    # After the dev server wrote in place and described the folder again, pages are still kept.
    from site_builder.publish.output import record_published

    record_published(options)
    assert changed("t/D-ed/solution.md", "# Title D\n\nLast.\n") == ["t/D-ed"]
    # Neighbours' pages come from the bundle of cards and from whole entries; a whole entry that
    # is gone from the cache is rendered again.
    for whole in (options.cache / "render").rglob("*.pickle"):
        if not whole.name.startswith(("cards-", "search-")):
            whole.unlink()
    assert changed("t/D-ed/solution.md", "# Title E\n\nLast.\n") == ["t/C-ec", "t/D-ed"]
    assert "Other text." in (options.out / "t/C-ec/index.html").read_text()
    # After all these edits the render cache holds this build's entries only: C and D whole (the
    # others' were deleted above), the bundle of cards (in its buckets) and one search index (one
    # shard, and its records kept with it).
    kept = sorted(p.name for p in (options.cache / "render").rglob("*.pickle"))
    assert [name.split("-")[:2] for name in kept if name.startswith("search-")] == [
        ["search", "records"],
        ["search", "v7"],
    ]
    assert [f"{key}.pickle" for key in bucket_keys(cards_key())] == [n for n in kept if n.startswith("cards-")]
    whole = sorted(
        _cached_path(p) for p in (options.cache / "render").rglob("*.pickle") if p.name[:6] not in ("cards-", "search")
    )
    assert whole == ["t/C-ec", "t/D-ed"], (kept, whole)


def _rendered_pages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the template pages rendered from now on, in order (a list the caller may clear)."""
    from site_builder.publish.pages import PageRenderer

    pages: list[str] = []
    original = PageRenderer.page

    def counting(self: PageRenderer, template: str, path: str, *rest: object, **values: object) -> object:
        pages.append(path)
        return original(self, template, path, *rest, **values)  # type: ignore[arg-type]

    monkeypatch.setattr(PageRenderer, "page", counting)
    return pages


def test_a_new_first_paragraph_renders_the_entry_s_page_and_the_feed_not_its_lists(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry's summary (its write-up's first paragraph) shows on its own page and in the feed, on no
    list of the theme's: a save of it rendered its track's page (thousands of rows) and its tags' again."""
    pages = _rendered_pages(monkeypatch)
    archive = make_archive(
        {
            "t/A-ea/problem.yaml": "title: Alpha\ntags: [graphs]\n",
            "t/A-ea/solution.md": "## Idea\n\nThe first words.\n\nMore.\n",
            "t/B-eb/problem.yaml": "title: Beta\ntags: [graphs]\n",
        }
    )
    options = _options(_project_copy(tmp_path), archive)
    build_site(options)
    assert "The first words." in (options.out / "feed.xml").read_text()
    pages.clear()
    (archive / "t/A-ea/solution.md").write_text("## Idea\n\nOther first words.\n\nMore.\n")
    build_site(options)
    assert "t/A-ea/index.html" in pages and {p for p in pages if not p.startswith("t/A-ea/")} == set()
    feed = (options.out / "feed.xml").read_text()
    assert "Other first words." in feed and "The first words." not in feed


def test_a_changed_card_renders_again_only_the_lists_that_show_it(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each list page is kept by the cards it shows: a new title renders its track's and its tags'
    pages and the home page, not another track's or tag's. What every page's header shows (the
    tracks, a link to the tags once there are any) renders every page again."""
    from site_builder.publish import pages as pages_module

    pages = _rendered_pages(monkeypatch)
    monkeypatch.setattr(pages_module, "RECENT", 1)  # the home page lists the last entry by path alone
    archive = make_archive(
        {
            "t/A-ea/problem.yaml": "title: Alpha\ntags: [graphs]\n",
            "t/B-eb/problem.yaml": "title: Beta\ntags: [strings]\n",
            "u/C-ec/problem.yaml": "title: Gamma\n",
            "u/D-ed/problem.yaml": "title: Delta\n",
            "site.yaml": "base_url: https://archive.example.org/\n",  # a sitemap too
        }
    )
    options = _options(_project_copy(tmp_path), archive)
    build_site(options)

    def changed(path: str, text: str) -> set[str]:
        pages.clear()
        (archive / path).write_text(text)
        build_site(options)
        return {p for p in pages if not p.startswith(("t/", "u/"))} | {p for p in pages if p.count("/") == 1}

    lists = {"index.html", "t/index.html", "u/index.html", "tags/index.html", "404.html"}
    lists |= {"tags/graphs/index.html", "tags/strings/index.html"}
    # (the home page lists the last entry, u/D-ed, and counts each track's entries and verdicts)
    assert changed("u/C-ec/problem.yaml", "title: Gamma Two\n") == {"u/index.html"}
    assert changed("u/D-ed/problem.yaml", "title: Delta Two\n") == {"index.html", "u/index.html"}
    assert changed("t/A-ea/problem.yaml", "title: Alpha Two\ntags: [graphs]\n") == {
        "t/index.html",
        "tags/graphs/index.html",
    }
    # a tag's count: the tags' page too; the tag it left, and the one it joined
    assert changed("t/A-ea/problem.yaml", "title: Alpha Two\ntags: [strings]\n") == {
        "t/index.html",
        "tags/index.html",
        "tags/strings/index.html",
    }
    assert not (options.out / "tags/graphs").exists()
    assert "Alpha Two" in (options.out / "tags/strings/index.html").read_text()
    # A site with no tags has no link to them; the first tag puts one in every page's header.
    for path in ("t/A-ea/problem.yaml", "t/B-eb/problem.yaml"):
        (archive / path).write_text("title: X\n")
    build_site(options)
    assert 'href="../../tags/index.html"' not in (options.out / "u/D-ed/index.html").read_text()
    assert changed("t/B-eb/problem.yaml", "title: X\ntags: [first]\n") >= lists - {"tags/graphs/index.html"} - {
        "tags/strings/index.html"
    }
    assert 'href="../../tags/index.html"' in (options.out / "u/D-ed/index.html").read_text()
    # A new entry: the site's count of entries is in the description of pages that have none of their own.
    (archive / "u/E-ee").mkdir()
    assert changed("u/E-ee/problem.yaml", "title: Epsilon\n") >= {"404.html", "index.html", "u/index.html"}
    assert "t/index.html" not in pages and "tags/first/index.html" not in pages
    # Another entry with a tag there is: the tags' page counts it.
    assert "tags/index.html" in changed("u/C-ec/problem.yaml", "title: Gamma Two\ntags: [first]\n")
    # An entry that moves to the other track: the home page counts each track's entries.
    (archive / "t/B-eb").rename(archive / "u/B-eb")
    assert "index.html" in changed("u/B-eb/problem.yaml", "title: X\ntags: [first]\n")
    # A kept list page is byte for byte what a build from nothing makes.
    fresh = _options(options.templates.parent, archive, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache")
    build_site(fresh)
    made = [*fresh.out.rglob("*.html"), *(fresh.out / n for n in ("feed.xml", "sitemap.xml", "verification.json"))]
    for page in sorted(made):
        assert (options.out / page.relative_to(fresh.out)).read_bytes() == page.read_bytes(), page
    # A new track: every page's header links it.
    (archive / "v/F-ff").mkdir(parents=True)
    changed("v/F-ff/problem.yaml", "title: Phi\n")
    assert 'href="../../v/index.html"' in (options.out / "t/A-ea/index.html").read_text()


def _cached_path(pickled: Path) -> str:
    """The path of the whole entry a render cache file holds ("" for the cards and the search index)."""
    import pickle

    from site_builder.store import unpacked

    value = pickle.loads(unpacked(pickled.read_bytes()))
    return str(value.path) if hasattr(value, "path") else ""


def test_the_manifest_knows_every_published_file_by_the_digest_of_its_bytes(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """Pages come to the writer with their digest computed once; it must be that of their bytes."""
    archive = make_archive({f"t/{x}-e{x.lower()}/solution.md": f"# Title {x}\n\nText {x}.\n" for x in "AB"})
    options = _options(_project_copy(tmp_path), archive)
    build_site(options)
    files = json.loads((options.cache / "published.json").read_text())["files"]
    on_disk = sorted(p.relative_to(options.out).as_posix() for p in options.out.rglob("*") if p.is_file())
    assert sorted(files) == on_disk and "t/A-ea/index.html" in files
    for path, (digest, size, _) in files.items():
        data = (options.out / path).read_bytes()
        assert (digest, size) == (hashlib.sha1(data).hexdigest(), len(data)), path


def _twenty(i: int) -> str:
    return f"\\section{{Idea {i}}}\nWe count $x_{{{i}}}^2 + {i}$ pairs:\n\\[ \\sum_{{j<{i}}} j \\]\n"


def test_worker_processes_build_the_same_site_as_one_process(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """Twenty entries: enough for worker processes (their own Temml, their own cache writes) and
    for the search index to be fed while they run. The site is byte for byte the one-process site."""
    archive = make_archive({f"t/A{i}-e{i}/solution.tex": _twenty(i) for i in range(20)})
    parallel = options_for(archive, tmp_path / "two" / "site", jobs=2)
    serial = options_for(archive, tmp_path / "one" / "site", jobs=1)
    assert build_site(parallel).published and build_site(serial).published
    _assert_same_sites(serial.out, parallel.out)
    # The workers' math went into the builder's math cache, their entries into the render cache.
    (math_cache,) = parallel.cache.glob("math-*.sqlite")
    assert _snippets(math_cache) == 40
    # entries, cards, and the search index's shard and the records kept with it
    assert len(list((parallel.cache / "render").rglob("*.pickle"))) == 20 + BUCKETS + 2
    assert "<math" in (parallel.out / "t/A7-e7/index.html").read_text()


def test_a_first_builds_pages_made_by_two_processes_are_the_one_process_pages(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build of many pages renders them in the builder and a forked copy of it at once
    (``forkedpages``); the site, its page cache and a build after it are as with one process."""
    monkeypatch.setattr(forkedpages, "SPLIT_LEAST", 20)
    placed: list[int] = []
    split = forkedpages.render_in_two

    def counted(*args: Any) -> dict[str, Any]:
        done = split(*args)
        placed.append(len(done))
        return done

    monkeypatch.setattr(forkedpages, "render_in_two", counted)
    files = {f"t/A{i}-e{i}/solution.tex": _twenty(i) for i in range(20)}
    archive = make_archive({**files, **{f"t/A{i}-e{i}/statement.md": f"Count pairs {i}.\n" for i in range(20)}})
    parallel = options_for(archive, tmp_path / "two" / "site", jobs=2)
    serial = options_for(archive, tmp_path / "one" / "site", jobs=1)
    assert build_site(parallel).published
    assert len(placed) == 1 and placed[0] > 60  # every page, the lists too, and each entry's 3
    assert build_site(serial).published and len(placed) == 1  # one job: one process
    _assert_same_sites(serial.out, parallel.out)
    pages = json.loads((parallel.cache / "pages.json").read_text())
    assert sorted(map(str, pages.values())) == sorted(
        map(str, json.loads((serial.cache / "pages.json").read_text()).values())
    )
    again = build_site(parallel)  # nothing to write: every page recorded as written
    assert again.published and again.written == 0 and placed == [placed[0]]


def _snippets(math_cache: Path) -> int:
    with closing(sqlite3.connect(math_cache)) as db:
        count: int = db.execute("SELECT count(*) FROM store").fetchone()[0]
    return count


def _assert_same_sites(one: Path, other: Path) -> None:
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert any(p.parts[0] == "pagefind" for p in files) and len(files) > 40
    assert files == sorted(p.relative_to(other) for p in other.rglob("*") if p.is_file())
    for path in files:
        assert (other / path).read_bytes() == (one / path).read_bytes(), path


def test_workers_started_while_the_archive_is_read_build_the_same_site(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no cards of this renderer in the render cache, the workers start (and get ready) before
    the archive is read, and the build renders with them, and cuts the math font and makes the
    samples' zips (from ``ZIPS_AWAY`` of them) with them while it makes the pages. Once the cards are
    there, they do not; nor for an archive too small for workers, nor with one job."""
    makers = tmp_path / "made-by"  # which process cut the math font or zipped (the workers are forks of this one)
    subset, zip_of = mathfont._subset, downloads.zip_of

    def noted(job: Callable[..., bytes], name: str) -> Callable[..., bytes]:
        def run(*args: Any) -> bytes:
            with makers.open("a") as log:
                log.write(f"{name}:{os.getpid()}\n")
            return job(*args)

        return run

    monkeypatch.setattr(mathfont, "_subset", noted(subset, "font"))
    monkeypatch.setattr(downloads, "zip_of", noted(zip_of, "zip"))
    monkeypatch.setattr(downloads, "ZIPS_AWAY", 20)
    samples = {f"t/A{i}-e{i}/samples/1.{kind}": f"{i}\n" for i in range(20) for kind in ("in", "ans")}
    archive = make_archive({**{f"t/A{i}-e{i}/solution.tex": _twenty(i) for i in range(20)}, **samples})
    early_options = options_for(archive, tmp_path / "early" / "site", jobs=2)
    serial = options_for(archive, tmp_path / "one" / "site", jobs=1)
    early = EarlyStart(early_options)
    try:
        report, loaded = kept_build(early_options, reading=early)
        assert report is None and early.pool is not None
        assert build_site(early_options, loaded=loaded, pool=early.pool).published
    finally:
        early.close()
    here = str(os.getpid())
    made = collections.Counter(makers.read_text().split())
    assert sum(made.values()) == 21 and not any(line.endswith(f":{here}") for line in made)  # by the workers
    assert build_site(serial).published
    made = collections.Counter(makers.read_text().split()) - made
    assert made == {f"font:{here}": 1, f"zip:{here}": 20}  # here
    _assert_same_sites(serial.out, early_options.out)
    (math_cache,) = early_options.cache.glob("math-*.sqlite")
    assert _snippets(math_cache) == 40  # the workers' math, and nothing of their warm-up

    for options in (early_options, options_for(archive, tmp_path / "three" / "site", jobs=1)):
        again = EarlyStart(options)
        again(probe_inputs(options).stamp)
        assert again.pool is None
    write_tree(tmp_path / "small", {f"t/A{i}-e{i}/solution.tex": _twenty(i) for i in range(3)})
    small = options_for(tmp_path / "small", tmp_path / "small-site" / "site", jobs=2)
    again = EarlyStart(small)
    again(probe_inputs(small).stamp)
    assert again.pool is None


def test_site_errors_come_back_whole_from_a_worker_process() -> None:
    import pickle

    from site_builder.errors import LatexError

    for error in (TemplateError("templates/entry.html", 3, "no such variable"), LatexError("a/solution.tex", 0, "x")):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error) and back.line == error.line


def test_threads_writing_one_cache_file_at_once_do_not_fail(tmp_path: Path) -> None:
    """The dev server's rebuild and search threads may store the same value at the same moment."""
    import threading

    from site_builder.store import write_atomic

    target = tmp_path / "value.pickle"
    failures: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for _ in range(300):
                write_atomic(target, b"x" * (1000 + n))
        except OSError as e:
            failures.append(e)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures and len(target.read_bytes()) in range(1000, 1008)
    assert [p.name for p in tmp_path.iterdir()] == ["value.pickle"]


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from site_builder.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"site-builder {version('site-builder')}\n"


def test_no_line_can_start_with_the_punctuation_after_inline_math(built: Path) -> None:
    """A full stop or comma after inline math is inside the formula's last part, where no line breaks,
    and an opening bracket before it inside its first."""
    pages = [p.read_text(encoding="utf-8") for p in built.rglob("index.html")]
    loose = [m.group() for page in pages for m in re.finditer(r"<math>(?:(?!<math).)*?</math>[.,;:!?)\]]", page)]
    assert loose == []
    opened = [m.group() for page in pages for m in re.finditer(r"[\s>][(\[]<math>", page)]
    assert opened == []
    assert sum(page.count("<math><mrow><mtext>(</mtext>") for page in pages) > 5
    glued = sum(len(re.findall(r"<mtext>[.,;:!?)\]]+</mtext></mrow></math>", page)) for page in pages)
    assert glued > 20


ENTRIES = {
    "site.yaml": "title: Our Archive\n",
    "t/A-x/solution.md": "# X\n\nText.\n",
    "t/A-x/solution.py": "print(int(input()) + 1)\n",
    "t/A-x/samples/1.in": "1\n",
    "t/A-x/samples/1.ans": "2\n",
    "t/2024/B-y/solution.md": "# Y\n\nMore.\n",
}


def test_an_archive_built_in_its_own_folder_never_reads_its_site_or_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An archive's own repository: its tracks at the top, no archive/ folder, built where it is."""
    repo = tmp_path / "repo"
    write_tree(repo, ENTRIES)
    monkeypatch.chdir(repo)
    for run in range(3):
        assert main(["build", "--jobs", "1"]) == 0
        out = capsys.readouterr().out
        assert "Built 2 entries in 1 track" in out, out
        assert ("Nothing changed since the published build" in out) == (run > 0)
    assert not (repo / "site/site").exists() and (repo / "site/.site-builder").is_file()
    assert sorted(p.name for p in (repo / "site/t").iterdir() if p.is_dir()) == ["2024", "A-x"]
    # Another output and a visible cache inside the archive, from an earlier build: marked, never read.
    assert main(["build", "--jobs", "1", "--out", "public", "--cache", "build-cache"]) == 0
    assert (repo / "public/.site-builder").is_file() and (repo / "build-cache/.site-builder").is_file()
    assert main(["build", "--jobs", "1"]) == 0
    assert "Built 2 entries in 1 track" in capsys.readouterr().out
    assert not (repo / "site/public").exists() and not (repo / "site/build-cache").exists()
    assert main(["check", "--jobs", "1", "--fail-on", "failing", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 2


def test_a_package_s_own_repository_builds_in_place_as_its_one_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One package at the top of its repository (a course's problem-design repository): init, then three
    builds where it is, give one entry and read none of the site or cache; CI's annotations name files from
    the repository's top; ``new`` there says why it makes nothing."""
    repo = tmp_path / "frog-jumps"
    write_tree(
        repo,
        {
            "problem.yaml": "name: Frog Jumps\n",
            "problem_statement/problem.en.tex": "\\problemname{Frog Jumps}\nJump.\n",
            "data/sample/1.in": "1\n",
            "data/sample/1.ans": "1\n",
            "submissions/accepted/a.py": "print(input())\n",
            "submissions/accepted/b.py": "print(2)\n",
        },
    )
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    assert "site-builder new" not in capsys.readouterr().out
    for run in range(3):
        assert main(["build", "--jobs", "1"]) == 0
        out = capsys.readouterr().out
        assert "Built 1 entry in 1 track" in out, out
        assert ("Nothing changed since the published build" in out) == (run > 0)
    entry = repo / "site/problems/frog-jumps"
    published = sorted(p.relative_to(entry).as_posix() for p in entry.rglob("*"))
    assert "problem_statement/problem.en.tex" in published and "submissions/accepted/b.py" in published
    assert not any(p.startswith(("site", ".cache", ".github", ".gitignore")) for p in published), published
    assert "Jump." in (repo / "site/problems/frog-jumps/index.html").read_text()
    verdicts = json.loads((repo / "site/verification.json").read_text())
    assert verdicts["status"] == {".": "Failing: Python 1/1"} and {r["entry"] for r in verdicts["results"]} == {"."}
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo))
    assert main(["check", "--jobs", "1", "--format", "github", "--fail-on", "failing"]) == 1  # b.py fails
    annotations = capsys.readouterr().out
    assert "::warning file=data/sample/1.in::submissions/accepted/b.py: Wrong Answer" in annotations, annotations
    assert main(["new", "icpc/2030/A-x"]) == 1
    said = capsys.readouterr().err
    assert "this archive is one problem folder (a package's own repository)" in said and not (repo / "icpc").exists()


def test_a_package_s_own_repository_without_a_title_is_named_by_its_folder(tmp_path: Path) -> None:
    """Without a title in site.yaml a package's repository is named by its folder, as ``init`` names it,
    and its entry's page does not say that name twice; an archive of packages is still "Problem Archive"."""
    from site_builder.source.config import make_options

    repo = tmp_path / "doomsday-rule"
    files: dict[str, str | bytes] = {
        "problem.yaml": "name: Doomsday Rule\nsource: Some Cup 2017\n",
        "problem_statement/problem.en.tex": "\\problemname{Doomsday Rule}\nWhich weekday?\n",
    }
    write_tree(repo, files)

    def titles(root: Path, page: str) -> list[str]:
        build_site(make_options(root, jobs=1, verify=False))
        return [
            re.findall(r"<title>(.*?)</title>", (root / "site" / name).read_text())[0] for name in ("index.html", page)
        ]

    entry = "problems/doomsday-rule/index.html"
    assert titles(repo, entry) == ["Doomsday Rule", "Some Cup 2017 · Doomsday Rule"]
    (repo / "site.yaml").write_text("description: One problem.\n")
    assert titles(repo, entry) == ["Doomsday Rule", "Some Cup 2017 · Doomsday Rule"]
    (repo / "site.yaml").write_text("title: Weekdays\n")
    assert titles(repo, entry) == ["Weekdays", "Some Cup 2017 · Doomsday Rule · Weekdays"]
    write_tree(tmp_path / "contest", {f"doomsday-rule/{name}": text for name, text in files.items()})
    assert titles(tmp_path / "contest", entry) == ["Problem Archive", "Some Cup 2017 · Doomsday Rule · Problem Archive"]


def test_no_sitemap_without_base_url_and_one_note_says_what_to_set(
    tmp_path: Path, make_archive: ArchiveMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive({**ENTRIES, "t/C-z/solution.md": "# Z\n\nLast.\n"})
    where = ["--root", str(tmp_path), "--archive", str(archive), "--jobs", "1"]
    assert main(["build", *where]) == 0
    out = capsys.readouterr().out
    assert out.count("sitemap") == 1
    note = "Note: no sitemap.xml: it needs the site's address; set base_url in site.yaml, or build with --base-url"
    assert note in out
    assert not (tmp_path / "site/sitemap.xml").exists()
    assert main(["build", *where]) == 0  # a kept site says it again
    assert capsys.readouterr().out.count("Note: no sitemap.xml") == 1
    assert main(["build", *where, "--base-url", "https://me.github.io/archive"]) == 0
    assert "sitemap" not in capsys.readouterr().out
    locations = re.findall(r"<loc>(.*?)</loc>", (tmp_path / "site/sitemap.xml").read_text())
    assert len(locations) == 6 and "https://me.github.io/archive/t/2024/B-y/index.html" in locations
    assert all(loc.startswith("https://me.github.io/archive/") for loc in locations)
    (archive / "site.yaml").write_text("base_url: https://archive.example.org/\n")
    assert main(["build", *where]) == 0
    assert "https://archive.example.org/t/C-z/index.html" in (tmp_path / "site/sitemap.xml").read_text()
    assert main(["build", *where, "--base-url", "archive.example.org"]) == 1
    assert "--base-url: must be an http or https URL with a host, not 'archive.example.org'" in capsys.readouterr().err


def test_a_statement_inputs_a_shared_template_from_inside_the_archive(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    """``\\input`` may reach a contest's shared file outside the problem folder, never out of the archive;
    editing the shared file renders the entries that input it again (and only those)."""
    files: dict[str, str | bytes] = {
        "boi/2024/common/header.tex": "\\newcommand{\\contest}{Baltic Day One}\nShared words of the jury.\n",
        "boi/2024/A-walk/problem.yaml": "title: Walk\n",
        "boi/2024/A-walk/statement.tex": "\\input{../common/header}\nWalk in \\contest.\n",
        "boi/2024/B-run/problem.yaml": "title: Run\n",
        "boi/2024/B-run/statement.tex": "Run alone.\n",
        "boi/2024/C-out/problem.yaml": "title: Out\n",
        "boi/2024/C-out/statement.tex": "Text.\n\\input{../../../../secret}\n",
    }
    archive = make_archive(files)
    out = tmp_path / "site"
    report = build_site(options_for(archive, out))
    [error] = [str(d).replace(str(archive), "archive") for d in report.diagnostics if d.level == "error"]
    assert error.endswith("C-out/statement.tex:2: \\input{../../../../secret} points outside the archive; refused")
    walk = (out / "boi/2024/A-walk/index.html").read_text()
    assert "Shared words of the jury." in walk and "Walk in Baltic Day One." in walk
    run_page = (out / "boi/2024/B-run/index.html").stat().st_mtime_ns

    (archive / "boi/2024/common/header.tex").write_text("\\newcommand{\\contest}{Baltic Day Two}\nNew words.\n")
    build_site(options_for(archive, out))
    walk = (out / "boi/2024/A-walk/index.html").read_text()
    assert "New words." in walk and "Walk in Baltic Day Two." in walk
    assert (out / "boi/2024/B-run/index.html").stat().st_mtime_ns == run_page  # not rendered again
    assert not (out / "boi/2024/common").exists()  # read for the statement, never published as an entry's


def test_an_edited_write_up_does_not_have_its_unchanged_code_highlighted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry rendered again takes its code files from its last render while their bytes are the same
    (``Builder._previous_code``): the build after a write-up edit shows the same code without Pygments,
    and code that changed is highlighted."""
    from site_builder.render import content, highlight

    files = {
        "t/A-one/solution.md": "## Idea\n\nFirst.\n",
        "t/A-one/solution.py": "n = int(input())\nprint(n + 1)\n",
        "t/A-one/solution.cpp": "#include <cstdio>\nint main() { return 0; }\n",
    }
    write_tree(tmp_path / "archive", files)
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    build_site(options)
    page = tmp_path / "site/t/A-one/index.html"
    code_before = re.findall(r'<pre class="code"><code>.*?</code></pre>', page.read_text(), re.S)
    assert len(code_before) == 2 and '<span class="' in code_before[0]

    highlighted: list[str] = []
    real = highlight.highlighted
    monkeypatch.setattr(
        highlight, "highlighted", lambda text, language: highlighted.append(language) or real(text, language)
    )
    content._code.cache_clear()  # as in a new process
    (tmp_path / "archive/t/A-one/solution.md").write_text("## Idea\n\nFirst, and second.\n")
    build_site(options)
    assert "First, and second." in page.read_text()
    assert highlighted == ["markdown"]  # the write-up's own source, shown on a page of its own: it changed
    assert re.findall(r'<pre class="code"><code>.*?</code></pre>', page.read_text(), re.S) == code_before

    highlighted.clear()
    (tmp_path / "archive/t/A-one/solution.py").write_text("n = int(input())\nprint(n + 2)\n")
    build_site(options)
    assert highlighted == ["python"] and "2</span>" in page.read_text()


def test_a_build_with_render_workers_keeps_cards_and_indexes_every_entry_from_what_they_sent(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers send the builder each entry the render cache keeps as its card with its searchable
    text (``render.workers._sent``): the search index has every entry's words, none read whole from the
    cache for its record, and the builder holds cards without that text."""
    from site_builder.build import Builder
    from site_builder.publish import search

    archive = make_archive({f"t/E{n:02d}-x/solution.md": f"# E{n}\n\n## Idea\n\nThe word zq{n}x.\n" for n in range(20)})
    options = options_for(archive, tmp_path / "site", jobs=2, verify=False)
    records: list[str] = []
    add, feed = search.PagefindSession.add, search.SearchFeed.__init__
    asked: list[str] = []

    def added(session: search.PagefindSession, record: Record, fresh: bool = False) -> None:
        records.append(record.editorial)
        add(session, record, fresh)

    def fed(self: search.SearchFeed, *args: Any) -> None:
        *given, whole = args

        def asked_whole(card: Entry) -> Entry:
            asked.append(card.path)
            return whole(card)  # type: ignore[no-any-return]

        feed(self, *given, asked_whole)

    monkeypatch.setattr(search.PagefindSession, "add", added)
    monkeypatch.setattr(search.SearchFeed, "__init__", fed)
    with Builder(options) as builder:
        builder.build_all()
        entries = list(builder.entries.values())
    assert len(entries) == 20 and all(not e.complete and e.search_text == "" for e in entries)
    assert sorted(records) == sorted(f"Idea\nThe word zq{n}x." for n in range(20)) and asked == []
