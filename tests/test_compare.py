"""The default output validator gives Kattis' verdicts: checked against problemtools' own program."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT

from site_builder.model import Checker
from site_builder.source.metadata import parse_checker_flags
from site_builder.verify.compare import c_float, compare_output

PROBLEMTOOLS = "problemtools==1.20260907"  # the release whose default_validator.cc the test compiles
SOURCE = "support/default_validator/default_validator.cc"


def checker(flags: str) -> Checker:
    return parse_checker_flags(flags.split(), "problem.yaml", None)[0]


@pytest.mark.parametrize(
    ("flags", "answer", "output", "accepted"),
    [
        ("float_tolerance 1e-6", "16\n", "0x10\n", True),  # C reads hex as a number
        ("float_tolerance 1e-6", "1000\n", "1_000\n", False),  # and underscores as no number
        ("", "1000\n", "1_000\n", False),
        ("space_change_sensitive float_tolerance 1e-3", "1.0 2\n", "1.0001 2\n", True),
        ("space_change_sensitive float_tolerance 1e-3", "1.0 2\n", "1.0001  2\n", False),
        ("space_change_sensitive", "Yes\n", "YES\n", True),  # case-insensitive unless case_sensitive
        ("space_change_sensitive case_sensitive", "Yes\n", "YES\n", False),
        ("", "a\u00a0b\n", "a\u00a0b\n", True),  # a non-breaking space is part of the token
        ("", "a b\n", "a\u00a0b\n", False),
        ("", "ÄB\n", "äb\n", False),  # case folds ASCII only
        ("float_tolerance 1e-6", "nan\n", "NaN\n", True),  # nan is no number: compared as text
        ("float_tolerance 1e-6", "1e999\n", "inf\n", False),
        ("float_absolute_tolerance 0.5", "0\n", "0.4\n", True),
        ("float_relative_tolerance 0.1", "0\n", "0.0001\n", False),
        ("", "1\n2\n", "1 2", True),
        ("", "1\n", "1 2\n", False),
        ("", "\n", "", True),
        ("float_tolerance 1e-6", "abc\n", "ABC\n", True),  # not a number in the answer: text, without case
    ],
)
def test_kattis_rules(flags: str, answer: str, output: str, accepted: bool) -> None:
    assert compare_output(output, answer, checker(flags)).accepted is accepted


def test_c_float_reads_what_sscanf_reads() -> None:
    assert c_float(b"0x10") == 16 and c_float(b"1e5") == 1e5 and c_float(b"-.5") == -0.5 and c_float(b"5.") == 5
    assert c_float(b"1_000") is None and c_float(b"nan") is None and c_float(b"inf") is None
    assert c_float(b"1,5") is None and c_float(b"") is None and c_float(b"12abc") is None


# ---------------------------------------------------------------- against problemtools' default_validator


@pytest.fixture(scope="module")
def kattis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """problemtools' default_validator, compiled from its source in the PyPI release."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++ to compile problemtools' default_validator")
    cache = ROOT / "tests" / "artifacts" / "problemtools"
    archives = sorted(cache.glob("problemtools-*.tar.gz"))
    if not archives:
        cache.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip", "download", PROBLEMTOOLS, "--no-deps", "--no-binary", ":all:", "-q"]
        done = subprocess.run([*pip, "-d", str(cache)], capture_output=True, text=True, timeout=300)
        archives = sorted(cache.glob("problemtools-*.tar.gz"))
        if done.returncode != 0 or not archives:
            pytest.skip(f"cannot download {PROBLEMTOOLS} from PyPI: {done.stderr.strip()[-300:]}")
    work = tmp_path_factory.mktemp("kattis")
    with tarfile.open(archives[-1]) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith(SOURCE))
        source = archive.extractfile(member)
        assert source is not None
        (work / "default_validator.cc").write_bytes(source.read())
    subprocess.run(["g++", "-O2", "-o", str(work / "dv"), str(work / "default_validator.cc")], check=True)
    return work


def kattis_accepts(kattis: Path, flags: str, answer: bytes, output: bytes, case: int = 0) -> bool:
    """problemtools' verdict, from files of its own for ``case`` (so cases may run side by side)."""
    work = kattis / f"case-{case}"
    feedback = work / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    (work / "answer").write_bytes(answer)
    (work / "input").write_bytes(b"")
    argv = [str(kattis / "dv"), str(work / "input"), str(work / "answer"), str(feedback), *flags.split()]
    code = subprocess.run(argv, input=output, capture_output=True, timeout=10).returncode
    assert code in (42, 43), code
    return code == 42


NUMBERS = [
    "0", "1", "-1", "+1", "007", "16", "0x10", "0X1A", "0x1p3", "1e5", "1E-3", "1e", "1e+", ".5", "5.", "-.5",
    "1.0", "1.00001", "0.99999", "3.14159", "1_000", "1000", "1,5", "inf", "-inf", "INF", "nan", "NaN", "1e999",
    "123456789012345678901234567890", "0.1e1", "1.5e-300", "-0", "0.0",
]  # fmt: skip
WORDS = ["yes", "Yes", "YES", "no", "abc", "ABC", "Ä", "ä", "a\u00a0b", "x-y", "héllo", "HÉLLO"]
SPACES = [" ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", " \n"]
FLAGS = [
    "",
    "case_sensitive",
    "space_change_sensitive",
    "float_tolerance 1e-6",
    "float_absolute_tolerance 1e-3",
    "float_relative_tolerance 1e-4",
    "case_sensitive float_tolerance 1e-6",
    "space_change_sensitive float_tolerance 1e-4",
    "space_change_sensitive case_sensitive",
    "float_absolute_tolerance 0.5 float_relative_tolerance 1e-9",
]


def _text(tokens: list[str], spaces: list[str], end: str) -> str:
    return "".join(t + s for t, s in zip(tokens, spaces, strict=True))[: -len(spaces[-1]) or None] + end


def _mutated(rng: random.Random, tokens: list[str]) -> list[str]:
    out = list(tokens)
    i = rng.randrange(len(out))
    kind = rng.randrange(7)
    if kind == 0:
        out[i] = out[i].swapcase()
    elif kind == 1:
        out[i] = rng.choice(NUMBERS + WORDS)
    elif kind == 2:
        try:
            out[i] = repr(float(out[i]) * (1 + rng.choice([1e-9, 1e-5, 1e-3, -1e-7])) + rng.choice([0, 1e-4, 0.3]))
        except ValueError:
            out[i] = out[i] + "x"
    elif kind == 3:
        out.append(rng.choice(NUMBERS))
    elif kind == 4 and len(out) > 1:
        del out[i]
    elif kind == 5:
        out[i] = {"16": "0x10", "1000": "1_000", "1.0": "1", "0": "-0", "0.5": ".5"}.get(out[i], out[i])
    return out


def test_every_flag_gives_kattis_verdict_on_generated_pairs(kattis: Path) -> None:
    rng = random.Random(20261123)
    cases = []
    for case in range(1500):
        tokens = [rng.choice(NUMBERS + WORDS) for _ in range(rng.randint(1, 4))]
        spaces = [rng.choice(SPACES) for _ in tokens]
        answer = _text(tokens, spaces, rng.choice(["\n", "", " \n"]))
        same = rng.random() < 0.4
        got_tokens = list(tokens) if same else _mutated(rng, tokens)
        got_spaces = [rng.choice(SPACES) if rng.random() < 0.3 else s for s in spaces[: len(got_tokens)]]
        got_spaces += [" "] * (len(got_tokens) - len(got_spaces))
        output = _text(got_tokens, got_spaces, rng.choice(["\n", "", "\n\n"]))
        cases.append((FLAGS[case % len(FLAGS)], answer, output))

    def judged(case: int) -> bool:
        flags, answer, output = cases[case]
        return kattis_accepts(kattis, flags, answer.encode(), output.encode(), case)

    with ThreadPoolExecutor(4) as pool:  # a process each: side by side on every core
        verdicts = list(pool.map(judged, range(len(cases))))
    disagreements = [
        (flags, answer, output, theirs)
        for (flags, answer, output), theirs in zip(cases, verdicts, strict=True)
        if compare_output(output.encode(), answer.encode(), checker(flags)).accepted != theirs
    ]
    assert disagreements == [], f"{len(disagreements)} disagreements, first: {disagreements[:5]}"


# ---------------------------------------------------------------- what a rejected run is told


EXACT = Checker(mode="exact")
TOKENS = Checker()
SPACED = Checker(mode="spaces", case_sensitive=False)


@pytest.mark.parametrize(
    ("checker_", "answer", "output", "message"),
    [
        (EXACT, "1 2\n3\n", "1  2\n3\n", "line 1 differs: expected '1 2', got '1  2'"),
        (EXACT, "a\nb\nc", "a\nB\nc", "line 2 differs: expected 'b', got 'B'"),
        (EXACT, "1\n2\n", "1\n", "line 2 differs: expected '2', got ''"),
        (EXACT, "1\n2\n3", "1\n2", "output ends after line 2; expected 3 lines"),
        (EXACT, "1\n2", "1\n2\n3", "output has extra text after line 2: '3'"),
        (EXACT, "1", "1\r", "line 1 differs: expected '1', got '1\\r'"),
        (TOKENS, "1 2\n3\n", "1 2\n4\n", "line 2, token 3: expected '3' (answer line 2), got '4'"),
        (TOKENS, "x\n\ny z\n", "x y w\n", "line 1, token 3: expected 'z' (answer line 3), got 'w'"),
        (TOKENS, "1 2 3\n", "1\n2\n", "output ends after 2 tokens; expected '3' next (answer line 1)"),
        (TOKENS, "1\n", "1\n\n 2 3\n", "line 3: extra output after 1 tokens, starting with '2'"),
        (TOKENS, "yes\n", "YES\n", "line 1, token 1: expected 'yes' (answer line 1), got 'YES'"),
        (SPACED, "a b\nc d\n", "a b\nc  d\n", "line 2: whitespace differs: expected ' ', got '  '"),
        (SPACED, "a b\nc d\n", "a b\nc e\n", "line 2: expected 'd', got 'e'"),
        (SPACED, "a\n\nb c\n", "a\n\nb\n", "line 3: whitespace differs: expected ' ', got '\\n'"),
        (SPACED, "a b", "a", "line 1: output ends early"),
        (SPACED, "a", "a b", "line 1: extra output"),
    ],
)
def test_a_rejected_output_is_told_where_it_first_differs(
    checker_: Checker, answer: str, output: str, message: str
) -> None:
    result = compare_output(output, answer, checker_)
    assert (result.accepted, result.message) == (False, message)


def test_numbers_are_told_why_they_are_wrong() -> None:
    tolerant = checker("float_absolute_tolerance 0.01")
    assert compare_output("1.5", "1.25", tolerant).message.endswith(
        ", got '1.5'; difference 0.25 is above the tolerance"
    )
    told = compare_output("one", "1", tolerant).message
    assert told == "line 1, token 1: expected '1' (answer line 1), got 'one'; expected a number"
    quarter = checker("float_absolute_tolerance 0.25")  # exact in binary: the bound itself is within
    assert compare_output("1.25", "1", quarter).accepted and compare_output("0.75", "1", quarter).accepted
    assert not compare_output("1.2500001", "1", quarter).accepted
    relative = checker("float_relative_tolerance 0.1")
    assert compare_output("109", "100", relative).accepted and compare_output("-109", "-100", relative).accepted
    assert not compare_output("111", "100", relative).accepted
    assert not compare_output("1e-300", "0", relative).accepted  # relative to zero: only zero itself
    assert compare_output("0.0", "0", relative).accepted


def test_exact_compares_bytes_not_tokens() -> None:
    for answer, output in [("1 2\n", "1  2\n"), ("1\n", "1"), ("1\n", "1\n\n"), ("a\tb", "a b"), ("Yes", "yes")]:
        assert compare_output(output, answer, EXACT).accepted is False, (answer, output)
        assert compare_output(answer, answer, EXACT) == compare_output(answer.encode(), answer.encode(), EXACT)
    assert compare_output("1 2\n", "1 2\n", EXACT).accepted
    assert (
        compare_output(b"\xff\n", b"\xff\n", EXACT).accepted
        and not compare_output(b"\xfe\n", b"\xff\n", EXACT).accepted
    )


def test_tokens_end_at_a_nul_byte_as_c_strings_do() -> None:
    assert compare_output(b"ab\0x\n", b"ab\0y\n", TOKENS).accepted
    assert compare_output(b"ab\0x\0y\n", b"ab\0z\0w\n", TOKENS).accepted  # at the first one
    assert not compare_output(b"ab\0x\n", b"ac\0x\n", TOKENS).accepted
    assert c_float(b"1.5\0junk") == 1.5


def test_long_tokens_are_shown_cut() -> None:
    long = "x" * 100
    message = compare_output(long, "y", TOKENS).message
    assert message == f"line 1, token 1: expected 'y' (answer line 1), got '{'x' * 59}\u2026'"
    assert compare_output("x" * 60, "y", TOKENS).message.endswith(f"got '{'x' * 60}'")


def test_numbers_are_read_without_the_c_library_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no C library can be found, decimal numbers are still numbers (hex is text then)."""
    from site_builder.verify import compare

    monkeypatch.setattr(compare, "_scanner", lambda: None)
    assert [c_float(t) for t in (b"1.5", b"-.5", b"5.", b"1e3", b"+2E-1")] == [1.5, -0.5, 5.0, 1000.0, 0.2]
    assert [c_float(t) for t in (b"0x10", b"1_0", b"1e", b".", b"abc", b"1.5x")] == [None] * 6


def test_text_that_was_not_utf_8_is_compared_as_the_bytes_it_came_from() -> None:
    """Outputs read as text keep undecodable bytes as surrogates (``surrogateescape``)."""
    output, answer = b"\xff 1\n".decode("utf-8", "surrogateescape"), b"\xff 1\n".decode("utf-8", "surrogateescape")
    for mode in (EXACT, TOKENS, SPACED):
        assert compare_output(output, answer, mode) == compare_output(b"\xff 1\n", b"\xff 1\n", mode)
        assert compare_output(output, "\xff 1\n", mode) == compare_output(b"\xff 1\n", "\xff 1\n".encode(), mode)
        assert compare_output("\xff 1\n", answer, mode) == compare_output("\xff 1\n".encode(), b"\xff 1\n", mode)
