"""The builder installed as a user installs it: into a fresh virtual environment, from this checkout
(not editable), and run from an unrelated folder on an archive alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
from conftest import ROOT, write_tree

ENTRY = {
    "my-archive/site.yaml": "title: Elsewhere\n",
    "my-archive/drills/A-double/solution.md": "## Idea\n\nPrint $2x$, since $\\sum_{i=1}^{2} x = 2x$.\n",
    "my-archive/drills/A-double/solution.py": "print(2 * int(input()))\n",
    "my-archive/drills/A-double/samples/1.in": "21\n",
    "my-archive/drills/A-double/samples/1.ans": "42\n",
    "my-archive/overrides/templates/base.html": (
        '{% extends "theme/base.html" %}{% block footer %}<footer>Our footer</footer>{% endblock %}'
    ),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with this project installed in it, not editable: its bin/."""
    if shutil.which("npm") is None:
        pytest.skip("needs npm, to install the math renderer as an installed builder does")
    env = tmp_path_factory.mktemp("venv") / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    source = tmp_path_factory.mktemp("checkout") / "src"  # a copy without .venv, node_modules and caches
    ignored = shutil.ignore_patterns(".venv", "node_modules", ".cache", "site", ".git", "build", "*.egg-info")
    shutil.copytree(ROOT, source, ignore=ignored, symlinks=True)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return env / "bin"


def _run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(cwd),
        "XDG_CACHE_HOME": str(cwd.parent / "user-cache"),
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        [str(bin_dir / "site-builder"), *args], cwd=cwd, env=environment, capture_output=True, text=True, check=False
    )


def test_an_installed_builder_builds_an_archive_from_an_unrelated_folder(installed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    write_tree(folder, ENTRY)
    version = _run(installed, folder, "--version")
    assert version.returncode == 0 and version.stdout.startswith("site-builder ")
    done = _run(installed, folder, "build", "--archive", "my-archive")
    assert done.returncode == 0, done.stderr
    assert "0 errors, 0 warnings" in done.stdout, done.stdout + done.stderr
    page = (folder / "site/drills/A-double/index.html").read_text(encoding="utf-8")
    assert "<footer>Our footer</footer>" in page  # the override
    assert "<math" in page and "Verified 1/1" in page  # math from the installed Node packages; the solver ran
    for name in ("style.css", "site.js", "temml.css", "pygments.css"):
        assert (folder / "site/static" / name).is_file(), name
    assert len(list((folder / "site/static").glob("STIXTwoMath-*.woff2"))) == 1  # the math font, cut down
    assert not (folder / "templates").exists()  # nothing of the theme is copied into the user's folder
    assert "Installing the Node packages" in done.stderr
    again = _run(installed, folder, "build", "--archive", "my-archive")
    assert again.returncode == 0 and "Installing" not in again.stderr and "site was kept" in again.stdout


def test_an_installed_check_reports_a_failing_archive_as_json(installed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    write_tree(folder, {**ENTRY, "my-archive/drills/A-double/solution.py": "print(int(input()))\n"})
    write_tree(folder, {"my-archive/drills/B-broken/problem.yaml": "time_limit: soon\n"})
    write_tree(folder, {"my-archive/drills/B-broken/solution.md": "## Idea\n\nNone.\n"})
    done = _run(installed, folder, "check", "--archive", "my-archive", "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert (report["errors"], report["failing"], report["ok"]) == (1, 1, False)
    assert {d["level"] for d in report["diagnostics"]} == {"error", "warning"}
    assert not (folder / "site").exists()


def test_the_installed_package_holds_the_theme_and_the_lock_file(installed: Path, tmp_path: Path) -> None:
    python = installed / "python"
    code = "import site_builder.theme as t, pathlib; print(pathlib.Path(t.__file__).parent)"
    found = subprocess.run([str(python), "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    where = Path(found.stdout.strip())
    assert not where.is_relative_to(ROOT)
    shipped = {
        p.relative_to(where).as_posix() for p in where.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    theme = {f"templates/{p.name}" for p in (ROOT / "templates").iterdir()} | {
        f"static/{p.relative_to(ROOT / 'static').as_posix()}" for p in (ROOT / "static").rglob("*") if p.is_file()
    }
    assert theme <= shipped
    assert {"package.json", "package-lock.json"} <= shipped
    assert (where / "package-lock.json").read_bytes() == (ROOT / "package-lock.json").read_bytes()
    assert not any(p.is_symlink() for p in where.rglob("*"))
    schema = subprocess.run([str(installed / "site-builder"), "schema", "problem"], capture_output=True, check=True)
    assert schema.stdout == (ROOT / "site_builder/schemas/problem.schema.json").read_bytes()


def test_a_cache_folder_that_cannot_be_written_is_a_reason_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_builder import nodepackages

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    if shutil.which("npm") is None:
        pytest.skip("needs npm")
    assert nodepackages.install_node_packages().startswith(f"cannot write {blocked}/site-builder")
