"""The data model: frozen values that flow from the archive walk to the pages. No I/O."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .errors import Compact, Diagnostic, init_fields


@dataclass(frozen=True, slots=True)
class Checker(Compact):
    """How solver output is compared with the expected answer."""

    mode: str = "tokens"  # "tokens", "spaces" (Kattis' space_change_sensitive) or "exact" (bytes)
    case_sensitive: bool = True
    float_absolute: float | None = None
    float_relative: float | None = None


@dataclass(frozen=True, slots=True)
class Subtask(Compact):
    """A scoring problem's test group: its folder under ``data/secret/``, the points it is worth, and the
    constraints its input validator is given for it, where the package states them."""

    name: str
    points: float | None = None
    constraints: str = ""


@dataclass(frozen=True, slots=True)
class Metadata(Compact):
    """What ``problem.yaml`` says; ``None`` where it is silent."""

    title: str | None = None
    label: str | None = None
    source: str | None = None
    year: int | None = None
    tags: tuple[str, ...] = ()
    rating: int | None = None
    summary: str | None = None
    time_limit: float | None = None
    memory_limit: int | None = None  # MiB, as a package's ``limits: memory`` gives it
    checker: Checker = Checker()
    status: str = "complete"
    credits: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (role, names): ("Authors", ("Ada Park",))
    source_url: str | None = None
    license: str | None = None
    rights_owner: str | None = None
    validator_args: tuple[str, ...] = ()  # passed to a custom output validator after its three arguments
    package: str | None = None  # the ICPC problem package format version ("legacy", "2025-09"), "polygon", "cms"
    validation: str = ""  # a package's "default" or "custom" output validation ("" when it does not say)
    interactive: bool = False
    multi_pass: bool = False  # the validator may ask for another pass (nextpass.in)
    validation_passes: int = 2  # at most this many passes of a multi-pass problem
    constants: tuple[tuple[str, str], ...] = ()  # a package's named constants, for \constant{name}
    scoring: bool = False  # a package's ``type: scoring``: test groups give points
    subtasks: tuple[Subtask, ...] = ()  # a scoring package's test groups, in order
    # The files solutions read their input from and write their output to ("": standard input, output): a
    # CMS task's ``infile``/``outfile`` (the Italian format's default is input.txt and output.txt)
    io_files: tuple[str, str] = ("", "")
    # A CMS communication task's copies of the solution run at once, and how each talks to the manager:
    # "std_io" (its standard streams), "fifo_io" (FIFOs named in its arguments), "" (fifo_io with a stub)
    communication: tuple[int, str] = (1, "")


# What a package without an editorial lacks: said on its page, and counted once in the build's summary
MISSING_WRITEUP = "a write-up (solution/solution.en.tex or .md; legacy: problem_statement/solution.tex)"
MAX_TEXT_BYTES = 4 * 1024 * 1024  # the largest file whose text the site shows
# Why a test file is not published (``publish_data`` in site.yaml): the page counts them, not lists them.
UNPUBLISHED_DATA = "test data is not published on this site (publish_data in site.yaml)"


@dataclass(frozen=True, slots=True)
class SourceFile(Compact):
    """One file of a problem folder. ``text`` is None for binary files."""

    name: str  # posix path relative to the problem folder
    text: str | None
    size: int
    digest: str = ""  # sha1 of the bytes on disk
    binary: str = ""  # why ``text`` is None: "not UTF-8 ...", "binary data ...", "... over the limit"
    image_size: tuple[int, int] | None = None  # an image's width and height in CSS pixels (source/images.py)

    def remedy(self) -> str:
        """What the author can do so that the site shows this file, when ``text`` is None."""
        if self.size > MAX_TEXT_BYTES:
            return f"shorten or split it to under {MAX_TEXT_BYTES >> 20} MiB: the page shows all of it"
        return "save it as UTF-8 text"


@dataclass(frozen=True, slots=True)
class Sample(Compact):
    name: str
    input_file: str  # relative to the problem folder (the .interaction file of a sample that has only one)
    answer_file: str | None
    input: str
    answer: str | None
    transcript: str | None = None  # an interactive sample's ``.interaction``, shown instead of input and answer
    transcript_file: str | None = None
    # A sample the statement holds (a CMS task's ``\exmp{input}{output}``): the line of ``input_file``, the
    # statement, where it is; the input is that text, not the file. 0: a sample of its own files.
    line: int = 0

    @property
    def runnable(self) -> bool:
        """Whether solvers run on it: it has an input (an ``.interaction`` alone is only shown)."""
        return self.input_file != self.transcript_file


@dataclass(frozen=True, slots=True)
class Validator(Compact):
    """A program that judges a solver's output (``checker.py``, or a package's output validator)."""

    folder: str  # the validator's folder relative to the problem folder ("" for checker.py)
    language: str  # "python", "cpp", or the language it is written in when it cannot run here
    main: str  # the Python file to run (relative to ``folder``); "" for compiled validators
    files: tuple[str, ...]  # every file of the validator, relative to the problem folder
    # How it is called and what its exit says: "kattis" (input answer feedback/ < output; 42, 43),
    # "testlib" (input output answer; 0 accepts, 1 and 2 reject, 3 fails), "testlib-interactor"
    # (input output, talking to the solver), "cms" (input answer output; a score from 0 to 1 on stdout),
    # "cms-manager" (a communication task's: the input on stdin, FIFOs to each solver; a score as "cms").
    convention: str = "kattis"


@dataclass(frozen=True, slots=True)
class Layout(Compact):
    """Which file of a problem folder plays which role."""

    statements: tuple[tuple[str, str], ...] = ()  # (language code, file), the primary language first
    statement_pdf: str | None = None
    writeup: str | None = None
    solvers: tuple[str, ...] = ()  # run on every sample: files, or folders with build/run scripts ("x/")
    shown: tuple[str, ...] = ()  # other reference solutions: shown highlighted, not run
    validator: Validator | None = None
    missing: tuple[str, ...] = ()  # what a problem package lacks, in words
    # Documents made from several files (a Polygon statement's sections): (name, TeX) of each, a
    # document whose name no file has, which ``\input``s the files beside it.
    composed: tuple[tuple[str, str], ...] = ()
    # Files compiled with every solver of their language: a CMS task's grader (``sol/grader.cpp``) and the
    # headers beside it; a solver is then the grader's functions, not a program of its own
    graders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EntrySource(Compact):
    """Everything read from one problem folder, before any rendering."""

    path: str  # posix path relative to the archive root, e.g. "icpc/2022/X-quartets"
    archive_prefix: str  # the archive folder as shown in messages, e.g. "archive"
    track: str
    groups: tuple[str, ...]
    folder_label: str | None
    folder_title: str
    folder_year: int | None
    meta: Metadata
    files: tuple[SourceFile, ...]
    samples: tuple[Sample, ...]
    updated: str  # ISO date of the last change
    diagnostics: tuple[Diagnostic, ...] = ()
    layout: Layout = Layout()
    slug: str = ""  # the folder of its page in the site: ``path`` made URL-safe (and unique)
    withheld: tuple[tuple[str, str], ...] = ()  # files not published, and why (publish/screening.py)
    # .tex files outside the folder that its documents \input (a contest's shared template), named by their
    # paths in the archive: read for rendering, never published with the entry (source/shared.py)
    shared: tuple[SourceFile, ...] = ()
    _key_text: str = field(default="", init=False, repr=False, compare=False)  # see ``key_text``

    def file(self, name: str) -> SourceFile | None:
        for item in self.files:
            if item.name == name:
                return item
        return None

    def display_path(self, name: str = "") -> str:
        base = "/".join(p for p in (self.archive_prefix, self.path) if p)  # path "": the archive is the folder
        return "/".join(p for p in (base, name) if p) or "."

    def key_text(self) -> str:
        """All of this value as text for cache keys, with each file's text by its digest (and the
        samples' texts, which are files' texts, by the files' names): cheaper than ``repr``.
        Made once per value: a build keys its inputs, its render and its verification by it."""
        if not self._key_text:
            files = tuple((f.name, f.digest, f.binary) for f in (*self.files, *self.shared))
            samples = tuple((s.name, s.input_file, s.answer_file, s.line) for s in self.samples)
            rest = tuple(getattr(self, n) for n in init_fields(EntrySource) if n not in ("files", "samples", "shared"))
            object.__setattr__(self, "_key_text", repr((files, samples, rest)))
        return self._key_text


@dataclass(frozen=True, slots=True)
class MathSnippet(Compact):
    tex: str
    display: bool
    line: int


@dataclass(frozen=True, slots=True)
class TexPicture(Compact):
    """A drawing made at build time: a TikZ picture of a LaTeX document, for TeX to draw (its source, and
    the definitions, packages and libraries of the document it needs, ``preamble``), or a PDF figure to
    convert (``kind`` "pdf", the file its only image)."""

    source: str
    preamble: str
    line: int
    images: tuple[str, ...] = ()  # the images it includes, as files of the problem folder: image1.png is the first
    kind: str = "tikz"
    width: str = ""  # a CSS width the document asks for (``\includegraphics[width=8cm]``)


@dataclass(frozen=True, slots=True)
class Heading(Compact):
    level: int  # 1 = top level of the document
    id: str
    html: str


@dataclass(frozen=True, slots=True)
class Document(Compact):
    """A rendered statement or write-up. ``html`` may hold math slots until math is filled in."""

    file: str
    html: str
    toc: tuple[Heading, ...] = ()
    title: str | None = None
    summary_html: str | None = None
    math: tuple[MathSnippet, ...] = ()
    pictures: tuple[TexPicture, ...] = ()  # drawn by TeX where the html has their slots
    language: str = ""  # the language code of a statement in a multi-language problem package


@dataclass(frozen=True, slots=True)
class CodeFile(Compact):
    """A source file shown highlighted on the entry page."""

    name: str
    language: str
    html: str
    lines: int
    digest: str = ""  # the source file's (``SourceFile.digest``): its HTML holds while the file's bytes do


# A solver's note when the entry's output validator could not be built: its message follows on the next lines.
CHECKER_NOT_BUILT = "not judged: the checker does not build"

# A language (a Pygments lexer name, as ``source/languages.py`` gives each file) as pages and statuses name it.
LANGUAGE_NAMES = {
    "python": "Python",
    "cpp": "C++",
    "c": "C",
    "java": "Java",
    "kotlin": "Kotlin",
    "rust": "Rust",
    "go": "Go",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "haskell": "Haskell",
    "ocaml": "OCaml",
    "csharp": "C#",
    "ruby": "Ruby",
    "latex": "LaTeX",
    "markdown": "Markdown",
    "yaml": "YAML",
    "bash": "Shell",
    "text": "Text",
    "build-run": "build/run scripts",  # a package's program built and run by its own scripts
}
PACKAGE_NAMES = {"polygon": "Polygon package", "cms": "CMS task"}


def format_memory(package: str | None) -> int | None:
    """The memory limit (MiB) a problem package has when it sets none, as its format says: 1024 in the
    legacy (Kattis) format, 2048 in the versions since 2023-07; None for a folder that is no package,
    and for Polygon and CMS, whose packages always state theirs."""
    if not package or package in PACKAGE_NAMES:
        return None
    return 1024 if package == "legacy" else 2048


VERDICT_NAMES = {
    "AC": "Accepted",
    "WA": "Wrong Answer",
    "TLE": "Time Limit",
    "RTE": "Runtime Error",
    "OLE": "Output Limit",
    "CE": "Checker Error",
    "GEN": "Generated",
    "NJ": "Not Judged",
}


@dataclass(frozen=True, slots=True)
class Verdict(Compact):
    """What one solver did on one sample."""

    sample: str
    code: str  # a key of VERDICT_NAMES
    seconds: float
    output: str  # at most the first 64 KiB
    output_truncated: bool = False
    message: str = ""  # first difference, error tail, or checker feedback

    @property
    def name(self) -> str:
        return VERDICT_NAMES[self.code]

    @property
    def failed(self) -> bool:
        """Whether the solver failed: a checker's failure ("CE") is the checker's, not the solver's."""
        return self.code not in ("AC", "GEN", "NJ", "CE")


@dataclass(frozen=True, slots=True)
class SolverRun(Compact):
    """One solver's verdicts on every sample of its entry; ``note`` explains runs that could not happen."""

    solver: str
    language: str
    source_hash: str
    verdicts: tuple[Verdict, ...] = ()
    note: str = ""

    @property
    def checked(self) -> int:
        return sum(1 for v in self.verdicts if v.code not in ("GEN", "NJ"))

    @property
    def failures(self) -> int:
        return sum(1 for v in self.verdicts if v.failed)

    def verdict(self, sample: str) -> Verdict | None:
        return next((v for v in self.verdicts if v.sample == sample), None)


@dataclass(frozen=True, slots=True)
class Entry(Compact):
    path: str
    track: str
    groups: tuple[str, ...]
    label: str | None
    title: str
    year: int | None
    source: str | None
    tags: tuple[str, ...]
    rating: int | None
    summary_html: str | None
    summary_text: str | None
    status: str
    statement: Document | None
    solution: Document | None
    solvers: tuple[CodeFile, ...]
    sources: tuple[CodeFile, ...]
    samples: tuple[Sample, ...]
    files: tuple[str, ...]
    statement_pdf: str | None
    updated: str
    display_path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    runs: tuple[SolverRun, ...] = ()
    has_python: bool = False
    search_text: str = ""  # statement, form feed, write-up as plain text, math as TeX
    slug: str = ""  # the folder of its page in the site (``path`` made URL-safe)
    translations: tuple[Document, ...] = ()  # the statement in further languages
    credits: tuple[tuple[str, tuple[str, ...]], ...] = ()
    source_url: str | None = None
    license: str | None = None
    rights_owner: str | None = None
    package: str | None = None
    missing: tuple[str, ...] = ()
    withheld: tuple[tuple[str, str], ...] = ()  # files listed but not published, and why
    test_data: tuple[int, int] = (0, 0)  # test files not published (``publish_data``): how many, and their bytes
    time_limit: float | None = None  # seconds, as problem.yaml or the package gives it
    memory_limit: int | None = None  # MiB
    checking: str = ""  # how answers are checked, in words ("tokens compared, numbers within 10^-6")
    subtasks: tuple[Subtask, ...] = ()  # a scoring problem's test groups and their points
    math_chars: str = ""  # what the math font draws on its page, sorted (``render.document.math_characters``)
    complete: bool = True  # False for a card (see ``card``)

    def card(self) -> Entry:
        """This entry without what only its own page shows (the HTML of its documents and code,
        their contents and math, the texts of its samples) and its searchable text (the search index
        keeps its records with its shards: ``publish/records``), a tenth of its size: everything other
        pages show of it, and everything the key of its own page needs, but not that page."""
        return replace(
            self,
            statement=_bare(self.statement) if self.statement else None,
            solution=_bare(self.solution) if self.solution else None,
            translations=tuple(_bare(d) for d in self.translations),
            solvers=tuple(replace(c, html="") for c in self.solvers),
            sources=tuple(replace(c, html="") for c in self.sources),
            samples=tuple(replace(s, input="", answer=None if s.answer is None else "") for s in self.samples),
            search_text="",
            complete=False,
        )

    def lasting(self, math_rendered: bool) -> bool:
        """Whether the entry is as it will stay, to be cached: not while its math is shown as TeX
        only because Temml is missing (``math_rendered`` false). A card came from the cache: it is."""
        return not self.complete or math_rendered or (not self.statement and not self.solution)

    @property
    def package_name(self) -> str:
        """What kind of package the folder is, in words ("" for one of our own folders)."""
        if self.package is None:
            return ""
        return PACKAGE_NAMES.get(self.package, f"ICPC problem package, format {self.package}")

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.level == "error")

    @property
    def group(self) -> str:
        return "/".join(self.groups)

    @property
    def python_run(self) -> SolverRun | None:
        return next((r for r in self.runs if r.language == "python"), None)

    def shown_output(self, sample: str) -> tuple[SolverRun, Verdict] | None:
        """The run whose output a sample shows: the first that fails on it, else the Python one,
        else the first that ran on it."""
        ran = [(r, v) for r in self.runs if (v := r.verdict(sample)) is not None]
        failing = next(((r, v) for r, v in ran if v.failed), None)
        return failing or next(((r, v) for r, v in ran if r.language == "python"), None) or (ran[0] if ran else None)

    @property
    def checker_problem(self) -> tuple[str, str] | None:
        """("Checker does not build" or "Checker crashed", its message) when the entry's output validator
        failed, which judged none of the solvers' outputs (their runs say "not judged"); else None."""
        for run in self.runs:
            if run.note.startswith(CHECKER_NOT_BUILT):
                return "Checker does not build", run.note.partition("\n")[2]
        crashed = next((v for r in self.runs for v in r.verdicts if v.code == "CE"), None)
        return ("Checker crashed", crashed.message) if crashed else None

    @property
    def verification(self) -> tuple[str, str]:
        """The header status over every run of every language, as (kind, text): ("verified",
        "Verified 6/6"), ("failing", "Failing: C++ 1/3"), ("none", "No solver run: javac not found")..."""
        if not self.samples:
            return "none", "No samples"
        if not self.runs:  # no solver, or a build that ran none (--no-verify)
            return "none", "Not run" if self.solvers else "No solver"
        checker = self.checker_problem
        if checker is not None:
            return "failing", checker[0]
        broken = [
            r for r in self.runs if r.note and not r.verdicts and not r.note.startswith(("not run", "not judged"))
        ]
        failing = [r for r in self.runs if r.failures]
        if broken or failing:
            parts = list(dict.fromkeys(f"{_language(r)} {r.note.splitlines()[0].rstrip(':')}" for r in broken))
            parts += _failures_by_language(failing)
            return "failing", "Failing: " + ", ".join(parts)
        ran = [r for r in self.runs if r.verdicts]
        if not ran:
            why = next((r.note.splitlines()[0] for r in self.runs if r.note), "")
            return "none", "No solver run" + (f": {why.removeprefix('not run: ')}" if why else "")
        checked = sum(r.checked for r in ran)
        if checked == 0:
            judged = any(v.code == "NJ" for r in ran for v in r.verdicts)
            return "none", "Not judged" if judged else "Generated only"
        return "verified", f"Verified {checked}/{checked}"


@dataclass(frozen=True, slots=True)
class TrackInfo(Compact):
    """A track's title and description as ``site.yaml`` gives them."""

    title: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Track(Compact):
    id: str  # its folder's name
    title: str
    description: str
    entries: tuple[Entry, ...]
    slug: str = ""  # the folder of its page in the site: ``id`` made URL-safe (and unique)

    @property
    def url(self) -> str:
        return f"{self.slug or self.id}/index.html"


@dataclass(frozen=True, slots=True)
class Tag(Compact):
    name: str
    slug: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Site(Compact):
    """The whole site, fully loaded and linked, ready to render."""

    title: str
    description: str
    base_url: str
    repo_url: str
    repo_branch: str
    tracks: tuple[Track, ...]
    tags: tuple[Tag, ...]
    entries: tuple[Entry, ...] = field(default=())
    footer: str = ""
    judge_url: str = ""  # site.yaml's pattern of a problem's page on a judge


def _bare(document: Document) -> Document:
    """A card's document: its title, file and summary, not its HTML, contents or math."""
    return replace(document, html="", toc=(), math=())


def language_name(language: str) -> str:
    """A language as pages and statuses name it ("C++" for ``cpp``; a name not in the table as it is)."""
    return LANGUAGE_NAMES.get(language, language)


def _language(run: SolverRun) -> str:
    """A run's language as the status names it ("C++")."""
    return language_name(run.language)


def _failures_by_language(failing: list[SolverRun]) -> list[str]:
    """ "C++ 1/3" for one failing solver of a language, "C++ 8/8 (4 solvers)" for several."""
    totals: dict[str, list[int]] = {}
    for run in failing:
        total = totals.setdefault(_language(run), [0, 0, 0])
        total[0] += run.failures
        total[1] += len(run.verdicts)
        total[2] += 1
    return [
        f"{name} {bad}/{runs}" + (f" ({solvers} solvers)" if solvers > 1 else "")
        for name, (bad, runs, solvers) in totals.items()
    ]
