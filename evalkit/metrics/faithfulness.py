"""Faithfulness, deterministic proxy of EVA-Bench App. E.4.2 (the paper uses an LLM judge).

The judge rates five dimensions 1-3 and takes the minimum; score = (r - 1) / 2, pass iff >= 0.5. This proxy rates
the two dimensions that can be checked without understanding language, on the cascade view (what the LLM saw is
the STT text, E.2):

- ``fabricating_tool_parameters``: an identifier-like argument (anything but lower-case enum words and free-text
  reasons) that cannot be traced to what the agent heard or to an earlier tool result (one step of arithmetic
  allowed). Rubric: a fabricated value reaching a write tool -> 1, only read tools -> 2.
- ``hallucination`` / ``misrepresenting_tool_result`` (merged): an entity the agent *said* (code, amount, time,
  date, flight number, name) that appears in no heard user text and no tool argument/result of the conversation,
  also after one step of arithmetic -> 1 (a misstated value the user could act on).

The other three dimensions (policy violations, disambiguation) need the agent's instructions and judgement and are
reported as ``not_rated``. Limitations: policy constants that appear in no tool result (a fee the agent knows from
its instructions) count as ungrounded. Read/write is the tool's declared flag as recorded with the call
(``ToolCall.writes``; the domain's declaration for older records).
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.metrics.base import Metric, value
from evalkit.metrics.entities import Grounding, spoken_entities, spoken_forms, tokens
from evalkit.metrics.registry import register_all
from evalkit.metrics.tool_flags import is_write
from evalkit.records import Conversation, MetricValue

NAME = "faithfulness_proxy"
THRESHOLD = 0.5  # App. E.4.2: rating >= 2
_ENUM = re.compile(r"^[a-z_]+$")


def _checked_arguments(arguments: dict[str, Any]) -> list[tuple[str, Any]]:
    """Identifier-like arguments: not enum words ("same_day", "window") and not free-text reasons."""
    out = []
    for key, val in arguments.items():
        if isinstance(val, bool) or val is None or isinstance(val, dict | list):
            continue
        text = str(val)
        if isinstance(val, str) and (_ENUM.match(text) or len(text.split()) > 3):
            continue
        out.append((key, val))
    return out


def faithfulness_proxy(conversation: Conversation) -> MetricValue:
    everything = Grounding()  # statements may cite any tool I/O of the call (lenient: order not checked)
    for turn in conversation.turns:
        if turn.role == "user":
            everything.add_text(turn.heard_text)
        for call in turn.tool_calls:
            everything.add_structured(call.arguments)
            everything.add_structured(call.result)

    so_far = Grounding()  # parameters must be traceable to what came *before* the call
    fabricated: list[dict[str, Any]] = []
    ungrounded: list[dict[str, Any]] = []
    for turn in conversation.turns:
        if turn.role == "user":
            so_far.add_text(turn.heard_text)
            continue
        for call in turn.tool_calls:
            for key, val in _checked_arguments(call.arguments):
                spans = [tuple(tokens(form)) for form in spoken_forms(val)]
                if not any(span and so_far.grounds(span) for span in spans):
                    fabricated.append(
                        {
                            "turn": turn.index,
                            "tool": call.name,
                            "argument": key,
                            "value": val,
                            "write": is_write(call, conversation.domain),
                        }
                    )
            so_far.add_structured(call.result)
        for span in spoken_entities(turn.intended_text):
            if not everything.grounds(span):
                ungrounded.append({"turn": turn.index, "entity": " ".join(span)})

    ratings = {
        "fabricating_tool_parameters": 1 if any(f["write"] for f in fabricated) else 2 if fabricated else 3,
        "hallucination": 1 if ungrounded else 3,
    }
    rating = min(ratings.values())
    return value(
        NAME,
        (rating - 1) / 2,
        THRESHOLD,
        rating=rating,
        dimensions=ratings,
        not_rated=["violating_policies", "failing_to_disambiguate"],
        fabricated_parameters=fabricated,
        ungrounded_statements=ungrounded,
    )


METRICS = (
    Metric(
        name=NAME,
        kind="proxy",
        source="EVA-Bench App. E.4.2 (proxy for the LLM judge)",
        inputs=("turns[user].heard_text", "turns[assistant].intended_text", "turns.tool_calls"),
        fn=faithfulness_proxy,
        threshold=THRESHOLD,
        description="every entity the agent asserted or passed to a tool is grounded in heard text or tool I/O",
    ),
)

register_all(METRICS, __name__)
