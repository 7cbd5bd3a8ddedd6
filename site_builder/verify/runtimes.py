"""The interpreters runs use: how a run starts Python, what the sandbox shows it, and versions."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from ..sandbox import isolation
from ..sandbox import runner as sandbox
from ..sandbox.runner import Toolchain, interpreter_folders

VENV = "/opt/python"  # where a run's Python finds itself: a virtual environment with no packages


def python_runtime(interpreter: str) -> tuple[str, Toolchain]:
    """How a run starts ``interpreter``, and what the sandbox shows it: the folders outside ``/usr``
    it needs (its prefix, and a virtual environment's base), and a virtual environment of its own
    made in the sandbox, so that it starts as a judge's Python does, without the packages and
    ``.pth`` files of the build machine's site-packages. Without isolation, its real path."""
    return _python_runtime(interpreter, sandbox.isolated())


@lru_cache(maxsize=8)
def _python_runtime(interpreter: str, isolated: bool) -> tuple[str, Toolchain]:
    real = Path(os.path.realpath(interpreter))
    if not isolated:
        return str(real), Toolchain()
    config = f"home = {isolation.shown_at(str(real.parent))}\ninclude-system-site-packages = false\n".encode()
    made = ((f"{VENV}/pyvenv.cfg", config), (f"{VENV}/bin/python3", str(real)))
    return f"{VENV}/bin/python3", Toolchain.showing(*interpreter_folders(interpreter), made=made)


_VERSIONS: dict[str, str] = {}


def interpreter_version(interpreter: str) -> str:
    if interpreter not in _VERSIONS:
        if os.path.realpath(interpreter) == os.path.realpath(sys.executable):
            _VERSIONS[interpreter] = sys.version.splitlines()[0]  # this interpreter: no process needed
        else:
            _VERSIONS[interpreter] = command_version([interpreter, "-c", "import sys; print(sys.version)"])
    return _VERSIONS[interpreter]


def command_version(argv: list[str | None]) -> str:
    try:
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
