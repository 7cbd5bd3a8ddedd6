"""Writing the site: the only module that writes into the output folder.

A full build is written into a temporary sibling folder and swapped in atomically; the dev
server's incremental updates replace single files, each through a rename, so a reader never
sees a half-written file.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from . import highlight
from .config import BuildOptions
from .errors import BuildError
from .math import MathRenderer
from .render import Output


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def write_site(options: BuildOptions, outputs: list[Output], raw: list[tuple[Path, str]]) -> None:
    """Write everything into a temporary folder, then swap it in for ``options.out``."""
    out = options.out
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        tmp.chmod(0o755)
        for item in outputs:
            write_content(tmp, item.path, item.data)
        _copy_static(options, tmp)
        for source, target in raw:
            destination = tmp / target
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        swap_into_place(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BuildError(options.display(out), None, f"cannot write the site: {e}") from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_content(folder: Path, path: str, data: bytes) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def write_in_place(out: Path, outputs: list[Output], published: dict[str, str]) -> int:
    """Replace the outputs whose bytes changed, each atomically; returns how many were written."""
    written = 0
    for item in outputs:
        key = digest(item.data)
        if published.get(item.path) == key:
            continue
        _replace_file(out / item.path, item.data)
        published[item.path] = key
        written += 1
    return written


def remove_in_place(out: Path, paths: set[str], published: dict[str, str]) -> None:
    for path in paths:
        (out / path).unlink(missing_ok=True)
        published.pop(path, None)


def sync_raw_files(options: BuildOptions, folders: list[str], raw: list[tuple[Path, str]]) -> None:
    """Make the published raw files of ``folders`` match the archive: copy changed, remove deleted."""
    keep = {target for _, target in raw}
    for folder in folders:
        published = options.out / folder
        if not published.is_dir():
            continue
        for path in sorted(published.rglob("*"), reverse=True):
            rel = path.relative_to(options.out).as_posix()
            if path.is_file() and path.name != "index.html" and rel not in keep:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    for source, target in raw:
        destination = options.out / target
        data = source.read_bytes()
        if not destination.is_file() or destination.read_bytes() != data:
            _replace_file(destination, data)


def copy_static_file(options: BuildOptions, relative: str) -> None:
    source = options.static / relative
    target = options.out / "static" / relative
    if source.is_file():
        _replace_file(target, source.read_bytes())
    else:
        target.unlink(missing_ok=True)


def _replace_file(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def _copy_static(options: BuildOptions, tmp: Path) -> None:
    if options.static.is_dir():
        shutil.copytree(options.static, tmp / "static", dirs_exist_ok=True)
    write_content(tmp, "static/pygments.css", highlight.stylesheet().encode("utf-8"))
    font = MathRenderer.font_file(options.root)
    if font is not None:
        write_content(tmp, "static/fonts/Temml.woff2", font.read_bytes())


def _remove_stale_temporaries(out: Path) -> None:
    """Folders left by builds that were killed before they could clean up."""
    for stale in out.parent.glob(f".{out.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


def swap_into_place(new: Path, out: Path) -> None:
    """Make ``new`` appear at ``out`` in one step (Linux: renameat2 RENAME_EXCHANGE); remove the old site."""
    if not out.exists():
        os.rename(new, out)
        return
    if not _exchange(new, out):
        old = out.with_name(f".{out.name}.tmp-old-{os.getpid()}")
        os.rename(out, old)
        os.rename(new, out)
        new = old
    shutil.rmtree(new, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths; False where the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EXDEV):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))
