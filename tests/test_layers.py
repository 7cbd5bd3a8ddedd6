"""The import layering of ``site_builder/`` that docs/design.md describes: every import (at the top of a
module, inside a function, or under ``if TYPE_CHECKING``) goes down the stages or stays in its stage,
and no two modules of a stage import each other, directly or around a loop."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "site_builder"

# Bottom to top, as docs/design.md lists them ("The layers"): a module's stage is its folder under
# site_builder/, or its own name for a module at the top. A stage imports only from the stages before it.
STAGES: list[set[str]] = [
    {"", "errors", "model", "store", "identity", "nodepackages", "theme", "schemas"},
    {"sandbox"},
    {"source"},
    {"render"},
    {"verify"},
    {"publish"},
    {"build", "freshness"},
    {"quick"},
    {"serve"},
    {"arguments"},
    {"cli", "scaffold", "starter"},
    {"buildhost"},
    {"launch", "__main__"},
]

# Imports up the stages that are known and being moved elsewhere; each is (importer, imported). The test
# fails when one of them is no longer there, so that it is taken off this list with the move.
ALLOWED_FOR_NOW: set[tuple[str, str]] = set()


def module_name(path: Path, top: Path = PACKAGE.parent) -> str:
    parts = path.relative_to(top).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage_of(module: str) -> int:
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    for level, names in enumerate(STAGES):
        if name in names:
            return level
    raise AssertionError(f"{module}: not in any stage of tests/test_layers.py's STAGES; add it where design.md says")


def imports_of(path: Path, modules: set[str], top: Path = PACKAGE.parent) -> list[tuple[str, int]]:
    """Every site_builder module the file imports, with the line: ``from .x import y`` names the module
    ``x.y`` when that is a module, else ``x``."""
    module = module_name(path, top)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.split(".")[0] == "site_builder"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "site_builder":
                continue
            named = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules]
            found += [(name, node.lineno) for name in named] or [(target, node.lineno)]
    return found


def import_graph() -> dict[str, list[tuple[str, str, int]]]:
    """Each module's imports of other site_builder modules: (imported module, file, line)."""
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(f) for f in files}
    graph: dict[str, list[tuple[str, str, int]]] = {}
    for file in files:
        shown = file.relative_to(PACKAGE.parent).as_posix()
        graph[module_name(file)] = [(target, shown, line) for target, line in imports_of(file, modules)]
    return graph


def upward_imports(graph: dict[str, list[tuple[str, str, int]]]) -> dict[tuple[str, str], str]:
    return {
        (module, target): f"{file}:{line}: imports {target}, a later stage"
        for module, targets in graph.items()
        for target, file, line in targets
        if stage_of(target) > stage_of(module)
    }


def test_no_import_runs_up_the_stages() -> None:
    found = upward_imports(import_graph())
    unexpected = sorted(where for pair, where in found.items() if pair not in ALLOWED_FOR_NOW)
    assert unexpected == []


def test_the_temporary_allowances_are_still_needed() -> None:
    gone = ALLOWED_FOR_NOW - set(upward_imports(import_graph()))
    assert gone == set(), "these imports are gone: take them off ALLOWED_FOR_NOW in tests/test_layers.py"


def cycles(graph: dict[str, list[tuple[str, str, int]]]) -> list[list[str]]:
    """The groups of modules of one stage that import each other around a loop (Tarjan's strongly
    connected components, over the imports within a stage)."""
    edges = {
        module: sorted({t for t, _, _ in targets if t in graph and t != module and stage_of(t) == stage_of(module)})
        for module, targets in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for after in edges[node]:
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(groups)


def test_no_two_modules_of_a_stage_import_each_other() -> None:
    assert cycles(import_graph()) == []


def test_the_checks_see_what_they_check(tmp_path: Path) -> None:
    """The reading of imports finds relative, absolute, function-level and TYPE_CHECKING imports, and
    the two checks catch an upward import and a loop."""
    fake = tmp_path / "site_builder" / "render" / "example.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        "from typing import TYPE_CHECKING\n"
        "from ..model import Entry\n"
        "from . import latex\n"
        "if TYPE_CHECKING:\n    from ..publish.pages import x\n"
        "def f():\n    import site_builder.serve.web\n"
    )
    modules = {f"site_builder.{name}" for name in ("model", "render.latex", "publish.pages", "serve.web")}
    found = sorted(imports_of(fake, modules, tmp_path), key=lambda pair: pair[1])
    assert found == [
        ("site_builder.model", 2),
        ("site_builder.render.latex", 3),
        ("site_builder.publish.pages", 5),
        ("site_builder.serve.web", 7),
    ]
    graph = {
        "site_builder.render.a": [("site_builder.render.b", "a.py", 1), ("site_builder.publish.c", "a.py", 2)],
        "site_builder.render.b": [("site_builder.render.a", "b.py", 1)],
        "site_builder.publish.c": [],
    }
    upward = {
        ("site_builder.render.a", "site_builder.publish.c"): "a.py:2: imports site_builder.publish.c, a later stage"
    }
    assert upward_imports(graph) == upward
    assert cycles(graph) == [["site_builder.render.a", "site_builder.render.b"]]
    with pytest.raises(AssertionError, match="not in any stage"):
        stage_of("site_builder.newthing")


def test_no_module_is_over_600_lines() -> None:
    """A module that grows past this is split by what it owns (docs/design.md's module table)."""
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
