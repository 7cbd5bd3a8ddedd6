"""The JSON Schemas shipped for editors agree with the parsers: same keys, same verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import ROOT

from site_builder.errors import SiteError
from site_builder.schemas import PROBLEM, SITE
from site_builder.source.config import CPP_STANDARDS, SITE_KEYS, TRACK_KEYS, parse_site_config
from site_builder.source.metadata import CHECKER_KEYS, KEYS, STATUSES, parse_metadata
from site_builder.source.package import LEGACY_KEYS, LICENSES, MODERN_KEYS, PROBLEM_TYPES, parse_package_metadata


def _schema(path: Path) -> dict[str, Any]:
    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def _valid(schema: dict[str, Any], text: str) -> bool:
    data = json.loads(json.dumps(yaml.safe_load(text), default=str))  # as an editor sees YAML: dates as text
    return jsonschema.Draft202012Validator(schema).is_valid(data)


def test_the_schemas_are_valid_json_schemas_with_the_parsers_keys() -> None:
    problem, site = _schema(PROBLEM), _schema(SITE)
    archive, package = problem["$defs"]["archive"], problem["$defs"]["package"]
    assert tuple(archive["properties"]) == KEYS
    assert set(package["properties"]) == set(LEGACY_KEYS) | set(MODERN_KEYS)
    assert set(archive["properties"]["checker"]["oneOf"][1]["properties"]) == set(CHECKER_KEYS)
    assert tuple(archive["properties"]["status"]["enum"]) == STATUSES
    assert package["properties"]["license"]["anyOf"][0]["enum"] == list(LICENSES)
    assert package["properties"]["type"]["oneOf"][1]["items"]["enum"] == list(PROBLEM_TYPES)
    assert tuple(site["properties"]) == SITE_KEYS
    assert tuple(site["properties"]["cpp_standard"]["enum"]) == CPP_STANDARDS
    assert tuple(site["properties"]["tracks"]["additionalProperties"]["oneOf"][1]["properties"]) == TRACK_KEYS


def test_every_problem_yaml_of_our_archive_is_valid() -> None:
    schema = _schema(PROBLEM)
    files = sorted((ROOT / "archive").rglob("problem.yaml"))
    assert len(files) >= 10
    for path in files:
        assert _valid(schema, path.read_text(encoding="utf-8")), path


PROBLEMS = [
    # (problem.yaml, whether the parser accepts it without an error)
    ("title: Lanterns\nlabel: A\nyear: 2025\ntags: [greedy, sorting]\nrating: 1400\ntime_limit: 2\n", True),
    ("tags: greedy, sorting\nchecker: exact\nstatus: draft\n", True),
    ("checker: {float_tolerance: 1.0e-6, case_sensitive: false}\n", True),
    ("rating: high\n", False),
    ("year: next\n", False),
    ("status: done\n", False),
    ("checker: fuzzy\n", False),
    ("checker: {float_tolerance: -1}\n", False),
    ("time_limit: 0\n", False),
    ("time_limit: 7200\n", False),
    ("tags: {a: 1}\n", False),
    ("titel: Lanterns\n", False),  # a warning for the parser, an error for an editor
]

PACKAGES = [
    ("problem_format_version: 2023-07-draft\nname: Hello\nlimits: {time_limit: 1.5, memory: 512}\n", True),
    ("name: {en: Hello, de: Hallo}\nsource: {name: NWERC 2024, url: https://example.org}\nlicense: cc by-sa\n", True),
    ("problem_format_version: 2025-09\nname: X\ncredits: {authors: [Ada, Alan]}\nconstants: {max_n: 100}\n", True),
    ("name: X\nvalidation: custom interactive\nvalidator_flags: float_tolerance 1e-6\nkeywords: [a, b]\n", True),
    ("problem_format_version: 2025-09\nname: X\nembargo_until: 2030-01-01\ntype: [pass-fail, interactive]\n", True),
    ("name: X\nvalidator_flags:\nlimits: {time_multiplier: 2, validation_passes: 3}\n", True),
    ("problem_format_version: 2025-09\nname: X\ntype: pass-fail interactive\n", True),
    ("problem_format_version: 2025-09\nname: X\ntype: pass-fail quiz\n", False),
    ("name: [not, a, name]\n", False),
    ("name: X\nembargo_until: 2030-01-01\n", False),  # a modern key in a legacy package
    ("problem_format_version: 2023-07-draft\nname: X\nvalidation: default\n", False),  # and the reverse
]


@pytest.mark.parametrize(("text", "accepted"), PROBLEMS)
def test_the_problem_schema_and_parser_agree_on_this_archive_s_keys(text: str, accepted: bool) -> None:
    try:
        _, diagnostics = parse_metadata(text, "problem.yaml")
        parsed = not [d for d in diagnostics if d.level == "error" or "unknown key" in d.message]
    except SiteError:
        parsed = False
    assert parsed == accepted
    assert _valid(_schema(PROBLEM), text) == accepted


@pytest.mark.parametrize(("text", "accepted"), PACKAGES)
def test_the_problem_schema_and_parser_agree_on_package_keys(text: str, accepted: bool) -> None:
    data = yaml.safe_load(text)
    try:
        _, diagnostics = parse_package_metadata(data, {}, "problem.yaml")
        parsed = not [d for d in diagnostics if d.level == "error" or "unknown" in d.message]
    except SiteError:
        parsed = False
    assert parsed == accepted
    assert _valid(_schema(PROBLEM), text) == accepted


SITES = [
    ("title: T\nbase_url: https://example.org/a/\ntracks: {icpc: ICPC, cf: {title: Codeforces}}\n", True),
    ("overrides: theme\ntime_margin: {factor: 3, seconds: 0}\ncpp_standard: gnu++20\nfooter: By us.\n", True),
    ("cpp_standard: c++11\n", False),
    ("time_margin: {factor: 20}\n", False),
    ("overrides: ../elsewhere\n", False),
    ("overrides: /etc\n", False),
    ("base_url: ftp://example.org\n", False),
    ("titel: T\n", False),
    ("tracks: {icpc: {name: ICPC}}\n", False),
    ("publish_active_files: maybe\n", False),
]


@pytest.mark.parametrize(("text", "accepted"), SITES)
def test_the_site_schema_and_parser_agree(text: str, accepted: bool) -> None:
    try:
        parse_site_config(text, "site.yaml")
        parsed = True
    except SiteError:
        parsed = False
    assert parsed == accepted
    assert _valid(_schema(SITE), text) == accepted
