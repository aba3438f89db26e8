"""LLM-ready prompts: App. L/K structure filled from the domain registry and the scenario record."""

from __future__ import annotations

import pytest

from evalkit.domains import tool_registry
from evalkit.domains.airline.policy import SAME_DAY_FEE
from evalkit.domains.scenarios import load_scenarios
from evalkit.prompts import render_agent_prompt, render_simulator_prompt
from evalkit.scenarios import Scenario


def test_agent_prompt_has_context_policy_numbers_and_every_tool() -> None:
    prompt = render_agent_prompt("airline", "2026-06-18 10:50 PST")
    assert "Today is 2026-06-18 10:50 PST." in prompt
    assert "SkyWay Airlines" in prompt
    assert f"Basic Economy: ${SAME_DAY_FEE['basic_economy']} change fee" in prompt  # from the enforced table
    for name in tool_registry("airline").names:
        assert f'"name": "{name}"' in prompt


def test_architectures_differ_where_the_paper_says() -> None:
    cascade, hybrid, s2s = (render_agent_prompt("airline", "now", a) for a in ("cascade", "hybrid", "s2s"))
    assert "transcription error" in cascade and "transcription error" not in hybrid
    assert "as soon as you have what it needs" in s2s and "as soon as you have what it needs" not in cascade
    with pytest.raises(ValueError, match="architecture must be one of"):
        render_agent_prompt("airline", "now", "telepathy")  # type: ignore[arg-type]


@pytest.mark.parametrize("scenario", load_scenarios("airline"), ids=lambda s: s.id)
def test_simulator_prompt_carries_every_runtime_variable(scenario: Scenario) -> None:
    goal = scenario.user_goal
    prompt = render_simulator_prompt(scenario)
    assert f'saying exactly: "{goal.starting_utterance}"' in prompt
    assert scenario.persona.text in prompt and scenario.current_date_time in prompt
    for rule in goal.decision_tree:
        assert f"{rule.id}. {rule.text}" in prompt
    for field, value in goal.information_required.items():
        assert f"- {field}: {value}" in prompt
    for text in (goal.resolution_condition, goal.failure_condition, goal.escalation_behavior, *goal.must_have_criteria):
        assert text in prompt


def test_behavioural_persona_text_replaces_the_scenario_persona() -> None:
    scenario = load_scenarios("airline")[0]
    prompt = render_simulator_prompt(scenario, persona_text="You speak very slowly...")
    assert "You speak very slowly..." in prompt and scenario.persona.text not in prompt


def test_unknown_domain_is_named() -> None:
    with pytest.raises(ValueError, match="domain 'circus' has no prompt texts"):
        render_agent_prompt("circus", "now")
