"""LaTeX conversion: errors with lines, nesting, preamble handling (renderings are in test_golden)."""

from __future__ import annotations

import re

import pytest

from site_builder.errors import LatexError
from site_builder.render.latex import render_latex


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ("a\n\\textbf{b\n\nc", 2, "unbalanced '{': this brace is never closed"),
        ("a}\n", 1, "unbalanced '}': no '{' is open here"),
        ("x\n\\begin{itemize}\n\\item a\n", 2, "\\begin{itemize} is never closed (missing \\end{itemize})"),
        (
            "\\begin{itemize}\n\\item a\n\\end{enumerate}\n",
            3,
            "\\end{enumerate} does not match \\begin{itemize} on line 1",
        ),
        ("text\n\\end{proof}", 2, "\\end{proof} without a matching \\begin{proof}"),
        ("one\ntwo $x^2\n", 2, "math opened with $ is never closed"),
        ("\\[ x \n", 1, "math opened with \\[ is never closed (missing \\])"),
        ("\\begin{align}\nx\n", 1, "\\begin{align} is never closed (missing \\end{align})"),
        (
            "\\begin{itemize}\n{\\item a\n\\end{itemize}",
            2,
            "unbalanced '{': this brace is not closed before \\end{itemize}",
        ),
        ("\\section", 1, "\\section expects an argument in braces"),
        ("a\n\\ifplastex x\\else\nb\n", 2, "\\ifplastex has no \\fi"),
        ("\\newif\\ifdraft\n\n\\ifdraft\nx\n", 3, "\\ifdraft has no \\fi"),
        ("a\nb \\tikz \\draw (0,0) -- (1,0)\n", 2, "\\tikz: the picture is never closed (no '}' or ';')"),
    ],
)
def test_errors_name_the_line(source: str, line: int, message: str) -> None:
    with pytest.raises(LatexError) as info:
        render_latex(source, "archive/t/x/solution.tex")
    assert (info.value.line, info.value.message) == (line, message)
    assert str(info.value) == f"archive/t/x/solution.tex:{line}: {message}"


def test_a_tikz_picture_in_math_is_part_of_the_formula_and_tex_draws_it_whole() -> None:
    """Its nodes' math (``{$x$}``) and a ';' inside braces do not end it, or the formula around it."""
    document, warnings = render_latex(
        "Go $\\tikz \\node[draw] {$a;b$}; \\to \\tikz[baseline] {\\node {$c$};} + 1$ now.\n"
        "$$\\tikz \\fill (0,0) circle (1pt); = x$$ and $y$\n"
        "$$\\begin{array}{c}\\tikz \\draw (0,0) -- (1,0);\\end{array}$$\n"
        "\\begin{align}\\tikz \\draw (0,0) -- (1,0); &= 1\\end{align}\n",
        "s.tex",
    )
    assert [(p.source, p.line) for p in document.pictures] == [
        ("$\\tikz \\node[draw] {$a;b$}; \\to \\tikz[baseline] {\\node {$c$};} + 1$", 1),
        ("\\[\\tikz \\fill (0,0) circle (1pt); = x\\]", 2),
        ("\\[\\begin{array}{c}\\tikz \\draw (0,0) -- (1,0);\\end{array}\\]", 3),  # an array needs math
        ("\\begin{align}\\tikz \\draw (0,0) -- (1,0); &= 1\\end{align}", 4),  # align is math
    ]
    assert [m.tex for m in document.math] == ["y"] and warnings == []
    assert document.html.count('class="tex-picture tex-display"') == 3


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    source = "\\begin{itemize}\\item x\n" * 200 + "\\end{itemize}\n" * 200
    with pytest.raises(LatexError, match="nesting deeper than"):
        render_latex(source, "deep.tex")


def test_lists_nest_three_deep_in_the_right_order() -> None:
    source = (
        "\\begin{enumerate}\\item A\\begin{enumerate}\\item B\\begin{itemize}\\item C\\end{itemize}"
        "\\item D\\end{enumerate}\\item E\\end{enumerate}"
    )
    html = render_latex(source, "x.tex")[0].html
    compact = "".join(html.split())
    assert compact == (
        '<olclass="enum-1"><li><p>A</p><olclass="enum-2"type="a"><li><p>B</p><ulclass="items-1"><li>C</li></ul></li>'
        "<li>D</li></ol></li><li>E</li></ol>"
    )


def test_preamble_is_skipped_and_title_kept() -> None:
    source = (
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\title{Quartets}\n"
        "\\begin{document}\nBody.\n\\end{document}\nafter end"
    )
    document, warnings = render_latex(source, "x.tex")
    assert document.html == "<p>Body.</p>"
    assert document.title == "Quartets"
    assert warnings == []


def test_sentences_across_lines_are_joined_with_one_space() -> None:
    html = render_latex("First line ends here.\nSecond line.\n   Third.", "x.tex")[0].html
    assert html == "<p>First line ends here. Second line. Third.</p>"


def test_space_after_control_word_is_eaten_but_not_a_paragraph_break() -> None:
    html = render_latex("\\LaTeX is \\ldots\n\nnew paragraph", "x.tex")[0].html
    assert html == "<p>L<sup>A</sup>T<sub>E</sub>Xis …</p>\n<p>new paragraph</p>"


def test_javascript_links_are_dropped_with_a_warning() -> None:
    document, warnings = render_latex("\\href{javascript:alert(1)}{click}", "x.tex")
    assert "javascript" not in document.html and "click" in document.html
    assert warnings == [
        (1, "link to 'javascript:alert(1)' dropped: only http, https, mailto and relative links are allowed")
    ]


def test_includegraphics_uses_the_asset_and_the_caption_as_alt() -> None:
    source = (
        "\\begin{figure}[h]\n\\centering\n\\includegraphics[width=5cm]{graph}\n"
        "\\caption{The sample graph}\n\\end{figure}"
    )
    html = render_latex(source, "x.tex", assets={"graph.svg": (300, 200)})[0].html
    tag = '<img src="graph.svg" alt="The sample graph" width="300" height="200" style="width: 5cm" loading="lazy"'
    assert tag in html
    assert '<figcaption><span class="caption-label">Figure 1:</span> The sample graph</figcaption>' in html


def test_includegraphics_outside_the_folder_is_refused() -> None:
    with pytest.raises(LatexError, match="points outside the problem folder"):
        render_latex("\\includegraphics{../../etc/passwd}", "x.tex")


def test_text_is_escaped() -> None:
    html = render_latex("<script>alert(1)</script> & \\textless{}b\\textgreater{}", "x.tex")[0].html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_heading_ids_are_unique_and_avoid_page_ids() -> None:
    document = render_latex("\\section{Code}\n\\section{Idea}\n\\section*{Idea}", "x.tex")[0]
    assert [h.id for h in document.toc] == ["code-2", "idea", "idea-2"]


def test_dollar_math_inside_text_inside_math_is_one_formula() -> None:
    """`$(a_i < 10^5 \\text{ for each $i$})$` is valid LaTeX: the inner `$` opens math inside the text."""
    text = r"Bounds $(1 \le a_i < 10^5 \text{ for each $i$})$ and $x$; $$y = \mbox{if $z$}$$" + "\n"
    document, warnings = render_latex(text, "t/A/solution.tex")
    assert [m.tex for m in document.math] == [r"(1 \le a_i < 10^5 \text{ for each $i$})", "x", r"y = \mbox{if $z$}"]
    assert warnings == []


@pytest.mark.parametrize(
    ("options", "style"),
    [
        ("[width=8cm]", ' style="width: 8cm"'),
        ("[width=0.5\\textwidth,height=3cm]", ' style="width: 50%"'),
        ("[width=\\linewidth]", ' style="width: 100%"'),
        ("[width=40bp]", ' style="width: 40pt"'),
        ("[scale=0.4]", ""),
        ("[width=8cm;color:red]", ""),  # nothing but a length reaches the style
    ],
)
def test_includegraphics_keeps_its_width(options: str, style: str) -> None:
    document, _ = render_latex(f"\\includegraphics{options}{{fig}}\n", "t/A/solution.tex", assets={"fig.png": None})
    assert f'<img src="fig.png" alt="fig"{style} loading="lazy" decoding="async">' in document.html


def test_definitions_in_an_input_file_apply_after_the_input() -> None:
    inputs = {"macros.tex": "\\newcommand{\\maxn}{500}\n\\newcommand{\\pt}[1]{(#1)}\n"}
    source = "Before: \\maxn.\n\\input{macros}\nAfter: $n \\le \\maxn$ and \\pt{x}.\n"
    document, warnings = render_latex(source, "t/x/solution.tex", inputs=inputs)
    assert 'Before: <code class="unknown">\\maxn</code>.' in document.html
    assert "After:" in document.html and "(x)." in document.html
    assert document.math[0].tex == "n \\le 500"
    assert warnings == [(1, "unknown macro \\maxn; shown as text")]


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ("\\def\\a{\\a\\a}\nok\n\\a\n", 3, "\\a: over 200000 macro expansions; a definition that never ends?"),
        ("\\newcommand{\\b}[1]{x}\n\n\\b", 3, "\\b is missing an argument"),
        ("one\n\\newcommand{\\c}{open\n\n", 2, "unbalanced '{': the definition is never closed"),
        ("\\newcommand{\\d}[1]{#1}\ntext\n\\d{never closed\n", 3, "unbalanced '{' in an argument of \\d"),
    ],
)
def test_macro_errors_name_the_line(source: str, line: int, message: str) -> None:
    with pytest.raises(LatexError) as info:
        render_latex(source, "t/x/solution.tex")
    assert (info.value.line, info.value.message) == (line, message)


def test_lines_after_multiline_definitions_and_calls_stay_where_they_were() -> None:
    source = "\\newcommand{\\e}[2]{%\n  [#1|#2]%\n}\n\\e{a\nb}{c\nd}\n\\unknownmacro\n"
    document, warnings = render_latex(source, "t/x/solution.tex")
    assert "[a b|c d]" in document.html
    assert warnings == [(7, "unknown macro \\unknownmacro; shown as text")]


def test_tikz_pictures_and_delimited_definitions_are_left_to_tex() -> None:
    from site_builder.render.latex.macros import Macros, expand_macros

    macros = Macros()
    source = (
        "\\newcommand{\\ball}[1]{\\fill (#1) circle (1pt);}\n"
        "\\begin{tikzpicture}\\def\\r{2}\\ball{0,0}\\end{tikzpicture}\n"
        "\\def\\pair#1,#2.{(#1;#2)}\n"
    )
    expanded = expand_macros(source, "t/x/solution.tex", macros)
    assert "\\begin{tikzpicture}\\def\\r{2}\\ball{0,0}\\end{tikzpicture}" in expanded
    assert "\\def\\pair#1,#2.{(#1;#2)}" in expanded
    assert macros.sources == ["\\newcommand{\\ball}[1]{\\fill (#1) circle (1pt);}"]
    assert expanded.count("\n") == source.count("\n")


@pytest.mark.parametrize(
    ("body", "last", "shown"),
    [
        ("\\only<-2>{A}\\only<3->{B}", 3, "B"),
        ("\\alt<6->{A}{B}", 6, "A"),
        ("\\begin{itemize}\\item<+-> a \\item<+-> b\\end{itemize}\\only<+>{C}\\only<.>{D}", 3, "CD"),
        ("one \\pause two \\only<1>{E}", 2, ""),
        ("\\uncover<+(2)->{F}\\only<2>{G}", 3, "F"),
    ],
)
def test_a_frame_shows_its_last_slide(body: str, last: int, shown: str) -> None:
    from site_builder.render.latex.overlays import resolve_frame
    from site_builder.render.latex.parser import parse_latex

    (frame,) = parse_latex(f"\\begin{{frame}}{body}\\end{{frame}}", "x.tex")
    assert resolve_frame(frame.children) == last  # type: ignore[union-attr]
    document, _ = render_latex(f"\\begin{{frame}}{body}\\end{{frame}}", "x.tex")
    text = re.sub(r"<[^>]+>|\\s", "", document.html.replace("<li>", "").replace("</li>", ""))
    assert "".join(c for c in text if c.isupper()) == shown


def test_a_picture_in_a_frame_is_drawn_as_the_last_slide_shows_it() -> None:
    source = (
        "\\begin{frame}\\begin{tikzpicture}\n\\only<1>{\\node {early};}\\only<2->{\\node {late};}\n"
        "\\alt<3>{\\draw (0,0) -- (1,0);}{\\draw (0,0) -- (0,1);}\\pause\n\\end{tikzpicture}\\end{frame}"
    )
    document, _ = render_latex(source, "x.tex")
    (picture,) = document.pictures
    assert picture.source == ("\\begin{tikzpicture}\n\\node {late};\n\\draw (0,0) -- (1,0);\n\\end{tikzpicture}")


@pytest.mark.parametrize(
    ("title", "label", "shown"),
    [
        ("ICPC World Finals 2009 G. House of Cards", "G", "House of Cards"),
        ("G. Gears", "G", "Gears"),
        ("Graph G: a story", "G", "Graph G: a story"),
        ("Plain title", "B", "Plain title"),
    ],
)
def test_a_title_that_carries_the_label_is_not_shown_with_it_twice(title: str, label: str, shown: str) -> None:
    from site_builder.render.content import _without_label

    assert _without_label(title, label) == shown


def test_an_eps_figure_is_a_link_to_the_file_with_a_warning_never_not_found() -> None:
    document, warnings = render_latex(
        "See\n\\includegraphics[width=3cm]{plots/curve}\n", "x.tex", assets={"plots/curve.eps": None}
    )
    assert '<a class="pdf-figure" href="plots/curve.eps">[figure: curve.eps]</a>' in document.html
    assert warnings == [(2, "plots/curve.eps: an EPS figure is shown as a link to the file (save it as PDF or SVG)")]


def test_conditionals_take_the_plastex_branch_and_keep_lines() -> None:
    """problemtools' statements test ``\\ifplastex``: the HTML is plasTeX's branch, and the lines after a
    skipped branch (and inside TeX's own conditionals, left alone) keep their numbers in warnings."""
    source = (
        "\\ifplastex web\\else\npaper\n\\ifx\\a\\b\\fi\n\\fi\n"  # lines 1-4
        "\\newif\\iflong \\longtrue\n"  # line 5
        "\\iflong long \\ifplastex\\else no\\fi\\else short\\fi\n"  # line 6
        "\\longfalse\\iflong\nlong\n\\else short \\unknownhere\\fi\n"  # lines 7-9
    )
    document, warnings = render_latex(source, "s.tex")
    words = re.sub(r"<[^>]+>", " ", document.html).split()
    assert words[:2] == ["web", "long"] and "short" in words and "paper" not in words and "no" not in words
    assert warnings == [(9, "unknown macro \\unknownhere; shown as text")]


def test_ensuremath_in_math_is_its_argument() -> None:
    """A macro defined as ``\\ensuremath{N}`` is used in math, where Temml has no ``\\ensuremath``."""
    document, warnings = render_latex("\\newcommand{\\N}{\\ensuremath{N}}Let $\\N \\le 10$ hold.", "x.tex")
    assert [m.tex for m in document.math] == ["{N}\\le 10"] and warnings == []


def test_makeatletter_and_makeatother_are_silent() -> None:
    document, warnings = render_latex("\\makeatletter\nText.\n\\makeatother\n", "x.tex")
    assert warnings == [] and "Text." in document.html and "makeat" not in document.html


def test_a_table_head_is_a_row_set_apart_whose_cells_name_their_columns_in_words() -> None:
    grid = "\\begin{tabular}{|c|c|}\\hline\n$a+b$ & $a-b$ \\\\\\hline\nA & B \\\\\\hline\n\\end{tabular}\n"
    headed = (
        "\\begin{tabular}{lcc}\\toprule\n & $n$ & Time in ms \\\\\\midrule\n"
        "small & $3$ & 1 \\\\\nlarge & $9$ & 2 \\\\\\bottomrule\n\\end{tabular}\n"
    )
    grid_html = render_latex(grid, "x.tex")[0].html
    assert "<th" not in grid_html and "<thead>" not in grid_html  # every row ruled: a grid, no head
    head = render_latex(headed, "x.tex")[0].html.split("</thead>")[0]
    cells = re.findall(r"<(t[hd])\b[^>]*>(.*?)</t[hd]>", head)
    # the empty corner and the math-only cell are data cells: a header cell with no words names nothing
    assert [tag for tag, _ in cells] == ["td", "td", "th"], cells
    assert cells[2][1] == "Time in ms"


def test_an_illustration_s_alt_text_is_its_caption_s_words_on_one_line() -> None:
    source = "\\illustration{0.3}{photo.jpg}{Salt \\& pepper.\\\\\n  Photo by \\emph{someone}}\n"
    html = render_latex(source, "x.tex", assets={"photo.jpg": (40, 30)})[0].html
    assert 'alt="Salt &amp; pepper. Photo by someone"' in html


def test_a_markdown_table_s_header_cell_without_words_is_a_data_cell() -> None:
    from site_builder.render.markdown import render_markdown

    text = "| | $n$ | Time |\n|---|---|---|\n| small | $3$ | 1 |\n"
    head = render_markdown(text, "x.md")[0].html.split("</thead>")[0]
    assert re.findall(r"<(t[hd])\b", head) == ["td", "td", "th"]


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("\\lstinline{a[i] + 1}", "<code>a[i] + 1</code>"),
        ("\\lstinline[language=C++]{v.push_back(x);}", "<code>v.push_back(x);</code>"),
        ("\\lstinline|p & q| and \\lstinline!{!", "<code>p &amp; q</code> and <code>{</code>"),
        ("\\lstinline{f(a){b{c}}}", "<code>f(a){b{c}}</code>"),  # balanced braces inside
        ("\\mintinline{python}{x + 1}", "<code>x + 1</code>"),  # the language is not shown as code
        ("\\mintinline[fontsize=\\small]{c}|y < 2|", "<code>y &lt; 2</code>"),
        ("\\newcommand{\\foo}{F}\\lstinline|\\foo{}| \\foo", "<code>\\foo{}</code> F"),  # code: no macro
    ],
)
def test_inline_code_shows_its_code_as_written(source: str, shown: str) -> None:
    document, warnings = render_latex(source, "s.tex")
    assert document.html.strip() == f"<p>{shown}</p>" and warnings == []


def test_inline_code_not_closed_on_its_line_is_an_error_at_its_line() -> None:
    with pytest.raises(LatexError) as info:
        render_latex("Text.\n\\lstinline|x\n|.\n", "s.tex")
    said = "its code is not closed on the same line (write \\lstinline{x + 1} or \\lstinline|x|)"
    assert str(info.value) == f"s.tex:2: \\lstinline: {said}"


def test_listings_settings_show_nothing() -> None:
    document, warnings = render_latex("\\lstset{language=C++, basicstyle=\\ttfamily\\small}Text.", "s.tex")
    assert document.html.strip() == "<p>Text.</p>" and warnings == []


@pytest.mark.parametrize(
    "source", ["\\lstinputlisting[language=Python]{./solution.py}", "\\inputminted[linenos]{python}{./solution.py}"]
)
def test_a_listing_of_a_file_links_the_file(source: str) -> None:
    document, warnings = render_latex(source, "s.tex", asset_base="files/")
    link = '<a href="files/solution.py"><code>./solution.py</code></a>'
    assert document.html.strip() == f'<p class="listing-file">Listing: {link}</p>' and warnings == []
    with pytest.raises(LatexError, match=r"^s\.tex:1: \\[a-z]+\{\.\./x\.c\} points outside the problem folder$"):
        render_latex(source.replace("./solution.py", "../x.c"), "s.tex")
