"""Publishing: unchanged files are reused, a no-op build writes nothing, a tampered site is rewritten."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, ArchiveMaker, options_for, writer_for

from site_builder.build import build_site
from site_builder.errors import SiteError
from site_builder.publish import manifest, output
from site_builder.publish.outputs import Output
from site_builder.render.workers import cards_key
from site_builder.store import BUCKETS, PickleStore


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(ROOT / "templates", root / "templates")
    shutil.copytree(ROOT / "static", root / "static")
    return root


def test_unchanged_files_are_reused_and_noop_writes_nothing(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-one/solution.md": "## Idea\n\nOne.\n", "t/B-two/solution.md": "## Idea\n\nTwo.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    page_one = tmp_path / "site/t/A-one/index.html"
    inode = page_one.stat().st_ino
    build_site(options)
    assert page_one.stat().st_ino == inode, "a no-op build must not replace anything"
    (archive / "t/B-two/solution.md").write_text("## Idea\n\nTwo, edited.\n")
    build_site(options)
    assert "Two, edited." in (tmp_path / "site/t/B-two/index.html").read_text()
    assert page_one.stat().st_ino == inode, "an unchanged page is linked from the previous site, not rewritten"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []


def test_a_later_build_moves_in_only_what_changed_and_removes_what_went(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """Work proportional to the change: the published site's folder stays (no swap), unchanged files
    stay the same files, a gone entry's files and folders go, and a file that would replace a
    folder makes the build swap the whole site in instead."""
    archive = make_archive(
        {
            "t/A-one/solution.md": "## Idea\n\nOne.\n",
            "t/B-two/solution.md": "## Idea\n\nTwo.\n",
            "t/C-three/solution.md": "## Idea\n\nThree.\n",
            "t/C-three/notes/extra.txt": "x\n",
        }
    )
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    site = tmp_path / "site"
    before = {p.relative_to(site).as_posix(): p.stat().st_ino for p in site.rglob("*") if p.is_file()}
    folder = site.stat().st_ino
    (archive / "t/B-two/solution.md").write_text("## Idea\n\nTwo, edited.\n")
    shutil.rmtree(archive / "t/C-three")
    report = build_site(options)
    after = {p.relative_to(site).as_posix(): p.stat().st_ino for p in site.rglob("*") if p.is_file()}
    assert site.stat().st_ino == folder  # moved into, not swapped
    assert not (site / "t/C-three").exists() and not any(p.startswith("t/C-three/") for p in after)
    changed = sorted(p for p in after if after[p] != before.get(p))
    assert "t/B-two/index.html" in changed and "t/A-one/index.html" not in changed
    assert report.written == len(changed) < len(after) / 2
    assert "Two, edited." in (site / "t/B-two/index.html").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.tmp")] == []
    # A file that becomes a folder: its files cannot be moved in below it, so the site is swapped in.
    (archive / "t/A-one/notes").write_text("a file\n")
    build_site(options)
    assert site.stat().st_ino == folder and (site / "t/A-one/notes").is_file()
    (archive / "t/A-one/notes").unlink()
    (archive / "t/A-one/notes").mkdir()
    (archive / "t/A-one/notes/more.txt").write_text("a folder\n")
    build_site(options)
    assert (site / "t/A-one/notes/more.txt").read_text() == "a folder\n" and site.stat().st_ino != folder


def test_a_tampered_site_is_written_again(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """At its top by any build; below it (a file changed in place) by a build with --rerun."""
    archive = make_archive({"t/A-one/solution.md": "## Idea\n\nOne.\n", "t/B-two/solution.md": "Two.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    home, page = tmp_path / "site/index.html", tmp_path / "site/t/A-one/index.html"
    original = home.read_bytes(), page.read_bytes()
    home.write_bytes(b"defaced")
    page.write_bytes(b"defaced")
    assert not build_site(options).current  # the manifest is not trusted: every file is written again
    assert (home.read_bytes(), page.read_bytes()) == original
    page.write_bytes(b"defaced")
    assert build_site(options).current
    (archive / "t/B-two/solution.md").write_text("Two, changed.\n")
    assert build_site(options).published and page.read_bytes() == b"defaced"  # the manifest is trusted
    build_site(options_for(archive, tmp_path / "site", verify=False, rerun=True))
    assert page.read_bytes() == original[1]


def test_a_write_in_place_means_the_site_is_checked_again(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """The dev server writes into the published site: until it records it, no build trusts it."""
    archive = make_archive({"t/A-one/solution.md": "One.\n"})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    assert build_site(options).current
    published = {"t/A-one/index.html": "not this"}
    output.write_in_place(options.out, [Output("t/A-one/index.html", b"newer")], published)
    assert manifest.site_stamp(options.out) != json.loads((options.cache / manifest.HEAD).read_text())["stamp"]
    assert not build_site(options).current
    assert b"newer" not in (options.out / "t/A-one/index.html").read_bytes()


PACKAGE: dict[str, str | bytes] = {
    "t/p/problem.yaml": "name: P\n",
    "t/p/statement/problem.en.md": "Add two numbers.\n",
    "t/p/data/sample/1.in": "1 2\n",
    "t/p/data/sample/1.ans": "3\n",
    "t/p/data/secret/1.in": "40 2\n",
    "t/p/data/secret/1.ans": "42\n",
    "t/p/submissions/accepted/add.py": "print(sum(map(int, input().split())))\n",
}


def test_publish_data_chooses_which_test_files_the_site_holds(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(PACKAGE)
    published = {}
    for choice in ("samples", "all", "none"):
        (archive / "site.yaml").write_text(f"publish_data: {choice}\n")
        out = tmp_path / choice / "site"
        report = build_site(options_for(archive, out, verify=False))
        folder = out / "t" / "p"
        published[choice] = sorted(
            p.relative_to(folder).as_posix() for p in folder.rglob("*.*") if "/" in p.relative_to(folder).as_posix()
        )
        page = (folder / "index.html").read_text()
        with zipfile.ZipFile(folder / "samples.zip") as samples:  # whatever is published, the samples are offered
            assert {n: samples.read(n) for n in samples.namelist()} == {"1.ans": b"3\n", "1.in": b"1 2\n"}
        assert report.size == sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        if choice == "all":
            secret = folder / "data/secret/1.in"
            assert secret.stat().st_ino == (archive / "t/p/data/secret/1.in").stat().st_ino  # linked, not copied
            assert "not published on this site" not in page
        else:
            listed = "Besides these, the" if choice == "samples" else "The"  # "none": no test file is listed
            assert f"{listed} package has 2 test files (8 Bytes) not published on this site" in page
    data = ["data/secret/1.ans", "data/secret/1.in"]
    samples = ["data/sample/1.ans", "data/sample/1.in"]
    assert [n for n in published["all"] if n.startswith("data/")] == samples + data
    assert [n for n in published["samples"] if n.startswith("data/")] == samples
    assert [n for n in published["none"] if n.startswith("data/")] == []


def test_an_unknown_publish_data_is_an_error_at_its_line(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({**PACKAGE, "site.yaml": "title: X\npublish_data: secret\n"})
    with pytest.raises(SiteError) as caught:
        build_site(options_for(archive, tmp_path / "site", verify=False))
    assert str(caught.value.diagnostic()).endswith(
        "site.yaml:2: publish_data must be one of samples, all, none, not 'secret'"
    )


def test_sample_archive_paths_are_where_the_zips_go(make_archive: ArchiveMaker) -> None:
    from site_builder.publish.downloads import sample_archive_paths, sample_archives
    from site_builder.source.archive import load_archive

    archive = make_archive(
        {
            **PACKAGE,
            "t/q/solution.md": "# No samples\n",
            "t/r/solution.md": "# R\n",
            "t/r/samples/1.interaction": "<1\n>2\n",
        }
    )
    sources, _ = load_archive(archive, "archive")
    assert (
        sample_archive_paths(sources)
        == [o.path for o in sample_archives(sources)]
        == [
            "t/p/samples.zip",
            "t/r/samples.zip",
        ]
    )


def test_a_samples_zip_is_made_again_only_when_its_samples_change(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.publish import downloads

    made: list[tuple[str, ...]] = []
    zip_of = downloads.zip_of
    monkeypatch.setattr(downloads, "zip_of", lambda files: made.append(tuple(sorted(files))) or zip_of(files))
    entry = {"solution.md": "Text.\n", "samples/1.in": "1\n", "samples/1.ans": "1\n"}
    archive = make_archive({f"t/{x}/{name}": text for x in ("A-one", "B-two") for name, text in entry.items()})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    assert made == [("1.ans", "1.in"), ("1.ans", "1.in")]
    first = (options.out / "t/A-one/samples.zip").read_bytes()
    (archive / "t/B-two/solution.md").write_text("Other text.\n")
    made.clear()
    assert build_site(options).published and made == []
    assert (options.out / "t/A-one/samples.zip").read_bytes() == first
    (archive / "t/B-two/samples/2.in").write_text("2\n")
    (archive / "t/B-two/samples/2.ans").write_text("2\n")
    assert build_site(options).published and made == [("1.ans", "1.in", "2.ans", "2.in")]
    with zipfile.ZipFile(options.out / "t/B-two/samples.zip") as archived:
        assert archived.read("2.in") == b"2\n"


def test_one_changed_entry_rewrites_one_or_two_buckets_of_the_card_bundle(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    archive = make_archive({f"t/A{i}-e{i}/solution.md": f"Text {i}.\n" for i in range(12)})
    options = options_for(archive, tmp_path / "site", verify=False)
    build_site(options)
    buckets = sorted((options.cache / "render").rglob("cards-*.pickle"))
    assert len(buckets) == BUCKETS
    times = {p: p.stat().st_mtime_ns for p in buckets}
    (archive / "t/A3-e3/solution.md").write_text("Text three.\n")
    assert build_site(options).published
    rewritten = [p for p in buckets if p.stat().st_mtime_ns != times[p]]
    assert 1 <= len(rewritten) <= 2  # the bucket the entry left, and the one its new key is in
    cards = PickleStore(options.cache / "render").get_buckets(cards_key())
    assert cards is not None
    assert sorted(card.path for card in cards.values()) == sorted(f"t/A{i}-e{i}" for i in range(12))
    assert [c.summary_text for c in cards.values() if c.path == "t/A3-e3"] == ["Text three."]
    assert {c.search_text for c in cards.values()} == {""}  # the search index keeps it with its shards


def test_files_another_process_wrote_are_recorded_and_let_go_when_published_unchanged(tmp_path: Path) -> None:
    """``Output.written``: a page a forked copy of the builder wrote into the writer's temporary folder
    (``forkedpages``) is published as if written here; one the published site has unchanged is removed
    from there (a swap would link the published one in its place)."""
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    page = Output("p/a.html", b"", digest=output.digest(b"<p>a</p>"), written=True)
    for cold in (True, False):
        with writer_for(options) as writer:
            assert writer.cold is cold and writer.has("p/a.html", page.digest) is not cold  # as the manifest says
            (writer.tmp / "p").mkdir()
            (writer.tmp / "p/a.html").write_bytes(b"<p>a</p>")
            writer.add([page])
            assert (writer.tmp / "p/a.html").exists() is cold
            pages, written, _ = writer.finish()
        assert pages["p/a.html"] == page.digest and (written > 0) is cold
        assert (tmp_path / "site/p/a.html").read_bytes() == b"<p>a</p>"


def test_a_new_site_takes_the_old_one_s_place_in_one_step_and_the_old_one_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, new = tmp_path / "site", tmp_path / ".site.tmp-new"
    new.mkdir()
    (new / "a").write_text("1")
    output.swap_into_place(new, out)  # no site yet: the new one is renamed into place
    assert (out / "a").read_text() == "1" and sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    renamed: list[tuple[object, object]] = []
    rename = os.rename
    monkeypatch.setattr(output.os, "rename", lambda a, b: renamed.append((a, b)) or rename(a, b))
    new.mkdir()
    (new / "a").write_text("2")
    output.swap_into_place(new, out)  # exchanged: no moment without a site, no rename
    assert (out / "a").read_text() == "2" and sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert renamed == []
    monkeypatch.setattr(output, "_exchange", lambda a, b: False)  # a system that cannot exchange
    new.mkdir()
    (new / "a").write_text("3")
    output.swap_into_place(new, out)
    assert (out / "a").read_text() == "3" and sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert len(renamed) == 2 and renamed[0][0] == out and renamed[1] == (new, out)
    assert Path(str(renamed[0][1])).name.startswith(".site.tmp-old-")  # the old site, aside, then removed


def test_two_folders_are_exchanged_else_false_across_file_systems_and_other_errors_name_the_path(
    tmp_path: Path,
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        (folder / "x").write_text(folder.name)
    assert output._exchange(a, b) is True
    assert (a / "x").read_text() == "b" and (b / "x").read_text() == "a"
    with pytest.raises(FileNotFoundError) as raised:
        output._exchange(a, tmp_path / "missing")
    assert raised.value.filename == str(tmp_path / "missing") and (a / "x").read_text() == "b"
    assert str(raised.value) == f"[Errno 2] No such file or directory: '{tmp_path / 'missing'}'"
    shm = Path("/dev/shm")
    if shm.is_dir() and os.stat(shm).st_dev != os.stat(tmp_path).st_dev:
        other = Path(tempfile.mkdtemp(dir=shm))
        try:
            assert output._exchange(a, other) is False  # (EXDEV) the caller renames instead
        finally:
            other.rmdir()


def test_a_site_built_again_unchanged_writes_nothing_and_its_manifest_says_it_is_current(tmp_path: Path) -> None:
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "deep" / "er" / "site", verify=False)
    files = [Output("a/index.html", b"<p>a</p>"), Output("b/c/index.html", b"<p>c</p>")]
    sizes = []
    for run in range(2):
        with writer_for(options) as writer:
            assert writer.tmp.parent == options.out.parent and writer.tmp.name.startswith(".site.tmp-")
            writer.add(files)
            pages, written, size = writer.finish(("inputs", {"entries": 2}))
        sizes.append(size)
        assert (written == 0) is (run == 1) and sorted(p.name for p in options.out.parent.iterdir()) == [
            ".cache",
            "site",
        ]
    assert sizes[0] == sizes[1] > 0
    assert stat.S_IMODE(options.out.stat().st_mode) == 0o755  # (a temporary folder is made private)
    assert manifest.current_summary(options, "inputs") == {"entries": 2, "bytes": sizes[0]}
    current = manifest.current_pages(options, "inputs")
    assert current is not None and current[0] == pages and pages["a/index.html"] == output.digest(b"<p>a</p>")


def test_a_killed_build_s_temporary_folders_are_removed_by_the_next_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    killed = tmp_path / ".site.tmp-killed"
    (killed / "deep").mkdir(parents=True)
    (killed / "deep" / "page.html").write_text("x")
    (tmp_path / ".site.tmpfile").mkdir()
    (tmp_path / ".other.tmp-x").mkdir()
    with writer_for(options) as writer:
        writer.add([Output("index.html", b"home")])
        writer.finish()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cache", ".other.tmp-x", ".site.tmpfile", "archive", "site"]


def test_what_went_is_removed_with_the_folders_it_leaves_empty_deepest_first(tmp_path: Path) -> None:
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    chain = "/".join("abcdefgh")  # eight folders: removed in any other order, some would stay
    with writer_for(options) as writer:
        writer.add([Output("index.html", b"home"), Output(f"{chain}/gone.html", b"x"), Output("k/l/gone.html", b"y")])
        writer.add([Output("k/kept.html", b"z"), Output("m/n/gone.html", b"w")])
        writer.finish()
    (options.out / "m/n/gone.html").unlink()  # gone already (the site is still trusted: its top is as it was)
    with writer_for(options) as writer:
        writer.add([Output("index.html", b"home, edited"), Output("k/kept.html", b"z")])
        assert writer.finish()[1] == 1
    found = sorted(p.relative_to(options.out).as_posix() for p in options.out.rglob("*") if not p.name.startswith("."))
    assert [p for p in found if not p.startswith("static")] == ["index.html", "k", "k/kept.html"]
    with writer_for(options) as writer:  # a build that only drops a file
        writer.add([Output("index.html", b"home, edited")])
        assert writer.finish()[1] == 0
    assert not (options.out / "k").exists() and (options.out / "index.html").read_bytes() == b"home, edited"


def test_a_file_where_the_site_has_a_folder_or_below_one_of_its_files_makes_the_whole_site_swap_in(
    tmp_path: Path,
) -> None:
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    for before, after in (("x/y.html", "x"), ("x", "x/y.html"), ("p/x", "p/x/y.html")):
        shutil.rmtree(options.out, ignore_errors=True)
        shutil.rmtree(options.cache, ignore_errors=True)
        for files in ([before, "index.html"], [after, "index.html"]):
            with writer_for(options) as writer:
                writer.add([Output(path, path.encode()) for path in files])
                writer.finish()
        assert (options.out / after).read_bytes() == after.encode() and (options.out / "index.html").is_file()


def test_the_stylesheet_ends_with_the_code_colours_also_published_alone(tmp_path: Path) -> None:
    from site_builder.render import highlight

    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    with writer_for(options) as writer:
        writer.finish()
    colours = highlight.stylesheet().encode()
    style = (options.out / "static/style.css").read_bytes()
    assert (options.out / "static/pygments.css").read_bytes() == colours
    assert style.endswith(b"\n/* Code highlighting (also alone as pygments.css) */\n" + colours)
    assert style.startswith((ROOT / "static/style.css").read_bytes())


def test_a_kept_page_the_published_site_no_longer_has_as_it_was_stops_the_build_and_names_the_site(
    tmp_path: Path,
) -> None:
    """A page kept from the published site (``Output.kept``: not rendered again, its bytes not at hand)
    is published as it is; when the published one changed meanwhile, the build stops rather than
    publish a page it does not have, and says to build again."""
    (tmp_path / "archive").mkdir()
    options = options_for(tmp_path / "archive", tmp_path / "site", verify=False)
    with writer_for(options) as writer:
        writer.add([Output("p.html", b"<p>page</p>"), Output("q.html", b"<p>q</p>")])
        writer.finish()
    with writer_for(options) as writer:
        writer.add([Output("p.html", b"", kept=output.digest(b"<p>page</p>")), Output("q.html", b"<p>q2</p>")])
        assert writer.finish()[1] == 1
    assert (options.out / "p.html").read_bytes() == b"<p>page</p>"
    with writer_for(options) as writer, pytest.raises(SiteError) as stopped:
        writer.add([Output("p.html", b"", kept=output.digest(b"<p>another</p>"))])
    assert str(stopped.value) == (
        f"{options.display(options.out)}: cannot write the site: [Errno {errno.ESTALE}] p.html changed while the"
        " site was being built; build again"
    )
    assert (options.out / "p.html").read_bytes() == b"<p>page</p>"
