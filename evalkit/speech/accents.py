"""Foreign-accented English on eSpeak NG: English phonemes, rewritten into a first language's sounds.

Why not just read the English text with a French or Hindi voice? Measured with Whisper tiny.en (8 sentences,
150 wpm): eSpeak's ``es`` voice reads English *spelling* with Spanish rules (WER 1.6, Whisper hallucinates),
and voices of non-Latin-script languages (``hi``, ``cmn``) silently switch to English for Latin text, so no
accent at all. What a non-native speaker does is closer to this: know the English word's pronunciation, then
produce it with the sounds of their first language. So an accent here is

1. English (en-us) phonemes from ``espeak_TextToPhonemes`` (eSpeak mnemonics, e.g. ``T'3:zdeI``),
2. a substitution map from English phonemes to the first language's phonemes (hand-written from the usual
   L1-transfer features: retroflex t/d and v for w in Indian English, no th/h and uvular r in French English,
   b for v and e- before s-clusters in Spanish English, no voiced stops and s for th in Chinese English),
3. synthesis of ``[[...]]`` with the first language's voice, so its phoneme realisations and rhythm apply.

The maps are small linguistic tables, not code any library provides; eSpeak's own phoneme names are used
(see espeak-ng docs/phonemes.md). Every target phoneme exists in the target voice's table (a test checks it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evalkit.speech.tts import EspeakTTS, text_to_phonemes

__all__ = ["ACCENTS", "ENGLISH_PHONEMES", "Accent", "AccentedTTS", "accent_phonemes", "map_phonemes"]

# en-us phoneme mnemonics that TextToPhonemes emits (en-us, en and base tables): tokenising with the whole
# inventory, longest first, keeps 'aI@' from being read as 'a' + 'I' + '@'.
ENGLISH_PHONEMES = [
    "aI@",
    "aI3",
    "aU@",
    "i@3",
    "I2#",
    "3:",
    "A:",
    "i:",
    "O:",
    "u:",
    "A@",
    "A#",
    "O@",
    "o@",
    "aU",
    "oU",
    "aI",
    "eI",
    "OI",
    "e@",
    "i@",
    "U@",
    "I#",
    "I2",
    "@2",
    "@5",
    "@L",
    "a#",
    "aa",
    "02",
    "0#",
    "O2",
    "t#",
    "t2",
    "d#",
    "z#",
    "w#",
    "r-",
    "r/",
    "E#",
    "E2",
    "IR",
    "VR",
    "o:",
    "e:",
    "e#",
    "@#",
    "dZ",
    "tS",
    "_:",
    "_!",
    "@",
    "a",
    "i",
    "3",
    "U",
    "E",
    "I",
    "0",
    "O",
    "V",
    "p",
    "b",
    "t",
    "d",
    "k",
    "g",
    "f",
    "v",
    "T",
    "D",
    "s",
    "z",
    "S",
    "Z",
    "h",
    "m",
    "n",
    "N",
    "l",
    "L",
    "r",
    "w",
    "j",
    "?",
    "_",
]
_ENGLISH_SORTED = sorted(set(ENGLISH_PHONEMES), key=len, reverse=True)
STRESS = ("'", ",")  # primary / secondary stress marks in eSpeak mnemonics


def _tokens(phonemes: str) -> list[str]:
    """Split a mnemonic string into phonemes, stress marks and spaces (longest match first)."""
    out: list[str] = []
    i = 0
    while i < len(phonemes):
        match = next((p for p in _ENGLISH_SORTED if phonemes.startswith(p, i)), phonemes[i])
        out.append(match)
        i += len(match)
    return out


def map_phonemes(phonemes: str, table: dict[str, str], keep_stress: bool = True) -> str:
    """Rewrite English mnemonics phoneme by phoneme through ``table`` (unmapped phonemes stay as they are)."""
    mapped = []
    for token in _tokens(phonemes):
        if token in STRESS and not keep_stress:
            continue
        mapped.append(table.get(token, token))
    return "".join(mapped)


def _onset_cluster_epenthesis(phonemes: str) -> str:
    """Spanish: no word may start with s + consonant, so 'school' -> 'eschool', 'please' stays."""
    return re.sub(r"(^|\s)(['+,]?)s(?=[ptkmnlfw])", r"\1\2es", phonemes)


def _final_stop_vowel(phonemes: str) -> str:
    """Mandarin syllables end in a vowel, n or ng: a final stop gets a light vowel ('good' -> 'goodu')."""
    return re.sub(r"(?<=[ptkbdgfvsz])(?=\s|$)", "@", phonemes)


def _no_h(phonemes: str) -> str:
    """French has no /h/: 'how' -> 'ow'."""
    return re.sub(r"(^|\s|['+,])h", r"\1", phonemes)


@dataclass(frozen=True)
class Accent:
    """One foreign accent: the first language's eSpeak voice, its phoneme map and word-level rules."""

    name: str
    voice: str  # eSpeak voice whose phoneme table pronounces the mapped phonemes
    table: dict[str, str]
    rules: tuple[Callable[[str], str], ...] = ()
    keep_stress: bool = True
    notes: str = ""


_VOWELS_PLAIN = {  # the five-vowel systems (Spanish, Hindi, Mandarin) merge the English lax/tense pairs
    "I": "i",
    "I2": "i",
    "I#": "i",
    "I2#": "i",
    "i:": "i",
    "i": "i",
    "E": "e",
    "E2": "e",
    "a": "a",
    "aa": "a",
    "a#": "a",
    "A:": "a",
    "V": "a",
    "0": "o",
    "02": "o",
    "O": "o",
    "O:": "o",
    "O2": "o",
    "U": "u",
    "u:": "u",
    "eI": "ei",
    "aI": "ai",
    "oU": "o",
    "aU": "au",
    "OI": "oi",
}

INDIAN = Accent(
    name="indian",
    voice="hi",
    table={
        # Retroflex alveolars, dental th, v for w, long pure vowels, rhotic r (the lead's hi map, measured WER 0.43).
        "t": "t.",
        "t#": "t.",
        "t2": "t.",
        "d": "d.",
        "d#": "d.",
        "T": "t#",
        "D": "d",
        "w": "v",
        "z": "z",
        "eI": "e:",
        "oU": "o:",
        "3:": "@r",
        "3": "@r",
        "aI@": "a:I@",
        "aU": "@U",
        "aI": "@I",
        "i@": "i:@",
        "e@": "E:r",
        "U@": "u:r",
        "A:": "a:",
        "A@": "a:r",
        "O@": "o:r",
        "o@": "o:r",
        "0": "O",
        "02": "O",
        "a": "E:",
        "aa": "E:",
        "@L": "@l",
        "L": "l",
        "I2": "I",
        "I#": "I",
        "O2": "O",
        "i": "i:",
        "r/": "r",
    },
    notes="hi voice; retroflex t/d, dental th, v for w, monophthong e:/o:, rhotic r",
)

SPANISH = Accent(
    name="spanish",
    voice="es",
    table={
        **_VOWELS_PLAIN,
        "@": "e",
        "@2": "e",
        "@5": "e",
        "@L": "el",
        "L": "l",
        "3:": "er",
        "3": "er",
        "A@": "ar",
        "O@": "or",
        "o@": "or",
        "e@": "er",
        "i@": "ier",
        "U@": "ur",
        "aI@": "aier",
        "z": "s",  # no /z/ in Spanish
        "Z": "s",
        "v": "b",  # b/v merger
        "T": "s",  # seseo (Latin American)
        "D": "d",
        "dZ": "j",  # 'job' -> 'yob'
        "t#": "t",
        "t2": "t",
        "r/": "r",
        "r-": "r",
    },
    rules=(_onset_cluster_epenthesis,),
    notes="es voice; five vowels, b for v, s for z/th, y for j, e- before s+consonant, tapped r",
)

FRENCH = Accent(
    name="french",
    voice="fr",
    table={
        "I": "i",
        "I2": "i",
        "I#": "i",
        "I2#": "i",
        "i:": "i",
        "i": "i",
        "E2": "E",
        "aa": "a",
        "a#": "a",
        "A:": "a",
        "V": "W",  # 'but' with a French oe
        "3:": "Wr",
        "3": "Wr",
        "@2": "@",
        "@5": "@",
        "@L": "El",
        "L": "l",
        "0": "O",
        "02": "O",
        "O:": "O",
        "O2": "O",
        "U": "u",
        "eI": "e",
        "oU": "o",
        "aI": "aj",
        "aU": "au",
        "OI": "Oj",
        "e@": "Er",
        "i@": "ir",
        "U@": "ur",
        "O@": "Or",
        "o@": "Or",
        "A@": "ar",
        "aI@": "ajWr",
        "T": "s",  # 'think' -> 'sink'
        "D": "z",  # 'the' -> 'ze'
        "t#": "t",
        "t2": "t",
        "r/": "r",
        "r-": "r",
        "N": "n",
        "dZ": "dZ",
        "tS": "tS",
    },
    rules=(_no_h,),
    keep_stress=False,  # French stresses the phrase end, not the English lexical stress
    notes="fr voice; no h, s/z for th, i for I, uvular r, phrase-final stress",
)

CHINESE = Accent(
    name="chinese",
    voice="cmn",
    table={
        **_VOWELS_PLAIN,
        "@2": "@",
        "@5": "@",
        "@L": "@l",
        "L": "l",
        "3:": "@r",
        "3": "@r",
        "A@": "a@r",
        "O@": "o@r",
        "o@": "o@r",
        "e@": "E@r",
        "i@": "i@r",
        "U@": "u@r",
        "aI@": "ai@r",
        "E": "E",
        "aU": "Au",
        "oU": "ou",
        # Mandarin stops contrast aspiration, not voicing: p t k -> aspirated, b d g -> unaspirated.
        "p": "ph",
        "t": "th",
        "t#": "th",
        "t2": "th",
        "k": "kh",
        "b": "p",
        "d": "t",
        "g": "k",
        "T": "s",  # 'think' -> 'sink'
        "D": "t",  # 'the' -> 'de'
        "v": "w",
        "z": "s",
        "Z": "s.",
        "S": "s.",
        "tS": "ts.h",
        "dZ": "ts.",
        "h": "x",
        "r": "l",
        "r/": "l",
        "r-": "l",
    },
    rules=(_final_stop_vowel,),
    keep_stress=False,
    notes="cmn voice; aspirated p/t/k for p/t/k and plain for b/d/g, s/t for th, w for v, l for r, "
    "a vowel after final stops",
)

ACCENTS: dict[str, Accent] = {a.name: a for a in (INDIAN, SPANISH, FRENCH, CHINESE)}


def accent_phonemes(text: str, accent: Accent) -> str:
    """The ``[[...]]`` phoneme input that speaks ``text`` as English with ``accent``; clauses keep a pause."""
    clauses = []
    for clause in text_to_phonemes(text, "en-us"):
        mapped = map_phonemes(clause, accent.table, accent.keep_stress)
        for rule in accent.rules:
            mapped = rule(mapped)
        clauses.append(mapped)
    return "[[" + " _: ".join(clauses) + "]]"


class AccentedTTS:
    """An ``EspeakTTS`` that speaks English with a foreign accent; same ``synthesize(text)`` contract."""

    def __init__(
        self, accent: Accent | str, variant: str = "", rate_wpm: int = 150, pitch: int = 50, word_gap_ms: int = 0
    ) -> None:
        self.accent = ACCENTS[accent] if isinstance(accent, str) else accent
        voice = self.accent.voice + (f"+{variant}" if variant else "")
        self.engine = EspeakTTS(voice, rate_wpm=rate_wpm, pitch=pitch, word_gap_ms=word_gap_ms)
        self.sample_rate = self.engine.sample_rate

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        if not (text or "").strip():
            return self.engine.synthesize("")
        return self.engine.synthesize(accent_phonemes(text, self.accent), phonemes=True)

    def __repr__(self) -> str:
        return f"AccentedTTS({self.accent.name!r}, {self.engine!r})"
