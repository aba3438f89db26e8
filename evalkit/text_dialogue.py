"""Text-mode conversations: the local policy and the scripted simulator talk without TTS, channel or ASR.

What a spoken conversation becomes when the ear is perfect (or a given text-level ``ear``): the reference for
how much of a failure the audio path causes, a fast way to test dialogue logic, and the text-modality
condition MM-τ-p² compares voice against. It is the call loop of every conversation (evalkit.call) with a text
channel; an utterance lasts as long as it takes to say at 150 words per minute.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from evalkit.agents.reference.local_text import LocalTextAgent
from evalkit.call import CallSettings, TextChannel, run_text_conversation
from evalkit.call.channel import Ear
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.domains.workflow import Workflow
from evalkit.records import Conversation
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.scripted.caller import ScriptedSimulator

MAX_USER_TURNS = 60  # a four-task call with a hard persona runs past 40 user turns


def run_text_dialogue(
    scenario: Scenario,
    ear: Ear = lambda text: text,
    persona: PersonaSpec | None = None,
    rng: np.random.Generator | None = None,
    max_user_turns: int = MAX_USER_TURNS,
    *,
    registry: ToolRegistry | None = None,
    workflows: Mapping[str, Workflow] | None = None,
) -> Conversation:
    """One conversation in text; ``ear`` turns what the user said into what the agent hears.

    ``registry`` and ``workflows`` stand in for a domain package's ``REGISTRY`` and ``WORKFLOWS`` (a domain built
    inside a test); by default both come from ``evalkit.domains.<scenario.domain>``.
    """
    executor = ToolExecutor(registry or tool_registry(scenario.domain), scenario.scenario_db)
    rng = rng if rng is not None else np.random.default_rng(0)
    simulator = ScriptedSimulator(scenario, persona, rng, workflows)
    # No duration cap in text mode: the turn cap bounds it (text timing is an estimate, not a measured call).
    settings = CallSettings(max_user_turns=max_user_turns, max_duration_s=float("inf"))
    return run_text_conversation(scenario, LocalTextAgent(workflows), simulator, TextChannel(ear), executor, settings)


def transcript(conversation: Conversation) -> list[tuple[str, str]]:
    return [(turn.role, turn.intended_text) for turn in conversation.turns]
