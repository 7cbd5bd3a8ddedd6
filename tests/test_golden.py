"""Golden tests for the LaTeX and Markdown renderers: tests/golden/<kind>/<case>.{tex,md} -> .html."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.model import Sample
from site_builder.render.latex import render_latex
from site_builder.render.markdown import render_markdown

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("latex/*.tex")) + sorted(GOLDEN.glob("markdown/*.md"))


# What a problem package's statement may refer to: its samples (\nextsample) and constants (\constant{n}).
SAMPLES = tuple(
    Sample(str(n), f"data/sample/{n}.in", f"data/sample/{n}.ans", f"{n} {n}\n", f"{2 * n}\n") for n in (1, 2, 3)
)
CONSTANTS = {"max_n": "200\u2009000", "mod": "998244353"}


def rendered(source: Path) -> str:
    render = render_latex if source.suffix == ".tex" else render_markdown
    document, warnings = render(
        source.read_text(encoding="utf-8"),
        source.name,
        assets={"figure.svg": None},
        samples=SAMPLES,
        constants=CONSTANTS,
        **({"problem_title": "Lanterns & Ladders", "time_limit": 2.5} if source.suffix == ".tex" else {}),
    )
    parts = [document.html.rstrip("\n")]
    if document.title:
        parts.append(f"<!-- title: {document.title} -->")
    if document.summary_html:
        parts.append(f"<!-- summary: {document.summary_html} -->")
    parts += [
        f"<!-- math {i}: {'display' if m.display else 'inline'} line {m.line}: {m.tex} -->"
        for i, m in enumerate(document.math)
    ]
    parts += [
        f"<!-- picture {i}: line {p.line}: {p.source!r} with {len(p.preamble.splitlines())} preamble lines -->"
        for i, p in enumerate(document.pictures)
    ]
    parts += [f"<!-- warning line {line}: {message} -->" for line, message in warnings]
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("source", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden(source: Path, update_golden: bool) -> None:
    expected_path = source.with_suffix(".html")
    actual = rendered(source)
    if update_golden or not expected_path.exists():
        expected_path.write_text(actual, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"{expected_path} did not exist; written now, review it")
    assert actual == expected_path.read_text(encoding="utf-8"), (
        f"{source.name}: rerun with --update-golden and review the diff"
    )
