"""Text-mode conversations: the local policy and the scripted simulator talk without TTS, channel or ASR.

What a spoken conversation becomes when the ear is perfect (or a given text-level ``ear``): the reference for
how much of a failure the audio path causes, a fast way to test dialogue logic, and the text-modality
condition MM-τ-p² compares voice against. Turns carry the tool calls the agent made; timestamps are turn
indices (no audio, so no latency metrics).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from evalkit.agents.base import ToolBox
from evalkit.agents.dialogue import make_policy
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor, ToolRegistry
from evalkit.domains.workflow import Workflow
from evalkit.orchestrator import tool_call_records
from evalkit.records import Conversation, Turn
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.scripted import ScriptedSimulator

Ear = Callable[[str], str]
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
    tools = ToolBox(executor)
    policy = make_policy(scenario.domain, tools, scenario.current_date_time, workflows)
    rng = rng if rng is not None else np.random.default_rng(0)
    simulator = ScriptedSimulator(scenario, persona, rng, workflows)
    turns: list[Turn] = []

    def add(role: str, text: str, heard: str | None = None) -> None:
        index = len(turns)
        calls = tool_call_records(tools.drain(), float(index), executor.registry) if role == "assistant" else []
        turns.append(
            Turn(
                index=index,
                role=role,  # type: ignore[arg-type]
                intended_text=text,
                heard_text=heard,
                start_ms=float(index),
                end_ms=index + 0.5,
                tool_calls=calls,
            )
        )

    add("assistant", policy.greet().text)
    utterance, end = simulator.first_utterance(), "max_turns"
    for _ in range(max_user_turns):
        if utterance.end_call:
            add("user", utterance.text)
            end = "user_end_call"
            break
        heard = ear(utterance.text)
        add("user", utterance.text, heard)
        reply = policy.step(heard)
        add("assistant", reply.text)
        if reply.end_call:
            end = "agent_end_call"
            break
        utterance = simulator.respond(reply.text)
    return Conversation(
        scenario_id=scenario.id,
        domain=scenario.domain,
        trial=0,
        seed=0,
        turns=turns,
        end_reason=end,  # type: ignore[arg-type]
        initial_db=scenario.scenario_db,
        final_db=executor.db,
        expected_db=scenario.expected_scenario_db,
        key_entities=scenario.key_entities,
    )


def transcript(conversation: Conversation) -> list[tuple[str, str]]:
    return [(turn.role, turn.intended_text) for turn in conversation.turns]
