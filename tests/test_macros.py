"""Macro expansion: parameters of definitions made inside a definition."""

from __future__ import annotations

from site_builder.render.latex.macros import Macros, expand_macros


def test_a_doubled_hash_in_a_body_is_a_parameter_of_the_definition_inside() -> None:
    source = "\\newcommand{\\outer}[1]{\\newcommand{\\inner}[1]{#1-##1}}\\outer{a}\\inner{b}"
    assert expand_macros(source, "p.tex", Macros()).replace("{}", "") == "a-b"
    assert expand_macros("\\def\\x#1{<#1##>}\\x{q}", "p.tex", Macros()).replace("{}", "") == "<q#>"
