"""The settings of a verification (``VerifyOptions``): the interpreter, the parallel jobs, the cache, the
build's limits and C++ standard."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from ..sandbox import runner as sandbox
from .compiler import CPP_STANDARD


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    interpreter: str = sys.executable
    jobs: int = 2
    rerun: bool = False
    cache_dir: Path = Path(".cache")
    time_limit: float = 10.0
    memory: int = 1024 * sandbox.MiB
    cpp_standard: str = CPP_STANDARD
    time_margin: tuple[float, float] = (2.0, 1.0)  # runs are stopped at max(limit * a, limit + b) s of CPU time
