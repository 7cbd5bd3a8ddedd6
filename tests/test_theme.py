"""The theme and an archive's overrides: templates and static files replaced by name, and kept safe."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, ArchiveMaker, options_for, write_tree

from site_builder.build import build_site
from site_builder.errors import ConfigError, TemplateError
from site_builder.source.config import make_options
from site_builder.source.theme import default_theme
from site_builder.theme import PACKAGED

ENTRY = {"t/A-one/solution.md": "## Idea\n\nCount.\n"}


def test_the_packaged_theme_is_this_project_s_templates_and_static_files() -> None:
    assert (PACKAGED / "templates").resolve() == ROOT / "templates"
    assert (PACKAGED / "static").resolve() == ROOT / "static"
    assert default_theme(ROOT) == (ROOT / "templates", ROOT / "static")


def test_a_project_without_templates_uses_the_packaged_theme(tmp_path: Path) -> None:
    options = make_options(tmp_path)
    assert (options.templates, options.static) == ((PACKAGED / "templates").resolve(), (PACKAGED / "static").resolve())


def test_an_override_replaces_one_template_and_one_static_file_by_name(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    archive = make_archive(
        {
            **ENTRY,
            "overrides/templates/base.html": (
                '{% extends "theme/base.html" %}'
                '{% block head %}<meta name="x-theme" content="ours">{% endblock %}'
                "{% block footer %}<footer>Our own footer</footer>{% endblock %}"
            ),
            "overrides/static/style.css": "body { color: red }\n",
            "overrides/static/extra/logo.txt": "logo\n",
        }
    )
    report = build_site(options_for(archive, tmp_path / "site"))
    assert report.published and not report.diagnostics
    page = (tmp_path / "site/t/A-one/index.html").read_text(encoding="utf-8")
    assert '<meta name="x-theme" content="ours">' in page and "<footer>Our own footer</footer>" in page
    assert '<main id="main"' in page and "Count." in page  # the rest is the theme's
    assert (tmp_path / "site/static/style.css").read_text().startswith("body { color: red }\n")  # + code colours
    assert (tmp_path / "site/static/extra/logo.txt").read_text() == "logo\n"
    assert (tmp_path / "site/static/site.js").read_bytes() == (ROOT / "static/site.js").read_bytes()
    assert not (tmp_path / "site/overrides").exists()


def test_with_override_templates_a_changed_card_renders_every_list_page_again(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """The archive's own templates may show anything of the site on any page (here every track's page
    counts the site's entries): a list page is not kept by the cards the theme's own would show."""
    archive = make_archive(
        {
            "t/A-one/problem.yaml": "title: One\n",
            "u/B-two/problem.yaml": "title: Two\n",
            "overrides/templates/track.html": (
                '{% extends "theme/track.html" %}{% block main %}<p>{{ track.title }}: '
                '{{ site.entries | map(attribute="title") | join(", ") }}</p>{% endblock %}'
            ),
        }
    )
    options = options_for(archive, tmp_path / "site")
    build_site(options)
    assert "T: One, Two" in (tmp_path / "site/t/index.html").read_text()
    (archive / "u/B-two/problem.yaml").write_text("title: Three\n")
    build_site(options)
    assert "T: One, Three" in (tmp_path / "site/t/index.html").read_text()


def test_with_override_templates_a_new_first_paragraph_renders_the_lists_again(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    """The theme's lists show no summary, so a new first paragraph keeps them; the archive's own may
    show it (here its track's page), so there it renders them again, in a build and in the dev server."""
    from site_builder.serve.updates import LiveBuilder

    archive = make_archive(
        {
            "t/A-one/problem.yaml": "title: One\n",
            "t/A-one/solution.md": "## Idea\n\nFirst words.\n\nMore.\n",
            "overrides/templates/track.html": (
                '{% extends "theme/track.html" %}{% block main %}<p>Said: '
                '{{ track.entries | map(attribute="summary_text") | join(", ") }}</p>{% endblock %}'
            ),
        }
    )
    options = options_for(archive, tmp_path / "site")
    build_site(options)
    assert "Said: First words." in (tmp_path / "site/t/index.html").read_text()
    (archive / "t/A-one/solution.md").write_text("## Idea\n\nSecond words.\n\nMore.\n")
    build_site(options)
    assert "Said: Second words." in (tmp_path / "site/t/index.html").read_text()
    with LiveBuilder(options) as live:
        live.build_all()
        (archive / "t/A-one/solution.md").write_text("## Idea\n\nThird words.\n\nMore.\n")
        assert live.update_entries(["t/A-one"]).published
    assert "Said: Third words." in (tmp_path / "site/t/index.html").read_text()


def test_site_yaml_names_the_overrides_folder_and_it_must_stay_inside_the_archive(
    tmp_path: Path, make_archive: ArchiveMaker
) -> None:
    files = {**ENTRY, "site.yaml": "overrides: look\n", "look/templates/404.html": "gone"}
    archive = make_archive(files)
    build_site(options_for(archive, tmp_path / "site"))
    assert (tmp_path / "site/404.html").read_text() == "gone"
    for named, message in (("../elsewhere", "must be a folder inside the archive"), ("nowhere", "not found")):
        (archive / "site.yaml").write_text(f"overrides: {named}\n")
        with pytest.raises(ConfigError, match=message) as info:
            build_site(options_for(archive, tmp_path / "site"))
        assert info.value.path.endswith("site.yaml")
    (archive / "site.yaml").write_text("overrides: link\n")
    (archive / "link").symlink_to(tmp_path)
    with pytest.raises(ConfigError, match="must be a folder inside the archive"):
        build_site(options_for(archive, tmp_path / "site"))


def test_links_in_the_overrides_folder_are_not_followed(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the deploy key\n")
    archive = make_archive(ENTRY)
    for folder in ("templates", "static"):
        (archive / "overrides" / folder).mkdir(parents=True)
    (archive / "overrides/templates/404.html").symlink_to(secret)
    (archive / "overrides/static/key.txt").symlink_to(secret)
    (archive / "overrides/static/all").symlink_to(tmp_path)
    report = build_site(options_for(archive, tmp_path / "site"))
    warned = sorted(d.path.rsplit("/", 1)[-1] for d in report.diagnostics if "symbolic link" in d.message)
    assert warned == ["404.html", "all", "key.txt"]
    site = tmp_path / "site"
    assert not any("the deploy key" in p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())
    write_tree(tmp_path / "plain-archive", ENTRY)
    assert build_site(options_for(tmp_path / "plain-archive", tmp_path / "plain")).published
    assert (site / "404.html").read_bytes() == (tmp_path / "plain/404.html").read_bytes()


def test_override_templates_run_in_jinja_s_sandbox(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    """A template from the archive cannot reach Python's internals (and so not the machine)."""
    escape = "{{ ''.__class__.__mro__[1].__subclasses__() }}"
    archive = make_archive({**ENTRY, "overrides/templates/home.html": f"line one\n{escape}\n"})
    with pytest.raises(TemplateError) as info:
        build_site(options_for(archive, tmp_path / "site"))
    assert info.value.path.endswith("overrides/templates/home.html") and info.value.line == 2
    assert (
        info.value.message == "while rendering index.html: access to attribute '__class__' of 'str' object is unsafe."
    )
    assert not (tmp_path / "site").exists()


def test_an_override_error_names_the_override_file_and_line(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    archive = make_archive({**ENTRY, "overrides/templates/tags.html": "ok\n{% if %}\n"})
    with pytest.raises(TemplateError) as info:
        build_site(options_for(archive, tmp_path / "site"))
    assert info.value.path.endswith("/archive/overrides/templates/tags.html") and info.value.line == 2


def test_the_sandboxed_environment_renders_the_theme_exactly_as_the_plain_one(tmp_path: Path) -> None:
    """An archive with overrides renders every page in Jinja's sandbox: for the theme's own templates
    that must change nothing (our templates use nothing the sandbox refuses)."""
    copy = tmp_path / "archive"
    shutil.copytree(ROOT / "archive", copy)
    plain = build_site(options_for(copy, tmp_path / "plain/site", verify=False))
    assert plain.published
    write_tree(copy, {"overrides/static/extra.txt": "x\n"})
    sandboxed = build_site(options_for(copy, tmp_path / "sandboxed/site", verify=False))
    assert sandboxed.published and sandboxed.diagnostics == plain.diagnostics
    pages = sorted(p.relative_to(tmp_path / "plain/site") for p in (tmp_path / "plain/site").rglob("*.html"))
    assert len(pages) > 30
    different = [
        str(p)
        for p in pages
        if (tmp_path / "plain/site" / p).read_bytes() != (tmp_path / "sandboxed/site" / p).read_bytes()
    ]
    assert different == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "took more than 0.5 s"),
        ('{{ "x" * 10**9 }}', "more than 10,000,000 items"),
        ("{{ [0] * 100000000 }}", "more than 10,000,000 items"),
        ("{{ 7 ** 100000 }}", "exponent above 1000"),
    ],
)
def test_an_override_template_cannot_hold_the_build_machine(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch, body: str, message: str
) -> None:
    from site_builder.publish import sandboxed

    monkeypatch.setattr(sandboxed, "PAGE_SECONDS", 0.5)
    archive = make_archive({**ENTRY, "overrides/templates/home.html": f"start\n{body}\n"})
    with pytest.raises(TemplateError, match=message) as info:
        build_site(options_for(archive, tmp_path / "site"))
    assert info.value.path.endswith("overrides/templates/home.html") and info.value.line == 2


def test_bounded_templates_still_count_loop_and_multiply(tmp_path: Path, make_archive: ArchiveMaker) -> None:
    body = (
        "{% for i in range(3) %}{{ loop.length }}{% endfor %} {{ range(2, 5)|list }} {{ 3 in range(5) }} {{ '-' * 3 }}"
    )
    archive = make_archive({**ENTRY, "overrides/templates/home.html": body})
    build_site(options_for(archive, tmp_path / "site"))
    assert (tmp_path / "site/index.html").read_text() == "333 [2, 3, 4] True ---"


def test_override_pages_are_rendered_in_one_process_per_site(
    tmp_path: Path, make_archive: ArchiveMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page process is forked once for a build's site (not once per page), and every page comes back."""
    from site_builder.publish import sandboxed

    started: list[int] = []
    real = sandboxed.PageProcess._start

    def start(self: sandboxed.PageProcess, shared: tuple[object, ...]) -> None:
        started.append(len(shared))
        real(self, shared)

    monkeypatch.setattr(sandboxed.PageProcess, "_start", start)
    files = {f"t/{letter}-x/solution.md": f"# {letter}\n\nText {letter}.\n" for letter in "ABCDEF"}
    archive = make_archive({**files, "overrides/templates/404.html": "{{ site.entries|length }} entries"})
    report = build_site(options_for(archive, tmp_path / "site", verify=False))
    assert report.published and report.pages >= 9
    assert started == [1 + 6 + 1 + 0]  # the site, its entries, its track, no tags
    assert (tmp_path / "site/404.html").read_text() == "6 entries"
    assert "Text F." in (tmp_path / "site/t/F-x/index.html").read_text()
