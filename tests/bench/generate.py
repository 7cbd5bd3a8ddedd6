"""Deterministic synthetic archives for the benchmark: N entries with realistic sizes and variety.

Each entry has a ~6 KB LaTeX write-up (one in five: Markdown) with nested lists, a lemma, a table
and ~30 math snippets, a ~4 KB statement, a ~300-line solution.cpp, a ~120-line solution.py that
really solves its samples, and 2-3 samples. Every file differs from entry to entry, so no cache
can serve one entry's work to another.

    python tests/bench/generate.py OUT_DIR N
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

WORDS = [
    "array",
    "segment",
    "query",
    "prefix",
    "suffix",
    "window",
    "interval",
    "graph",
    "vertex",
    "edge",
    "weight",
    "path",
    "cycle",
    "tree",
    "root",
    "leaf",
    "parent",
    "child",
    "subtree",
    "depth",
    "order",
    "sort",
    "greedy",
    "exchange",
    "argument",
    "invariant",
    "potential",
    "amortised",
    "bound",
    "counter",
    "pointer",
    "stack",
    "queue",
    "heap",
    "bucket",
    "block",
    "sweep",
    "event",
    "boundary",
    "candidate",
    "optimum",
    "answer",
    "sample",
    "modulo",
    "residue",
    "parity",
    "divisor",
    "prime",
    "factor",
    "product",
    "sum",
    "difference",
    "maximum",
    "minimum",
    "median",
    "balance",
]
TRACKS = ("icpc", "codeforces", "classics", "atcoder")


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def sentence(rng: random.Random, math: bool = True) -> str:
    parts = [words(rng, rng.randint(6, 12))]
    if math:
        a, b = rng.randint(2, 9), rng.randint(10, 99)
        parts.append(
            rng.choice(
                [
                    f"$a_{{{a}}} + {b}$",
                    "$O(n \\log n)$",
                    f"$\\sum_{{i=1}}^{{{a}}} x_i$",
                    f"$\\binom{{n}}{{{a}}}$",
                    f"$x \\bmod {b}$",
                    f"$\\lfloor n/{a} \\rfloor$",
                ]
            )
        )
    parts.append(words(rng, rng.randint(4, 9)))
    return (" ".join(parts)).capitalize() + "."


def paragraph(rng: random.Random, sentences: int = 4) -> str:
    return "\n".join(sentence(rng, math=rng.random() < 0.3) for _ in range(sentences))


def latex_writeup(rng: random.Random, title: str, weight: int, modulus: int) -> str:
    out = [
        "\\documentclass{article}\n\\usepackage{amsmath,amsthm}\n\\newtheorem{lemma}{Lemma}",
        f"\\title{{{title}}}\n\\begin{{document}}\n\\maketitle",
        "\\section{Idea}",
        paragraph(rng, 5),
        f"The answer is $\\left(\\sum_{{j=1}}^{{n}} {weight} a_j\\right) \\bmod {modulus}$, which we justify below.",
        "\\begin{lemma}[Linearity]",
        paragraph(rng, 2),
        "\\end{lemma}\n\\begin{proof}",
        paragraph(rng, 3),
        f"\\[ \\sum_{{j=1}}^{{n}} {weight} a_j \\equiv {weight} \\sum_{{j=1}}^{{n}} a_j \\pmod{{{modulus}}} \\]",
        "\\end{proof}",
        "\\section{Algorithm}",
        "\\begin{enumerate}[leftmargin=*]",
    ]
    for _ in range(3):
        out.append(f"  \\item {sentence(rng)}")
        out.append("  \\begin{enumerate}")
        for _ in range(2):
            out.append(f"    \\item {sentence(rng)}")
            out.append("    \\begin{itemize}")
            out += [f"      \\item {sentence(rng)}" for _ in range(2)]
            out.append("    \\end{itemize}")
        out.append("  \\end{enumerate}")
    out.append("\\end{enumerate}")
    out += ["\\section{Correctness}", paragraph(rng, 6), "\\paragraph{Lemma 2.}", paragraph(rng, 4)]
    out += ["\\begin{align}", f"f(0) &= {weight} \\\\", f"f(k) &= f(k-1) + {modulus % 97} k", "\\end{align}"]
    out += ["\\section{Complexity}", "\\begin{tabular}{l|r}", "Part & Cost \\\\ \\hline"]
    out += [f"{words(rng, 2)} & $O(n^{rng.randint(1, 2)})$ \\\\" for _ in range(4)]
    out += ["\\end{tabular}", "", paragraph(rng, 4), "\\section{Pitfalls}", "\\begin{itemize}"]
    out += [f"  \\item \\textbf{{{words(rng, 2)}.}} {sentence(rng)}" for _ in range(5)]
    out += ["\\end{itemize}", paragraph(rng, 5), "\\end{document}", ""]
    return "\n".join(out)


def markdown_writeup(rng: random.Random, weight: int, modulus: int) -> str:
    out = [
        "## Idea",
        "",
        paragraph(rng, 6),
        "",
        f"The answer is $\\left(\\sum_j {weight} a_j\\right) \\bmod {modulus}$.",
        "",
    ]
    out += [
        "$$",
        f"\\sum_{{j=1}}^{{n}} {weight} a_j \\equiv {weight} \\sum_{{j=1}}^{{n}} a_j",
        "$$",
        "",
        "## Algorithm",
        "",
    ]
    for k in range(1, 4):
        out.append(f"{k}. {sentence(rng)}")
        out += [f"   - {sentence(rng)}" for _ in range(3)]
    out += ["", "## Correctness", "", paragraph(rng, 8), "", "| Part | Cost |", "|---|---:|"]
    out += [f"| {words(rng, 2)} | $O(n)$ |" for _ in range(4)]
    out += ["", "## Pitfalls", ""] + [f"- **{words(rng, 2)}.** {sentence(rng)}" for _ in range(6)]
    out += ["", paragraph(rng, 8), ""]
    return "\n".join(out)


def statement(rng: random.Random, modulus: int) -> str:
    out = ["## Story", "", paragraph(rng, 9), "", paragraph(rng, 8), "", "## Task", "", paragraph(rng, 6), ""]
    out += [
        "## Input",
        "",
        "The first line holds $n$ ($1 \\le n \\le 2 \\cdot 10^5$). The second line holds $a_1, \\dots, a_n$.",
        "",
    ]
    out += ["## Output", "", f"Print one integer modulo ${modulus}$.", "", "## Notes", "", paragraph(rng, 6), ""]
    return "\n".join(out)


def python_solver(rng: random.Random, weight: int, modulus: int) -> str:
    helpers = []
    for k in range(9):
        name = f"{rng.choice(WORDS)}_{k}"
        helpers.append(
            f"def {name}(values, bound={rng.randint(2, 99)}):\n"
            f'    """{words(rng, 8)}."""\n'
            "    total = 0\n"
            "    for index, value in enumerate(values):\n"
            "        if index % bound == 0:\n"
            f"            total += value * {rng.randint(1, 9)}\n"
            "        else:\n"
            "            total -= value\n"
            "    return total\n"
        )
    body = "\n\n".join(helpers)
    return (
        f'"""Reference solver: weighted sum modulo {modulus}. {words(rng, 10)}."""\n'
        "import sys\n\n"
        f"WEIGHT = {weight}\nMODULUS = {modulus}\n\n\n"
        f"{body}\n\n"
        "def solve(values):\n"
        "    total = 0\n"
        "    for value in values:\n"
        "        total = (total + WEIGHT * value) % MODULUS\n"
        "    return total\n\n\n"
        "def main():\n"
        "    data = sys.stdin.read().split()\n"
        "    n = int(data[0])\n"
        "    values = list(map(int, data[1 : 1 + n]))\n"
        "    print(solve(values))\n\n\n"
        "main()\n"
    )


def cpp_solver(rng: random.Random, weight: int, modulus: int) -> str:
    blocks = []
    for k in range(17):
        name = f"{rng.choice(WORDS)}{k}"
        blocks.append(
            f"// {words(rng, 9)}\n"
            f"struct {name.capitalize()} {{\n"
            "    std::vector<long long> data;\n"
            f"    explicit {name.capitalize()}(int n) : data(n + 1, {rng.randint(0, 9)}) {{}}\n"
            "    void add(int index, long long value) {\n"
            "        for (++index; index < (int)data.size(); index += index & -index) data[index] += value;\n"
            "    }\n"
            "    long long sum(int index) const {\n"
            "        long long total = 0;\n"
            "        for (++index; index > 0; index -= index & -index) total += data[index];\n"
            "        return total;\n"
            "    }\n"
            "    long long range(int left, int right) const {\n"
            f"        return sum(right) - (left ? sum(left - 1) : {rng.randint(0, 3)});\n"
            "    }\n"
            "};\n"
        )
    return (
        f"// Reference solver: weighted sum modulo {modulus}. {words(rng, 8)}\n"
        "#include <cstdio>\n#include <vector>\n\n"
        f"static const long long WEIGHT = {weight};\nstatic const long long MODULUS = {modulus};\n\n"
        + "\n".join(blocks)
        + "\nint main() {\n"
        "    int n;\n"
        '    if (std::scanf("%d", &n) != 1) return 0;\n'
        "    long long total = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        long long value;\n"
        '        std::scanf("%lld", &value);\n'
        "        total = ((total + WEIGHT * value) % MODULUS + MODULUS) % MODULUS;\n"
        "    }\n"
        '    std::printf("%lld\\n", total);\n'
        "}\n"
    )


def write_entry(root: Path, index: int) -> None:
    rng = random.Random(index * 7919 + 17)
    track = TRACKS[index % len(TRACKS)]
    year = 2000 + index % 25
    label = "ABCDEFGHIJKL"[index % 12]
    slug = f"{label}-{rng.choice(WORDS)}-{rng.choice(WORDS)}-{index}"
    folder = root / track / str(year) / slug
    (folder / "samples").mkdir(parents=True, exist_ok=True)
    weight, modulus = rng.randint(2, 50), rng.choice([998244353, 1000000007, 1000003, 65537]) + index
    title = slug.split("-", 1)[1].replace("-", " ").title()
    tags = sorted({rng.choice(["math", "greedy", "dp", "graphs", "sorting", "strings", "geometry"]) for _ in range(2)})
    (folder / "problem.yaml").write_text(
        f"title: {title}\nlabel: {label}\nyear: {year}\nsource: Synthetic Round {index}\ntags: [{', '.join(tags)}]\n"
        f"rating: {800 + 100 * (index % 20)}\ntime_limit: 2\n"
    )
    (folder / "statement.md").write_text(statement(rng, modulus))
    if index % 5 == 4:
        (folder / "solution.md").write_text(markdown_writeup(rng, weight, modulus))
    else:
        (folder / "solution.tex").write_text(latex_writeup(rng, title, weight, modulus))
    (folder / "solution.py").write_text(python_solver(rng, weight, modulus))
    (folder / "solution.cpp").write_text(cpp_solver(rng, weight, modulus))
    for sample in range(1, 2 + index % 2 + 1):
        values = [rng.randint(-(10**9), 10**9) for _ in range(rng.randint(1, 8))]
        (folder / "samples" / f"{sample}.in").write_text(f"{len(values)}\n{' '.join(map(str, values))}\n")
        (folder / "samples" / f"{sample}.ans").write_text(f"{sum(weight * v for v in values) % modulus}\n")


def generate(root: Path, count: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text("title: Benchmark Archive\nbase_url: https://bench.example.org/\n")
    for index in range(count):
        write_entry(root, index)


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(sys.argv[2]))
