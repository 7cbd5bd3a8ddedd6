"""TeX math to MathML at build time with Temml, driven through one long-running Node process.

Results are cached by snippet (and Temml version) under ``.cache/``. Without Node or Temml the
build still completes: math is shown as its TeX source, with one warning. The math font the pages
name comes from here too (``math_sources``), for publish/mathfont.py to cut down.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..nodepackages import find_node_modules
from ..store import SqliteStore

log = logging.getLogger(__name__)
WORKER = Path(__file__).with_name("math_worker.cjs")


@dataclass(frozen=True, slots=True)
class MathResult:
    html: str | None
    error: str | None = None


def locate_temml(root: Path) -> Path | None:
    """temml's node_modules (see ``nodepackages``)."""
    return find_node_modules(root, ("temml",))


def temml_version(node_modules: Path) -> str:
    data = json.loads((node_modules / "temml" / "package.json").read_text(encoding="utf-8"))
    return str(data.get("version", "unknown"))


def snippet_key(tex: str, display: bool) -> str:
    return hashlib.sha1(f"{int(display)}\x00{tex}".encode()).hexdigest()


def clean_error(message: str) -> str:
    """Temml's message, first line only, without its prefixes or the underlined echo of the input."""
    first = message.strip().splitlines()[0] if message.strip() else "cannot render"
    first = re.sub(r"^(ParseError: )?(Temml parse error: )?", "", first)
    return re.sub(r"\s+at position \d+:.*$", "", first).strip()


def pipe_room(fd: int) -> int:
    """The bytes a pipe holds, made 1 MiB where Linux allows (``/proc/sys/fs/pipe-max-size``); 0 when
    not known."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    try:
        return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    except OSError:
        return 0


STIX_FILE = "stix-two-math-latin-400-normal.woff2"  # the whole font, with its MATH table, despite the name
# The same font's glyphs and tables without TrueType hinting (which Chromium's FreeType does not use:
# ``tests/test_mathfont.py`` shows the pixels), zlib-compressed: fontTools reads its outlines in
# milliseconds, a WOFF2 file's in half a second (decoded all at once, in Python).
STIX_OUTLINES = "stix-two-math-latin-400-normal.woff"


@dataclass(frozen=True, slots=True)
class MathSources:
    """What the site's math font is made from (``MathRenderer.math_sources``)."""

    stylesheet: bytes  # Temml's, naming the font
    font: bytes  # the whole font (WOFF2): published as it is when it cannot be cut
    outlines: bytes  # what the cut is made from (``STIX_OUTLINES``, or the font when that is missing)


class MathRenderer:
    """Renders snippets with Temml; keeps the Node process and the cache between calls."""

    def __init__(self, root: Path, cache_dir: Path) -> None:
        self.node = shutil.which("node")
        self.node_modules = locate_temml(root)
        self.version = temml_version(self.node_modules) if self.node_modules else ""
        self.cache_path = cache_dir / self.cache_name(root)
        self._store: SqliteStore | None = None
        self.fresh: dict[str, dict[str, str]] | None = None  # in a worker: results since ``take_fresh``
        self.process: subprocess.Popen[str] | None = None
        self.room = 0  # the bytes the Temml process's input pipe holds (``pipe_room``)

    @property
    def store(self) -> SqliteStore:
        """The cache, opened when first needed, and read a snippet at a time: no process holds the
        math of the whole archive."""
        if self._store is None:
            self._store = SqliteStore(self.cache_path, "math cache")
        return self._store

    @property
    def cache_warning(self) -> str | None:
        """Why the cache was discarded, if it was read and was unreadable."""
        return self._store.warning if self._store is not None else None

    @staticmethod
    def cache_name(root: Path) -> str:
        """The cache file's name: Temml's version, and the worker's digest (Temml's options live there)."""
        node_modules = locate_temml(root)
        version = temml_version(node_modules) if node_modules else ""
        worker = hashlib.sha1(WORKER.read_bytes()).hexdigest()[:10]
        return f"math-temml-{version or 'none'}-{worker}.sqlite"

    @staticmethod
    def published_files(root: Path) -> dict[str, bytes]:
        """What every page may need, by its name in static/: Temml's small font (style.css names it
        for script letters and primes). Pages with math also load ``math_sources``."""
        node_modules = locate_temml(root)
        if node_modules is None:
            return {}
        path = node_modules / "temml" / "dist" / "Temml.woff2"
        return {"fonts/Temml.woff2": path.read_bytes()} if path.is_file() else {}

    @staticmethod
    def math_sources(root: Path) -> MathSources | None:
        """Temml's stylesheet for its STIX Two setup (the layout of align, equation numbers and tags),
        and the STIX Two Math font it names, from @fontsource/stix-two-math, whole (publish/mathfont.py
        cuts it down): a reader's machine needs no math font of its own. None without them."""
        node_modules = locate_temml(root)
        if node_modules is None:
            return None
        css = node_modules / "temml" / "dist" / "Temml-STIX2.css"
        files = node_modules / "@fontsource" / "stix-two-math" / "files"
        font, outlines = files / STIX_FILE, files / STIX_OUTLINES
        if not css.is_file() or not font.is_file():
            return None
        # text first, the math font when it comes
        stylesheet = css.read_bytes().replace(b"@font-face {", b"@font-face {\n  font-display: swap;")
        whole = font.read_bytes()
        return MathSources(stylesheet, whole, outlines.read_bytes() if outlines.is_file() else whole)

    @property
    def available(self) -> bool:
        return bool(self.node and self.node_modules)

    def unavailable_reason(self) -> str:
        if not self.node:
            return "Node.js not found: math is shown as TeX source (install Node.js with npm)"
        return "npm package temml not found: math is shown as TeX source (run `npm ci`, or a build with npm installed)"

    def render_all(self, snippets: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Render every distinct snippet once: from the cache where possible, the rest in one batch."""
        results: dict[tuple[str, bool], MathResult] = {}
        missing: list[tuple[str, bool]] = []
        for snippet in dict.fromkeys(snippets):
            cached = self.store.get(snippet_key(*snippet))
            if cached is not None:
                results[snippet] = MathResult(cached.get("html"), cached.get("error"))
            else:
                missing.append(snippet)
        if missing and self.available:
            for snippet, result in zip(missing, self._run_batch(missing), strict=True):
                results[snippet] = result
                value = {k: v for k, v in (("html", result.html), ("error", result.error)) if v}
                self.store.put(snippet_key(*snippet), value)
                if self.fresh is not None:
                    self.fresh[snippet_key(*snippet)] = value
        return results

    def warm_up(self) -> None:
        """Read the cache, and start Temml with one snippet whose result is dropped: Node loads and
        compiles Temml at its first snippet, for a quarter of a second. (If that fails, the first
        real snippet starts Temml again, and says why it fails.)"""
        self.store  # noqa: B018 - read now
        if not self.available:
            return
        try:
            self._run_batch([("x^2", False)])
        except (OSError, RuntimeError, ValueError) as e:
            log.info("Temml did not start: %s", e)
            self.close()

    def take_fresh(self) -> dict[str, dict[str, str]]:
        """In a worker: the results rendered since the last call, for the builder's cache."""
        fresh, self.fresh = self.fresh or {}, {}
        return fresh

    def _run_batch(self, snippets: list[tuple[str, bool]]) -> list[MathResult]:
        process = self._process()
        assert process.stdin is not None and process.stdout is not None
        payload = "".join(json.dumps({"tex": tex, "display": display}) + "\n" for tex, display in snippets)

        def feed() -> None:
            assert process.stdin is not None
            process.stdin.write(payload)
            process.stdin.flush()

        # Written here when the pipe holds it all (it is empty: Temml read every line it answered), else
        # by a thread while the answers are read, so that neither process waits for the other to read.
        # (JSON's escapes keep the payload ASCII: its length is its bytes.)
        writer = threading.Thread(target=feed, daemon=True) if len(payload) > self.room else None
        if writer is None:
            feed()
        else:
            writer.start()
        results = []
        for _ in snippets:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("the Temml worker stopped unexpectedly")
            answer = json.loads(line)
            error = answer.get("error")
            results.append(MathResult(answer.get("html"), clean_error(error) if error else None))
        if writer is not None:
            writer.join()
        return results

    def _process(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            assert self.node and self.node_modules
            env = {**os.environ, "NODE_PATH": str(self.node_modules)}
            self.process = subprocess.Popen(
                [self.node, str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=env,
            )
            assert self.process.stdin is not None
            self.room = pipe_room(self.process.stdin.fileno())
        return self.process

    def detach(self) -> None:
        """In a forked worker: leave the builder's Temml process to it (close only this copy of its
        pipes), and keep what this copy renders for ``take_fresh``."""
        self.fresh = {}
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    stream.close()
            self.process = None

    def close(self) -> None:
        if self.process is not None:
            if self.process.stdin:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            if self.process.stdout:
                self.process.stdout.close()
            self.process = None

    def save_cache(self) -> None:
        if self.version and self._store is not None:
            self._store.save()

    def __enter__(self) -> MathRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
