"""Agent speech fidelity, deterministic proxy of EVA-Bench App. E.4.3 (the paper uses an audio-LLM judge).

Question (E.4.3): does the agent's audio say the entities it intended? Here the cell transcribes every assistant
clip with an ASR (stored in the assistant turn's ``heard_text``; the metric never runs a speech engine) and each
assistant turn is rated 1 when every entity of its intended text (codes, flight numbers, amounts, times, dates, key
entity values; see ``evalkit.metrics.entities``) appears intact in the transcript, else 0. As in the paper's S2S
variant, turns that speak no entity are excluded from numerator and denominator (``has_entities: false``). Score =
mean over rated turns; pass iff >= 0.95 (E.4.3 threshold).

The ASR is *prompted with the turn's intended text* (Whisper ``initial_prompt``; :func:`assistant_asr_prompt`), the
analogue of the M.3 judge, which hears the audio knowing what the agent meant to say. Without it Whisper tiny.en
writes eSpeak's spelled codes as words ("W K 2 E X B" -> "not okay to be XB") and the proxy failed every turn, so
``eva_a_proxy`` could never pass. Measured with tests/test_metrics_speech_fidelity.py (eSpeak agent audio, 12
spelled confirmation codes + 6 flight numbers; corrupted audio = the TTS fed the entity with one character
substituted, e.g. intended "W K 2 E X B", spoken "W K 7 E X B"; tiny.en int8, greedy):

=========== ============================ =====================================
prompt mode hit rate (correct audio -> 1) detection rate (corrupted audio -> 0)
=========== ============================ =====================================
none        0.11                         0.94 (meaningless: it fails nearly all)
format      0.06                         1.00 (a fixed example, no values)
hotwords    0.39                         0.83
intended    **1.00**                     **0.72** (default)
=========== ============================ =====================================

The prompt does bias Whisper: in 5 of 18 corrupted clips (all 6-character codes, 7/12 codes detected; all 6 flight
numbers detected) it "heard" the intended code, mostly a substituted letter early in the code (L->O, D->T, G->Z,
K->R, N->W). So the proxy is lenient: a pass is weak evidence, a fail is strong evidence (it never failed correct
audio here). ``intended`` is still the best of the variants by hit + detection (1.72 vs <= 1.22) and the only one
under which ``eva_a_proxy`` can pass at all.

Two details keep the match about the audio rather than the transcript's formatting: Whisper's "8.15 AM" (and "815 AM",
"8-15 AM", "8 15 AM") is read as "8:15 AM" (:func:`undot_clock_times`; another hour or minute stays a miss), and
offline the cell transcribes only the agent turns that speak an entity (the only ones rated; about half the agent
audio). On the main job's clean cell the mean proxy score went from 0.0
(unprompted) to 0.71; no conversation reaches the 0.95 pass line yet, because tiny.en still mishears some of
eSpeak's entities (e.g. "eight fifteen" -> "8.50", trailing code characters dropped): that is the listener's limit,
which the proxy cannot separate from a TTS fault. Re-measured for issue 17.3 (7 scenarios × 2 trials, clean): the
conversations whose task succeeded scored 0.43–0.92, every miss a listener error on audio the agent spoke right
(eSpeak's "eight fifteen AM" is "eight fifty AM" to tiny.en even when the TTS input is the words themselves; a
repeated letter of a spelled code dropped); beam search (5) instead of greedy decoding did not help (1 of 5
conversations passed greedy, 0 of 5 with beam 5). Rating every agent turn, as E.4.3's cascade variant does, would
not lift any of them over 0.95 either (one miss in 14-16 turns). The threshold and the rating follow E.4.3;
tests/test_eva_a_proxy.py shows a conversation heard right passes, 19/20 passes and 18/19 does not.

Issue 17.3, second round: the local agent's TTS is fed :func:`evalkit.spoken.speakable` of its text (pauses between
spelled characters, airport codes letter by letter, "SK 4 18", "A M"; the intended text, which this metric, the
caller and every other metric read, is unchanged), and the clock-time separators above are accepted. On the main job's
clean cell (7 × 2, with that round's agent: task completion 0.43 -> 0.79) ``eva_a_proxy`` went from 0/14 to 3/14
passes (speech fidelity of the TC-passing conversations 0.43-0.89 -> 0.62-1.0). On 30 real agent turns
(``scripts/bench_agent_speech.py``): hit rate 23/30 -> 24/30, detection of a one-character substitution in a spelled
code 14/24 -> 16/24. The misses left are the listener's: "8:15" heard "8.50", a doubled letter ("M M") heard once,
"SK530" heard "SK330".

Known differences from the judge: an ASR error on the *listener's* side also fails a turn (the proxy cannot tell a
garbled TTS from a weak ASR), and non-entity wording errors are not rated. The per-turn transcript and the missing
entities are kept in the details. Enable with ``metrics=[...,speech_fidelity_proxy]``: it makes the cell run the ASR
on the assistant audio too (see conf/experiment/eva_full.yaml for the cost).
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.entities import contains, spoken_entities, tokens
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "speech_fidelity_proxy"
# How the cell's assistant-ASR step is prompted (see assistant_asr_prompt); "intended" is the default.
ASR_PROMPT_MODES = ("none", "format", "intended", "hotwords")
DEFAULT_ASR_PROMPT_MODE = "intended"
# A format-only prompt: shows Whisper how spelled codes and flight numbers are written, with values that are not
# the agent's, so it cannot bias the transcript towards the intended entity.
FORMAT_PROMPT = "I have Q J 4 R T 8. Flight SK 208 leaves at 9 AM."
# Whisper writes a spoken clock time "eight fifteen AM" as "8.15 AM", "8-15 AM", "8 15 AM" or "815 AM"; the intended
# text says "8:15 AM". Only the separator differs: the hour and minutes must be the ones said.
_DOTTED_CLOCK = re.compile(r"\b(1[0-2]|0?[1-9])(?:[.\- ]?)([0-5]\d)(?=\s*[ap]\.?\s?m\b)", re.IGNORECASE)


def undot_clock_times(text: str) -> str:
    """'8.15 AM', '8-15 AM', '815 AM' -> '8:15 AM': a transcript's formatting choice, not something the audio said
    differently ('8.50 AM' stays 8:50, a miss for 8:15)."""
    return _DOTTED_CLOCK.sub(r"\1:\2", text)


THRESHOLD = 0.95  # App. E.4.3 pass threshold
NEEDS_ASSISTANT_ASR = "assistant_asr"


def assistant_asr_prompt(intended_text: str, mode: str = DEFAULT_ASR_PROMPT_MODE) -> dict[str, str]:
    """Keyword arguments for ``WhisperASR.transcribe`` when transcribing an agent clip whose intended text is known.

    Pure (no speech engine here): the cell calls it and passes the result to its ASR. ``intended`` gives the intended
    text as Whisper's ``initial_prompt`` (the analogue of the M.3 judge, which sees the intended text beside the
    audio); ``hotwords`` gives only the intended entity spans as faster-whisper hotwords; ``format`` a fixed example
    of the entity format without the agent's values; ``none`` no prompt.
    """
    if mode not in ASR_PROMPT_MODES:
        raise ValueError(f"unknown assistant ASR prompt mode {mode!r}; choose one of {ASR_PROMPT_MODES}")
    if mode == "intended":
        return {"prompt": intended_text}
    if mode == "hotwords":
        spans = spoken_entities(intended_text)
        return {"hotwords": " ".join(" ".join(s).upper() for s in spans)} if spans else {}
    if mode == "format":
        return {"prompt": FORMAT_PROMPT}
    return {}


def has_entities(text: str, key_entities: dict[str, str] | None = None) -> bool:
    """Does an assistant turn speak an entity? Only those turns are rated, so only those need the agent-audio ASR."""
    return bool(spoken_entities(text, key_entities))


def speech_fidelity_proxy(conversation: Conversation) -> MetricValue:
    with_entities = [
        (t, spoken_entities(t.intended_text, conversation.key_entities))
        for t in conversation.turns
        if t.role == "assistant"
    ]
    with_entities = [(t, e) for t, e in with_entities if e]  # has_entities: false turns are not rated
    if not with_entities:
        return unscored(NAME, "no assistant turn spoke an entity")
    rows: list[dict[str, Any]] = []
    for turn, entities in with_entities:
        if turn.heard_text is None:
            continue
        heard = tokens(undot_clock_times(turn.heard_text))
        missing = [" ".join(e) for e in entities if not contains(heard, e)]
        rows.append(
            {
                "turn": turn.index,
                "intended": turn.intended_text,
                "transcript": turn.heard_text,
                "entities": [" ".join(e) for e in entities],
                "missing": missing,
                "rating": int(not missing),
            }
        )
    if not rows:
        return unscored(NAME, "assistant audio was not transcribed (the cell runs the ASR only when this is selected)")
    score = sum(r["rating"] for r in rows) / len(rows)
    return value(NAME, score, THRESHOLD, turns=rows, rated_turns=len(rows))


METRICS = (
    Metric(
        name=NAME,
        kind="proxy",
        source="EVA-Bench App. E.4.3 (proxy for the LALM judge)",
        inputs=("turns[assistant].intended_text", "turns[assistant].heard_text (ASR of agent audio)", "key_entities"),
        fn=speech_fidelity_proxy,
        threshold=THRESHOLD,
        needs=frozenset({NEEDS_ASSISTANT_ASR}),
        description="entity-level match between the agent's intended text and an ASR transcript of its audio",
    ),
)

register_all(METRICS, __name__)
