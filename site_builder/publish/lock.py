"""One build at a time per output folder and per cache: builds that share either take turns.

Two builds writing one site, or one cache, at once could each remove the other's temporary
files. Each holds an advisory lock (``flock``) on ``<cache>/build.lock`` and on a file beside the
output folder (``.site.lock`` for ``site/``) while it reads and writes them; a second build waits,
and says whom it waits for. The locks go with the process, however it ends.

The cache folder, like the output folder (see ``output``), holds the ``BUILDER_MARKER``: a build
never reads either as part of an archive, even when they lie inside it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import ConfigError
from ..source.config import BuildOptions
from ..source.walk import BUILDER_MARKER, MARKER_TEXT
from .trust import claim

_HELD: set[int] = set()  # descriptors of the locks this process holds
CACHE_LOCK = "build.lock"


def _forget_in_child() -> None:
    """A forked process (a render worker) must not keep its parent's locks after the parent lets go."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def lock_files(options: BuildOptions) -> list[Path]:
    """The lock files of a build, in the order every build takes them (so two never deadlock)."""
    out = options.out
    return sorted({options.cache / CACHE_LOCK, out.parent / f".{out.name}.lock"})


@contextlib.contextmanager
def build_lock(
    options: BuildOptions, waiting: Callable[[str], None] | None = None, told: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the build's locks; ``waiting`` hears, once per lock, that another build has it; ``told``, that
    the cache folder was not one of this user's builds, and was emptied, or why no cache can be kept
    (``trust.claim``)."""
    for folder in (options.out, options.cache):
        if (link := linked_folder(folder, options.root)) is not None:
            message = (
                f"is a symbolic link (to {os.readlink(link)}): a build writes its site and cache into real"
                " folders only, never through a link an archive may hold; remove it, or name another folder"
                f" with {'--out' if folder == options.out else '--cache'}"
            )
            raise ConfigError(_shown(link, options.root), None, message)
    with contextlib.ExitStack() as stack:
        for path in lock_files(options):
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.parent == options.cache:
                mark_builder_folder(options.cache)
            try:  # a link in its place would have the build truncate the file it names
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            except OSError as e:
                if e.errno != errno.ELOOP:
                    raise
                message = "is a symbolic link: a build takes its lock in a file of its own; remove it"
                raise ConfigError(_shown(path, options.root), None, message) from e
            _HELD.add(fd)
            stack.callback(_release, fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                    waiting(f"waiting for another build (process {holder}) that holds {options.display(path)}")
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        if (said := claim(options.cache, {CACHE_LOCK, BUILDER_MARKER})) and told is not None:
            told(f"{_shown(options.cache, options.root)}: {said}")
        yield


def linked_folder(folder: Path, root: Path) -> Path | None:
    """The symbolic link on the way to ``folder`` (the output or cache folder), if there is one: the folder
    itself, or one between it and the project folder ``root`` (an archive's repository may hold a ``site``
    link to any folder of the machine, whose files a build would replace)."""
    below = [p for p in folder.parents if p != root and p.is_relative_to(root)] if folder.is_relative_to(root) else []
    return next((p for p in (folder, *below) if p.is_symlink()), None)


def _shown(link: Path, root: Path) -> str:
    """A link as messages name it: from the project folder where it lies in it (``display`` would follow it)."""
    return link.relative_to(root).as_posix() if link.is_relative_to(root) else str(link)


def mark_builder_folder(folder: Path) -> None:
    """Leave the ``BUILDER_MARKER`` in ``folder`` (an existing folder), unless it is there (a link in its
    place is replaced, never written through)."""
    marker = folder / BUILDER_MARKER
    if marker.is_symlink():
        marker.unlink()
    elif marker.is_file():
        return
    fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(MARKER_TEXT)


def _release(fd: int) -> None:
    _HELD.discard(fd)
    os.close(fd)
