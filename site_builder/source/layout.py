"""Which file of a problem folder plays which role, for our own folders and ICPC problem packages (pure).

Our own folder: ``statement.{md,tex,txt}``, ``solution.{tex,md}``, ``solution.py``/``solution.cpp``,
``checker.py``. An ICPC/Kattis package: ``statement/problem.<lang>.{tex,md}`` (legacy:
``problem_statement/problem[.<lang>].tex``), ``solution/solution[.<lang>].{tex,md}`` (legacy:
``problem_statement/solution[.<lang>].tex``), ``submissions/accepted/*``, and ``output_validator/``
(legacy: ``output_validators/<name>/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..model import MISSING_WRITEUP, Layout, Metadata, Validator
from .languages import judge_language, judge_languages, judge_order, language_for, suffix

WRITEUPS = ("solution.tex", "solution.md")
STATEMENTS = ("statement.md", "statement.tex", "statement.txt")
CPP_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c++"})
DOCUMENT_LANGUAGE = r"(?:\.([a-z]{2,3}(?:-[A-Z]{2})?))?"
_STATEMENT = re.compile(r"^(statement|problem_statement)/problem" + DOCUMENT_LANGUAGE + r"\.(tex|md|pdf)$")
_WRITEUP = re.compile(r"^(solution|problem_statement)/solution" + DOCUMENT_LANGUAGE + r"\.(tex|md)$")


def native_layout(names: list[str]) -> Layout:
    """Roles in one of our own problem folders."""
    present = set(names)
    statement = next((n for n in STATEMENTS if n in present), None)
    top = [n for n in names if "/" not in n and n.startswith("solution.") and n not in WRITEUPS]
    code = [n for n in top if language_for(n) not in (None, "text", "markdown", "latex")]
    return Layout(
        statements=(("en", statement),) if statement else (),
        statement_pdf="statement.pdf" if "statement.pdf" in present else None,
        writeup=next((n for n in WRITEUPS if n in present), None),
        solvers=tuple(_by_language(n for n in code if judge_language(n))),
        shown=tuple(sorted(n for n in code if not judge_language(n))),
        validator=Validator("", "python", "checker.py", ("checker.py",)) if "checker.py" in present else None,
    )


def package_layout(names: list[str], meta: Metadata, has_samples: bool) -> Layout:
    """Roles in an ICPC problem package; ``missing`` says, in words, which parts it lacks."""
    statements = _documents(names, _STATEMENT, ("statement", "problem_statement"), ("tex", "md"))
    pdfs = _documents(names, _STATEMENT, ("statement", "problem_statement"), ("pdf",))
    writeups = _documents(names, _WRITEUP, ("solution", "problem_statement"), ("tex", "md"))
    accepted = [n for n in names if n.startswith("submissions/accepted/") and n.count("/") == 2]
    code = [n for n in accepted if language_for(n) not in (None, "text", "markdown", "latex", "yaml")]
    solvers = _by_language(n for n in code if judge_language(n)) + scripted_submissions(names)
    missing = []
    if not statements and not pdfs:
        missing.append("a statement (statement/problem.en.tex or .md; legacy: problem_statement/problem.en.tex)")
    if not has_samples and "generators/generators.yaml" in names:  # BAPCtools makes data/ from it
        missing.append(
            "samples (data/sample/*.in with *.ans; generators/generators.yaml makes them, which this build"
            " does not run: commit data/sample/)"
        )
    elif not has_samples:
        missing.append("samples (data/sample/*.in with *.ans)")
    if not accepted and not solvers:
        missing.append("an accepted submission (submissions/accepted/)")
    if not writeups:
        missing.append(MISSING_WRITEUP)
    validator = package_validator(names)
    if meta.validation == "custom" and validator is None:
        missing.append("the output validator that problem.yaml asks for (output_validator/)")
    return Layout(
        statements=tuple(statements),
        statement_pdf=pdfs[0][1] if pdfs else None,
        writeup=writeups[0][1] if writeups else None,
        solvers=tuple(solvers),
        shown=tuple(sorted(n for n in code if n not in solvers)),
        validator=validator if meta.validation != "default" else None,
        missing=tuple(missing),
    )


def not_held_to_accepted(solvers: tuple[str, ...], expectations: dict[str, Any]) -> frozenset[str]:
    """The solvers (``submissions/accepted/...``) that ``submissions/submissions.yaml`` (2025-09, parsed:
    ``expectations``) permits a verdict other than Accepted: a key that matches the submission's path
    (relative to ``submissions/``) or one of its folders, as a glob (``*`` within one name, ``{a,b}``
    either), with ``permitted`` other than ``[AC]``. Only what rules a solver out is read: test groups'
    own expectations, ``required`` and scores are for judges."""
    ruled: set[str] = set()
    for key, rules in expectations.items():
        permitted = rules.get("permitted") if isinstance(rules, dict) else None
        if not isinstance(permitted, list) or [str(v).upper() for v in permitted] == ["AC"]:
            continue
        alternatives = _braces(str(key))
        if len(alternatives) > MAX_ALTERNATIVES:
            continue  # a key no author writes (``{a,b}`` forty times is 2**40 globs): rules nothing out
        patterns = [re.compile(_glob(p)) for p in alternatives]
        for name in solvers:
            parts = name.split("/")[1:]  # below submissions/
            paths = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
            if any(p.fullmatch(path) for p in patterns for path in paths):
                ruled.add(name)
    return frozenset(ruled)


MAX_ALTERNATIVES = 1000  # globs a key of submissions.yaml may expand to


def _braces(pattern: str) -> list[str]:
    """A glob's ``{a,b}`` alternatives, expanded (the first group first, each expanded again); more than
    ``MAX_ALTERNATIVES + 1`` are not made (the caller sees too many)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern.strip()]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    expanded: list[str] = []
    for part in match.group(1).split(","):
        expanded += _braces(head + part.strip() + tail)
        if len(expanded) > MAX_ALTERNATIVES:
            break
    return expanded


def _glob(pattern: str) -> str:
    """A glob as a regular expression: ``*`` and ``?`` never cross a ``/``."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pattern)


def package_validator(names: list[str]) -> Validator | None:
    """``output_validator/`` (2025-09), else the first ``output_validator/<name>/`` (2023-07 drafts), else
    the first ``output_validators/<name>/`` (legacy)."""
    folders = ["output_validator"]
    for parent in ("output_validator/", "output_validators/"):
        folders += sorted({n.rsplit("/", 1)[0] for n in names if n.startswith(parent) and n.count("/") == 2})
    folders.append("output_validators")  # files placed directly in it
    for folder in folders:
        files = tuple(n for n in names if n.startswith(folder + "/") and n.count("/") == folder.count("/") + 1)
        if files:
            return _validator(folder, files)
    return None


def _validator(folder: str, files: tuple[str, ...]) -> Validator:
    local = [n[len(folder) + 1 :] for n in files]
    if "build" in local or "run" in local:  # built by its own scripts, as the format says, whatever it holds
        return Validator(folder, SCRIPTED, "", files)
    python = sorted(n for n in local if suffix(n) in (".py", ".py3"))
    if python:
        main = _python_main(python)
        return Validator(folder, "python", main, files)
    for language in judge_languages().values():  # compiled into a program of its own: C++, C, Rust, Go
        if language.run == ("./program",) and any(suffix(n) in language.suffixes for n in local):
            return Validator(folder, language.id, "", files)
    languages = [language_for(n) for n in local]
    return Validator(folder, next((lang for lang in languages if lang), "unknown"), "", files)


SCRIPTED = "build-run"  # a validator's or submission's "language" when its folder has ``build``/``run`` scripts


def scripted_submissions(names: list[str]) -> list[str]:
    """The accepted submissions that are folders with ``build`` and/or ``run`` scripts, as the package format
    allows (``submissions/accepted/fast/``, named with the slash): built and run by their scripts."""
    folders = {
        n.rsplit("/", 1)[0] + "/"
        for n in names
        if n.startswith("submissions/accepted/") and n.count("/") == 3 and n.rsplit("/", 1)[1] in ("build", "run")
    }
    return sorted(folders)


def folder_files(names: Iterable[str], folder: str) -> list[str]:
    """The files under ``folder`` (a name ending in a slash), at any depth."""
    return sorted(n for n in names if n.startswith(folder) and n != folder)


WELL_KNOWN_MAINS = ("validator.py", "validate.py", "output_validator.py", "checker.py", "check.py")


def _python_main(python: list[str]) -> str:
    """The file to run: the only one, ``__main__.py``, ``main.*``, a well-known name, else the first by name."""
    if len(python) == 1:
        return python[0]
    lowered = {n.lower(): n for n in python}
    for name in ("__main__.py", "main.py", "main.py3", *WELL_KNOWN_MAINS):
        if name in lowered:
            return lowered[name]
    return python[0]


def _documents(
    names: list[str], pattern: re.Pattern[str], folders: tuple[str, ...], suffixes: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(language, file) of the documents in the first folder that has any, English first."""
    for folder in folders:
        found: dict[str, str] = {}
        for name in names:
            match = pattern.match(name)
            if match and match.group(1) == folder and match.group(3) in suffixes:
                found.setdefault(match.group(2) or "en", name)
        if found:
            return sorted(found.items(), key=lambda item: (item[0] != "en", item[0]))
    return []


def _by_language(names: Iterable[str]) -> list[str]:
    return sorted(names, key=lambda n: (judge_order(n), n))
