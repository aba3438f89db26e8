"""One conversation of a scenario through the call loop: the simulator, the channel and the agent session are
assembled here, the loop runs them, and the result becomes a ``Conversation`` record.

``run_conversation`` is the audio path of a cell (caller voice + perturbation chain, an in-process agent on a
virtual clock); ``run_text_conversation`` is the same loop with a text channel.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from evalkit.agents.base import AgentContext, ToolBox
from evalkit.call.behaviors import BehaviorChannel, BehaviorPlanner, BehaviorSession
from evalkit.call.channel import AudioChannel, Perturb, Synthesize, TextChannel
from evalkit.call.clock import Clock, RealClock, VirtualClock
from evalkit.call.host import CallHost
from evalkit.call.interrupt import Interrupter
from evalkit.call.loop import CallOutcome, CallSettings, Channel, ConversationAudio, run_call
from evalkit.call.session import AgentSession, TurnBasedSession
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.records import Conversation
from evalkit.scenarios import Scenario
from evalkit.seeds import derive_seed, rng_for
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.registry import SimulatorConfig, default_simulator
from evalkit.tool_log import tool_call_records


def attempt_keys(scenario_id: str, trial: int, attempt: int) -> tuple[int | str, ...]:
    """The seed keys of one attempt at a conversation. Attempt 0 has exactly the keys every conversation had before
    regeneration existed, so a cell without reruns is bit-identical to one run without validation; a rerun adds an
    ``attempt:k`` key, so every seed of it (simulator, turns, perturbations, call) is new but still replayable."""
    if attempt < 0:
        raise ValueError(f"attempt must be non-negative, got {attempt}")
    return (scenario_id, trial) if attempt == 0 else (scenario_id, trial, f"attempt:{attempt}")


def conversation_record(
    scenario: Scenario, trial: int, seed: int, outcome: CallOutcome, executor: ToolExecutor
) -> Conversation:
    return Conversation(
        scenario_id=scenario.id,
        domain=scenario.domain,
        trial=trial,
        seed=seed,
        turns=outcome.turns,
        end_reason=outcome.end_reason,  # type: ignore[arg-type]
        initial_db=scenario.scenario_db,
        final_db=executor.db,
        final_db_missing=executor.final_db_missing,
        agent_tool_calls=None if executor.agent_log is None else tool_call_records(executor.agent_log),
        tool_calls_unseen=executor.tool_calls_unseen,
        expected_db=scenario.expected_scenario_db,
        key_entities=scenario.key_entities,
        success=scenario.success.criteria() if scenario.success else None,
        error=outcome.error,
        interruptions=outcome.interruptions,
    )


def call_scenario(
    scenario: Scenario,
    caller: Any,
    session: AgentSession,
    channel: Channel,
    executor: ToolExecutor,
    clock: Clock,
    settings: CallSettings,
    agent_seed: int | None = None,
    host: CallHost | None = None,
    interrupter: Interrupter | None = None,
) -> CallOutcome:
    """Run the loop to the end: on ``host``'s shared event loop (real-time calls of a cell run at once, see
    evalkit.call.host), else on an event loop of its own."""
    context = AgentContext(
        scenario.domain, scenario.current_date_time, ToolBox(executor), scenario_id=scenario.id, seed=agent_seed
    )
    call = run_call(caller, session, channel, context, clock, settings, interrupter)
    return host.run(call) if host is not None else asyncio.run(call)


def run_conversation(
    scenario: Scenario,
    trial: int,
    cell_seed: int,
    agent: Any,
    registry: ToolRegistry,
    user_tts: Synthesize,
    perturb: Perturb,
    settings: CallSettings | None = None,
    attempt: int = 0,
    simulator_config: SimulatorConfig | None = None,
    host: CallHost | None = None,
    interrupt: Any = None,
    behavior: Any = None,
) -> tuple[Conversation, ConversationAudio]:
    """The audio path: ``attempt`` > 0 regenerates the conversation with fresh seeds (simulation validation).
    ``simulator_config`` builds the caller (its kind's ``build``); None: the default kind (scripted). ``host``: the
    shared event loop of a cell's concurrent real-time calls (None: the call gets a loop of its own)."""
    keys = attempt_keys(scenario.id, trial, attempt)
    persona = getattr(user_tts, "persona", None)  # a UserVoice carries the cell's persona (evalkit.cell.build)
    spec = PersonaSpec.from_config(persona) if persona is not None else None
    rng = rng_for(cell_seed, *keys, "simulator")
    simulator = (simulator_config or default_simulator()).build(scenario, spec, rng)
    voice = user_tts.for_scenario(scenario) if hasattr(user_tts, "for_scenario") else user_tts
    executor = ToolExecutor(registry, scenario.scenario_db)
    clock, session, settings = _agent_session(agent, settings or CallSettings(), scenario)
    channel: Channel = AudioChannel(voice, perturb, cell_seed, keys)
    agent_seed = derive_seed(cell_seed, *keys, "agent")
    interrupter = Interrupter(interrupt, rng_for(cell_seed, *keys, "interrupt")) if interrupt is not None else None
    planner = BehaviorPlanner(behavior, rng_for(cell_seed, *keys, "behavior")) if behavior is not None else None
    if planner is not None:  # +behavior: the caller's channel and the agent's session carry its phrases
        channel, session = BehaviorChannel(channel, planner), BehaviorSession(session, planner, clock)
    outcome = call_scenario(
        scenario, simulator, session, channel, executor, clock, settings, agent_seed, host, interrupter
    )
    if planner is not None:  # what the caller's line carried of them is part of what the agent heard
        outcome.audio.line += planner.clips
    record = conversation_record(scenario, trial, derive_seed(cell_seed, *keys), outcome, executor)
    sampling_seed = getattr(simulator, "sampling_seed", None)  # an LLM simulator's per-conversation seed
    if sampling_seed is not None:
        record = record.model_copy(update={"simulator_seed": sampling_seed})
    return record, outcome.audio


def run_text_call(
    scenario: Scenario,
    trial: int,
    cell_seed: int,
    agent: Any,
    registry: ToolRegistry,
    persona: Any = None,
    settings: CallSettings | None = None,
    attempt: int = 0,
    simulator_config: SimulatorConfig | None = None,
    interrupt: Any = None,
) -> tuple[Conversation, ConversationAudio]:
    """modality=text (MM-τ-p²): ``run_conversation`` with a perfect text channel instead of voice, perturbation and
    the agent's ears. Same seed keys, so the caller draws what its voice twin's caller draws; ``agent``: a text
    agent (``AgentConfig.text_agent``); ``persona``: the cell's persona config."""
    keys = attempt_keys(scenario.id, trial, attempt)
    spec = PersonaSpec.from_config(persona) if persona is not None else None
    rng = rng_for(cell_seed, *keys, "simulator")
    simulator = (simulator_config or default_simulator()).build(scenario, spec, rng)
    executor = ToolExecutor(registry, scenario.scenario_db)
    settings = opening(settings or CallSettings(), scenario)
    clock = VirtualClock()
    session = TurnBasedSession(agent, clock, settings.agent_timeout_s, settings.first_speaker != "caller")
    agent_seed = derive_seed(cell_seed, *keys, "agent")
    interrupter = Interrupter(interrupt, rng_for(cell_seed, *keys, "interrupt")) if interrupt is not None else None
    channel = TextChannel()
    outcome = call_scenario(
        scenario, simulator, session, channel, executor, clock, settings, agent_seed, None, interrupter
    )
    return conversation_record(scenario, trial, derive_seed(cell_seed, *keys), outcome, executor), outcome.audio


def _agent_session(
    agent: Any, settings: CallSettings, scenario: Scenario | None = None
) -> tuple[Clock, AgentSession, CallSettings]:
    """The call's clock, session and settings. An in-process agent: a turn-based session on a virtual clock. A wire
    agent (``realtime``, issue 13): its own session per call on a real clock, with the settings it needs (20 ms
    frames, a response timeout, who opens); the clock starts now, just before the call, once the agent has loaded
    what its calls need (``prepare``, e.g. a listener ASR: a model load inside a call would be on its timeline). The
    scenario's ``first_speaker`` applies where the agent's is ``auto``."""
    if getattr(agent, "realtime", False):
        prepare = getattr(agent, "prepare", None)
        if prepare is not None:
            prepare()
        clock: Clock = RealClock()
        return clock, agent.session(clock), opening(agent.call_settings(settings), scenario)
    clock = VirtualClock()
    settings = opening(settings, scenario)
    greets = settings.first_speaker != "caller"
    return clock, TurnBasedSession(agent, clock, settings.agent_timeout_s, greets), settings


def opening(settings: CallSettings, scenario: Scenario | None) -> CallSettings:
    """Who opens this call: the agent option's ``first_speaker``, or the scenario's where the option is ``auto``; and
    the scenario's own limits (a scenario file's ``limits``), which only ever shorten the run's."""
    limits = getattr(scenario, "limits", None)
    if limits is not None:
        settings = dataclasses.replace(
            settings,
            max_user_turns=min(settings.max_user_turns, limits.turns or settings.max_user_turns),
            max_duration_s=min(settings.max_duration_s, limits.seconds or settings.max_duration_s),
        )
    wanted = getattr(scenario, "first_speaker", None)
    if settings.first_speaker != "auto" or wanted in (None, "auto"):
        return settings
    return dataclasses.replace(settings, first_speaker=wanted)


def run_text_conversation(
    scenario: Scenario,
    agent: Any,
    simulator: Any,
    channel: Channel,
    executor: ToolExecutor,
    settings: CallSettings | None = None,
    trial: int = 0,
    seed: int = 0,
) -> Conversation:
    """The text path: the same loop with a text channel (no TTS, perturbation or ASR)."""
    clock = VirtualClock()
    session = TurnBasedSession(agent, clock)
    outcome = call_scenario(scenario, simulator, session, channel, executor, clock, settings or CallSettings())
    return conversation_record(scenario, trial, seed, outcome, executor)
