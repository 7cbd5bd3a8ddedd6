"""Problem folders taken from the last load: only settled ones are remembered, and any change shows."""

from __future__ import annotations

import time

from conftest import ArchiveMaker

from site_builder.source.archive import load_archive
from site_builder.source.snapshot import SETTLED_NS, Snapshot


def test_a_folder_is_remembered_only_when_its_files_have_settled(make_archive: ArchiveMaker) -> None:
    archive = make_archive({"t/A-x/solution.md": "# X\n", "t/A-x/samples/1.in": "1\n"})
    folder = str(archive / "t/A-x")
    now = time.time_ns()
    # Written a moment ago: a second write within one clock tick could keep every stat the same.
    just_written = Snapshot(now - SETTLED_NS)
    load_archive(archive, "archive", {}, None, just_written)
    assert just_written.seen == {} and not just_written.changed
    # As if the build ran long after the last write: remembered, and taken as it was next time.
    settled = Snapshot(now + SETTLED_NS)
    [first], _ = load_archive(archive, "archive", {}, None, settled)
    assert list(settled.seen) == [folder] and settled.changed
    again = Snapshot(now + SETTLED_NS, settled.seen)
    [second], _ = load_archive(archive, "archive", {}, None, again)
    assert second is first and not again.changed
    # A changed file, an added one and a removed folder each show.
    (archive / "t/A-x/solution.md").write_text("# Y\n")
    [changed], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, settled.seen))
    text = changed.file("solution.md")
    assert changed is not first and text is not None and text.text == "# Y\n"
    (archive / "t/A-x/samples/1.ans").write_text("2\n")
    [added], _ = load_archive(archive, "archive", {}, None, Snapshot(now + SETTLED_NS, settled.seen))
    assert added.samples[0].answer == "2\n"
    gone = Snapshot(now + SETTLED_NS, {**settled.seen, str(archive / "t/B-gone"): settled.seen[folder]})
    load_archive(archive, "archive", {}, None, gone)
    assert gone.changed and str(archive / "t/B-gone") not in gone.seen
