"""Which conversations an arena compares: two agents' calls of the same scenario and trial in cells that differ only
in the agent (same domain, simulator, voice, persona, perturbation, seed: so the caller said the same things),
read back from MLflow like the robustness analysis reads its cells. The A/B order of every pair is drawn from
``SeedSequence(seed, item, pair)``, so it is random across pairs, reproducible, and independent of run order.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalkit.analysis.cells import RECORDS_DIR, CellData
from evalkit.config import axes
from evalkit.tracking import TrackingTarget
from evalkit.tracking.reading import load_json_artifact_dir

AGENT_PARAMS = ("agent", "architecture")


class ArenaError(ValueError):
    """The arena cannot run: fewer than two agents, no shared conversation, ... (one line for the user)."""


@dataclass(frozen=True)
class Call:
    """One agent's conversation as a judge reads it."""

    agent: str
    run_id: str
    item: str  # the condition group + scenario + trial: the same for every agent's call of it
    scenario: str
    domain: str
    transcript: str
    agent_words: int  # words the agent spoke: the length the length-bias test compares
    # where the cell read its scenarios (for the caller's goal): domain.scenario_dir and domain.plugin, None: unset
    scenario_dir: str | None = None
    domain_plugin: str | None = None


@dataclass(frozen=True)
class Pairing:
    item: str
    first: Call  # shown as call A
    second: Call  # shown as call B
    order_seed: int


def group_key(params: Mapping[str, str]) -> str:
    """Every axis param but the agent's: cells with equal keys differ only in the agent under test."""
    names = [n for n in axes.param_names() if n not in AGENT_PARAMS]
    return "|".join(f"{n}={params.get(n, '')}" for n in names)


def transcript(conversation: Mapping[str, Any]) -> tuple[str, int]:
    """(the call as text, the agent's word count): what the caller said (intended) and what the agent said."""
    lines, words = [], 0
    for turn in conversation.get("turns", []):
        text = (turn.get("intended_text") or "").strip()
        if not text:
            continue
        if turn.get("role") == "assistant":
            words += len(text.split())
            lines.append(f"Agent: {text}")
        else:
            lines.append(f"Caller: {text}")
    return "\n".join(lines), words


def _param(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name)
    return None if value in (None, "", "None") else str(value)


def calls_of(cell: CellData, records: Mapping[str, Any]) -> list[Call]:
    out = []
    group = group_key(cell.params)
    for record in records.values():
        conversation = record.get("conversation", {})
        scenario, trial = str(conversation.get("scenario_id")), int(conversation.get("trial", 0))
        text, words = transcript(conversation)
        out.append(
            Call(
                agent=cell.params.get("agent", "?"),
                run_id=cell.run_id,
                item=f"{group}|scenario={scenario}|trial={trial}",
                scenario=scenario,
                domain=str(conversation.get("domain", cell.params.get("domain", "?"))),
                transcript=text,
                agent_words=words,
                scenario_dir=_param(cell.params, "cfg.domain.scenario_dir"),
                domain_plugin=_param(cell.params, "cfg.domain.plugin"),
            )
        )
    return out


def select_cells(cells: Sequence[CellData], agents: Sequence[str] | None, condition: str | None) -> list[CellData]:
    """The cells of the wanted agents (None: all) in the wanted condition (the ``perturb`` param; None: any)."""
    chosen = [
        c
        for c in cells
        if (agents is None or c.params.get("agent") in agents)
        and (condition is None or c.params.get("perturb") == condition)
    ]
    found = sorted({c.params.get("agent", "?") for c in chosen})
    if agents is not None:
        missing = sorted(set(agents) - set(found))
        if missing:
            raise ArenaError(f"no finished cell of agent(s) {', '.join(missing)} (found: {', '.join(found) or 'none'})")
    if len(found) < 2:
        where = f" in condition {condition!r}" if condition else ""
        raise ArenaError(f"an arena needs cells of at least two agents{where}; found {', '.join(found) or 'none'}")
    return chosen


def load_calls(target: TrackingTarget, cells: Sequence[CellData]) -> list[Call]:
    calls = []
    for cell in cells:
        calls += calls_of(cell, load_json_artifact_dir(target, cell.run_id, RECORDS_DIR))
    return calls


def _seed(seed: int, *labels: str) -> int:
    words = [int.from_bytes(hashlib.sha256(label.encode()).digest()[:4], "big") for label in labels]
    return int(np.random.SeedSequence([seed, *words]).generate_state(1)[0])


def pairings(calls: Sequence[Call], seed: int) -> list[Pairing]:
    """Every pair of agents on every item both have a call of, in a random (seeded) A/B order."""
    by_item: dict[str, dict[str, Call]] = defaultdict(dict)
    for call in calls:
        by_item[call.item].setdefault(call.agent, call)
    out = []
    for item in sorted(by_item):
        agents = sorted(by_item[item])
        for a, b in itertools.combinations(agents, 2):
            order_seed = _seed(seed, item, a, b)
            swap = bool(np.random.default_rng(order_seed).integers(2))
            first, second = (by_item[item][b], by_item[item][a]) if swap else (by_item[item][a], by_item[item][b])
            out.append(Pairing(item, first, second, order_seed))
    if not out:
        raise ArenaError("the agents' cells share no scenario and trial in the same condition: nothing to compare")
    return out
