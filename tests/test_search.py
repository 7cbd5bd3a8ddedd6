"""The search index: records in path order, in shards fed to Pagefind while entries come, each cached by content."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from conftest import an_entry

from site_builder.model import Entry
from site_builder.publish import records, search
from site_builder.publish.records import Listed, Record, listed
from site_builder.publish.search import SearchFeed, build_search_index
from site_builder.source.config import SiteConfig

needs_pagefind = pytest.mark.skipif(not search.pagefind_available(), reason="needs pagefind-bin")


def _entry(path: str, text: str) -> Entry:
    return an_entry(path, title=f"Title of {path.rsplit('/', 1)[1]}", tags=("graphs",), search_text=text)


class _Session:
    """Stands in for Pagefind: remembers what it was given."""

    def __init__(self, background: bool = False) -> None:
        self.added: list[str] = []
        self.texts: list[str] = []
        self.closed = False

    def add(self, record: Record, fresh: bool = False) -> None:
        self.added.append(record.url)
        self.texts.append(record.text)

    def files(self) -> list[tuple[str, bytes]]:
        data = "\n".join(self.added).encode()
        return [("pagefind-entry.json", data), ("pagefind.js", b"js"), ("index/en_1.pf_index", data)]

    def abandon(self) -> None:
        self.closed = True

    def close(self) -> None:
        self.closed = True


class _Cache:
    def __init__(self) -> None:
        self.data: dict[str, object] = {}

    def get(self, key: str) -> object:
        return self.data.get(key)

    def put(self, key: str, value: object) -> None:
        self.data[key] = value


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[_Session]:
    made: list[_Session] = []

    def session(background: bool = False) -> _Session:
        made.append(_Session(background))
        return made[-1]

    monkeypatch.setattr(search, "PagefindSession", session)
    monkeypatch.setattr(search, "pagefind_available", lambda: True)
    return made


@pytest.fixture
def ends(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The paths after which a shard ends (instead of the digest rule)."""
    after: set[str] = set()
    monkeypatch.setattr(search, "shard_ends", lambda record, size: record.url.removesuffix("/index.html") in after)
    return after


@pytest.fixture(autouse=True)
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "SHARD_ENTRIES", 25)


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_each_shard_goes_to_pagefind_in_path_order_once_all_its_entries_have_come(
    sessions: list[_Session], ends: set[str]
) -> None:
    ends.add("t/b")
    feed = SearchFeed(SiteConfig(), None, ["t/c", "t/a", "tags/x", "t/b", "t/d"])
    feed.add(_entry("t/b", "b"))
    feed.add(_entry("t/c", "c"))
    time.sleep(0.05)
    assert sessions == []  # t/a has not come: its shard waits
    feed.add(_entry("t/a", "a"))
    _wait_for(lambda: len(sessions) == 1 and sessions[0].closed)  # indexed while the build goes on
    assert sessions[0].added == ["t/a/index.html", "t/b/index.html"]
    feed.add(_entry("tags/x", "in a reserved track: not on the site, not searchable"))
    feed.add(_entry("t/d", "d"))
    index = feed.finish().result()
    assert [s.added for s in sessions] == [["t/a/index.html", "t/b/index.html"], ["t/c/index.html", "t/d/index.html"]]
    assert index.problem is None and len(index.keys) == 4  # each shard's bundle, and its records kept
    outputs = {o.path: o.data for o in index.outputs}
    part = next(p for p in outputs if p.startswith("pagefind/part-")).split("/")[1]
    assert sorted(outputs) == sorted(
        [
            "pagefind/index/en_1.pf_index",
            f"pagefind/{part}/index/en_1.pf_index",  # a later shard: its data, not Pagefind's program again
            f"pagefind/{part}/pagefind-entry.json",
            "pagefind/pagefind-entry.json",
            "pagefind/pagefind.js",
            "pagefind/shards.json",
        ]
    )
    assert json.loads(outputs["pagefind/shards.json"]) == {"shards": [f"pagefind/{part}/"], "stale": []}
    assert outputs[f"pagefind/{part}/pagefind-entry.json"] == b"t/c/index.html\nt/d/index.html"


def test_an_entry_that_never_comes_is_left_out_of_its_shard(sessions: list[_Session], ends: set[str]) -> None:
    feed = SearchFeed(SiteConfig(), None, ["t/a", "t/b", "t/c"])
    feed.add(_entry("t/a", "a"))
    feed.add(_entry("t/c", "c"))
    index = feed.finish().result()
    assert [s.added for s in sessions] == [["t/a/index.html", "t/c/index.html"]]
    assert {o.path: o.data for o in index.outputs}["pagefind/pagefind-entry.json"] == b"t/a/index.html\nt/c/index.html"


def test_only_a_shard_whose_text_changed_is_indexed_again(sessions: list[_Session], ends: set[str]) -> None:
    ends.update({"t/b", "t/d"})
    cache = _Cache()
    texts = {"t/a": "a", "t/b": "b", "t/c": "c", "t/d": "d", "t/e": "e"}
    first = build_search_index([listed(_entry(p, t), "T") for p, t in texts.items()], cache)
    assert len(sessions) == 3 and len(first.keys) == 6
    texts["t/c"] = "c, edited"
    again = build_search_index([listed(_entry(p, t), "T") for p, t in texts.items()], cache)
    assert [s.added for s in sessions[3:]] == [["t/c/index.html", "t/d/index.html"]]
    shards, shards_again = first.keys[0::2], again.keys[0::2]
    assert [shards_again[0], shards_again[2]] == [shards[0], shards[2]] and shards_again[1] != shards[1]


def _fed(
    entries: list[Entry], texts: dict[str, str], cache: _Cache, whole: Callable[[Entry], Entry] | None = None
) -> list[str]:
    """Feed these entries (each listed by a render key made of its text in ``texts``) and wait for the
    index; the keys of the shards' bundles."""
    keys = {path: f"render key of {path}: {text}" for path, text in texts.items()}
    feed = SearchFeed(SiteConfig(), cache, [e.path for e in entries], keys, whole)
    for entry in entries:
        feed.add(entry)
    index = feed.finish().result()
    assert index.problem is None
    return list(index.keys[0::2])


def _rebuilt(texts: dict[str, str], edited: str) -> list[Entry]:
    """The entries as a rebuild has them: cards from the bundle (no searchable text), ``edited`` rendered again."""
    return [_entry(p, t) if p == edited else _entry(p, t).card() for p, t in texts.items()]


def test_a_shard_indexed_again_takes_its_unchanged_records_as_kept_and_makes_no_other(
    sessions: list[_Session], ends: set[str]
) -> None:
    """Cards have no searchable text: the records of an edited entry's shard-mates are those kept with
    the shard's last index, so that one edit makes one record and loads no whole entry."""
    ends.update({"t/b", "t/d"})
    cache = _Cache()
    texts = {"t/a": "a", "t/b": "b", "t/c": "c", "t/d": "d", "t/e": "e"}
    first = _fed([_entry(p, t) for p, t in texts.items()], texts, cache)
    assert [s.texts for s in sessions] == [["graphs\na", "graphs\nb"], ["graphs\nc", "graphs\nd"], ["graphs\ne"]]
    asked: list[str] = []
    texts["t/c"] = "c, edited"
    again = _fed(_rebuilt(texts, "t/c"), texts, cache, lambda card: asked.append(card.path) or card)
    assert [s.texts for s in sessions[3:]] == [["graphs\nc, edited", "graphs\nd"]]
    assert asked == []
    assert [again[0], again[2]] == [first[0], first[2]] and again[1] != first[1]


def test_a_card_whose_record_was_not_kept_gets_it_from_its_whole_entry_once_every_entry_came(
    sessions: list[_Session], ends: set[str]
) -> None:
    ends.update({"t/b"})
    cache = _Cache()
    texts = {"t/a": "a", "t/b": "b", "t/c": "c"}
    _fed([_entry(p, t) for p, t in texts.items()], texts, cache)
    cache.data = {k: v for k, v in cache.data.items() if not k.startswith("search-records-")}
    texts["t/a"] = "a, edited"
    asked: list[str] = []

    def whole(card: Entry) -> Entry:
        asked.append(card.path)
        return _entry(card.path, texts[card.path])

    _fed(_rebuilt(texts, "t/a"), texts, cache, whole)
    assert asked == ["t/b"]
    assert [s.texts for s in sessions[2:]] == [["graphs\na, edited", "graphs\nb"]]


def test_an_entrys_record_key_is_that_of_its_render_and_track_whole_or_card() -> None:
    entry = _entry("t/a", "text")
    key = listed(entry, "T", "render key").key
    assert listed(entry.card(), "T", "render key").key == key  # a card lists as the entry it came from
    assert listed(entry, "Another title", "render key").key != key
    assert listed(entry, "T", "another render key").key != key
    assert listed(entry, "T").key != listed(replace(entry, search_text="other"), "T").key  # no render key: by record
    with pytest.raises(ValueError, match="t/a: a card has no search record without the render key"):
        listed(entry.card(), "T")


def test_a_render_worker_sends_a_cached_entry_as_its_card_with_the_text_its_record_is_made_of() -> None:
    import pickle

    from site_builder.render.workers import _sent

    entry = _entry("t/a", "the text")
    whole = pickle.dumps(entry)
    sent = pickle.loads(_sent(entry, whole, cached=True))
    assert not sent.complete and sent.search_text == entry.search_text
    assert replace(sent, search_text="") == entry.card()
    made, made_whole = listed(sent, "T", "render key"), listed(entry, "T", "render key")
    assert made.record == made_whole.record and made.key == made_whole.key and made.card is None
    assert _sent(entry, whole, cached=False) is whole  # not in the render cache: the builder keeps it whole
    empty = replace(entry, search_text="")
    assert _sent(empty, pickle.dumps(empty), cached=True) == pickle.dumps(empty)  # nothing to search: whole


def test_shard_boundaries_stay_put_when_an_entry_is_added() -> None:
    urls = [f"t/e{i:03}/index.html" for i in range(400)]
    before = search.shards_of([Listed(u, "k") for u in urls])
    added = sorted([*urls, "t/e150x/index.html"])
    after = search.shards_of([Listed(u, "k") for u in added])
    new = [s for s in after if s not in before]
    # the shard it joined, and at most the next one or two (until a boundary by URL), are new
    assert 1 <= len(new) <= 3 and Listed("t/e150x/index.html", "k") in new[0]
    assert after[-2:] == before[-2:] and after[0] == before[0]


def test_every_shard_holds_between_two_thirds_and_twice_shard_entries() -> None:
    """Cut by URLs alone, shards of 10,000 entries were 2 to 1,629 entries long."""
    urls = [f"t/e{i:05}/index.html" for i in range(3000)]
    sizes = [len(s) for s in search.shards_of([Listed(u, "k") for u in urls])]
    assert sum(sizes) == 3000 and max(sizes) == 2 * search.SHARD_ENTRIES  # 25 here: see small_shards
    assert min(sizes[:-1]) == 2 * search.SHARD_ENTRIES // 3  # the last holds what is left
    assert 3000 / len(sizes) > search.SHARD_ENTRIES  # most are cut by their URL


@needs_pagefind
def test_a_fed_index_is_the_index_of_all_records_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "SHARD_ENTRIES", 2)
    entries = [_entry(f"t/e{i}", f"walk {i} the tree with a stack") for i in (3, 1, 2, 5, 4, 6, 7)]
    feed = SearchFeed(SiteConfig(), None, [e.path for e in entries])
    for entry in entries:
        feed.add(entry)
    fed = feed.finish().result()
    at_once = build_search_index([listed(e, "T") for e in sorted(entries, key=lambda e: e.path)])
    assert fed.problem is None and fed.outputs == at_once.outputs
    paths = [o.path for o in fed.outputs]
    assert len(fed.keys) > 1 and any(p.startswith("pagefind/fragment/") for p in paths)
    later = [p for p in paths if p.startswith("pagefind/part-")]
    assert later and not any(p.endswith((".js", ".css", ".pagefind")) for p in later)  # no second copy of Pagefind


@needs_pagefind
def test_an_error_from_pagefind_is_raised() -> None:
    session = search.PagefindSession()
    try:
        session.add(Record("t/a/index.html", "A", "text"))
        session.index = 99  # no such index: Pagefind answers with an error
        session.add(Record("t/b/index.html", "B", "text"))
        with pytest.raises(RuntimeError):
            session.files()
    finally:
        session.close()


def test_an_abandoned_feed_stops_pagefind_and_indexes_nothing_more(sessions: list[_Session], ends: set[str]) -> None:
    ends.add("t/a")
    feed = SearchFeed(SiteConfig(), None, ["t/a", "t/b"])
    feed.add(_entry("t/a", "a"))
    _wait_for(lambda: len(sessions) == 1)
    feed.abandon()
    feed.add(_entry("t/b", "b"))
    assert sessions[0].closed and len(sessions) == 1


def test_the_text_of_a_write_up_leaves_out_the_headings_links_and_ends_each_heading() -> None:
    from site_builder.render.document import plain_text
    from site_builder.render.latex import render_latex
    from site_builder.render.markdown import render_markdown

    tex = render_latex("\\section{Idea}\nSort the $n$ boxes.\n", "x.tex")[0]
    md = render_markdown("## Idea\n\nSort the $n$ boxes.\n", "x.md")[0]
    asked = render_markdown("## Why not greedy?\n\nIt fails.\n", "x.md")[0]
    for document, text in (
        (tex, "1 Idea. Sort the n boxes."),
        (md, "Idea. Sort the n boxes."),
        (asked, "Why not greedy? It fails."),
    ):
        assert "#</a>" in document.html  # the page has the link
        record = Record("t/A-x/index.html", "T", plain_text(document.html, list(document.math)))
        assert search._content(record) == f"T. {text}"


def test_a_record_reads_as_sentences_with_its_heading_first() -> None:
    record = Record("cf/B-ferry/index.html", "Codeforces 2024 \u00b7 B. River Ferry", "greedy sorting\nCarry all cars")
    assert search._content(record) == "Codeforces 2024: B. River Ferry. greedy sorting. Carry all cars."


def test_a_record_has_a_summary_once() -> None:
    writeup = "Idea Sort the boxes by width. More."
    taken = replace(_entry("t/A-taken", writeup), summary_text="Sort the boxes by width.")
    given = replace(_entry("t/B-given", writeup), summary_html="Boxes in boxes.", summary_text="Boxes in boxes.")
    assert records.search_record(taken, "T").text == f"graphs\n{writeup}"  # taken from the write-up: in it already
    assert records.search_record(given, "T").text == f"graphs\nBoxes in boxes.\n{writeup}"


def test_a_record_keeps_the_write_up_apart_and_indexes_authors_sources_and_tag_names() -> None:
    entry = replace(
        _entry("t/A-x", "Count the towers.\fUse the Chinese remainder theorem."),
        tags=("chinese-remainder-theorem", "prefix-function", "dfs-and-similar"),
        source="Spring Cup 2024",
        credits=(("Author", ("Ada Lovelace",)), ("Tester", ("Alan Turing", "Ada Lovelace"))),
    )
    record = records.search_record(entry, "T")
    assert "Chinese remainder theorem" not in record.text and record.editorial == "Use the Chinese remainder theorem."
    for word in ("crt", "kmp", "knuth-morris-pratt", "depth-first search", "Spring Cup 2024", "Ada Lovelace"):
        assert word in record.text, word
    assert "Alan Turing" in record.text
    assert record.text.count("Ada Lovelace") == 1
    assert "Count the towers." in record.text
    # Pagefind gets the write-up last, and where it starts: a result matched only there says so
    content = search._content(record) + search._editorial(record)
    assert content[len(search._content(record)) + 1 :] == "Use the Chinese remainder theorem."


def test_a_tag_is_not_given_a_synonym_it_holds_already() -> None:
    assert records.tag_synonyms(("kmp",)) == "knuth-morris-pratt prefix function"
    assert records.tag_synonyms(("greedy", "bitmasks")) == ""  # "bit" is a word of its own, not a prefix
