"""Numbers and units as ``siunitx`` writes them in text: ``\\SI{3}{\\kilo\\metre\\per\\second}`` is "3 km/s",
``\\num{1e5}`` is "1 x 10^5" (with a times sign), ``\\num{200000}`` is "200 000" (a thin space every three
digits), a minus is a minus sign."""

from __future__ import annotations

import html
import re

from .core import Context, _plain
from .nodes import Cmd, Node, Text

PREFIXES = {
    "yocto": "y", "zepto": "z", "atto": "a", "femto": "f", "pico": "p", "nano": "n", "micro": "µ", "milli": "m",
    "centi": "c", "deci": "d", "deca": "da", "hecto": "h", "kilo": "k", "mega": "M", "giga": "G", "tera": "T",
    "peta": "P", "exa": "E", "kibi": "Ki", "mebi": "Mi", "gibi": "Gi",
}  # fmt: skip
UNITS = {
    "metre": "m", "meter": "m", "second": "s", "gram": "g", "kilogram": "kg", "ampere": "A", "kelvin": "K",
    "mole": "mol", "candela": "cd", "hertz": "Hz", "newton": "N", "pascal": "Pa", "joule": "J", "watt": "W",
    "volt": "V", "ohm": "Ω", "litre": "L", "liter": "L", "minute": "min", "hour": "h", "day": "d",
    "degree": "°", "celsius": "°C", "degreeCelsius": "°C", "percent": "%", "byte": "B", "bit": "bit",
    "electronvolt": "eV", "tonne": "t", "hectare": "ha", "radian": "rad", "arcminute": "\u2032", "arcsecond": "\u2033",
    "cm": "cm", "mm": "mm", "km": "km", "um": "µm", "nm": "nm", "m": "m", "s": "s", "ms": "ms", "us": "µs",
    "ns": "ns", "g": "g", "kg": "kg", "mg": "mg", "Hz": "Hz", "kHz": "kHz", "MHz": "MHz", "GHz": "GHz",
    "kB": "kB", "MB": "MB", "GB": "GB", "TB": "TB", "KiB": "KiB", "MiB": "MiB", "GiB": "GiB", "l": "l",
}  # fmt: skip
POWERS = {"squared": "²", "cubed": "³", "square": "²", "cubic": "³"}
_EXPONENT = re.compile(r"^([-+]?[0-9.,]+)\s*[eE]\s*([-+]?\d+)$")
_DIGITS = re.compile(r"^([-+]?)(\d+)((?:[.,]\d+)?)$")


def format_number(text: str) -> str:
    """``1e5`` -> "1 x 10<sup>5</sup>"; ``-12345.5`` -> "-12 345.5"; anything else as written."""
    text = text.strip().replace(" ", "")
    m = _EXPONENT.match(text)
    if m:
        mantissa = format_number(m.group(1))
        power = f"10<sup>{html.escape(m.group(2).lstrip('+'))}</sup>"
        return f"{mantissa}\u2009\u00d7\u2009{power}"
    m = _DIGITS.match(text)
    if m is None:
        return html.escape(text)
    sign, whole, fraction = m.groups()
    if len(whole) > 4:
        whole = re.sub(r"(?<=\d)(?=(\d{3})+$)", "\u2009", whole)
    return ("\u2212" if sign == "-" else sign) + whole + fraction


def format_unit(nodes: list[Node]) -> str:
    """``\\kilo\\metre\\per\\second\\squared`` -> "km/s²"; literal units (``{m/s}``) as written."""
    out: list[str] = []
    prefix = ""
    for node in nodes:
        if isinstance(node, Text):
            out.append(html.escape(node.text))
        elif isinstance(node, Cmd) and node.name in PREFIXES:
            prefix = PREFIXES[node.name]
        elif isinstance(node, Cmd) and node.name in UNITS:
            out.append(prefix + UNITS[node.name])
            prefix = ""
        elif isinstance(node, Cmd) and node.name == "per":
            out.append("/")
        elif isinstance(node, Cmd) and node.name in POWERS:
            out.append(POWERS[node.name])
        elif isinstance(node, Cmd):
            out.append(html.escape(_plain([node]) or node.name))
    return "".join(out).replace("/ ", "/").strip()


def _quantity(cmd: Cmd, ctx: Context) -> str:
    unit = format_unit(cmd.arg(1))
    glue = "" if unit in ("%", "°", "\u2032", "\u2033") else "\u00a0"
    return f"{format_number(_plain(cmd.arg(0)))}{glue}{unit}"


def _unit(cmd: Cmd, ctx: Context) -> str:
    return format_unit(cmd.arg(0))


def _num(cmd: Cmd, ctx: Context) -> str:
    return format_number(_plain(cmd.arg(0)))


def _range(cmd: Cmd, ctx: Context) -> str:
    unit = format_unit(cmd.arg(2)) if cmd.name == "SIrange" else ""
    first, second = format_number(_plain(cmd.arg(0))), format_number(_plain(cmd.arg(1)))
    return f"{first}\u2013{second}" + (f"\u00a0{unit}" if unit else "")


COMMANDS = {
    **dict.fromkeys(("SI", "qty"), _quantity),
    **dict.fromkeys(("si", "unit"), _unit),
    "num": _num,
    **dict.fromkeys(("SIrange", "numrange", "qtyrange"), _range),
}


_IN_MATH = re.compile(r"\\(SI|qty|si|unit|num)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}(?:\s*\{((?:[^{}]|\{[^{}]*\})*)\})?")
_UNIT_MACRO = re.compile(r"\\([A-Za-z]+)")


def math_units(tex: str) -> str:
    """``\\SI{3}{\\cm}`` in math as Temml reads it: ``3\\,\\mathrm{cm}``; ``\\num{1e5}`` as ``1\\times 10^{5}``."""
    if "\\" not in tex or not _IN_MATH.search(tex):
        return tex
    return _IN_MATH.sub(_math_quantity, tex)


def _math_quantity(m: re.Match[str]) -> str:
    name, first, second = m.group(1), m.group(2), m.group(3)
    if name in ("si", "unit"):
        return _math_unit(first) + (f"{{{second}}}" if second is not None else "")
    number = _math_number(first)
    if name == "num":
        return number + (f"{{{second}}}" if second is not None else "")
    return f"{number}\\,{_math_unit(second or '')}"


def _math_number(text: str) -> str:
    m = _EXPONENT.match(text.strip().replace(" ", ""))
    if m:
        return f"{m.group(1)}\\times 10^{{{m.group(2).lstrip('+')}}}"
    return text.strip()


def _math_unit(text: str) -> str:
    parts: list[str] = []
    prefix = ""
    for token in re.split(r"(\\[A-Za-z]+)", text):
        name = token[1:] if token.startswith("\\") else None
        if name in PREFIXES:
            prefix = PREFIXES[name]
        elif name in UNITS:
            parts.append(prefix + UNITS[name])
            prefix = ""
        elif name == "per":
            parts.append("/")
        elif name in POWERS:
            parts.append("^{" + {"²": "2", "³": "3"}[POWERS[name]] + "}")
        elif token.strip():
            parts.append(token.strip())
    return "\\mathrm{" + "".join(parts) + "}"


MATH_FILTERS = (math_units,)
