"""TikZ pictures drawn by TeX: each picture is compiled with ``latex`` and converted with ``dvisvgm``, in the sandbox.

A picture is archive content, and TeX is a programming language: it runs where every program that reads the
archive runs, with no shell escape and no file access outside its working folder. Its SVG can carry whatever
TeX's ``\\special`` put there, so it is published only after the SVG sanitizer (``render/svg.py``) and its
own strict check have passed it. Outcomes are cached by the picture's whole source, the TeX tools' versions and
this code. Without TeX and dvisvgm, each picture is a placeholder saying what to install.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from ..model import TexPicture
from ..sandbox import runner as sandbox
from ..sandbox.descriptors import read_regular
from ..sandbox.runner import Limits, Toolchain
from ..source.images import jpeg_size, png_size, svg_size
from ..store import write_atomic
from .bitmaps import BitmapScaler
from .document import linked_figure
from .svg import SvgSanitizer

LIMITS = Limits(wall=30.0, memory=1536 * 1024 * 1024, output=16 * 1024 * 1024, scratch=64 * 1024 * 1024)
PACKAGE_DATABASES = (Path("/usr/share/texlive/texmf-dist/ls-R"), Path("/usr/share/texmf/ls-R"))  # every .sty
TEX_DATABASES = (*PACKAGE_DATABASES, Path("/var/lib/texmf/ls-R"), Path("/var/lib/texmf/web2c/pdftex/latex.fmt"))
TEX_FOLDERS = ("/etc/texmf", "/var/lib/texmf")  # TeX's configuration and formats (the rest is under /usr)
# Packages a picture's preamble may load (those the document loads, if installed): others are left out.
PACKAGES = frozenset(
    {"tikz", "pgf", "pgfplots", "xcolor", "color", "amsmath", "amssymb", "amsfonts", "mathtools", "bm"}
    | {"circuitikz", "tikz-cd", "graphicx", "calc", "ifthen", "xfp", "siunitx", "textcomp"}
)
MAX_PDF_BYTES = 32 * 1024 * 1024
PDF_NEEDED = "install poppler-utils (pdftocairo) to show PDF figures; here it is a link to the PDF"
MAX_IMAGE_BYTES = 4 * 1024 * 1024  # an image a picture includes (it goes into the page)
NEEDED = "install a TeX system with TikZ and dvisvgm (Debian: texlive-pictures, dvisvgm)"
# Inside the sandbox: TeX reads and writes only its working folder; dvisvgm draws text as paths.
SCRIPT = (
    "export openin_any=p openout_any=p shell_escape=f TEXMFOUTPUT=. HOME=. ; "
    "latex -no-shell-escape -interaction=nonstopmode -halt-on-error picture.tex >/dev/null 2>&1; code=$?; "
    "if [ $code -ne 0 ]; then cat picture.log >&2; exit 3; fi; "
    "dvisvgm --no-fonts --exact-bbox --precision=3 --stdout picture.dvi 2>/dev/null"
)
# What a picture's styles may still ask of Beamer (``visible on=<2->`` is built on ``\\alt``): the last
# slide, where everything shows.
BEAMER = (
    "\\makeatletter\\newcounter{beamerpauses}\\setcounter{beamerpauses}{1}",
    "\\@ifundefined{alt}{\\def\\alt<#1>#2#3{#2}}{}\\@ifundefined{only}{\\def\\only<#1>#2{#2}}{}",
    "\\@ifundefined{uncover}{\\def\\uncover<#1>#2{#2}}{}\\@ifundefined{visible}{\\def\\visible<#1>#2{#2}}{}",
    "\\@ifundefined{pause}{\\let\\pause\\relax}{}\\makeatother",
)
_PACKAGE = re.compile(r"\\(?:usepackage|RequirePackage)\s*(\[[^\]]*\])?\s*\{([^}]*)\}")
_TEX_ERROR = re.compile(r"^! (.*)$(?:.|\n)*?^l\.(\d+) ?(.*)$", re.M)
_LAST_CONTROL_WORD = re.compile(r"(\\[A-Za-z@]+)\s*$")


@dataclass(frozen=True, slots=True)
class PictureResult:
    """A drawn picture (``svg``, sanitized, with its size in pt) or why there is none (``error``, at
    ``line`` of the picture, 0 when it is not known)."""

    svg: str = ""
    width: float = 0.0
    height: float = 0.0
    error: str = ""
    line: int = 0


class PictureRenderer:
    """Draws pictures with the TeX system on this machine; keeps outcomes in ``<cache>/pictures``."""

    def __init__(self, root: Path, cache_dir: Path, archive: Path) -> None:
        self.archive = archive  # where the problem folders are, with the images pictures include
        self.latex = shutil.which("latex")
        self.dvisvgm = shutil.which("dvisvgm")
        self.pdftocairo = shutil.which("pdftocairo")
        self.pdf_version = _versions(self.pdftocairo) if self.pdftocairo else "none"
        self.folder = cache_dir / "pictures"
        self.sanitizer = SvgSanitizer(root, cache_dir)
        self.version = _versions(self.latex, self.dvisvgm) if self.available else "none"
        self.bitmaps = BitmapScaler(cache_dir)  # smaller copies of the archive's large photos and screenshots

    @property
    def available(self) -> bool:
        return bool(self.latex and self.dvisvgm)

    def draw_all(
        self, pictures: list[TexPicture], folder: Path | None = None, digests: dict[str, str] | None = None
    ) -> dict[TexPicture, PictureResult]:
        """The outcome of each distinct picture: from the cache, or drawn now. ``folder``: the problem
        folder, with the images pictures include (``digests``: of its files, by name)."""
        results: dict[TexPicture, PictureResult] = {}
        for picture in dict.fromkeys(pictures):
            missing = self._missing(picture)
            if missing:
                results[picture] = PictureResult(error=missing)
                continue
            images = tuple((digests or {}).get(name, "?") for name in picture.images)
            key = self._key(picture, images)
            kept = self._cached(key)
            if kept is None:
                made = self._convert(picture, folder) if picture.kind == "pdf" else self._draw(picture, folder)
                kept = self._keep(key, made)
            results[picture] = kept
        return results

    def _missing(self, picture: TexPicture) -> str:
        """Why this drawing cannot be made here ("" when it can)."""
        if picture.kind == "pdf":
            return "" if self.pdftocairo else f"not shown: {PDF_NEEDED}"
        return "" if self.available else f"not drawn: {NEEDED}"

    def _convert(self, picture: TexPicture, folder: Path | None) -> PictureResult:
        """A PDF figure's first page as SVG, by poppler's ``pdftocairo`` in the sandbox."""
        (name,) = picture.images
        try:
            data = read_regular(folder / name, MAX_PDF_BYTES + 1) if folder is not None else b""
        except OSError as error:
            return PictureResult(error=f"cannot read {name}: {error.strerror or error}")
        if len(data) > MAX_PDF_BYTES or not data.startswith(b"%PDF"):
            return PictureResult(error=f"{name} is not a PDF of at most {MAX_PDF_BYTES >> 20} MiB")
        argv = ["pdftocairo", "-svg", "-f", "1", "-l", "1", "figure.pdf", "-"]
        try:
            run = sandbox.run(argv, None, LIMITS, files={"figure.pdf": data})
        except OSError as error:
            return PictureResult(error=f"pdftocairo could not be started: {error}")
        if run.timed_out:
            return PictureResult(error=f"pdftocairo took over {LIMITS.wall:g} s on {name}")
        if run.exit_code != 0 or not run.stdout:
            why = run.stderr.strip().splitlines()[-1:] or [f"exit code {run.exit_code}"]
            return PictureResult(error=f"pdftocairo failed on {name}: {why[0]}")
        return self._sanitized(run.stdout.decode("utf-8", "replace"))

    def _key(self, picture: TexPicture, images: tuple[str, ...]) -> str:
        made = f"pdf {self.pdf_version}" if picture.kind == "pdf" else f"{self.version}\0{tex_document(picture)}"
        text = f"{_CODE}\0{made}\0{images}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def _cached(self, key: str) -> PictureResult | None:
        try:
            value = json.loads((self.folder / f"{key}.json").read_text("utf-8"))
            return PictureResult(**value)
        except (OSError, ValueError, TypeError):
            return None

    def _keep(self, key: str, result: PictureResult) -> PictureResult:
        if "sanitizer" not in result.error:  # a sanitizer that failed may work next time
            with contextlib.suppress(OSError):  # not kept: drawn again next time
                write_atomic(self.folder / f"{key}.json", json.dumps(asdict(result)).encode())
        return result

    def _draw(self, picture: TexPicture, folder: Path | None) -> PictureResult:
        document = tex_document(picture)
        images = _images(picture, folder)
        if isinstance(images, PictureResult):
            return images
        files = {"picture.tex": document.encode()}
        for name, (data, box) in images.items():
            files[name] = data
            files[name.rsplit(".", 1)[0] + ".xbb"] = box.encode()
        toolchain = Toolchain.showing(*(Path(f) for f in TEX_FOLDERS if Path(f).is_dir()))
        try:
            run = sandbox.run(["/bin/sh", "-c", SCRIPT], None, LIMITS, files=files, toolchain=toolchain)
        except OSError as error:
            return PictureResult(error=f"TeX could not be started: {error}")
        if run.timed_out:
            return PictureResult(error=f"TeX took over {LIMITS.wall:g} s")
        if run.exit_code != 0 or not run.stdout:
            return _tex_failure(run.stderr, document, picture)
        return self._sanitized(_with_images(run.stdout.decode("utf-8", "replace"), images))

    def _sanitized(self, svg: str) -> PictureResult:
        (cleaned,) = self.sanitizer.clean_texts([svg]).values()
        if cleaned.path is None:
            return PictureResult(error=f"the drawing was withheld: {cleaned.problem}")
        text = cleaned.path.read_text("utf-8")
        # in pt, as dvisvgm and pdftocairo give it (the one quoting its attributes with ', the other with ")
        width, height = svg_size(svg.encode("utf-8")) or (0.0, 0.0)
        return PictureResult(svg=text, width=width * 3 / 4, height=height * 3 / 4)


def _images(picture: TexPicture, folder: Path | None) -> dict[str, tuple[bytes, str]] | PictureResult:
    """Each image the picture includes, by the name it has there (``image1.png``): its bytes, and the
    bounding box graphicx reads from an ``.xbb`` file (TeX may not run ``extractbb`` for it)."""
    found: dict[str, tuple[bytes, str]] = {}
    for number, name in enumerate(picture.images, 1):
        try:
            data = read_regular(folder / name, MAX_IMAGE_BYTES + 1) if folder is not None else b""
        except OSError as error:
            return PictureResult(error=f"cannot read the image {name}: {error.strerror or error}")
        size = bitmap_size(data)
        if size is None or len(data) > MAX_IMAGE_BYTES:
            return PictureResult(error=f"the image {name} is not a PNG or JPEG of at most {MAX_IMAGE_BYTES >> 20} MiB")
        width, height = size
        box = f"%%BoundingBox: 0 0 {width} {height}\n%%HiResBoundingBox: 0 0 {width} {height}\n"
        found[f"image{number}{name[name.rfind('.') :].lower()}"] = (data, box)
    return found


def _with_images(svg: str, images: dict[str, tuple[bytes, str]]) -> str:
    """The drawing with its images inside it, as ``data:`` URLs (the only links the sanitizer keeps)."""
    urls = {
        name: f"data:image/{'png' if name.endswith('.png') else 'jpeg'};base64,{base64.b64encode(data).decode('ascii')}"
        for name, (data, _) in images.items()
    }
    if not urls:
        return svg
    pattern = re.compile(r"""href=(['"])(""" + "|".join(map(re.escape, urls)) + r")\1")
    return pattern.sub(lambda m: f"href={m.group(1)}{urls[m.group(2)]}{m.group(1)}", svg)


def bitmap_size(data: bytes) -> tuple[int, int] | None:
    """The pixel size of a PNG or JPEG, from its header (None for anything else)."""
    size = png_size(data) or jpeg_size(data)
    return size if size and all(size) else None


def tex_document(picture: TexPicture) -> str:
    """The document TeX compiles: the packages (xcolor's options before TikZ loads it), the rest of the
    preamble, and the picture on a page of its own."""
    packages: list[str] = []
    rest: list[str] = []
    for line in picture.preamble.split("\n"):
        m = _PACKAGE.fullmatch(line.strip())
        if m is None:
            rest.append(line)
            continue
        names = [n.strip() for n in m.group(2).split(",") if n.strip() in PACKAGES and n.strip() in installed()]
        if names:
            packages.append(f"\\usepackage{m.group(1) or ''}{{{','.join(names)}}}")
    head = [
        "\\documentclass[dvisvgm]{article}",  # the driver of graphicx and xcolor, whoever loads them
        "\\def\\pgfsysdriver{pgfsys-dvisvgm.def}",
        *packages,
        "\\usepackage{graphicx}",
        "\\usepackage{tikz}",
        "\\usepackage{amsmath,amssymb,ifthen}",
        "\\pagestyle{empty}",
        *BEAMER,
        *rest,
        "\\begin{document}",
    ]
    return "\n".join([*head, picture.source, "\\end{document}", ""])


def first_line(picture: TexPicture) -> int:
    """The line of ``tex_document`` on which the picture starts."""
    return tex_document(picture).split("\\begin{document}\n", 1)[0].count("\n") + 2


def _tex_failure(log: str, document: str, picture: TexPicture) -> PictureResult:
    m = _TEX_ERROR.search(log)
    if m is None:
        tail = [line for line in log.splitlines() if line.startswith("!")]
        return PictureResult(error=f"TeX failed: {tail[0][2:] if tail else 'no reason given'}")
    line = int(m.group(2)) - first_line(picture)
    where = line + 1 if 0 <= line <= picture.source.count("\n") else 0
    said = m.group(1).strip()
    # TeX's context line ends at the undefined command: name it (a package the document did not load?)
    if said == "Undefined control sequence." and (name := _LAST_CONTROL_WORD.search(m.group(3))):
        said = f"Undefined control sequence {name.group(1)} (defined by a package this document does not load?)"
    return PictureResult(error=f"TeX failed: {said}", line=where)


@cache
def installed() -> frozenset[str]:
    """The LaTeX packages of this machine's TeX system, by name (from its file database)."""
    names: set[str] = set()
    for database in PACKAGE_DATABASES:
        try:
            text = database.read_text("utf-8", "replace")
        except OSError:
            continue
        names.update(m.group(1) for m in re.finditer(r"^([A-Za-z0-9-]+)\.sty$", text, re.M))
    return frozenset(names)


def _versions(*tools: str | None) -> str:
    """Which tools these are, for cache keys: each file's size and time, as ``tool_fingerprint`` identifies
    g++ (asking each for its version cost every build 60 ms of start-up). A TeX system also counts its
    file database and format, which change when a package such as pgf is updated and the programs do not."""
    files = [t for t in tools if t is not None]
    if any(t.endswith("latex") for t in files):
        files += [str(f) for f in TEX_DATABASES]
    parts = []
    for name in files:
        try:
            info = os.stat(os.path.realpath(name))
            parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:-")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


_CODE = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]


_SLOT = re.compile(r'<picture-slot n="(\d+)"></picture-slot>')


def picture_html(picture: TexPicture, result: PictureResult) -> str:
    """The drawing as an image (its own document: the ids of one drawing never meet another's), or a
    placeholder saying why there is none (for a PDF figure, a link to the PDF)."""
    if not result.svg and picture.kind == "pdf":
        return linked_figure(picture.images[0])
    if not result.svg:
        return f'<span class="missing-picture">[TikZ picture: {html.escape(result.error)}]</span>'
    data = base64.b64encode(result.svg.encode("utf-8")).decode("ascii")
    size = f' width="{result.width * 4 / 3:.0f}" height="{result.height * 4 / 3:.0f}"' if result.width else ""
    style = f' style="width: {picture.width}"' if picture.width else ""
    # "PDF figure: <its file's name>" until the page puts the figure's caption, or that name, in its place
    alt = f"PDF figure: {html.escape(figure_name(picture.images[0]))}" if picture.kind == "pdf" else "TikZ picture"
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{alt}"{size}{style} loading="lazy" decoding="async">'


def figure_name(path: str) -> str:
    """A figure's file name as words, for a figure with no caption: ``figures/frog-jumps.pdf`` is "frog jumps"."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_]+", " ", stem).strip() or stem


def fill_pictures(html_text: str, drawn: list[str]) -> str:
    return _SLOT.sub(lambda m: drawn[int(m.group(1))], html_text)
