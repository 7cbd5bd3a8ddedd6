"""The C++ compile cache: every program compiled once per sources, g++ and flags, in the sandbox."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path

from ..sandbox import runner as sandbox
from ..sandbox.runner import Limits, RunResult, Toolchain
from ..source.languages import suffix
from ..source.layout import CPP_SUFFIXES
from ..store import write_atomic
from .runtimes import command_version

CXX_FLAGS = ("-O2", "-std=c++17")
STDCXX = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<bits/stdc\+\+\.h>", re.MULTILINE)
NO_COMPILER = "g++ not found: the C++ solver was not checked"
PCH = "/opt/pch"  # where compiles see the precompiled <bits/stdc++.h>
log = logging.getLogger(__name__)


@lru_cache(maxsize=8192)
def text_digest(text: str) -> str:
    """Keys hold digests of sources and samples, not their texts (hashing is cheaper than encoding)."""
    return hashlib.sha256(text.encode()).hexdigest()


class Compiler:
    """Compiles C++ solvers once per source (and compiler version), into the cache."""

    def __init__(self, folder: Path, rerun: bool = False) -> None:
        self.folder = folder
        self.rerun = rerun  # compile again what failed before
        self.gxx = shutil.which("g++")
        self.version = command_version([self.gxx, "--version"]) if self.gxx else ""
        key = hashlib.sha256(json.dumps([self.version, CXX_FLAGS]).encode()).hexdigest()[:16]
        self.headers = folder / f"pch-{key}"  # <bits/stdc++.h> precompiled, for this g++ and flags
        self._precompiling = threading.Lock()
        self._precompile_failed = False

    def compile_files(self, files: dict[str, str]) -> tuple[Path | None, str]:
        """Compile every C++ source among ``files`` (headers beside them) into one program, once."""
        if self.gxx is None:
            return None, NO_COMPILER
        binary = self._binary(files)
        if binary.is_file():
            return binary, ""
        error_file = binary.with_name("compile-error.txt")
        if error_file.is_file() and not self.rerun:
            return None, "compile error:\n" + error_file.read_text("utf-8", "replace")
        return self._compile(files, binary, error_file)

    def compiled(self, files: dict[str, str]) -> Path | None:
        """The program built from ``files`` before, if there is one (without compiling)."""
        if self.gxx is None:
            return None
        binary = self._binary(files)
        return binary if binary.is_file() else None

    def folder_name(self, files: dict[str, str]) -> str:
        """The name of the folder that holds the program of ``files`` (see ``keep_only``)."""
        return self._binary(files).parent.name

    def keep_only(self, folders: set[str], settled: float = 3600.0) -> None:
        """Delete every compiled program but those in ``folders`` (a full build's), unless it was
        made in the last ``settled`` seconds: another build sharing the cache may be about to run it."""
        if self.gxx is None or not self.folder.is_dir():
            return
        keep = folders | {self.headers.name}
        before = time.time() - settled
        for folder in self.folder.iterdir():
            if folder.name not in keep and folder.is_dir() and folder.stat().st_mtime < before:
                shutil.rmtree(folder, ignore_errors=True)

    def _binary(self, files: dict[str, str]) -> Path:
        """Where the program of ``files`` is kept: named by the sources (by digest), g++ and its flags."""
        named = sorted((name, text_digest(text)) for name, text in files.items())
        return self._binary_of(tuple(named))

    @lru_cache(maxsize=4096)  # noqa: B019 (one compiler per verifier; the cache holds paths only)
    def _binary_of(self, named: tuple[tuple[str, str], ...]) -> Path:
        key = hashlib.sha256(json.dumps([named, self.version, CXX_FLAGS]).encode()).hexdigest()[:24]
        return self.folder / key / "program"

    def _compile(self, files: dict[str, str], binary: Path, error_file: Path) -> tuple[Path | None, str]:
        """Compile in the sandbox; the program comes back on a pipe and is renamed into place (builds
        sharing the cache, ``make site`` beside ``make serve``, may compile it at once). What the
        sandbox reports is the source's doing (an error, a time or memory limit) and is kept, for
        ``--rerun`` to try again; a failure of this machine (the sandbox, the cache's disk) is not."""
        sources = sorted(n for n in files if suffix(n) in CPP_SUFFIXES)
        assert self.gxx is not None
        headers = self._header_flags(files, sources)
        argv = [self.gxx, *CXX_FLAGS, *headers, "-o", "program", *(f"./{name}" for name in sources)]
        try:
            result = sandbox.run(
                argv,
                None,
                COMPILE_LIMITS,
                files={name: text.encode() for name, text in files.items()},
                toolchain=Toolchain(((str(self.headers), PCH),)) if headers else Toolchain(),
                collect="program",
            )
        except OSError as error:
            return None, f"could not compile: {error}"
        if result.exit_code == 0 and result.collected and not result.output_exceeded:
            try:
                write_atomic(binary, result.collected, mode=0o755)
            except OSError as error:
                return None, f"could not keep the compiled program in {binary.parent}: {error.strerror}"
            return binary, ""
        message = _compile_failure(result)
        for name in sources:  # as the author wrote it: paul.cpp, not ./paul.cpp
            message = message.replace(f"./{name}:", f"{name}:")
        with contextlib.suppress(OSError):
            write_atomic(error_file, message.encode("utf-8"))
        return None, "compile error:\n" + message

    def _header_flags(self, files: dict[str, str], sources: list[str]) -> list[str]:
        """``-I`` the precompiled ``<bits/stdc++.h>`` for sources that include it: g++ takes ~2 s to
        read that header and a fraction of that to load it precompiled, and the program is the same
        byte for byte. It is made once per g++ and flags, by the first compile that wants it; the
        compiles meanwhile go without (g++ itself falls back to the header where it cannot use it)."""
        if not any(STDCXX.search(files[name]) for name in sources):
            return []
        made = self.headers / "bits" / "stdc++.h.gch"
        if not made.is_file() and not self._precompile_failed and self._precompiling.acquire(blocking=False):
            try:
                self._precompile(made)
            finally:
                self._precompiling.release()
        return ["-I", PCH if sandbox.isolated() else str(self.headers)] if made.is_file() else []

    def _precompile(self, target: Path) -> None:
        assert self.gxx is not None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix="src-", dir=self.folder))
        except OSError:
            self._precompile_failed = True
            return
        try:
            (work / "all.h").write_text("#include <bits/stdc++.h>\n", encoding="utf-8")
            argv = [self.gxx, *CXX_FLAGS, "-x", "c++-header", "all.h", "-o", "all.h.gch"]
            done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=300, check=False)
            if done.returncode == 0:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(work / "all.h.gch", target)
            else:
                self._precompile_failed = True
                log.debug("precompiling <bits/stdc++.h> failed: %s", done.stderr[-2000:])
        except (OSError, subprocess.TimeoutExpired):
            self._precompile_failed = True
            log.debug("precompiling <bits/stdc++.h> failed", exc_info=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


COMPILE_LIMITS = Limits(
    wall=60.0,
    memory=2048 * sandbox.MiB,
    output=256 * sandbox.MiB,
    file_size=256 * sandbox.MiB,
    scratch=512 * sandbox.MiB,
)


def _compile_failure(result: RunResult) -> str:
    """Why a compile made no program, in g++'s words where it has any."""
    if result.timed_out:
        return f"g++ took longer than {COMPILE_LIMITS.wall:g} s (run the build with --rerun to try again)"
    if result.output_exceeded:
        return f"the program or g++'s messages are over {COMPILE_LIMITS.output // sandbox.MiB} MiB"
    text = result.stderr[-4000:]
    if result.signal is not None:
        text += (
            f"\ng++ was killed by signal {result.signal} (over {COMPILE_LIMITS.memory // sandbox.MiB} MiB of memory?)"
        )
    return text.strip() or f"g++ failed with exit code {result.exit_code} and no message"
