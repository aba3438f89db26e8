"""Simulation validation (EVA-Bench App. D.1), the deterministic part: which conversations must be regenerated.

A conversation is regenerated (with a new attempt seed) when any gate fails; the cell counts reruns per reason,
as EVA-Bench reports its rerun rates (24.1% of trials overall, 12.0% for simulator error).

Gates:
- ``valid_end`` (D.1.1, exact): the call ended because the user hung up or the agent stopped responding
  (or ended the call itself, which is the agent's behaviour and is scored). Infrastructure errors and calls cut
  by the turn/duration limit are invalid: they measure the pipeline, not the agent.
- ``premature_ending`` (D.1.2 type 2, deterministic stand-in for the M.7 judge): the user's last turn ends the
  call while giving the agent actionable information (an answer value from the decision tree or the option it
  accepts), so the agent never got to act on it.
- ``outside_goal`` (types 1 and 5, stand-in): the user said a code-like entity (e.g. "SK901", "7HQ4TZ") that is
  neither in its information nor among the options its decision tree may accept or name (an ordinal or a clock
  time, "the 14th", "10AM", is a date or time said as a person says it, not a code).
- ``duplicate_modification`` (type 4): the same write-tool call with identical arguments succeeded twice.
"Missing information" needs the judge (is an unanswered question the user's fault?) and is not checked here.

The LLM-judge gates (:func:`judge_flags`, through the cell's judge, ``judge=openai_compatible``) run only on a
conversation the deterministic gates pass (D.1.1: "conversations meeting this criterion proceed to the judges"; an
attempt that failed one is rerun anyway, so its judgment would be wasted):
- ``user_behavioral_fidelity`` (D.1.2, M.7): binary; rated 0 (any corruption type detected) -> rerun.
- ``user_speech_fidelity`` (D.1.3, M.6 adapted): 1-3 per user turn on a transcript of the caller's clean TTS audio;
  any turn rated 1 -> rerun.
With no judge configured, or a judgment that failed (endpoint down, invalid answer), a gate is *skipped*, recorded
with the reason in ``SimulationValidation.skipped`` and counted (``sim_gate_skipped_<gate>``), never passed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from evalkit.domains.base import ToolRegistry
from evalkit.records import Conversation, MetricValue
from evalkit.scenarios.schema import Scenario

VALID_END_REASONS = frozenset({"user_end_call", "agent_no_response", "agent_end_call"})
JUDGE_GATES = ("user_behavioral_fidelity", "user_speech_fidelity")  # App. D.1.2 and D.1.3, through the judge
GATES = ("valid_end", "premature_ending", "outside_goal", "duplicate_modification", *JUDGE_GATES)  # every gate, by name
CODE_LIKE = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,10}\b")
# Words that look code-like but are how a person says a date or a time ("the 14th", "10AM", "30PM" of "10:30PM"):
# a caller saying a record's date as people do has not said an entity outside its goal.
SPOKEN_NUMBER = re.compile(r"\d+(?:ST|ND|RD|TH|AM|PM)")


@dataclass(frozen=True)
class Flag:
    gate: str
    reason: str
    infrastructure: bool = False


def _compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _known_entities(scenario: Scenario) -> set[str]:
    goal, plan = scenario.user_goal, scenario.user_goal.scripted
    texts = [*goal.information_required.values(), *plan.answers.values(), *scenario.key_entities.values()]
    texts += [t for t in (plan.accept_option, plan.accept_say, plan.reject_say, plan.push_back_say) if t]
    texts += [goal.starting_utterance, goal.high_level_user_goal, *(r.text for r in goal.decision_tree)]
    return {_compact(m) for text in texts for m in CODE_LIKE.findall(text.upper())}


def valid_end(conversation: Conversation) -> list[Flag]:
    if conversation.end_reason in VALID_END_REASONS:
        return []
    detail = f": {conversation.error}" if conversation.error else ""
    return [Flag("valid_end", f"ended by {conversation.end_reason}{detail}", infrastructure=True)]


def premature_ending(conversation: Conversation, scenario: Scenario) -> list[Flag]:
    if conversation.end_reason != "user_end_call" or not conversation.user_turns:
        return []
    last = _compact(conversation.user_turns[-1].intended_text)
    plan = scenario.user_goal.scripted
    decisions = ("yes", "no")  # yes/no decisions (take standby, accept a transfer) are not information given
    values = [v for v in (*plan.answers.values(), plan.accept_option or "") if v.strip().lower() not in decisions]
    actionable = [v for v in values if len(_compact(v)) >= 3]
    given = [v for v in actionable if _compact(v) in last]
    return [Flag("premature_ending", f"the user hung up in the turn that gave {given}")] if given else []


def outside_goal(conversation: Conversation, scenario: Scenario) -> list[Flag]:
    known = _known_entities(scenario)
    flags = []
    for turn in conversation.user_turns:
        for entity in CODE_LIKE.findall(turn.intended_text.upper()):
            if _compact(entity) not in known and not SPOKEN_NUMBER.fullmatch(entity):
                flags.append(Flag("outside_goal", f"turn {turn.index}: the user said {entity!r}, not in its goal"))
    return flags


def duplicate_modifications(conversation: Conversation, registry: ToolRegistry) -> list[Flag]:
    writes = set(registry.write_tools)
    seen: set[str] = set()
    flags = []
    for call in conversation.tool_calls:
        if call.name not in writes or not call.ok:
            continue
        key = f"{call.name}:{json.dumps(call.arguments, sort_keys=True)}"
        if key in seen:
            flags.append(Flag("duplicate_modification", f"{call.name} repeated with {call.arguments}"))
        seen.add(key)
    return flags


def validate(conversation: Conversation, scenario: Scenario, registry: ToolRegistry) -> list[Flag]:
    """Every failed gate; an empty list means the conversation is valid and may be scored."""
    flags = valid_end(conversation)
    if any(f.infrastructure for f in flags) and conversation.end_reason == "error":
        return flags  # a crashed run has no behaviour worth judging
    return (
        flags
        + premature_ending(conversation, scenario)
        + outside_goal(conversation, scenario)
        + duplicate_modifications(conversation, registry)
    )


def judge_flags(judge: Callable[[str], MetricValue]) -> tuple[list[Flag], dict[str, str]]:
    """The LLM-judge gates on one conversation: ``judge(gate)`` is the judge's verdict for that gate's prompt.
    Returns the failed gates' flags and, per gate that could not be judged, why (skipped: neither passed nor
    failed)."""
    flags: list[Flag] = []
    skipped: dict[str, str] = {}
    for gate in JUDGE_GATES:
        value = judge(gate)
        if value.score is None:
            skipped[gate] = str(value.details.get("failed") or "the judge gave no rating")
        elif gate == "user_behavioral_fidelity" and value.score < 1.0:
            detected = ", ".join(value.details.get("detected") or []) or "corruption"
            flags.append(Flag(gate, f"the judge rated the user's behaviour 0 ({detected})"))
        elif gate == "user_speech_fidelity" and value.details.get("low_turns"):
            flags.append(
                Flag(gate, f"the judge rated user turn(s) {value.details['low_turns']} 1 (entity or major error)")
            )
    return flags, skipped
