"""Render the two prompts a remote LLM agent or an LLM user simulator needs.

Agent prompt (App. L, Table 55 variables ``{datetime}``, ``{agent_personality}``, ``{agent_instructions}``): a
shared voice-channel frame per architecture (cascade adds transcription-error awareness and information-density
guidance; speech-to-speech adds a call-tools-early preamble), then the domain's personality and instructions, then
the tool catalogue rendered from the domain's registry (names, descriptions, JSON schemas).

Simulator prompt (App. K, Table 54 variables), its text in ``simulator.yaml`` beside this module: role,
voice-channel note, personality, goal, must-have and nice-to-have criteria, how to evaluate options (the decision
tree), supporting information (given only when asked), today's date, guardrails (start with the starting utterance,
stay in character and on goal, refuse transfers when the escalation rule forbids them, end only through ``end_call``
and never in a turn that gives information or approval), success and failure cases, escalation, response format,
edge cases, spoken normalisation of codes and the NATO backup; and the ``end_call`` tool the caller hangs up with.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

import yaml

from evalkit.domains import DomainTexts, get_domain, tool_registry
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios.schema import Fact, Scenario
from evalkit.spoken_values import say_date, say_written_values

Architecture = Literal["cascade", "hybrid", "s2s"]

VOICE_FRAME = """You are an AI voice assistant on a live phone call. Everything you say is turned into speech.

# Context
Today is {datetime}.
{agent_personality}

# Instructions and policies
{agent_instructions}

# Speaking for the ear
- Short, complete sentences (about 5 to 20 words); punctuation that guides pacing.
- Say dates, times, amounts and years the way people say them ("three thirty PM", "twenty dollars").
- No lists, tables, links, emojis, symbols or formatting; spell out abbreviations.
- Read codes slowly, character by character.

# Conversation
- Two to four sentences per turn; summarise long lists and offer more detail on request.
- Ask for one or two details per turn.
- Never invent information; say when you do not have it."""

ARCHITECTURE_NOTES: dict[str, str] = {
    "cascade": (
        "\n- What you receive is a speech-recognition transcript and may contain errors. If something does not make "
        "sense, assume a transcription error and ask the caller to repeat or spell it.\n- Spread multi-part "
        "requests over several turns; the caller cannot absorb much audio at once."
    ),
    "hybrid": "\n- Spread multi-part requests over several turns; the caller cannot absorb much audio at once.",
    "s2s": (
        "\n- Call the right tool as soon as you have what it needs, and repeat tool calls until the task is done; "
        "answer directly only when no tool applies."
    ),
}

SIMULATOR_TEXTS_FILE = Path(__file__).with_name("simulator.yaml")


@functools.cache
def simulator_texts() -> dict[str, Any]:
    """The simulator prompt's data file (``simulator.yaml`` beside this module): the template, its version, the
    ``end_call`` tool and the cues; ``sha256`` is added: the hash of the whole file, so any edited text counts."""
    raw = SIMULATOR_TEXTS_FILE.read_bytes()
    texts: dict[str, Any] = yaml.safe_load(raw)
    texts["sha256"] = hashlib.sha256(raw).hexdigest()
    return texts


def simulator_prompt_id() -> str:
    """``<version>:<sha256[:12]>`` of the simulator prompt: a param, and part of an LLM simulator's identity."""
    texts = simulator_texts()
    return f"{texts['version']}:{texts['sha256'][:12]}"


def domain_texts(domain: str) -> DomainTexts:
    """The registered domain's prompt texts (agent personality and instructions, simulator role and notes)."""
    try:
        return get_domain(domain).texts
    except UnknownPluginError as exc:
        raise ValueError(f"domain {domain!r} has no prompt texts: {exc}") from None


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) if items else "- none"


def tool_catalogue(domain: str) -> str:
    registry = tool_registry(domain)
    entries = [json.dumps(registry[name].json_schema(), sort_keys=True) for name in registry.names]
    return "# Tools\n" + "\n".join(entries)


def render_agent_prompt(domain: str, datetime: str, architecture: Architecture = "cascade") -> str:
    if architecture not in ARCHITECTURE_NOTES:
        raise ValueError(f"architecture must be one of {sorted(ARCHITECTURE_NOTES)}, got {architecture!r}")
    texts = domain_texts(domain)
    frame = VOICE_FRAME.format(
        datetime=datetime,
        agent_personality=texts.agent_personality,
        agent_instructions=texts.agent_instructions,
    )
    return f"{frame}{ARCHITECTURE_NOTES[architecture]}\n\n{tool_catalogue(domain)}\n"


def _information_line(field: str, value: str, fact: Fact | None) -> str:
    """One line of the caller's information (App. K's ``{information_required}``). A scenario file's fact adds how
    the caller says it and the other names the agent may ask for it by (issue 29 point 4), so a model caller answers
    "booking reference" with the code, spelled as the file says; without a fact the line is EVA-Bench's own."""
    line = f"- {field}: {value}"
    spoken = fact.spoken if fact is not None and fact.spoken else _said(value)
    extra = []
    if spoken and spoken != value:
        extra.append(f'say it as "{spoken}"')
    if fact is None:
        return f"{line} ({extra[0]})" if extra else line
    if fact.aliases:
        extra.append("the agent may ask for it as " + ", ".join(f'"{a}"' for a in fact.aliases))
    return f"{line} ({'; '.join(extra)})" if extra else line


def _said(value: str) -> str:
    """How a person says a record value written for machines (issue 28 point 5): a date in words ("1997-09-14" ->
    "September fourteenth, nineteen ninety-seven"), an unambiguous clock time or a whole amount as said; the value
    itself when it needs no conversion."""
    value = str(value)
    whole_date = say_date(value.strip(), words=True)
    return whole_date if whole_date is not None else say_written_values(value)


def render_simulator_prompt(scenario: Scenario, persona_text: str | None = None) -> str:
    """The user-simulator prompt; ``persona_text`` (a behavioural persona's prompt) replaces the scenario's own."""
    goal = scenario.user_goal
    texts = domain_texts(scenario.domain)
    information = "\n".join(
        _information_line(field, value, scenario.facts.get(field)) for field, value in goal.information_required.items()
    )
    return simulator_texts()["template"].format(
        role=texts.simulator_role,
        user_persona=persona_text or scenario.persona.text,
        high_level_user_goal=goal.high_level_user_goal,
        must_have_criteria=_bullets(goal.must_have_criteria),
        nice_to_have_criteria=_bullets(goal.nice_to_have_criteria),
        negotiation_behavior="\n".join(f"{rule.id}. {rule.text}" for rule in goal.decision_tree),
        domain_notes=texts.simulator_domain_notes,
        information_required=information,
        current_date_time=scenario.current_date_time,
        starting_utterance=goal.starting_utterance,
        resolution_condition=goal.resolution_condition,
        failure_condition=goal.failure_condition,
        escalation_behavior=goal.escalation_behavior,
        edge_cases="\n".join(f"- {case}" for case in goal.edge_cases),  # the template adds its own
    )
