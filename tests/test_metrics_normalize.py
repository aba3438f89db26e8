"""The metrics' own normaliser (issue 28 point 3): each spoken form a careful reader of a transcript accepts, and
none that exists only because one recogniser mishears one voice."""

from __future__ import annotations

import pytest

from evalkit.metrics.entities import Grounding, spoken_forms, tokens
from evalkit.metrics.normalize import (
    amount_forms,
    date_forms,
    parse_correction,
    spelled_codes,
    spelled_runs,
    time_forms,
    value_forms,
    written_as_said,
)


def same(a: str, b: str) -> bool:
    """Do two texts say the same thing once normalised (the comparison every entity metric makes)?"""
    return tokens(a) == tokens(b)


def test_numbers_and_amounts() -> None:
    assert same("75 dollars", "$75") and same("seventy-five dollars", "$75")
    assert amount_forms("1250.5") == ["1250.50", "1250 dollars 50 cents", "1250 euros 50 cents", "1250 pounds 50 pence"]
    assert any(same(f, "twelve hundred fifty dollars and fifty cents") for f in value_forms(1250.5))
    assert value_forms(150.0) == ["150"] and value_forms(True) == [] and amount_forms("12") == []


def test_dates_said_with_and_without_their_year() -> None:
    forms = date_forms("1997-09-14")
    assert "September 14" in forms and "September 14 1997" in forms and "14th of September" in forms
    assert any(same(f, "September fourteenth, nineteen ninety-seven") for f in forms)
    assert any(same(f, "14th of September") for f in forms) and any(same(f, "September 14, 1997") for f in forms)
    assert date_forms("2026-02-30") == [] and date_forms("14/09/1997") == []
    assert written_as_said("Born 1997-09-14.") == "Born September 14 1997."


@pytest.mark.parametrize(
    ("clock", "said"),
    [("13:00", "1 PM"), ("09:20", "9:20 AM"), ("12:00", "noon"), ("00:00", "midnight"), ("19:45", "7:45 PM")],
)
def test_times(clock: str, said: str) -> None:
    assert said in time_forms(clock) and clock in value_forms(clock)


def test_times_reject_what_is_no_clock() -> None:
    assert time_forms("25:00") == [] and time_forms("1300") == []
    assert any(same(f, "one p.m.") for f in time_forms("13:00"))


@pytest.mark.parametrize(
    ("heard", "codes"),
    [
        ("It's W K 2 E X B.", ["WK2EXB", "WKEXB"]),
        ("Whiskey, Kilo, two, Echo, X-ray, Bravo", ["WK2EXB", "WKEXB"]),
        ("Alfa Juliett niner oh", ["AJ90", "AJ"]),
        ("C as in Charlie, double-u, aitch, zed", ["CWHZ"]),
        ("double 5, triple A", ["55AAA", "AAA"]),
        ("My code is TOU-77A, group GRP-ENGCORE", ["TOU77A", "TOUA", "GRP"]),
        ("No, it's okay AFOR.", ["OKAFOR"]),
        ("I want to go for a walk", []),  # homophones count only beside a spelled character
    ],
)
def test_spelled_codes(heard: str, codes: list[str]) -> None:
    assert spelled_codes(heard) == codes


def test_no_speech_pair_lore() -> None:
    """What tiny.en wrote for eSpeak ("Elvis" for Alpha, "sex" for 6, "forest" for fourth) is not a spelling."""
    assert spelled_runs("Victor Elvis November") == ["V", "N"]
    assert spelled_runs("W K sex") == ["WK"]
    assert parse_correction("the forest one is Delta") is None
    assert spelled_runs("It's S") == ["S"] and spelled_runs("It's fine") == []  # the "s" of "it's" is no letter


@pytest.mark.parametrize(
    ("text", "correction"),
    [
        ("No, the third one is Echo.", (3, "E")),
        ("the second character is the number nine", (2, "9")),
        ("The 4th letter should be tee.", (4, "T")),
        ("no, the first one is Whiskey", (1, "W")),
        ("the third one is wrong", None),
        ("Yes, that's right.", None),
    ],
)
def test_corrections(text: str, correction: tuple[int, str] | None) -> None:
    assert parse_correction(text) == correction


def test_grounding_reads_a_written_date_as_said() -> None:
    grounding = Grounding()
    grounding.add_text("1997-09-14.")
    assert grounding.grounds(tuple(tokens("September 14 1997")))
    assert grounding.grounds(tuple(tokens("1997-09-14")))
    assert spoken_forms("13:00") == ["13:00", "1 PM"]
