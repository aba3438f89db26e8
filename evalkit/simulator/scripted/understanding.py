"""What the scripted caller understands of an agent it has never seen: which of its facts the agent asks for, whether
it asks for a spelling (and how), whether it reads a value back (and whether the value is right), asks what the caller
needs, asks permission, reports the task done or says goodbye.

Nothing here knows evalkit's reference agent. The words come from ``conversation_cues.yaml`` (a table of common field
names and their synonyms, and the usual wordings of each kind of turn); the facts come from the scenario: its
``user_goal.scripted.answers`` (field name -> what to say) and, where the scenario model has them, its ``facts``
(name -> value, with an optional ``spoken`` form and ``aliases``). All functions are pure functions of the agent's
text and the facts, so a caller that uses them replays exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from evalkit.spoken import DIGIT_WORDS, NATO, piece_runs, spell_with_alphabet

CUES_FILE = Path(__file__).with_name("conversation_cues.yaml")
# The scripted caller's yes/no decisions: said when the agent asks for a decision, never as a field its words name.
DECISIONS = frozenset({"confirm", "standby", "refund_instead", "accept_transfer", "accept_also"})
SpellMode = Literal["letters", "grouped", "phonetic", "as_in"]
# "oh" is a zero only inside a spelled number; in free text it is an interjection
SPOKEN_DIGITS = {word: digit for word, digit in DIGIT_WORDS.items() if word != "oh"}


@cache
def cues() -> dict[str, Any]:
    return yaml.safe_load(CUES_FILE.read_text(encoding="utf-8"))


def _words(text: str) -> str:
    """Lower case, punctuation to spaces, one space between words: what cue matching compares."""
    return " ".join(re.findall(r"[a-z0-9']+|\?", text.lower().replace("-", " ")))


def _pattern(phrase: str) -> re.Pattern[str]:
    words = _words(phrase)
    return re.compile(rf"(?<![a-z0-9']){re.escape(words)}(?:'s)?(?![a-z0-9'])")  # "the pet's name" names "pet"


@cache
def _cue_patterns(kind: str) -> tuple[re.Pattern[str], ...]:
    return tuple(_pattern(p) for p in cues()[kind])


def says(text: str, kind: str) -> bool:
    """Whether the agent's text has one of the ``kind`` wordings (``request``, ``done``, ``goodbye``, ...)."""
    words = _words(text)
    return any(p.search(words) for p in _cue_patterns(kind))


def is_question(text: str) -> bool:
    return "?" in text


@dataclass(frozen=True)
class Fact:
    value: str
    spoken: str | None = None
    aliases: tuple[str, ...] = ()


def _fact_of(raw: Any) -> Fact | None:
    """A scenario fact as the scenario model holds it: a plain value, a mapping or an object with ``value``,
    ``spoken`` and ``aliases`` (the shape is read loosely so the caller works with either version of the model)."""
    if raw is None:
        return None
    if isinstance(raw, str | int | float):
        return Fact(str(raw))
    get = raw.get if isinstance(raw, dict) else lambda key, default=None: getattr(raw, key, default)
    value = get("value")
    if value is None:
        return None
    spoken = get("spoken")
    aliases = tuple(str(a) for a in (get("aliases") or ()))
    return Fact(str(value), str(spoken) if spoken else None, aliases)


def scenario_facts(answers: dict[str, str], raw_facts: Any = None) -> dict[str, Fact]:
    """The caller's facts: its ``scripted.answers`` first (what the decision tree says to say), then the scenario's
    ``facts`` where the model has them (their spoken form and aliases are kept for a name also in the answers)."""
    facts = {name: Fact(value) for name, value in answers.items() if name not in DECISIONS}
    for name, raw in (raw_facts or {}).items():
        fact = _fact_of(raw)
        if fact is None:
            continue
        known = facts.get(name)
        facts[name] = Fact(known.value, fact.spoken, fact.aliases) if known is not None else fact
    return facts


def field_terms(name: str, fact: Fact) -> list[str]:
    """The words an agent may use for a fact: its name as words, its aliases, and the built-in synonyms of the
    common field it is (by name, or because its name as words is one of that field's synonyms)."""
    own = name.replace("_", " ").lower()
    terms = [own, *(a.lower() for a in fact.aliases)]
    for canonical, synonyms in cues()["fields"].items():
        group = [canonical.replace("_", " "), *(str(s).lower() for s in synonyms)]
        if any(t in group for t in terms):
            terms.extend(group)
    return list(dict.fromkeys(t for t in terms if t.strip()))


def leftmost_longest(matches: Iterable[tuple[int, int, str]]) -> list[str]:
    """The names of (start, end, name) matches in text order, each once, a match inside an earlier or longer one
    left out ("name" inside "last name" counts for the longer one)."""
    taken_until, names = -1, []
    for start, _, end, name in sorted((start, start - end, end, name) for start, end, name in matches):
        if start < taken_until:
            continue
        taken_until = end
        if name not in names:
            names.append(name)
    return names


@dataclass
class FactBook:
    """The caller's facts and the phrases that name each, for matching the agent's words."""

    facts: dict[str, Fact]
    _patterns: list[tuple[re.Pattern[str], str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name, fact in self.facts.items():
            for term in field_terms(name, fact):
                self._patterns.append((_pattern(term), name))

    def named(self, text: str) -> list[str]:
        """The facts the text names, in the order it names them; a term inside a longer matching one counts for
        the longer one's fact only ("name" inside "last name")."""
        words = _words(text)
        return leftmost_longest((m.start(), m.end(), name) for p, name in self._patterns for m in p.finditer(words))

    def field_for(self, name: str) -> str | None:
        """The fact an act's field name means: the same name, else the fact whose terms include it as words."""
        if name in self.facts:
            return name
        named = self.named(name.replace("_", " "))
        return named[0] if named else None


def spell_mode(text: str) -> SpellMode | None:
    """How the agent asks the caller to spell (None: it does not): with the spelling alphabet ("as in" when it gave
    the "A as in alpha" example), in groups, or plain letters."""
    words = _words(text)
    if says(text, "phonetic"):
        return "as_in" if " as in " in f" {words} " else "phonetic"
    if says(text, "grouped"):
        return "grouped"
    if says(text, "spell"):
        return "letters"
    return None


def spelled(value: str, mode: SpellMode) -> str:
    """A value spelled: "W, K, 2, E, X, B"; grouped in threes ("W K 2... E X B", a ten-digit number 3-3-4); with the
    spelling alphabet ("Whiskey, Kilo, 2, ...") or its letters named ("W as in Whiskey, ...")."""
    chars = [c for c in value.upper() if c.isalnum()]
    if mode == "phonetic":
        return spell_with_alphabet(value, "nato")
    if mode == "as_in":
        return spell_with_alphabet(value, "as_in")
    if mode == "grouped":
        sizes = [3, 3, 4] if len(chars) == 10 else [3] * ((len(chars) + 2) // 3)
        groups, i = [], 0
        for size in sizes:
            groups.append(" ".join(chars[i : i + size]))
            i += size
        return "... ".join(g for g in groups if g)
    return ", ".join(chars)


def compact(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", value).upper()


def is_spelled_value(value: str) -> bool:
    """A value compared character by character: it has a digit, or it is one word in capitals (a code). A date
    ("1985-03-03") or digits among words ("March 3, 2026", "11 AM tomorrow") are compared by what they say."""
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) or (" " in text and re.search(r"[A-Za-z]{2,}", text)):
        return False
    flat = compact(text)
    return bool(flat) and (any(c.isdigit() for c in flat) or (text.isupper() and " " not in text))


def _piece(token: str) -> str | None:
    """A token of a spelled or written code: a capital or a digit, a spelling-alphabet word, a digit word, a code
    written whole ("WK2EXB", "555-0134")."""
    low = token.lower()
    if low in NATO:
        return NATO[low]
    if low in SPOKEN_DIGITS:
        return SPOKEN_DIGITS[low]
    if re.fullmatch(r"[A-Z0-9]", token) or re.fullmatch(r"[A-Z0-9]*\d[A-Z0-9]*|[A-Z]{2,}", token):
        return token
    return None


def code_runs(text: str) -> list[str]:
    """Every run of code pieces in the text, joined ("W as in Whiskey K 2" -> "WK2"; "as in" and its letter count
    once)."""
    text = re.sub(r"\b[A-Za-z]\s+as\s+in\s+", "", text)
    return piece_runs(re.findall(r"[A-Za-z0-9]+", text), _piece)


def read_back_of(text: str, truth: str) -> str | None:
    """The code run of the text most like ``truth`` (same length first, then most characters in place): what the
    agent read back of it. None: the text has no code in it."""
    target = compact(truth)

    def likeness(run: str) -> tuple[bool, bool, int]:
        hits = sum(a == b for a, b in zip(run, target, strict=False))
        return (run == target, len(run) == len(target), hits - abs(len(run) - len(target)))

    runs = [r for r in code_runs(text) if len(r) >= 2 or len(target) <= 2]
    return max(runs, key=likeness) if runs else None


def mentions_value(text: str, fact: Fact) -> bool:
    """Whether the text says the value (or its spoken form) as words: "Brooks", "March 3rd, 1985", "window"."""
    words = f" {_words(text)} "
    return any(f" {_words(v)} " in words for v in (fact.value, fact.spoken) if v and _words(v))


ONE_OF = re.compile(r"(?:help with|is it:?|say)\s+(.+?)(?:[.?]|$)", re.IGNORECASE)


def closest_offered(question: str, wanted: str) -> str | None:
    """The one of the things a question lists ("... cancellation refund or voluntary change. Which one is it?") that
    shares the most words with what the caller wants (its request and goal), as a person picks; None when the
    question lists none or two fit equally."""
    listed = ONE_OF.search(question)
    if listed is None:
        return None
    options = [o.strip() for o in re.split(r",\s*(?:or\s+)?|\s+or\s+", listed.group(1)) if o.strip()]
    stems = {w[:5] for w in re.findall(r"[a-z]+", wanted.lower()) if len(w) > 2}
    fits = [(len({w[:5] for w in re.findall(r"[a-z]+", o.lower())} & stems), o) for o in options]
    best = max((n for n, _ in fits), default=0)
    chosen = [o for n, o in fits if n == best]
    return chosen[0] if best and len(chosen) == 1 else None
