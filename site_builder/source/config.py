"""The site configuration: ``archive/site.yaml`` plus build options, loaded and validated."""

from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..model import TrackInfo
from .metadata import time_limit_problem
from .theme import OVERRIDES, Theme, default_theme, load_theme
from .walk import Skip, find_archive
from .yamlfile import parse_yaml_mapping

SITE_KEYS = (
    "title",
    "description",
    "base_url",
    "repo_url",
    "repo_branch",
    "footer",
    "overrides",
    "judge_url",
    "time_limit",
    "tracks",
    "cpp_standard",
    "time_margin",
    "publish_active_files",
    "publish_data",
    "exclude",
)

# Which test files the site publishes: ``all`` of them, the ``samples`` only (the default: a package's
# data can be gigabytes, past what static hosts take), or ``none`` (samples still show on every page
# and in each entry's samples.zip).
PUBLISH_DATA = ("samples", "all", "none")


# What a judge_url pattern may name: the entry's folder ("A-chair-dance") or its path in the archive.
JUDGE_PLACES = ("{folder}", "{path}")

DEFAULT_TITLE = "Problem Archive"  # a site's title when site.yaml names none

FOOTER = "Solutions are run on their samples when the site is built, where they can be: each entry shows its verdicts."


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """What ``site.yaml`` says about the site."""

    title: str = ""  # "": none given (the site's is then ``DEFAULT_TITLE``, or see ``catalog.site_title``)
    description: str = ""
    base_url: str = ""
    repo_url: str = ""
    repo_branch: str = "main"
    footer: str = FOOTER  # the line at the foot of every page (plain text)
    overrides: str = ""  # the folder of template and static overrides, relative to site.yaml ("": overrides/)
    judge_url: str = ""  # each problem on a judge: a URL with {folder} or {path} ("": no such link)
    time_limit: float = 10.0  # seconds per sample, unless problem.yaml says otherwise
    tracks: dict[str, TrackInfo] = field(default_factory=dict)
    cpp_standard: str = "c++20"  # g++'s -std= for C++ solutions and validators
    time_margin: tuple[float, float] = (2.0, 1.0)  # runs are stopped at max(limit * a, limit + b) s of CPU time
    publish_active_files: bool = False  # publish .html, .xml and the like as they are (see publish/screening.py)
    publish_data: str = "samples"  # which test files are published (see ``PUBLISH_DATA``)
    exclude: tuple[str, ...] = ()  # folders of the archive no build reads (see ``walk.excluded``)


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """Where things are and how to build, from the command line."""

    root: Path
    archive: Path
    out: Path
    templates: Path  # the theme's templates and static files (see ``theme.default_theme``)
    static: Path
    cache: Path
    jobs: int = 0
    strict: bool = False
    verify: bool = True
    rerun: bool = False
    interpreter: str = sys.executable
    base_url: str = ""  # --base-url: the site's address, over site.yaml's base_url ("": as site.yaml says)
    # The archive's watcher (``watched.py``): "" none, "ask" a running one, "start" one where none runs.
    watch: str = ""

    @property
    def workers(self) -> int:
        return self.jobs if self.jobs > 0 else (os.cpu_count() or 1)

    @property
    def own_folders(self) -> frozenset[str]:
        """The output and cache folders: never read as archive content, even inside the archive."""
        return frozenset({str(self.out), str(self.cache)})

    def skipped(self, config: SiteConfig) -> Skip:
        """The folders no walk of the archive enters: ``own_folders``, and those ``site.yaml`` excludes;
        with ``site.yaml``'s own names (it, and its overrides folder)."""
        site = frozenset({"site.yaml", PurePosixPath(config.overrides or OVERRIDES).parts[0]})
        return Skip(self.own_folders, str(self.archive), config.exclude, site)

    def display(self, path: Path) -> str:
        """A path as messages show it: relative to the project root where possible."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


def make_options(
    root: Path,
    archive: Path | None = None,
    out: Path | None = None,
    jobs: int = 0,
    strict: bool = False,
    **flags: object,
) -> BuildOptions:
    """Options for the project folder ``root``; without ``archive``, the one ``find_archive`` finds
    there (``root/archive``, or ``root`` itself in an archive's own repository)."""
    root = root.resolve()
    cache = flags.pop("cache", None)
    templates, static = default_theme(root)
    # Absolute, but symbolic links not followed: a link in their place is refused (``lock.linked_folder``).
    site = Path(os.path.abspath(out)) if out else root / "site"
    cached = Path(os.path.abspath(str(cache))) if cache else root / ".cache"
    return BuildOptions(
        root=root,
        archive=(archive or find_archive(root, frozenset({str(site), str(cached)}))).resolve(),
        out=site,
        templates=templates,
        static=static,
        cache=cached,
        jobs=jobs,
        strict=strict,
        **flags,  # type: ignore[arg-type]
    )


def parse_site_config(text: str, path: str) -> SiteConfig:
    data, lines = parse_yaml_mapping(text, path, ConfigError)
    for key in data:
        if key not in SITE_KEYS:
            raise ConfigError(path, lines.get(key), f"unknown key {key!r}{_hint(key, SITE_KEYS)}")
    values = {key: _string(data, key, path, lines) for key in SITE_KEYS[:8] if key in data}
    for key in ("base_url", "repo_url", "judge_url"):
        if values.get(key) and (problem := url_problem(values[key])):
            raise ConfigError(path, lines.get(key), f"{key} {problem}, not {values[key]!r}")
    judge = values.get("judge_url", "")
    if judge and not any(place in judge for place in JUDGE_PLACES):
        raise ConfigError(
            path, lines.get("judge_url"), f"judge_url must name the problem with {{folder}} or {{path}}, not {judge!r}"
        )
    named = values.get("overrides", "")
    if named and (PurePosixPath(named).is_absolute() or ".." in PurePosixPath(named).parts or "\\" in named):
        raise ConfigError(path, lines.get("overrides"), f"overrides must be a folder inside the archive, not {named!r}")
    tracks = _parse_tracks(data.get("tracks", {}), path, lines)
    limit = data.get("time_limit", 10.0)
    problem = time_limit_problem(limit) if isinstance(limit, (int, float)) else f"must be a number, not {limit!r}"
    if problem:
        raise ConfigError(path, lines.get("time_limit"), f"time_limit {problem}")
    active = data.get("publish_active_files", False)
    if not isinstance(active, bool):
        raise ConfigError(
            path, lines.get("publish_active_files"), f"publish_active_files must be true or false, not {active!r}"
        )
    publish_data = data.get("publish_data", "samples")
    if publish_data not in PUBLISH_DATA:
        known = ", ".join(PUBLISH_DATA)
        raise ConfigError(path, lines.get("publish_data"), f"publish_data must be one of {known}, not {publish_data!r}")
    standard = data.get("cpp_standard", "c++20")
    if not isinstance(standard, str) or standard not in CPP_STANDARDS:
        known = ", ".join(CPP_STANDARDS)
        raise ConfigError(path, lines.get("cpp_standard"), f"cpp_standard must be one of {known}, not {standard!r}")
    margin = _time_margin(data.get("time_margin", {}), path, lines.get("time_margin"))
    exclude = _exclude(data.get("exclude", []), path, lines.get("exclude"))
    return SiteConfig(
        **values,
        time_limit=float(limit),
        tracks=tracks,
        cpp_standard=standard,
        time_margin=margin,
        publish_active_files=active,
        publish_data=publish_data,
        exclude=exclude,
    )


MAX_EXCLUDED = 100  # patterns in ``exclude``: each is matched against every folder of the archive


def _exclude(value: Any, path: str, line: int | None) -> tuple[str, ...]:
    """``exclude: [drafts, /templates, contests/*/old]``: folder names (at any depth), or paths from the
    archive's folder (those with a ``/``), with the shell's ``*``, ``?`` and ``[...]`` (see ``walk.excluded``)."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_EXCLUDED:
        given = f"{len(value)} items" if isinstance(value, list) else repr(value)
        raise ConfigError(path, line, f"exclude must be a list of at most {MAX_EXCLUDED} folders, not {given}")
    for pattern in value:
        if not isinstance(pattern, str) or not pattern.strip("/") or "\\" in pattern or len(pattern) > 1024:
            raise ConfigError(path, line, f"exclude: each item must be a folder's name or path, not {pattern!r}")
        if ".." in PurePosixPath(pattern).parts:
            raise ConfigError(path, line, f"exclude: {pattern!r} must be a folder inside the archive")
    return tuple(pattern.rstrip("/") for pattern in value)


def _time_margin(value: Any, path: str, line: int | None) -> tuple[float, float]:
    """``time_margin: {factor: 2, seconds: 1}``: runs are stopped at the larger of the limit times
    ``factor`` (1 to 10) and the limit plus ``seconds`` (0 to 60) of CPU time (and at twice that of
    wall-clock time); any CPU time over the limit is a Time Limit, the margin says by how much."""
    if not isinstance(value, dict) or set(value) - {"factor", "seconds"}:
        raise ConfigError(path, line, "time_margin must be a mapping like {factor: 2, seconds: 1}")
    factor, seconds = value.get("factor", 2.0), value.get("seconds", 1.0)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (factor, seconds))
    if not numbers or not (1 <= factor <= 10 and 0 <= seconds <= 60):
        raise ConfigError(path, line, "time_margin: factor must be from 1 to 10 and seconds from 0 to 60")
    return float(factor), float(seconds)


def load_theme_of(options: BuildOptions, config: SiteConfig) -> Theme:
    """The theme of ``options`` with the overrides ``config`` names, or those beside site.yaml."""
    return load_theme(
        options.templates, options.static, options.archive, config.overrides, options.display(options.archive)
    )


def load_site_config(options: BuildOptions) -> SiteConfig:
    """``site.yaml`` (defaults without one), with ``--base-url`` over its ``base_url``."""
    path = options.archive / "site.yaml"
    config = SiteConfig()
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(options.display(path), None, f"cannot read: {e}") from e
        config = parse_site_config(text, options.display(path))
    if options.base_url:
        if problem := url_problem(options.base_url):
            raise ConfigError("--base-url", None, f"{problem}, not {options.base_url!r}")
        config = replace(config, base_url=options.base_url)
    return config


def url_problem(url: str) -> str:
    """Why ``url`` cannot be the site's address or repository ("" when it can): the site links to it
    from every page, and its 404 page loads its scripts from ``base_url``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "must be an http or https URL with a host"
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url) or "//" in parts.path or "\\" in url:
        return "must be a plain URL: no blanks, control characters, backslashes or '//' in its path"
    return ""


def _string(data: dict[str, Any], key: str, path: str, lines: dict[str, int]) -> str:
    value = data[key]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigError(path, lines.get(key), f"{key} must be a string, not {type(value).__name__}")
    return value


def _hint(key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(key), known, n=1)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"


TRACK_KEYS = ("title", "description")
CPP_STANDARDS = ("c++17", "c++20", "c++23", "c++26", "gnu++17", "gnu++20", "gnu++23", "gnu++26")


def _parse_tracks(value: Any, path: str, lines: dict[str, int]) -> dict[str, TrackInfo]:
    if not isinstance(value, dict):
        raise ConfigError(path, lines.get("tracks"), "tracks must be a mapping of track folder to {title, description}")
    tracks: dict[str, TrackInfo] = {}
    for name, info in value.items():
        line = lines.get(f"tracks.{name}", lines.get("tracks"))
        if isinstance(info, str):
            tracks[str(name)] = TrackInfo(title=info)
            continue
        if not isinstance(info, dict) or not isinstance(info.get("title", ""), str):
            raise ConfigError(path, line, f"tracks.{name} must be a mapping with a string title")
        unknown = sorted(set(info) - set(TRACK_KEYS), key=str)
        if unknown:
            where = lines.get(f"tracks.{name}.{unknown[0]}", line)
            raise ConfigError(path, where, f"tracks.{name}: unknown key {unknown[0]!r}{_hint(unknown[0], TRACK_KEYS)}")
        tracks[str(name)] = TrackInfo(
            title=str(info.get("title") or name), description=str(info.get("description") or "")
        )
    return tracks
