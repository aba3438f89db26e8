"""What the agent's ASR made of the user's speech: STT WER (jiwer) and key-entity transcription accuracy.

Both compare a user turn's intended text with what the agent heard, after the same normalisation
(numbers, spelled codes, punctuation), so they measure hearing and not formatting. Turns the agent never
heard (the final goodbye after ``end_call``) are left out.
"""

from __future__ import annotations

import jiwer

from evalkit.metrics.base import Metric
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue
from evalkit.textnorm import normalize_for_wer


def _heard_pairs(conversation: Conversation) -> list[tuple[str, str]]:
    return [
        (normalize_for_wer(t.intended_text), normalize_for_wer(t.heard_text or ""))
        for t in conversation.user_turns
        if t.heard_text is not None
    ]


def user_wer(conversation: Conversation) -> MetricValue:
    pairs = [(ref, hyp) for ref, hyp in _heard_pairs(conversation) if ref]
    if not pairs:
        return MetricValue(name="user_wer", score=None, details={"reason": "no user turn was heard"})
    refs, hyps = zip(*pairs, strict=True)
    out = jiwer.process_words(list(refs), list(hyps))
    return MetricValue(
        name="user_wer",
        score=float(out.wer),
        details={
            "turns": len(pairs),
            "substitutions": out.substitutions,
            "deletions": out.deletions,
            "insertions": out.insertions,
            "reference_words": sum(len(r.split()) for r in refs),
        },
    )


def _contains(haystack: str, needle: str) -> bool:
    return f" {needle} " in f" {haystack} "


def key_entity_accuracy(conversation: Conversation) -> MetricValue:
    """Share of spoken key-entity mentions that reached the agent intact (an exact, judge-free stand-in for
    EVA-Bench's judge-based 'Transcription Accuracy (Key Entities)', App. E.6 / M.9)."""
    checks: list[dict[str, object]] = []
    for ref, hyp in _heard_pairs(conversation):
        for name, value in conversation.key_entities.items():
            entity = normalize_for_wer(value)
            if entity and _contains(ref, entity):
                checks.append({"entity": name, "value": value, "heard": hyp, "correct": _contains(hyp, entity)})
    if not checks:
        return MetricValue(name="key_entity_accuracy", score=None, details={"reason": "no key entity was spoken"})
    correct = sum(bool(c["correct"]) for c in checks)
    return MetricValue(
        name="key_entity_accuracy", score=correct / len(checks), details={"mentions": checks, "correct": correct}
    )


METRICS = (
    Metric(
        name="user_wer",
        kind="deterministic",
        source="EVA-Bench App. E.6 (STT WER via jiwer)",
        inputs=("turns[user].intended_text", "turns[user].heard_text"),
        fn=user_wer,
        lower_is_better=True,
    ),
    Metric(
        name="key_entity_accuracy",
        kind="proxy",  # the paper's Transcription Accuracy (Key Entities) is an LLM judge (M.9); this is exact match
        source="EVA-Bench App. E.6 / M.9 (exact-match stand-in for the judge)",
        inputs=("turns[user].intended_text", "turns[user].heard_text", "key_entities"),
        fn=key_entity_accuracy,
    ),
)

register_all(METRICS, __name__)
