"""problem.yaml validation: every mistake is reported with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.errors import MetadataError
from site_builder.model import Checker
from site_builder.source.metadata import (
    metadata_from_mapping,
    parse_checker_flags,
    parse_metadata,
    positive_number,
    slow_time_limit,
)
from site_builder.source.yamlfile import parse_yaml_mapping


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
    try:
        _, found = parse_metadata(text, "archive/t/x/problem.yaml")
    except MetadataError as stopped:  # YAML that cannot be read at all
        assert (stopped.line, stopped.message) == (line, message)
    else:  # a value of the wrong kind: the others are still read
        assert [(d.line, d.message) for d in found if d.level == "error"] == [(line, message)]


def test_every_wrong_value_of_a_file_is_reported_at_once() -> None:
    meta, found = parse_metadata("title: A\nrating: high\nyear: soon\nlabel: B\ntags: 3\n", "p.yaml")
    assert (meta.title, meta.label, meta.rating, meta.year) == ("A", "B", None, None)
    assert [(d.line, d.message) for d in found] == [
        (2, "rating must be a whole number, not str"),
        (3, "year must be a whole number, not str"),
        (5, "tags must be a list of strings, not int"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "title: T\ntracks:\n  icpc:\n    title: ICPC\n    titel: X\n",
            "s.yaml:5: tracks.icpc: unknown key 'titel'; did you mean 'title'?",
        ),
        ("titel: T\n", "s.yaml:1: unknown key 'titel'; did you mean 'title'?"),
        ("time_margin: {factor: 0.5}\n", "s.yaml:1: time_margin: factor must be from 1 to 10 and seconds from 0 to 60"),
        (
            "cpp_standard: c++98\n",
            "s.yaml:1: cpp_standard must be one of c++17, c++20, c++23, c++26, gnu++17, gnu++20, gnu++23, gnu++26,"
            " not 'c++98'",
        ),
        ("tracks:\n  a: {title: A}\n  b: 5\n", "s.yaml:3: tracks.b must be a mapping with a string title"),
        ("title: T\nexclude: drafts\n", "s.yaml:2: exclude must be a list of at most 100 folders, not 'drafts'"),
        (
            f"exclude: [{', '.join(['a'] * 101)}]\n",
            "s.yaml:1: exclude must be a list of at most 100 folders, not 101 items",
        ),
        ("exclude: [a, 3]\n", "s.yaml:1: exclude: each item must be a folder's name or path, not 3"),
        ("exclude: [/]\n", "s.yaml:1: exclude: each item must be a folder's name or path, not '/'"),
        ("exclude: ['a\\b']\n", "s.yaml:1: exclude: each item must be a folder's name or path, not 'a\\\\b'"),
        ("exclude: [t/../x]\n", "s.yaml:1: exclude: 't/../x' must be a folder inside the archive"),
    ],
)
def test_site_yaml_errors_name_the_line_of_the_key(text: str, expected: str) -> None:
    from site_builder.errors import ConfigError
    from site_builder.source.config import parse_site_config

    with pytest.raises(ConfigError) as info:
        parse_site_config(text, "s.yaml")
    assert str(info.value) == expected


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


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (".inf", "time_limit must be a positive number of seconds, not inf"),
        ("-.inf", "time_limit must be a positive number of seconds, not -inf"),
        (".nan", "time_limit must be a positive number of seconds, not nan"),
        ("1e18", "time_limit must be at most 3600 seconds, not 1e+18: verification waits that long for each sample"),
        ("0", "time_limit must be a positive number of seconds, not 0"),
    ],
)
def test_a_time_limit_is_finite_and_at_most_an_hour(value: str, message: str) -> None:
    meta, found = parse_metadata(f"title: A\ntime_limit: {value}\n", "archive/t/x/problem.yaml")
    assert [str(d) for d in found] == [f"archive/t/x/problem.yaml:2: {message}"]
    assert meta.time_limit is None and meta.title == "A"


def test_a_time_limit_over_a_minute_is_a_warning() -> None:
    meta, warnings = parse_metadata("time_limit: 90\n", "p.yaml")
    assert meta.time_limit == 90
    assert [str(w) for w in warnings] == [
        "p.yaml:1: warning: time limit of 90 s: a sample that does not finish holds verification up that long"
    ]


def test_site_and_package_time_limits_follow_the_same_rule(tmp_path: Path) -> None:
    from site_builder.errors import ConfigError
    from site_builder.source.config import parse_site_config
    from site_builder.source.package import parse_package_metadata
    from site_builder.source.yamlfile import parse_yaml_mapping

    with pytest.raises(ConfigError, match=r"site.yaml:1: time_limit must be a positive number of seconds, not nan"):
        parse_site_config("time_limit: .nan\n", "site.yaml")
    data, lines = parse_yaml_mapping("name: X\nlimits:\n  time_limit: .inf\n", "problem.yaml", MetadataError)
    _, found = parse_package_metadata(data, lines, "problem.yaml")
    assert str(found[0]).startswith("problem.yaml:3: limits: time_limit must be a positive number")


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.domain)",
        "https://x//evil.example/",
        "//evil.example/",
        "ftp://a.example/",
        "https://a b/",
    ],
)
def test_site_urls_are_plain_http_urls(url: str) -> None:
    from site_builder.errors import ConfigError
    from site_builder.source.config import parse_site_config

    for key in ("base_url", "repo_url"):
        with pytest.raises(ConfigError, match=rf"site.yaml:2: {key} must be"):
            parse_site_config(f"title: T\n{key}: {url!r}\n", "site.yaml")
    assert parse_site_config("base_url: https://archive.example.org/x/\n", "s.yaml").base_url.endswith("/x/")


def test_yaml_aliases_cannot_expand_without_bound() -> None:
    """A "billion laughs" in a package's constants once ran the machine out of memory."""
    levels = ["  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 9)]
    bomb = "name: X\nconstants:\n" + "\n".join(levels) + "\n"
    for text in (bomb, "x: &a [1, *a]\n"):
        with pytest.raises(MetadataError, match=r"problem.yaml: the YAML's aliases expand to more than 100,000 values"):
            parse_yaml_mapping(text, "problem.yaml", MetadataError)
    assert parse_yaml_mapping("x: &a [1, 2]\ny: *a\n", "p.yaml", MetadataError)[0] == {"x": [1, 2], "y": [1, 2]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("title: [a]\n", "title must be a string, not a list"),
        ("year: true\n", "year must be a whole number, not a boolean"),
        ("rating: 1.5\n", "rating must be a whole number, not float"),
        ("tags: [a, ~]\n", "tags must be strings; found empty"),
        ("tags: [{a: 1}]\n", "tags must be strings; found a mapping"),
        ("tags: [a, false]\n", "tags must be strings; found a boolean"),
        ("checker: {float_tolerance: -0.5}\n", "checker: float_tolerance must be a non-negative number, not -0.5"),
        ("checker: {float_absolute_tolerance: x}\n", "checker: float_absolute_tolerance must be a non-negative "
         "number, not 'x'"),
        ("checker: {float_relative_tolerance: .nan}\n", "checker: float_relative_tolerance must be a non-negative "
         "number, not nan"),
        ("checker: {case_sensitive: 1}\n", "checker: case_sensitive must be true or false"),
        ("checker: {fuzz: 1}\n", "checker: unknown option 'fuzz' (known: case_sensitive, float_tolerance, "
         "float_absolute_tolerance, float_relative_tolerance)"),
    ],
)  # fmt: skip
def test_a_wrong_value_says_what_it_is(text: str, message: str) -> None:
    _, found = parse_metadata(text, "archive/t/x/problem.yaml")
    assert [str(d) for d in found] == [f"archive/t/x/problem.yaml:1: {message}"]


@pytest.mark.parametrize(
    ("text", "checker"),
    [
        ("checker: {float_tolerance: 0}\n", Checker(float_absolute=0.0, float_relative=0.0)),
        ("checker: {float_tolerance: '1e-6', float_relative_tolerance: 0.5}\n", Checker("tokens", True, 1e-6, 0.5)),
        ("checker: {float_absolute_tolerance: 2, case_sensitive: false}\n", Checker("tokens", False, 2.0, None)),
        ("checker: exact\n", Checker("exact")),
        ("checker: tokens\n", Checker()),
    ],
)
def test_a_checker_s_tolerances_may_be_zero_and_each_overrides_both(text: str, checker: Checker) -> None:
    meta, found = parse_metadata(text, "p.yaml")
    assert found == [] and meta.checker == checker


@pytest.mark.parametrize(
    ("value", "number"),
    [
        ("2.5", 2.5),
        (3, 3.0),
        ("0", None),
        (0, None),
        (-1, None),
        ("x", None),
        (True, None),
        (".inf", None),
        ("inf", None),
        ("nan", None),
        (0.5, 0.5),
        (None, None),
    ],
)
def test_a_positive_number_is_finite_and_above_zero(value: object, number: float | None) -> None:
    assert positive_number(value) == number


def test_every_text_field_is_read_and_numbers_are_text_too() -> None:
    meta, found = parse_metadata("title: 2048\nlabel: 7\nsource: ' Contest '\nsummary: Count.\n", "p.yaml")
    assert found == [] and (meta.title, meta.label, meta.source, meta.summary) == ("2048", "7", "Contest", "Count.")
    _, found = parse_metadata("\ntitle: true\n", "archive/p.yaml")
    assert [str(d) for d in found] == ["archive/p.yaml:2: title must be a string, not a boolean"]


def test_an_unknown_key_without_a_known_line_is_at_line_zero() -> None:
    _, found = metadata_from_mapping({"titel": "x"}, {}, "archive/t/x/problem.yaml")
    assert [(d.path, d.line, d.message) for d in found] == [
        ("archive/t/x/problem.yaml", 0, "unknown key 'titel'; did you mean 'title'?")
    ]


def flags(words: str) -> tuple[Checker, list[str]]:
    return parse_checker_flags(words.split(), "archive/t/x/problem.yaml", 4)


def test_validator_flags_make_the_checker_and_leave_the_words_they_do_not_know() -> None:
    assert flags("") == (Checker("tokens", False, None, None), [])
    words = "case_sensitive float_absolute_tolerance 1e-3 space_change_sensitive foo float_relative_tolerance 0 bar"
    assert flags(words) == (Checker("spaces", True, 1e-3, 0.0), ["foo", "bar"])
    assert flags("float_tolerance 0.5") == (Checker("tokens", False, 0.5, 0.5), [])


@pytest.mark.parametrize(
    "words", ["float_tolerance", "float_tolerance -1", "float_relative_tolerance x case_sensitive"]
)
def test_a_tolerance_flag_needs_a_number_after_it(words: str) -> None:
    with pytest.raises(MetadataError) as info:
        flags(words)
    first = words.split()[0]
    assert str(info.value) == f"archive/t/x/problem.yaml:4: validator flag {first} needs a non-negative number after it"


def test_a_wrong_value_leaves_the_default_in_its_place() -> None:
    meta, found = parse_metadata("tags: 3\nchecker: fuzzy\nstatus: done\ntitle: T\n", "archive/p.yaml")
    assert (meta.tags, meta.checker, meta.status, meta.title) == ((), Checker(), "complete", "T")
    assert [str(d).split(": ", 1)[0] for d in found] == ["archive/p.yaml:1", "archive/p.yaml:2", "archive/p.yaml:3"]


def test_what_problem_yaml_leaves_out_and_tags_given_as_one_string() -> None:
    meta, found = parse_metadata("tags: 'dp, math,, dp ,graphs'\ntime_limit: 0.5\n", "p.yaml")
    assert found == [] and meta.tags == ("dp", "math", "graphs") and meta.time_limit == 0.5
    assert meta.status == "complete" and meta.checker == Checker()


def test_a_time_limit_of_a_minute_is_not_slow_and_a_warning_without_a_line_is_at_line_zero() -> None:
    assert slow_time_limit("p.yaml", 3, 60.0) == []
    assert [str(d) for d in slow_time_limit("p.yaml", None, 61.0)] == [
        "p.yaml: warning: time limit of 61 s: a sample that does not finish holds verification up that long"
    ]
    assert slow_time_limit("p.yaml", None, 61.0)[0].line == 0


def test_yaml_that_cannot_be_read_names_the_file() -> None:
    with pytest.raises(MetadataError) as info:
        parse_metadata("title: [unclosed\n", "archive/t/x/problem.yaml")
    assert str(info.value).startswith("archive/t/x/problem.yaml:2: invalid YAML")


def test_a_time_limit_of_exactly_an_hour_is_allowed() -> None:
    meta, found = parse_metadata("time_limit: 3600\n", "p.yaml")
    assert meta.time_limit == 3600 and [d.level for d in found] == ["warning"]
