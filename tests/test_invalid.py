"""Bad input: every case in tests/fixtures/invalid/<case>/ reports exactly the lines in expected.txt."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, options_for

from site_builder.build import build_site

CASES = sorted(p for p in (ROOT / "tests" / "fixtures" / "invalid").iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_invalid_case(case: Path, tmp_path: Path) -> None:
    report = build_site(options_for(case / "archive", tmp_path / "site", verify=False))
    expected = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert [str(d) for d in report.diagnostics] == expected
    assert report.published, "one broken entry never stops the others from being published"
    page = (tmp_path / "site" / "t" / "A-x" / "index.html").read_text(encoding="utf-8")
    for line in expected:
        if ": warning: " not in line:
            message = line.split(": ", 1)[1]
            assert message.split(":")[0] in page.replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">")
