"""How answers are checked, in words, and the limits line on the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ArchiveMaker, options_for

from site_builder.build import build_site
from site_builder.model import Checker, Metadata, Validator
from site_builder.render.checking import describe_checking, power


@pytest.mark.parametrize(
    ("meta", "validator", "words"),
    [
        (Metadata(), None, "tokens compared"),
        (Metadata(checker=Checker(case_sensitive=False)), None, "tokens compared, case ignored"),
        (
            Metadata(checker=Checker(float_absolute=1e-6, float_relative=1e-6)),
            None,
            "tokens compared, numbers within 10\u207b\u2076 (absolute or relative)",
        ),
        (
            Metadata(checker=Checker(float_relative=5e-4)),
            None,
            "tokens compared, numbers within 5\u00b710\u207b\u2074 relative",
        ),
        (Metadata(checker=Checker(mode="exact")), None, "output compared byte for byte"),
        (
            Metadata(),
            Validator("output_validator", "cpp", "", ()),
            "any correct answer accepted (the problem's own checker)",
        ),
        (
            Metadata(interactive=True),
            Validator("output_validator", "python", "v.py", ()),
            "interactive, judged by the problem's validator",
        ),
    ],
)
def test_checking_in_words(meta: Metadata, validator: Validator | None, words: str) -> None:
    assert describe_checking(meta, validator) == words


def test_powers_of_ten_read_as_judges_write_them() -> None:
    assert [power(v) for v in (1e-6, 5e-4, 0.25, 1e-9)] == [
        "10\u207b\u2076",
        "5\u00b710\u207b\u2074",
        "0.25",
        "10\u207b\u2079",
    ]


def test_the_page_shows_limits_and_says_why_a_different_output_is_accepted(
    make_archive: ArchiveMaker, tmp_path: Path
) -> None:
    files: dict[str, str | bytes] = {
        "t/p/problem.yaml": (
            "problem_format_version: 2025-09\nname: Halves\nlimits:\n  time_limit: 2\n  memory: 256\n"
        ),
        "t/p/data/test_group.yaml": "output_validator_args: [float_tolerance, '1e-6']\n",
        "t/p/statement/problem.en.md": "Print half of n.\n",
        "t/p/data/sample/1.in": "3\n",
        "t/p/data/sample/1.ans": "1.5\n",
        "t/p/data/sample/2.in": "0\n",
        "t/p/data/sample/2.ans": "0\n",
        "t/p/submissions/accepted/half.py": "n = int(input())\nif n:\n    print(f'{n / 2:.9f}')\n",
    }
    out = tmp_path / "site"
    build_site(options_for(make_archive(files), out))
    page = (out / "t" / "p" / "index.html").read_text("utf-8")
    assert "<dt>Time limit</dt><dd>2 s</dd>" in page
    assert "<dt>Memory limit</dt><dd>256 MiB</dd>" in page  # given: not marked as the format's default
    words = "tokens compared, case ignored, numbers within 10\u207b\u2076 (absolute or relative)"
    assert f"<dt>Answers</dt><dd>{words}</dd>" in page
    first = page[page.index('id="sample-1"') : page.index('id="sample-2"')]
    assert "1.500000000" in first and f"Accepted, though not the expected output byte for byte: {words}." in first
    second = page[page.index('id="sample-2"') :]
    assert '<span class="muted">(no output)</span>' in second
    assert page.count('<button class="copy" type="button" hidden data-copy aria-label="Copy sample') >= 4
