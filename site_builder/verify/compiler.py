"""The C++ compile cache: every program compiled once per sources, g++ and flags, in the sandbox."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..sandbox import runner as sandbox
from ..sandbox.runner import Limits, RunResult, Toolchain
from ..source.languages import JudgeLanguage, judge_languages, suffix
from ..store import write_atomic
from .runtimes import command_version
from .toolchains import Installed, installed, java_file_name, java_main_class, kotlin_main_class

STDCXX = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<bits/stdc\+\+\.h>", re.MULTILINE)
PCH = "/opt/pch"  # where compiles see the precompiled <bits/stdc++.h>
CPP_STANDARD = "c++20"
log = logging.getLogger(__name__)


@lru_cache(maxsize=8192)
def text_digest(text: str) -> str:
    """Keys hold digests of sources and samples, not their texts (hashing is cheaper than encoding)."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Source:
    """What one program is built from: its language, its files (name -> text) and its entry point."""

    language: JudgeLanguage
    files: tuple[tuple[str, str], ...]
    main: str

    @staticmethod
    def of(language: JudgeLanguage, files: dict[str, str], main: str) -> Source:
        return Source(language, tuple(sorted(files.items())), main)


# This module's and the toolchains' code: how a compile is made (Java's main class, file names) is part of its key.
_CODE = hashlib.sha256(
    Path(__file__).read_bytes() + Path(__file__).with_name("toolchains.py").read_bytes()
).hexdigest()[:16]


class Compiler:
    """Compiles solvers and validators once per sources, language table entry and compiler
    version, in the sandbox, into the cache."""

    def __init__(self, folder: Path, rerun: bool = False, python: str = "", cpp_standard: str = CPP_STANDARD) -> None:
        self.folder = folder
        self.rerun = rerun  # compile again what failed before
        self.python = python
        self.cpp_standard = cpp_standard
        self.gxx = shutil.which("g++")
        self.version = command_version([self.gxx, "--version"]) if self.gxx else ""
        key = hashlib.sha256(json.dumps([self.version, self.pch_flags()]).encode()).hexdigest()[:16]
        self.headers = folder / f"pch-{key}"  # <bits/stdc++.h> precompiled, for this g++ and flags
        self._precompiling = threading.Lock()
        self._precompile_failed = False

    def tools(self, language: JudgeLanguage) -> Installed:
        return installed(language, self.python)

    def compile(self, source: Source) -> tuple[Path | None, str]:
        """Build ``source`` into one program, once; (None, why) when it cannot be built."""
        tools = self.tools(source.language)
        if tools.missing:
            return None, f"not run: {tools.missing}"
        binary = self.program(source)
        if binary.is_file():
            return binary, ""
        error_file = binary.with_name("compile-error.txt")
        if error_file.is_file() and not self.rerun:
            return None, "compile error:\n" + error_file.read_text("utf-8", "replace")
        return self._compile(source, tools, binary, error_file)

    def compiled(self, source: Source) -> Path | None:
        """The program built from ``source`` before, if there is one (without compiling)."""
        binary = self.program(source)
        return binary if binary.is_file() else None

    def keep_only(self, folders: set[str], settled: float = 3600.0) -> None:
        """Delete every compiled program but those in ``folders`` (a full build's), unless it was
        made in the last ``settled`` seconds: another build sharing the cache may be about to run it."""
        if not self.folder.is_dir():
            return
        keep = folders | {self.headers.name}
        before = time.time() - settled
        for folder in self.folder.iterdir():
            if folder.name not in keep and folder.is_dir() and folder.stat().st_mtime < before:
                shutil.rmtree(folder, ignore_errors=True)

    @lru_cache(maxsize=4096)  # noqa: B019 (one compiler per verifier; the cache holds paths only)
    def program(self, source: Source) -> Path:
        """Where the program of ``source`` is kept: named by the sources (by digest), the language's
        commands, which of its files it compiles (by suffix; its id picks Java's and C++'s ways), its
        compiler's version and the C++ standard."""
        named = [(name, text_digest(text)) for name, text in source.files]
        language = source.language
        parts = [named, source.main, language.compile, language.program, self.tools(language).version, _CODE]
        parts += [language.id, language.suffixes]
        key = hashlib.sha256(json.dumps([*parts, self.cpp_standard]).encode()).hexdigest()[:24]
        return self.folder / key / language.program

    def pch_flags(self) -> list[str]:
        """The C++ compile's flags, for a precompiled header that fits it."""
        cpp = judge_languages()["cpp"]
        flags = [
            w.replace("{cpp_std}", self.cpp_standard) for w in cpp.compile[1:] if w not in ("{files}", "-x", "c++")
        ]
        if "-o" in flags:
            at = flags.index("-o")
            del flags[at : at + 2]
        return flags

    def _command(self, source: Source, tools: Installed) -> tuple[list[str], dict[str, str]]:
        """The compile's argv, and its files under the names the compiler needs."""
        language = source.language
        files = dict(source.files)
        main = source.main
        stem = main.rsplit(".", 1)[0]
        mainclass = stem
        if language.id == "java":
            mainclass = java_main_class(files[main], stem)
            renamed = java_file_name(files[main], main)
            if renamed != main and renamed not in files:
                files[renamed] = files.pop(main)
                main = renamed
        elif language.id == "kotlin":
            mainclass = kotlin_main_class(stem)
        sources = sorted(n for n in files if suffix(n) in language.suffixes)
        argv = tools.command(
            language.compile,
            files=[f"./{name}" for name in sources],
            main=f"./{main}",
            mainclass=mainclass,
            cpp_std=self.cpp_standard,
            memory_mb=str(COMPILE_LIMITS.memory >> 20),
        )
        if language.id == "cpp":
            argv[1:1] = self._header_flags(files, sources)
        return argv, files

    def _compile(self, source: Source, tools: Installed, binary: Path, error_file: Path) -> tuple[Path | None, str]:
        """Compile in the sandbox; the program comes back on a pipe and is renamed into place (builds
        sharing the cache, ``make site`` beside ``make serve``, may compile it at once). What the
        sandbox reports is the source's doing (an error, a time or memory limit) and is kept, for
        ``--rerun`` to try again; a failure of this machine (the sandbox, the cache's disk) is not."""
        argv, files = self._command(source, tools)
        toolchain = tools.toolchain
        if PCH in " ".join(argv):
            toolchain = Toolchain((*toolchain.binds, (str(self.headers), PCH)), toolchain.made, toolchain.dirs)
        try:
            result = sandbox.run(
                argv,
                None,
                tools.limits(COMPILE_LIMITS),
                files={name: text.encode() for name, text in files.items()},
                toolchain=toolchain,
                collect=source.language.program,
            )
        except OSError as error:
            return None, f"could not compile: {error}"
        if result.exit_code == 0 and result.collected and not result.output_exceeded:
            try:
                write_atomic(binary, result.collected, mode=0o755)
            except OSError as error:
                return None, f"could not keep the compiled program in {binary.parent}: {error.strerror}"
            return binary, ""
        message = _compile_failure(result, argv[0].rsplit("/", 1)[-1])
        for name in files:  # as the author wrote it: paul.cpp, not ./paul.cpp
            message = message.replace(f"./{name}:", f"{name}:")
        if busy(result):  # no fault of the source's: not run this time, and not kept
            return None, f"not run: {message}"
        with contextlib.suppress(OSError):
            write_atomic(error_file, message.encode("utf-8"))
        return None, "compile error:\n" + message

    def build_scripted(self, files: dict[str, str]) -> tuple[Path | None, str]:
        """A program given as a folder with ``build`` and/or ``run`` scripts, as the package format and
        problemtools make it: ``build`` run in the sandbox, which must leave an executable ``run``. The
        folder it leaves comes back as a tar archive (read in memory only), kept by the sources' digests
        and the compilers' versions; ("", message) when the build failed."""
        built = self.scripted(files)
        error_file = built.with_name("error.txt")
        if built.is_file():
            return built, ""
        if error_file.is_file() and not self.rerun:
            return None, error_file.read_text(encoding="utf-8", errors="replace")
        modes = {name: 0o755 if name in ("build", "run") else 0o644 for name in files}
        try:
            result = sandbox.run(
                ["/bin/sh", "-c", BUILD_SCRIPT],
                None,
                COMPILE_LIMITS,
                files={name: (text.encode(), modes[name]) for name, text in files.items()},
                toolchain=self.tools(judge_languages()["cpp"]).toolchain,
                collect="./",
            )
        except OSError as error:
            return None, f"could not build: {error}"
        if result.exit_code == 0 and result.collected and not result.output_exceeded:
            try:
                write_atomic(built, result.collected)
            except OSError as error:
                return None, f"could not keep the built program in {built.parent}: {error.strerror}"
            return built, ""
        message = "build failed:\n" + _compile_failure(result, "build")
        if busy(result):  # no fault of the scripts': not kept (the next build tries again)
            return None, f"could not build: {_compile_failure(result, 'build')}"
        with contextlib.suppress(OSError):
            write_atomic(error_file, message.encode("utf-8"))
        return None, message

    def scripted(self, files: dict[str, str]) -> Path:
        """Where a program built by its own scripts is kept (``build_scripted``): by its files' digests and
        the compilers' versions."""
        named = sorted((name, text_digest(text)) for name, text in files.items())
        key = hashlib.sha256(json.dumps([named, "build-run", self.version, _CODE]).encode()).hexdigest()[:24]
        return self.folder / key / "built.tar"

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
            argv = [self.gxx, *self.pch_flags(), "-x", "c++-header", "all.h", "-o", "all.h.gch"]
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
    wall=180.0,  # a backstop: what a compile may take is its CPU time
    cpu=60.0,
    memory=2048 * sandbox.MiB,
    output=256 * sandbox.MiB,
    file_size=256 * sandbox.MiB,
    scratch=512 * sandbox.MiB,
)


# A scripted program's build: ``build`` (if any) must leave an executable ``run``, as problemtools requires.
BUILD_SCRIPT = (
    'if [ -e build ]; then ./build >&2 || { echo "build exited with code $?" >&2; exit 1; }; fi; '
    '[ -x run ] || { echo "the build left no executable named run" >&2; exit 1; }'
)


CPU_TICK = 0.1  # how far below RLIMIT_CPU a process stopped by it may be counted
CPU_KILLED = "CPU time limit exceeded"  # strsignal(SIGXCPU), as g++ reports a compiler process it stopped


def busy(result: RunResult) -> bool:
    """Whether a compile was stopped on the clock having had under half that time on a CPU: this machine
    was too busy to give it one, which is no fault of the source's (and not kept: the next build tries again)."""
    return result.timed_out and result.cpu < result.wall / 2


def _compile_failure(result: RunResult, tool: str) -> str:
    """Why a compile made no program, in the compiler's words where it has any."""
    limits = COMPILE_LIMITS
    if busy(result):
        return (
            f"{tool} did not finish in {limits.wall:g} s on this busy machine ({result.cpu:.0f} s of CPU time); "
            "the next build compiles it again"
        )
    if result.timed_out:
        return f"{tool} took longer than {limits.wall:g} s (run the build with --rerun to try again)"
    # stopped at the limit (RLIMIT_CPU, per process: g++ reports its cc1plus killed, in the words of SIGXCPU)
    if result.cpu >= limits.cpu_seconds - CPU_TICK or CPU_KILLED in result.stderr or result.signal == signal.SIGXCPU:
        return f"{tool} took longer than {limits.cpu_seconds} s of CPU time (run the build with --rerun to try again)"
    if result.output_exceeded:
        return f"the program or {tool}'s messages are over {COMPILE_LIMITS.output // sandbox.MiB} MiB"
    text = result.stderr[-4000:]
    if result.signal is not None:
        memory = COMPILE_LIMITS.memory // sandbox.MiB
        text += f"\n{tool} was killed by signal {result.signal} (over {memory} MiB of memory?)"
    return text.strip() or f"{tool} failed with exit code {result.exit_code} and no message"
