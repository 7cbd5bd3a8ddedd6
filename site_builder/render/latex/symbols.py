"""The tables of plain text: accents, symbols, text styles, ligatures, and commands that show nothing."""

from __future__ import annotations

import re

ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "d": "\u0323",
    "b": "\u0331",
    "r": "\u030a",
    "k": "\u0328",
}


SYMBOLS = {
    "%": "%",
    "&": "&amp;",
    "#": "#",
    "_": "_",
    "$": "$",
    "{": "{",
    "}": "}",
    " ": " ",
    "\n": " ",
    ",": "\u2009",
    ";": "\u2005",
    ":": "\u2005",
    "!": "",
    "-": "",
    "/": "",
    "@": "",
    "textbackslash": "\\",
    "ldots": "\u2026",
    "dots": "\u2026",
    "textellipsis": "\u2026",
    "LaTeX": "L<sup>A</sup>T<sub>E</sub>X",
    "TeX": "T<sub>E</sub>X",
    "textendash": "\u2013",
    "textemdash": "\u2014",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textbar": "|",
    "textless": "&lt;",
    "textgreater": "&gt;",
    "S": "\u00a7",
    "P": "\u00b6",
    "copyright": "\u00a9",
    "textcopyright": "\u00a9",
    "texttrademark": "\u2122",
    "textregistered": "\u00ae",
    "textdegree": "\u00b0",
    "dag": "\u2020",
    "ddag": "\u2021",
    "quad": "\u2003",
    "qquad": "\u2003\u2003",
    "enspace": "\u2002",
    "thinspace": "\u2009",
    "ss": "\u00df",
    "o": "\u00f8",
    "O": "\u00d8",
    "ae": "\u00e6",
    "AE": "\u00c6",
    "i": "\u0131",
    "l": "\u0142",
    "L": "\u0141",
    "aa": "\u00e5",
    "AA": "\u00c5",
    "oe": "\u0153",
    "OE": "\u0152",
}


IGNORED = frozenset(
    {
        "makeatletter",  # catcodes, which a reader of definitions as text needs not change
        "makeatother",
        "phantom",  # space the size of its argument: nothing on a page that flows
        "hphantom",
        "vphantom",
        "maketitle",
        "noindent",
        "indent",
        "centering",
        "raggedright",
        "raggedleft",
        "medskip",
        "bigskip",
        "smallskip",
        "vspace",
        "hspace",
        "newpage",
        "clearpage",
        "pagebreak",
        "linebreak",
        "nopagebreak",
        "tableofcontents",
        "vfill",
        "hfill",
        "par",
        "protect",
        "relax",
        "setlength",
        "addtolength",
        "newsavebox",
        "sbox",  # the box is shown only by \usebox: a template's way to swallow what it is given
        "savebox",
        "newcolumntype",
        "arraybackslash",
        "lstdefinestyle",
        "lstset",
        "looseness",
        "setcounter",
        "usepackage",
        "usetikzlibrary",
        "usepgfplotslibrary",
        "pgfplotsset",
        "tikzset",
        "definecolor",
        "colorlet",
        "documentclass",
        "pagestyle",
        "thispagestyle",
        "small",
        "footnotesize",
        "large",
        "Large",
        "LARGE",
        "normalsize",
        "huge",
        "Huge",
        "scriptsize",
        "tiny",
        "allowbreak",
        "selectfont",
        "fontsize",
        "hline",
        "toprule",
        "midrule",
        "bottomrule",
        "cline",
        "thanks",
        "and",
        "leavevmode",
        "strut",
        "null",
        "appendix",
        "sloppy",
        "frenchspacing",
        "onecolumn",
        "twocolumn",
        "author",
        "date",
        "pause",
        "solvestats",  # contest slide templates: statistics typeset from a file only the jury has
        "onslide",
        "titlepage",
        "usetheme",
        "usecolortheme",
        "usefonttheme",
        "useinnertheme",
        "useoutertheme",
        "setbeamertemplate",
        "setbeamercolor",
        "setbeamerfont",
        "subtitle",
        "institute",
        "logo",
        "color",  # a colour for the rest of the group: the site keeps its own
    }
)


# Font switches, old (``{\\bf text}``, as problemtools' statements have them) and new (``{\\bfseries text}``):
# the rest of their group in that style
_BOLD, _ITALIC, _MONO = ("<strong>", "</strong>"), ("<em>", "</em>"), ("<code>", "</code>")
_SMALLCAPS, _SANS, _PLAIN = ('<span class="smallcaps">', "</span>"), ('<span class="sans">', "</span>"), ("", "")
SWITCHES = {
    **dict.fromkeys(("bf", "bfseries"), _BOLD),
    **dict.fromkeys(("em", "it", "itshape", "sl", "slshape"), _ITALIC),
    **dict.fromkeys(("tt", "ttfamily"), _MONO),
    **dict.fromkeys(("sc", "scshape"), _SMALLCAPS),
    **dict.fromkeys(("sf", "sffamily"), _SANS),
    **dict.fromkeys(("rm", "rmfamily", "normalfont", "upshape", "mdseries"), _PLAIN),
}


INLINE_TAGS = {
    "textbf": ("<strong>", "</strong>"),
    "emph": ("<em>", "</em>"),
    "textit": ("<em>", "</em>"),
    "textsl": ("<em>", "</em>"),
    "texttt": ("<code>", "</code>"),
    "underline": ("<u>", "</u>"),
    "textsc": ('<span class="smallcaps">', "</span>"),
    "textsf": ('<span class="sans">', "</span>"),
    "textrm": ("", ""),
    "textup": ("", ""),
    "textnormal": ("", ""),
    "mbox": ('<span class="nowrap">', "</span>"),
    "fbox": ('<span class="boxed">', "</span>"),
    "makebox": ('<span class="nowrap">', "</span>"),
    "framebox": ('<span class="boxed">', "</span>"),
    "sout": ("<s>", "</s>"),
    "xout": ("<s>", "</s>"),
    "textsuperscript": ("<sup>", "</sup>"),
    "textsubscript": ("<sub>", "</sub>"),
    "enquote": ("\u201c", "\u201d"),
    "uppercase": ("", ""),
    "MakeUppercase": ("", ""),
}


# A package's ``\constant{name}`` (problem.yaml), and task-maker's ``\constraints{NAME}`` (gen/constraints.py).
_CONSTANT_IN_MATH = re.compile(r"\\(constant|constraints)\s*\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?)\s*\}")


def grouped(value: str, math: bool) -> str:
    """A whole number of five digits or more in groups of three, as task-maker's booklet prints one
    (siunitx's ``\\num``): 300000 is "300 000", with a thin space (``\\,`` in math); any other value as it is."""
    digits = value.lstrip("-")
    if not digits.isascii() or not digits.isdigit() or len(digits) < 5:
        return value
    groups = [digits[max(0, end - 3) : end] for end in range(len(digits), 0, -3)][::-1]
    return value[: len(value) - len(digits)] + ("\\," if math else "\u202f").join(groups)


def constant_value(command: str, value: str, math: bool) -> str:
    """A constant's value as its command writes it: a package's ``\\constant`` as given, task-maker's
    ``\\constraints`` grouped as its booklet prints it (``grouped``)."""
    return grouped(value, math) if command == "constraints" else value


def constants_in_math(tex: str, constants: dict[str, str]) -> str:
    """A formula with each constant it names (that is defined) written in (``constant_value``)."""
    if "\\const" not in tex:
        return tex

    def value(m: re.Match[str]) -> str:
        known = constants.get(m.group(2))
        return m.group() if known is None else constant_value(m.group(1), known, True)

    return _CONSTANT_IN_MATH.sub(value, tex)


_LIGATURES = re.compile(r"---|--|``|''|`|'|<|>|&|\"")


_LIGATURE_MAP = {
    "---": "\u2014",
    "--": "\u2013",
    "``": "\u201c",
    "''": "\u201d",
    "`": "\u2018",
    "'": "\u2019",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    '"': "&quot;",
}
