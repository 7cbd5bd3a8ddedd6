"""The installed compilers and runtimes of ``languages.yaml``: whether each is here, what the sandbox
must show it, its version, and its commands with the blanks filled in."""

from __future__ import annotations

import ast
import logging
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ..sandbox import runner as sandbox
from ..sandbox.runner import Limits, Toolchain, interpreter_folders
from ..source.languages import JudgeLanguage
from .runtimes import command_version, interpreter_version, python_runtime

SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib")  # shown to every run already
THREADED_PROCESSES = 256
NOTHING = Toolchain()  # the JVM, Go and .NET start a thread per core and more
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Installed:
    """A language as this machine has it: ``missing`` says which tool is not installed ("" if none)."""

    language: JudgeLanguage
    missing: str = ""
    paths: tuple[tuple[str, str], ...] = ()  # tool word -> the command to use for it
    toolchain: Toolchain = NOTHING
    version: str = ""

    def command(self, words: tuple[str, ...], **values: str | list[str]) -> list[str]:
        """``words`` with each tool resolved and each ``{blank}`` filled (a list value adds words)."""
        tools = dict(self.paths)
        argv: list[str] = []
        for index, word in enumerate(words):
            if index == 0 or word in tools:
                word = tools.get(word, word)
            for key, value in values.items():
                if word == "{" + key + "}" and isinstance(value, list):
                    argv.extend(value)
                    break
                if isinstance(value, str):
                    word = word.replace("{" + key + "}", value)
            else:
                argv.append(word)
        return argv

    def limits(self, limits: Limits) -> Limits:
        """A run's limits for this language: threaded runtimes get room for their threads and no
        address-space limit (they reserve far more than they use; the cgroup still caps memory)."""
        if not self.language.threads:
            return limits
        return replace(
            limits,
            memory=limits.memory + 512 * sandbox.MiB,  # the runtime's own, beyond the heap of ``memory``
            processes=max(limits.processes, THREADED_PROCESSES),
            address_space=False,
            stack=0,  # the usual 8 MiB: a threaded runtime sizes its threads' stacks itself (java -Xss)
        )


def installed(language: JudgeLanguage, python: str) -> Installed:
    """Find ``language``'s tools (``python``: the build's Python 3, for ``{python}``)."""
    return _installed(language, python, sandbox.isolated())


@lru_cache(maxsize=64)
def _installed(language: JudgeLanguage, python: str, isolated: bool) -> Installed:
    if language.id == "python":
        command, toolchain = python_runtime(python)
        return Installed(language, "", (("{python}", command),), toolchain, interpreter_version(python))
    paths: list[tuple[str, str]] = []
    binds: dict[str, str] = {}
    root = _sysroot(language)
    for tool in language.tools:
        found = str(Path(root, "bin", tool)) if root else shutil.which(tool)
        if found is None or not os.access(found, os.X_OK):
            return Installed(language, f"{tool} not found")
        real = os.path.realpath(found)
        if not real.startswith(SYSTEM) or root:
            paths.append((tool, real))
            binds.update((str(f), str(f)) for f in interpreter_folders(real))
        binds.update(_outside_links(real))
    if root:
        binds[root] = root
    version = command_version([dict(paths).get(w, w) for w in language.version]) if language.version else ""
    return Installed(language, "", tuple(paths), Toolchain(tuple(sorted(binds.items()))), version)


def pypy(language: JudgeLanguage) -> tuple[str, tuple[int, int]] | None:
    """The PyPy that runs ``language``'s programs (its ``pypy:`` command, when installed): its path and
    the Python version it implements; None without one."""
    return _pypy(language.pypy)


@lru_cache(maxsize=8)
def _pypy(command: str) -> tuple[str, tuple[int, int]] | None:
    found = shutil.which(command) if command else None
    if found is None:
        return None
    version = command_version([found, "-c", "import sys; print('%d %d' % sys.version_info[:2])"]).split()
    if len(version) != 2 or not all(part.isdigit() for part in version):
        log.warning("%s does not start (%s): Python runs with the build's interpreter", found, " ".join(version))
        return None
    return found, (int(version[0]), int(version[1]))


PYPY_MODULE = re.compile(r"^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*__pypy__\b|from[ \t]+__pypy__[ \t.])", re.M)


def interpreter_for(language: JudgeLanguage, text: str, python: str) -> tuple[str, str]:
    """Which interpreter runs a program of ``language`` (``python``: the build's), and why it cannot
    run ("" when it can): PyPy when it is installed, unless the program uses syntax newer than PyPy's
    Python (then ``python``, which parses it); a program that imports ``__pypy__`` needs PyPy."""
    found = pypy(language)
    if found is None:
        needs = language.pypy and PYPY_MODULE.search(text)
        return python, (f"not run: it imports __pypy__, and {language.pypy} is not installed" if needs else "")
    path, version = found
    try:
        ast.parse(text, feature_version=version)
    except SyntaxError:
        try:
            ast.parse(text)
        except SyntaxError:
            return path, ""  # wrong in every version: PyPy says so, as a judge running it would
        return python, ""
    except (ValueError, RecursionError, MemoryError):
        return path, ""
    return path, ""


def _sysroot(language: JudgeLanguage) -> str:
    """Where a toolchain that proxies its tools (rustup's ``rustc``) really lives ("" for none)."""
    if not language.sysroot or shutil.which(language.sysroot[0]) is None:
        return ""
    try:
        done = subprocess.run(list(language.sysroot), capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    root = done.stdout.strip()
    return os.path.realpath(root) if done.returncode == 0 and os.path.isdir(root) else ""


SHARED_HOMES = frozenset({"/", "/usr", "/usr/local", "/opt"})  # many tools' bin/: no installation of one


@lru_cache(maxsize=64)
def _outside_links(tool: str) -> tuple[tuple[str, str], ...]:
    """Folders outside ``/usr`` that a tool's installation links to (Debian's JDK keeps its
    configuration in ``/etc/java-17-openjdk``): each shown read-only, by its top two parts. A tool in
    ``/usr/bin`` (g++) has no installation folder of its own: walking ``/usr`` took seconds of every
    verifying build and showed every package's ``/etc`` folder to the C++ compiler."""
    home = Path(tool).parent.parent
    if str(home) in SHARED_HOMES:
        return ()
    found: set[str] = set()
    for folder, dirs, files in os.walk(home):
        if folder.count(os.sep) - str(home).count(os.sep) >= 4:
            dirs[:] = []
        for name in (*dirs, *files):
            path = os.path.join(folder, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if target.startswith("/etc/") and os.path.exists(target):
                    found.add("/".join(target.split("/")[:3]))
    return tuple(sorted((f, f) for f in found))


JAVA_MAIN = re.compile(r"\bstatic\s+(?:public\s+)?void\s+main\s*\(")
JAVA_CLASS = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
JAVA_PUBLIC = re.compile(r"\bpublic\s+(?:final\s+|abstract\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")


JAVA_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


def java_main_class(text: str, stem: str) -> str:
    """The top-level class whose body declares ``main`` (not a nested class declared before it),
    with its package; else the public class, else the file's name."""
    code = JAVA_NOISE.sub(lambda m: " " * len(m.group()), text)  # comments and literals, same length
    main = JAVA_MAIN.search(code)
    top: list[tuple[str, int, int]] = []  # (name, start, end) of each top-level class
    depth, opened = 0, None
    for match in re.finditer(r"[{}]|" + JAVA_CLASS.pattern, code):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0 and opened is not None:
                top.append((opened[0], opened[1], match.end()))
                opened = None
        elif depth == 0 and opened is None:
            opened = (match.group(1), match.start())
    name = next((n for n, start, end in top if main is not None and start < main.start() < end), None)
    public = JAVA_PUBLIC.search(code)
    name = name or (public.group(1) if public else stem)
    package = JAVA_PACKAGE.search(code)
    return f"{package.group(1)}.{name}" if package else name


def java_file_name(text: str, name: str) -> str:
    """The name javac needs for a source: its public class's (``solution.java`` holding ``public
    class Main`` is compiled as ``Main.java``)."""
    public = JAVA_PUBLIC.search(text)
    return f"{public.group(1)}.java" if public else name


def kotlin_main_class(stem: str) -> str:
    """Kotlin's class for a file's top-level ``main``: ``hello.kt`` -> ``HelloKt``."""
    return stem[:1].upper() + stem[1:] + "Kt"


def python2(name: str, text: str) -> bool:
    """A Python 2 program: ``.py2``, or a first line that asks for python2."""
    first = text.split("\n", 1)[0]
    return name.endswith(".py2") or (first.startswith("#!") and "python2" in first)


# What Python 3 says of Python 2 code when it runs it: the statements it cannot compile (``print x``,
# ``exec code``, ``except E, e``, backquotes, ``<>``, ``0777``, ``ur''``, a tuple of parameters:
# ``lambda (a, b): a``, ``def f((a, b)):``), and the names, methods and modules Python 3 no longer has.
_PYTHON2_SYNTAX = re.compile(
    r"Missing parentheses in call to '(?:print|exec)'"
    r"|leading zeros in decimal integer literals are not permitted"
    r"|^\s*(?:print\b(?!\s*\()\s*[^\s=(.,)\]}:]|except\s+[\w.]+\s*,\s*\w+\s*:|raise\s+\w+\s*,|exec\s+[\"'\w])"
    r"|`|<>|\bur[\"']|\blambda\s*\(|^\s*def\s+\w+\s*\([^)]*\(",
    re.M,
)
_PYTHON2_NAMES = re.compile(
    r"^NameError: name '(?:raw_input|xrange|unicode|unichr|basestring|long|reduce|cmp|file|execfile|raw_input)'"
    r"|^AttributeError: .*has no attribute '(?:iteritems|iterkeys|itervalues|has_key|maxint|izip|imap|ifilter|letters"
    r"|maketrans|lowercase|uppercase)'"
    r"|^(?:ModuleNotFoundError|ImportError): (?:No module named '(?:Queue|StringIO|cStringIO|cPickle|urllib2|sets"
    r"|__builtin__|copy_reg|ConfigParser|HTMLParser|httplib|Tkinter|commands)'|cannot import name '(?:izip|imap|"
    r"ifilter|izip_longest|maketrans|letters|lowercase|uppercase)')",
    re.M,
)


def python2_failure(stderr: str) -> bool:
    """Whether a Python 3 run's error output (its last lines) shows the program to be Python 2."""
    if "SyntaxError: " in stderr:
        return _PYTHON2_SYNTAX.search(stderr) is not None
    return _PYTHON2_NAMES.search(stderr) is not None


def sandboxed(toolchain: Toolchain) -> Toolchain:
    """The toolchain as runs see it (without isolation nothing needs showing)."""
    return toolchain if sandbox.isolated() else Toolchain()
