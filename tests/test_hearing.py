"""Format-aware hearing (issue 17.2): the ASR's n best transcripts, and the agent taking the best one of the form it
asked for (evalkit.agents.reference.hearing) — with the real Whisper model and eSpeak audio, no stand-ins."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pytest

from evalkit.agents.base import AgentContext, ToolBox
from evalkit.agents.reference.cascade_local import CascadeLocalAgent
from evalkit.agents.reference.hearing import choose_hypothesis, expected_form
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios
from evalkit.records import AudioClip
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.spoken import parse_code
from tests.test_workflow_policy import DB, REGISTRY, WORKFLOWS

# eSpeak's en-us voice spelling a code the way the scripted caller does; tiny.en's best (greedy and beam) transcript
# of it has no six-character run, hypotheses of a five-wide beam do (measured; the test checks it, see below).
SPELLED = "It's W, K, 2, E, X, B."


@pytest.fixture(scope="module")
def spelled() -> tuple[np.ndarray, int]:
    return EspeakTTS("en-us", rate_wpm=165, pitch=50).synthesize(SPELLED)


def six(text: str) -> bool:
    return len(parse_code(text) or "") == 6


def test_the_first_hypothesis_of_the_form_wins_else_the_best() -> None:
    alternatives = ("It's not okay to be XB.", "It's W K 2 E X P.", "It's W K 2 E X B.")
    assert choose_hypothesis(alternatives, six) == "It's W K 2 E X P."  # the most likely of the form, not the truth
    assert choose_hypothesis(alternatives[:1], six) == alternatives[0]  # none of the form: the recogniser's best
    assert expected_form(object()) is None  # a policy without a form check hears the best transcript


def test_the_asr_returns_its_n_best_and_the_cache_keeps_them(tmp_path: Path, spelled) -> None:
    asr = WhisperASR(cache_dir=tmp_path)
    plain = asr.transcribe(*spelled)
    assert plain.alternatives == ()  # one hypothesis unless asked
    n_best = asr.transcribe(*spelled, alternatives=5)
    assert n_best.alternatives[0] == n_best.text
    assert 2 <= len(n_best.alternatives) <= 5 and len(set(n_best.alternatives)) == len(n_best.alternatives)
    assert not six(plain.text) and any(six(t) for t in n_best.alternatives), (plain.text, n_best.alternatives)
    again = WhisperASR(cache_dir=tmp_path)
    again._model = None  # a hit must not decode (a None model would raise)
    assert again.transcribe(*spelled, alternatives=5) == n_best  # the hypotheses come back from the cache
    assert again.transcribe(*spelled) == plain  # and the one-best decode is keyed apart from the n-best one


def _airline_agent(alternatives: int, tmp_path: Path) -> CascadeLocalAgent:
    scenario = load_scenarios("airline", ["AL-001"])[0]
    agent = CascadeLocalAgent(WhisperASR(cache_dir=tmp_path), EspeakTTS("en-gb"), alternatives=alternatives)
    agent.start(
        AgentContext("airline", scenario.current_date_time, ToolBox(ToolExecutor(tool_registry("airline"), {})))
    )
    assert isinstance(agent._policy, WorkflowPolicy)
    asked = agent._policy.step("I need to cancel my reservation.").text
    assert "six-character confirmation number" in asked  # the agent has just asked for the code
    return agent


def test_the_agent_takes_the_hypothesis_of_the_asked_form(tmp_path: Path, spelled) -> None:
    clip = AudioClip(samples=spelled[0], sample_rate=spelled[1])
    best_only = _airline_agent(1, tmp_path).respond(clip)
    assert not six(best_only.heard_text or "")  # the recogniser's best has no code in it
    n_best = _airline_agent(5, tmp_path).respond(clip)
    heard = parse_code(n_best.heard_text or "")
    assert heard is not None and len(heard) == 6  # what it acted on, and what the record shows as heard
    assert n_best.text == f"I have {' '.join(heard)}. Is that right?"  # read back: the caller corrects the rest


def test_the_workflow_policy_asks_for_the_form_of_each_pending_answer() -> None:
    tools = ToolBox(ToolExecutor(REGISTRY, DB))
    policy = WorkflowPolicy(tools, date(2026, 6, 20), WORKFLOWS)
    fits = expected_form(policy)
    assert fits is not None and fits("I need some time off") and not fits("I need a hat")  # one task named
    policy.step("I need some time off")  # -> asks the employee ID (a code of seven characters)
    fits = expected_form(policy)
    assert fits is not None and fits("It's E M P 4 4 7 2.") and not fits("It's E M P 4 4.")
    policy.step("It's E M P 4 4 1 2.")  # -> read back
    fits = expected_form(policy)
    assert fits is not None and fits("No, the sixth character is the number seven.") and not fits("Yes.")
    policy.step("Yes, that's right.")  # -> the last name: free of form, the recogniser's best
    assert expected_form(policy) is None


@pytest.mark.slow
def test_the_task_names_are_heard_without_a_recogniser_prompt(tmp_path: Path) -> None:
    """medical_hr's fixed vocabulary with the natural voice: "DEA" is heard as said, with no prompt (issue 28.3: the
    task-name prompt that tiny.en needed for eSpeak's "DEA", heard "DNA", is retired)."""
    from evalkit.agents.reference.workflow_policy import match_workflows
    from evalkit.domains import get_domain
    from evalkit.speech.piper_tts import PiperTTS

    workflows = get_domain("medical_hr").workflows
    assert workflows is not None
    samples, rate = PiperTTS("en_US-joe-medium").synthesize(
        "Hi. I need to transfer my DEA registration to a new facility."
    )
    heard = WhisperASR(cache_dir=tmp_path).transcribe(samples, rate).text
    assert match_workflows(heard, workflows) == ["dea_transfer"], heard
    policy = WorkflowPolicy(ToolBox(ToolExecutor(tool_registry("medical_hr"), {})), date(2026, 6, 20), workflows)
    policy.step(heard)  # -> the NPI number: an answer of a known form (ten digits)
    assert expected_form(policy) is not None and not hasattr(policy, "asr_context")
