"""Which language a source file is written in, by its name (pure, and cheap to import)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# File extension (or exact name) -> Pygments lexer name; the table keeps lookups cheap and predictable.
LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".py3": "python",
    ".py2": "python",
    ".cpp": "cpp",
    ".c++": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".h": "cpp",
    ".c": "c",
    ".java": "java",
    ".kt": "kotlin",
    ".rs": "rust",
    ".go": "go",
    ".js": "javascript",
    ".ts": "typescript",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".cs": "csharp",
    ".rb": "ruby",
    ".tex": "latex",
    ".md": "markdown",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "bash",
    ".txt": "text",
    ".in": "text",
    ".ans": "text",
    ".out": "text",
}


def suffix(name: str) -> str:
    """The lower-case extension of a posix path's last part ("" for none or a dot file), as
    ``PurePosixPath(name).suffix.lower()`` but without building a path object."""
    base = name[name.rfind("/") + 1 :]
    dot = base.rfind(".")
    return base[dot:].lower() if dot > 0 else ""


def language_for(filename: str) -> str | None:
    """The lexer name for a file, or None when it is not a known source language."""
    return LANGUAGES.get(suffix(filename))


@dataclass(frozen=True, slots=True)
class JudgeLanguage:
    """A language verification runs, as ``languages.yaml`` describes it."""

    id: str
    name: str
    suffixes: tuple[str, ...]
    tools: tuple[str, ...]
    run: tuple[str, ...]
    compile: tuple[str, ...] = ()
    version: tuple[str, ...] = ()
    program: str = "program"
    threads: bool = False
    sysroot: tuple[str, ...] = ()
    pypy: str = ""  # the PyPy command that runs ``{python}`` programs when installed (see languages.yaml)


TABLE = Path(__file__).resolve().parent.parent / "languages.yaml"
# The order solvers are listed in on a page: Python first, then C++, then the others as the table has them.
FIRST = ("python", "cpp")


@lru_cache(maxsize=1)
def judge_languages() -> dict[str, JudgeLanguage]:
    """Every language of ``languages.yaml``, by id, in the order pages list them."""
    import yaml  # only builds that verify or lay out solvers read the table

    data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    found = {
        key: JudgeLanguage(
            id=key,
            name=str(spec["name"]),
            suffixes=tuple(spec["suffixes"]),
            tools=tuple(spec.get("tools", ())),
            run=tuple(spec["run"]),
            compile=tuple(spec.get("compile", ())),
            version=tuple(spec.get("version", ())),
            program=str(spec.get("program", "program")),
            threads=bool(spec.get("threads", False)),
            sysroot=tuple(spec.get("sysroot", ())),
            pypy=str(spec.get("pypy", "")),
        )
        for key, spec in data.items()
    }
    order = [*FIRST, *(k for k in found if k not in FIRST)]
    return {key: found[key] for key in order if key in found}


@lru_cache(maxsize=256)
def judge_language(filename: str) -> JudgeLanguage | None:
    """The language verification runs a solver file as, by its suffix (None: it cannot run one)."""
    end = suffix(filename)
    return next((lang for lang in judge_languages().values() if end in lang.suffixes), None)


def judge_order(filename: str) -> int:
    language = judge_language(filename)
    return list(judge_languages()).index(language.id) if language else len(judge_languages())
