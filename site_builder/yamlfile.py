"""YAML mappings parsed with the line of every top-level key, for located errors."""

from __future__ import annotations

from typing import Any

import yaml

from .errors import SiteError


class _LineLoader(yaml.SafeLoader):
    """A safe loader that also records the 1-based line of each top-level key."""


def parse_yaml_mapping(text: str, path: str, error: type[SiteError]) -> tuple[dict[str, Any], dict[str, int]]:
    """Parse a YAML document that must be a mapping (or empty).

    Returns the mapping and the line of each top-level key. Raises ``error``
    with the YAML mark's line on syntax errors.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    loader = _LineLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}
        if not isinstance(node, yaml.MappingNode):
            raise error(path, node.start_mark.line + 1, "expected a mapping of keys to values")
        lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value if isinstance(key, yaml.ScalarNode)}
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        raise error(path, line, f"invalid YAML: {e.problem or e.context}") from e
    except yaml.YAMLError as e:
        raise error(path, None, f"invalid YAML: {e}") from e
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise error(path, 1, "expected a mapping of keys to values")
    return {str(k): v for k, v in data.items()}, lines
