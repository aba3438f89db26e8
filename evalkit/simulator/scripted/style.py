"""How a persona changes what the scripted caller says (EVA-Bench App. G.2, MM-tau-p2 persona levels).

The scripted simulator decides *what* to answer from the decision tree; a ``PersonaStyle`` decides *how* it is
said: terse with CAPS and frustration, slow with ellipses and spelled codes, disfluent with self-corrections.
Every choice draws from the conversation's seeded rng, so a (cell seed, scenario, trial) replays exactly. The knobs
are a ``PersonaSpec`` (``evalkit.simulator.persona``, shared by every caller); this rendering is the scripted
caller's own.

The one hard rule: a styled turn must still carry its information in a form the caller means. Fillers never
contain numbers, ordinals, negations ("no", "not", "wait"), or intent words, a self-corrected code always ends
with the right code, and no CAPS word is put into a turn that carries a code (a CAPS word next to a spelled
code would read as more characters of it). tests/test_personas.py checks this against the agent's own parsers.
"""

from __future__ import annotations

import re

import numpy as np

from evalkit.simulator.paraphrase import Paraphraser
from evalkit.simulator.persona import PersonaSpec, is_code
from evalkit.spoken import spell_code, spell_with_alphabet

SEARCH_FILLERS = (
    "Um... let me find that...",
    "Hold on... let me look for it...",
    "Uh... where did I put it... okay...",
    "Hmm, let me think... I have it here somewhere...",
)
# No "right" in a filler: the agent's ordinal parser hears it as "eighth".
FILLERS = ("Um...", "Uh...", "Hmm, let me think...", "Oh... um...", "Uh, hold on...")
FRUSTRATION = (
    "Ugh, I already told you.",
    "Come on, this is taking forever.",
    "Why is this taking so long?",
    "Seriously? Hurry it up.",
)
REPEAT_REQUESTS = (
    "Sorry dear... could you say that again... more slowly?",
    "I'm sorry... I didn't quite follow... could you repeat that... slowly?",
)
VAGUE = (
    "Hmm... where would I find that?",
    "Oh... I'm not sure I have that to hand...",
)
PLEASANTRIES = (r",? please\b", r"\bPlease,? ", r",? thank you\b", r"\bThank you,? ", r"\bThanks,? ")

LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def say_code_list(value: str) -> str | None:
    """A list of codes said one by one, each spelled as a single code is, the last after "and": 'PRV-ONC-009 and
    PRV-ONC-006' -> 'P R V - O N C - 0 0 9 and P R V - O N C - 0 0 6', 'GRP-A1, GRP-B2, GRP-C3' -> '..., ... and
    ...'. None when ``value`` is not a list of two or more codes (a single code is spelled by ``PersonaStyle.code``)."""
    items = [item for item in LIST_SEPARATOR.split(value.strip().rstrip(".")) if item]
    if len(items) < 2 or not all(is_code(item) for item in items):
        return None
    spelled = [spell_code(item) for item in items]
    return f"{', '.join(spelled[:-1])} and {spelled[-1]}"


def _wrong_version(code: str, rng: np.random.Generator) -> str:
    """The code with one character swapped for another of the same kind: the slip a caller then corrects."""
    position = int(rng.integers(len(code)))
    pool = "0123456789" if code[position].isdigit() else "ABCDEFGHJKLMNPRSTUVWXYZ"
    pool = pool.replace(code[position], "")
    return code[:position] + pool[int(rng.integers(len(pool)))] + code[position + 1 :]


def said_characters(value: str, doubles: bool = False) -> list[str]:
    """A code's characters as said one by one; with ``doubles`` a digit said twice in a row is "double 9"."""
    chars = list(value.upper())
    if not doubles:
        return chars
    out: list[str] = []
    i = 0
    while i < len(chars):
        pair = chars[i].isdigit() and i + 1 < len(chars) and chars[i + 1] == chars[i]
        out.append(f"double {chars[i]}" if pair else chars[i])
        i += 2 if pair else 1
    return out


def _with_pauses(text: str) -> str:
    """'Yes, please go ahead.' -> 'Yes... please go ahead...': the elderly caller's phrasing."""
    text = re.sub(r",\s+", "... ", text.strip())
    return re.sub(r"[.!?]*$", "...", text, count=1)


class PersonaStyle:
    """Renders the scripted simulator's answers in a persona's manner; identity for the default persona."""

    def __init__(self, spec: PersonaSpec | None = None, rng: np.random.Generator | None = None) -> None:
        self.spec = spec or PersonaSpec()
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.repeat_requests = 0
        self.vague_fields: set[str] = set()
        # Wording and timing draw from streams of their own, spawned from the conversation's (no draw taken from
        # it), so the behaviour draws above replay exactly as they did before trials varied.
        wording, self.timing = self.rng.spawn(2)
        self.words = Paraphraser(wording if self.spec.paraphrase else None)

    def reaction_jitter(self) -> float | None:
        """This turn's offset from the simulator's reaction time (None: the persona does not vary it)."""
        jitter = self.spec.reaction_jitter_ms
        return float(self.timing.uniform(-jitter, jitter)) if jitter > 0 else None

    def _chance(self, p: float) -> bool:
        # Draw only when the knob is on, so the default persona consumes no randomness.
        return p > 0 and bool(self.rng.random() < p)

    def _pick(self, options: tuple[str, ...]) -> str:
        return options[int(self.rng.integers(len(options)))]

    # -- what is said ------------------------------------------------------------------------------------------
    def opening(self, text: str) -> str:
        spec = self.spec
        if spec.pauses:
            return "Hello... " + _with_pauses(text)
        if self._chance(spec.disfluency):
            return f"{self._pick(FILLERS)} {text}"
        if spec.caps > 0:
            return f"{self._caps(self._curt(text))} And make it QUICK."
        return self.words.opening(text)

    def vague_first(self, field: str, value: str) -> str | None:
        """MM-tau-p2 'hard' level: the first request for a code or a date gets a vague non-answer."""
        if self.spec.level != "hard" or field in self.vague_fields:
            return None
        if not (is_code(value) or re.search(r"\d", value)):
            return None
        self.vague_fields.add(field)
        return self._pick(VAGUE)

    def code(
        self,
        field: str,
        value: str,
        attempt: int,
        stalled: bool,
        slowly: bool = False,
        doubles: bool = False,
        alphabet: bool = False,
    ) -> str:
        """A code answer: spelled (with pauses, searched for, slipped and corrected) per the persona. A repeat is
        spelled with a pause after each character (commas): said otherwise than the first time, as a person does.
        ``slowly``: the agent asked to hear it slowly, one character at a time, and the caller does so, pausing
        after each. ``doubles``: a digit string, whose repeated digit is said "double 9", as callers read phone
        numbers (tiny.en hears "9 9 8" as "9 8" in 4 of 6 top transcripts, "double 9 8" as "double 9 8" in 6 of 6).
        ``alphabet``: the agent asked for the phonetic alphabet; a code with letters is spelled the persona's way."""
        spec = self.spec
        # the levels' own labels are part of what a level is (for a code spelled plainly or with the alphabet)
        level_label = {"easy": f"the {field.replace('_', ' ')} is", "hard": "I think it's"}.get(spec.level)
        if alphabet and any(c.isalpha() for c in value):
            # asked for the phonetic alphabet (EVA-Bench App. K: a misheard code is spelled with it)
            lead = level_label or "it's"
            text = f"{lead} {self.alphabet(value)}."
            return text[0].upper() + text[1:]
        if slowly and not spec.pauses:
            return "It's... " + "... ".join(said_characters(value, doubles)) + "..."
        chars = said_characters(value, doubles)
        spelled = " ".join(chars) if attempt == 1 else ", ".join(chars)
        label = level_label or self.words.code_label("it's")  # only the plain "it's" is reworded
        if spec.pauses:
            return f"Let me see... {label}... " + "... ".join(chars) + "..."
        parts: list[str] = []
        if spec.frustration and stalled:
            parts.append(self._pick(FRUSTRATION))  # no CAPS: they would join the spelled code
        if self._chance(spec.disfluency):
            parts.append(self._pick(SEARCH_FILLERS))
        if attempt == 1 and self._chance(spec.self_correct):
            wrong = spell_code(_wrong_version(value.upper(), self.rng))
            parts.append(f"{label} {wrong}... oh wait, sorry, actually {label} {spelled}.")
        else:
            parts.append(f"{label} {spelled}.")
        text = " ".join(parts)
        return text[0].upper() + text[1:]

    def alphabet(self, value: str) -> str:
        """A code spelled for a listener who misheard it, in the persona's ``spelling`` (``spell_with_alphabet``)."""
        return spell_with_alphabet(value, self.spec.spelling)

    def answer(self, field: str, text: str, stalled: bool = False, rephrase: str | None = None) -> str:
        """A non-code answer (a name, a date, a seat): labelled (easy), paused, hesitant or curt. ``rephrase``
        ("keep" or "lower": the first letter's case after a prefix) lets a paraphrase put words before it."""
        spec = self.spec
        if spec.level == "easy":
            text = f"The {field.replace('_', ' ')} is {text}"
        elif rephrase is not None:
            text = self.words.answer(text, lower=rephrase == "lower")
        return self.reply(text, stalled=stalled, emphasis=False)  # a name or a date is never shouted in CAPS

    def _curt(self, text: str) -> str:
        """The terse persona drops pleasantries ('please', 'thank you')."""
        if not self.spec.terse:
            return text
        for pattern in PLEASANTRIES:
            text = re.sub(pattern, "", text)
        return re.sub(r"(^|[.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), text.strip()) or "Fine."

    def reply(self, text: str, stalled: bool = False, emphasis: bool = True) -> str:
        """Any other turn: confirmations, choices, corrections, closings."""
        spec = self.spec
        text = self._curt(self.words.sentence(text))
        if spec.pauses:
            return _with_pauses(text)
        if emphasis and self._chance(spec.caps):
            text = self._caps(text)
        if spec.frustration and stalled:
            text = f"{self._caps(self._pick(FRUSTRATION))} {text}"
        if self._chance(spec.disfluency):
            text = f"{self._pick(FILLERS)} {text}"
        return text

    def ask_repeat(self) -> str | None:
        """Elderly: now and then ask the agent to repeat an offer; None when not this turn."""
        if self.repeat_requests >= self.spec.max_repeat_requests or not self._chance(self.spec.ask_repeat):
            return None
        self.repeat_requests += 1
        return self._pick(REPEAT_REQUESTS)

    # -- helpers ---------------------------------------------------------------------------------------------
    def _caps(self, text: str) -> str:
        """Stress one plain word (4+ letters, no digit nearby, not a code or a name) in CAPITALS."""
        words = text.split(" ")
        candidates = [
            i
            for i, w in enumerate(words)
            if re.fullmatch(r"[A-Za-z']{4,}[.,!?]?", w)
            and not w.isupper()
            and not any(re.search(r"\d", n) for n in words[max(0, i - 1) : i + 2])
            and not (w[:1].isupper() and i > 0)  # keep proper names as they are
        ]
        if not candidates:
            return text
        index = candidates[int(self.rng.integers(len(candidates)))]
        words[index] = words[index].upper()
        return " ".join(words)


def as_offered(value: str, question: str) -> str:
    """A choice said as the question offered it ("macos" -> "macOS" where the agent asked "macOS or Windows?"), as a
    caller repeats the option it heard; else the value with its underscores as spaces ("read_only" -> "read only")."""
    plain = re.sub(r"[\s_-]", "", value).lower()
    words = re.findall(r"[\w'-]+", question)
    spans = [" ".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)]  # "List A"
    offered = next((w for w in spans if re.sub(r"[\s_-]", "", w).lower() == plain), None)
    return offered or value.replace("_", " ")
