"""Text normalization so that WER measures *hearing*, not formatting.

Whisper writes "$75", "1:00 PM", "WK2EXB", "I'd like"; scenario references may say "75 dollars",
"one PM", "W K 2 E X B".  Both sides go through ``normalize_for_wer`` and the canonical form is:

* lowercase, punctuation removed; apostrophes are kept only *inside* words ("don't", "i'm")
  because contractions are one spoken word and Whisper emits them consistently;
* every number is spelled as **space-separated single digits**: "25", "twenty five", "two five"
  all become "2 5".  Spoken codes ("one two three four") and formatted numbers ("1234") then
  agree, and a misheard digit costs one token, not the whole number;
* alphanumeric codes that mix letters and digits are split into single characters, so "WK2EXB",
  "W K 2 E X B", "w-k-2-e-x-b" and "W.K.2.E.X.B" all become "w k 2 e x b".  Pure-letter words are
  never split (they may be real words or acronyms: "BOSTON", "NASA");
* "double u"/"double you" -> "w"; "double X"/"triple X" (X a single letter/digit) -> "x x"/"x x x";
* "oh" is read as the digit 0 only inside a code: after a digit, or before a digit when preceded
  by a single character ("two oh five" -> "2 0 5"; "oh two bags" keeps "oh");
* money: "$75" / "75 dollars" / "seventy five dollars" -> "7 5 dollars"; "$7.50" -> "7 dollars 5 0
  cents"; "dollar"/"cent" are pluralized; "and" between "dollars" and a number is dropped;
* times: "1:00 PM", "1 p.m.", "1pm", "one PM", "one o'clock pm" -> "1 pm"; "1:30" -> "1 3 0";
* ordinals: "3rd", "third" -> "3 th"; "21st", "twenty first" -> "2 1 th";
* "%" -> "percent", "&" -> "and", "@" -> "at"; decimals "2.5" -> "2 point 5".

Not handled (documented limitations): spelled-letter homophones ("see" for C, "to" for 2),
letter O vs digit 0 ("o"), "a hundred", numbers beyond the thousands.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize_for_wer", "wer"]

_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_TEENS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORDINAL_UNITS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
}
_ORDINAL_TEENS = {
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
}
_ORDINAL_TENS = {"twentieth": 20, "thirtieth": 30}
ORDINAL_VALUES = {**_ORDINAL_UNITS, **_ORDINAL_TEENS, **_ORDINAL_TENS}  # shared with evalkit.spoken
_SCALES = {"hundred": 100, "thousand": 1000}
_NUMBER_STARTERS = {*_UNITS, *_TEENS, *_TENS, *_ORDINAL_UNITS, *_ORDINAL_TEENS, *_ORDINAL_TENS}
_CURRENCIES = {"$": "dollars", "€": "euros", "£": "pounds"}
_SUBUNITS = {"dollars": "cents", "euros": "cents", "pounds": "pence"}
_PLURALS = {"dollar": "dollars", "cent": "cents", "euro": "euros", "pound": "pounds"}
_REPEATERS = {"double": 2, "triple": 3}
_ORDINAL_MARK = "th"


# --- character-level passes (before tokenization) ------------------------------------------------


def _unify_characters(text: str) -> str:
    """NFKC + lowercase + ASCII apostrophes/dashes, so later regexes see one spelling of each."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[‘’ʼ`´]", "'", re.sub(r"[‐‑‒–—−]", "-", text))


def _expand_currency(text: str) -> str:
    """ "$75" -> "75 dollars", "$7.50" -> "7 dollars 50 cents": the spoken order puts the unit last."""

    def repl(m: re.Match[str]) -> str:
        unit = _CURRENCIES[m.group(1)]
        whole, cents = m.group(2).replace(",", ""), (m.group(3) or "").ljust(2, "0")
        if cents and int(cents) != 0:
            return f" {whole} {unit} {cents} {_SUBUNITS[unit]} "
        return f" {whole} {unit} "

    return re.sub(r"([$€£])\s?(\d[\d,]*)(?:\.(\d{1,2}))?(?!\d)", repl, text)


def _normalize_number_formatting(text: str) -> str:
    """Thousands separators, clock times, am/pm, ordinal suffixes, decimals, % & @ symbols."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)  # 1,200 -> 1200
    text = re.sub(r"\b(\d{1,2}):00\b", r"\1", text)  # 1:00 -> 1 (spoken "one")
    text = re.sub(r"\b(\d{1,2}):(\d{2})\b", r"\1 \2", text)  # 1:30 -> 1 30 (spoken "one thirty")
    text = re.sub(r"\b([ap])\.\s?m\b\.?", r"\1m", text)  # a.m. / p.m. -> am / pm
    text = re.sub(r"(\d)\s?([ap]m)\b", r"\1 \2", text)  # 1pm -> 1 pm (before code splitting)
    text = re.sub(r"\bo'?clock\b", " ", text)  # "one o'clock" == "1:00" == "1"
    text = re.sub(r"(\d)(?:st|nd|rd|th)\b", rf"\1 {_ORDINAL_MARK}", text)  # 3rd -> 3 th
    text = re.sub(r"(\d)\.(?=\d)", r"\1 point ", text)  # 2.5 -> 2 point 5
    text = text.replace("%", " percent ").replace("&", " and ").replace("@", " at ")
    return re.sub(r"\bper cent\b", "percent", text)


def _strip_punctuation(text: str) -> str:
    """Punctuation -> space; apostrophes survive only between two letters ("don't")."""
    text = re.sub(r"[^\w\s']|_", " ", text)
    return re.sub(r"(?<![^\W\d_])'|'(?![^\W\d_])", " ", text)


# --- token-level passes --------------------------------------------------------------------------


def _read_number(tokens: list[str], start: int) -> tuple[list[str], int]:
    """Parse one spoken number starting at ``tokens[start]``; return (output tokens, next index).

    Only compositions people actually say are merged ("twenty five", "one hundred and five",
    "three thousand two hundred", "twenty first"); adjacent units stay separate numbers so a
    spoken digit string "one two three" stays "1 2 3".
    """
    total, current, last, i = 0, 0, "", start
    ordinal = False
    while i < len(tokens) and not ordinal:
        word = tokens[i]
        if (
            word == "and"
            and last in ("hundred", "thousand")
            and i + 1 < len(tokens)
            and tokens[i + 1] in _NUMBER_STARTERS
        ):
            i += 1
            continue
        if word in _UNITS or word in _ORDINAL_UNITS:
            if last not in ("", "tens", "hundred", "thousand") or (word == "zero" and last):
                break
            current += _UNITS.get(word, _ORDINAL_UNITS.get(word, 0))
            ordinal, last = word in _ORDINAL_UNITS, "unit"
            if word == "zero":
                i += 1
                break
        elif word in _TEENS or word in _ORDINAL_TEENS:
            if last not in ("", "hundred", "thousand"):
                break
            current += _TEENS.get(word, _ORDINAL_TEENS.get(word, 0))
            ordinal, last = word in _ORDINAL_TEENS, "teen"
        elif word in _TENS or word in _ORDINAL_TENS:
            if last not in ("", "hundred", "thousand"):
                break
            current += _TENS.get(word, _ORDINAL_TENS.get(word, 0))
            ordinal, last = word in _ORDINAL_TENS, "tens"
        elif word == "hundred" and last in ("unit", "teen") and current % 100 == current:
            current *= 100
            last = "hundred"
        elif word == "thousand" and last and total == 0:
            total, current, last = (total + current) * 1000, 0, "thousand"
        else:
            break
        i += 1
    out = [str(total + current)]
    if ordinal:
        out.append(_ORDINAL_MARK)
    return out, i


def _words_to_digits(tokens: list[str]) -> list[str]:
    """Replace every spoken number (cardinal or ordinal) with its digits (joined, split later)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in _NUMBER_STARTERS:
            number, i = _read_number(tokens, i)
            out.extend(number)
        else:
            out.append(tokens[i])
            i += 1
    return out


def _canonical_units(tokens: list[str]) -> list[str]:
    """Pluralize currency units and drop "and" in "7 dollars and 50 cents" (the written form lacks it)."""
    out: list[str] = []
    for i, tok in enumerate(tokens):
        tok = _PLURALS.get(tok, tok)
        prev_is_unit = bool(out) and out[-1] in _SUBUNITS
        if tok == "and" and prev_is_unit and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            continue
        out.append(tok)
    return out


def _expand_repeats(tokens: list[str]) -> list[str]:
    """ "double u" -> "w"; "double 5" -> "5 5"; "triple a" -> "a a a" (spelled-code conventions).

    Works right to left so stacked repeaters ("double double 1") resolve in one pass (idempotence).
    """
    out: list[str] = []  # reversed output
    for tok in reversed(tokens):
        nxt = out[-1] if out else ""
        if tok == "double" and nxt in ("u", "you"):
            out[-1] = "w"
        elif tok in _REPEATERS and len(nxt) == 1 and nxt.isalnum():
            out.extend([nxt] * (_REPEATERS[tok] - 1))
        else:
            out.append(tok)
    return out[::-1]


def _split_codes(tokens: list[str]) -> list[str]:
    """Split any token containing a digit into single characters ("wk2exb" -> w k 2 e x b, "25" -> 2 5).

    Digits are the only reliable signal that a token is a code or number rather than a word.
    """
    out: list[str] = []
    for tok in tokens:
        if any(ch.isdigit() for ch in tok):
            out.extend(ch for ch in tok if ch.isalnum())
        else:
            out.append(tok)
    return out


def _oh_to_zero(tokens: list[str]) -> list[str]:
    """Read "oh" as 0 inside codes only: after a digit, or before a digit following a single character."""
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok == "oh":
            prev = out[-1] if out else ""
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if prev.isdigit() or (nxt.isdigit() and len(prev) == 1):
                tok = "0"
        out.append(tok)
    return out


def normalize_for_wer(text: str) -> str:
    """Canonical lowercase token string for WER; see the module docstring for the rules."""
    if not text:
        return ""
    text = _unify_characters(text)
    text = _expand_currency(text)
    text = _normalize_number_formatting(text)
    text = _strip_punctuation(text)
    tokens = text.split()
    tokens = _words_to_digits(tokens)
    tokens = _split_codes(tokens)
    tokens = _expand_repeats(tokens)  # after splitting, so its output never needs splitting again
    tokens = _oh_to_zero(tokens)
    tokens = _canonical_units(tokens)  # last: its "and" rule looks at the final digit tokens
    return " ".join(tokens)


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate on normalized text (jiwer); 0.0 if both are empty, 1.0 if only the reference is."""
    ref, hyp = normalize_for_wer(reference), normalize_for_wer(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    import jiwer

    return float(jiwer.wer(ref, hyp))


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of ``text`` (split after ., ! or ? and whitespace)."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def last_sentence(text: str) -> str:
    """The last sentence of ``text`` (the whole text when it has no sentence break)."""
    spans = sentence_spans(text)
    return text[spans[-1][0] : spans[-1][1]] if spans else text
