"""Walking the archive and inferring what problem.yaml does not say."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.freshness import load_inputs
from site_builder.source.archive import load_archive
from site_builder.source.gitdates import parse_git_log
from site_builder.source.paths import infer_folder_name


def test_folder_names() -> None:
    assert infer_folder_name("X-quartets") == infer_folder_name("X-quartets")
    assert (infer_folder_name("X-quartets").label, infer_folder_name("X-quartets").title) == ("X", "Quartets")
    assert (infer_folder_name("G1-bridge-inspection").label, infer_folder_name("G1-bridge-inspection").title) == (
        "G1",
        "Bridge Inspection",
    )
    assert (infer_folder_name("two-sat").label, infer_folder_name("two-sat").title) == (None, "Two Sat")
    assert infer_folder_name("A-LCA-queries").title == "LCA Queries"


def test_a_folder_of_a_format_the_builder_does_not_read_is_one_warning_naming_it(make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "t/dj/domjudge-problem.ini": "name='Hello'\n",
            "t/dj/data/sample/1.in": "1\n",
            "t/dj/data/sample/1.ans": "1\n",
            "t/cf/statements/english/problem.tex": "x",
            "t/cf/tests/01": "1\n",
            "t/cf/solutions/main.cpp": "int main() {}\n",
            "t/it/sol/soluzione.cpp": "int main() {}\n",
            "t/it/gen/GEN": "# ST: 10\n1\n",
            "t/usaco/1.in": "1\n",
            "t/usaco/1.out": "1\n",
            "t/usaco/2.in": "2\n",
            "t/old/I.1": "1\n",
            "t/old/O.1": "1\n",
            "t/notes/1.in": "a lone input is not a problem\n",
            "t/A-ours/solution.py": "print(1)\n",
        }
    )
    entries, problems = load_archive(archive, "archive")
    assert [e.path for e in entries] == ["t/A-ours"]
    assert [(d.path, d.level, d.message.split(",")[0]) for d in sorted(problems)] == [
        ("archive/t/cf", "warning", "this folder looks like a Polygon (Codeforces) package without problem.xml"),
        (
            "archive/t/dj",
            "warning",
            "this folder looks like a DOMjudge problem (domjudge-problem.ini) without problem.yaml",
        ),
        ("archive/t/it", "warning", "this folder looks like a CMS task without task.yaml"),
        ("archive/t/old", "warning", "this folder looks like a USACO-style problem (I.1 with its .out"),
        ("archive/t/usaco", "warning", "this folder looks like a USACO-style problem (1.in with its .out"),
    ]
    assert all(d.message.endswith("a format the builder does not read; not published") for d in problems)


def library_checker_style(count: int) -> dict[str, str]:
    """``count`` folders in the Library Checker's own layout (info.toml, task.md, sol/, gen/), by topic."""
    files: dict[str, str] = {}
    for n in range(count):
        folder = f"{'graph' if n % 2 else 'strings'}/task_{n:02}"
        files |= {f"{folder}/info.toml": "timelimit = 2.0\n", f"{folder}/task.md": "Sum two numbers.\n"}
        files |= {f"{folder}/sol/correct.cpp": "int main() {}\n", f"{folder}/gen/random.cpp": "int main() {}\n"}
    return files


def test_hundreds_of_folders_of_an_unread_format_are_one_warning_naming_it(make_archive: ArchiveMaker) -> None:
    """A Library Checker problem has sol/ and gen/ but is no CMS task; a few are a warning each, hundreds one."""
    archive = make_archive(library_checker_style(3))
    _, problems = load_archive(archive, "archive")
    assert [(d.path, d.message.split(",")[0]) for d in sorted(problems)] == [
        (f"archive/{folder}", "this folder looks like a Library Checker problem (info.toml")
        for folder in ("graph/task_01", "strings/task_00", "strings/task_02")
    ]
    archive = make_archive(library_checker_style(300))
    _, problems = load_archive(archive, "archive")
    assert [(d.path, d.level) for d in problems] == [("archive", "warning")]
    assert problems[0].message.startswith("300 folders (graph/task_01, graph/task_03, graph/task_05 and 297 more)")
    assert problems[0].message.endswith(
        "look like a Library Checker problem (info.toml, task.md), a format the builder does not read; not published"
    )


def test_an_archive_without_any_problem_folder_is_a_warning_not_an_empty_site_in_silence(
    make_archive: ArchiveMaker,
) -> None:
    archive = make_archive({"python/dijkstra.py": "print(0)\n", "README.md": "A notebook of algorithms.\n"})
    entries, problems = load_archive(archive, "archive")
    assert entries == [] and [(d.path, d.level) for d in problems] == [("archive", "warning")]
    assert problems[0].message.startswith("no problem folder found here, so the site lists nothing")


def test_a_folder_of_unread_problems_and_no_archive_says_so(tmp_path: Path) -> None:
    from conftest import write_tree

    from site_builder.source.archive import missing_archive

    write_tree(tmp_path, library_checker_style(4) | {"README.md": "a library\n"})
    assert missing_archive(tmp_path / "archive") == (
        f"archive folder not found: {tmp_path / 'archive'}; {tmp_path} holds no problem folder the builder reads,"
        " but 4 folders that look like a Library Checker problem (info.toml, task.md), a format it does not read"
        " (set --archive, or run in the archive's folder; `site-builder init` starts a new one)"
    )


def test_walk_finds_problem_folders_at_any_depth(make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "icpc/2022/X-quartets/solution.tex": "x",
            "icpc/2022/X-quartets/samples/1.in": "1\n",
            "icpc/2022/X-quartets/samples/1.ans": "2\n",
            "icpc/2022/X-quartets/samples/2.in": "3\n",
            "cf/1843/round/B-two/problem.yaml": "title: Two\n",
            "cf/notes.txt": "not a problem",
            "misc/A-top/solution.py": "print(1)",
        }
    )
    entries, problems = load_archive(archive, "archive")
    assert problems == []
    by_path = {e.path: e for e in entries}
    assert sorted(by_path) == ["cf/1843/round/B-two", "icpc/2022/X-quartets", "misc/A-top"]
    quartets = by_path["icpc/2022/X-quartets"]
    assert (quartets.track, quartets.groups, quartets.folder_label, quartets.folder_year) == (
        "icpc",
        ("2022",),
        "X",
        2022,
    )
    assert [(s.name, s.answer) for s in quartets.samples] == [("1", "2\n"), ("2", None)]
    assert by_path["cf/1843/round/B-two"].meta.title == "Two"
    assert by_path["misc/A-top"].groups == ()


def test_sample_answer_without_input_is_reported(make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {
            "t/A-x/solution.py": "",
            "t/A-x/samples/3.ans": "1\n",
            "t/A-x/data/sample/a.in": "5\n",
            "t/A-x/data/sample/a.out": "6\n",
        }
    )
    (entry,), _ = load_archive(archive, "archive")
    assert [str(d) for d in entry.diagnostics] == [
        "archive/t/A-x/samples/3.ans: answer file without input: add samples/3.in"
    ]
    assert [(s.name, s.answer) for s in entry.samples] == [("a", "6\n")]


def test_a_program_left_in_a_sample_folder_is_a_warning_not_a_missing_input(make_archive: ArchiveMaker) -> None:
    """``a.out`` is what a compiler writes by default: binary, it is no answer waiting for an ``a.in``."""
    archive = make_archive({"t/A-x/solution.py": "", "t/A-x/data/sample/1.in": "5\n", "t/A-x/data/sample/1.ans": "5\n"})
    (archive / "t/A-x/data/sample/a.out").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00")
    (entry,), _ = load_archive(archive, "archive")
    assert [(str(d), d.level) for d in entry.diagnostics] == [
        (
            "archive/t/A-x/data/sample/a.out: warning: a binary file, not a sample answer (binary data (a NUL byte at"
            " offset 7), not text); not read as one",
            "warning",
        )
    ]
    assert [s.name for s in entry.samples] == ["1"]


def test_bad_yaml_is_recorded_on_the_entry(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/problem.yaml": "title: [oops\n", "t/A-x/solution.md": "hi"})
    (entry,), _ = load_archive(archive, "archive")
    assert [d.path for d in entry.diagnostics] == ["archive/t/A-x/problem.yaml"]
    assert entry.diagnostics[0].line == 2


def test_non_utf8_names_the_byte_offset(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/solution.tex": b"ok\nbad \xff here"})
    (entry,), _ = load_archive(archive, "archive")
    assert [str(d) for d in entry.diagnostics] == [
        "archive/t/A-x/solution.tex:2: not valid UTF-8 (byte offset 7); save the file as UTF-8"
    ]


def test_invalid_utf8_in_test_data_is_published_as_bytes_without_an_error(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    from conftest import options_for

    from site_builder.build import build_site

    files: dict[str, str | bytes] = {
        "site.yaml": "publish_data: all\n",
        "t/p/problem.yaml": "name: Bytes\nproblem_format_version: 2023-07-draft\n",
        "t/p/statement/problem.en.md": "Echo the bytes.\n",
        "t/p/data/sample/1.in": "ok\n",
        "t/p/data/sample/1.ans": "ok\n",
        "t/p/data/bad/05.in": b"\xff\xfe not text \x80\n",
        "t/p/submissions/accepted/echo.py": "print(input())\n",
    }
    archive = make_archive(files)
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert [str(d) for d in report.diagnostics if "UTF-8" in d.message] == []
    assert (tmp_path / "site" / "t" / "p" / "data" / "bad" / "05.in").read_bytes() == b"\xff\xfe not text \x80\n"


def test_crlf_and_bom_are_normalised(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/solution.md": b"\xef\xbb\xbfline one\r\nline two\r\n"})
    (entry,), _ = load_archive(archive, "archive")
    assert entry.files[0].text == "line one\nline two\n"


def test_backup_and_hidden_files_are_ignored(make_archive: ArchiveMaker) -> None:
    archive = make_archive(
        {"t/A-x/solution.md": "x", "t/A-x/solution.md~": "", "t/A-x/.solution.md.swp": "", "t/A-x/4913": ""}
    )
    (entry,), _ = load_archive(archive, "archive")
    assert [f.name for f in entry.files] == ["solution.md"]


def test_problem_folders_at_the_archive_s_top_are_the_problems_track(make_archive: ArchiveMaker) -> None:
    """A contest's repository holds its packages at its top (``altruisticamphibians/problem.yaml``): they are
    the entries of one track, ``problems``, at ``problems/<folder>/`` in the site, so that no folder's
    name takes one of the site's own (``static``, ``tags``); their paths are still the folders'."""
    archive = make_archive(
        {
            "frogs/problem.yaml": "name: Frogs\n",
            "frogs/problem_statement/problem.en.tex": "\\problemname{Frogs}\nJump.\n",
            "static/solution.md": "# Static\n\nA folder named as the site's static files.\n",
            "index.html/solution.md": "x",  # a page's own name: refused wherever it is
        }
    )
    entries, problems = load_archive(archive, "archive")
    assert [(e.path, e.track, e.slug, e.groups) for e in entries] == [
        ("frogs", "problems", "problems/frogs", ()),
        ("static", "problems", "problems/static", ()),
    ]
    assert [(d.path, d.message) for d in problems] == [
        (
            "archive/index.html",
            "the name 'index.html' is the site's own; rename the folder (nothing in it is published or run)",
        )
    ]


def test_a_package_s_own_repository_is_the_archive_s_one_entry(tmp_path: Path) -> None:
    """The repository of one package (problem.yaml at its top, as course and problem-design repositories
    keep theirs): the archive is that problem folder, an entry named by the folder, at the root track's URL;
    what the site and the build keep in it (site.yaml, the overrides, the output and cache) is none of
    its files, and nothing outside it is read."""
    from conftest import write_tree

    from site_builder.source.walk import BUILDER_MARKER, MARKER_TEXT, Skip, find_archive

    repo = tmp_path / "frog-jumps"
    write_tree(
        repo,
        {
            "problem.yaml": "name: Frog Jumps\n",
            "problem_statement/problem.en.tex": "\\problemname{Frog Jumps}\n\\input{../../outside}\\input{../defs}\n",
            "defs.tex": "Jump.\n",
            "data/sample/1.in": "1\n",
            "data/sample/1.ans": "1\n",
            "submissions/accepted/a.py": "print(input())\n",
            "README.md": "The package.\n",
            "site.yaml": "title: Frogs\n",
            "overrides/templates/base.html": "{{ x }}\n",
            f"site/{BUILDER_MARKER}": MARKER_TEXT,
            "site/index.html": "<p>an old site</p>\n",
            "public/index.html": "<p>the output, before its first build marked it</p>\n",
        },
    )
    (tmp_path / "outside.tex").write_text("Outside the repository.\n")
    assert find_archive(repo) == repo
    skip = Skip(frozenset({str(repo / "public")}), str(repo), (), frozenset({"site.yaml", "overrides"}))
    (entry,), problems = load_archive(repo, ".", skip=skip)
    assert problems == []
    assert (entry.path, entry.slug, entry.track, entry.groups) == ("", "problems/frog-jumps", "problems", ())
    assert entry.folder_title == "Frog Jumps" and entry.meta.title == "Frog Jumps"
    assert sorted(f.name for f in entry.files) == [
        "README.md",
        "data/sample/1.ans",
        "data/sample/1.in",
        "defs.tex",
        "problem.yaml",
        "problem_statement/problem.en.tex",
        "submissions/accepted/a.py",
    ]
    assert [s.name for s in entry.samples] == ["1"] and entry.shared == ()
    assert (entry.display_path(), entry.display_path("problem.yaml")) == (".", "./problem.yaml")
    assert load_archive(repo, "")[0][0].display_path("problem.yaml") == "problem.yaml"


def test_a_contest_repository_with_its_packages_at_the_top_builds_and_serves(tmp_path: Path) -> None:
    from conftest import write_tree

    from site_builder.build import build_site
    from site_builder.serve.updates import LiveBuilder
    from site_builder.source.config import make_options

    write_tree(
        tmp_path,
        {
            "frogs/problem.yaml": "name: Frogs\n",
            "frogs/problem_statement/problem.en.tex": "\\problemname{Frogs}\nJump.\n",
            "frogs/data/sample/1.in": "1\n",
            "frogs/data/sample/1.ans": "1\n",
            "frogs/submissions/accepted/a.py": "print(input())\n",
        },
    )
    options = make_options(tmp_path, jobs=1)  # the archive is the folder itself: it has no archive/
    assert options.archive == tmp_path
    report = build_site(options)
    assert (report.entries, report.tracks, [d.message for d in report.diagnostics]) == (1, 1, [])
    page = (tmp_path / "site/problems/frogs/index.html").read_text()
    assert "Jump." in page and "Accepted" in page
    assert (tmp_path / "site/problems/frogs/submissions/accepted/a.py").is_file()
    assert "frogs/" in (tmp_path / "site/problems/index.html").read_text()
    with LiveBuilder(make_options(tmp_path, jobs=1, verify=False)) as live:  # as make serve updates a save
        live.build_all()
        (tmp_path / "frogs/problem_statement/problem.en.tex").write_text("\\problemname{Frogs}\nLeap.\n")
        assert live.update_entries(["frogs"]).published and sorted(live.sources) == ["frogs"]
        assert "Leap." in (tmp_path / "site/problems/frogs/index.html").read_text()


def test_git_log_parsing_keeps_the_newest_date() -> None:
    log = "\x00200\n\na/x.tex\n\x00100\n\na/x.tex\nb/y.md\n"
    assert parse_git_log(log) == {"a/x.tex": 200, "b/y.md": 100}


def test_entry_date_comes_from_git_history(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    import subprocess

    archive = make_archive({"t/A-x/solution.md": "x"})
    env = {
        "GIT_AUTHOR_DATE": "2021-03-04T05:06:07Z",
        "GIT_COMMITTER_DATE": "2021-03-04T05:06:07Z",
        "PATH": "/usr/bin:/bin",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "HOME": str(tmp_path),
    }
    for cmd in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-q", "-m", "x"]):
        subprocess.run(cmd, cwd=archive, env=env, check=True)
    (entry,), _ = load_archive(archive, "archive")
    assert entry.updated == "2021-03-04"


def test_a_full_read_lists_each_folder_once_and_loads_what_a_fresh_listing_loads(
    make_archive: ArchiveMaker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = make_archive(
        {
            "icpc/2022/X-quartets/solution.tex": "x",
            "icpc/2022/X-quartets/samples/1.in": "1\n",
            "icpc/2022/X-quartets/samples/1.ans": "2\n",
            "icpc/2024/B-fares/problem.yaml": "name: Ferry Fares\n",
            "icpc/2024/B-fares/.timelimit": "2.5\n",
            "icpc/2024/B-fares/problem_statement/problem.tex": "Compute $n$.\n",
            "icpc/2024/B-fares/problem_statement/solution.tex": "Print it.\n",
            "icpc/2024/B-fares/data/sample/1.in": "1\n",
            "icpc/2024/B-fares/data/sample/1.ans": "1\n",
            "icpc/2024/B-fares/solution.py~": "an editor's backup\n",
            "cf/drafts/notes.txt": "not a problem",
            "cf/.git/objects/ab": "never listed",
        }
    )
    listed: list[str] = []
    scandir = os.scandir

    def counted(path: str) -> Iterator[os.DirEntry[str]]:
        if Path(path).is_relative_to(archive):
            listed.append(Path(path).relative_to(archive).as_posix())
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    options = options_for(archive, tmp_path / "site")
    loaded = load_inputs(options)
    monkeypatch.undo()
    assert sorted(listed) == sorted(set(listed))
    assert "cf/.git" not in listed and "cf/drafts" in listed
    assert loaded.sources == load_archive(archive, options.display(archive))[0]  # listed afresh, folder by folder
    assert [s.path for s in loaded.sources] == ["icpc/2022/X-quartets", "icpc/2024/B-fares"]
    assert loaded.sources[1].meta.time_limit == 2.5


def test_the_archive_is_root_archive_else_root_itself_when_it_holds_one(tmp_path: Path) -> None:
    from conftest import write_tree

    from site_builder.source.walk import find_archive

    assert find_archive(tmp_path) == tmp_path / "archive"  # nothing here: the default, to be reported missing
    write_tree(tmp_path, {"site/t/A-x/solution.md": "a build's copy", "site/.site-builder": "", "notes/x.txt": "x"})
    assert find_archive(tmp_path) == tmp_path / "archive"  # a builder's folder is no archive
    write_tree(tmp_path, {"icpc/2030/A-x/problem.yaml": "title: X\n"})
    assert find_archive(tmp_path) == tmp_path
    assert find_archive(tmp_path, frozenset({str(tmp_path / "icpc")})) == tmp_path / "archive"
    (tmp_path / "icpc/2030/A-x/problem.yaml").unlink()
    (tmp_path / "site.yaml").write_text("title: T\n")
    assert find_archive(tmp_path) == tmp_path
    (tmp_path / "archive").mkdir()
    assert find_archive(tmp_path) == tmp_path / "archive"


def test_the_builder_s_folders_are_neither_walked_nor_stamped(make_archive: ArchiveMaker) -> None:
    from site_builder.source.stamp import load_stamp
    from site_builder.source.walk import find_problem_folders

    archive = make_archive(
        {
            "t/A-x/solution.md": "x",
            "site/t/A-x/solution.md": "a published copy",
            "site/.site-builder": "",
            "out/t/A-x/solution.md": "the output of this build, not marked yet",
            "t/cache/.site-builder": "",
            "t/cache/render/problem.yaml": "",
        }
    )
    skip = frozenset({str(archive / "out")})
    assert [p.relative_to(archive).as_posix() for p in find_problem_folders(archive, skip=skip)] == ["t/A-x"]
    entries, problems = load_archive(archive, "archive", skip=skip)
    assert [e.path for e in entries] == ["t/A-x"] and problems == []
    before = load_stamp(archive, skip)
    for changed in ("site/t/A-x/solution.md", "out/t/A-x/solution.md", "t/cache/render/problem.yaml"):
        (archive / changed).write_text("changed")
    (archive / "site/new.html").write_text("new")
    assert load_stamp(archive, skip).digest == before.digest
    (archive / "t/A-x/solution.md").write_text("changed")
    assert load_stamp(archive, skip).digest != before.digest


def test_the_folders_site_yaml_excludes_are_neither_walked_nor_stamped(make_archive: ArchiveMaker) -> None:
    """A name excludes every folder of that name; a path (with a ``/``) only that one, from the archive's
    folder; the shell's wildcards in either."""
    from site_builder.source.stamp import load_stamp
    from site_builder.source.walk import Skip, is_problem_dir

    archive = make_archive(
        {
            "site.yaml": "exclude: [template, /icpc/drafts, '*/20?9/old*']\n",
            "icpc/A-kept/solution.md": "x",
            "icpc/template/problem.yaml": "title: A skeleton\n",  # by name, in a track
            "cf/2019/template/A-x/solution.md": "x",  # by name, deeper
            "icpc/drafts/A-x/solution.md": "x",  # by path
            "cf/drafts/A-kept/solution.md": "x",  # the same name elsewhere: kept
            "cf/2019/old-2/A-x/solution.md": "x",  # by path, with wildcards
            "cf/2019/older/A-x/solution.md": "x",
            "cf/2018/old/A-kept/solution.md": "x",
        }
    )
    options = options_for(archive, archive.parent / "site")
    loaded = load_inputs(options)
    assert [s.path for s in loaded.sources] == ["cf/2018/old/A-kept", "cf/drafts/A-kept", "icpc/A-kept"]
    assert loaded.problems == []
    skip = Skip(options.own_folders, str(archive), ("template", "/icpc/drafts", "*/20?9/old*"))
    assert not is_problem_dir(archive / "icpc/template", skip) and is_problem_dir(archive / "icpc/template")
    assert not is_problem_dir(archive / "cf/2019/older/A-x", skip) and is_problem_dir(
        archive / "cf/drafts/A-kept", skip
    )
    before = load_stamp(archive, skip)
    for changed in ("icpc/template/problem.yaml", "icpc/drafts/A-x/solution.md", "cf/2019/old-2/A-x/solution.md"):
        (archive / changed).write_text("changed")
    assert load_stamp(archive, skip).digest == before.digest
    (archive / "cf/drafts/A-kept/solution.md").write_text("changed")
    assert load_stamp(archive, skip).digest != before.digest
