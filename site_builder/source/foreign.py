"""Problem folders in other judges' formats, read from disk: Polygon packages and CMS tasks.

What their files mean is ``polygon.py``'s and ``cms.py``'s (pure); this module reads the file that
describes the folder (``problem.xml``, ``task.yaml``) and the samples those name, which may be test
data the archive walk only hashed (Polygon's ``tests/01``): those few are read now.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..errors import Diagnostic, MetadataError, SiteError
from ..model import MAX_TEXT_BYTES, Layout, Metadata, Sample, SourceFile
from .cms import cms_layout, cms_metadata, expected_on_samples, statement_examples
from .cms import sample_pairs as cms_samples
from .constraints import task_maker_constants
from .polygon import PolygonProblem, is_polygon, parse_problem_xml, polygon_layout, polygon_metadata, sample_pairs
from .yamlfile import Memo, parse_yaml_mapping

Hashed = Callable[[str], bool]  # whether the archive walk only hashed a file (``testdata.hashed_only``)


def load_polygon(
    files: list[SourceFile], folder: Path, where: str, diagnostics: list[Diagnostic], hashed: Hashed
) -> tuple[Metadata, Layout, list[Sample]]:
    """A Polygon package: its ``problem.xml``, and the samples it names."""
    item = next(f for f in files if is_polygon({f.name}))
    problem = PolygonProblem()
    try:
        if item.text is None:
            raise MetadataError(f"{where}/{item.name}", None, f"cannot read it: {item.binary}")
        problem = parse_problem_xml(item.text, f"{where}/{item.name}")
    except SiteError as e:
        diagnostics.append(e.diagnostic())
    names = [f.name for f in files]
    samples = load_sample_pairs(sample_pairs(problem, names), files, folder, where, diagnostics, hashed)
    return polygon_metadata(problem, set(names)), polygon_layout(names, problem, bool(samples)), samples


def load_cms(
    files: list[SourceFile],
    folder: Path,
    where: str,
    diagnostics: list[Diagnostic],
    hashed: Hashed,
    memo: Memo | None = None,
) -> tuple[Metadata, Layout, list[Sample]]:
    """A CMS task: its ``task.yaml``, ``gen/GEN`` and the samples in ``att/``."""
    by_name = {f.name: f for f in files}
    item = by_name.get("task.yaml") or by_name["task.yml"]
    path, meta = f"{where}/{item.name}", Metadata(package="cms")
    gen = by_name.get("gen/GEN")
    primary = ""
    try:
        data, lines = parse_yaml_mapping(item.text, path, MetadataError, memo) if item.text else ({}, {})
        meta = cms_metadata(data, lines, path, gen.text if gen else None)
        primary = str(data.get("primary_language") or "")
    except SiteError as e:
        diagnostics.append(e.diagnostic())
    if constants := task_maker_constants(by_name, where, diagnostics, memo):
        meta = replace(meta, constants=constants)
    names = [f.name for f in files]
    samples = load_sample_pairs(cms_samples(names), files, folder, where, diagnostics, hashed)
    accepted = expected_on_samples({f.name: f.text for f in files if f.name.startswith("sol/")})
    if not samples:
        samples = _statement_samples(cms_layout(names, False, primary, accepted), by_name)
    return meta, cms_layout(names, bool(samples), primary, accepted), samples


def _statement_samples(layout: Layout, by_name: dict[str, SourceFile]) -> list[Sample]:
    """A CMS task without sample files: the examples its TeX statement writes (``\\exmp{input}{output}``)."""
    statement = layout.statements[0][1] if layout.statements else None
    item = by_name.get(statement) if statement and statement.endswith(".tex") else None
    if item is None or item.text is None:
        return []
    examples = enumerate(statement_examples(item.text), 1)
    return [Sample(str(n), item.name, item.name, given, wanted, line=line) for n, (line, given, wanted) in examples]


def load_sample_pairs(
    pairs: list[tuple[str, str | None]],
    files: list[SourceFile],
    folder: Path,
    where: str,
    diagnostics: list[Diagnostic],
    hashed: Hashed,
) -> list[Sample]:
    """Samples named by a package's own rules, (input, answer or None) each; a sample that is also
    test data (Polygon's ``tests/01``), hashed only when the folder was read, is read now."""
    by_name = {f.name: f for f in files}
    samples = []
    for given, answer in pairs:
        texts = [_sample_text(by_name[n], folder, where, diagnostics, hashed) if n else None for n in (given, answer)]
        if texts[0] is None or (answer and texts[1] is None):
            continue
        stem = given.rsplit("/", 1)[-1].removeprefix("example.").removesuffix(".txt")
        stem = re.sub(r"^(?:[\w-]+\.)?input(?=\d+$)", "", stem)  # input0, paletta.input0: "0"
        samples.append(Sample(stem, given, answer, texts[0], texts[1]))
    return samples


def _sample_text(
    item: SourceFile, folder: Path, where: str, diagnostics: list[Diagnostic], hashed: Hashed
) -> str | None:
    text, why = item.text, item.binary
    if text is None and hashed(item.name) and item.size <= MAX_TEXT_BYTES:
        try:
            text = (folder / item.name).read_bytes().decode("utf-8").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError) as e:
            why = str(e)
    if text is None:
        diagnostics.append(Diagnostic(f"{where}/{item.name}", 0, f"sample file cannot be shown: {why}"))
    return text
