"""Control groups for the sandbox's launchers: a cap on a run's processes and memory (root only).

Each launcher gets a group of its own (one per hierarchy on cgroup v1: ``pids`` and ``memory``;
one group on cgroup v2 with both controllers) and joins it once; every run it starts is born
inside. Where no group can be made (not root, a delegated hierarchy without the controllers), the
sandbox falls back to rlimits, and says so in the isolation level it reports.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "site-builder"
_NAMES = itertools.count()


@dataclass(frozen=True, slots=True)
class Group:
    """One launcher's group: a folder per hierarchy; ``version`` 1 or 2."""

    folders: tuple[Path, ...]
    version: int

    def limit(self, processes: int, memory: int) -> None:
        """At most ``processes`` tasks and ``memory`` bytes (no swap) for everything in the group."""
        for folder in self.folders:
            settings = {
                "pids.max": processes,
                "memory.max": memory,
                "memory.swap.max": 0,
                "memory.limit_in_bytes": memory,
            }
            for name, value in settings.items():
                if (folder / name).exists():
                    (folder / name).write_text(f"{value}\n")

    def remove(self) -> None:
        for folder in self.folders:
            _remove(folder)


@lru_cache(maxsize=1)
def hierarchy() -> tuple[int, tuple[Path, ...]] | None:
    """Where this process can make groups with a pids and a memory controller, or None."""
    if os.geteuid() != 0:
        return None
    found: tuple[int, tuple[Path, ...]] | None = None
    controllers = ROOT / "cgroup.controllers"
    if controllers.exists():  # cgroup v2 alone
        wanted = {"pids", "memory"}
        if wanted <= set(controllers.read_text().split()):
            with contextlib.suppress(OSError):
                (ROOT / "cgroup.subtree_control").write_text("+pids +memory\n")
            found = (2, (ROOT,))
    elif (ROOT / "pids" / "cgroup.procs").exists() and (ROOT / "memory" / "cgroup.procs").exists():
        found = (1, (ROOT / "pids", ROOT / "memory"))
    if found is None or not _can_make(found[1]):
        return None
    for base in found[1]:
        _remove_stale(base)
    return found


def describe() -> str:
    found = hierarchy()
    return f"cgroup v{found[0]} pids and memory" if found else "rlimits (no cgroup)"


def make_group(processes: int, memory: int) -> Group | None:
    """A new group for one launcher, with its limits; None where groups cannot be made."""
    found = hierarchy()
    if found is None:
        return None
    version, bases = found
    name = f"{PREFIX}-{os.getpid()}-{next(_NAMES)}"
    made: list[Path] = []
    try:
        for base in bases:
            (base / name).mkdir()
            made.append(base / name)
        group = Group(tuple(made), version)
        group.limit(processes, memory)
    except OSError:
        for folder in made:
            _remove(folder)
        return None
    return group


def _can_make(bases: tuple[Path, ...]) -> bool:
    for base in bases:
        probe = base / f"{PREFIX}-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError:
            return False
    return True


def _remove_stale(base: Path) -> None:
    """Remove the groups of builds that were killed before they could."""
    for stale in base.glob(f"{PREFIX}-*-*"):
        owner = stale.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            _remove(stale)


def _remove(group: Path) -> None:
    """Kill whatever is left in the group, then remove it (the kernel needs a moment after the kills)."""
    for _ in range(50):
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.01)
