"""``site-builder init``: the files that make a folder an archive's own repository (pure), and
writing those that are not there yet, never over one that is."""

from __future__ import annotations

import json
import re
from pathlib import Path

# What a build leaves in the project folder, as ``.gitignore`` lines: the site, the caches, the
# lock beside the site (``publish/lock.py``) and a killed build's temporary folders (``publish/output.py``).
IGNORED = ("/site/", "/.cache/", "/.site.lock", "/.site.tmp-*")

GITIGNORE = (
    "# Written by site-builder: the site, its caches, the lock beside the site, a killed build's leftovers.\n"
    + "".join(f"{line}\n" for line in IGNORED)
)

SITE_YAML = """\
# The site's settings. Every key is optional; `site-builder schema site` prints them all.
title: %(title)s
# description: One sentence for the home page.
# base_url: https://example.org/archive/     # the site's address: sitemap.xml, canonical links, the 404 page
#                                            # (the GitHub workflow gives its Pages address with --base-url)
# repo_url: https://github.com/you/archive   # "Edit" links on every entry's page
# repo_branch: main
# tracks:                                    # the order of the tracks on the site, and their titles
#   icpc: {title: ICPC, description: Problems in the style of ICPC regionals.}
# exclude: [template, drafts]                # folders of this repository that hold no entry of the site
"""

WORKFLOW_PATH = ".github/workflows/pages.yml"

# The placeholder in SITE_BUILDER: the workflow stops with an annotation until it is replaced.
PLACEHOLDER = "OWNER"

WORKFLOW = """\
# Checks every pull request (annotations on the files) and publishes the main branch to GitHub Pages.
# Before the first run:
#   1. set SITE_BUILDER below to where pip installs site-builder from;
#   2. in the repository's Settings > Pages, choose "GitHub Actions" as the source.
name: pages
on:
  push:
    branches: [main]      # the branch the site is built from
  pull_request:
  workflow_dispatch:

permissions:
  contents: read          # the build job reads the repository and nothing else

env:
  # CHANGE THIS: a pip requirement for site-builder (a Git URL with @tag, a wheel's URL, a package name).
  SITE_BUILDER: "git+https://github.com/OWNER/site-builder.git"

concurrency:
  group: pages-${{ github.ref }}
  cancel-in-progress: true

jobs:
  build:
    runs-on: ubuntu-24.04
    permissions:
      contents: read
      pages: read         # configure-pages reads the site's address; only the deploy job can publish
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0  # the whole history: each entry's "updated" date comes from git
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Tools the build runs (bubblewrap, the sandbox; g++ for C++ solvers)
        run: |
          sudo apt-get update -qq
          sudo apt-get install -y -qq bubblewrap g++
          # Ubuntu 24.04 lets AppArmor refuse unprivileged user namespaces, which bubblewrap needs.
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
      - name: Install site-builder (from SITE_BUILDER above)
        run: |
          case "$SITE_BUILDER" in
            *OWNER*) echo "::error file=.github/workflows/pages.yml::set SITE_BUILDER (pip's source)"; exit 1;;
          esac
          python -m pip install --quiet "$SITE_BUILDER"
      - name: Nothing from the checkout where the build keeps its cache and site (a branch could plant them)
        run: rm -rf .cache site .site.lock
      - name: The verification and render caches of the last run on this branch (or main)
        uses: actions/cache@v4
        with:
          path: |  # the cache, and the tokens that say a build of this job made it (publish/trust.py)
            .cache
            ~/.local/state/site-builder
          key: site-cache-${{ github.ref_name }}-${{ github.sha }}
          restore-keys: |
            site-cache-${{ github.ref_name }}-
            site-cache-main-
      - name: Check pull requests (annotations on the files; a failing sample fails the run)
        if: github.event_name == 'pull_request'
        run: site-builder check --format github --fail-on failing
      - id: pages
        if: github.event_name != 'pull_request'
        uses: actions/configure-pages@v5
      - name: Build the site for its Pages address
        if: github.event_name != 'pull_request'
        env:
          BASE_URL: ${{ steps.pages.outputs.base_url }}
        run: site-builder build --format github --base-url "$BASE_URL"
      - uses: actions/upload-pages-artifact@v3
        if: github.event_name != 'pull_request'
        with:
          path: site

  deploy:
    if: github.event_name != 'pull_request'
    needs: build
    runs-on: ubuntu-24.04
    permissions:
      pages: write        # only this job may publish, and it runs nothing from the archive
      id-token: write
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"""

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")


def site_title(folder_name: str) -> str:
    """A first title from the repository folder's name: ``cp-archive`` -> "Cp Archive"."""
    words = [w for w in re.split(r"[-_ .]+", folder_name) if w]
    return " ".join(w if any(c.isupper() for c in w) else w.capitalize() for w in words) or "Problem Archive"


def starter_files(title: str, archive: str = "") -> dict[str, str]:
    """The files ``init`` writes, by path from the repository's top; ``archive``: the archive's
    folder in it ("" for the top, where an archive's own repository keeps its tracks)."""
    shown = title if _PLAIN.match(title) else json.dumps(title, ensure_ascii=False)  # JSON strings are YAML
    return {
        f"{archive}/site.yaml" if archive else "site.yaml": SITE_YAML % {"title": shown},
        ".gitignore": GITIGNORE,
        WORKFLOW_PATH: WORKFLOW,
    }


def missing_ignores(gitignore: str) -> list[str]:
    """The lines of ``IGNORED`` that an existing ``.gitignore`` does not have (with or without slashes)."""
    have = {line.strip().strip("/") for line in gitignore.splitlines()}
    return [line for line in IGNORED if line.strip("/") not in have]


def write_missing(folder: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    """Write each of ``files`` (by path in ``folder``) that is not there; the paths written, and
    those kept as they were."""
    created, kept = [], []
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "x", encoding="utf-8") as handle:
                handle.write(text)
        except FileExistsError:
            kept.append(name)
            continue
        created.append(name)
    return created, kept
