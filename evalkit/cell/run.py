"""Stage 3 of a cell — run: every (scenario, trial) conversation of the plan through the call loop, regenerated
while a validation gate fails (EVA-Bench App. D.1). Yields conversations as they finish, so the cell can score and
write each one as it comes (nothing is lost when a run dies). ``workers`` > 1 runs them in worker processes."""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from evalkit.call import CallSettings, ConversationAudio, run_conversation
from evalkit.cell.plan import CellPlan
from evalkit.config.schema import RunConfig
from evalkit.records import Conversation, SimulationValidation
from evalkit.scenarios import Scenario
from evalkit.validation import Flag, validate

log = logging.getLogger("evalkit")


@dataclass
class ConversationResult:
    """A finished conversation with its audio, ready to score; ``asr_s``: listener ASR seconds spent on it."""

    scenario: Scenario
    trial: int
    conversation: Conversation
    audio: ConversationAudio
    asr_s: float = 0.0


class ConversationRunner:
    """Everything one process needs to run a cell's conversations: components built once, then one job at a time.
    With ``workers`` > 1 each worker process holds its own (models are loaded per process)."""

    def __init__(self, config: RunConfig) -> None:
        from evalkit.cell.build import build_components, listener_asr
        from evalkit.cell.score import assistant_asr_entity_turns_only
        from evalkit.domains import tool_registry
        from evalkit.metrics import required_preparation

        self.config = config
        self.agent, self.user_tts, self.chain = build_components(config)
        needs = required_preparation(config.metrics, judge=config.judge.enabled)
        self.listener = listener_asr(config, self.agent) if "assistant_asr" in needs else None
        self.entity_turns_only = assistant_asr_entity_turns_only(config)
        self.registry = tool_registry(config.domain.name)
        self.settings = CallSettings(
            max_user_turns=config.simulator.max_user_turns,
            max_duration_s=config.simulator.max_duration_s,
            user_reaction_ms=config.simulator.user_reaction_ms,
        )

    def run(self, scenario: Scenario, trial: int) -> ConversationResult:
        config = self.config

        def attempt_at(attempt: int) -> tuple[Conversation, Any]:
            return run_conversation(
                scenario,
                trial,
                config.seed,
                self.agent,
                self.registry,
                self.user_tts,
                self.chain,
                self.settings,
                attempt=attempt,
                simulator_config=config.simulator,
            )

        if config.validation.enabled:
            conversation, audio = run_validated(
                attempt_at, lambda c: validate(c, scenario, self.registry), config.validation.max_reruns
            )
        else:
            conversation, audio = attempt_at(0)
        asr_s = 0.0
        if self.listener is not None:  # score-stage preparation, done where the audio and the model are
            from evalkit.cell.score import transcribe_assistant_turns

            asr_s = transcribe_assistant_turns(
                conversation, audio, self.listener, entity_turns_only=self.entity_turns_only
            )
        return ConversationResult(scenario, trial, conversation, audio, asr_s)


_RUNNER: ConversationRunner | None = None  # the worker process's runner (built by its initializer)


def _init_worker(config: RunConfig) -> None:
    global _RUNNER
    _RUNNER = ConversationRunner(config)


def _run_job(job: tuple[Scenario, int]) -> ConversationResult:
    assert _RUNNER is not None, "worker initializer did not run"
    return _RUNNER.run(*job)


def run_conversations(plan: CellPlan, workers: int = 1) -> Iterator[ConversationResult]:
    """Every (scenario, trial) job of the plan, yielded in plan order as each finishes. Every seed derives from
    (cell seed, scenario, trial), so ``workers`` processes give exactly the results of one."""
    jobs = [(s, t) for s in plan.scenarios for t in range(plan.config.trials)]
    if workers <= 1 or len(jobs) <= 1:
        runner = ConversationRunner(plan.config)
        for job in jobs:
            yield runner.run(*job)
        return
    # spawn, not fork: the parent holds open store connections and threads that a fork would copy mid-state
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(jobs)), context, _init_worker, (plan.config,)) as pool:
        yield from pool.map(_run_job, jobs)


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
