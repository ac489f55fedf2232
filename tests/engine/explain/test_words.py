"""The formats of the explanations' sentences: the same digits, signs, groupings and move
numbers as the page's own (app/static/js/notation.js and state.js)."""

from __future__ import annotations

import math

import pytest

from engine.explain.words import (
    count,
    fixed,
    format_line,
    line_words,
    number,
    ordinal,
    plies,
    proof_for,
    proof_text,
    rounded,
    rounded_all,
    side_name,
    signed,
)


@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (0.125, 2, "0.13"),  # a tie goes away from zero, as toFixed does
        (-0.125, 2, "-0.13"),
        (2.5, 0, "3"),
        (1.005, 2, "1.00"),  # 1.005 is 1.00499999… in binary: toFixed rounds it down too
        (0.5, 3, "0.500"),
        (-0.0, 3, "0.000"),  # no sign on a zero
        (-0.0001, 3, "-0.000"),  # but on a negative number that rounds to it
        (None, 3, "–"),
        (math.nan, 3, "–"),
    ],
)
def test_fixed_writes_what_javascripts_to_fixed_writes(
    x: float | None, digits: int, text: str
) -> None:
    assert fixed(x, digits) == text


def test_signed_uses_a_real_minus_and_calls_a_mate_score_a_mate() -> None:
    assert signed(-0.25) == "−0.25" and signed(0.0) == "+0.00" and signed(0.1234, 3) == "+0.123"
    assert signed(9990.0) == "mate +" and signed(-3.0) == "mate −" and signed(None) == "–"


def test_count_groups_thousands_and_rounds_half_up() -> None:
    assert count(1234567) == "1,234,567" and count(2.5) == "3" and count(None) == "–"


def test_ordinals_and_plies_are_written_with_their_english_endings() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip
    assert [plies(1), plies(0), plies(3)] == ["1 ply", "0 plies", "3 plies"]


def test_a_number_in_text_is_written_as_javascript_writes_it() -> None:
    assert [number(2.0), number(1.5), number(1e-05), number(3)] == ["2", "1.5", "0.00001", "3"]


def test_a_line_carries_its_move_numbers_from_the_fen() -> None:
    white = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert line_words(["Bb5", "a6", "Ba4"], white) == ["3. Bb5", "a6", "4. Ba4"]
    assert line_words(["e5", "Nf3"], black) == ["1… e5", "2. Nf3"]
    assert format_line(["e5", "Nf3", "Nc6"], black, limit=2) == "1… e5 2. Nf3 …"
    assert format_line([], white) == "" and format_line(["e4"], None) == "1. e4"


def test_the_sides_are_named_as_each_game_names_them() -> None:
    assert side_name("chess", "white") == "White" and side_name("chess", "black") == "Black"
    assert side_name("knight", "white") == "Black knights"
    assert side_name("knight", "black") == "Pink knights"


def test_a_proof_is_said_for_the_side_that_wins_it() -> None:
    assert proof_text(1, 3) == "mate in 2" and proof_text(-1, 4) == "mated in 2"
    assert proof_text(1, None) == "proven win" and proof_text(2, None) == "proven draw"
    assert proof_for("chess", -1, 3, "white") == "mate in 2 for Black"
    assert proof_for("knight", 1, None, "white") == "proven win for Black knights"
    assert proof_for("chess", 0, None, "white") == ""


def test_numbers_are_shown_rounded_and_an_infinite_one_as_none() -> None:
    assert rounded(0.123456) == 0.1235 and rounded(math.inf) is None and rounded(None) is None
    assert rounded_all({"a": [0.123456, 2, "x"], "b": (math.nan,)}) == {
        "a": [0.1235, 2, "x"],
        "b": [None],
    }
