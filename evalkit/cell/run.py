"""Stage 3 of a cell — run: every (scenario, trial) conversation of the plan through the call loop, regenerated
while a validation gate fails (EVA-Bench App. D.1). Yields conversations as they finish, so the cell can score and
write each one before the next starts (nothing is lost when a run dies)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from evalkit.call import CallSettings, ConversationAudio, run_conversation
from evalkit.cell.plan import CellPlan
from evalkit.records import Conversation, SimulationValidation
from evalkit.scenarios import Scenario
from evalkit.validation import Flag, validate

log = logging.getLogger("evalkit")


def run_conversations(
    plan: CellPlan, agent: Any, user_tts: Any, chain: Any, registry: Any
) -> Iterator[tuple[Scenario, int, Conversation, ConversationAudio]]:
    """(scenario, trial, conversation, audio) for every job of the plan, in plan order."""
    config = plan.config
    settings = CallSettings(
        max_user_turns=config.simulator.max_user_turns,
        max_duration_s=config.simulator.max_duration_s,
        user_reaction_ms=config.simulator.user_reaction_ms,
    )
    for scenario in plan.scenarios:
        for trial in range(config.trials):

            def attempt_at(attempt: int, scenario: Scenario = scenario, trial: int = trial) -> tuple[Conversation, Any]:
                return run_conversation(
                    scenario, trial, config.seed, agent, registry, user_tts, chain, settings, attempt=attempt
                )

            if config.validation.enabled:
                conversation, audio = run_validated(
                    attempt_at, lambda c, s=scenario: validate(c, s, registry), config.validation.max_reruns
                )
            else:
                conversation, audio = attempt_at(0)
            yield scenario, trial, conversation, audio


def run_validated(
    run_attempt: Callable[[int], tuple[Conversation, Any]],
    check: Callable[[Conversation], list[Flag]],
    max_reruns: int,
) -> tuple[Conversation, Any]:
    """EVA-Bench App. D.1: run a conversation, regenerate it while a validation gate fails, up to ``max_reruns``
    times (EVA-Bench names no limit; ours is ``validation.max_reruns``). Keeps the first valid attempt, else the
    last one, and marks it in ``conversation.validation`` so it can be excluded or counted."""
    history: list[list[Flag]] = []
    for attempt in range(max_reruns + 1):
        conversation, extra = run_attempt(attempt)
        flags = check(conversation)
        history.append(flags)
        if not flags:
            break
    verdict = SimulationValidation(
        valid=not history[-1],
        attempt=len(history) - 1,
        attempts=len(history),
        flags=[[asdict(f) for f in flags] for flags in history],
    )
    if not verdict.valid:
        log.warning(
            "%s t%d: still invalid after %d attempts (%s): kept and marked",
            conversation.scenario_id,
            conversation.trial,
            verdict.attempts,
            "; ".join(f.reason for f in history[-1]),
        )
    return conversation.model_copy(update={"validation": verdict}), extra


def validation_stats(conversations: list[Conversation]) -> dict[str, float]:
    """Cell counts of regeneration, comparable with EVA-Bench's rates (24.1% of trials regenerated, about half for
    simulator error, 12.0%, the rest infrastructure failures and timeouts; its cost estimate treats 24.1% as reruns
    per trial). Every attempt but the kept one failed a gate and was rerun; a rerun counts as infrastructure when
    one of its flags is (crash, turn or duration limit), else as simulator error. Per gate: the reruns it flagged
    (an attempt can fail several gates). ``sim_invalid_kept``: conversations still invalid at the limit."""
    verdicts = [c.validation for c in conversations if c.validation is not None]
    n = len(verdicts)
    reruns = [flags for v in verdicts for flags in v.flags[:-1]]
    infrastructure = sum(any(f["infrastructure"] for f in flags) for flags in reruns)
    out = {
        "sim_attempts": float(sum(v.attempts for v in verdicts)),
        "sim_reruns": float(len(reruns)),
        "sim_invalid_kept": float(sum(not v.valid for v in verdicts)),
        "sim_rerun_rate": len(reruns) / n if n else 0.0,
        "sim_rerun_infrastructure": infrastructure / n if n else 0.0,
        "sim_rerun_simulator": (len(reruns) - infrastructure) / n if n else 0.0,
        "sim_regenerated_share": sum(v.attempts > 1 for v in verdicts) / n if n else 0.0,
    }
    for gate in sorted({f["gate"] for flags in reruns for f in flags}):
        out[f"sim_rerun_gate_{gate}"] = float(sum(any(f["gate"] == gate for f in flags) for flags in reruns))
    return out
