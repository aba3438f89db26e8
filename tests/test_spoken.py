"""Spoken-entity parsing: what the agent can recover from ASR text."""

from __future__ import annotations

import re
from datetime import date

import pytest

from evalkit.spoken import (
    nato_code,
    parse_clock_times,
    parse_code,
    parse_correction,
    parse_date,
    parse_flight_numbers,
    parse_name,
    parse_ordinal,
    parse_seat_preference,
    parse_seat_preferences,
    parse_spelled_word,
    parse_yes_no,
    say_correction,
    say_time,
    spell_code,
)


@pytest.mark.parametrize(
    ("heard", "code"),
    [
        ("It's W K 2 E X B.", "WK2EXB"),
        ("WK2EXB", "WK2EXB"),
        ("W-K-2-E-X-B", "WK2EXB"),
        ("Whiskey Kilo 2 Echo X-ray Bravo.", "WK2EXB"),
        ("It's 7 H Q 4 T Z.", "7HQ4TZ"),
        ("It's seven H Q four T Z.", "7HQ4TZ"),
        ("double UK2XD", "WK2XD"),  # a real Whisper mishearing: decoded as heard (5 chars), not repaired
        ("It's whiskey key low to echo X-ray Bravo.", "WK2EXB"),  # NATO with a split word and a homophone
        ("Double UK 2-E-X-B.", "WK2EXB"),
        ("My last name is Brooks", None),
        ("I'm not sure what you mean", None),
        ("N V 3 G 4 C.", "NV3G4C"),
        ("I need it and AB", None),  # an "and" that would not make six characters stays a word
        ("I'll cancel and rebook", None),
        ("It's a Z3UM9.", "AZ3UM9"),  # a spoken A written "a": the sixth character, where five follow it
        ("That's a D3U and 9.", None),  # the article stays one where the A would not make six characters
        ("It's a code, W K 2 E X B.", "WK2EXB"),  # six without it: the article
    ],
)
def test_parse_code(heard, code):
    assert parse_code(heard) == code


def test_spelling_round_trips():
    assert spell_code("wk2exb") == "W K 2 E X B"
    assert nato_code("WK2") == "Whiskey Kilo 2"
    assert parse_code(nato_code("Q3ZP8N")) == "Q3ZP8N"


@pytest.mark.parametrize(
    ("heard", "correction"),
    [  # Whisper tiny.en transcripts of corrections
        ("No, the third one is an echo.", (3, "E")),
        ("No, the first while is whiskey.", (1, "W")),
        ("The second character is the number nine.", (2, "9")),
        ("No, the second character is the number 8.", (2, "8")),  # Piper's voice, as tiny.en writes it
        ("No, the sixth one is November.", (6, "N")),
        ("No, the third one is jay.", (3, "J")),  # the letter's name
        ("No, the second one is bee.", (2, "B")),
        ("No, the forth one is Delta.", (4, "D")),  # a near spelling of the ordinal
        # the character follows the "is": "while" (the "one") is not Whiskey, nor "while is" merged into it
        ("No, the fourth while is delta.", (4, "D")),
        ("Yes, that's right.", None),
    ],
)
def test_parse_correction(heard, correction):
    assert parse_correction(heard) == correction


def test_corrections_round_trip_in_text():
    for position, char in [(1, "W"), (2, "9"), (6, "Z")]:
        assert parse_correction(say_correction(position, char)) == (position, char)
    assert parse_spelled_word("R, A, M, A, N.") == "RAMAN"
    assert parse_spelled_word("B-R-O-O-K-S") == "BROOKS"
    assert parse_spelled_word("Okay, hey, hey, hey, hey, hey, hey") is None  # Whisper looping, not a spelling


def test_parse_name_and_seat_and_yes_no():
    assert parse_name("My last name is Thompson.") == "Thompson"
    assert parse_name("Brooks.") == "Brooks"
    assert parse_seat_preference("Window, please.") == "window"
    assert parse_seat_preference("An aisle seat") == "aisle"
    assert parse_seat_preference("I'll, please.") == "aisle"  # a homophone (tiny.en on Piper's "Aisle, please.")
    assert parse_seat_preference("Sure, wind off, please.") is None  # issue 28.3: eSpeak lore retired, asked again
    assert parse_seat_preference("whatever") is None


def test_ordinals_past_the_eighth_are_said_and_read_but_only_exactly():
    # a 13-character policy number's tenth character is corrected by its place, as the first eight are
    assert parse_correction(say_correction(10, "B")) == (10, "B")
    assert parse_correction("No, the 12th character is the number 8.") == (12, "8")
    assert parse_ordinal("No, the eleventh one is Bravo.") == 11  # not the near "seventh"
    assert parse_ordinal("It is eleven.") is None and parse_ordinal("No, it's ten.") is None  # numbers, not places
    assert parse_ordinal("the forth one") == 4  # a near spelling of the first eight still is one


def test_a_spelling_written_in_small_letters_keeps_its_a_and_m():
    # HR-011 in audio: "M, U, K, H, E, R, J, E, E." heard "m u k h e r j e e." was taken as UKHERJEE (a lower-case
    # "m" read as no letter) and the dependent added under the wrong name
    assert parse_spelled_word("m u k h e r j e e.") == "MUKHERJEE"
    assert parse_spelled_word("h a s s a n") == "HASSAN"
    assert parse_spelled_word("It is a good day") is None


def test_a_ranked_seat_answer_hears_the_aisle_homophone_as_an_item():
    # EVA-Bench's callers rank all three ("Aisle, then window, then middle"), heard "I'll, then window, ...": the
    # aisle homophone is the first choice where it stands as an item, not where it is "I will"
    assert parse_seat_preferences("That's I'll, then window, then middle, please.") == ["aisle", "window", "middle"]
    assert parse_seat_preference("I'll then window, then middle, please.") == "aisle"
    assert parse_seat_preferences("Window, then I'll.") == ["window", "aisle"]
    assert parse_seat_preferences("I'll take the window, please.") == ["window"]
    assert parse_seat_preferences("Aisle, then window.") == ["aisle", "window"]
    assert parse_yes_no("Yes, please go ahead.") is True
    assert parse_yes_no("No, that's too expensive.") is False
    assert parse_yes_no("Hmm.") is None


def test_dates_times_and_flight_numbers():
    today = date(2026, 6, 18)
    assert parse_date("June 22nd.", today) == date(2026, 6, 22)
    assert parse_date("the twenty second", today) == date(2026, 6, 22)
    assert parse_date("tomorrow", today) == date(2026, 6, 19)
    assert parse_date("no idea", today) is None
    assert parse_flight_numbers("I'll take flight SK 130 at 1 PM.") == ["SK130"]
    assert parse_flight_numbers("S K 281") == ["SK281"]
    assert parse_clock_times("the 3:45 p.m. one") == ["15:45"]
    assert parse_clock_times("8:15 AM") == ["08:15"]
    assert parse_clock_times("SK-2801 at 420 pm works") == ["16:20"]  # the colon not written
    assert parse_clock_times("sure, 10, 30 AM.") == ["10:30"]  # tiny.en on Piper's "10:30 AM"
    assert parse_clock_times("7A. M.") == ["07:00"]  # and its "7 a.m."
    assert parse_clock_times("flight 1730 pm") == []  # not a clock time
    # a written 24-hour time (a record's own "07:00", midnight's "00:00") is taken as it stands
    assert parse_clock_times("07:00.") == ["07:00"] and parse_clock_times("00:00") == ["00:00"]
    assert parse_clock_times("19:30 or 10:30 am") == ["10:30", "19:30"]
    assert parse_clock_times("25:00") == [] and parse_clock_times("7:00") == []  # spoken 7:00: morning or evening?
    assert say_time("13:00") == "1 PM" and say_time("09:20") == "9:20 AM"


def test_the_agents_tts_input_keeps_every_entity_and_only_changes_how_it_is_said():
    from evalkit.metrics.entities import spoken_entities
    from evalkit.spoken import speakable

    text = "I found your booking on flight SK418 from MIA to ATL on June 18 at 12:10 PM. I have M 8 B M M R."
    spoken = speakable(text)
    assert spoken == (
        "I found your booking on flight SK 4 18 from M I A to A T L on June 18 at 12:10 P M. I have M, 8, B, M, M, R."
    )
    # the same characters in the same order: a pause, a space, never another value
    assert re.sub(r"[\s,]", "", spoken) == re.sub(r"[\s,]", "", text)
    assert spoken_entities(text)  # the metric rates the intended text, which speakable does not touch
    assert speakable("Thank you for calling. Goodbye!") == "Thank you for calling. Goodbye!"
