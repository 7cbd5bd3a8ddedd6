"""Which archive files a site publishes beside its pages: each entry's files but those it withholds,
byte for byte (SVG images sanitized), and none that a generated page would overwrite."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import Diagnostic
from ..model import EntrySource
from ..source.config import BuildOptions
from ..source.testdata import hashed_only
from . import output
from .outputs import Output
from .screening import is_svg


def plan_raw_files(
    options: BuildOptions,
    sources: list[EntrySource],
    outputs: list[Output] | list[str],
    sanitized: dict[str, Path],
) -> tuple[list[output.RawFile], list[Diagnostic]]:
    """Every archive file to publish beside its page: byte-identical, or, for SVG images, sanitized
    (``sanitized``, by path in the site); minus those withheld and those a page would overwrite."""
    pages = {o if isinstance(o, str) else o.path for o in outputs}
    raw: list[output.RawFile] = []
    problems: list[Diagnostic] = []
    for source in sources:
        folder = os.path.join(options.archive, source.path)
        withheld = {name for name, _ in source.withheld}
        for item in source.files:
            if item.name in withheld:
                continue
            target = f"{source.slug or source.path}/{item.name}"
            if target in pages:
                problems.append(
                    Diagnostic(
                        source.display_path(item.name), 0, "this file would overwrite the generated page; rename it"
                    )
                )
                continue
            clean = sanitized.get(target)
            if clean is not None:
                raw.append(output.RawFile(str(clean), target, clean.stem))
            elif not is_svg(item.name):
                raw.append(output.RawFile(f"{folder}/{item.name}", target, item.digest, hashed_only(item.name)))
    return raw, problems
