"""One spoken conversation: simulator -> TTS -> perturbation chain (user side only) -> agent, on a virtual clock.

The only place that holds both the agent and the simulator. Time is simulated: an utterance lasts as long as
its audio, the agent answers after its measured compute time, the user after a fixed reaction delay. So a
conversation runs faster than real time while latency metrics stay meaningful (DESIGN decision 7).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalkit.agents.base import Agent, AgentContext, AgentReply, ToolBox
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.records import AppliedEffect, AudioClip, Conversation, ToolCall, Turn
from evalkit.scenarios import Scenario
from evalkit.seeds import derive_seed, rng_for
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.scripted import ScriptedSimulator
from perturbations import ClipContext

# perturbations.Chain: (audio, rate, rng, ClipContext) -> (audio, effect entries relative to the clip start)
Perturb = Callable[[np.ndarray, int, np.random.Generator, ClipContext], tuple[np.ndarray, list[dict[str, Any]]]]
Synthesize = Callable[[str], tuple[np.ndarray, int]]


@dataclass(frozen=True)
class LoopSettings:
    max_user_turns: int = 80  # safety net; EVA-Bench bounds calls by duration (600 s), not turns
    max_duration_s: float = 600.0  # EVA-Bench Table 7: max conversation duration
    user_reaction_ms: float = 400.0


@dataclass
class ConversationAudio:
    """Per-turn clips keyed by (turn index, kind); kind in {'user_clean', 'user_heard', 'assistant'}."""

    clips: dict[tuple[int, str], AudioClip] = field(default_factory=dict)


def tool_call_records(
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]], t_ms: float, registry: ToolRegistry | None = None
) -> list[ToolCall]:
    """Records of an agent turn's tool calls; ``registry`` (the executor's) adds each tool's declared flags."""
    return [
        ToolCall(name=n, arguments=a, result=r, ok=r.get("status") == "success", t_ms=t_ms, **_flags(registry, n))
        for n, a, r in calls
    ]


def _flags(registry: ToolRegistry | None, name: str) -> dict[str, bool]:
    if registry is None or name not in registry:  # an unknown tool name: the executor refused it, flags unknown
        return {}
    spec = registry[name]
    return {"writes": spec.writes, "irreversible": spec.irreversible}


def _effects(applied: list[dict[str, Any]], turn: int, offset_ms: float) -> list[AppliedEffect]:
    return [
        AppliedEffect(
            type=e["type"],
            participant="user",
            turn=turn,
            start_ms=offset_ms + float(e.get("start_ms", 0.0)),
            end_ms=offset_ms + float(e.get("end_ms", 0.0)),
            params=e.get("params", {}),
        )
        for e in applied
    ]


def attempt_keys(scenario_id: str, trial: int, attempt: int) -> tuple[int | str, ...]:
    """The seed keys of one attempt at a conversation. Attempt 0 has exactly the keys every conversation had before
    regeneration existed, so a cell without reruns is bit-identical to one run without validation; a rerun adds an
    ``attempt:k`` key, so every seed of it (simulator, turns, perturbations, call) is new but still replayable."""
    if attempt < 0:
        raise ValueError(f"attempt must be non-negative, got {attempt}")
    return (scenario_id, trial) if attempt == 0 else (scenario_id, trial, f"attempt:{attempt}")


def run_conversation(
    scenario: Scenario,
    trial: int,
    cell_seed: int,
    agent: Agent,
    registry: ToolRegistry,
    user_tts: Synthesize,
    perturb: Perturb,
    settings: LoopSettings = LoopSettings(),
    attempt: int = 0,
) -> tuple[Conversation, ConversationAudio]:
    """``attempt`` > 0 regenerates the conversation with fresh seeds (simulation validation, evalkit.cell)."""
    keys = attempt_keys(scenario.id, trial, attempt)
    persona = getattr(user_tts, "persona", None)  # a UserVoice carries the cell's persona (evalkit.cell)
    spec = PersonaSpec.from_config(persona) if persona is not None else None
    simulator = ScriptedSimulator(scenario, spec, rng_for(cell_seed, *keys, "simulator"))
    user_tts = user_tts.for_scenario(scenario) if hasattr(user_tts, "for_scenario") else user_tts
    executor = ToolExecutor(registry, scenario.scenario_db)
    audio = ConversationAudio()
    turns: list[Turn] = []
    now_ms = 0.0
    # Same for every turn of this conversation: call-level effects (SNR drift) stay continuous across turns.
    call_seed = derive_seed(cell_seed, *keys, "call")

    def add_agent_turn(reply: AgentReply, start_ms: float) -> float:
        index = len(turns)
        audio.clips[(index, "assistant")] = reply.audio
        end_ms = start_ms + reply.audio.duration_s * 1000.0
        turns.append(
            Turn(
                index=index,
                role="assistant",
                intended_text=reply.text,
                start_ms=start_ms,
                end_ms=end_ms,
                compute_ms=reply.compute_ms,
                tool_calls=tool_call_records(reply.tool_calls, start_ms - reply.compute_ms, executor.registry),
                audio={"assistant": "assistant.wav"},
            )
        )
        return end_ms

    end_reason = "max_turns"
    error: str | None = None
    try:
        greeting = agent.start(AgentContext(scenario.domain, scenario.current_date_time, ToolBox(executor)))
        now_ms = add_agent_turn(greeting, 0.0)
        utterance = simulator.first_utterance()
        for _ in range(settings.max_user_turns):
            index = len(turns)
            seed = derive_seed(cell_seed, *keys, index)
            clean, rate = user_tts(utterance.text)
            start_ms = now_ms + settings.user_reaction_ms
            context = ClipContext(offset_ms=start_ms, call_seed=call_seed, participant="user")
            heard, applied = perturb(clean, rate, rng_for(cell_seed, *keys, index), context)
            end_ms = start_ms + len(clean) / rate * 1000.0
            audio.clips[(index, "user_clean")] = AudioClip(samples=clean, sample_rate=rate)
            audio.clips[(index, "user_heard")] = AudioClip(samples=heard, sample_rate=rate)
            user_turn = Turn(
                index=index,
                role="user",
                intended_text=utterance.text,
                start_ms=start_ms,
                end_ms=end_ms,
                effects=_effects(applied, index, start_ms),
                seed=seed,
                audio={"user_clean": "user_clean.wav", "user_heard": "user_heard.wav"},
            )
            turns.append(user_turn)
            now_ms = end_ms
            if utterance.end_call:
                # The goodbye is recorded but the call is over: the agent never hears it (heard_text stays
                # None, so hearing metrics skip it).
                end_reason = "user_end_call"
                break
            reply = agent.respond(AudioClip(samples=heard, sample_rate=rate))
            user_turn.heard_text = reply.heard_text
            now_ms = add_agent_turn(reply, end_ms + reply.compute_ms)
            if reply.end_call:
                end_reason = "agent_end_call"
                break
            if now_ms > settings.max_duration_s * 1000.0:
                end_reason = "max_turns"
                break
            utterance = simulator.respond(reply.text)
    except Exception as exc:  # an infrastructure failure is recorded, never scored as an agent failure
        end_reason = "error"
        error = f"{type(exc).__name__}: {exc}"

    conversation = Conversation(
        scenario_id=scenario.id,
        domain=scenario.domain,
        trial=trial,
        seed=derive_seed(cell_seed, *keys),
        turns=turns,
        end_reason=end_reason,
        initial_db=scenario.scenario_db,
        final_db=executor.db,
        expected_db=scenario.expected_scenario_db,
        key_entities=scenario.key_entities,
        error=error,
    )
    return conversation, audio


def render_tracks(conversation: Conversation, audio: ConversationAudio, sample_rate: int) -> dict[str, np.ndarray]:
    """Lay each turn's clips on the virtual timeline: one channel per speaker, as EVA-Bench records them."""
    import librosa  # heavy import, only needed when artifacts are written

    total = int(np.ceil((conversation.turns[-1].end_ms if conversation.turns else 0) / 1000.0 * sample_rate)) + 1
    tracks = {kind: np.zeros(total, dtype=np.float32) for kind in ("user_clean", "user_heard", "assistant")}
    for turn in conversation.turns:
        offset = int(turn.start_ms / 1000.0 * sample_rate)
        for kind in tracks:
            clip = audio.clips.get((turn.index, kind))
            if clip is None:
                continue
            samples = clip.samples
            if clip.sample_rate != sample_rate:
                samples = librosa.resample(samples, orig_sr=clip.sample_rate, target_sr=sample_rate)
            end = min(total, offset + len(samples))
            tracks[kind][offset:end] += samples[: end - offset]
    tracks["mixed"] = np.clip(tracks["user_heard"] + tracks["assistant"], -1.0, 1.0)
    return tracks
