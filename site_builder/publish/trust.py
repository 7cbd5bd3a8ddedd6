"""Whether a cache folder is one this user's builds made, before a build loads anything from it.

The caches hold pickles, and a pickle runs code when it is loaded. An archive's repository may hold
a ``.cache`` folder where a build keeps its cache (a branch can commit one; an unpacked archive can
bring one), so a build loads nothing from a cache folder it cannot tell is its own: each cache
holds a random token (``OWNER``), and the user's state folder, outside every archive, a file for
each token a build made. A cache whose token is not there (a folder that came with the archive, or
one copied from another machine) is emptied first, and the build starts cold.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from collections.abc import Container
from pathlib import Path

from ..errors import ConfigError
from ..sandbox.descriptors import read_regular

OWNER = ".site-builder-owner"  # in the cache folder: its token
TOKEN_BYTES = 32
_MADE: set[str] = set()  # the tokens this process made (when the state folder cannot keep them: a serve session)


def registry() -> Path:
    """The user's folder of the tokens their builds made (``$XDG_STATE_HOME``, else ``~/.local/state``).
    OSError when there is neither (no home folder is known): then no token can be kept."""
    base = os.environ.get("XDG_STATE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".local" / "state")
        except RuntimeError as e:  # a user with no HOME and no entry in the password file
            raise OSError(f"no home folder is known ({e})") from e
    return Path(base) / "site-builder" / "caches"


EMPTIED = (
    "the cache folder was not made by a build of yours here (it came with the archive, or from elsewhere):"
    " emptied before anything in it was read; this build starts cold"
)


def claim(cache: Path, keep: Container[str]) -> str:
    """Make ``cache`` (an existing folder, the build's lock held) a folder of this user's builds: when its
    token is not one of theirs, empty it of all but ``keep`` (the lock, the marker) and give it a new one.
    What to tell the user ("" when it was theirs, or held nothing)."""
    if cache.is_symlink():  # (``lock.build_lock`` says so first, with its name)
        raise ConfigError(str(cache), None, "the cache folder is a symbolic link: never emptied or written through")
    if _registered(_token(cache)):
        return ""
    said = EMPTIED if _empty(cache, keep) else ""
    token = secrets.token_hex(TOKEN_BYTES)
    _MADE.add(token)
    try:
        folder = registry()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        (folder / _name(token)).write_text(f"{cache}\n", encoding="utf-8")  # where, for people who look
    except OSError as e:  # a home folder no one may write: safe, but every build starts cold
        said = (
            f"cannot keep the cache's token ({e.strerror or e}: {e.filename or 'the state folder'}), so every"
            " build empties the cache and starts cold; set XDG_STATE_HOME to a folder you can write"
        )
    tmp = cache / f"{OWNER}.tmp{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(token)
    os.replace(tmp, cache / OWNER)
    return said


def _token(cache: Path) -> str:
    """The cache's token ("" without a readable one: a link or anything but a short file is none)."""
    try:
        text = read_regular(cache / OWNER, 4 * TOKEN_BYTES).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return text if len(text) == 2 * TOKEN_BYTES and all(c in "0123456789abcdef" for c in text) else ""


def _registered(token: str) -> bool:
    if not token or token in _MADE:
        return bool(token)
    try:
        return (registry() / _name(token)).is_file()
    except OSError:
        return False


def _name(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _empty(folder: Path, keep: Container[str]) -> bool:
    """Remove everything in ``folder`` but the names in ``keep``, never following a link."""
    removed = False
    with os.scandir(folder) as entries:
        for entry in list(entries):
            if entry.name in keep:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed = True
    return removed
