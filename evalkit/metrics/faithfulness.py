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

What the agent heard includes what a spelled answer spells: a caller's "O, K, A, F, O, R" comes back from the ASR as
"okay AFOR", and "No, the third one is Echo" corrects one character of the read-back before it. The agent's read-back
of such a spelling, and the corrected one, are grounded in the heard text (E.4.2 judges the cascade on the STT text
it saw, and mishearing the caller is no faithfulness violation for a cascade), read with the metrics' own
normaliser (``evalkit.metrics.normalize``: letter names, spelling-alphabet words, ordinal corrections; never the
agent's parsers). Measured on the main job's clean cell, without this every conversation that spelled a name
failed the proxy (hallucination = 1) for reading back a spelling.

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
from evalkit.metrics.normalize import parse_correction, spelled_codes
from evalkit.metrics.registry import register_all
from evalkit.metrics.tool_flags import is_write
from evalkit.records import Conversation, MetricValue, Turn

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


def heard_forms(heard: str | None, read_back: str | None) -> list[str]:
    """A user turn's heard text and the spellings it gives: the characters it spells (as letters and as the word
    they make), and, for a correction of one character ("the third one is Echo"), every spelled entity of the
    agent's read-back before it (``read_back``) with that character replaced."""
    if not heard:
        return []
    spelled = {w.lower() for w in spelled_codes(heard)}
    forms = [heard] + [" ".join(w) for w in sorted(spelled)] + sorted(spelled)
    correction = parse_correction(heard)
    if correction is not None and read_back:
        position, char = correction
        for span in spoken_entities(read_back):
            if 0 < position <= len(span) and all(len(t) == 1 for t in span):
                fixed = [*span[: position - 1], char.lower(), *span[position:]]
                forms += [" ".join(fixed), "".join(fixed)]
    return forms


def _heard(conversation: Conversation) -> dict[int, list[str]]:
    """Per user turn index, what it grounds (see :func:`heard_forms`)."""
    out: dict[int, list[str]] = {}
    read_back: Turn | None = None
    for turn in conversation.turns:
        if turn.role == "assistant":
            read_back = turn
        else:
            out[turn.index] = heard_forms(turn.heard_text, read_back.intended_text if read_back else None)
    return out


def faithfulness_proxy(conversation: Conversation) -> MetricValue:
    heard = _heard(conversation)
    everything = Grounding()  # statements may cite any tool I/O of the call (lenient: order not checked)
    for turn in conversation.turns:
        if turn.role == "user":
            for form in heard[turn.index]:
                everything.add_text(form)
        for call in turn.tool_calls:
            everything.add_structured(call.arguments)
            everything.add_structured(call.result)

    so_far = Grounding()  # parameters must be traceable to what came *before* the call
    fabricated: list[dict[str, Any]] = []
    ungrounded: list[dict[str, Any]] = []
    for turn in conversation.turns:
        if turn.role == "user":
            for form in heard[turn.index]:
                so_far.add_text(form)
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
        version=2,  # issue 28.3: its own normaliser (no Whisper-on-eSpeak tables; written dates ground said ones)
        threshold=THRESHOLD,
        description="every entity the agent asserted or passed to a tool is grounded in heard text or tool I/O",
    ),
)

register_all(METRICS, __name__)
