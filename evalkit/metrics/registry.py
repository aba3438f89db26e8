"""Metric registry: config names -> pure functions of a Conversation."""

from __future__ import annotations

from collections.abc import Callable

from evalkit.metrics.hearing import key_entity_accuracy, user_wer
from evalkit.metrics.task_completion import task_completion
from evalkit.records import Conversation, MetricValue

MetricFn = Callable[[Conversation], MetricValue]

METRICS: dict[str, MetricFn] = {
    "task_completion": task_completion,
    "user_wer": user_wer,
    "key_entity_accuracy": key_entity_accuracy,
}


def score_conversation(conversation: Conversation, names: list[str]) -> dict[str, MetricValue]:
    """Score one conversation. A crashed conversation is unscored (None), never scored 0 (Inspect's rule)."""
    if conversation.end_reason == "error":
        return {n: MetricValue(name=n, score=None, details={"unscored": conversation.error}) for n in names}
    return {name: METRICS[name](conversation) for name in names}
