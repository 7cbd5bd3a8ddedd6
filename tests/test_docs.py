"""The docs say what the program does, where a machine can check it: every option of ``site-builder``
that the README or ``docs/`` names exists; every ``site.yaml`` key of the example and every
``problem.yaml`` key of docs/formats.md is in the schema editors use and in the parser's key tables;
every language of ``languages.yaml`` is in the languages table of docs/verification.md; and the
package table's claims about which submissions run are what the verifier does."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import ArchiveMaker, load_one

from site_builder.arguments import command_parser as _parser
from site_builder.source.archive import load_archive
from site_builder.source.languages import judge_languages
from site_builder.source.metadata import CHECKER_KEYS, KEYS
from site_builder.source.package import LEGACY_KEYS, MODERN_KEYS
from site_builder.verify.options import VerifyOptions
from site_builder.verify.verifier import verify_entries

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FORMATS = ROOT / "docs" / "formats.md"
VERIFICATION = ROOT / "docs" / "verification.md"
SCHEMAS = ROOT / "site_builder" / "schemas"
# Options the docs name that belong to other programs: option -> the program.
OTHERS = {
    "--update-golden": "pytest (tests/conftest.py)",
    "--scenario": "tests/bench/run.py",
    "--tests": "tests/mutate/run.py (make mutate)",
    "--ignore-scripts": "npm",
    "--omit": "npm",
    "--print": "a compiler's --print-sysroot",
    "--edition": "rustc",
    "--cfg": "rustc",
    "--time": "isolate (CMS's sandbox)",
    "--wall-time": "isolate (CMS's sandbox)",
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


def test_the_docs_are_the_pages_the_readme_links() -> None:
    """Every page of docs/ is linked from the README, and every link of the README to docs/ is a page."""
    readme = (ROOT / "README.md").read_text()
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)", readme))
    pages = {f"docs/{doc.name}" for doc in DOCS[1:]}
    assert linked == pages
    assert len(readme.splitlines()) <= 250


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings (code blocks have none)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    titles = re.findall(r"^#+ (.*)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-") for title in titles}


def test_every_link_between_the_docs_finds_its_page_and_heading() -> None:
    broken = []
    for doc in DOCS:
        prose = re.sub(r"`[^`\n]+`", "", re.sub(r"^```.*?^```", "", doc.read_text(), flags=re.S | re.M))
        for target, anchor in re.findall(r"\]\((?!https?:)([^)#\s]*)(?:#([^)\s]+))?\)", prose):
            path = (doc.parent / target).resolve() if target else doc
            if not path.exists() or (anchor and path.suffix == ".md" and anchor not in anchors(path.read_text())):
                broken.append(f"{doc.name}: {target}#{anchor}")
    assert broken == []


def table(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the Markdown table that starts with ``header``."""
    start = text.index(header + "\n")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    assert rows, f"no rows under {header}"
    return rows


def spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_the_site_yaml_example_uses_only_keys_of_the_schema() -> None:
    example = re.search(r"## `site.yaml`\s+```yaml\n(.*?)```", FORMATS.read_text(), re.S)
    assert example is not None, "docs/formats.md's site.yaml example"
    keys = set(yaml.safe_load(example.group(1)))
    schema = json.loads((SCHEMAS / "site.schema.json").read_text())
    assert keys - set(schema["properties"]) == set()
    assert len(keys) >= 10


def test_the_problem_yaml_table_has_exactly_the_parser_s_keys() -> None:
    rows = table(FORMATS.read_text(), "| key | type | meaning |")
    documented = [spans(row[0])[0] for row in rows]
    schema = json.loads((SCHEMAS / "problem.schema.json").read_text())["$defs"]["archive"]["properties"]
    assert sorted(documented) == sorted(KEYS) == sorted(schema)
    (checker,) = [row for row in rows if row[0] == "`checker`"]
    options = {re.match(r"\{?(\w+)", span).group(1) for span in spans(checker[2])}  # type: ignore[union-attr]
    assert options == set(CHECKER_KEYS)


# Names in the package table's first column that are not keys at the top of a package's problem.yaml.
NOT_TOP_LEVEL = {
    "authors", "contributors", "testers", "translators", "packagers", "acknowledgements",  # inside credits
    "output_validator_args",  # a key of data/test_group.yaml
}  # fmt: skip


def test_the_package_table_names_only_keys_the_schema_and_parser_know() -> None:
    schema = json.loads((SCHEMAS / "problem.schema.json").read_text())["$defs"]["package"]["properties"]
    named = set()
    for row in table(FORMATS.read_text(), "| package | entry |"):
        for span in spans(row[0]):
            key = re.fullmatch(r"([a-z_]+)(?:\.([a-z_]+)|: .*)?", span)
            if key and key.group(1) not in NOT_TOP_LEVEL and not span.endswith(".yaml"):
                named.add(key.group(1))
                if key.group(2):  # limits.time_limit: a key inside another
                    assert key.group(2) in schema[key.group(1)]["properties"], span
    assert named - set(schema) == set(), "keys the package schema does not have"
    assert named - set(LEGACY_KEYS) - set(MODERN_KEYS) == set(), "keys the package parser does not read"
    assert {"name", "credits", "limits", "validation", "type", "constants", "keywords"} <= named


def test_every_language_of_languages_yaml_is_in_the_languages_table() -> None:
    text = VERIFICATION.read_text()
    rows = {row[0]: set(spans(row[1])) for row in table(text, "| language | files | compiled and run with |")}
    table_ = {language.name: set(language.suffixes) - {".py2"} for language in judge_languages().values()}
    assert rows == table_
    assert "`.py2`" in text  # shown as "not run: Python 2"


def test_the_package_table_says_which_submissions_run(make_archive: ArchiveMaker) -> None:
    """The rows of submissions/accepted/ against the verifier's own table: those said to run are the
    package's solvers, in every language it runs; the others are shown, not run."""
    rows = [row for row in table(FORMATS.read_text(), "| package | entry |") if "submissions/accepted/" in row[0]]
    (run,) = [row for row in rows if "run on every sample" in row[1]]
    (shown,) = [row for row in rows if "not run" in row[1] and row is not run]
    runs = [span for span in spans(run[0]) if span.startswith(".")]
    others = [span for span in spans(shown[0]) if span.startswith(".")]
    every = {end for language in judge_languages().values() for end in language.suffixes} - {".py2"}
    assert set(runs) == every
    folder = "t/2024/A-package"
    files: dict[str, str | bytes] = {f"{folder}/problem.yaml": "name: Package\n"}
    files |= {f"{folder}/submissions/accepted/s{i}{end}": "x\n" for i, end in enumerate([*runs, *others])}
    _, entry = load_one(make_archive, files)
    assert sorted(Path(n).suffix for n in entry.layout.solvers) == sorted(runs)
    assert sorted(Path(n).suffix for n in entry.layout.shown) == sorted(others)


ECHO_VALIDATOR = """import sys
secret = open(sys.argv[1]).read().split()[0]
print(secret, flush=True)
sys.exit(42 if sys.stdin.readline().strip() == secret else 43)
"""


@pytest.mark.parametrize("validator", [True, False], ids=["with a validator", "without"])
def test_the_package_table_says_how_interactive_problems_run(
    make_archive: ArchiveMaker, tmp_path: Path, validator: bool
) -> None:
    """An interactive package's accepted submission runs against its output validator and is judged;
    without a validator it is published and not run, as the table's row says."""
    (row,) = [row for row in table(FORMATS.read_text(), "| package | entry |") if "`type: interactive`" in row[0]]
    assert "run as judges run it" in row[1] and "without an output validator, published and not run" in row[1]
    folder = "t/2024/A-echo"
    files: dict[str, str | bytes] = {
        f"{folder}/problem.yaml": "problem_format_version: 2025-09\nname: Echo\ntype: interactive\n",
        f"{folder}/data/sample/1.in": "7\n",
        f"{folder}/data/sample/1.ans": "7\n",
        f"{folder}/submissions/accepted/echo.py": "print(input(), flush=True)\n",
    }
    if validator:
        files[f"{folder}/output_validator/validator.py"] = ECHO_VALIDATOR
    archive = make_archive(files)
    sources, _ = load_archive(archive, "archive")
    report = verify_entries(sources, archive, VerifyOptions(cache_dir=tmp_path / "cache", jobs=1))
    (run,) = report.runs[folder]
    if validator:
        assert [v.code for v in run.verdicts] == ["AC"] and run.note == ""
    else:
        assert run.verdicts == () and run.note.startswith("not run: this interactive problem has no output validator")
