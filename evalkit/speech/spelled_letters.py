"""The TTS text front end for spelled characters: a spelled letter A is said as the letter (issue 28 point 5).

eSpeak NG's English phonemiser, which the eSpeak voices and the Piper voices (``evalkit.speech.piper_tts``) both use,
reads a lone "A" as the article /ɐ/ ("uh") wherever a word may follow it: "W A 2" -> "double-u uh two", "A as in
Alpha" -> "uh as in Alpha". Only where a clause ends ("W, A, 2", "Plan A.") does it say the letter's name /ˈeɪ/. A
person spelling a code says the letter, so where an "A" is one of a run of spelled characters (a neighbour is a
single letter, a digit or a dash) or is followed by "as in", the phonemiser is given a word it reads /ˈeɪ/ in every
English eSpeak voice ("eh"). The text a metric compares with (the intended text) is unchanged: only what the
phonemiser reads. I, the other one-letter word, is said as its letter name already.
"""

from __future__ import annotations

import re

__all__ = ["say_spelled_letters"]

# eSpeak NG's English dictionary says "eh" /ˈeɪ/ (en-us, en-gb, en-gb-x-rp, en-029; /ˈeː/ in en-gb-scotland, as
# that voice says the letter): what it says for the letter A at a clause end ("It's A.")
LETTER_A_SAID = "eh"
_SPACES = re.compile(r"(\s+)")
_SPELLED = re.compile(r"[A-Za-z0-9]|-")  # one spelled character, or the dash between a code's parts
_TRAILING = ",;:.!?"


def _spelled(word: str) -> bool:
    return bool(_SPELLED.fullmatch(word.rstrip(_TRAILING) if len(word) > 1 else word))


def say_spelled_letters(text: str) -> str:
    """``text`` with each spelled letter A written as the phonemiser says the letter: 'W A 2' -> 'W eh 2', 'It's A W
    2' -> 'It's eh W 2', 'A as in Alpha' -> 'eh as in Alpha', '2 1 4 a 4' -> '2 1 4 eh 4'; the article stays ('A
    flight at 9', 'Plan A or B', 'take 5 a day'). A capital A needs one spelled neighbour, a lower-case a two."""
    parts = _SPACES.split(text)
    words = parts[::2]
    for i, word in enumerate(words):
        if word not in ("A", "a"):  # "A," and "A." end a clause: said as the letter already
            continue
        before = i > 0 and _spelled(words[i - 1]) and words[i - 1][-1] not in _TRAILING  # "B. A flight": a new clause
        after = i + 1 < len(words) and _spelled(words[i + 1])
        as_in = [w.lower() for w in words[i + 1 : i + 3]] == ["as", "in"]
        if as_in or (word == "A" and (before or after)) or (before and after):
            words[i] = LETTER_A_SAID
    parts[::2] = words
    return "".join(parts)
