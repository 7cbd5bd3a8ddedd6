"""SVG images made safe to publish: an SVG opened on its own runs its scripts on the site's origin.

Each image is sanitized by DOMPurify on jsdom (``svg_worker.cjs``), in the sandbox, as every
program that reads archive content runs. What comes back is checked again here with a strict
parser of our own (``unsafe_part``) before it is kept: only what passes both is published. Results
are cached by content, DOMPurify's and jsdom's versions, and this code.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any
from xml.parsers import expat

from ..nodepackages import find_node_modules
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..sandbox.runner import Limits, RunResult, Toolchain, interpreter_folders
from ..store import write_atomic, write_json

WORKER = Path(__file__).with_name("svg_worker.cjs")
LIBRARIES = ("dompurify", "jsdom")
MAX_SVG_BYTES = 8 * 1024 * 1024  # larger images are withheld: the sanitizer holds a DOM of each
BATCH_BYTES = 4 * 1024 * 1024  # sanitized per run of the worker (its output must fit the pipe's limit)
SVG_NS = "http://www.w3.org/2000/svg"
INSIDE = "/opt/svg"  # where the worker and its node_modules are shown in the sandbox
LIMITS = Limits(wall=60.0, memory=2048 * 1024 * 1024, output=32 * 1024 * 1024, scratch=16 * 1024 * 1024)

_ACTIVE_ELEMENTS = frozenset(
    {"script", "foreignobject", "iframe", "embed", "object", "handler", "listener"}
    | {"animate", "set", "animatemotion", "animatetransform"}
)
_RASTER_DATA = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*", re.I)
_LOADING_CSS = re.compile(r"\\|@import|image-set|\bsrc\s*\(|expression\s*\(", re.I)
_CSS_URL = re.compile(r"url\s*\(\s*['\"]?\s*(.?)", re.I)


@dataclass(frozen=True, slots=True)
class Cleaned:
    """One image's outcome: ``path``, the sanitized image to publish, in the cache (None: withheld,
    ``problem`` says why, at ``line``); ``removed`` names what was taken out that a browser would
    have run or loaded."""

    path: Path | None
    problem: str = ""
    line: int = 0
    removed: tuple[str, ...] = ()


class SvgSanitizer:
    def __init__(self, root: Path, cache: Path) -> None:
        self.node = shutil.which("node")
        self.modules = find_node_modules(root, LIBRARIES)
        self.folder = cache / "svg"
        self._version = self._fingerprint()

    @property
    def missing(self) -> str:
        """Why images cannot be sanitized here ("" when they can)."""
        if self.node is None:
            return "Node.js is not installed"
        if self.modules is None:
            return "DOMPurify and jsdom are not installed (run `npm ci`)"
        return ""

    def clean(self, images: dict[str, Path]) -> dict[str, Cleaned]:
        """The outcome for each image (``images``: its file, by the digest it had when loaded)."""
        return self._outcomes({key: partial(self._read, path) for key, path in images.items()})

    def clean_texts(self, texts: list[str]) -> dict[str, Cleaned]:
        """The outcome for each image made here from archive content (a drawing TeX made), by its text's
        SHA-1 digest."""
        keyed = {hashlib.sha1(text.encode("utf-8")).hexdigest(): text for text in texts}
        return self._outcomes({key: partial(_given, key, text) for key, text in keyed.items()})

    def _outcomes(self, images: dict[str, Callable[[], tuple[str, str] | Cleaned]]) -> dict[str, Cleaned]:
        """Each image's outcome from the cache, or sanitized now (``images``: how to read its digest and text)."""
        results: dict[str, Cleaned] = {}
        todo: dict[str, tuple[str, str]] = {}  # digest when loaded -> (digest now, text)
        for key, read in images.items():
            kept = self._cached(key)
            if kept is not None:
                results[key] = kept
            elif self.missing:
                results[key] = Cleaned(None, f"cannot be checked for scripts: {self.missing}")
            elif isinstance(found := read(), Cleaned):
                results[key] = found
            else:
                todo[key] = found
        for batch in _batches(todo):
            results.update(self._sanitize(batch))
        return results

    def _read(self, path: Path) -> tuple[str, str] | Cleaned:
        """The image's digest and text (the file may have changed since it was loaded)."""
        try:
            data = read_regular(path, MAX_SVG_BYTES + 1)
        except OSError as error:
            return Cleaned(None, f"cannot be read: {error.strerror or error}")
        if len(data) > MAX_SVG_BYTES:
            return Cleaned(None, f"too large to check for scripts (over {MAX_SVG_BYTES >> 20} MiB)")
        try:
            return hashlib.sha1(data).hexdigest(), data.decode("utf-8")
        except UnicodeDecodeError:
            return Cleaned(None, "not UTF-8 text, as an SVG image must be")

    def _sanitize(self, batch: dict[str, tuple[str, str]]) -> dict[str, Cleaned]:
        assert self.node is not None and self.modules is not None
        binds = ((str(WORKER), f"{INSIDE}/svg_worker.cjs"), (str(self.modules), f"{INSIDE}/node_modules"))
        folders = interpreter_folders(self.node)
        toolchain = Toolchain(binds + tuple((str(f), str(f)) for f in folders))
        stdin = json.dumps([text for _, text in batch.values()]).encode("utf-8")
        result: RunResult | OSError
        try:
            result = sandbox.run(["node", f"{INSIDE}/svg_worker.cjs"], stdin, LIMITS, toolchain=toolchain)
            answers = json.loads(result.stdout) if result.exit_code == 0 else None
        except (OSError, ValueError) as error:
            answers, result = None, error if isinstance(error, OSError) else OSError(str(error))
        if not isinstance(answers, list) or len(answers) != len(batch):
            why = _failure(result)
            return {key: Cleaned(None, f"the SVG sanitizer failed: {why}") for key in batch}  # not kept
        return {
            key: self._keep(digest, _outcome(answer))
            for (key, (digest, _)), answer in zip(batch.items(), answers, strict=True)
        }

    def _cached(self, key: str) -> Cleaned | None:
        base = self.folder / f"{self._version}-{key}"
        try:
            value = json.loads(base.with_suffix(".json").read_text("utf-8"))
            path = base.with_suffix(".svg") if value["published"] else None
            if path is not None and not path.is_file():
                return None
            return Cleaned(path, value["problem"], value["line"], tuple(value["removed"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _keep(self, key: str, outcome: tuple[bytes | None, Cleaned]) -> Cleaned:
        """Keep the outcome in the cache: the image first, then what says it is complete."""
        data, cleaned = outcome
        base = self.folder / f"{self._version}-{key}"
        try:
            if data is not None:
                write_atomic(base.with_suffix(".svg"), data)
            value = {"published": data is not None, "problem": cleaned.problem, "line": cleaned.line}
            write_json(base.with_suffix(".json"), value | {"removed": list(cleaned.removed)})
        except OSError as error:
            return Cleaned(None, f"cannot keep the sanitized image in {self.folder}: {error.strerror or error}")
        return replace(cleaned, path=base.with_suffix(".svg") if data is not None else None)

    def _fingerprint(self) -> str:
        digest = hashlib.sha256(WORKER.read_bytes() + Path(__file__).read_bytes())
        for name in LIBRARIES if self.modules else ():
            assert self.modules is not None
            digest.update((self.modules / name / "package.json").read_bytes())
        return digest.hexdigest()[:16]


def _given(digest: str, text: str) -> tuple[str, str]:
    return digest, text


def _batches(todo: dict[str, tuple[str, str]]) -> list[dict[str, tuple[str, str]]]:
    batches: list[dict[str, tuple[str, str]]] = [{}]
    size = 0
    for key, (digest, text) in todo.items():
        if batches[-1] and size + len(text) > BATCH_BYTES:
            batches.append({})
            size = 0
        batches[-1][key] = (digest, text)
        size += len(text)
    return [b for b in batches if b]


def _outcome(answer: Any) -> tuple[bytes | None, Cleaned]:
    """The worker's answer for one image, checked: published only if ``unsafe_part`` finds nothing."""
    if not isinstance(answer, dict) or not isinstance(answer.get("svg", answer.get("error")), str):
        return None, Cleaned(None, "the SVG sanitizer gave no answer for it")
    if "error" in answer:
        line = answer.get("line")
        return None, Cleaned(None, str(answer["error"]), line if isinstance(line, int) and line > 0 else 0)
    text = answer["svg"]
    unsafe = unsafe_part(text)
    if unsafe:
        return None, Cleaned(None, f"still active after sanitizing ({unsafe})")
    removed = answer.get("removed")
    return text.encode("utf-8"), Cleaned(None, removed=tuple(map(str, removed)) if isinstance(removed, list) else ())


def _failure(result: RunResult | OSError) -> str:
    if isinstance(result, OSError):
        return str(result)
    if result.timed_out:
        return f"it took over {LIMITS.wall:g} s"
    tail = result.stderr.strip().splitlines()
    return tail[-1] if tail else f"exit code {result.exit_code}, and no answer"


def unsafe_part(text: str) -> str:
    """What of a sanitized SVG a browser would still run or load ("" when nothing): a strict check
    that does not trust the sanitizer. Only SVG elements; no document type, entity or processing
    instruction; no scripts, event handlers or animation; references to fragments and raster data
    alone, in attributes and style sheets."""
    parser = expat.ParserCreate(namespace_separator=" ")
    found: list[str] = []
    style: list[str] = []
    depth = [0]

    def start(name: str, attrs: dict[str, str]) -> None:
        space, _, local = name.rpartition(" ")
        if space != SVG_NS or local.lower() in _ACTIVE_ELEMENTS:
            found.append(f"<{local}>")
        if local == "style":
            depth[0] += 1
        for key, value in attrs.items():
            attribute = key.rpartition(" ")[2].lower()
            if attribute.startswith("on"):
                found.append(attribute)
            elif not _quiet_attribute(attribute, value):
                found.append(f"{attribute}={value[:40]!r}")

    def end(name: str) -> None:
        if name.rpartition(" ")[2] == "style":
            depth[0] -= 1
            if not quiet_css("".join(style)):
                found.append("<style> loading from elsewhere")
            style.clear()

    def characters(data: str) -> None:
        if depth[0]:
            style.append(data)

    def refuse(what: str) -> Any:
        def handler(*_: Any) -> None:
            found.append(what)

        return handler

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = refuse("a document type")
    parser.EntityDeclHandler = refuse("an entity")
    parser.ProcessingInstructionHandler = refuse("a processing instruction")
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as error:
        found.append(f"not well-formed: {error}")
    return ", ".join(dict.fromkeys(found))


def _quiet_attribute(name: str, value: str) -> bool:
    if name in ("href", "src"):
        return _local_reference(value)
    return quiet_css(value) if name == "style" or "url" in value.lower() else True


def _local_reference(value: str) -> bool:
    value = value.strip()
    return value.startswith("#") or _RASTER_DATA.fullmatch(value) is not None


def quiet_css(text: str) -> bool:
    """CSS that loads nothing: every ``url()`` points into the image, nothing else names a resource,
    and no escapes (``\\75 rl(`` is ``url(`` to a browser)."""
    if _LOADING_CSS.search(text):
        return False
    return all(match.group(1) == "#" for match in _CSS_URL.finditer(text))
