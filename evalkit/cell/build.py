"""Stage 2 of a cell — build: the components a cell's conversations need (agent, caller voice, perturbation chain,
the listener ASR for agent-audio metrics). Imports the speech stack lazily: it is the slow part."""

from __future__ import annotations

from typing import Any

from evalkit.config.schema import RunConfig


def build_components(config: RunConfig) -> tuple[Any, Any, Any]:
    """(agent, user_tts, perturb) for a config."""
    from evalkit.agents.cascade_local import CascadeLocalAgent
    from evalkit.speech import EspeakTTS, WhisperASR
    from evalkit.speech.voices import UserVoice
    from perturbations import Chain

    asr = WhisperASR(**config.agent.asr.model_dump())
    agent_tts = EspeakTTS(**config.agent.tts.model_dump(exclude={"engine"}))
    agent = CascadeLocalAgent(asr, agent_tts)
    # The caller: speaker pool of the voice (accent x gender) with the persona's rate, pitch and pauses; it also
    # carries the persona's behaviour, which the orchestrator hands to the simulator.
    user_tts = UserVoice.from_config(config.voice, config.persona)
    chain = Chain.from_specs(config.perturb.chain if config.perturb else [])
    return agent, user_tts, chain


def listener_asr(config: RunConfig, agent: Any) -> Any:
    """The cell's WhisperASR: the agent's own instance when it has one (no second model load)."""
    asr = getattr(agent, "asr", None)
    if asr is None:
        from evalkit.speech import WhisperASR

        asr = WhisperASR(**config.agent.asr.model_dump())
    return asr
