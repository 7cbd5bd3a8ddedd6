"""Libraries whose internals we drive are pinned to the releases we tested, and say so when another is installed."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version

import pytest
from conftest import ROOT

from site_builder.publish.search import TESTED_PAGEFIND
from site_builder.render.fastlex import TESTED_PYGMENTS

PINNED = [
    ("pygments", TESTED_PYGMENTS, "site_builder/render/fastlex.py (TESTED_PYGMENTS)", "tests/test_highlight.py"),
    ("pagefind-bin", TESTED_PAGEFIND, "site_builder/publish/search.py (TESTED_PAGEFIND)", "tests/test_search.py"),
]


def _series(text: str) -> str:
    return ".".join(text.split(".")[:2])


@pytest.mark.parametrize(("name", "tested", "where", "tests"), PINNED, ids=[p[0] for p in PINNED])
def test_the_installed_release_is_one_we_tested(name: str, tested: tuple[str, ...], where: str, tests: str) -> None:
    installed = version(name)
    assert _series(installed) in tested, (
        f"{name} {installed} is installed, but {where} was tested with {', '.join(t + '.x' for t in tested)} only. "
        f"Run {tests} under {installed}; if it passes, add {_series(installed)!r} there "
        "and widen the pin in pyproject.toml."
    )


@pytest.mark.parametrize(("name", "tested", "where", "tests"), PINNED, ids=[p[0] for p in PINNED])
def test_pyproject_pins_exactly_the_tested_series(name: str, tested: tuple[str, ...], where: str, tests: str) -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [spec] = [d for d in dependencies if re.match(rf"{re.escape(name)}\b", d, re.IGNORECASE)]
    low, high = re.fullmatch(rf"{re.escape(name)}>=([\d.]+),<([\d.]+)", spec, re.IGNORECASE).groups()  # type: ignore[union-attr]
    assert _series(low) == min(tested) and high > max(tested), f"pyproject.toml pins {spec}; {where} says {tested}"
    major, minor = max(tested).split(".")
    assert high == f"{major}.{int(minor) + 1}", f"pyproject.toml allows {spec}: beyond the tested {tested}"


def test_under_an_untested_pygments_every_lexer_takes_pygments_own_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from site_builder.render import fastlex, highlight

    source = (ROOT / "archive").rglob("solution.cpp").__next__().read_text()
    fast = highlight.highlighted(source, "cpp")
    assert fastlex.supports(highlight._lexer("cpp"))
    monkeypatch.setattr(fastlex, "TESTED", False)
    assert not fastlex.supports(highlight._lexer("cpp"))
    slow = highlight.highlighted(source, "cpp")
    assert re.sub("<[^>]+>", "", slow) == re.sub("<[^>]+>", "", fast)  # the same text, and the same classes
    assert sorted(set(re.findall(r'class="(\w+)"', slow))) == sorted(set(re.findall(r'class="(\w+)"', fast)))
