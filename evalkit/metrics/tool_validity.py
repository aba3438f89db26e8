"""Tool-call validity, EVA-Bench App. E.6 (deterministic diagnostic): the fraction of tool calls with correctly
formatted parameters. The executor validates every call against the tool's argument schema and records a rejected
one as ``error_type`` ``invalid_arguments`` (or ``unknown_tool``); tool *errors* on valid calls (not found, not
authenticated) are well-formed calls and count as valid.
"""

from __future__ import annotations

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "tool_call_validity"
MALFORMED = ("invalid_arguments", "unknown_tool")


def tool_call_validity(conversation: Conversation) -> MetricValue:
    calls = conversation.tool_calls
    if not calls:
        return unscored(NAME, "no tool call")
    bad = [
        {"tool": c.name, "error_type": c.result.get("error_type"), "message": c.result.get("message")}
        for c in calls
        if not c.ok and c.result.get("error_type") in MALFORMED
    ]
    return value(NAME, 1.0 - len(bad) / len(calls), None, calls=len(calls), malformed=bad)


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="EVA-Bench App. E.6",
        inputs=("turns.tool_calls.result.error_type",),
        fn=tool_call_validity,
    ),
)

register_all(METRICS, __name__)
