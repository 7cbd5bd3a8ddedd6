"""What pages show readers: files grouped at the end, messages without the builder's folders, track names."""

from __future__ import annotations

import gc
import re
from pathlib import Path

from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.errors import Diagnostic
from site_builder.model import Entry
from site_builder.publish.catalog import track_title
from site_builder.publish.pages import file_groups, for_readers
from site_builder.source.config import SiteConfig


def test_files_are_grouped_by_what_they_are_for() -> None:
    files = (
        "problem.yaml",
        "statement/problem.en.tex",
        "data/sample/1.in",
        "data/secret/2.in",
        "submissions/accepted/a.py",
        "output_validator/v.cpp",
        "input_validators/iv.py",
        "generators/gen.py",
        "include/default/h.h",
        "notes/todo.txt",
    )
    assert file_groups(files) == [
        ("Problem files", ["problem.yaml"]),
        ("Statement and write-up", ["statement/problem.en.tex"]),
        ("Test data", ["data/sample/1.in", "data/secret/2.in"]),
        ("Submissions", ["submissions/accepted/a.py"]),
        ("Validators", ["output_validator/v.cpp", "input_validators/iv.py"]),
        ("Generators", ["generators/gen.py"]),
        ("Included with submissions", ["include/default/h.h"]),
        ("Other files", ["notes/todo.txt"]),
    ]


def test_messages_name_archive_paths_never_the_builders_folders() -> None:
    entry = Entry.__new__(Entry)
    object.__setattr__(entry, "path", "mz/darkalley")
    inside = Diagnostic("/tmp/build-7/archive/mz/darkalley/statement/problem.en.tex", 4, "oops", "warning")
    whole = Diagnostic("/home/ci/archive/mz/darkalley", 0, "lacks a write-up", "warning")
    assert for_readers(inside, entry) == "mz/darkalley/statement/problem.en.tex:4: warning: oops"
    assert for_readers(whole, entry) == "mz/darkalley: warning: lacks a write-up"


def test_track_names_from_folders_read_as_contests_are_named() -> None:
    config = SiteConfig()
    names = ("icpc", "ioi-2024", "classics", "codeforces-round", "nwerc_2023", "bapc-preliminaries", "abc-300")
    assert [track_title(config, n) for n in names] == [
        "ICPC",
        "IOI 2024",
        "Classics",
        "Codeforces Round",
        "NWERC 2023",
        "BAPC Preliminaries",
        "ABC 300",
    ]
    # Short words are words unless they have no vowel: topics and groups named as an olympiad's training
    # sets name them do not shout.
    names = ("sort", "map", "for-loop", "if_then_else", "num-theo", "prefix-sum", "dp", "bfs-dfs", "kth", "wf-2024")
    assert [track_title(config, n) for n in names] == [
        "Sort",
        "Map",
        "For Loop",
        "If Then Else",
        "Num Theo",
        "Prefix Sum",
        "DP",
        "BFS DFS",
        "KTH",
        "WF 2024",
    ]


def test_no_page_names_the_folder_the_archive_was_built_from(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "site.yaml": "repo_url: https://example.org/repo\n",
            "t/A-x/solution.md": "# X\n\nText with an unclosed $ sign.\n",
            "t/A-x/solution.py": "print(1)\n",
            "t/B-y/solution.tex": "Fine.\n\\textbf{never closed\n",
        }
    )
    out = tmp_path / "site"
    report = build_site(options_for(archive, out, verify=False))
    assert report.diagnostics, "the fixture has a warning to show"
    for page in out.rglob("*.html"):
        assert str(tmp_path) not in page.read_text("utf-8"), page
    broken = (out / "t/B-y/index.html").read_text()
    assert 'class="render-error"' in broken and "<pre>t/B-y/solution.tex:2: " in broken
    # Edit links of an archive outside the project: from the archive's folder, as in its own repository.
    assert (
        'href="https://example.org/repo/edit/main/archive/t/A-x/solution.py"' in (out / "t/A-x/index.html").read_text()
    )


def test_math_reads_as_text_where_mathml_cannot_go() -> None:
    from site_builder.render.document import tex_as_text

    cases = {
        "n \\le 2 \\cdot 10^5": "n \u2264 2 \u00b7 10\u2075",
        "10^9 \\times 10^9": "10\u2079 \u00d7 10\u2079",
        "\\mathrm{low}(v) = \\min\\bigl(a, b\\bigr)": "low(v) = min(a, b)",
        "\\frac{a}{b} + \\frac{n(n+1)}{2}": "a/b + (n(n+1))/2",
        "\\sum_{i=1}^{n} a_i": "\u2211_(i=1)\u207f a_i",
        "O(n \\log n)": "O(n log n)",
        "x^{2k}": "x^(2k)",
    }
    assert {tex: tex_as_text(tex) for tex in cases} == cases


def test_inline_math_takes_the_punctuation_after_it_and_a_bracket_that_starts_a_word() -> None:
    from site_builder.render.document import fill_math

    math = ["<math><mi>a</mi><mo>+</mo><mi>b</mi></math>", '<math display="block"><mi>c</mi></math>']
    inner = "<mi>a</mi><mo>+</mo><mi>b</mi>"
    slot, block = '<math-slot n="0"></math-slot>', '<math-slot n="1"></math-slot>'
    cases = {
        f"see ({slot}). Then": f"see <math><mrow><mtext>(</mtext>{inner}<mtext>).</mtext></mrow></math> Then",
        f"<p>[{slot}]</p>": f"<p><math><mrow><mtext>[</mtext>{inner}<mtext>]</mtext></mrow></math></p>",
        f"f({slot})": f"f(<math><mrow>{inner}<mtext>)</mtext></mrow></math>",  # after a letter: stays
        f"({slot})": f"(<math><mrow>{inner}<mtext>)</mtext></mrow></math>",  # nothing before it: stays
        f"{slot}, (\u2003({slot}": f"<math><mrow>{inner}<mtext>,</mtext></mrow></math> (\u2003"
        f"<math><mrow><mtext>(</mtext>{inner}</mrow></math>",
        f"x ({block}).": 'x (<math display="block"><mi>c</mi></math>).',
        "no math (here).": "no math (here).",
    }
    assert {html: fill_math(html, math) for html in cases} == cases


def test_markdown_contents_show_headings_as_rendered_not_as_source() -> None:
    from site_builder.render.markdown import render_markdown

    document, _ = render_markdown("# T\n\n## Compress the $y$-coordinates\n\nText.\n", "x.md")
    assert document.toc[0].html == 'Compress the <math-slot n="0"></math-slot>-coordinates'


def test_a_plain_text_statement_reads_as_paragraphs_and_keeps_laid_out_blocks() -> None:
    from site_builder.render.document import render_plain_text

    text = (
        "A town has n houses along one straight road that runs from the west end of the town to the\n"
        "east end, and every house has a num-\nber painted on its door.\n\n"
        "Input\nThe first line holds an integer n (1 <= n <= 100000), the number of houses in the town,\n"
        "then a line with n integers.\n\n"
        "Sample Input    Sample Output\n3               6\n"
    )
    assert render_plain_text(text).split("\n") == [
        "<p>A town has n houses along one straight road that runs from the west end of the town to the east end,"
        " and every house has a number painted on its door.</p>",
        '<p class="text-heading"><strong>Input</strong></p>',
        "<p>The first line holds an integer n (1 &lt;= n &lt;= 100000), the number of houses in the town, then a"
        " line with n integers.</p>",
        '<pre class="statement-text">Sample Input    Sample Output',
        "3               6</pre>",
    ]


def test_link_previews_canonical_addresses_and_the_footer_come_from_site_yaml(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    files: dict[str, str | bytes] = {
        "site.yaml": (
            "title: Lakeside Archive\nbase_url: https://archive.example.org/lake/\nfooter: Statements by the juries.\n"
        ),
        "t/A-x/solution.md": "# Crossing\n\nThe bridge has $n \\le 10^5$ planks.\n",
        "t/A-x/solution.py": "print(1)\n",
    }
    out = tmp_path / "site"
    build_site(options_for(make_archive(files), out, verify=False))
    page = (out / "t" / "A-x" / "index.html").read_text("utf-8")
    assert '<link rel="canonical" href="https://archive.example.org/lake/t/A-x/">' in page
    assert '<meta property="og:title" content="T · A. Crossing · Lakeside Archive">' in page
    assert '<meta property="og:description" content="The bridge has n \u2264 10\u2075 planks.">' in page
    assert "<p>Lakeside Archive &middot; Statements by the juries.</p>" in page


def test_a_tag_page_names_each_entrys_contest(built: Path) -> None:
    page = (built / "tags" / "graphs" / "index.html").read_text("utf-8")
    assert page.count('<span class="entry-contest">') >= 2
    assert '<span class="entry-contest">Archive Regional 2024</span>' in page


def test_the_atom_feed_lists_the_newest_entries_with_working_links(built: Path) -> None:
    import xml.etree.ElementTree as ElementTree

    atom = "{http://www.w3.org/2005/Atom}"
    feed = ElementTree.parse(built / "feed.xml").getroot()
    entries = feed.findall(f"{atom}entry")
    assert 0 < len(entries) <= 50
    dates = [e.findtext(f"{atom}updated") or "" for e in entries]
    assert dates == sorted(dates, reverse=True) and feed.findtext(f"{atom}updated") == dates[0]
    ids = [e.findtext(f"{atom}id") for e in entries]
    assert len(set(ids)) == len(ids)
    base = "https://archive.example.org/"  # the shipped archive's base_url
    for entry in entries:
        link = entry.find(f"{atom}link")
        assert link is not None and link.get("href", "").startswith(base)
        assert (built / link.get("href", "")[len(base) :]).is_file()
    home = (built / "index.html").read_text("utf-8")
    assert '<link rel="alternate" type="application/atom+xml"' in home and 'href="feed.xml"' in home


def test_edit_links_of_an_archive_at_its_repository_s_top_name_its_folders_from_there(tmp_path: Path) -> None:
    from conftest import write_tree

    from site_builder.source.config import make_options

    repo = tmp_path / "repo"
    write_tree(repo, {"site.yaml": "repo_url: https://example.org/repo\n", "t/A-x/solution.py": "print(1)\n"})
    options = make_options(repo, jobs=1, verify=False)
    assert options.archive == repo.resolve()
    build_site(options)
    assert 'href="https://example.org/repo/edit/main/t/A-x/solution.py"' in (repo / "site/t/A-x/index.html").read_text()


def test_an_imported_collection_names_its_contests_and_shows_no_empty_column(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """Packages in round folders, with a ``source`` or none, no labels, tags or ratings: titles and
    headings name the contest, the table has a source column and no empty one, and no Tags link."""
    package = "name: {}\n"
    archive = make_archive(
        {
            "icpc/round-102/chairs/problem.yaml": package.format("Chair Dance") + "source: Spring Regional 2023\n",
            "icpc/round-102/chairs/problem_statement/problem.en.md": "Dance.\n",
            "icpc/round-102/tiles/problem.yaml": package.format("Tiles") + "source: Spring Regional 2023\n",
            "icpc/round-102/tiles/problem_statement/problem.en.md": "Tile.\n",
            "icpc/round-103/walk/problem.yaml": package.format("Walk"),
            "icpc/round-103/walk/problem_statement/problem.en.md": "Walk.\n",
        }
    )
    out = tmp_path / "site"
    build_site(options_for(archive, out, verify=False))
    track = (out / "icpc/index.html").read_text()
    headers = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', track)
    assert "Source" in headers and not {"#", "Tags", "Rating"} & set(headers)
    assert set(re.findall(r'<h2 id="group-\d+">([^<]*)</h2>', track)) == {"Spring Regional 2023", "Round 103"}
    assert 'data-filter="tag" hidden' in track and 'type="hidden" data-filter="min"' in track
    assert 'href="../tags/index.html"' not in track  # no tags anywhere: no Tags page in the navigation
    chairs = (out / "icpc/round-102/chairs/index.html").read_text()
    walk = (out / "icpc/round-103/walk/index.html").read_text()
    assert "<title>Spring Regional 2023 \u00b7 Chair Dance \u00b7" in chairs
    assert "<title>ICPC Round 103 \u00b7 Walk \u00b7" in walk and "<li>Round 103</li>" in walk


def test_tag_counts_read_as_counts_and_the_footer_claims_no_more_than_was_done(built: Path) -> None:
    tags = (built / "tags/index.html").read_text()
    assert re.search(
        r'<span class="count"><span class="visually-hidden">, </span>\d+<span class="visually-hidden"> entr', tags
    )
    footer = (built / "index.html").read_text().split('<footer class="site-footer">')[1]
    assert "Every solution" not in footer and "where they can be" in footer  # not every solution runs


def test_a_contest_goes_by_the_short_name_its_source_gives() -> None:
    from dataclasses import replace

    from test_search import _entry

    from site_builder.publish.pages import contest

    entry = _entry("icpc/round-102/x", "")
    assert contest("ICPC", replace(entry, groups=("round-102",))) == "ICPC Round 102"
    assert contest("ICPC", replace(entry, groups=("2024",), year=2024)) == "ICPC 2024"
    named = replace(entry, source="Northwestern Europe Regional Contest (NWERC) 2022")
    assert contest("ICPC", named) == "NWERC 2022"
    assert contest("ICPC", replace(entry, source="Spring Cup (online)")) == "Spring Cup (online)"


def test_judge_url_links_each_problem_to_its_page_on_a_judge(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """``judge_url`` in site.yaml: the info box links each entry to the judge, its folder (or path) escaped."""
    import pytest

    from site_builder.errors import ConfigError

    files: dict[str, str | bytes] = {
        "site.yaml": "judge_url: https://open.kattis.com/problems/{folder}?from={path}\n",
        "icpc/2024/A-chair-dance/solution.md": "# Chair dance\n\nText.\n",
        "icpc/2024/A-chair-dance/solution.py": "print(1)\n",
    }
    out = tmp_path / "site"
    build_site(options_for(make_archive(files), out, verify=False))
    page = (out / "icpc/2024/A-chair-dance/index.html").read_text()
    link = 'href="https://open.kattis.com/problems/A-chair-dance?from=icpc/2024/A-chair-dance" rel="external"'
    assert f"{link}>Submit on open.kattis.com</a>" in page
    for bad, why in [
        ("https://open.kattis.com/problems/", "must name the problem with {folder} or {path}"),
        ("javascript:alert(1)//{folder}", "must be an http or https URL with a host"),
    ]:
        archive = make_archive({**files, "site.yaml": f"judge_url: '{bad}'\n"})
        with pytest.raises(ConfigError, match=re.escape(why)):
            build_site(options_for(archive, tmp_path / "other", verify=False))


def test_an_entrys_whole_values_are_let_go_once_the_next_entrys_pages_begin() -> None:
    """Jinja leaves a page whose template defines a macro (entry.html does) in a reference cycle with
    its values; the whole entry of each page must not wait for a collection that the builder's
    threshold makes once in thousands of pages (it held 90 MB more at the end of a cold build)."""
    from dataclasses import replace

    from conftest import ROOT, an_entry

    from site_builder.publish.catalog import link_site
    from site_builder.publish.pages import PageRenderer

    renderer = PageRenderer([(ROOT / "templates", "templates")])
    site, _ = link_site(SiteConfig(), [an_entry(f"t/{name}") for name in "abc"], "archive")
    plan = renderer.plan(site, lambda entry: replace(entry, title=f"whole {entry.path}"))
    threshold = gc.get_threshold()
    gc.collect()
    gc.set_threshold(50_000, 20, 10)  # the builder's (``cli.main``): with Python's own, cycles go soon anyway
    try:
        for name in "abc":
            plan[f"t/{name}/index.html"]()
        alive = {o.title for o in gc.get_objects() if type(o) is Entry and o.title.startswith("whole ")}
    finally:
        gc.set_threshold(*threshold)  # (which may collect at once)
    assert alive == {"whole t/c"}
