"""The dev server end to end: reload events, incremental pages, the error overlay, safe paths."""

from __future__ import annotations

import http.client
import json
import queue
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT, write_tree
from test_watcher import wait_for

from site_builder.build import Builder, BuildReport
from site_builder.publish.lock import build_lock
from site_builder.publish.records import Record, Records, search_listing
from site_builder.serve.changes import Change
from site_builder.serve.server import DevServer
from site_builder.serve.web import RELOAD_PATH, ReloadHub
from site_builder.source.config import make_options

GOOD = "\\section{Idea}\nThe first version of the idea.\n"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DevServer]:
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {
            "t/2024/A-alpha/solution.tex": GOOD,
            "t/2024/A-alpha/solution.py": "print(int(input()) * 2)\n",
            "t/2024/A-alpha/samples/1.in": "2\n",
            "t/2024/A-alpha/samples/1.ans": "4\n",
            "t/2024/B-beta/solution.md": "## Idea\n\nBeta.\n",
        },
    )
    options = make_options(tmp_path, jobs=1)
    dev = DevServer(options, port=0)
    dev.start()
    thread = threading.Thread(target=dev.serve_forever, daemon=True)
    thread.start()
    yield dev
    dev.stop()
    thread.join(timeout=5)
    assert not thread.is_alive()


@contextmanager
def serving(tmp_path: Path, files: dict[str, str | bytes]) -> Iterator[DevServer]:
    """A dev server, started, on a project of our templates and ``files`` in its archive (solvers not run)."""
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(tmp_path / "archive", files)
    dev = DevServer(make_options(tmp_path, jobs=1, verify=False), port=0)
    dev.start()
    threading.Thread(target=dev.serve_forever, daemon=True).start()
    try:
        yield dev
    finally:
        dev.stop()


def updated(dev: DevServer, folders: list[str]) -> BuildReport:
    """``update_entries`` called as the server's own loop calls it, holding its locks: the events of
    the change the test just made may start the loop's update at the same moment."""
    with dev.hub.rebuilding(), build_lock(dev.options):
        return dev.builder.update_entries(folders)


def address(dev: DevServer) -> tuple[str, int]:
    assert dev.httpd is not None
    host, port = dev.httpd.server_address[:2]
    return str(host), int(port)


def get(dev: DevServer, path: str) -> tuple[int, str]:
    host, port = address(dev)
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def raw_status(dev: DevServer, path: str) -> int:
    connection = http.client.HTTPConnection(*address(dev), timeout=10)
    connection.request("GET", path)
    status = connection.getresponse().status
    connection.close()
    return status


class Events:
    """A Server-Sent Events subscriber: every data line, as it arrives."""

    def __init__(self, dev: DevServer) -> None:
        self.dev = dev
        self.lines: queue.Queue[str] = queue.Queue()
        self.named: list[list[str] | None] = []  # the pages each event named (None: every page), in order
        self.received = 0  # events that have come, read by ``next`` or not
        self.connection = http.client.HTTPConnection(*address(dev), timeout=30)
        self.connection.request("GET", RELOAD_PATH)
        self.response = self.connection.getresponse()
        threading.Thread(target=self._read, daemon=True).start()
        self.first = self.next()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode().strip()
                if line.startswith("data:"):
                    self.lines.put(line[5:].strip())
                    self.received += 1
        except (OSError, ValueError):
            return

    def next(self, timeout: float = 10) -> str:
        """The epoch of the next event, once the rebuild that sent it has told every page it changed
        (a save's own pages are told first, the pages listing it after)."""
        epoch = self._event(timeout)
        self.dev.hub.wait_idle()
        while int(epoch) < self.dev.hub.epoch:
            epoch = self._event(timeout)
        return epoch

    def _event(self, timeout: float) -> str:
        epoch, _, named = self.lines.get(timeout=timeout).partition(" ")
        self.named.append(json.loads(named) if named else None)
        return epoch


def edit(path: Path, text: str) -> None:
    """Save as editors do: write a temporary file, then rename it over the original."""
    tmp = path.with_name(path.name + ".tmp~")
    tmp.write_text(text)
    tmp.replace(path)


def test_edit_sends_a_reload_and_serves_the_new_page(server: DevServer) -> None:
    status, page = get(server, "/t/2024/A-alpha/index.html")
    assert status == 200 and "The first version" in page and RELOAD_PATH in page
    events = Events(server)
    second = "The first version of the idea.\n\nThe second version, in a paragraph of its own."
    edit(server.options.archive / "t/2024/A-alpha/solution.tex", GOOD.replace("The first version of the idea.", second))
    assert int(events.next()) > int(events.first)
    status, page = get(server, "/t/2024/A-alpha/index.html")
    assert "The second version" in page and "site-builder-overlay" not in page
    # nothing lists the text: only its own page changes, and the page of its source file (code-solution-tex.html)
    assert server.last is not None and server.last.written == 2
    # and only these two are told to reload: a page open at the track or home page stays as it is
    assert events.named[-1] == ["t/2024/A-alpha/code-solution-tex.html", "t/2024/A-alpha/index.html"]
    on_disk = (server.options.out / "t/2024/A-alpha/index.html").read_text()
    assert RELOAD_PATH not in on_disk, "the reload script must never be written into the site"


def test_a_save_that_other_pages_list_reloads_its_own_page_first_then_the_pages_listing_it(
    server: DevServer,
) -> None:
    """A new title is on the track, tag and home pages and the neighbours' too, which take long to
    render in a big archive: the entry's own pages are written and told first, the rest after."""
    events = Events(server)
    told: list[tuple[set[str], str, str]] = []  # the pages told first, and the pages on disk just then
    out = server.options.out
    tell = server.builder.early
    assert tell is not None

    def early(pages: set[str]) -> None:
        told.append((pages, (out / "t/2024/A-alpha/index.html").read_text(), (out / "t/index.html").read_text()))
        came = events.received
        tell(pages)
        # delivered before the rest is written: else one event may name both (a tab that waits for the
        # next epoch gets every page changed since the last it saw, as it should)
        wait_for(lambda: events.received > came)

    server.builder.early = early
    edit(server.options.archive / "t/2024/A-alpha/problem.yaml", "title: Renamed\n")
    events.next()
    [(first, own, track)] = told
    own_pages = ("index.html", "code-solution-tex.html", "code-problem-yaml.html")
    assert first == {f"t/2024/A-alpha/{name}" for name in own_pages}  # its page, and its files' (with its title)
    assert "Renamed" in own and "Renamed" not in track  # the track page after
    first_named, then = events.named[-2:]
    assert first_named == sorted(first)
    assert then is not None and {"t/index.html", "index.html", "t/2024/B-beta/index.html"} <= set(then)
    assert not set(then) & first  # its own pages are not reloaded twice
    assert "Renamed" in (out / "t/index.html").read_text()


def test_the_hub_names_the_pages_an_epoch_changed_and_every_page_when_it_cannot() -> None:
    hub = ReloadHub()
    hub.publish([], {"a/index.html"})
    hub.publish([], {"b/index.html", "a/index.html"})
    assert hub.changed_since(0) == (2, ["a/index.html", "b/index.html"])  # a page that missed one
    assert hub.changed_since(1) == (2, ["a/index.html", "b/index.html"])
    hub.publish(["x.tex:1: broken"], {"a/index.html"})  # the errors changed: every page shows them
    assert hub.changed_since(2) == (3, None)
    hub.publish(["x.tex:1: broken"], {f"p{n}/index.html" for n in range(ReloadHub.NAMED + 1)})
    assert hub.changed_since(3) == (4, None)
    hub.publish(["x.tex:1: broken"], set())
    assert hub.changed_since(4) == (5, [])
    for _ in range(ReloadHub.HISTORY + 1):
        hub.publish(["x.tex:1: broken"], set())
    assert hub.changed_since(5)[1] is None  # too long ago: not known


def test_broken_edit_keeps_the_old_page_and_shows_the_overlay(server: DevServer) -> None:
    events = Events(server)
    target = server.options.archive / "t/2024/A-alpha/solution.tex"
    edit(target, GOOD + "\\textbf{never closed\n")
    events.next()
    status, page = get(server, "/t/2024/A-alpha/index.html")
    assert status == 200
    assert "The first version" in page
    assert "site-builder-overlay" in page and "A-alpha/solution.tex:3: unbalanced" in page
    _, other = get(server, "/t/2024/B-beta/index.html")
    assert "site-builder-overlay" in other
    edit(target, GOOD.replace("first", "fixed"))
    events.next()
    _, page = get(server, "/t/2024/A-alpha/index.html")
    assert "The fixed version" in page and "site-builder-overlay" not in page


def test_a_source_given_in_problem_yaml_shows_in_the_track_table_at_once(server: DevServer) -> None:
    """Every field a listing shows of an entry (here its source) rebuilds the pages that list it."""
    events = Events(server)
    edit(server.options.archive / "t/2024/B-beta/problem.yaml", "source: Spring Cup 2024\n")
    events.next()
    _, track = get(server, "/t/index.html")
    assert "Spring Cup 2024" in track


def test_solver_edit_reruns_verification(server: DevServer) -> None:
    events = Events(server)
    edit(server.options.archive / "t/2024/A-alpha/solution.py", "print(int(input()) * 3)\n")
    events.next()
    _, page = get(server, "/t/2024/A-alpha/index.html")
    assert "Wrong Answer" in page and "Failing: Python 1/1" in page
    _, track = get(server, "/t/index.html")
    assert "Failing: Python 1/1" in track


def test_new_and_removed_entries_update_lists_and_neighbours(
    server: DevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_full_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("a new or removed entry is an update of that entry, not a full build")

    monkeypatch.setattr(server.builder, "build_all", no_full_build)
    events = Events(server)
    folder = server.options.archive / "t/2024/C-gamma"
    folder.mkdir()
    edit(folder / "solution.md", "## Idea\n\nGamma.\n")
    events.next()
    assert server.last is not None and server.last.errors == 0
    _, track = get(server, "/t/index.html")
    assert "Gamma" in track
    _, beta = get(server, "/t/2024/B-beta/index.html")
    assert "C. Gamma" in beta  # the new next link
    shutil.rmtree(folder)
    events.next()
    _, track = get(server, "/t/index.html")
    assert "Gamma" not in track
    assert get(server, "/t/2024/C-gamma/index.html")[0] == 404
    assert not (server.options.out / "t/2024/C-gamma").exists()  # its published files went with it
    _, beta = get(server, "/t/2024/B-beta/index.html")
    assert "Gamma" not in beta


def test_a_new_track_or_the_first_tag_puts_a_link_in_every_page_header(server: DevServer) -> None:
    def shown(link: str) -> bool:
        """Whether another entry's page links to it, once the server has finished its lists: an update
        that sees another save waiting leaves them to the next one (``interrupted``), here the server's
        own loop, which the saves' events start."""
        deadline = time.monotonic() + 20
        while link not in get(server, "/t/2024/A-alpha/index.html")[1] and time.monotonic() < deadline:
            time.sleep(0.05)
        return link in get(server, "/t/2024/A-alpha/index.html")[1]

    assert 'href="../../../u/index.html"' not in get(server, "/t/2024/A-alpha/index.html")[1]
    write_tree(server.options.archive / "u/A-new", {"solution.md": "## Idea\n\nNew.\n"})
    assert updated(server, ["u/A-new"]).published
    assert shown('href="../../../u/index.html"')
    assert 'href="../../../tags/index.html"' not in get(server, "/t/2024/A-alpha/index.html")[1]
    write_tree(server.options.archive / "u/A-new", {"problem.yaml": "title: New\ntags: [first]\n"})
    assert updated(server, ["u/A-new"]).published
    assert shown('href="../../../tags/index.html"')


@pytest.mark.parametrize("name", ["A-alpha!", "A alpha"])  # found after A-alpha, and before it
def test_a_new_folder_with_a_taken_url_is_an_error_and_overwrites_nothing(server: DevServer, name: str) -> None:
    page = server.options.out / "t/2024/A-alpha/index.html"
    before = page.read_bytes()
    write_tree(server.options.archive / "t/2024" / name, {"solution.md": "## Idea\n\nImpostor.\n"})
    report = updated(server, [f"t/2024/{name}"])
    assert not report.published and page.read_bytes() == before
    messages = [str(d) for d in report.diagnostics if d.level == "error"]
    assert len(messages) == 1 and "URL t/2024/A-alpha/ is already" in messages[0]
    # The full build says the same of the same folder: the one found second.
    second = "t/2024/A-alpha" if name == "A alpha" else f"t/2024/{name}"
    assert messages[0].startswith(f"archive/{second}: ")
    shutil.rmtree(server.options.archive / "t/2024" / name)
    report = updated(server, [f"t/2024/{name}"])
    assert report.errors == 0 and page.read_bytes() == before


def test_removing_a_folder_gives_its_url_back_to_the_numbered_one(tmp_path: Path) -> None:
    with serving(tmp_path, {"t/A one/solution.md": "First.\n", "t/A-one/solution.md": "Second.\n"}) as dev:
        assert dev.last is not None and dev.last.errors == 1
        assert "First." in get(dev, "/t/A-one/index.html")[1] and "Second." in get(dev, "/t/A-one-2/index.html")[1]
        shutil.rmtree(dev.options.archive / "t/A one")
        report = updated(dev, ["t/A one"])
        assert report.errors == 0 and report.entries == 1
        assert "Second." in get(dev, "/t/A-one/index.html")[1]
        assert get(dev, "/t/A-one-2/index.html")[0] == 404
        assert not (dev.options.out / "t/A-one-2").exists(), "its files moved with it"
        assert (dev.options.out / "t/A-one/solution.md").read_text() == "Second.\n"


def test_a_deleted_file_leaves_the_site_also_where_the_url_is_not_the_folder_name(tmp_path: Path) -> None:
    with serving(tmp_path, {"t/A one/solution.md": "One.\n", "t/A one/notes.txt": "draft\n"}) as dev:
        assert get(dev, "/t/A-one/notes.txt")[0] == 200
        (dev.options.archive / "t/A one/notes.txt").unlink()
        assert updated(dev, ["t/A one"]).errors == 0
        assert get(dev, "/t/A-one/notes.txt")[0] == 404
        assert get(dev, "/t/A-one/solution.md")[0] == 200


def test_saving_a_file_another_problem_inputs_updates_that_problems_page_too(tmp_path: Path) -> None:
    files = {
        "c/A-first/solution.tex": "\\input{../B-second/defs}\nFirst says \\greeting.\n",
        "c/B-second/solution.tex": "\\input{defs}\nSecond says \\greeting.\n",
        "c/B-second/defs.tex": "\\newcommand{\\greeting}{hello}\n",
    }
    with serving(tmp_path, files) as dev:
        assert "First says hello" in get(dev, "/c/A-first/index.html")[1]
        events = Events(dev)
        edit(dev.options.archive / "c/B-second/defs.tex", "\\newcommand{\\greeting}{good evening}\n")
        assert int(events.next()) > int(events.first)
        assert "Second says good evening" in get(dev, "/c/B-second/index.html")[1]
        assert "First says good evening" in get(dev, "/c/A-first/index.html")[1]


def test_backup_files_do_not_rebuild(server: DevServer) -> None:
    events = Events(server)
    folder = server.options.archive / "t/2024/A-alpha"
    (folder / "solution.tex~").write_text("backup")
    (folder / ".solution.tex.swp").write_text("swap")
    (folder / "4913").write_text("")
    with pytest.raises(queue.Empty):
        events.next(timeout=0.6)


def test_template_edit_rerenders_without_running_solvers(server: DevServer) -> None:
    events = Events(server)
    template = server.options.templates / "base.html"
    edit(template, template.read_text().replace("Skip to content", "Skip to the content"))
    events.next()
    assert "Skip to the content" in get(server, "/t/2024/B-beta/index.html")[1]
    assert server.last is not None and server.last.solver_processes == 0


def test_an_override_added_edited_and_removed_while_serving_updates_every_page(server: DevServer) -> None:
    events = Events(server)
    override = server.options.archive / "overrides/templates/base.html"
    override.parent.mkdir(parents=True)
    footer = '{% extends "theme/base.html" %}{% block footer %}<footer>Ours, version N</footer>{% endblock %}'
    edit(override, footer.replace("N", "1"))
    events.next()
    assert "<footer>Ours, version 1</footer>" in get(server, "/t/2024/B-beta/index.html")[1]
    edit(override, footer.replace("N", "2"))
    events.next()
    assert "<footer>Ours, version 2</footer>" in get(server, "/index.html")[1]
    style = server.options.archive / "overrides/static/style.css"
    style.parent.mkdir(parents=True)
    edit(style, "body { color: teal }\n")
    events.next()
    published = get(server, "/static/style.css")[1]  # the override, then the code colours (one stylesheet)
    assert published.startswith("body { color: teal }\n") and ".highlight" in published
    shutil.rmtree(server.options.archive / "overrides")
    events.next()
    page = get(server, "/t/2024/B-beta/index.html")[1]
    assert "Ours, version" not in page and 'class="site-footer"' in page
    assert get(server, "/static/style.css")[1].startswith((ROOT / "static/style.css").read_text())


def test_burst_of_changes_is_one_rebuild_and_the_last_one_wins(
    server: DevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settle pause is held open until the watcher has seen the whole burst (a folder made after it,
    whose one event comes after all of the burst's), then runs as it does: on a loaded machine a 20 ms
    pause between two writes would otherwise split the burst, and the count would depend on timing."""
    target = server.options.archive / "t/2024/B-beta/solution.md"
    marker = ("archive", "t/2024/B-beta/after-the-burst")
    burst_over = threading.Event()
    real_settle, real_rebuild = server._settle, server.rebuild
    rebuilds: list[list[Change]] = []

    def settle() -> None:
        assert burst_over.wait(10), "the burst was not written"
        deadline = time.monotonic() + 10
        while marker not in server.collector.pending and time.monotonic() < deadline:
            time.sleep(0.005)
        real_settle()

    def rebuild(changes: list[Change]) -> BuildReport | None:
        rebuilds.append(changes)
        return real_rebuild(changes)

    monkeypatch.setattr(server, "_settle", settle)
    monkeypatch.setattr(server, "rebuild", rebuild)
    events = Events(server)
    for n in range(20):
        target.write_text(f"## Idea\n\nVersion {n}.\n")
    (server.options.archive / marker[1]).mkdir()
    burst_over.set()
    events.next()
    server.hub.wait_idle()
    assert len(rebuilds) == 1 and not server.collector.pending and not server.collector.flag.is_set()
    assert "Version 19." in get(server, "/t/2024/B-beta/index.html")[1]


@pytest.mark.parametrize(
    "path",
    [
        "/../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fetc/passwd",
        "//etc/passwd",
        "/t/../../x",
        "/%00",
        "/x" * 3000,
    ],
)
def test_paths_outside_the_site_are_not_served(server: DevServer, path: str) -> None:
    assert raw_status(server, path) in (404, 414)


def test_folder_without_slash_redirects(server: DevServer) -> None:
    assert raw_status(server, "/t") == 301
    assert raw_status(server, "/t/") == 200


def test_search_index_follows_edits_without_delaying_the_reload(server: DevServer) -> None:
    entry_file = server.options.out / "pagefind" / "pagefind-entry.json"
    before = entry_file.read_bytes()
    events = Events(server)
    edit(server.options.archive / "t/2024/A-alpha/solution.tex", GOOD + "\nA zanzibarian word.\n")
    events.next()
    assert entry_file.read_bytes() == before, "the reload is sent first; the index follows a moment later"
    deadline = time.time() + 20
    while entry_file.read_bytes() == before and time.time() < deadline:
        time.sleep(0.2)
    assert entry_file.read_bytes() != before


def test_a_build_after_the_server_stops_reuses_its_pages(tmp_path: Path) -> None:
    from site_builder.build import build_site

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(tmp_path / "archive", {"t/A-one/solution.md": "## Idea\n\nOne.\n"})
    options = make_options(tmp_path, jobs=1, verify=False)
    dev = DevServer(options, port=0)
    dev.start()
    threading.Thread(target=dev.serve_forever, daemon=True).start()
    updated(dev, ["t/A-one"])
    (tmp_path / "archive/t/A-one/solution.md").write_text("## Idea\n\nOne, edited.\n")
    updated(dev, ["t/A-one"])
    dev.stop()
    page = options.out / "t/A-one/index.html"
    inode = page.stat().st_ino
    build_site(options)
    assert page.stat().st_ino == inode and "One, edited." in page.read_text()


def test_many_concurrent_requests_during_a_rebuild(server: DevServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    good = ["/index.html", "/t/2024/A-alpha/index.html", "/t/2024/B-beta/index.html", "/t/index.html"]
    bad = ["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/%00", "/x" * 3000, "/nope.html"]
    paths = [(good + bad)[n % len(good + bad)] for n in range(200)]
    events = Events(server)

    def fetch(path: str) -> tuple[str, int, str]:
        connection = http.client.HTTPConnection(*address(server), timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
        connection.close()
        return path, response.status, body

    with ThreadPoolExecutor(max_workers=50) as pool:
        futures = [pool.submit(fetch, p) for p in paths[:20]]
        # A template change re-renders every page while the remaining requests arrive.
        layout = server.options.templates / "base.html"
        edit(layout, layout.read_text().replace("</footer>", "<p>rebuilt</p></footer>"))
        futures += [pool.submit(fetch, p) for p in paths[20:]]
        results = [f.result() for f in futures]
    for path, status, body in results:
        if path in good:
            assert status == 200 and body.rstrip().endswith("</html>"), path  # never a half-written page
        else:
            assert status in (404, 414), path
            assert "root:" not in body
    events.next()
    assert "<p>rebuilt</p>" in get(server, "/t/2024/A-alpha/index.html")[1]


def test_starting_on_a_current_site_keeps_its_pages(tmp_path: Path) -> None:
    from site_builder.build import build_site

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(tmp_path / "archive", {"t/A-one/solution.md": "## Idea\n\nOne.\n", "t/B-two/solution.md": "Two.\n"})
    options = make_options(tmp_path, jobs=1, verify=False)
    assert not build_site(options).current
    stamps = {p: p.stat().st_mtime_ns for p in options.out.rglob("*") if p.is_file()}
    dev = DevServer(options, port=0)
    dev.start()
    threading.Thread(target=dev.serve_forever, daemon=True).start()
    try:
        assert dev.last is not None and dev.last.current and dev.last.entries == 2
        assert {p: p.stat().st_mtime_ns for p in options.out.rglob("*") if p.is_file()} == stamps
        assert "One." in get(dev, "/t/A-one/index.html")[1]
        # The kept site is a full starting point: an edit rewrites exactly what it changes.
        events = Events(dev)
        edit(options.archive / "t/A-one/solution.md", "## Idea\n\nOne, edited.\n")
        events.next()
        assert "One, edited." in get(dev, "/t/A-one/index.html")[1]
        assert dev.last.written == 3  # and its source's page, and the feed (which has its summary)
        assert "One, edited." in (options.out / "feed.xml").read_text()
        assert "One, edited." in get(dev, "/t/A-one/code-solution-md.html")[1]
    finally:
        dev.stop()


def test_a_start_that_kept_every_page_sets_up_the_renderers_before_the_first_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing was rendered at the start; the warm-up renders one entry, the one with the most
    kinds of file, so that the author's first save does not pay for setting up lexers."""
    from site_builder.build import build_site
    from site_builder.render import content

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {"t/A-one/solution.md": "One.\n", "t/B-two/solution.md": "Two.\n", "t/B-two/solution.py": "print(2)\n"},
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    build_site(options)
    rendered: list[str] = []
    real = content.render_entry
    monkeypatch.setattr(content, "render_entry", lambda source: rendered.append(source.path) or real(source))
    dev = DevServer(options, port=0)
    dev.start()
    try:
        assert dev.last is not None and dev.last.current and dev.warmer is not None
        dev.warmer.join(timeout=30)
        assert rendered == ["t/B-two"]
    finally:
        dev.stop()


def test_a_rebuild_abandons_a_search_refresh_and_the_next_refresh_catches_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.publish import search
    from site_builder.serve.updates import LiveBuilder as Builder

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(tmp_path / "archive", {"t/A-one/solution.md": "## Idea\n\nOne.\n"})
    options = make_options(tmp_path, jobs=1, verify=False)
    index = options.out / "pagefind" / "pagefind-entry.json"
    with Builder(options) as builder:
        builder.build_all()
        before = index.read_bytes()
        (tmp_path / "archive/t/A-one/solution.md").write_text("## Idea\n\nOne, with a zanzibarian word.\n")
        builder.update_entries(["t/A-one"])
        add = search.PagefindSession.add
        fed: list[search.PagefindSession] = []

        def add_as_a_save_comes(session: search.PagefindSession, record: Record, fresh: bool = False) -> None:
            if not fed:
                builder.abandon_refresh()  # what the dev server does before it rebuilds
            fed.append(session)
            add(session, record, fresh)

        monkeypatch.setattr(search.PagefindSession, "add", add_as_a_save_comes)
        assert builder.refresh_search() is False
        assert fed and fed[0].process.poll() is not None, "Pagefind was stopped"
        assert index.read_bytes() == before, "an abandoned refresh writes nothing"
        monkeypatch.undo()
        assert builder.refresh_search() is True
        assert index.read_bytes() != before


def test_each_update_prints_only_the_messages_the_author_has_not_seen(capsys: pytest.CaptureFixture[str]) -> None:
    from site_builder.cli import UpdatePrinter
    from site_builder.errors import Diagnostic
    from site_builder.publish.report import BuildReport

    old = Diagnostic("archive/t/A-one/problem.yaml", 2, "unknown key 'tilte'", "warning")
    other = Diagnostic("archive/t/B-two", 0, "problem package lacks samples", "warning")
    broken = Diagnostic("archive/t/A-one/solution.tex", 3, "\\end{itemize} without \\begin{itemize}")

    def report(*diagnostics: Diagnostic, published: bool = True) -> BuildReport:
        return BuildReport(diagnostics, 2, 1, 9, published, 0.05, Path("site"), written=1 if published else 0)

    show = UpdatePrinter()
    steps = [
        report(old, other),  # the start: every message
        report(old, other),  # a save that changes none of them
        report(broken, published=False),  # a failed save: its errors, every time
        report(broken, published=False),
        report(other),  # the fix: the warning on A-one is gone too
    ]
    printed = []
    for step in steps:
        show(step)
        out = capsys.readouterr()
        printed.append((out.err.splitlines(), out.out.split("] ", 1)[1].strip()))
    assert printed == [
        ([str(old), str(other)], "built in 50 ms (1 file written)"),
        ([], "updated in 50 ms (1 file written; 2 earlier messages not repeated)"),
        ([str(broken)], "FAILED, still serving the last good pages in 50 ms (0 files written)"),
        ([str(broken)], "FAILED, still serving the last good pages in 50 ms (0 files written)"),
        ([], "updated in 50 ms (1 file written; 1 earlier message not repeated; 1 message gone)"),
    ]


def request(dev: DevServer, method: str, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request on its own connection, with the Host header given (or the server's own)."""
    connection = http.client.HTTPConnection(*address(dev), timeout=10)
    connection.putrequest(method, path, skip_host=host is not None)
    if host is not None:
        connection.putheader("Host", host)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


def test_only_its_own_names_are_answered(server: DevServer) -> None:
    """A page on another site cannot read the preview through a name that resolves here (DNS rebinding)."""
    _, port = address(server)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert request(server, "GET", "/index.html", host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", ""):
        status, _, body = request(server, "GET", "/index.html", host)
        assert status == 421 and b"Archive" not in body, host
        assert request(server, "GET", RELOAD_PATH, host)[0] == 421


def test_head_sends_no_body_and_keeps_the_connection_usable(server: DevServer) -> None:
    connection = http.client.HTTPConnection(*address(server), timeout=10)
    for path, status in (("/missing.html", 404), ("/index.html", 200), ("/missing.html", 404)):
        connection.request("HEAD", path)
        response = connection.getresponse()
        assert response.status == status and response.read() == b""
        assert int(response.getheader("Content-Length") or 0) > 0
        assert response.getheader("X-Content-Type-Options") == "nosniff"
    connection.request("GET", "/index.html")  # the same connection still works after them
    assert connection.getresponse().status == 200
    connection.close()


def test_clients_that_vanish_or_idle_cost_no_traceback_and_no_thread(
    server: DevServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from site_builder.serve import web

    assert server.httpd is not None
    idle = [socket.create_connection(address(server)) for _ in range(web.MAX_CONNECTIONS + 8)]
    time.sleep(0.5)
    assert threading.active_count() < web.MAX_CONNECTIONS + 40  # the extra connections were refused
    for connection in idle:
        connection.close()
    for _ in range(5):  # a client that sends half a request and leaves
        half = socket.create_connection(address(server))
        half.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        half.close()
        gone = socket.create_connection(address(server))  # one that asks for a page and leaves at once
        gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        gone.sendall(
            f"GET /t/2024/A-alpha/index.html HTTP/1.1\r\nHost: 127.0.0.1:{address(server)[1]}\r\n\r\n".encode()
        )
        gone.close()
    time.sleep(0.5)
    assert get(server, "/index.html")[0] == 200  # the slots of the idle ones came back
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out


def test_a_removed_output_folder_is_built_again_whole(server: DevServer) -> None:
    events = Events(server)
    shutil.rmtree(server.options.out)
    source = server.options.archive / "t/2024/B-beta/solution.md"
    edit(source, "## Idea\n\nBeta, edited.\n")
    events.next(timeout=60)
    assert "Beta, edited." in get(server, "/t/2024/B-beta/index.html")[1]
    assert get(server, "/t/2024/A-alpha/index.html")[0] == 200
    assert get(server, "/static/style.css")[0] == 200
    assert get(server, "/index.html")[0] == 200


def test_an_archive_served_from_its_own_folder_takes_none_of_its_site_for_edits(tmp_path: Path) -> None:
    """An archive's own repository (its tracks at the top): site/ and .cache/ sit inside the
    watched archive, and the server's own writes there are no edits."""
    write_tree(tmp_path, {"t/2024/A-alpha/solution.md": "## Idea\n\nAlpha.\n", "t/2024/B-beta/solution.md": "Beta.\n"})
    options = make_options(tmp_path, jobs=1, verify=False)
    assert (options.archive, options.out) == (tmp_path.resolve(), tmp_path.resolve() / "site")
    dev = DevServer(options, port=0)
    dev.start()
    threading.Thread(target=dev.serve_forever, daemon=True).start()
    try:
        events = Events(dev)
        edit(tmp_path / "t/2024/A-alpha/solution.md", "## Idea\n\nAlpha, again.\n")
        assert int(events.next()) > int(events.first)
        assert "Alpha, again." in get(dev, "/t/2024/A-alpha/index.html")[1]
        with pytest.raises(queue.Empty):  # the page written, then the search index: no rebuild of their own
            events.next(timeout=SEARCH_SETTLED)
        assert sorted(dev.builder.sources) == ["t/2024/A-alpha", "t/2024/B-beta"]
        assert not (tmp_path / "site/site").exists()
    finally:
        dev.stop()


def test_a_package_s_own_repository_is_served_from_its_folder(tmp_path: Path) -> None:
    """One package at the top of its repository: a save of its statement or of a solver updates its one
    entry, as in an archive of them; none of the site written inside it becomes one of its files."""
    write_tree(
        tmp_path,
        {
            "problem.yaml": "name: Frogs\n",
            "problem_statement/problem.en.tex": "\\problemname{Frogs}\nJump.\n",
            "data/sample/1.in": "1\n",
            "data/sample/1.ans": "1\n",
            "submissions/accepted/solution.py": "print(input())\n",
        },
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    dev = DevServer(options, port=0)
    dev.start()
    threading.Thread(target=dev.serve_forever, daemon=True).start()
    url = f"/problems/{tmp_path.name}/index.html"
    try:
        events = Events(dev)
        edit(tmp_path / "problem_statement/problem.en.tex", "\\problemname{Frogs}\nLeap.\n")
        assert int(events.next()) > int(events.first)
        assert "Leap." in get(dev, url)[1]
        edit(tmp_path / "submissions/accepted/solution.py", "print(input())  # again\n")
        events.next()
        assert "# again" in get(dev, f"/problems/{tmp_path.name}/submissions/accepted/solution.py")[1]
        assert list(dev.builder.sources) == [""]
        assert not any(f.name.startswith("site/") for f in dev.builder.sources[""].files)
    finally:
        dev.stop()


SEARCH_SETTLED = 3.0  # seconds: past the search refresh a second after an update, and its writes


def test_the_watcher_asks_the_kernel_for_changes_only_not_reads(tmp_path: Path) -> None:
    """The builder reads every archive file; watched opens and reads of 20,000 folders overflowed
    the kernel's queue over and over, and no save reached a page."""

    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    from site_builder.serve.server import WATCHED_EVENTS

    (tmp_path / "a").mkdir()
    target = tmp_path / "a" / "solution.tex"
    target.write_text("one\n")
    seen: queue.Queue[FileSystemEvent] = queue.Queue()

    class Recorder(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            seen.put(event)

    observer = Observer()
    watch = observer.schedule(Recorder(), str(tmp_path), recursive=True, event_filter=WATCHED_EVENTS)
    observer.start()
    try:
        for _ in range(50):
            target.read_text()
        time.sleep(0.5)
        assert seen.empty(), seen.get()
        target.write_text("two\n")
        event = seen.get(timeout=5)
        assert event.src_path == str(target) and event.event_type in ("modified", "closed")
    finally:
        observer.unschedule(watch)
        observer.stop()
        observer.join()


def test_a_formula_with_a_new_character_brings_a_new_cut_of_the_math_font(tmp_path: Path) -> None:
    from fontTools.ttLib import TTFont

    with serving(tmp_path, {"t/A-x/solution.tex": "\\section{Idea}\nSo $n \\le 2$.\n"}) as dev:
        static = dev.options.out / "static"
        (before,) = static.glob("STIXTwoMath-*.woff2")
        assert ord("\u2211") not in TTFont(before).getBestCmap()
        edit(dev.options.archive / "t/A-x/solution.tex", "\\section{Idea}\nSo $\\sum_i n_i \\le 2$.\n")
        report = updated(dev, ["t/A-x"])
        assert report.published and report.errors == 0
        (after,) = static.glob("STIXTwoMath-*.woff2")  # the old cut is gone
        assert after != before and ord("\u2211") in TTFont(after).getBestCmap()
        assert f"url('./{after.name}')" in (static / "temml.css").read_text()
        status, page = get(dev, "/t/A-x/index.html")
        assert status == 200 and "static/temml.css" in page


def _records(builder: Builder) -> list[Record]:
    """The search records of a builder's site, each made from its whole entry in the render cache."""
    assert builder.site is not None
    listing = search_listing(builder.site, builder.content_keys)
    keys = builder.content_keys
    return Records(None, lambda card: builder._cached(keys[card.path], card=False) or card).made(listing)


def test_each_update_reports_every_entry_s_problems_as_a_full_build_does(tmp_path: Path) -> None:
    """The dev server works out only the saved entries' problems, and reports those of every entry:
    another entry's warning stays until its own fix, whichever way a save updates the site."""
    from site_builder.serve.updates import LiveBuilder

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {
            "t/A-one/problem.yaml": "tilte: One\n",
            "t/A-one/solution.md": "## Idea\n\nOne.\n",
            "t/B-two/solution.md": "## Idea\n\nTwo.\n",
        },
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    archive = options.archive

    def messages(report: BuildReport) -> list[str]:
        return [f"{d.path}:{d.line}: {d.message}" for d in report.diagnostics]

    def built() -> list[str]:
        fresh = make_options(tmp_path, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache", jobs=1, verify=False)
        with Builder(fresh) as builder:
            return messages(builder.build_all())

    typo = "unknown key 'tilte'; did you mean 'title'?"
    with LiveBuilder(options) as live:
        assert messages(live.build_all()) == [f"archive/t/A-one/problem.yaml:1: {typo}"] == built()
        edit(archive / "t/B-two/solution.md", "## Idea\n\nTwo.\n\nMore.\n")  # its own page alone
        assert messages(live.update_entries(["t/B-two"])) == built() == [f"archive/t/A-one/problem.yaml:1: {typo}"]
        edit(archive / "t/B-two/problem.yaml", "title: Deux\n")  # the pages that list it too
        assert messages(live.update_entries(["t/B-two"])) == built() == [f"archive/t/A-one/problem.yaml:1: {typo}"]
        edit(archive / "t/A-one/problem.yaml", "title: One\n")
        assert messages(live.update_entries(["t/A-one"])) == built() == []
        edit(archive / "t/B-two/problem.yaml", "tilte: Deux\n")
        assert messages(live.update_entries(["t/B-two"])) == built() == [f"archive/t/B-two/problem.yaml:1: {typo}"]
        shutil.rmtree(archive / "t/B-two")
        assert messages(live.update_entries(["t/B-two"])) == built() == []


def test_an_entry_relinked_in_place_is_where_linking_the_site_again_puts_it() -> None:
    """``relinked`` (the quick path) touches only the lists that hold the entry: its track's and its
    tags'; every other list is the very one it was."""
    from dataclasses import replace

    from conftest import an_entry

    from site_builder.publish.catalog import link_site, relinked
    from site_builder.source.config import SiteConfig

    entries = [
        an_entry("t/a", tags=("graphs", "Dynamic Programming")),
        an_entry("t/b", tags=("graphs",)),
        an_entry("u/c", tags=("strings",)),
        an_entry("u/d"),
    ]
    site, _ = link_site(SiteConfig(), entries, "archive")
    for old in (entries[0], entries[3]):
        new = replace(old, summary_text="edited")
        quick = relinked(site, [(old, new)])
        whole, _ = link_site(SiteConfig(), [new if e is old else e for e in entries], "archive")
        assert quick == whole
        for mine, theirs in ((quick.tracks, site.tracks), (quick.tags, site.tags)):
            for after, before in zip(mine, theirs, strict=True):
                holds = any(e is old for e in before.entries)
                assert (after is before) is not holds and not any(e is old for e in after.entries)
                assert holds is (new in after.entries)


def test_saves_that_only_an_entrys_own_pages_show_give_the_site_a_full_build_gives(tmp_path: Path) -> None:
    """The dev server's quick path, for an edit that no other page shows (the write-up past its summary):
    the entry relinked in place and its own pages alone written, no other page planned or rewritten. The
    site it leaves is the one a build from scratch makes, byte for byte (the search index aside, which
    the server refreshes apart), a formula with a new character (a new cut of the math font) included."""
    from site_builder.serve.updates import LiveBuilder

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    summary = "\\section{Idea}\nThe summary stays as it is.\n\n"
    write_tree(
        tmp_path / "archive",
        {
            "t/2024/A-alpha/solution.tex": summary + "Add one: $x+1$.\n",
            "t/2024/A-alpha/solution.py": "print(int(input()) + 1)\n",
            "t/2024/A-alpha/samples/1.in": "2\n",
            "t/2024/A-alpha/samples/1.ans": "3\n",
            "t/2024/B-beta/solution.md": "## Idea\n\nBeta, with $y^2$.\n",
            "t/2024/C-gamma/solution.md": "## Idea\n\nGamma.\n",
        },
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    folder = "t/2024/A-alpha"
    with LiveBuilder(options) as live:
        live.build_all()
        others = {p: p.stat().st_mtime_ns for p in options.out.rglob("*.html") if folder not in p.as_posix()}
        # its page and its source's page; then those and a new cut of the font, and the stylesheet naming it
        for body, written in (("Add two: $x+2$.\n", 2), ("Add aleph: $x+\\aleph$.\n", 4)):
            edit(options.archive / folder / "solution.tex", summary + body)
            report = live.update_entries([folder])
            assert report.published and not report.diagnostics
            assert (report.pages, report.written) == (4, written)
        assert {p: p.stat().st_mtime_ns for p in others} == others
        assert live.site is not None
        searched = _records(live)  # what the server's search refresh indexes
    assert "\\aleph" not in (options.out / folder / "index.html").read_text()  # drawn as MathML, not raw
    fresh = make_options(tmp_path, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache", jobs=1, verify=False)
    with Builder(fresh) as builder:
        builder.build_all()
        assert builder.site is not None and searched == _records(builder)

    def files(out: Path) -> dict[str, bytes]:
        found = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        return {name: data for name, data in found.items() if not name.startswith("pagefind/")}

    served, built = files(options.out), files(fresh.out)
    assert sorted(served) == sorted(built)
    assert [name for name in built if served[name] != built[name]] == []


def test_a_save_during_an_update_leaves_its_lists_to_the_next_update(tmp_path: Path) -> None:
    """Once a save's own pages are told, another save waiting stops the update: the pages listing the
    first save are rendered by the next update, with its own, and the site is then the one a build
    from scratch makes."""
    from site_builder.build import build_site
    from site_builder.serve.updates import LiveBuilder

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {f"t/2024/{name}/solution.md": f"## Idea\n\n{name} at first.\n\nMore.\n" for name in ("A-alpha", "B-beta")},
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    out, told = options.out, []
    with LiveBuilder(options) as live:
        live.build_all()
        live.early, live.interrupted = told.append, lambda: True
        (options.archive / "t/2024/A-alpha/problem.yaml").write_text("title: Renamed\n")
        assert live.update_entries(["t/2024/A-alpha"]).published
        assert "Renamed" in (out / "t/2024/A-alpha/index.html").read_text()
        assert "Renamed" not in (out / "t/index.html").read_text()  # left for the next update
        assert "t/index.html" in live.unfinished and live.changed_pages == set()
        live.interrupted = lambda: False
        # what the server does when what came was no change after all: the pages left, now
        assert live.update_entries([]).published
        assert live.unfinished == set() and "t/index.html" in (live.changed_pages or set())
        assert "Renamed" in (out / "t/index.html").read_text()
        live.interrupted = lambda: True
        (options.archive / "t/2024/A-alpha/problem.yaml").write_text("title: Renamed again\n")
        assert live.update_entries(["t/2024/A-alpha"]).published and live.unfinished
        live.interrupted = lambda: False
        edit(options.archive / "t/2024/B-beta/solution.md", "## Idea\n\nB-beta at first.\n\nMore, edited.\n")
        assert live.update_entries(["t/2024/B-beta"]).published  # no list shows this edit: all the same
        assert live.unfinished == set() and "t/index.html" in (live.changed_pages or set())
        assert len(told) == 3
    fresh = make_options(tmp_path, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache", jobs=1, verify=False)
    build_site(fresh)
    built = {p.relative_to(fresh.out): p.read_bytes() for p in fresh.out.rglob("*.html")}
    assert {p: (out / p).read_bytes() for p in built} == built


def test_a_new_first_paragraph_updates_the_entry_s_page_and_the_feed_alone(tmp_path: Path) -> None:
    """The theme's lists show no summary: a save of a write-up's first paragraph writes its entry's pages
    and the feed, which shows it, and leaves the track, tag and home pages (at ten thousand entries,
    1.6 s of rendering after the saved page was told); the site is then the one a build makes."""
    from site_builder.build import build_site
    from site_builder.serve.updates import LiveBuilder

    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "static", tmp_path / "static")
    write_tree(
        tmp_path / "archive",
        {
            "t/2024/A-alpha/solution.md": "## Idea\n\nAlpha at first.\n\nMore.\n",
            "t/2024/A-alpha/problem.yaml": "title: Alpha\ntags: [graphs]\n",
            "t/2024/B-beta/solution.md": "## Idea\n\nBeta.\n",
        },
    )
    options = make_options(tmp_path, jobs=1, verify=False)
    out = options.out
    with LiveBuilder(options) as live:
        live.build_all()
        edit(options.archive / "t/2024/A-alpha/solution.md", "## Idea\n\nAlpha, said again.\n\nMore.\n")
        assert live.update_entries(["t/2024/A-alpha"]).published
        written = live.changed_pages or set()  # the pages (.html) written
        assert "t/2024/A-alpha/index.html" in written
        assert not written & {"t/index.html", "tags/graphs/index.html", "index.html"}, written
        assert "Alpha, said again." in (out / "feed.xml").read_text()
    fresh = make_options(tmp_path, out=tmp_path / "fresh", cache=tmp_path / "fresh-cache", jobs=1, verify=False)
    build_site(fresh)
    built = {p.relative_to(fresh.out): p.read_bytes() for p in (*fresh.out.rglob("*.html"), fresh.out / "feed.xml")}
    assert {p: (out / p).read_bytes() for p in built} == built


def test_a_folder_site_yaml_excludes_is_no_entry_for_the_dev_server_either(tmp_path: Path) -> None:
    """A problem folder made in an excluded folder while serving (a copy of the template, say) is not
    added by the update its save asks for."""
    from site_builder.serve.updates import LiveBuilder

    write_tree(tmp_path / "archive", {"site.yaml": "exclude: [template]\n", "t/A-x/solution.md": "# X\n\nText.\n"})
    options = make_options(tmp_path, jobs=1, verify=False)
    with LiveBuilder(options) as live:
        live.build_all()
        write_tree(options.archive, {"t/template/solution.md": "# Skeleton\n", "t/B-y/solution.md": "# Y\n"})
        assert live.update_entries(["t/template", "t/B-y"]).published
        assert sorted(live.sources) == ["t/A-x", "t/B-y"]
        assert not (options.out / "t/template").exists() and (options.out / "t/B-y/index.html").is_file()
