"""Critical field accuracy (CFA), MM-τ-p² (seed 004) "Goal" metric, computed deterministically.

MM-τ-p² defines CFA as the accuracy on a task's error-sensitive fields (IDs, names, amounts, dates, plan IDs);
"a single wrong critical field can invalidate task success". Its formula body is lost in the seed; we use the
digest's reconstruction, correct fields / critical fields, with the scenario's key entities as the critical fields
and the agent's tool calls as where a field is *used*:

- a field is correct when some tool argument carries its value (normalised; e.g. flight SK130 inside journey id
  FL_SK130_20260618) and no argument of the same name carries a different value;
- a field never passed to a tool is counted wrong ("missing"): the agent never captured it.
"""

from __future__ import annotations

from typing import Any

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.entities import contains, spoken_forms, tokens
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "critical_field_accuracy"


def critical_field_accuracy(conversation: Conversation) -> MetricValue:
    if not conversation.key_entities:
        return unscored(NAME, "the scenario declares no critical fields")
    rows: list[dict[str, Any]] = []
    for field_name, expected in conversation.key_entities.items():
        want = tuple(tokens(expected))
        used, wrong = False, []
        for call in conversation.tool_calls:
            for arg, val in call.arguments.items():
                if any(contains(tokens(form), want) for form in spoken_forms(val)):
                    used = True
                elif arg == field_name:
                    wrong.append({"tool": call.name, "value": val})
        status = "wrong" if wrong else "correct" if used else "missing"
        rows.append({"field": field_name, "expected": expected, "status": status, "wrong_values": wrong})
    correct = sum(r["status"] == "correct" for r in rows)
    return value(NAME, correct / len(rows), None, fields=rows, correct=correct)


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="MM-τ-p² §2 'Critical Field Accuracy' (formula reconstructed, digest §3.5)",
        inputs=("key_entities", "turns.tool_calls.arguments"),
        fn=critical_field_accuracy,
        version=2,  # issue 28.3: the metrics' own normaliser (dates said with their year, noon, amounts in cents)
    ),
)

register_all(METRICS, __name__)
