"""Conversation progression, deterministic proxy of EVA-Bench App. E.5.1 (the paper uses an LLM judge).

The judge rates four dimensions 1-3 and combines them count-aware: 3 if no dimension is flagged; 2 if one or two
are flagged at 2 and none is 1; 1 if any is 1 or three or more are flagged. Score = (r - 1) / 2, pass iff >= 0.5.
This proxy rates the two dimensions the rubric defines by observable events, with the rubric's own counts
(2 = a single isolated issue, 1 = multiple instances of the same type):

- ``unnecessary_tool_calls``: the same tool with the same arguments after a successful earlier response, or a call
  rejected for missing/invalid arguments (E.5.1's "predictable error"); three or more force rating 1 (E.5.1).
- ``redundant_statements``: a sentence the agent already said in an earlier non-final turn, said again (the single
  final recap is allowed, so the last assistant turn is not counted). Re-asks right after the user's turn was
  misheard are the voice carve-out and are not counted either: only statements, not questions, are compared.

``information_loss`` and ``question_quality`` need understanding and are reported as ``not_rated``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalkit.metrics.base import Metric, value
from evalkit.metrics.entities import tokens
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "conversation_progression_proxy"
THRESHOLD = 0.5  # App. E.5.1: rating >= 2
FORCE_LOWEST_UNNECESSARY = 3  # App. E.5.1: "three or more unnecessary tool calls" -> lowest level
PREDICTABLE_ERRORS = ("invalid_arguments", "unknown_tool")


def dimension_rating(issues: int) -> int:
    """E.5.1 scale: 3 no issue; 2 a single isolated issue; 1 multiple instances."""
    return 3 if issues == 0 else 2 if issues == 1 else 1


def overall_rating(ratings: dict[str, int]) -> int:
    """E.5.1's count-aware combination (not a minimum)."""
    flagged = sum(r < 3 for r in ratings.values())
    if any(r == 1 for r in ratings.values()) or flagged >= 3:
        return 1
    return 2 if flagged else 3


def unnecessary_calls(conversation: Conversation) -> list[dict[str, Any]]:
    seen_ok: set[tuple[str, str]] = set()
    out = []
    for call in conversation.tool_calls:
        key = (call.name, json.dumps(call.arguments, sort_keys=True, default=str))
        if key in seen_ok:
            out.append({"tool": call.name, "arguments": call.arguments, "why": "repeat of a successful call"})
        elif not call.ok and call.result.get("error_type") in PREDICTABLE_ERRORS:
            out.append({"tool": call.name, "arguments": call.arguments, "why": call.result.get("error_type")})
        if call.ok:
            seen_ok.add(key)
    return out


def _statements(text: str) -> list[tuple[str, ...]]:
    return [tuple(tokens(s)) for s in re.split(r"(?<=[.!])\s+", text) if s.strip() and not s.strip().endswith("?")]


def repeated_statements(conversation: Conversation) -> list[dict[str, Any]]:
    assistant = [t for t in conversation.turns if t.role == "assistant"]
    said: set[tuple[str, ...]] = set()
    out = []
    for turn in assistant[:-1]:  # the final recap is allowed
        for sentence in _statements(turn.intended_text):
            if sentence in said:
                out.append({"turn": turn.index, "sentence": " ".join(sentence)})
            said.add(sentence)
    return out


def conversation_progression_proxy(conversation: Conversation) -> MetricValue:
    unnecessary = unnecessary_calls(conversation)
    repeated = repeated_statements(conversation)
    ratings = {
        "unnecessary_tool_calls": 1
        if len(unnecessary) >= FORCE_LOWEST_UNNECESSARY
        else dimension_rating(len(unnecessary)),
        "redundant_statements": dimension_rating(len(repeated)),
    }
    rating = overall_rating(ratings)
    return value(
        NAME,
        (rating - 1) / 2,
        THRESHOLD,
        rating=rating,
        dimensions=ratings,
        not_rated=["information_loss", "question_quality"],
        unnecessary_tool_calls=unnecessary,
        redundant_statements=repeated,
    )


METRICS = (
    Metric(
        name=NAME,
        kind="proxy",
        source="EVA-Bench App. E.5.1 (proxy for the LLM judge)",
        inputs=("turns.tool_calls", "turns[assistant].intended_text"),
        fn=conversation_progression_proxy,
        threshold=THRESHOLD,
        description="repeated/predictably failing tool calls and repeated statements, rated on E.5.1's scale",
    ),
)

register_all(METRICS, __name__)
