"""task-maker's constraints: the numbers a task's statement names with ``\\constraints{MAXN}``.

task-maker (the Italian and Hungarian olympiads' tool) keeps a task's limits in ``gen/constraints.py``
(or ``gen/constraints.yaml``), and its booklet prints them by running that file. The archive is hostile,
so the builder never runs it: it reads the file's top-level assignments of numbers and text
(``MAXN = 300_000``, ``MOD = 10**9 + 7``, ``MAXNT = MAXN``) from its syntax tree, and leaves the rest
(lists of subtasks, computed values) alone.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from ..errors import Diagnostic, MetadataError
from ..model import SourceFile
from .yamlfile import Memo, parse_yaml_mapping

FILES = ("gen/constraints.py", "gen/constraints.yaml")
MAX_BITS = 256  # a value larger than this is no limit a statement prints (and 10**10**9 is no value to make)
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def task_maker_constants(
    by_name: dict[str, SourceFile], where: str, diagnostics: list[Diagnostic], memo: Memo | None = None
) -> tuple[tuple[str, str], ...]:
    """The named numbers and texts of the task's ``gen/constraints.py`` (else ``gen/constraints.yaml``)."""
    for name in FILES:
        item = by_name.get(name)
        if item is None or item.text is None:
            continue
        try:
            found = _from_python(item.text) if name.endswith(".py") else _from_yaml(item.text, f"{where}/{name}", memo)
        except SyntaxError as e:
            diagnostics.append(Diagnostic(f"{where}/{name}", e.lineno or 0, f"cannot read it: {e.msg}", "warning"))
            return ()
        except MetadataError as e:
            diagnostics.append(e.diagnostic())
            return ()
        return tuple((key, _shown(value)) for key, value in found.items())
    return ()


def _from_python(text: str) -> dict[str, int | float | str]:
    try:
        tree = ast.parse(text)
    except (RecursionError, MemoryError, ValueError) as e:  # nested past the parser's depth; a NUL byte
        raise SyntaxError(f"the file is too deeply nested or not text ({type(e).__name__})") from e
    found: dict[str, int | float | str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = _value(node.value, found)
            except RecursionError:  # a sum of a thousand terms: no limit a statement prints
                continue
            if value is not None:
                found[node.targets[0].id] = value
    return found


def _value(node: ast.expr, known: dict[str, int | float | str]) -> int | float | str | None:
    """A number or text the expression is without running anything: literals, names assigned above,
    and ``+ - * // **`` of whole numbers, within ``MAX_BITS``; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
        value = node.value
        return None if isinstance(value, bool) or (isinstance(value, int) and value.bit_length() > MAX_BITS) else value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _value(node.operand, known)
        return -inner if isinstance(inner, (int, float)) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left, known), _value(node.right, known)
        if not isinstance(left, int) or not isinstance(right, int):
            return None
        # no power much past MAX_BITS bits is computed (10**10**9 never is); the check below drops what is past it
        if isinstance(node.op, ast.Pow) and (right < 0 or right * (abs(left).bit_length() - 1) > MAX_BITS):
            return None
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            return None
        result = _OPERATORS[type(node.op)](left, right)
        return result if result.bit_length() <= MAX_BITS else None
    return None


def _from_yaml(text: str, path: str, memo: Memo | None) -> dict[str, int | float | str]:
    data, _ = parse_yaml_mapping(text, path, MetadataError, memo)
    return {
        str(key): value
        for key, value in data.items()
        if isinstance(value, (int, float, str)) and not isinstance(value, bool) and str(key).isidentifier()
    }


def _shown(value: int | float | str) -> str:
    return value if isinstance(value, str) else repr(value)
