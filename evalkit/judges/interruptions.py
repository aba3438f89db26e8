"""What the judge of IHBench's Recovery Quality reads: each interruption in IHBench's markup with its type's
criteria (``recovery_criteria.yaml``, written before any response exists), and PASS computed from its verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from evalkit.records import AppliedEffect, Conversation, Turn

RECOVERY_CRITERIA: dict[str, dict[str, str]] = yaml.safe_load(
    (Path(__file__).with_name("recovery_criteria.yaml")).read_text(encoding="utf-8")
)
HISTORY_TURNS = 8  # the conversation before the cut, as much as a judge needs to see what was going on


def _block(conversation: Conversation, index: int, cut: Turn, effect: AppliedEffect) -> str | None:
    """One interruption: the history up to it, the cut message, the barge-in, the agent's next response."""
    turns = conversation.turns
    position = turns.index(cut)
    barge_in = next((t for t in turns[position + 1 :] if t.role == "user"), None)
    response = next((t for t in turns[position + 1 :] if t.role == "assistant"), None)
    if barge_in is None or response is None:
        return None
    kind = str(effect.params.get("kind", ""))
    history = [f"{'Agent' if t.role == 'assistant' else 'Caller'}: {t.intended_text}" for t in turns[:position]]
    return "\n".join(
        [
            f"interruption_id {index} (type: {kind})",
            "  history:",
            *[f"    {line}" for line in history[-HISTORY_TURNS:]],
            f"    Agent: {effect.params.get('delivered', '')} <INTERRUPTED />",
            f"    [Undelivered: {effect.params.get('undelivered', '')}]",
            f"    Caller: <INTERRUPTION>{barge_in.intended_text}</INTERRUPTION>",
            f"  agent's next response: {response.intended_text}",
            "  criteria:",
            *[f"  - {cid}: {text}" for cid, text in RECOVERY_CRITERIA[kind].items()],
        ]
    )


def interruption_blocks(conversation: Conversation) -> tuple[list[str], dict[int, str]]:
    """(the judge's text per interruption, interruption id -> type) for the judged types."""
    blocks: list[str] = []
    kinds: dict[int, str] = {}
    for turn in conversation.turns:
        for effect in turn.effects:
            if effect.type != "interruption" or effect.params.get("kind") not in RECOVERY_CRITERIA:
                continue
            block = _block(conversation, len(kinds), turn, effect)
            if block is not None:
                kinds[len(kinds)] = str(effect.params["kind"])
                blocks.append(block)
    return blocks, kinds


def recovery_rows(kinds: Mapping[int, str], verdicts: Mapping[int, Mapping[str, bool]]) -> dict[int, dict[str, Any]]:
    """Per interruption: its type, PASS (every criterion met) and the criteria; ValueError on a wrong answer shape."""
    if set(verdicts) != set(kinds):
        raise ValueError(f"expected interruption_ids {sorted(kinds)}, got {sorted(verdicts)}")
    rows = {}
    for i, kind in kinds.items():
        wanted = set(RECOVERY_CRITERIA[kind])
        if set(verdicts[i]) != wanted:
            raise ValueError(f"interruption {i} ({kind}): expected criteria {sorted(wanted)}")
        rows[i] = {"kind": kind, "pass": all(verdicts[i].values()), **verdicts[i]}
    return rows
