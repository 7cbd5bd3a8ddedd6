"""The verdict cache: every verdict by its job's key, and whole entries as they were verified."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from ..model import SolverRun, Verdict
from ..store import JsonStore


@dataclass(frozen=True, slots=True)
class Recalled:
    """An entry's verification as the cache keeps it whole: its runs, the keys of their verdicts, and
    the folders of the programs compiled for it (a full build keeps those, and prunes the rest)."""

    runs: tuple[SolverRun, ...]
    keys: tuple[tuple[str, ...], ...]  # by run, the key of each verdict
    programs: tuple[str, ...]

    @property
    def jobs(self) -> tuple[str, ...]:
        return tuple(key for keys in self.keys for key in keys)


class ResultCache(JsonStore):
    """Verdicts by job key, in one JSON file; an unreadable file is discarded with a warning."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "verification cache")

    def verdict(self, key: str) -> Verdict | None:
        item = self.get(key)
        if not isinstance(item, dict):
            return None
        try:
            return Verdict(**item)
        except TypeError:
            return None

    def record(self, key: str, verdict: Verdict) -> None:
        self.put(key, asdict(verdict))

    def recall(self, key: str) -> Recalled | None:
        """An entry's verification, kept whole under ``key``, with every verdict it names still kept."""
        item = self.get(key)
        if not isinstance(item, dict):
            return None
        try:
            runs, keys = [], []
            for solver, language, source_hash, note, jobs in item["runs"]:
                verdicts = [self.verdict(job) for job in jobs]
                if any(v is None for v in verdicts):
                    return None  # pruned, or from an older layout: verify it job by job
                runs.append(SolverRun(solver, language, source_hash, tuple(v for v in verdicts if v), note))
                keys.append(tuple(jobs))
            return Recalled(tuple(runs), tuple(keys), tuple(item["programs"]))
        except (TypeError, ValueError, KeyError):
            return None

    def remember(self, key: str, done: Recalled) -> None:
        """Keep an entry's verification whole (its verdicts are kept by their own keys)."""
        runs = [
            [r.solver, r.language, r.source_hash, r.note, list(k)] for r, k in zip(done.runs, done.keys, strict=True)
        ]
        value = {"runs": runs, "programs": list(done.programs)}
        if self.get(key) != value:
            self.put(key, value)

    def keep_only(self, keys: set[str]) -> None:
        """Forget every verdict but those of ``keys`` (which all have one by now)."""
        if len(self.data) != len(keys):
            self.data = {key: value for key, value in self.data.items() if key in keys}
            self.dirty = True
