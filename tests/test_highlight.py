"""Highlighting: fastlex gives Pygments' exact classes and text; files get numbered, linkable lines."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import ROOT
from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Name, Punctuation, Whitespace

from site_builder.render import fastlex, highlight, regexstart
from site_builder.source.languages import LANGUAGES

TRICKY = {
    "python": [
        'x = f"{a!r:>10} {b}" + rb"\\d" + """multi\nline"""\n# comment\n'
        "@decorator\nclass A(B, metaclass=M):\n    pass\n",
        "def f(*args, **kw) -> 'T':\n    return [i async for i in g()] if x else {1: 2}\n",
        "s = 'unterminated\nprint(0x1F, 1_000, 1e-9, 3j)\n",
        "match p:\n    case Point(x=0) | [1, *rest]:\n        ...\n",
        "\ufeffname = 'caf\u00e9 \U0001f600 \ue000<b>\ue001 & \ue002'\r\nif x < y:\r    pass\r\n",
    ],
    "cpp": [
        "#include <bits/stdc++.h>\n#define F(i, n) for (int i = 0; i < (n); ++i)\n"
        "using namespace std;\n/* multi\n line */\n",
        "template <class T> struct S { std::vector<T> v; size_t n = 0x1Full; char c = '\\n'; };\n",
        'auto s = R"delim(raw " string)delim"; int64_t x = 1\'000; // trailing\n',
        'int main() {\n  string s = "unterminated\n  return 0;\n}\n',
    ],
    "latex": ["\\section{A} $x^2$ % c\n\\begin{itemize}\\item a\\end{itemize}\n"],
    "markdown": ["# T\n\n```python\nprint(1)\n```\n\n- *a* `b` [c](d)\n"],
    "yaml": ["title: A\ntags: [a, b]\nchecker:\n  float_tolerance: 1e-6\n"],
}


def corpus() -> list[tuple[str, str, str]]:
    cases = [(lang, f"tricky-{i}", text) for lang, texts in TRICKY.items() for i, text in enumerate(texts)]
    for path in sorted((ROOT / "archive").rglob("*")):
        language = highlight.language_for(path.name)
        if path.is_file() and language and language != "text":
            cases.append((language, str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return cases


def runs_of_html(text: str) -> list[tuple[str, str]]:
    """(CSS class, text) runs of highlighted HTML: spans, and plain text between them."""
    found = [
        (m.group(1) or "", html.unescape(m.group(2) if m.group(1) is not None else m.group(3)))
        for m in re.finditer(r'<span class="([^"]+)">([^<]*)</span>|([^<]+)', text)
    ]
    assert "".join(f'<span class="{c}">{v}</span>' if c else v for c, v in found) != "" or text == ""
    return merged(found)


def pygments_runs(language: str, text: str) -> list[tuple[str, str]]:
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True)
    return merged([(fastlex.css_class(kind), value) for kind, value in lexer.get_tokens(text)])


def merged(runs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for css, value in runs:
        if not value:
            continue
        if out and out[-1][0] == css:
            out[-1] = (css, out[-1][1] + value)
        else:
            out.append((css, value))
    return out


def same_as_pygments(language: str, text: str) -> bool:
    """Every character has Pygments' class, but blanks may take the class of the token before them
    when that class has no background, border or underline (``fastlex._AFTER``)."""
    ours = highlight.highlighted(text, language)
    if "<span" in re.sub(r'<span class="[^"]+">', "", ours):
        return False
    mine, theirs = per_character(runs_of_html(ours)), per_character(pygments_runs(language, text))
    if [c for c, _ in mine] != [c for c, _ in theirs]:
        return False
    plain = {fastlex.css_class(k) for k in fastlex._CLASSES} - {fastlex.css_class(k) for k in fastlex._DECORATED}
    return all(
        a == b or (char in " \t\x0b\x0c\xa0" and a in plain and b == "")
        for (char, a), (_, b) in zip(mine, theirs, strict=True)
    )


def per_character(runs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(char, css) for css, value in runs for char in value]


@pytest.mark.parametrize(
    ("language", "name", "text"), corpus(), ids=lambda v: v if "/" in str(v) or "-" in str(v) else ""
)
def test_fastlex_gives_pygments_classes(language: str, name: str, text: str) -> None:
    assert same_as_pygments(language, text), name


def test_a_wrong_class_is_caught() -> None:
    """The comparison itself can fail: a keyword shown as a name differs."""
    ours = highlight.highlighted("return x\n", "python")
    assert runs_of_html(ours.replace('class="k"', 'class="n"')) != pygments_runs("python", "return x\n")


def test_placeholders_in_the_text_are_escaped_as_text() -> None:
    controls = "".join(chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x20)))  # not tabs or line ends
    for text in (controls + " <x> & y\n", controls + "".join(chr(c) for c in range(0xE000, 0xE010)) + " <x> & y\n"):
        out = highlight.highlighted(text, "python")
        assert html.unescape(re.sub("<[^>]+>", "", out)) == text and "&lt;" in out and "&amp;" in out
        assert same_as_pygments("python", text)
    assert "\ue000\ue001" in out
    assert highlight.highlighted("\x01 x\n", "python") == highlight.highlighted("\x01 x\n", "python")


def test_rules_anchored_to_a_line_start_are_known() -> None:
    assert regexstart.line_anchored(re.compile(r"^\s*#", re.M))
    assert regexstart.line_anchored(re.compile(r"(?:^|\A)x"))
    assert not regexstart.line_anchored(re.compile(r"x|^y", re.M))
    assert not regexstart.line_anchored(re.compile(r"\s*^#", re.M))


def test_common_lexers_are_accelerated() -> None:
    for language in ("python", "cpp", "c", "latex", "markdown"):
        lexer = get_lexer_by_name(language)
        assert fastlex.supports(lexer), language
        states = fastlex._states(type(lexer), fastlex._types(lexer))
        joined = sum(1 for s in states.values() if s.start is not None)
        assert joined >= len(states) * 0.8, (language, joined, len(states))
        for state in states.values():  # alternations compile when first used: each of them does
            for alternation in {*(state.start or ()), *(state.middle or ())} - {None}:
                assert alternation is not None and alternation.compiled().groups > 0


class _VerboseLexer(RegexLexer):
    """A rule that compiles alone but not inside an alternation: its comment runs to the end."""

    flags = re.VERBOSE
    tokens: ClassVar = {"root": [(r"[a-z]+  # a word", Name), (r"\s+", Whitespace), (r".", Punctuation)]}


def test_rules_that_cannot_be_joined_fall_back_to_pygments() -> None:
    lexer = _VerboseLexer(stripnl=False, ensurenl=True)
    text = "abc, d<e>\n"
    assert fastlex.supports(lexer)
    ours = fastlex.html(lexer, text)
    assert not fastlex.supports(lexer)  # the alternation failed to compile: Pygments' loop from now on
    theirs = merged([(fastlex.css_class(kind), value) for kind, value in lexer.get_tokens(text)])
    assert runs_of_html(ours) == theirs and ours == fastlex.html(lexer, text)


class _NestingLexer(RegexLexer):
    """Brackets that push and pop a state, and a closing bracket at the root, which Pygments pops
    only down to the root."""

    tokens: ClassVar = {
        "root": [(r"\)+", Punctuation, "#pop"), (r"\(", Punctuation, "inner"), (r"\w+", Name), (r"\s+", Whitespace)],
        "inner": [
            (r"\)", Punctuation, "#pop"),
            (r"\(", Punctuation, "#push"),
            (r"\w+", Name.Function),
            (r"\s+", Whitespace),
        ],
    }


def test_states_are_pushed_and_popped_as_pygments_does_even_past_the_root() -> None:
    lexer = _NestingLexer(stripnl=False, ensurenl=True)
    text = ") a )) (b (c) d) e ) (f\ng)\n"
    assert fastlex.supports(lexer)
    ours = fastlex.html(lexer, text)
    assert fastlex.supports(lexer)
    theirs = merged([(fastlex.css_class(kind), value) for kind, value in lexer.get_tokens(text)])
    assert runs_of_html(ours) == theirs
    assert '<span class="nf">d</span>' in ours and '<span class="n">e</span>' in ours  # d inside, e outside


def test_file_has_numbered_linkable_lines() -> None:
    out = highlight.render_file("a = 1\nb = 2\n", "python", "solution-py-")
    gutter = re.search(r'<pre class="gutter" aria-hidden="true">(.*?)</pre>', out, re.S)
    assert gutter is not None and gutter.group(1).count("\n") == 2
    assert '<a id="solution-py-L2" href="#solution-py-L2" tabindex="-1">2</a>' in gutter.group(1)
    code = re.search(r'<pre class="code"><code>(.*?)</code></pre>', out, re.S)
    assert code is not None and html.unescape(re.sub("<[^>]+>", "", code.group(1))) == "a = 1\nb = 2\n"


@pytest.mark.parametrize(
    ("text", "lines"), [("", 1), ("x", 1), ("x\n", 1), ("x\ny", 2), ("x\r\ny\r\n", 2), ("\n\n", 2)]
)
def test_gutter_has_one_number_per_line(text: str, lines: int) -> None:
    out = highlight.render_file(text, "python", "p-")
    assert out.count('<a id="p-L') == lines and f'id="p-L{lines}"' in out


def test_unknown_language_is_plain_and_escaped() -> None:
    assert highlight.render_block("<b>&", None) == '<pre class="highlight code"><code>&lt;b&gt;&amp;</code></pre>\n'


def test_stylesheet_has_both_themes() -> None:
    css = highlight.stylesheet()
    assert ".highlight .k " in css and ":root[data-theme=dark] .highlight .k " in css
    assert "prefers-color-scheme: dark" in css


def test_same_file_same_html() -> None:
    text = Path(__file__).read_text()
    assert highlight.render_file(text, "python", "x-") == highlight.render_file(text, "python", "x-")


@pytest.mark.parametrize("language", ["python", "cpp", "c", "latex", "markdown"])
def test_fastlex_matches_pygments_on_random_text(language: str) -> None:
    """Slices of real files cut at random places, and random characters, ASCII and beyond."""
    import random

    rng = random.Random(language)
    texts = [text for _, _, text in corpus()]
    alphabet = "abcxyzXYZ_019 \t\n\\{}[]()<>\"'`#/*%$&|^~!?.,;:=+-@\u00e9\u03bb\u2212\u212a\u00a0"
    for _ in range(150):
        source = rng.choice(texts)
        start = rng.randrange(len(source))
        sample = source[start : start + rng.randrange(1, 400)]
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 80)))
        for text in (sample, noise, sample + noise):
            assert same_as_pygments(language, text), repr(text)


SNIPPET = 'class A { int x = 1; } // "quoted" <tag> & more\nprint("x")\n\tdone\n'


@pytest.mark.parametrize("language", sorted(set(LANGUAGES.values())))
def test_every_language_the_project_knows_highlights_its_text_unchanged(language: str) -> None:
    """C#'s lexer keeps its rules per instance, which the fast path cannot drive: it once stopped builds."""
    shown = highlight.highlighted(SNIPPET, language)
    assert html.unescape(re.sub(r"<[^>]+>", "", shown)) == SNIPPET


def test_a_lexer_that_fails_falls_back_to_pygments_then_to_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> str:
        raise RuntimeError("a lexer this project cannot drive")

    monkeypatch.setattr(fastlex, "html", broken)
    shown = highlight.highlighted("int x;\n", "cpp")
    assert '<span class="kt">int</span>' in shown
    monkeypatch.setattr(highlight, "highlight", broken)
    assert highlight.highlighted("int <x>;\n", "cpp") == "int &lt;x&gt;;\n"
