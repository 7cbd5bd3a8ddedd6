"""The nodes of a parsed LaTeX source, each with its line (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Text:
    text: str
    line: int


@dataclass(slots=True)
class Space:
    line: int


@dataclass(slots=True)
class Par:
    line: int


@dataclass(slots=True)
class Special:
    """One of ``& ~ [ ]`` in running text."""

    char: str
    line: int


@dataclass(slots=True)
class Arg:
    optional: bool
    nodes: list[Node]


class _WithArgs:
    """Access to the arguments of a command or environment."""

    __slots__ = ()
    args: list[Arg]

    def arg(self, index: int) -> list[Node]:
        """The nodes of the index-th mandatory argument (empty if absent)."""
        mandatory = [a for a in self.args if not a.optional]
        return mandatory[index].nodes if index < len(mandatory) else []

    def option(self) -> list[Node] | None:
        """The nodes of the first optional argument, or None."""
        for a in self.args:
            if a.optional:
                return a.nodes
        return None


@dataclass(slots=True)
class Cmd(_WithArgs):
    name: str
    line: int
    star: bool = False
    args: list[Arg] = field(default_factory=list)
    overlay: str = ""  # a Beamer overlay specification, as in ``\only<2->``


@dataclass(slots=True)
class Group:
    children: list[Node]
    line: int


@dataclass(slots=True)
class Env(_WithArgs):
    name: str
    line: int
    children: list[Node] = field(default_factory=list)
    args: list[Arg] = field(default_factory=list)
    overlay: str = ""


@dataclass(slots=True)
class Math:
    tex: str
    display: bool
    line: int


@dataclass(slots=True)
class Verbatim:
    env: str
    text: str
    line: int
    options: str = ""  # the raw [..] or {..} after \begin{lstlisting} / \begin{minted}
    inline: bool = False


Node = Text | Space | Par | Special | Cmd | Group | Env | Math | Verbatim
