"""Whether a published site is current (freshness.py), part by part: the probe's key, when a
stamp vouches for the archive, the inputs' digest, and the fingerprints of the program and its tools."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import options_for

from site_builder import freshness
from site_builder.errors import Diagnostic
from site_builder.freshness import Probe, inputs_key, program_fingerprint, same_interpreter, tool_fingerprint
from site_builder.model import EntrySource, Metadata
from site_builder.render.math import MathRenderer
from site_builder.source.config import SiteConfig, make_options
from site_builder.source.snapshot import SETTLED_NS
from site_builder.source.stamp import Stamp
from site_builder.source.theme import Theme
from site_builder.store import PickleStore, write_json

NOW = 10**18
PROBE = Probe(NOW, Stamp("files", NOW - SETTLED_NS - 1), SiteConfig(), {"t/A": 5}, "program", "settings", Theme((), ()))


def test_the_probe_key_follows_the_archive_the_settings_and_the_git_dates() -> None:
    base = PROBE.key()
    changes = [
        dataclasses.replace(PROBE, stamp=Stamp("other files", PROBE.stamp.newest_ns)),
        dataclasses.replace(PROBE, settings="other settings"),
        dataclasses.replace(PROBE, git_dates={"t/A": 6}),
        dataclasses.replace(PROBE, git_dates={"t/A": 5, "t/B": 5}),
    ]
    assert len({base, *(probe.key() for probe in changes)}) == 5
    same = dataclasses.replace(PROBE, started_ns=NOW + 1, stamp=Stamp("files", 0), git_dates={"t/A": 5})
    assert same.key() == base, "the program and configuration are in the settings; times are not inputs"


def test_a_stamp_vouches_only_for_files_older_than_a_tick_of_the_clock() -> None:
    assert PROBE.settled()
    assert not dataclasses.replace(PROBE, stamp=Stamp("files", NOW - SETTLED_NS)).settled()
    assert not dataclasses.replace(PROBE, stamp=Stamp("files", NOW)).settled()


def source(path: str, digest: str) -> EntrySource:
    return EntrySource(path, "archive", "t", (), None, "x", None, Metadata(), (), (), digest)


def test_the_inputs_digest_follows_the_settings_the_problems_and_every_entry() -> None:
    sources = [source("t/A", "1"), source("t/B", "1")]
    problem = [Diagnostic("archive/t/C/problem.yaml", 1, "bad")]
    base = inputs_key("settings", [], sources)
    changed = [
        inputs_key("other settings", [], sources),
        inputs_key("settings", problem, sources),
        inputs_key("settings", [], [sources[0], source("t/B", "2")]),
        inputs_key("settings", [], sources[:1]),
    ]
    assert len({base, *changed}) == 5 and inputs_key("settings", [], list(sources)) == base


def test_one_interpreter_has_one_spelling(tmp_path: Path) -> None:
    real = tmp_path / "bin" / "python3.11"
    real.parent.mkdir()
    real.write_text("")
    (tmp_path / "bin" / "python3").symlink_to("python3.11")
    (tmp_path / "bin" / "python").symlink_to("python3")
    assert same_interpreter(str(tmp_path / "bin" / "python")) == str(real)
    assert same_interpreter(str(tmp_path / "bin" / "python3")) == str(real)
    elsewhere = tmp_path / "venv" / "bin" / "python"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.symlink_to(real)
    assert same_interpreter(str(elsewhere)) == str(tmp_path / "venv" / "bin" / "python3.11"), "its environment's"


def test_a_tool_changed_in_place_changes_the_tools_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "python"
    tool.write_text("one")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    base = tool_fingerprint(str(tool))
    assert base.endswith("|-|-") and base.startswith(f"{tool}:3:")
    os.utime(tool, ns=(1, 2))
    assert tool_fingerprint(str(tool)) != base
    tool.write_text("three")
    os.utime(tool, ns=(1, 2))
    assert tool_fingerprint(str(tool)) == f"{tool}:5:2|-|-"
    assert tool_fingerprint(str(tmp_path / "gone")) == f"{tmp_path / 'gone'}:?|-|-"
    monkeypatch.setattr(shutil, "which", lambda name: str(tool) if name == "node" else None)
    assert tool_fingerprint(str(tool)) == f"{tool}:5:2|-|{tool}:5:2"


def test_the_program_fingerprint_follows_the_themes_files_and_which_folder_has_them(tmp_path: Path) -> None:
    own, overrides = tmp_path / "templates", tmp_path / "overrides"
    (own / "partials").mkdir(parents=True)
    (own / "page.html").write_text("page")
    overrides.mkdir()
    base = program_fingerprint(Theme((overrides, own), ()))
    (own / "partials" / "foot.html").write_text("foot")
    with_foot = program_fingerprint(Theme((overrides, own), ()))
    assert with_foot != base
    (own / "partials" / "foot.html").write_text("other foot")
    assert program_fingerprint(Theme((overrides, own), ())) not in (base, with_foot)
    (own / "partials" / "foot.html").unlink()
    (overrides / "page.html").write_text("page")
    (own / "page.html").unlink()
    assert program_fingerprint(Theme((overrides, own), ())) != base, "the same file in the overrides is not the same"
    (overrides / "page.html").unlink()
    (own / "page.html").write_text("page")
    (own / "link.html").symlink_to(own / "page.html")
    assert program_fingerprint(Theme((overrides, own), ())) == base, "links are not followed"
    assert program_fingerprint(Theme((overrides, tmp_path / "none", own), ())) != base


def test_the_stamped_inputs_are_known_only_for_the_probe_that_took_them(tmp_path: Path) -> None:
    options = make_options(tmp_path, archive=tmp_path, cache=tmp_path / "cache")
    assert freshness.stamped_inputs(options, PROBE) is None
    write_json(options.cache / freshness.STAMPS, {"probe": PROBE.key(), "inputs": "digest"})
    assert freshness.stamped_inputs(options, PROBE) == "digest"
    assert freshness.stamped_inputs(options, dataclasses.replace(PROBE, settings="other")) is None
    write_json(options.cache / freshness.STAMPS, {"probe": PROBE.key(), "inputs": 5})
    assert freshness.stamped_inputs(options, PROBE) is None


def test_the_order_of_the_git_dates_is_not_an_input() -> None:
    one = dataclasses.replace(PROBE, git_dates={"t/A": 5, "t/B": 6})
    assert one.key() == dataclasses.replace(PROBE, git_dates={"t/B": 6, "t/A": 5}).key()


def test_g_plus_plus_is_fingerprinted_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "g++"
    tool.write_text("gxx")
    os.utime(tool, ns=(1, 2))
    monkeypatch.setattr(shutil, "which", lambda name: str(tool) if name == "g++" else None)
    assert tool_fingerprint(str(tool)) == f"{tool}:3:2|{tool}:3:2|-"


def test_an_interpreter_changed_in_place_changes_the_settings(tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text("one")
    options = dataclasses.replace(make_options(tmp_path, archive=tmp_path), interpreter=str(python))
    base = freshness.settings_key(options, SiteConfig(), "math", "program")
    os.utime(python, ns=(1, 2))
    assert freshness.settings_key(options, SiteConfig(), "math", "program") != base


def test_the_program_fingerprint_follows_this_programs_python_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "render").mkdir()
    (tmp_path / "render" / "math.py").write_text("one")
    monkeypatch.setattr(freshness, "__file__", str(tmp_path / "freshness.py"))
    base = program_fingerprint(Theme((), ()))
    (tmp_path / "render" / "notes.txt").write_text("not code")
    assert program_fingerprint(Theme((), ())) == base
    (tmp_path / "render" / "math.py").write_text("two")
    assert program_fingerprint(Theme((), ())) != base


def test_a_probe_holds_the_configuration_the_program_and_the_dates(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    (archive / "t" / "A-x").mkdir(parents=True)
    (archive / "t" / "A-x" / "solution.md").write_text("# X\n")
    options = make_options(tmp_path, archive=archive, out=archive / "site")
    options.out.mkdir()
    probe = freshness.probe_inputs(options)
    assert probe.git_dates == {} and probe.program == program_fingerprint(probe.theme)
    assert probe.settings == freshness.settings_key(
        options, probe.config, MathRenderer.cache_name(tmp_path), probe.program
    )
    (options.out / "page.html").write_text("the site, inside the archive")
    assert freshness.probe_inputs(options).key() == probe.key(), "the site's own folder is not an input"
    (archive / "site.yaml").write_text("title: Other\n")
    assert freshness.probe_inputs(options).settings != probe.settings


def test_a_full_read_keeps_its_memo_snapshot_and_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "archive"
    for name in ("A-x", "B-y"):
        (archive / "t" / name).mkdir(parents=True)
        (archive / "t" / name / "solution.md").write_text(f"# {name}\n")
        (archive / "t" / name / "problem.yaml").write_text(f"title: {name}\n")
    options = make_options(tmp_path, archive=archive, cache=tmp_path / "cache")
    monkeypatch.setattr(freshness, "SETTLED_NS", 3600 * 10**9)  # an hour for a tick: the files are recent
    probe = freshness.probe_inputs(options)
    loaded = freshness.load_inputs(options, probe)
    assert [s.path for s in loaded.sources] == ["t/A-x", "t/B-y"] and loaded.problems == []
    assert [s.meta.title for s in loaded.sources] == ["A-x", "B-y"]
    assert loaded.inputs == inputs_key(probe.settings, [], loaded.sources) and loaded.seconds >= 0
    assert (loaded.config, loaded.git_dates, loaded.program, loaded.theme) == (
        probe.config, probe.git_dates, probe.program, probe.theme
    )  # fmt: skip
    parsed = PickleStore(options.cache / "parsed")
    assert len(parsed.get(freshness.YAML_MEMO)) == 2
    assert parsed.get_buckets(freshness.SNAPSHOT, probe.program) is None, "folders written a moment ago are not kept"
    assert not (options.cache / freshness.STAMPS).exists(), "files written a moment ago: no stamp vouches for them"
    monkeypatch.setattr(freshness, "SETTLED_NS", 0)
    settled = freshness.probe_inputs(options)
    again = freshness.load_inputs(options, settled)
    assert again.inputs == loaded.inputs
    stamps = json.loads((options.cache / freshness.STAMPS).read_text())
    assert stamps == {"probe": settled.key(), "inputs": loaded.inputs}
    assert freshness.stamped_inputs(options, settled) == loaded.inputs
    snapshot = parsed.get_buckets(freshness.SNAPSHOT, settled.program)  # kept for this program only
    assert parsed.get_buckets(freshness.SNAPSHOT, "another program") is None
    assert snapshot is not None and sorted(snapshot) == [str(archive / "t" / "A-x"), str(archive / "t" / "B-y")]


def test_a_kept_build_says_how_long_it_took_and_a_read_one_hands_on_its_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder.build import build_site
    from site_builder.source.stamp import load_stamp

    archive = tmp_path / "archive"
    (archive / "t" / "A-x").mkdir(parents=True)
    writeup = archive / "t" / "A-x" / "solution.md"
    writeup.write_text("# X\n\nText.\n")
    options = options_for(archive, tmp_path / "site", verify=False)
    monkeypatch.setattr(freshness, "SETTLED_NS", 0)  # as if every file had been written long ago
    assert build_site(options).published
    stamps: list[Stamp] = []
    kept, loaded = freshness.kept_build(options, reading=stamps.append)  # the stamp vouches: nothing read
    assert loaded is None and kept is not None and stamps == []
    assert kept.out == options.out and list(kept.timings) == ["probe"]
    assert 0 < kept.timings["probe"] <= kept.seconds < 60
    os.utime(writeup)  # a new stamp, the same contents: read, and the site is still current
    kept, loaded = freshness.kept_build(options, reading=stamps.append)
    assert loaded is None and kept is not None and [s.digest for s in stamps] == [load_stamp(archive).digest]
    assert list(kept.timings) == ["probe", "load"] and 0 < kept.timings["load"] <= kept.seconds < 60
    writeup.write_text("# X\n\nOther text.\n")
    kept, loaded = freshness.kept_build(options, reading=stamps.append)
    assert kept is None and loaded is not None and len(stamps) == 2
    assert [s.path for s in loaded.sources] == ["t/A-x"] and 0 < loaded.seconds < 60


def test_messages_of_a_read_name_files_as_the_archive_is_shown(tmp_path: Path) -> None:
    folder = tmp_path / "archive" / "t" / "B-bad"
    folder.mkdir(parents=True)
    (folder / "solution.md").write_text("# B\n")
    (folder / "problem.yaml").write_text("title: [unclosed\n")
    loaded = freshness.load_inputs(make_options(tmp_path, archive=tmp_path / "archive", cache=tmp_path / "cache"))
    assert [str(d) for s in loaded.sources for d in s.diagnostics] == [
        "archive/t/B-bad/problem.yaml:2: invalid YAML: expected ',' or ']', but got '<stream end>'"
    ]
