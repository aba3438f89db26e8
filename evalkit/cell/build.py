"""Stage 2 of a cell — build: the components a cell's conversations need (agent, caller voice, perturbation chain,
the listener ASR for agent-audio metrics). Each config builds its own component (its kind's registered class), so
this stage names no engine; the engines import the speech stack lazily: it is the slow part."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.config.schema import RunConfig
from evalkit.speech.registry import ASR_ENGINES, AsrConfig, Recognizer
from perturbations import Chain

# The listener for an agent that has no ASR of its own (a speech-to-speech or remote agent): the default engine.
LISTENER_ASR_KIND = "faster_whisper"


@dataclass(frozen=True)
class Components:
    """What one process builds once for a cell's conversations. A text cell (MM-τ-p²'s text modality) has no voice,
    line or ears: only its agent's text path."""

    agent: Any
    user_tts: Any = None
    chain: Chain | None = None
    listener: Recognizer | None = None  # the ASR that hears the agent's audio (agent-audio metrics need it)


def build_components(config: RunConfig, hears_agent_audio: bool) -> Components:
    """The cell's components, each built by its own config; ``hears_agent_audio``: build the listener ASR."""
    if config.modality.name == "text":
        return Components(config.agent.text_agent())
    agent = config.agent.build()
    if hasattr(agent, "listener"):  # a wire agent that may have to hear the agent's audio itself (no transcript)
        agent.listener = lambda: listener_asr(config, agent)
    listener = listener_asr(config, agent) if hears_agent_audio else None
    # The caller: speaker pool of the voice (accent x gender) with the persona's rate, pitch and pauses; it also
    # carries the persona's behaviour, which the orchestrator hands to the simulator.
    user_tts = config.voice.build(config.persona)
    chain = config.perturb.build() if config.perturb else Chain.from_specs([])
    if getattr(agent, "realtime", False) and len(chain):
        from evalkit.call.line import FILL_RATE

        chain.prepare(FILL_RATE)  # the caller's line renders the condition's bed in real time: warm it now
    return Components(agent, user_tts, chain, listener)


def listener_asr(config: RunConfig, agent: Any) -> Recognizer:
    """The cell's ASR for agent audio: the agent's own instance when it has one (no second model load), else
    one built from the agent's ASR config, else the default engine's defaults."""
    asr = getattr(agent, "asr", None)
    if asr is not None:
        return asr
    asr_config = getattr(config.agent, "asr", None)
    if not isinstance(asr_config, AsrConfig):
        asr_config = ASR_ENGINES.get(LISTENER_ASR_KIND)()
    return asr_config.build()
