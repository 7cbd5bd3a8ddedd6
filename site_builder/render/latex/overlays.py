"""Beamer overlay specifications (``<2->``, ``<+->``, ``<-3,5>``), read as the last slide of a frame shows them.

A page shows each frame once, as its last slide: ``\\only<-2>{A}\\only<3->{B}`` is B, ``\\alt<6->{A}{B}``
is A when the frame has six slides. ``+`` and ``.`` count as Beamer counts them (``beamerpauses``), in the
order the frame's commands come, and so does ``\\pause``. Mode parts (``handout:0``) and actions
(``alert@2``) do not hide anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .nodes import Cmd, Env, Group, Node, Verbatim
from .parser import PICTURE_ENVS, matching

PICTURES = PICTURE_ENVS | {"tikz"}

_PART = re.compile(r"(?P<lo>[0-9+.]+(?:\(-?\d+\))?)?(?P<dash>-)?(?P<hi>[0-9+.]+(?:\(-?\d+\))?)?")
_RELATIVE = re.compile(r"([+.])(?:\((-?\d+)\))?")
OPEN = 10**9  # the end of ``3-``: every later slide


def resolve_frame(nodes: list[Node]) -> int:
    """Write each overlay specification in ``nodes`` with numbers only (``+`` and ``.`` resolved, in
    document order); the frame's last slide."""
    pauses = 1  # Beamer's beamerpauses
    last = 1
    for node in _walk(nodes):
        if isinstance(node, Verbatim) and node.env in PICTURES:
            last = max(last, picture_slides(node.text))
        elif isinstance(node, Cmd) and node.name == "pause":
            pauses += 1
            last = max(last, pauses)
        elif isinstance(node, (Cmd, Env)) and node.overlay:
            node.overlay, pauses = _resolve(node.overlay, pauses)
            last = max(last, *(hi if hi != OPEN else lo for lo, hi in ranges(node.overlay)))
    return last


_IN_PICTURE = re.compile(
    r"\\(only|uncover|visible|invisible|onslide|alt|temporal|pause)(?![A-Za-z@])[ \t]*(?:<([^<>{}]{0,40})>)?"
)
_ARGUMENTS = {"only": 1, "uncover": 1, "visible": 1, "invisible": 1, "onslide": 1, "alt": 2, "temporal": 3, "pause": 0}


def picture_at_slide(source: str, slide: int) -> str:
    """A TikZ picture's source as ``slide`` shows it: its overlay commands replaced by what they show
    (the picture is TeX, compiled apart, so this works on its text)."""
    out: list[str] = []
    pos = 0
    for m in _IN_PICTURE.finditer(source):
        if m.start() < pos:
            continue  # inside an argument already taken
        name, spec = m.group(1), m.group(2) or ""
        args, end = _braced(source, m.end(), _ARGUMENTS[name])
        out.append(source[pos : m.start()])
        out.append(_chosen(name, spec, args, slide))
        pos = end
    out.append(source[pos:])
    text = "".join(out)
    return text if text == source else picture_at_slide(text, slide)  # overlays inside what was kept


def _chosen(name: str, spec: str, args: list[str], slide: int) -> str:
    on = shown(_resolve(spec, 1)[0], slide) if spec else True
    if name == "pause" or not args:
        return ""
    if name == "invisible":
        return "" if spec and on else args[0]
    if name == "alt":
        return args[0] if on else args[-1]
    if name == "temporal":
        parts = ranges(_resolve(spec, 1)[0])
        before = bool(parts) and slide < min(lo for lo, _ in parts)
        return args[min(len(args) - 1, 1 if on else 0 if before else 2)]
    return args[0] if on else ""


def _braced(text: str, pos: int, count: int) -> tuple[list[str], int]:
    """Up to ``count`` braced arguments from ``pos``; and where they end."""
    args: list[str] = []
    while len(args) < count:
        m = re.compile(r"\s*\{").match(text, pos)
        if m is None:
            break
        i = matching(text, m.end() - 1)
        if i < 0:
            break
        args.append(text[m.end() : i])
        pos = i + 1
    return args, pos


def picture_slides(source: str) -> int:
    """The last slide a picture's own overlay specifications name (1 if none)."""
    numbers = [hi if hi != OPEN else lo for m in _IN_PICTURE.finditer(source) for lo, hi in ranges(m.group(2) or "")]
    return max([1, *numbers])


def shown(spec: str, slide: int | None) -> bool:
    """Whether a resolved specification includes ``slide`` (None: not in a frame, everything shows)."""
    if slide is None or not spec:
        return True
    parts = ranges(spec)
    return not parts or any(lo <= slide <= hi for lo, hi in parts)


def ranges(spec: str) -> list[tuple[int, int]]:
    """The slide ranges of a resolved specification; mode and action parts are left out."""
    found = []
    for raw in spec.split("|", 1)[0].split(","):
        part = raw.strip()
        if not part or "@" in part or ":" in part:
            continue
        m = _PART.fullmatch(part)
        if m is None or not (m.group("lo") or m.group("hi")):
            continue
        lo = _number(m.group("lo"), 1)
        hi = _number(m.group("hi"), OPEN) if m.group("dash") else lo
        found.append((lo, hi))
    return found


def _number(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def _resolve(spec: str, pauses: int) -> tuple[str, int]:
    """``+`` is beamerpauses (which then goes up by one, once per specification), ``.`` the value before."""
    used_plus = False

    def value(m: re.Match[str]) -> str:
        nonlocal used_plus
        offset = int(m.group(2) or 0)
        if m.group(1) == "+":
            used_plus = True
            return str(max(1, pauses + offset))
        return str(max(1, pauses - 1 + offset))

    resolved = _RELATIVE.sub(value, spec)
    return resolved, pauses + 1 if used_plus else pauses


def _walk(nodes: list[Node]) -> Iterator[Node]:
    """Every node, in document order: a command before its arguments, an environment before its body."""
    stack: list[Iterator[Node]] = [iter(nodes)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        yield node
        if isinstance(node, Group):
            stack.append(iter(node.children))
        elif isinstance(node, Cmd):
            stack.append(iter([n for a in node.args for n in a.nodes]))
        elif isinstance(node, Env):
            stack.append(iter([*(n for a in node.args for n in a.nodes), *node.children]))
