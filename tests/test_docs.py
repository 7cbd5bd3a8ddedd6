"""The docs say what the program does, where a machine can check it: every option of ``site-builder``
that the README or ``docs/`` names exists, and every ``site.yaml`` key of the README's example is in
the schema editors and the builder check."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import yaml

from site_builder.cli import _parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Options the docs name that belong to other programs: option -> the program.
OTHERS = {
    "--update-golden": "pytest (tests/conftest.py)",
    "--scenario": "tests/bench/run.py",
    "--tests": "tests/mutate/run.py (make mutate)",
    "--ignore-scripts": "npm",
    "--omit": "npm",
    "--print": "a compiler's --print-sysroot",
    "--edition": "rustc",
}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def parser_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of the parser and its subcommands."""
    found = {s for action in parser._actions for s in action.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= parser_options(sub)
    return found


def code_of(text: str) -> str:
    """The text of a Markdown file's code blocks and code spans: where options are written."""
    blocks = re.findall(r"^```.*?^```", text, re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
    return "\n".join([*blocks, *spans])


def test_every_option_the_docs_name_exists() -> None:
    known = parser_options(_parser())
    named = {(doc.name, option) for doc in DOCS for option in OPTION.findall(code_of(doc.read_text()))}
    unknown = sorted((doc, option) for doc, option in named if option not in known and option not in OTHERS)
    assert unknown == [], "the docs name options site-builder does not have"
    assert set(OTHERS) - {option for _, option in named} == set(), "OTHERS lists options no doc names any more"
    assert known >= {"--strict", "--base-url", "--format", "--fail-on", "--no-verify"}  # the parser was read


def test_the_site_yaml_example_uses_only_keys_of_the_schema() -> None:
    readme = (ROOT / "README.md").read_text()
    example = re.search(r"### `site.yaml`\s+```yaml\n(.*?)```", readme, re.S)
    assert example is not None, "the README's site.yaml example"
    keys = set(yaml.safe_load(example.group(1)))
    schema = json.loads((ROOT / "site_builder" / "schemas" / "site.schema.json").read_text())
    assert keys - set(schema["properties"]) == set()
    assert len(keys) >= 10
