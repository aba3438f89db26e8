"""Agent speech fidelity, deterministic proxy of EVA-Bench App. E.4.3 (the paper uses an audio-LLM judge).

Question (E.4.3): does the agent's audio say the entities it intended? Here the cell transcribes every assistant
clip with an ASR (stored in the assistant turn's ``heard_text``; the metric never runs a speech engine) and each
assistant turn is rated 1 when every entity of its intended text (codes, flight numbers, amounts, times, dates, key
entity values; see ``evalkit.metrics.entities``) appears intact in the transcript, else 0. As in the paper's S2S
variant, turns that speak no entity are excluded from numerator and denominator (``has_entities: false``). Score =
mean over rated turns; pass iff >= 0.95 (E.4.3 threshold).

Known differences from the judge: an ASR error on the *listener's* side also fails a turn (the proxy cannot tell a
garbled TTS from a weak ASR), and non-entity wording errors are not rated. The per-turn transcript and the missing
entities are kept in the details. Enable with ``metrics=[...,speech_fidelity_proxy]``: it makes the cell run the ASR
on the assistant audio too (roughly doubles ASR time per conversation).
"""

from __future__ import annotations

from typing import Any

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.entities import contains, spoken_entities, tokens
from evalkit.records import Conversation, MetricValue

NAME = "speech_fidelity_proxy"
THRESHOLD = 0.95  # App. E.4.3 pass threshold
NEEDS_ASSISTANT_ASR = "assistant_asr"


def speech_fidelity_proxy(conversation: Conversation) -> MetricValue:
    assistant = [t for t in conversation.turns if t.role == "assistant"]
    if assistant and all(t.heard_text is None for t in assistant):
        return unscored(NAME, "assistant audio was not transcribed (the cell runs the ASR only when this is selected)")
    rows: list[dict[str, Any]] = []
    for turn in assistant:
        if turn.heard_text is None:
            continue
        entities = spoken_entities(turn.intended_text, conversation.key_entities)
        if not entities:
            continue  # has_entities: false
        heard = tokens(turn.heard_text)
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
        return unscored(NAME, "no assistant turn spoke an entity")
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
