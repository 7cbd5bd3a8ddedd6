"""Which language a source file is written in, by its name (pure, and cheap to import)."""

from __future__ import annotations

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
LANGUAGE_NAMES = {
    "python": "Python",
    "cpp": "C++",
    "c": "C",
    "java": "Java",
    "kotlin": "Kotlin",
    "rust": "Rust",
    "go": "Go",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "haskell": "Haskell",
    "ocaml": "OCaml",
    "csharp": "C#",
    "ruby": "Ruby",
    "latex": "LaTeX",
    "markdown": "Markdown",
    "yaml": "YAML",
    "bash": "Shell",
    "text": "Text",
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


def language_name(language: str) -> str:
    return LANGUAGE_NAMES.get(language, language)
