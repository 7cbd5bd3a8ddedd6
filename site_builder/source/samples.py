"""An entry's samples: the files of its sample folders paired by name (``1.in`` with ``1.ans`` or
``1.out``, and an ``.interaction`` transcript), each pair that cannot be shown or run reported."""

from __future__ import annotations

from ..errors import Diagnostic
from ..model import Sample, SourceFile
from .paths import natural_key

SAMPLE_DIRS = ("samples", "data/sample")


def is_sample_file(rel: str) -> bool:
    return rel.startswith(tuple(f"{folder}/" for folder in SAMPLE_DIRS))


def _load_samples(files: list[SourceFile], where: str, diagnostics: list[Diagnostic]) -> list[Sample]:
    by_name = {f.name: f for f in files}
    samples: list[Sample] = []
    for folder in SAMPLE_DIRS:
        stems = sorted(
            {
                n[len(folder) + 1 :].rsplit(".", 1)[0]
                for n in by_name
                if n.startswith(folder + "/")
                and n.rsplit(".", 1)[-1] in ("in", "ans", "out", "interaction")
                and n.count("/") == folder.count("/") + 1
            },
            key=natural_key,
        )
        for stem in stems:
            sample = _pair(by_name, folder, stem, where, diagnostics)
            if sample is not None:
                samples.append(sample)
    return samples


def _pair(
    by_name: dict[str, SourceFile], folder: str, stem: str, where: str, diagnostics: list[Diagnostic]
) -> Sample | None:
    base = f"{folder}/{stem}"
    given = by_name.get(f"{base}.in")
    answer = by_name.get(f"{base}.ans") or by_name.get(f"{base}.out")
    transcript = by_name.get(f"{base}.interaction")
    if transcript is not None and transcript.text is None:
        why = transcript.binary or "not UTF-8 text"
        diagnostics.append(Diagnostic(f"{where}/{transcript.name}", 0, f"sample file cannot be shown: {why}"))
        transcript = None
    if given is None and transcript is not None:  # shown only: the judge's input is not given
        text = transcript.text or ""
        return Sample(stem, transcript.name, None, "", None, text, transcript.name)
    if given is None and answer is not None and answer.text is None and answer.name.endswith(".out"):
        # a program left in the folder (``a.out``, what a compiler writes by default), not an answer
        message = f"a binary file, not a sample answer ({answer.binary or 'not UTF-8 text'}); not read as one"
        diagnostics.append(Diagnostic(f"{where}/{answer.name}", 0, message, "warning"))
        return None
    if given is None:
        orphan = answer.name if answer else f"{base}.ans"
        diagnostics.append(Diagnostic(f"{where}/{orphan}", 0, f"answer file without input: add {base}.in"))
        return None
    if given.text is None or (answer is not None and answer.text is None):
        bad = given if given.text is None else answer
        assert bad is not None
        why = bad.binary or "not UTF-8 text"
        diagnostics.append(Diagnostic(f"{where}/{bad.name}", 0, f"sample file cannot be shown: {why}; {bad.remedy()}"))
        return None
    return Sample(
        name=stem,
        input_file=given.name,
        answer_file=answer.name if answer else None,
        input=given.text,
        answer=answer.text if answer else None,
        transcript=transcript.text if transcript else None,
        transcript_file=transcript.name if transcript else None,
    )
