"""Macro expansion (render/latex/macros.py): definitions, calls and their arguments, and what is copied as it is."""

from __future__ import annotations

import pytest

from site_builder.errors import LatexError
from site_builder.render.latex import macros, render_latex
from site_builder.render.latex.macros import Macros, expand_macros


def test_a_doubled_hash_in_a_body_is_a_parameter_of_the_definition_inside() -> None:
    source = "\\newcommand{\\outer}[1]{\\newcommand{\\inner}[1]{#1-##1}}\\outer{a}\\inner{b}"
    assert expand_macros(source, "p.tex", Macros()).replace("{}", "") == "a-b"
    assert expand_macros("\\def\\x#1{<#1##>}\\x{q}", "p.tex", Macros()).replace("{}", "") == "<q#>"


def expanded(source: str, inputs: dict[str, str] | None = None, macros: Macros | None = None) -> str:
    return expand_macros(source, "t/x/solution.tex", macros or Macros(), inputs)


X = "\\newcommand{\\x}{X}"


@pytest.mark.parametrize(
    ("source", "result"),
    [
        (X + "\\verb|\\x| \\x", "{}\\verb|\\x| X"),
        (X + "\\verb*+\\x+\\x", "{}\\verb*+\\x+X"),
        (X + "\\verb|\\x", "{}\\verb|\\x"),  # never closed: to the end, as it is
        (X + "\\verb", "{}\\verb"),
        (X + "\\verb||\\x", "{}\\verb||X"),  # empty
        (X + "\\verb%\\x%\\x", "{}\\verb%\\x%X"),  # the closing delimiter is not a comment's start
        (X + "\\lstinline|\\x| \\x", "{}\\lstinline|\\x| X"),
        (X + "\\lstinline [style=c] {\\x{}} \\x", "{}\\lstinline [style=c] {\\x{}} X"),
        (X + "\\mintinline{tex}!\\x! \\x", "{}\\mintinline{tex}!\\x! X"),
        (X + "\\lstinline|\\x\n\\x", "{}\\lstinline|X%\n{}X"),  # not closed on its line: the parser says so
        (X + "\\begin{verbatim}\\x\\end{verbatim}\\x", "{}\\begin{verbatim}\\x\\end{verbatim}X"),
        (X + "\\begin {verbatim}\\x\n\\end{verbatim} \\x", "{}\\begin {verbatim}\\x\n\\end{verbatim} X"),
        (X + "\\begin{verbatim}\\x", "{}\\begin{verbatim}\\x"),
        (X + "% \\x\n\\x", "{}% \\x\nX"),
        (X + "\\x% \\x", "{}X% \\x"),
        (X + "% c\n\\x\n% d\n", "{}% c\nX%\n{}% d\n"),  # a comment ends at its line's end
        # copied whole to its \end, even where the document defines an environment of that name
        ("\\newenvironment{minted}{[}{]}\\begin{minted}x\\end{minted}", "{}\\begin{minted}x\\end{minted}"),
    ],
)
def test_verbatim_text_and_comments_are_copied_unexpanded(source: str, result: str) -> None:
    assert expanded(source) == result


@pytest.mark.parametrize(
    ("source", "result"),
    [
        ("\\newcommand{\\f}[1]{(#1)}\\let\\g\\f \\g{a}", "{}{} (a)"),  # the meaning of \f, its parameter too
        ("\\newcommand{\\f}[1]{(#1)}\\let\\g = \\f\\g{a}", "{}{}(a)"),
        ("\\let\\g\\relax\\g", "{}\\relax"),  # an undefined (primitive) target: \g stands for it
        ("\\let\\g", "\\let\\g"),  # no target: left to TeX as it is
        ("\\newcommand{\\f}[1]{(#1)}\\let\\g\\f \\renewcommand{\\f}[1]{[#1]}\\g{a}", "{}{} {}(a)"),  # not its later one
        ("\\newcommand{\\g}[2][d]{#1/#2}\\let\\h\\g \\h{x} \\h[y]{x}", "{}{} d/x y/x"),  # its optional argument too
        ("\\newcommand{\\f}[1]{(#1)}\\let{\\g}\\f \\g{a}", "{}\\let{\\g}(\\g){a}"),  # a name in braces is not \\let's
    ],
)
def test_let_gives_a_name_the_meaning_its_target_has_now(source: str, result: str) -> None:
    assert expanded(source) == result


@pytest.mark.parametrize(
    ("source", "result"),
    [
        ("\\newcommand{\\f}[2]{#2#1}\\f ab", "{}ba"),  # undelimited arguments: one character each
        ("\\newcommand{\\f}[2]{#2#1}\\f\\alpha b", "{}b\\alpha"),  # or one control sequence
        ("\\newcommand{\\f}[2]{#2#1}\\f{a}\n{b}", "{}ba%\n{}"),  # the call's line kept
        ("\\newcommand{\\g}[2][d]{#1/#2}\\g{x} \\g[y]{x} \\g [z] {x}", "{}d/x y/x z/x"),
        ("\\newcommand{\\f}[1]{#1#2}\\f{a}", "{}a"),  # a parameter the macro does not have is empty
    ],
)
def test_arguments_are_read_as_tex_reads_them(source: str, result: str) -> None:
    assert expanded(source) == result


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("\\newcommand{\\f}[1]{#1}\n\\f", "t/x/solution.tex:2: \\f is missing an argument"),
        ("\\newcommand{\\f}[1]{#1}\\f{a", "t/x/solution.tex:1: unbalanced '{' in an argument of \\f"),
        ("\\newcommand{\\g}[1][d{#1}\\g", "t/x/solution.tex:1: '[' of a definition is never closed"),
        ("\n\\newcommand{\\g}[1]{", "t/x/solution.tex:2: unbalanced '{': the definition is never closed"),
        # a definition never closed says which part of it
        ("\\DeclareMathOperator{\\op}{abc", "t/x/solution.tex:1: unbalanced '{': the operator's name is never closed"),
        ("\\createsection{\\G}{abc", "t/x/solution.tex:1: unbalanced '{': the section title is never closed"),
        ("\\def\\p#1{abc", "t/x/solution.tex:1: unbalanced '{': the definition is never closed"),
    ],
)
def test_a_call_or_definition_that_never_ends_is_an_error_at_its_line(source: str, error: str) -> None:
    with pytest.raises(LatexError) as info:
        expanded(source)
    assert str(info.value) == error


def test_what_a_picture_needs_of_the_preamble_is_kept_in_place_and_noted() -> None:
    source = "\\usetikzlibrary{arrows}\\definecolor{c}{rgb}{1,0,0}\\tikzset{a/.style={b}} x"
    macros = Macros()
    assert expanded(source, macros=macros) == source
    assert macros.sources == ["\\usetikzlibrary{arrows}", "\\definecolor{c}{rgb}{1,0,0}", "\\tikzset{a/.style={b}}"]


def test_an_input_file_s_definitions_are_read_once_where_it_is_input() -> None:
    macros = Macros()
    inputs = {"macros.tex": "\\newcommand\\m{M}"}
    assert (
        expanded("\\m\\input{macros}\\m \\input{macros.tex}\\m", inputs, macros)
        == "\\m\\input{macros}M\\input{macros.tex}M"
    )
    assert macros.sources == ["\\newcommand\\m{M}"] and macros.inputs_read == {"macros.tex"}
    assert expanded("\\input{other}\\m", inputs) == "\\input{other}\\m"
    assert expanded("\\include{macros}\\m", inputs) == "\\include{macros}M"  # \\include as \\input


def test_an_error_in_an_input_file_names_that_file_and_its_line() -> None:
    with pytest.raises(LatexError) as info:
        expanded("\\def\\a{b}\n\\input{bad}", {"bad.tex": "x\n\\newcommand{\\q}{"})
    assert str(info.value) == "t/x/bad.tex:2: unbalanced '{': the definition is never closed"


def test_a_setup_command_takes_at_most_three_groups_and_none_after_one_that_never_closes() -> None:
    macros = Macros()
    assert expanded("\\definecolor{c}{rgb}{1,0,0}{x}", macros=macros) == "\\definecolor{c}{rgb}{1,0,0}{x}"
    assert macros.sources == ["\\definecolor{c}{rgb}{1,0,0}"]
    macros = Macros()
    source = "\\tikzset{a \\usetikzlibrary x \\tikzset{b}"  # the rest is inside the group that never closes
    assert expanded(source, macros=macros) == source
    assert macros.sources == ["\\tikzset", "\\usetikzlibrary ", "\\tikzset"]


def test_input_files_input_others_up_to_eight_deep() -> None:
    inputs = {f"f{i}.tex": f"\\newcommand{{\\m{chr(96 + i)}}}{{{i}}}\\input{{f{i + 1}}}" for i in range(1, 11)}
    macros = Macros()
    source = "\\input{f1}" + "".join(f"\\m{chr(96 + i)} " for i in range(1, 11))
    assert expanded(source, inputs, macros) == "\\input{f1}12345678\\mi \\mj "
    assert sorted(macros.inputs_read) == [f"f{i}.tex" for i in range(1, 9)]


@pytest.mark.parametrize(
    ("source", "result"),
    [
        ("\\newcommand{\\x@y}{X}\\x@y z", "{}Xz"),  # the space after a control word, @ in it or not
        ("\\newcommand{\\p}{a\n\n b}\\p", "{}%\n%\na \\par b"),  # a body on one line: a blank line is \par
        ("\\newcommand{\\p}{a% c\n b}\\p", "{}%\nab"),  # a comment goes with its line's end and the spaces after
        ("\\newcommand{\\p}{a\\\\% c\n b}\\p", "{}%\na\\\\b"),  # after an escaped backslash, still a comment
        ("\\newcommand{\\f}[1]{(#1)}\\f{a % }\n b}", "{}(a b)%\n{}"),  # a brace in a comment does not count
        ("\\newcommand\\x\\relax\\x", "{}\\relax"),  # a body that is one control sequence, without braces
        # a body's last control word ends with the body, as a token does (\\b then x, not \\bx)
        ("\\newcommand\\a{\\b}\\newcommand\\b{B}\\newcommand\\bx{BX}\\a x", "{}{}{}Bx"),
        ("\\newcommand\\a{\\textbf}\\a{x} \\a x", "{}\\textbf{x} \\textbf x"),
        ("a\\", "a\\"),  # a backslash that ends the document
    ],
)
def test_bodies_and_arguments_are_read_as_tex_reads_them(source: str, result: str) -> None:
    assert expanded(source) == result


def test_a_definition_without_a_body_is_an_error() -> None:
    with pytest.raises(LatexError) as info:
        expanded("\n\\newcommand{\\x}")
    assert str(info.value) == "t/x/solution.tex:2: the definition has no body in braces"


def test_expansions_are_counted_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(macros, "MAX_EXPANSIONS", 5)
    assert expanded("\\def\\b{y}" + "\\b" * 5) == "{}yyyyy"
    with pytest.raises(LatexError) as info:
        expanded("\\def\\b{y}" + "\\b" * 6)
    assert str(info.value) == "t/x/solution.tex:1: \\b: over 5 macro expansions; a definition that never ends?"


def test_what_all_expansions_make_has_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(macros, "MAX_EXPANDED", 1 << 20)
    body = "x" * (512 << 10)
    assert len(expanded(f"\\def\\b{{{body}}}\\b\\b")) == (1 << 20) + 2
    with pytest.raises(LatexError) as info:
        expanded(f"\\def\\b{{{body}}}\\b\\b\\b")
    assert str(info.value) == "t/x/solution.tex:1: \\b: macro expansions make over 1 MiB of text in all; refused"


def test_the_document_may_not_grow_past_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the document would hold after an expansion: its result, the rest of the text it stands in,
    and the rest of the input below."""
    monkeypatch.setattr(macros, "MAX_SIZE", 1 << 20)
    double = "\\def\\e#1{#1#1}"
    tail = "y" * (200 << 10)
    fits = expanded(f"{double}\\e{{\\e{{{'x' * (250 << 10)}}}}}{tail}")
    assert len(fits) == 2 + (1000 << 10) + (200 << 10)
    with pytest.raises(LatexError) as info:
        expanded(f"{double}\\e{{\\e{{{'x' * (300 << 10)}}}}}{tail}")
    assert str(info.value) == "t/x/solution.tex:1: \\e: expanding it grows the document past 1 MiB"


def test_the_budget_counts_the_input_below_every_pending_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    """With \\a's and \\b's results still being read when \\c expands, the document after it holds \\c's
    result, what is left of theirs, and the rest of the document after \\a: the last counts too."""
    monkeypatch.setattr(macros, "MAX_SIZE", 1 << 20)
    # (the space after \a ends its name, and is skipped as TeX skips it)
    chain = "\\def\\a{\\b.}\\def\\b{\\c.}\\def\\c{" + "x" * (500 << 10) + "}\\a "
    fits = expanded(chain + "y" * (400 << 10))
    assert fits == "{}{}{}" + "x" * (500 << 10) + ".." + "y" * (400 << 10)
    with pytest.raises(LatexError) as info:
        expanded(chain + "y" * (600 << 10))
    assert str(info.value) == "t/x/solution.tex:1: \\c: expanding it grows the document past 1 MiB"


@pytest.mark.parametrize(
    ("source", "result"),
    [
        ("\\newcommand{\\x}{X}\\providecommand{\\x}{Y}\\x", "{}{}X"),  # only if not defined yet
        ("\\providecommand{\\y}{Y}\\y", "{}Y"),
        ("\\newcommand{\\x}{X}\\renewcommand{\\x}{Z}\\x", "{}{}Z"),
        ("\\DeclareMathOperator{\\rank}{rank}$\\rank A$", "{}$\\operatorname{rank}A$"),
        ("\\DeclareMathOperator*{\\argmax}{arg\\,max}\\argmax", "{}\\operatorname*{arg\\,max}"),
        ("\\gdef\\g#1{<#1>}\\g{a}", "{}<a>"),
        ("\\edef\\g#1{<#1>}\\g{a}", "{}<a>"),
        ("\\xdef\\g#1{<#1>}\\g{a}", "{}<a>"),
        ("\\def\\p#1#2{#2#1}\\p ab", "{}ba"),
        ("\\newcommand*{\\s}{S}\\s", "{}S"),
        ("\\newcommand{\\t}[10]{#9}\\t abcdefghij", "{}ij"),  # nine arguments at most, as TeX reads
        ("\\newcommand{\\d}[0][x]{D}\\d[y]", "{}D[y]"),  # a default for no argument is none: [y] is text
        ("\\createsection{\\Grader}{Grader}\\Grader", "{}\\section*{Grader}"),  # the Italian booklet's
    ],
)
def test_each_kind_of_definition_defines_as_latex_does(source: str, result: str) -> None:
    assert expanded(source) == result


def test_an_environment_opened_in_begin_code_and_closed_in_end_code_is_whole() -> None:
    """The Italian olympiad's statements define a boxed warning as a ``list`` opened by
    ``\\newenvironment``'s begin code and closed by its end code: a brace that ends the begin code is not
    one that closes the list."""
    source = (
        "\\newenvironment{warning}\n  {\\par\\begin{itemize}\\item[!]}\n  {\\end{itemize}\\par}\n"
        "Text \\begin{warning}mind the bounds\\end{warning} more.\n"
    )
    html = render_latex(source, "x.tex")[0].html
    assert "mind the bounds" in html and "<ul" in html and "more." in html and "\\par" not in html


def test_provideenvironment_keeps_an_existing_definition() -> None:
    source = "\\newenvironment{a}{[}{]}\\provideenvironment{a}{(}{)}\\begin{a}x\\end{a}"
    assert expand_macros(source, "x.tex", Macros()).replace("{}", "").strip("%\n") == "[x]"


LONG = "\\newif\\iflong"


@pytest.mark.parametrize(
    ("source", "result"),
    [
        (LONG + "\\iflong A\\else B\\fi.", "{}{} B{}."),
        (LONG + "\\longtrue\\iflong A\\else B\\fi.", "{}{}{}A{}."),
        (LONG + "\\longtrue\\longfalse\\iflong A\\else B\\fi.", "{}{}{}{} B{}."),
        (LONG + "\\iflong A\\fi\\longtrue\\iflong A\\fi", "{}{}{}{}A{}"),  # set between two tests
        (LONG + "\\iflong A\\fi x\\fi", "{}{} x\\fi"),  # no \else: the branch ends at its \fi, and the next is not its
        # nested switches: each \else and \fi is its own switch's
        (LONG + "\\longtrue\\iflong A\\iflong C\\else D\\fi E\\else B\\fi.", "{}{}{}A{}C{} E{}."),
        (LONG + "\\iflong A\\iflong C\\else D\\fi E\\else B\\fi.", "{}{} B{}."),
        # TeX's own conditionals are the renderer's, with their \else and \fi, in a branch taken or not
        (LONG + "\\iflong A\\ifx\\a\\b C\\else D\\fi E\\else B\\fi.", "{}{} B{}."),
        (
            LONG + "\\longtrue\\iflong A\\ifx\\a\\b C\\else D\\fi E\\else B\\fi.",
            "{}{}{}A\\ifx\\a\\b C\\else D\\fi E{}.",
        ),
        (LONG + "\\longtrue\\iflong A\\ifnum1=1 C\\fi E\\fi.", "{}{}{}A\\ifnum1=1 C\\fi E{}."),
        (LONG + "\\longtrue\\iflong\\iffalse x\\fi y\\else z\\fi.", "{}{}{}\\iffalse x\\fi y{}."),
        (LONG + "\\longtrue\\iflong A\\else B\\else C\\fi.", "{}{}{}A{}."),  # all after \else is skipped
        # a branch not taken, longer than what is read at once
        (LONG + "\\iflong " + "x" * 3000 + "\\else B\\fi.", "{}{} B{}."),
        (LONG + "\\iflong " + "x" * 3000 + "\\fi B.", "{}{} B."),
        # names that only look like a switch's
        (LONG + "\\xylong.", "{}\\xylong."),  # "long" after two letters that are not "if"
        (LONG + "\\isfalse.", "{}\\isfalse."),  # "false" after a name that is no switch
        ("\\newif\\if\\if x", "{}\\if x"),  # \if itself is no switch
        ("\\newif\\ifa\\ifa A\\else B\\fi", "{}{} B{}"),  # a switch of one letter
        ("\\newif{\\iflong} x", "\\newif{\\iflong} x"),  # not a name \newif reads: as it is
        # lines kept, for the line numbers of messages
        ("\\newif\n\\iflong\n\\iflong A\\fi", "{}%\n\n{}"),
        (LONG + "\\iflong\nA\n\\else\nB\n\\fi\n.", "{}{}%\n%\n\nB\n{}\n."),
        # \ifplastex is true, whatever a document sets: the site renders as plasTeX does
        ("\\ifplastex P\\else L\\fi \\plastexfalse\\ifplastex P\\else L\\fi", "{}P{} {}{}P{}"),
        ("\\def\\x{\\longtrue}" + LONG + "\\x\\iflong A\\else B\\fi", "{}{}{}{}A{}"),  # set by a macro
    ],
)
def test_newif_switches_choose_their_branch(source: str, result: str) -> None:
    assert expanded(source) == result


def test_a_newif_switch_starts_false_and_keeps_its_value() -> None:
    kept = Macros()
    expanded("\\newif\\ifq\\newif\\ifr\\rtrue\\newif\\ifr", macros=kept)
    assert kept.switches == {"plastex": True, "q": False, "r": True}


BOX = "\\newenvironment{box}"


@pytest.mark.parametrize(
    ("source", "result"),
    [
        (BOX + "[2][dflt]{<#1|#2>}{</>}\\begin{box}{a}X\\end{box}", "{}<dflt|a>X</>"),  # the default
        (BOX + "[2][dflt]{<#1|#2>}{</>}\\begin{box}[o]{a}X\\end{box}", "{}<o|a>X</>"),
        (BOX + "[1]{B#1}{E}\\begin{box}{q}X\\end{box}", "{}BqXE"),
        (BOX + "[12]{<#1>}{</>}\\begin{box}{a}{b}{c}{d}{e}{f}{g}{h}{i}X\\end{box}", "{}<a>X</>"),  # nine at most
        (BOX + "[x]{<#1>}{</>}\\begin{box}X\\end{box}", "{}<>X</>"),  # not a number: none
        (BOX + "[0][d]{B}{E}\\begin{box}[x]X\\end{box}", "{}B[x]XE"),  # a default without a parameter: none
        (BOX + "{\\Large}{\\LARGE}\\begin{box}X\\end{box}Y", "{}\\Large{}X\\LARGE{}Y"),
        ("\\newenvironment*{box}{B}{E}\\begin{box}X\\end{box}", "{}BXE"),
        # a control word at the end of either code does not run into what follows
        (BOX + "{\\bf}{\\it}\\begin{box}X\\end{box}Y", "{}\\bf{}X\\it{}Y"),
        ("\\newcommand{\\w}{W}" + BOX + "{\\w}{\\w}\\begin{box}x\\end{box}y", "{}{}W{}xW{}y"),
        (BOX + "{a\\\\}{\\_}\\begin{box}X\\end{box}Y", "{}a\\\\X\\_Y"),  # a control symbol: nothing to close
        (BOX + "{B}{E}\\begin{box} X\\end{box} Y", "{}B XE Y"),  # the spaces after \\begin{box} and \\end{box} stay
    ],
)
def test_newenvironment_with_arguments_and_a_default(source: str, result: str) -> None:
    assert expanded(source) == result


@pytest.mark.parametrize("part", ["begin", "end"])
def test_an_environment_without_its_code_names_the_part(part: str) -> None:
    source = BOX + ("" if part == "begin" else "{B}")
    with pytest.raises(LatexError, match=f"the environment's {part} code has no body in braces"):
        expanded(source)


def test_a_problem_title_is_typeset_as_plain_text() -> None:
    assert macros.tex_escape("a\\b~c^d$e&f%g#h_i{j}k") == (
        "a\\textbackslash{}b\\textasciitilde{}c\\textasciicircum{}d\\$e\\&f\\%g\\#h\\_i\\{j\\}k"
    )
    assert macros.tex_escape("Plain words") == "Plain words"


def test_definitions_input_from_a_contest_s_shared_folder_are_read_from_the_document_s_folder() -> None:
    """``\\input{../common/defs}`` from ``contest/A-x``, and the file it inputs in turn: the names are
    the document's folder's (without one, nothing outside the document's own folder is read)."""
    inputs = {
        "../common/defs.tex": "\\newcommand{\\q}{Q}\\input{../common/more}",
        "../common/more.tex": "\\newcommand{\\r}{R}",
    }
    source = "\\input{../common/defs}\\q\\r"
    assert expand_macros(source, "contest/A-x/solution.tex", Macros(), inputs, folder="contest/A-x") == (
        "\\input{../common/defs}QR"
    )
    assert expanded(source, inputs) == source
    assert expanded("\\input{/etc/passwd}\\q", inputs) == "\\input{/etc/passwd}\\q"  # a name no input has


PARTS = [
    "\\newcommand{\\q}[1]{<#1>}",
    "\\q{a}",
    "\\newif\\iflong",
    "\\iflong no\\else yes\\fi",
    "\\newenvironment{bx}{[}{]}",
    "\\begin{bx}in\\end{bx}",
    "\\q{" + "z" * 700 + "}",
    "\\verb|\\q|",
    "\\longtrue\\iflong on\\fi",
]


@pytest.mark.parametrize("gap", [0, 1, 100, 500, 511, 512, 513, 1000, 3000])
def test_a_macro_s_body_expands_as_the_same_text_written_out(gap: int) -> None:
    """A long body is read in pieces from the pending expansion, as the document is: every construct
    (a definition, a call, a switch, an environment, \\verb) that a piece's end cuts reads the same."""
    body = ("w" * gap).join(PARTS) + "w" * gap
    written_out = "{}" + expanded(body)  # and the "{}" that the definition of \m leaves
    assert expanded("\\newcommand{\\m}{" + body.replace("#", "##") + "}\\m") == written_out


def test_a_raw_environment_opened_by_a_body_is_read_past_the_body_s_end() -> None:
    """``\\begin`` at a body's end and ``{verbatim}`` after the call: still verbatim, however long the body."""
    for prefix in ("", "y" * 70):
        source = X + "\\def\\bv{" + prefix + "\\begin }\\bv{verbatim}\\x\\end{verbatim}\\x"
        assert expanded(source) == "{}{}" + prefix + "\\begin {verbatim}\\x\\end{verbatim}X"


TAIL = (
    "\\q{b}\n\\q % a comment between\n {d}\\newif\\iflong\\iflong no\\else yes\\fi % a note \\q{n}\n"
    " \\def\\d#1#2{#2#1}\\d xy \\q   \n  {c}\\iflong skipped \\finish\\fi\\longtrue\\iflong on\\fi"
    "\\begin{verbatim}\\q\\end{verbatim}\\verb|\\q|%\n\\q{e}\\lstinline[x]|\\q{f}| \\mintinline{c}{\\q{g}}\\q{h}"
)


def test_the_input_joined_on_at_any_cut_reads_as_the_text_written_out() -> None:
    """A call whose arguments follow its body's end joins the next 512 characters of the document on
    (``_CHUNK``): every construct that this piece's end cuts (a name, a comment, a ``\\def``'s
    parameters, spaces before an argument) reads as it does in the document itself."""
    head = "\\newcommand{\\q}[1]{<#1>}\\newcommand{\\s}{\\q}"
    for cut in range(len(TAIL) + 1):  # where in TAIL the piece ends
        rest = "{a}" + "w" * (macros._CHUNK - len("{a}") - cut) + TAIL
        assert expanded(head + "\\s" + rest) == expanded(head + "\\q" + rest), TAIL[:cut]
    rest = "{a}" + TAIL  # the whole rest of the document is shorter than a piece
    assert expanded(head + "\\s" + rest) == expanded(head + "\\q" + rest)


def test_an_expansion_copies_its_result_not_the_rest_of_the_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two thousand calls in a long document: the text joined on as the input is read stays within a
    few times the document's length (a copy of the rest at each call would be a thousand times it)."""
    joined = 0
    more = macros._Expander._more

    def counted(self: macros._Expander) -> bool:
        nonlocal joined
        below = {id(frame) for frame, _ in self.frames}
        result = more(self)
        if id(self.text) not in below:  # a new text made of pieces, not a pending one taken up whole
            joined += len(self.text)
        return result

    monkeypatch.setattr(macros._Expander, "_more", counted)
    source = "\\newcommand\\y{\\relax y}\\newcommand{\\q}[1]{<#1>}\\newcommand\\s{\\q}" + "\\y %\n\\s{a}" * 2000
    assert expanded(source) == "{}{}{}" + "\\relax y%\n<a>" * 2000
    assert joined <= 4 * len(source)


@pytest.mark.parametrize("call", ["\\p\\e", "\\s"])
def test_the_budget_counts_exactly_after_the_input_below_is_read_on(monkeypatch: pytest.MonkeyPatch, call: str) -> None:
    """After an expansion's result is read and the document goes on (\\p), and after a body's last word
    reads its argument from the document in pieces (\\s), the budget counts what the document would hold:
    a document of exactly the budget fits, one character more does not."""
    monkeypatch.setattr(macros, "MAX_SIZE", 1 << 20)
    head = "\\def\\e#1{#1#1}\\def\\p{P}\\def\\s{\\e}" + call + "{" + "x" * (300 << 10) + "}"
    tail = (1 << 20) - 2 * (300 << 10)
    assert expanded(head + "y" * tail).endswith("x" * (600 << 10) + "y" * tail)
    with pytest.raises(LatexError) as info:
        expanded(head + "y" * (tail + 1))
    assert str(info.value) == "t/x/solution.tex:1: \\e: expanding it grows the document past 1 MiB"
