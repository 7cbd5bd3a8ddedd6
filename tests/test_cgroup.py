"""The launchers' control groups (sandbox/cgroup.py): their limits, what removing one ends, and which
groups left by ended builds are removed. The groups exist as root only; as another user there are none."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from site_builder.sandbox import cgroup

ROOT = Path(__file__).resolve().parent.parent
MiB = 1 << 20


@pytest.fixture(autouse=True)
def _found_removing_nothing() -> Iterator[None]:
    """Where groups are made is found once per process, and the groups of ended builds there removed then:
    here each test finds it afresh, removing nothing, so that the tests below remove only groups they made, in
    a group of their own (on a shared machine, a mistake in the removal could otherwise end other builds' runs)."""
    cgroup.hierarchy.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cgroup, "_remove_stale", lambda base: None)
        cgroup.hierarchy()
    yield
    cgroup.hierarchy.cache_clear()


@pytest.fixture
def group() -> Iterator[cgroup.Group]:
    made = cgroup.make_group(7, 64 * MiB)
    if made is None:
        assert os.geteuid() != 0 or cgroup.hierarchy() is None
        assert cgroup.describe() == "rlimits (no cgroup)"
        pytest.skip("no control group can be made here (not root, or no pids and memory controllers)")
    try:
        yield made
    finally:
        made.remove()


def _values(group: cgroup.Group, *names: str) -> list[int]:
    return [int((f / n).read_text()) for f in group.folders for n in names if (f / n).exists()]


def _no_process() -> int:
    """A process id no process can have: above the kernel's largest."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def test_a_group_holds_its_limits_and_a_new_limit_replaces_them(group: cgroup.Group) -> None:
    assert cgroup.describe() == f"cgroup v{group.version} pids and memory"
    assert group.version == (2 if (cgroup.ROOT / "cgroup.controllers").exists() else 1)
    assert len(group.folders) == (2 if group.version == 1 else 1)  # v1: one in the pids, one in the memory hierarchy
    assert all(f.is_dir() and cgroup.ROOT in (f.parent, f.parent.parent) for f in group.folders)
    assert _values(group, "pids.max") == [7]
    assert _values(group, "memory.max", "memory.limit_in_bytes") == [64 * MiB]
    assert _values(group, "memory.swap.max") in ([], [0])  # cgroup v2: no swap either
    group.limit(3, 32 * MiB)
    assert _values(group, "pids.max") == [3]
    assert _values(group, "memory.max", "memory.limit_in_bytes") == [32 * MiB]


def test_each_group_is_new_and_named_for_its_process(group: cgroup.Group) -> None:
    other = cgroup.make_group(7, 64 * MiB)
    assert other is not None
    try:
        assert {f.parent for f in other.folders} == {f.parent for f in group.folders}
        assert not set(other.folders) & set(group.folders)
        for folder in (*group.folders, *other.folders):
            assert folder.name.startswith(f"site-builder-{os.getpid()}-")
    finally:
        other.remove()
    assert not any(f.exists() for f in other.folders) and all(f.is_dir() for f in group.folders)


def test_removing_a_group_kills_what_is_in_it(group: cgroup.Group) -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for folder in group.folders:
            (folder / "cgroup.procs").write_text(f"{sleeper.pid}\n")
        group.remove()
        assert sleeper.wait(timeout=10) == -9
        assert not any(f.exists() for f in group.folders)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_groups_of_ended_builds_are_removed_with_what_they_left(
    group: cgroup.Group, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build killed before it could remove its groups leaves them, and a process in them: the next
    build's start removes them, and spares the groups of builds still running (this test's own). The
    builds here make their groups inside this test's group, so that nothing else is touched."""
    code = textwrap.dedent(
        """
        import subprocess, sys
        from pathlib import Path
        from site_builder.sandbox import cgroup
        inside = (int(sys.argv[1]), tuple(Path(p) for p in sys.argv[2:]))
        cgroup.hierarchy = lambda: inside
        made = cgroup.make_group(7, 64 << 20)
        sleeper = subprocess.Popen(["sleep", "60"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for folder in made.folders:
            (folder / "cgroup.procs").write_text(f"{sleeper.pid}\\n")
        print(sleeper.pid, *made.folders)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    argv = [sys.executable, "-c", code, str(group.version), *map(str, group.folders)]
    builds = [subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, check=True) for _ in range(2)]
    pids = [int(b.stdout.split()[0]) for b in builds]
    left = [Path(f) for b in builds for f in b.stdout.split()[1:]]
    assert len(left) == 2 * len(group.folders) and all(f.is_dir() for f in left)
    monkeypatch.setattr(cgroup, "hierarchy", lambda: (group.version, group.folders))
    live = cgroup.make_group(7, 64 << 20)  # this build's, still running, beside them
    assert live is not None
    try:
        for folder in group.folders:
            cgroup._remove_stale(folder)
        assert not any(f.exists() for f in left)
        for pid in pids:
            assert not Path(f"/proc/{pid}").exists() or _state(pid) == "Z"
        assert all(f.is_dir() and f.parent in group.folders for f in live.folders)
    finally:
        live.remove()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_only_groups_named_for_an_ended_process_are_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Judged by name alone, in a folder of any kind (no control group is touched)."""
    dead = _no_process()
    names = [f"site-builder-{dead}-0", f"site-builder-{dead}-12", f"site-builder-{os.getpid()}-0"]
    names += [f"site-builder-probe-{dead}", f"other-builder-{dead}-0", f"site-builder-{dead}"]
    for name in names:
        (tmp_path / name).mkdir()
    removed: list[str] = []
    monkeypatch.setattr(cgroup, "_remove", lambda folder: removed.append(folder.name))
    cgroup._remove_stale(tmp_path)
    assert sorted(removed) == [f"site-builder-{dead}-0", f"site-builder-{dead}-12"]


@pytest.mark.skipif(os.geteuid() != 0, reason="groups are looked for as root only")
def test_groups_are_made_where_both_controllers_are_and_a_group_can_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On hierarchies laid out in a folder: cgroup v1 (a hierarchy per controller), v2 (one, naming its
    controllers), and each where a group cannot be made there or a controller is missing."""

    def found(layout: dict[str, str]) -> tuple[int, tuple[Path, ...]] | None:
        root = tmp_path / f"layout-{len(list(tmp_path.iterdir()))}"
        for name, text in layout.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        monkeypatch.setattr(cgroup, "ROOT", root)
        cgroup.hierarchy.cache_clear()
        return cgroup.hierarchy()

    v1 = {"pids/cgroup.procs": "", "memory/cgroup.procs": ""}
    assert found(v1) == (1, (cgroup.ROOT / "pids", cgroup.ROOT / "memory"))
    assert cgroup.describe() == "cgroup v1 pids and memory"
    assert found({"pids/cgroup.procs": "", "cpu/cgroup.procs": ""}) is None
    blocked = f"{cgroup.PREFIX}-probe-{os.getpid()}"  # a file where the probe's group would be made
    assert found({**v1, f"memory/{blocked}": ""}) is None
    assert cgroup.describe() == "rlimits (no cgroup)"
    assert found({**v1, f"pids/{blocked}": ""}) is None
    assert found({"cgroup.controllers": "cpu io memory pids\n"}) == (2, (cgroup.ROOT,))
    assert (cgroup.ROOT / "cgroup.subtree_control").read_text() == "+pids +memory\n"
    assert found({"cgroup.controllers": "cpu io memory\n"}) is None


def test_removing_a_group_whose_process_has_ended_is_no_error(tmp_path: Path) -> None:
    """A process listed in a group may end before it is killed (here a folder stands for the group, listing a
    process id no process has): removing the group goes on, and gives up on a folder it cannot remove."""
    group = tmp_path / "group"
    group.mkdir()
    (group / "cgroup.procs").write_text(f"{_no_process()}\n")
    cgroup._remove(group)
    assert group.is_dir()  # a folder, unlike a group, cannot be removed while it holds a file
    cgroup._remove(tmp_path / "gone")  # a group already removed


def test_a_limit_is_written_to_the_files_of_each_version_the_group_has(tmp_path: Path) -> None:
    """A folder stands for a group of cgroup v2 (``memory.max``, and no swap) and one of v1
    (``memory.limit_in_bytes``): each file a group has holds its limit, and no other file is made."""
    v2, v1 = tmp_path / "v2", tmp_path / "v1"
    for folder, names in ((v2, ("pids.max", "memory.max", "memory.swap.max")), (v1, ("memory.limit_in_bytes",))):
        folder.mkdir()
        for name in names:
            (folder / name).write_text("max\n")
    cgroup.Group((v2, v1), 2).limit(3, 32 * MiB)
    assert {f"{p.parent.name}/{p.name}": p.read_text() for p in tmp_path.glob("*/*")} == {
        "v2/pids.max": "3\n",
        "v2/memory.max": f"{32 * MiB}\n",
        "v2/memory.swap.max": "0\n",
        "v1/memory.limit_in_bytes": f"{32 * MiB}\n",
    }


def test_a_group_made_in_part_is_removed(group: cgroup.Group, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the group cannot be made in every hierarchy (the second is missing here), what was made of it is
    removed, and there is no group (inside this test's own group, so nothing else is touched)."""
    base = group.folders[0]
    monkeypatch.setattr(cgroup, "hierarchy", lambda: (1, (base, tmp_path / "missing")))
    try:
        assert cgroup.make_group(7, 64 * MiB) is None
        assert not [f for f in base.iterdir() if f.is_dir()]
    finally:
        for left in [f for f in base.iterdir() if f.is_dir()]:
            left.rmdir()
