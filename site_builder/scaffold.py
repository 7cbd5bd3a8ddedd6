"""``site-builder new``: the files of a new problem folder (pure), and creating them without overwriting."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from .errors import SiteError
from .source.paths import infer_folder_name
from .source.walk import is_problem_dir

TEX = r"""\documentclass{article}
\usepackage{amsmath,amsthm}
\newtheorem{lemma}{Lemma}
\title{%(title)s}
\begin{document}
\maketitle

\section{Idea}
One paragraph: the key observation, in plain words.

\section{Algorithm}
\begin{enumerate}
  \item First step.
  \item Second step.
\end{enumerate}

\section{Complexity}
$O(n \log n)$ time and $O(n)$ memory.
\end{document}
"""

MARKDOWN = """## Idea

One paragraph: the key observation, in plain words.

## Algorithm

1. First step.
2. Second step.

## Complexity

$O(n \\log n)$ time and $O(n)$ memory.
"""

# The new entry's sample and solver are a working example (two numbers in, their sum out), so that
# its first build verifies it as a real one would be: the author replaces both with the problem's own.
SOLVER = """import sys


def main() -> None:
    # The example: two integers in, their sum out. Replace it with the problem's solution.
    a, b = map(int, sys.stdin.read().split())
    print(a + b)


main()
"""

STATEMENT = """## Story

What the problem asks, in our own words.

## Input

Two integers $a$ and $b$ (an example: replace it, and `samples/1.in` and `samples/1.ans`, with the problem's own).

## Output

Their sum $a + b$.
"""


def new_entry_files(relative: str, markdown: bool) -> dict[str, str]:
    """The files of a new entry at ``relative`` (a path inside the archive, like icpc/2024/A-title)."""
    parts = PurePosixPath(relative).parts
    if not parts or any(p in ("..", ".") or p.startswith(".") for p in parts):  # (at the top: the problems track)
        raise SiteError(relative, None, "give the new entry's path inside the archive, like icpc/2024/A-some-title")
    name = infer_folder_name(parts[-1])
    lines = [f"title: {name.title}"]
    if name.label:
        lines.append(f"label: {name.label}")
    lines += ["tags: []", "status: draft"]
    files = {
        "problem.yaml": "\n".join(lines) + "\n",
        "statement.md": STATEMENT,
        "solution.py": SOLVER,
        "samples/1.in": "1 2\n",
        "samples/1.ans": "3\n",
    }
    files["solution.md" if markdown else "solution.tex"] = MARKDOWN if markdown else TEX % {"title": name.title}
    return files


def create_entry(archive: Path, relative: str, markdown: bool, shown: str) -> list[Path]:
    """Create the folder and its files; refuse to overwrite anything that exists."""
    files = new_entry_files(relative, markdown)
    folder = archive / relative
    if (holder := _problem_folder_above(archive, folder)) is not None:
        where = f"{shown}/{holder.relative_to(archive).as_posix()}" if holder != archive else shown
        why = (
            "this archive is one problem folder (a package's own repository), so every folder in it is one of its files"
            if holder == archive
            else "a problem folder: every folder in it is one of its files"
        )
        raise SiteError(where, None, f"{why}, never an entry of its own; nothing was created")
    existing = [name for name in files if (folder / name).exists()]
    if existing:
        raise SiteError(f"{shown}/{relative}/{existing[0]}", None, "already exists; nothing was created")
    created = []
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
        created.append(path)
    return created


def _problem_folder_above(archive: Path, folder: Path) -> Path | None:
    """The problem folder (the archive itself, in a package's own repository) that would hold ``folder``:
    a build reads nothing below one as an entry."""
    for above in reversed(folder.parents):  # from the archive down
        if above.is_relative_to(archive) and is_problem_dir(above):
            return above
    return None
