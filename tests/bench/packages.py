"""Deterministic ICPC problem packages with gigabytes of test data, for the data-heavy benchmark.

Each package has a ``problem.yaml`` with ``name`` (even ones 2025-09 with ``statement/``, odd ones
legacy with ``problem_statement/``), a ~3 KB ``problem.en.tex``, ``submissions/accepted/solution.py``
(generate.py's ~120-line solver) that really solves its ``data/sample/`` pairs, and ``data/secret/``
holding the bulk of the bytes. The secret files need not be realistic, only many and different: each
is a header naming it followed by its package's random block, repeated. The archive's secret cases
take their input sizes from ``SECRET_IN_KIB`` in turn (answers a sixteenth of their input) and go
to the packages in turn, so every package gets each size and, whatever the total, 60% of the bytes
are in files over 4 MiB (which the builder only hashes and copies) and the rest in smaller ones
(which it reads whole). Under ~0.8 GB in all, some packages get no secret cases.

    python tests/bench/packages.py OUT_DIR PACKAGES DATA_GB
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generate import WORDS, paragraph, python_solver

SECRET_IN_KIB = (96, 512, 1536, 3072, 3584, 6144, 9216)  # input sizes, cycled; answers are 1/16 of these
BLOCK_BYTES = 1 << 16  # each package's random block, repeated to fill its files
CHUNK_BYTES = 1 << 22  # written at a time


def statement(rng: random.Random, title: str, modulus: int) -> str:
    return "\n".join(
        [
            f"\\problemname{{{title}}}",
            "",
            paragraph(rng, 8),
            "",
            paragraph(rng, 6),
            "",
            "\\section*{Input}",
            "",
            "The first line holds $n$ ($1 \\le n \\le 2 \\cdot 10^5$). The second line holds $a_1, \\dots, a_n$.",
            "",
            "\\section*{Output}",
            "",
            f"Print one integer modulo ${modulus}$.",
            "",
            paragraph(rng, 4),
            "",
        ]
    )


def random_block(rng: random.Random) -> bytes:
    """BLOCK_BYTES of text: lines of 63 hexadecimal digits."""
    digits = rng.randbytes(BLOCK_BYTES // 2).hex().encode()
    return b"".join(digits[i : i + 63] + b"\n" for i in range(0, len(digits), 64))


def write_data_file(path: Path, header: str, block: bytes, size: int) -> None:
    """``header``, then ``block`` repeated, ``size`` bytes in all."""
    head = header.encode()[:size]
    chunk = block * (CHUNK_BYTES // len(block))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, head)
        left = size - len(head)
        while left > 0:
            left -= os.write(fd, chunk[: min(left, len(chunk))])
    finally:
        os.close(fd)


def secret_sizes(count: int, data_bytes: int) -> list[list[tuple[int, int]]]:
    """(input bytes, answer bytes) of each package's secret cases: case k of the archive has the
    k-th size of the cycle and goes to package k mod ``count``; the last is cut to make ``data_bytes``."""
    cases: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    left, step = data_bytes, 0
    while left > 0:
        wanted = SECRET_IN_KIB[step % len(SECRET_IN_KIB)] * 1024
        size_in = min(wanted, left * 16 // 17) or left
        size_ans = min(max(1, size_in // 16), left - size_in)
        cases[step % count].append((size_in, size_ans))
        left -= size_in + size_ans
        step += 1
    return cases


def write_package(root: Path, index: int, secret: list[tuple[int, int]]) -> Path:
    rng = random.Random(index * 104729 + 11)
    label = "ABCDEFGHIJKL"[index % 12]
    slug = f"{label}-{rng.choice(WORDS)}-{rng.choice(WORDS)}-{index}"
    folder = root / "icpc" / str(2000 + index // 12) / slug
    title = slug.split("-", 1)[1].replace("-", " ").title()
    weight, modulus = rng.randint(2, 50), rng.choice([998244353, 1000000007, 1000003, 65537]) + index
    modern = index % 2 == 0
    statement_dir = folder / ("statement" if modern else "problem_statement")
    for sub in (statement_dir, folder / "submissions/accepted", folder / "data/sample", folder / "data/secret"):
        sub.mkdir(parents=True, exist_ok=True)
    version = "problem_format_version: 2025-09\n" if modern else ""
    limits = "limits:\n  time_limit: 2\n" if modern else ""
    (folder / "problem.yaml").write_text(f"{version}name: {title}\nsource: Synthetic Data Cup {index}\n{limits}")
    (statement_dir / "problem.en.tex").write_text(statement(rng, title, modulus))
    (folder / "submissions/accepted/solution.py").write_text(python_solver(rng, weight, modulus))
    for sample in (1, 2):
        values = [rng.randint(-(10**9), 10**9) for _ in range(rng.randint(1, 8))]
        (folder / f"data/sample/{sample}.in").write_text(f"{len(values)}\n{' '.join(map(str, values))}\n")
        (folder / f"data/sample/{sample}.ans").write_text(f"{sum(weight * v for v in values) % modulus}\n")
    block = random_block(rng)
    for case, (size_in, size_ans) in enumerate(secret, 1):
        name = folder / f"data/secret/{case:02d}-case"
        write_data_file(name.with_suffix(".in"), f"{index} {case} {size_in}\n", block, size_in)
        write_data_file(name.with_suffix(".ans"), f"{index} {case} {size_ans}\n", block[::-1], size_ans)
    return folder


def generate_packages(root: Path, count: int, data_bytes: int) -> None:
    """``count`` packages whose secret data take ``data_bytes`` in all."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text("title: Data Benchmark Archive\nbase_url: https://bench.example.org/\n")
    for index, secret in enumerate(secret_sizes(count, data_bytes)):
        write_package(root, index, secret)


if __name__ == "__main__":
    generate_packages(Path(sys.argv[1]), int(sys.argv[2]), int(float(sys.argv[3]) * 10**9))
