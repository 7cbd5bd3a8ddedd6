"""problem.yaml validation: every mistake is reported with its line."""

from __future__ import annotations

import pytest

from site_builder.errors import MetadataError
from site_builder.model import Checker
from site_builder.source.metadata import parse_metadata


def test_all_keys() -> None:
    text = (
        "title: Quartets\nlabel: X\nsource: Practice 2022\nyear: 2022\ntags: [dp, math]\nrating: 2100\n"
        "summary: Count them.\ntime_limit: 2.5\nchecker:\n  float_tolerance: 1e-6\nstatus: draft\n"
    )
    meta, warnings = parse_metadata(text, "p.yaml")
    assert warnings == []
    assert (meta.title, meta.label, meta.year, meta.tags, meta.rating, meta.time_limit, meta.status) == (
        "Quartets",
        "X",
        2022,
        ("dp", "math"),
        2100,
        2.5,
        "draft",
    )
    assert meta.checker == Checker(float_absolute=1e-6, float_relative=1e-6)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("title: A\nrating: high\n", 2, "rating must be a whole number, not str"),
        ("title: A\ntags: {a: 1}\n", 2, "tags must be a list of strings, not a mapping"),
        ("status: done\n", 1, "status must be one of draft, complete, not 'done'"),
        ("title: [unclosed\n", 2, "invalid YAML: expected ',' or ']', but got '<stream end>'"),
        ("title: A\n  bad: indent\n", 2, "invalid YAML: mapping values are not allowed here"),
        ("- a\n- b\n", 1, "expected a mapping of keys to values"),
        ("checker: fuzzy\n", 1, "checker must be 'tokens', 'exact' or a mapping like {float_tolerance: 1e-6}"),
        ("time_limit: -1\n", 1, "time_limit must be a positive number of seconds, not -1"),
    ],
)
def test_errors_have_lines(text: str, line: int, message: str) -> None:
    with pytest.raises(MetadataError) as info:
        parse_metadata(text, "archive/t/x/problem.yaml")
    assert (info.value.line, info.value.message) == (line, message)


def test_unknown_key_warns_with_the_closest_known_key() -> None:
    meta, warnings = parse_metadata("title: A\ntitel: B\nflavour: x\n", "p.yaml")
    assert meta.title == "A"
    assert [(w.line, w.message, w.level) for w in warnings] == [
        (2, "unknown key 'titel'; did you mean 'title'?", "warning"),
        (
            3,
            "unknown key 'flavour' (known keys: title, label, source, year, tags, rating, summary, "
            "time_limit, checker, status)",
            "warning",
        ),
    ]


def test_empty_file_and_bom_are_fine() -> None:
    assert parse_metadata("", "p.yaml")[0].title is None
    assert parse_metadata("\ufefftitle: A\n", "p.yaml")[0].title == "A"
