"""`arena.text`: what a bot wrote, shown as text and never obeyed; a stranger's name, cut."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from arena.text import NAME_CHARS, printable, short_name

HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}
"""The categories a terminal or a browser may obey, reorder or hide (a space aside)."""


def hidden(char: str) -> bool:
    return char != " " and unicodedata.category(char) in HIDDEN


def unescape(shown: str) -> str:
    """The inverse of `printable` on text without a backslash: each escape read back."""
    out, i = [], 0
    short = {"t": "\t", "n": "\n", "r": "\r"}
    width = {"x": 2, "u": 4, "U": 8}
    while i < len(shown):
        if shown[i] != "\\":
            out.append(shown[i])
            i += 1
            continue
        kind = shown[i + 1]
        if kind in short:
            out.append(short[kind])
            i += 2
            continue
        digits = shown[i + 2 : i + 2 + width[kind]]
        assert len(digits) == width[kind], shown
        out.append(chr(int(digits, 16)))
        i += 2 + width[kind]
    return "".join(out)


any_text = st.text(st.characters(codec=None), max_size=60)
hostile_text = st.text(
    st.one_of(
        st.characters(codec=None),
        st.sampled_from("\x1b\x9b\x85\x00\x7f\t\n\r\u202e\u2066\u200b\u2028\ufeff\ud800"),
    ),
    max_size=60,
)


@given(hostile_text)
def test_nothing_that_can_be_obeyed_is_left(text: str) -> None:
    assert not any(hidden(c) for c in printable(text))


@given(st.text(st.characters(codec=None).filter(lambda c: not hidden(c)), max_size=60))
def test_printable_text_is_unchanged(text: str) -> None:
    assert printable(text) == text


@given(hostile_text.filter(lambda t: "\\" not in t))
def test_text_without_a_backslash_is_read_back_whole(text: str) -> None:
    assert unescape(printable(text)) == text


@given(hostile_text.filter(lambda t: "\\" not in t), hostile_text.filter(lambda t: "\\" not in t))
def test_texts_that_differ_are_shown_different(first: str, second: str) -> None:
    if first != second:
        assert printable(first) != printable(second)


@given(any_text)
def test_applying_it_twice_changes_nothing(text: str) -> None:
    assert printable(printable(text)) == printable(text)


@given(hostile_text.filter(lambda t: "\\" not in t), st.integers(min_value=0, max_value=80))
def test_a_limit_cuts_between_escapes(text: str, limit: int) -> None:
    cut = printable(text, limit)
    assert len(cut) <= limit
    assert printable(text).startswith(cut)
    assert text.startswith(unescape(cut))


def test_the_attacks_are_shown_as_escapes() -> None:
    assert printable("\x1b[2J\x1b[H\x1b[3;1Hall good") == "\\x1b[2J\\x1b[H\\x1b[3;1Hall good"
    assert printable("\u202eevil\u202c") == "\\u202eevil\\u202c"
    assert printable("\x9b2J") == "\\x9b2J"
    assert printable("a\tb\nc\rd\x00\x7f") == "a\\tb\\nc\\rd\\x00\\x7f"
    assert printable("\U000e0041") == "\\U000e0041"  # a tag character, invisible


def test_letters_of_every_script_are_kept() -> None:
    for text in ("Ünïcødé", "日本語のボット", "Перудо", "שלום", "🎲 x 3", "C:\\bots\\x1b"):
        assert printable(text) == text


def test_a_limit_never_keeps_half_an_escape() -> None:
    assert printable("ab\x1bcd", 4) == "ab"
    assert printable("ab\x1bcd", 6) == "ab\\x1b"
    assert printable("abcdef", 3) == "abc"


def test_a_strangers_name_is_shown_cut_with_its_length() -> None:
    assert short_name("alice") == "'alice'"
    assert short_name("a\x1b[2Jb") == "'a\\x1b[2Jb'"
    long = "z" * 30_000
    shown = short_name(long)
    assert shown == f"'{'z' * NAME_CHARS}...' (30000 characters)"
    assert len(short_name("\x1b" * 1000)) < NAME_CHARS + 40  # cut after its escapes, not before
