"""The quick build: a few edited entries built from the last build's record, into the very site a full
build makes, and the full build whenever anything else changed."""

from __future__ import annotations

import filecmp
import gzip
import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import options_for, serving

from site_builder import freshness
from site_builder.build import build_site
from site_builder.freshness import kept_build
from site_builder.publish import feeds, resume
from site_builder.publish.report import BuildReport
from site_builder.quick import QUICK_MOST, owning_entry, quick_build
from site_builder.source.archive import load_archive
from site_builder.source.config import BuildOptions
from site_builder.source.watchsocket import SOCKET
from site_builder.store import BUCKETS, PickleStore

GENERATE = Path(__file__).parent / "bench" / "generate.py"


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freshness, "SETTLED_NS", 0)  # as if every file had been written long ago


def generated(root: Path, count: int) -> Path:
    spec = importlib.util.spec_from_file_location("generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(root, count)
    return root


def publish(options: BuildOptions) -> tuple[BuildReport, bool]:
    """What ``site-builder build`` does (``cli._publish``); and whether the quick build made the site."""
    made: list[BuildReport] = []

    def quick(probe: freshness.Probe) -> BuildReport | None:
        report = quick_build(options, probe)
        made.extend([report] if report is not None else [])
        return report

    report, loaded = kept_build(options, quick=quick)
    if report is None:
        report = build_site(options, loaded=loaded)
    return report, bool(made)


def same_trees(left: Path, right: Path) -> list[str]:
    """The files that differ between two sites, or are in one alone; and "search" if a search finds
    other records in them (the search index may differ: a quick build indexes its entries apart)."""
    found: list[str] = []

    def walk(compared: filecmp.dircmp[str], prefix: str) -> None:
        found.extend(prefix + name for name in (*compared.left_only, *compared.right_only, *compared.funny_files))
        found.extend(prefix + name for name in compared.diff_files)
        for name, sub in compared.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    filecmp.clear_cache()
    walk(filecmp.dircmp(left, right, ignore=[]), "")
    # dircmp compares by stat: compare contents of the files both have, too
    for path in left.rglob("*"):
        twin = right / path.relative_to(left)
        if path.is_file() and twin.is_file() and path.read_bytes() != twin.read_bytes():
            found.append(path.relative_to(left).as_posix())
    found = [path for path in found if not path.startswith("pagefind/")]
    return sorted({*found, *(["search"] if searched(left) != searched(right) else [])})


def searched(site: Path) -> dict[str, dict[str, object]]:
    """What a search of the site can find: each URL's record, as ``static/site.js`` takes them from
    every shard (``pagefind/shards.json``), a stale one only from the fresh index (its "fresh" aside)."""
    listed = json.loads((site / "pagefind" / "shards.json").read_text())
    stale = set(listed["stale"])
    found: dict[str, dict[str, object]] = {}
    for folder in ["pagefind/", *listed["shards"]]:
        for path in sorted((site / folder / "fragment").glob("*.pf_fragment")):
            record = json.loads(gzip.decompress(path.read_bytes()).removeprefix(b"pagefind_dcd"))
            fresh = record["meta"].pop("fresh", None)
            if record["url"] in stale and not fresh:
                continue
            assert record["url"] not in found, record["url"]
            found[record["url"]] = record
    assert set(stale) <= set(found)
    return found


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return generated(tmp_path / "archive", 10)


def built(archive: Path, out: Path) -> BuildOptions:
    options = options_for(archive, out, verify=False)
    report, quick = publish(options)
    assert not quick and report.published and not report.diagnostics
    return options


def full_build_of(archive: Path, out: Path) -> Path:
    """The site a full build makes of the archive as it is, from nothing."""
    report, quick = publish(options_for(archive, out, verify=False))
    assert not quick and report.published
    return out


ENTRY = "codeforces/2005/F-edge-query-5"
WRITE_UP = f"{ENTRY}/solution.tex"


def edit(archive: Path, name: str, old: str, new: str) -> None:
    path = archive / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_an_edited_write_up_is_built_quickly_into_the_site_a_full_build_makes(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    report, quick = publish(options)
    assert quick and report.published and report.written >= 1 and report.entries == 10
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []
    again, quick = publish(options)
    assert again.current and not quick  # the quick build's record: nothing changed since


def test_with_the_archive_s_watcher_an_edit_is_built_quickly_into_the_site_a_full_build_makes(
    archive: Path, tmp_path: Path
) -> None:
    """A build at a terminal starts the watcher (``source/watched.py``), and the next builds stamp only
    the folders it names: the same quick build, the same site."""
    import time

    from site_builder.source import watched

    options = options_for(archive, tmp_path / "one" / "site", verify=False, watch="start")
    try:
        report, quick = publish(options)
        assert report.published and not quick
        for _ in range(100):
            if (options.cache / SOCKET).exists():
                break
            time.sleep(0.05)
        assert publish(options)[0].current  # the new watcher's first answer: every file stamped
        assert publish(options)[0].current  # no folder named: the kept stamp
        edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
        report, quick = publish(options)
        assert quick and report.published and report.written >= 1
        assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []
        again, quick = publish(options)
        assert again.current and not quick
    finally:
        assert watched.ask(options.cache, {"stop": True}) is not None


def test_edited_statements_of_two_entries_and_a_second_quick_build(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    statements = sorted(p.relative_to(archive).as_posix() for p in archive.rglob("statement.md"))[:2]
    for name in statements:
        edit(archive, name, "Print", "Output")
    assert publish(options)[1]
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    assert publish(options)[1]
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


def test_more_entries_than_the_fresh_index_holds_are_the_full_builds(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each quick build indexes again every entry quick builds changed since the full build: past
    FRESH_MOST of them, the full build indexes their shards instead, and the fresh index is gone."""
    monkeypatch.setattr("site_builder.quick.FRESH_MOST", 2)
    options = built(archive, tmp_path / "one" / "site")
    statements = sorted(p.relative_to(archive).as_posix() for p in archive.rglob("statement.md"))[:3]
    for name, expected in zip(statements, (True, True, False), strict=True):
        edit(archive, name, "Print", "Output")
        assert publish(options)[1] == expected
    assert json.loads((options.out / "pagefind" / "shards.json").read_text())["stale"] == []
    assert not (options.out / "pagefind" / "part-fresh").exists()
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        (f"{ENTRY}/problem.yaml", "title: Edge Query 5", "title: Edge Queries"),  # lists
        (WRITE_UP, "Factor window edge sort", r"Factor window edge sort $\aleph$"),  # a new character: the font
        (WRITE_UP, r"\section{Idea}", r"\section{Extra} More.\section{Idea}"),
    ],
)
def test_a_change_other_pages_show_is_the_full_builds(
    archive: Path, tmp_path: Path, name: str, old: str, new: str
) -> None:
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, name, old, new)
    report, quick = publish(options)
    if "problem.yaml" in name or "aleph" in new:
        assert not quick
    assert report.published
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


def test_a_math_character_no_page_shows_any_more_is_the_full_builds(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, WRITE_UP, "Factor window edge sort", r"Factor window edge sort $\aleph$")
    assert not publish(options)[1]
    edit(archive, WRITE_UP, r" $\aleph$", "")  # the font is cut again, without it
    report, quick = publish(options)
    assert not quick and report.published
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


@pytest.mark.parametrize(
    "change",
    ["a file outside every problem folder", "a new problem folder", "a removed problem folder", "no record"],
)
def test_changes_outside_the_recorded_entries_are_the_full_builds(archive: Path, tmp_path: Path, change: str) -> None:
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    if change == "a file outside every problem folder":
        (archive / "codeforces" / "notes.txt").write_text("kept here\n")
    elif change == "a new problem folder":
        shutil.copytree(archive / ENTRY, archive / "codeforces/2005/G-copy")
    elif change == "a removed problem folder":
        shutil.rmtree(next(archive.glob("icpc/*/*")))
    else:
        resume.forget(options.cache)
    report, quick = publish(options)
    assert not quick and report.published
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


def test_more_edited_entries_than_a_quick_build_takes_are_the_full_builds(tmp_path: Path) -> None:
    archive = generated(tmp_path / "archive", QUICK_MOST + 2)
    options = built(archive, tmp_path / "one" / "site")
    for path in sorted(archive.rglob("statement.md"))[: QUICK_MOST + 1]:
        path.write_text(path.read_text() + "\nOne more line.\n")
    assert not publish(options)[1]


def test_a_published_site_changed_by_hand_is_the_full_builds(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    (options.out / "extra.html").write_text("by hand")  # the site's stamp: the manifest no longer vouches for it
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    assert not publish(options)[1]


def test_a_file_written_within_a_tick_of_the_record_is_reloaded(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder with a file too new to vouch for is no folder the record knows: reloaded next time."""
    monkeypatch.setattr(freshness, "SETTLED_NS", 3600 * 10**9)
    options = built(archive, tmp_path / "one" / "site")
    record = resume.load(options.cache)
    assert record is not None
    with_files = {str(p.parent) for p in archive.rglob("*") if p.is_file()}
    assert {record.folders[folder] for folder in with_files} == {""}
    assert "" not in {digest for folder, digest in record.folders.items() if folder not in with_files}
    monkeypatch.setattr(freshness, "SETTLED_NS", 0)
    assert not publish(options)[1]  # every folder: the root's among them


@pytest.mark.parametrize(
    ("folder", "owner"),
    [
        ("/a/icpc/2020/A-x", "icpc/2020/A-x"),
        ("/a/icpc/2020/A-x/data/sample", "icpc/2020/A-x"),
        ("/a/icpc/2020", None),
        ("/a", None),
        ("/a/icpc/2020/A-xy", None),
    ],
)
def test_the_entry_a_changed_folder_belongs_to(folder: str, owner: str | None) -> None:
    entries = dict.fromkeys(["icpc/2020/A-x", "icpc/2020/B-y"], None)
    assert owning_entry(folder, "/a", entries) == owner  # type: ignore[arg-type]
    assert owning_entry("/a/data/secret", "/a", {"": None}) == ""  # type: ignore[dict-item]  # a package's own repository


def test_the_record_names_each_entry_once_in_load_order(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    record = resume.load(options.cache)
    assert record is not None
    assert list(record.entries) == [source.path for source in load_archive(archive, "archive", {})[0]]
    assert record.frame.entries == () and all(not t.entries for t in record.frame.tracks)


def test_a_quick_build_rewrites_the_record_s_head_and_its_changed_buckets_alone(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    store = options.cache / resume.STORE

    def files() -> dict[str, tuple[int, int]]:
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in store.rglob("*.pickle")}

    before, record = files(), resume.load(options.cache)
    assert record is not None and len(before) == 1 + 2 * BUCKETS
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    assert publish(options)[1]
    after, again = files(), resume.load(options.cache)
    assert again is not None and again.token == record.token
    rewritten = sorted(name for name, time in after.items() if before.get(name) != time)
    assert len(rewritten) == 3 and f"{resume.RECORD}.pickle" in rewritten  # the head, one entry, one folder
    assert [path for path in record.entries if again.entries[path] != record.entries[path]] == [ENTRY]
    assert list(again.entries) == list(record.entries)
    changed = [folder for folder in record.folders if again.folders[folder] != record.folders[folder]]
    assert changed == [str(archive / ENTRY)] and again.folders.keys() == record.folders.keys()


@pytest.mark.parametrize("stop", ["head", "folders"])
def test_a_quick_build_stopped_as_it_saves_its_record_is_made_again_by_the_next(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str
) -> None:
    """Stopped as the record's head or its folders are saved (the manifest is): the site is current, and
    the next quick build finds the entry's folder changed too and builds it again, into the site a full
    build makes, search included (the head, saved before the entries, names it among the fresh ones)."""
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    put, update_buckets = PickleStore.put, PickleStore.update_buckets

    def stopping_put(self: PickleStore, key: str, value: Any) -> None:
        if stop == "head" and key == resume.RECORD:
            raise KeyboardInterrupt
        put(self, key, value)

    def stopping_update(self: PickleStore, name: str, *args: Any) -> None:
        if stop == "folders" and name == resume.FOLDERS:
            raise KeyboardInterrupt
        update_buckets(self, name, *args)

    monkeypatch.setattr(PickleStore, "put", stopping_put)
    monkeypatch.setattr(PickleStore, "update_buckets", stopping_update)
    with pytest.raises(KeyboardInterrupt):
        publish(options)
    monkeypatch.undo()
    assert publish(options)[0].current
    statements = sorted(p.relative_to(archive).as_posix() for p in archive.rglob("statement.md"))
    edit(archive, next(name for name in statements if not name.startswith(ENTRY)), "Print", "Output")
    assert publish(options)[1]
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


def test_a_full_build_after_quick_ones_knows_what_they_wrote(archive: Path, tmp_path: Path) -> None:
    """The manifest's delta: a full build that puts a quick build's page back as it was writes it."""
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, WRITE_UP, "Factor window edge sort", "Factor window edge order")
    assert publish(options)[1]
    edit(archive, WRITE_UP, "Factor window edge order", "Factor window edge sort")  # as the base has it
    edit(archive, "icpc/2000/A-heap-potential-0/problem.yaml", "title: Heap Potential", "title: Heap Potentials")
    report, quick = publish(options)
    assert not quick and report.published
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []
    assert publish(options)[0].current


def test_a_file_saved_unchanged_writes_nothing(archive: Path, tmp_path: Path) -> None:
    options = built(archive, tmp_path / "one" / "site")
    (archive / WRITE_UP).write_text((archive / WRITE_UP).read_text())  # its times, not its bytes
    report, quick = publish(options)
    assert quick and report.written == 0  # its pages and its search shard (from the cache) as they are


@pytest.mark.parametrize(("folder", "quick"), [(ENTRY, True), ("icpc/2008/I-path-queue-8", False)])
def test_a_new_first_paragraph_is_quick_unless_the_feed_lists_the_entry(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, quick: bool
) -> None:
    """The feed shows the first paragraph of the entries it lists, and no other list does."""
    monkeypatch.setattr(feeds, "FEED_ENTRIES", 3)  # the three last paths (all are as new): icpc's
    options = built(archive, tmp_path / "one" / "site")
    edit(archive, f"{folder}/solution.tex", "\\section{Idea}\n", "\\section{Idea}\nFirst of all, ")
    report, made_quickly = publish(options)
    assert made_quickly == quick and report.published
    assert same_trees(options.out, full_build_of(archive, tmp_path / "two" / "site")) == []


def test_a_search_after_a_quick_build_finds_its_words_once_and_not_the_words_it_removed(
    browser: Any, archive: Path, tmp_path: Path
) -> None:
    """The quick build indexes its entries apart (the fresh index), and the browser takes their
    records from there, not from their shards as the full build left them."""
    edit(archive, WRITE_UP, "\\section{Algorithm}", "A zanzibarian remark.\n\n\\section{Algorithm}")
    options = built(archive, tmp_path / "site")
    edit(archive, WRITE_UP, "zanzibarian", "quokkaworthy")
    assert publish(options)[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with serving(options.out) as url:
        page.goto(url + "index.html")

        def results(query: str) -> list[str]:
            page.fill("#search-input", "")  # the list closes: the next to open is this query's
            page.wait_for_selector(".search-results", state="hidden")
            page.fill("#search-input", query)
            page.wait_for_selector(".search-results .search-note", timeout=15_000)
            return page.eval_on_selector_all(".search-results [role=option]", "items => items.map(i => i.dataset.href)")

        entry = f"{url}{ENTRY}/index.html"
        assert results("quokkaworthy") == [entry]
        assert results("zanzibarian") == []
        assert results("Edge Query 5").count(entry) == 1  # its title: in its stale record and its fresh one
    context.close()
    assert errors == []
