"""The scripted caller's fallback for a scenario whose workflow is not one of evalkit's own (an imported EVA-Bench
record: ``eva_double_intent``, ``eva_1.2``): it cannot follow workflow slots it does not know, so it answers identity
and entity questions from the scenario's structured fields instead of going mute.

The fields it knows: ``user_goal.scripted.answers`` (the record's ``information_required``), ``key_entities`` and the
persona's own name (``name``, ``first_name``, ``last_name``). A field is asked for when the agent's text names it: by
its own words (``employee_id`` -> "employee id", ``date_of_birth`` -> "date of birth"), or by the label or question
of a domain slot of the same name (``phone_last_four`` -> "last four", ``otp_code`` -> "passcode"). The field named
last in the agent's turn is answered (the turn may start with what the agent did and end with its question), with
every other field it names before it. Nothing is invented: a question about anything else gets the usual answers.
The caller also restates its request when asked what it needs, and makes the record's further requests (its
``followups``) when asked whether there is anything else (``ScriptedSimulator._fallback``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from evalkit.domains.workflow import REFERENCE, Compute, Slot, Workflow
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import is_code
from evalkit.simulator.scripted.understanding import leftmost_longest
from evalkit.spoken import spell_code

NAME_LABELS = ("your name", "your full name", "full name")
# The scripted caller's yes/no decisions (``scripted.answers``): said when the agent asks for a decision, never as a
# field its words name ("Standby is free ..." is no question about "standby").
DECISIONS = frozenset({"confirm", "standby", "refund_instead", "accept_transfer", "accept_also"})


class FieldAnswers:
    def __init__(self, scenario: Scenario, slots: Iterable[Slot] = (), copies: Mapping[str, str] | None = None) -> None:
        first, _, last = scenario.persona.name.partition(" ")
        own = {"name": scenario.persona.name, "first_name": first, "last_name": last} if last else {}
        self.fields: dict[str, str] = {**own, **scenario.key_entities, **scenario.user_goal.scripted.answers}
        # a slot whose value a workflow copies into another name (``Compute("new_destination", "$nearby_airport")``)
        # is answered by the record's field of that name, as a caller gives the same airport however it is asked
        for slot_name, field in (copies or {}).items():
            if field in self.fields and slot_name not in self.fields:
                self.fields[slot_name] = self.fields[field]
        labels: dict[str, str] = {label: "name" for label in NAME_LABELS if "name" in self.fields}
        for name in self.fields:
            if name not in DECISIONS:
                labels[name.replace("_", " ")] = name
        # the domain's slot of each field the record gives (the first workflow's that has one): the value is said
        # and its read-back checked as the slot's kind says ("OH" said "Ohio", "2000000" as a number, a choice as
        # offered), as for a scenario of a workflow evalkit knows
        self.slots: dict[str, Slot] = {}
        for slot in slots:
            if slot.name in self.fields:
                self.slots.setdefault(slot.name, slot)
                labels.setdefault(slot.label.lower(), slot.name)
                labels.setdefault(slot.question.lower().rstrip("?. "), slot.name)
        self.labels = {label: name for label, name in labels.items() if label.strip()}
        self._patterns = {label: re.compile(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])") for label in self.labels}

    @classmethod
    def for_scenario(cls, scenario: Scenario, workflows: Mapping[str, Workflow] | None) -> FieldAnswers | None:
        """The fallback when evalkit knows no workflow of ``scenario`` (None: the caller's own script answers it).
        A scenario of evalkit's own format for a domain without workflows is answered by the caller's script."""
        names = scenario.workflow.split("+")
        if workflows and all(n in workflows for n in names):
            return None
        if not workflows and scenario.source != "eva_import":
            return None
        steps = [step for w in (workflows or {}).values() for step in w.steps]
        # a Compute that copies one value under another name: a reference without a path ("$nearby_airport")
        copies = {
            m.group(1): step.name
            for step in steps
            if isinstance(step, Compute) and isinstance(step.of, str) and (m := REFERENCE.match(step.of))
            and not m.group(2)
        }  # fmt: skip
        return cls(scenario, [slot for w in (workflows or {}).values() for slot in w.slots], copies)

    def asked(self, agent_text: str) -> list[str]:
        """The fields the agent's text names, in the order it names them (each once). A label inside a longer one
        that also matched names the longer one's field only ("last name" in "the dependent's last name")."""
        low = agent_text.lower()
        return leftmost_longest(
            (m.start(), m.end(), self.labels[label]) for label, pattern in self._patterns.items()
            for m in pattern.finditer(low)
        )  # fmt: skip


def say_record(value: str) -> str | None:
    """A record's structured value (JSON, as EVA-Bench stores a mapping or a list of trips) said as a person reads it
    out: each entry "<key in words>: <value>", a code spelled, entries apart with a pause ("; "), the last after
    "and": '{"HIPAA_TRAIN":"H7P2","TB_TEST":"T4B9"}' -> 'HIPAA TRAIN: H 7 P 2; and TB TEST: T 4 B 9'. None when
    ``value`` is no JSON object or list (dates and times in it are said by ``say_written_values`` afterwards)."""
    if not value.lstrip().startswith(("{", "[")):
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return None
    entries = _entries(data)
    if not entries:
        return None
    return entries[0] if len(entries) == 1 else f"{'; '.join(entries[:-1])}; and {entries[-1]}"


def _entries(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [f"{str(k).replace('_', ' ')}: {_said(v)}" for k, v in data.items() if v not in (None, "")]
    if isinstance(data, list):
        return [_said(item) for item in data if item not in (None, "")]
    return [_said(data)]


def _said(item: Any) -> str:
    if isinstance(item, dict | list):
        return ", ".join(_entries(item))
    text = str(item)
    return spell_code(text) if is_code(text) else text.replace("_", " ")
