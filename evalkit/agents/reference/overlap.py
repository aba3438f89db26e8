"""When the reference agent, talking, hears the caller over itself: keep talking or yield (issue 31).

The rule is the one a careful person on the phone follows, from two things it can tell about what it heard: how long
the speech lasted and what it clearly said. Not from how confident its ear was: a one-word clip is decoded with low
confidence by any small ASR whatever the word ("okay" as much as "stop"), so confidence cannot tell them apart.

- Nothing intelligible, or speech well below the caller's own level (an aside to someone in the room, the caller
  turned away): keep talking. Nothing was said to the agent.
- What it clearly heard asks for the floor: a stop or hold request ("wait", "hold on", "one second"), a negation or a
  repair ("no", "sorry", "actually", "excuse me"), or a question (a question mark in the transcript, or an opening
  question word). Yield, however short: "Wait." is a whole turn.
- Speech that lasts as long as a turn (:data:`TURN_MS` of voice or more) and is not only acknowledgement words:
  yield. Whatever the ear made of it, the caller is saying something; a listener's backchannels are shorter (most
  acknowledgements last a few hundred milliseconds).
- Anything else is brief and asks for nothing: an acknowledgement ("mm-hm", "okay", "I see"), or a short sound the
  agent cannot place as a request (a one-word clip its ear misheard). Keep talking, as a person does through a
  "mm-hm" they half caught; if it was a request the caller will say it again, longer.

The words below are general English discourse markers of taking the floor and of acknowledging, not a caller's
phrase list: the rule is measured on phrases no evalkit caller says (``scripts/bench_overlap.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from evalkit.speech.vad import frame_levels_db

TURN_MS = 1000.0  # voiced speech this long or longer is a turn, not a backchannel
ASIDE_BELOW_CALLER_DB = 8.0  # this far below the caller's own level: not said into the phone
# Listener acknowledgements (a speaker goes on after them); a long string of only these is still a backchannel.
ACKNOWLEDGEMENTS = frozenset(
    {"mm-hm", "mm-hmm", "mhm", "mm", "hm", "hmm", "uh-huh", "uh", "huh", "um", "yeah", "yes", "yep", "ok", "okay",
     "right", "sure", "alright", "all", "i", "see", "got", "it", "oh", "ah", "great", "good", "fine", "cool"}
)  # fmt: skip
# Asking for the floor: a stop or hold request, a negation or repair (matched as whole words or word sequences).
FLOOR_CUES = ("wait", "stop", "hold on", "hang on", "hold up", "one second", "one moment", "a second", "a moment",
              "no", "nope", "sorry", "excuse me", "pardon", "actually")  # fmt: skip
QUESTION_OPENERS = frozenset(
    {"what", "why", "how", "when", "where", "who", "which", "can", "could", "would", "will", "do", "does", "did",
     "is", "are", "should"}
)  # fmt: skip
_WORDS = re.compile(r"[a-z'-]+")
FRAME_MS = 20.0
VOICED_BELOW_PEAK_DB = 30.0  # a frame is voiced within this of the clip's loudest ...
VOICED_ABOVE_FLOOR_DB = 10.0  # ... and this above its quietest tenth (the line's bed, if any)


@dataclass(frozen=True)
class Overlap:
    """What the agent can tell about speech it heard over itself."""

    heard: str  # its ear's transcript
    voiced_ms: float  # from the first to the last voiced frame
    level_dbfs: float  # the speech's level
    caller_dbfs: float | None = None  # the caller's turns' level (None: not heard one yet)


def words_of(text: str) -> list[str]:
    return [w.strip("-'") for w in _WORDS.findall(text.lower()) if w.strip("-'")]


def asks_for_floor(heard: str) -> bool:
    """A stop or hold request, a negation or repair, or a question, in what the ear heard."""
    words = words_of(heard)
    if not words:
        return False
    joined = f" {' '.join(words)} "
    if any(f" {cue} " in joined for cue in FLOOR_CUES):
        return True
    return "?" in heard or words[0] in QUESTION_OPENERS


def keeps_talking(overlap: Overlap) -> bool:
    """True: talk through it (a backchannel, an aside, a brief sound asking nothing); False: yield (module
    docstring)."""
    words = words_of(overlap.heard)
    if not words:
        return True
    if overlap.caller_dbfs is not None and overlap.level_dbfs < overlap.caller_dbfs - ASIDE_BELOW_CALLER_DB:
        return True
    if asks_for_floor(overlap.heard):
        return False
    return overlap.voiced_ms < TURN_MS or all(w in ACKNOWLEDGEMENTS for w in words)


def voiced_ms(samples: np.ndarray, rate: int) -> float:
    """How long a clip's speech lasts: first to last 20 ms frame within 30 dB of its loudest, 10 dB over its
    quietest tenth (a bed under the speech is not speech) and above -60 dBFS; 0 when silent."""
    level = frame_levels_db(samples, rate, FRAME_MS)
    if level.size == 0:
        return 0.0
    floor = float(np.percentile(level, 10))
    voiced = np.flatnonzero(level >= max(level.max() - VOICED_BELOW_PEAK_DB, floor + VOICED_ABOVE_FLOOR_DB, -60.0))
    return 0.0 if voiced.size == 0 else float((voiced[-1] - voiced[0] + 1) * FRAME_MS)
