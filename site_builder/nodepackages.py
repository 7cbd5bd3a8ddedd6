"""The Node packages the workers need (Temml for math; DOMPurify and jsdom for SVG images): where
they are, and installing them once for a builder installed without this project's checkout.

They are looked up upward from the project folder (``npm ci`` in a checkout, or in any project
that lists them), then upward from this package (an editable install), then in the user's cache,
where ``install_node_packages`` puts them from the package's own ``package.json`` and lock file:
the exact versions the builder was tested with, installed without their scripts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .theme import PACKAGED

NEEDED = ("temml", "dompurify", "jsdom")
PACKAGE = Path(__file__).resolve().parent


def find_node_modules(root: Path, names: tuple[str, ...]) -> Path | None:
    """The ``node_modules`` folder holding every one of ``names``, or None."""
    for start in (root.resolve(), PACKAGE):
        for folder in (start, *start.parents):
            if _holds(folder / "node_modules", names):
                return folder / "node_modules"
    cached = user_modules()
    return cached if _holds(cached, names) else None


def _holds(modules: Path, names: tuple[str, ...]) -> bool:
    return all((modules / name / "package.json").is_file() for name in names)


def user_modules() -> Path:
    """Where ``install_node_packages`` installs: one folder per lock file, in the user's cache."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "site-builder"
    lock = PACKAGED / "package-lock.json"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()[:12] if lock.is_file() else "none"
    return base / f"node-{digest}" / "node_modules"


def missing_node_packages(root: Path) -> bool:
    """Whether Node.js is there but the packages are not found anywhere."""
    return shutil.which("node") is not None and find_node_modules(root, NEEDED) is None


def install_node_packages() -> str:
    """Install the packaged lock file's runtime packages into ``user_modules()``; "" when done, else
    why not. The folder appears whole or not at all: npm works in a temporary sibling."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm not found (install Node.js with npm)"
    target = user_modules().parent
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".node-", dir=target.parent))
    except OSError as e:
        return f"cannot write {target.parent}: {e.strerror or e}"
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PACKAGED / name, work / name)
        command = [npm, "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            return f"npm ci failed: {said[-1] if said else f'exit status {done.returncode}'}"
        if target.exists():  # another build installed it meanwhile
            return ""
        os.rename(work, target)
        return ""
    except (OSError, subprocess.SubprocessError) as e:
        return f"npm ci failed: {e}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
