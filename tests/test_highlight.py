"""Highlighting: fastlex gives Pygments' exact tokens; files get numbered, linkable lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from pygments.lexers import get_lexer_by_name

from site_builder import fastlex, highlight

TRICKY = {
    "python": [
        'x = f"{a!r:>10} {b}" + rb"\\d" + """multi\nline"""\n# comment\n'
        "@decorator\nclass A(B, metaclass=M):\n    pass\n",
        "def f(*args, **kw) -> 'T':\n    return [i async for i in g()] if x else {1: 2}\n",
        "s = 'unterminated\nprint(0x1F, 1_000, 1e-9, 3j)\n",
        "match p:\n    case Point(x=0) | [1, *rest]:\n        ...\n",
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


@pytest.mark.parametrize(
    ("language", "name", "text"), corpus(), ids=lambda v: v if "/" in str(v) or "-" in str(v) else ""
)
def test_fastlex_gives_pygments_tokens(language: str, name: str, text: str) -> None:
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True)
    assert list(fastlex.tokens(lexer, text)) == list(lexer.get_tokens(text)), name


def test_common_lexers_are_accelerated() -> None:
    for language in ("python", "cpp", "c", "latex"):
        lexer = get_lexer_by_name(language)
        assert fastlex.supports(lexer), language
        states = fastlex._states(type(lexer))
        joined = sum(1 for s in states.values() if s.buckets is not None)
        assert joined >= len(states) * 0.8, (language, joined, len(states))


def test_file_has_numbered_linkable_lines() -> None:
    html = highlight.render_file("a = 1\nb = 2\n", "python", "solution-py-")
    assert html.count('class="line"') == 2
    assert '<span class="line" id="solution-py-L2"><a class="ln" href="#solution-py-L2"' in html


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
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True)
    for _ in range(150):
        source = rng.choice(texts)
        start = rng.randrange(len(source))
        sample = source[start : start + rng.randrange(1, 400)]
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 80)))
        for text in (sample, noise, sample + noise):
            assert list(fastlex.tokens(lexer, text)) == list(lexer.get_tokens(text)), repr(text)
