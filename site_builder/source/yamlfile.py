"""YAML mappings parsed with the line of every key (nested ones as ``a.b``), for located errors."""

from __future__ import annotations

import hashlib
from typing import Any

import yaml

from ..errors import SiteError

# libyaml's C parser where PyYAML has it (about ten times faster) for the common, valid case;
# the pure-Python parser for files with errors, for its clearer messages (same lines either way).
_FAST: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


Parsed = tuple[dict[str, Any], dict[str, int]]
Memo = dict[str, Parsed]  # by a digest of the text; the values are shared, so never change them


def parse_yaml_mapping(text: str, path: str, error: type[SiteError], memo: Memo | None = None) -> Parsed:
    """Parse a YAML document that must be a mapping (or empty).

    Returns the mapping and the 1-based line of each top-level key. Raises ``error`` with the
    YAML mark's line on syntax errors. ``memo`` keeps results by content (a build loads it from
    its cache: parsing is most of the time spent reading a large archive).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    key = ""
    if memo is not None:
        key = hashlib.sha1(text.encode()).hexdigest()
        if key in memo:
            return memo[key]
    try:
        parsed = _parse(text, path, error, _FAST)
        if memo is not None:
            memo[key] = parsed
        return parsed
    except yaml.YAMLError:
        try:
            return _parse(text, path, error, yaml.SafeLoader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            raise error(path, mark.line + 1 if mark else None, f"invalid YAML: {e.problem or e.context}") from e
        except yaml.YAMLError as e:
            raise error(path, None, f"invalid YAML: {e}") from e


MAX_VALUES = 100_000  # values a document may expand to through aliases: a "billion laughs" is refused


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """How many values ``node`` stands for once every alias in it is written out (a node that
    contains itself counts as too many)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        return MAX_VALUES + 1
    open_nodes.add(key)
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes, open_nodes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes, open_nodes) + _expanded_size(v, sizes, open_nodes) for k, v in node.value)
    open_nodes.discard(key)
    sizes[key] = size = min(size, MAX_VALUES + 1)
    return size


def _key_lines(node: yaml.MappingNode, prefix: str, lines: dict[str, int], depth: int) -> None:
    """The line of each key, nested ones as ``tracks.icpc.title`` (three levels deep)."""
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            name = prefix + str(key.value)
            lines.setdefault(name, key.start_mark.line + 1)
            if isinstance(value, yaml.MappingNode) and depth < 2:
                _key_lines(value, name + ".", lines, depth + 1)


def _parse(
    text: str, path: str, error: type[SiteError], loader_class: type[yaml.SafeLoader]
) -> tuple[dict[str, Any], dict[str, int]]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            raise error(path, node.start_mark.line + 1, "expected a mapping of keys to values")
        if _expanded_size(node, {}, set()) > MAX_VALUES:
            raise error(
                path,
                None,
                f"the YAML's aliases expand to more than {MAX_VALUES:,} values, or an alias refers to itself; "
                "write the values out",
            )
        lines: dict[str, int] = {}
        _key_lines(node, "", lines, 0)
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise error(path, 1, "expected a mapping of keys to values")
    return {str(k): v for k, v in data.items()}, lines
