"""CMS tasks (the Italian olympiad layout cmsImportTask reads): ``task.yaml`` into ``Metadata`` and a ``Layout`` (pure).

A folder is a CMS task when it has ``task.yaml`` (or ``task.yml`` beside ``sol/``, ``gen/``...). Its
statements are ``statement/statement.<language>.{md,tex}`` (one per language, English first) where it has
any, else ``statement/statement.{md,tex}`` or ``testo/testo.{md,tex}`` (any one ``.md``/``.tex`` there),
its PDF ``statement/statement.pdf`` or ``testo/testo.pdf`` (not an empty one); samples ``att/input0.txt``
with ``att/output0.txt`` (or ``statement/input0`` with ``output0``, or the statement's ``\\exmp``); solutions
``sol/*`` (not graders or stubs; only ``sol/soluzione.*`` where the task has it); the checker ``check/``
or ``cor/`` (``checker input correct_output contestant_output``, a score 0..1 on stdout), or a
communication task's manager; subtasks from ``score_type_parameters`` or ``gen/GEN``'s ``# ST: points`` lines.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import MetadataError
from ..model import Checker, Layout, Metadata, Subtask, Validator
from .languages import judge_language, judge_order, language_for
from .metadata import checked_time_limit

TASK_FILES = ("task.yaml", "task.yml")
CMS_FOLDERS = frozenset({"sol", "gen", "att", "testo", "cor", "check", "statement", "input", "output"})
STATEMENT_FOLDERS = ("statement", "testo")
CHECKER_FOLDERS = ("check", "cor")
NOT_SOLUTIONS = re.compile(r"^(grader|stub|manager)\b|validator|checker|generator|\.(h|hpp)$")
# The task's own solution, which cmsMake makes the expected outputs with (``sol/soluzione.cpp``, and its
# other languages' ``soluzione_py.py``): where there is one, it is what must pass.
REFERENCE = re.compile(r"^(soluzione|solution)([_.-]|$)")
_ST = re.compile(r"^\s*#\s*ST\s*:\s*(\d+(?:\.\d+)?)", re.IGNORECASE | re.MULTILINE)


def is_cms(names: set[str], folders: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether a problem folder is a CMS task (by its top-level file and folder names)."""
    return "task.yaml" in names or ("task.yml" in names and bool(folders & CMS_FOLDERS))


def cms_metadata(data: dict[str, Any], lines: dict[str, int], path: str, gen: str | None) -> Metadata:
    """``task.yaml`` (already parsed) and ``gen/GEN``'s text, when there is one."""
    title = data.get("title") or data.get("name")
    memory = data.get("memory_limit")
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, (int, float)) or memory <= 0):
        raise MetadataError(path, lines.get("memory_limit"), f"memory_limit must be a number of MiB, not {memory!r}")
    return Metadata(
        title=str(title).strip() if title is not None else None,
        time_limit=checked_time_limit(data.get("time_limit"), path, lines.get("time_limit"), "time_limit"),
        memory_limit=int(memory) if memory is not None else None,
        checker=Checker(),  # CMS's white-diff: tokens
        package="cms",
        subtasks=_subtasks(data, gen),
        io_files=(_io_file(data, "infile", lines, path), _io_file(data, "outfile", lines, path)),
        communication=_communication(data, lines, path),
    )


USER_IO = ("std_io", "fifo_io")


def _communication(data: dict[str, Any], lines: dict[str, int], path: str) -> tuple[int, str]:
    """A communication task's ``num_processes`` and ``user_io`` (``std_io``, ``fifo_io``, or "": as the
    stub decides), from ``task.yaml``'s keys, else from ``task_type_parameters`` (``[2, "stub", "fifo_io"]``,
    as CMS stores them); they matter only to a task with a manager."""
    parameters = data.get("task_type_parameters")
    given = parameters if isinstance(parameters, list) and len(parameters) == 3 else [None, None, None]
    processes = data.get("num_processes", given[0])
    if processes is None:
        processes = 1
    if isinstance(processes, str) and processes.strip().isdigit():
        processes = int(processes)
    if isinstance(processes, bool) or not isinstance(processes, int) or not 1 <= processes <= MAX_PROCESSES:
        where = lines.get("num_processes", lines.get("task_type_parameters"))
        raise MetadataError(
            path, where, f"num_processes must be a whole number from 1 to {MAX_PROCESSES}, not {processes!r}"
        )
    user_io = data.get("user_io", given[2])
    if user_io is not None and user_io not in USER_IO:
        where = lines.get("user_io", lines.get("task_type_parameters"))
        raise MetadataError(path, where, f"user_io must be std_io or fifo_io, not {user_io!r}")
    return processes, user_io or ""


MAX_PROCESSES = 8  # copies of a solution one communication task may run at once


IO_DEFAULTS = {"infile": "input.txt", "outfile": "output.txt"}  # as cmsImportTask's Italian loader reads it
_PLAIN_NAME = re.compile(r"^[\w][\w.+-]*$")


def _io_file(data: dict[str, Any], key: str, lines: dict[str, int], path: str) -> str:
    """The file ``infile``/``outfile`` names ("": standard input or output), a plain file name."""
    value = data.get(key, IO_DEFAULTS[key])
    name = "" if value is None else str(value).strip()
    if name and not _PLAIN_NAME.match(name):
        raise MetadataError(path, lines.get(key), f'{key} must be a plain file name (or ""), not {value!r}')
    return name


def _subtasks(data: dict[str, Any], gen: str | None) -> tuple[Subtask, ...]:
    """Each subtask, named by its number and what it covers, with its points: ``score_type_parameters``
    ([points, tests] pairs) of a group score type, else ``gen/GEN``'s ``# ST: points`` lines."""
    parameters = data.get("score_type_parameters")
    if isinstance(parameters, list) and all(isinstance(p, list) and len(p) >= 2 for p in parameters):
        found: list[Subtask] = []
        for points, tests in (p[:2] for p in parameters):
            if isinstance(points, (int, float)) and not isinstance(points, bool):
                covers = f"{tests} tests" if isinstance(tests, int) else _tests(str(tests))
                found.append(Subtask(f"{len(found) + 1} ({covers})", float(points)))
        return tuple(found)
    if gen:
        return tuple(Subtask(str(index), float(points)) for index, points in enumerate(_ST.findall(gen), 1))
    return ()


_TEST_LIST = re.compile(r"^\w+(?:\|\w+)+$")


def _tests(pattern: str) -> str:
    """The tests a group score type's regular expression names, in words: ``002|003|...|012`` (as task-maker
    writes them, one name per test) as ``11 tests: 002-012`` (when they are numbered one after another, else
    the first two and the last), so that a group of fifty is not a line of three hundred characters; any
    other expression as it is."""
    if not _TEST_LIST.match(pattern):
        return f"tests {pattern}"
    tests = pattern.split("|")
    if len(tests) <= 3:
        return "tests " + ", ".join(tests)
    numbers = [int(t) for t in tests if t.isascii() and t.isdigit() and len(t) < 19]  # not "²", nor 5,000 digits
    if numbers and numbers == list(range(numbers[0], numbers[0] + len(tests))):
        return f"{len(tests)} tests: {tests[0]}-{tests[-1]}"
    return f"{len(tests)} tests: {tests[0]}, {tests[1]} ... {tests[-1]}"


# task-maker's expectations, in a solution's first lines: ``# @check-accepted: *``, ``// @check-wrong-answer:
# examples all`` (the subtasks, by their GEN ``#STNAME:``, where the solution gets that verdict).
_CHECK = re.compile(r"@check-([a-z-]+)\s*:([^\n]*)")
SAMPLE_SUBTASKS = frozenset({"*", "examples", "example", "samples", "sample"})


def expected_on_samples(texts: dict[str, str | None]) -> frozenset[str] | None:
    """The solutions (``sol/...`` names) task-maker's ``@check-accepted`` says pass the samples: every
    subtask (``*``), or the examples' one; None when no solution says what it expects. ``cms_layout`` runs
    the task's own solution among them, else all of them; one expected to fail, or that says nothing
    beside others that do, is shown, not run."""
    expected: dict[str, bool] = {}
    for name, text in texts.items():
        found = _CHECK.findall("\n".join((text or "").splitlines()[:20]))
        if found:
            accepted = [set(subtasks.lower().split()) for verdict, subtasks in found if verdict == "accepted"]
            expected[name] = any(subtasks & SAMPLE_SUBTASKS for subtasks in accepted)
    return frozenset(n for n, passes in expected.items() if passes) if expected else None


def cms_layout(
    names: list[str], has_samples: bool, primary: str = "", accepted: frozenset[str] | None = None
) -> Layout:
    """Roles in a CMS task; ``missing`` names each part it lacks. ``primary``: ``task.yaml``'s
    ``primary_language``, whose statement comes first; ``accepted``: ``expected_on_samples``."""
    statements = _statements(names, primary)
    pdf = _statement(names, ("pdf",))
    solutions = [n for n in names if n.startswith("sol/") and n.count("/") == 1]
    runnable = [n for n in solutions if not NOT_SOLUTIONS.search(n[4:]) and language_for(n) not in (None, "text")]
    solvers = sorted((n for n in runnable if judge_language(n)), key=lambda n: (judge_order(n), n))
    # The task's own solution, where its annotations (if any solution has them) do not say it fails; else
    # those the annotations say pass; the others beside them are slow, partial or wrong on purpose: shown.
    # Authors copy ``@check-accepted: *`` into wrong solutions too: the name says more when there is one.
    reference = [n for n in solvers if REFERENCE.match(n[4:]) and (accepted is None or n in accepted)]
    solvers = reference or [n for n in solvers if accepted is None or n in accepted]
    manager = _manager(names)
    if manager is not None:  # a communication task: solutions are linked with the stub of their language
        graders = [n for n in solutions if n[4:].startswith("stub.")]
        linked = _linked_graders(names, graders, "stub.")
    else:
        graders = [n for n in solutions if n[4:].startswith(("grader", "stub"))]
        graders += [n for n in names if re.fullmatch(r"att/grader\.\w+", n)]  # the one given to contestants
        graders += [n for n in names if re.fullmatch(r"(check|cor)/manager\.?\w*", n)]  # a manager we cannot build
        linked = _linked_graders(names, graders, "grader.") if not any("/manager" in g for g in graders) else []
    languages = {_language_id(g) for g in linked if not g.endswith(HEADERS)}
    missing = []
    if not statements and pdf is None:
        missing.append("a statement (statement/statement.md or .tex, or testo/testo.tex)")
    if not has_samples:
        missing.append("samples (att/input0.txt with att/output0.txt)")
    if not solvers:
        missing.append("a solution (sol/)")
    unlinked = [n for n in solvers if _language_id(n) not in languages] if graders else []
    if unlinked:  # a grader of their language is compiled with solvers; the others cannot run alone
        which = "solutions" if len(unlinked) == len(solvers) else ", ".join(unlinked)
        missing.append(f"a way to run {which} without {graders[0]} (they are shown, not run)")
        solvers = [n for n in solvers if n not in unlinked]
    return Layout(
        statements=tuple(statements),
        statement_pdf=pdf,
        graders=tuple(linked) if solvers else (),
        solvers=tuple(solvers),
        shown=tuple(sorted(n for n in runnable if n not in solvers)),
        validator=manager or _checker(names),
        missing=tuple(missing),
    )


HEADERS = (".h", ".hpp")


def _language_id(name: str) -> str:
    language = judge_language(name)
    return language.id if language is not None else ""


def _linked_graders(names: list[str], graders: list[str], prefix: str) -> list[str]:
    """The graders (``prefix``: ``grader.``, or a communication task's ``stub.``) a compiled solver is linked
    with (``att/grader.cpp``, else ``sol/grader.cpp``: one per compiled language), with the headers of their
    folder; none for an interpreted language. The one given to contestants first: it reads the samples as
    the statement shows them (the judge's may read another format, binary in the Italian olympiad's 2020 tasks)."""
    found: dict[str, str] = {}
    for name in sorted(graders, key=lambda n: not n.startswith("att/")):
        language = judge_language(name)
        if name.rsplit("/", 1)[-1].startswith(prefix) and language is not None and language.compile:
            found.setdefault(language.id, name)
    folders = {g.split("/")[0] for g in found.values()}
    headers = [n for n in names if n.count("/") == 1 and n.split("/")[0] in folders and n.endswith(HEADERS)]
    return sorted(found.values()) + sorted(headers)


# ``statement/statement.en.md``, ``testo/testo.it.tex``: one statement per language, as task folders that
# keep translations side by side name them (a two-letter code, perhaps with a region).
_TRANSLATED = re.compile(r"^(statement|testo)/(statement|testo)\.([a-z]{2}(?:[-_][A-Z]{2})?)\.(md|tex)$")


def _statements(names: list[str], primary: str = "") -> list[tuple[str, str]]:
    """(language, file) of each statement, the ``primary`` language's first, else English:
    ``statement/statement.<language>.{md,tex}`` (the Markdown where a language has both) where the task has
    any, else the one ``_statement`` finds. A language-less ``statement.tex`` beside them is often a
    placeholder for the PDF, not the statement."""
    found: dict[str, str] = {}
    for name in sorted(names, key=lambda n: not n.endswith(".md")):
        match = _TRANSLATED.match(name)
        if match and match.group(1) == match.group(2):
            found.setdefault(match.group(3), name)
    if found:
        return sorted(found.items(), key=lambda item: (item[0] != primary, item[0] != "en", item[0]))
    statement = _statement(names, ("md", "tex"))
    return [("en", statement)] if statement else []


def _statement(names: list[str], suffixes: tuple[str, ...]) -> str | None:
    """``statement/statement.<suffix>`` or ``testo/testo.<suffix>``, else any such file in those folders."""
    present = set(names)
    for folder in STATEMENT_FOLDERS:
        for suffix in suffixes:
            if f"{folder}/{folder}.{suffix}" in present:
                return f"{folder}/{folder}.{suffix}"
    for folder in STATEMENT_FOLDERS:
        found = sorted(n for n in names if n.startswith(folder + "/") and n.count("/") == 1 and n.endswith(suffixes))
        if found:
            return found[0]
    return None


def _manager(names: list[str]) -> Validator | None:
    """A communication task's manager: ``check/manager.*`` or ``cor/manager.*`` in a language the build
    runs, with the headers beside it (CMS's loader takes the ``manager`` cmsMake compiled from it)."""
    for folder in CHECKER_FOLDERS:
        inside = [n for n in names if n.startswith(folder + "/") and n.count("/") == 1]
        sources = [n for n in inside if n[len(folder) + 1 :].startswith("manager.") and judge_language(n)]
        if sources:
            language = judge_language(sources[0])
            assert language is not None
            main = sources[0][len(folder) + 1 :] if language.id == "python" else ""
            headers = tuple(n for n in inside if n.endswith(HEADERS))
            return Validator(folder, language.id, main, (sources[0], *headers), "cms-manager")
    return None


def _checker(names: list[str]) -> Validator | None:
    """The checker in ``check/`` or ``cor/``: its source (``checker.*``, ``correttore.*``, else the only
    one) with the headers beside it; a communication task's ``manager`` is not one."""
    for folder in CHECKER_FOLDERS:
        inside = [n for n in names if n.startswith(folder + "/") and n.count("/") == 1]
        if any(n[len(folder) + 1 :].startswith("manager") for n in inside):
            return None  # a communication task's manager (one the build cannot run), and its files: no checker
        sources = [n for n in inside if judge_language(n) and not n[len(folder) + 1 :].startswith("manager")]
        preferred = [n for n in sources if n.split("/")[1].split(".")[0] in ("checker", "correttore")]
        chosen = preferred or (sources if len(sources) == 1 else [])
        if chosen:
            language = judge_language(chosen[0])
            assert language is not None
            main = chosen[0][len(folder) + 1 :] if language.id == "python" else ""
            headers = tuple(n for n in inside if n.endswith((".h", ".hpp")))
            return Validator(folder, language.id, main, (chosen[0], *headers), "cms")
    return None


def sample_pairs(names: list[str]) -> list[tuple[str, str | None]]:
    """(input, output or None) of each sample: ``att/input<N>.txt`` (or ``att/<N>.in``...), else
    ``statement/input<N>`` or ``testo/input<N>`` (with or without ``.txt``), each perhaps named after the
    task (``testo/paletta.input0.txt`` with ``testo/paletta.output0.txt``, as the Italian olympiad keeps them)."""
    present = set(names)
    for folder in ("att", *STATEMENT_FOLDERS):
        pattern = re.compile(rf"^{folder}/([\w-]+\.)?input(\d+)(\.txt)?$")
        found = sorted((m for n in names if (m := pattern.match(n))), key=lambda m: (m.group(1) or "", int(m.group(2))))
        if found:
            pairs = []
            for m in found:
                answer = f"{folder}/{m.group(1) or ''}output{m.group(2)}{m.group(3) or ''}"
                pairs.append((m.group(0), answer if answer in present else None))
            return pairs
    return []


_EXMP = re.compile(r"\\exmp(?![A-Za-z@])\s*")
_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*\n?")


def statement_examples(text: str) -> list[tuple[int, str, str]]:
    """(line, input, output) of each ``\\exmp{input}{output}`` of a TeX statement whose two texts are data
    (no TeX in them once comments are gone), as the Italian olympiad writes its examples: the task's only
    samples when it keeps no sample files."""
    found: list[tuple[int, str, str]] = []
    for m in _EXMP.finditer(text):
        texts, pos = [], m.end()
        for _ in range(2):
            while pos < len(text) and text[pos].isspace():
                pos += 1
            end = _group_end(text, pos)
            if end < 0:
                break
            texts.append(_TEX_COMMENT.sub("", text[pos + 1 : end]))
            pos = end + 1
        if len(texts) == 2 and not any("\\" in t or "{" in t or "$" in t for t in texts):
            found.append((text.count("\n", 0, m.start()) + 1, _data(texts[0]), _data(texts[1])))
    return found


def _group_end(text: str, start: int) -> int:
    """Where the ``{...}`` group opening at ``start`` closes (-1: none opens there, or it never closes)."""
    if not text.startswith("{", start):
        return -1
    depth = 0
    for pos in range(start, len(text)):
        if text[pos] == "{" and text[pos - 1] != "\\":
            depth += 1
        elif text[pos] == "}" and text[pos - 1] != "\\":
            depth -= 1
            if depth == 0:
                return pos
    return -1


def _data(text: str) -> str:
    """An example's text as a test file holds it: its lines without the indentation TeX ignores, no blank
    line before or after, and a line break at the end."""
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""
