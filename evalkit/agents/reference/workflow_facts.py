"""What the workflow engine (``evalkit.agents.reference.workflow_policy``) reads off a workflow's declaration, and the
arguments of its hand-over: pure functions, in their own module so the engine stays small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.domains.workflow import REFERENCE, Call, Derived, Escalate, Workflow, WorkflowError, resolve


def acts_for_others(workflow: Workflow) -> bool:
    """A task about another employee too (an offboarding, a new hire, a shift swap): it asks for a second identifier
    of the same form as the caller's own employee ID."""
    shape = {(s.kind, s.length, s.pattern) for s in workflow.slots if s.name == "employee_id"}
    return any((s.kind, s.length, s.pattern) in shape for s in workflow.slots if s.name != "employee_id")


def identity_slots(workflow: Workflow) -> set[str]:
    """The slots that feed its ``once`` calls (the caller's verification): known for the whole call."""
    refs: set[str] = set()
    for step in workflow.steps:
        if isinstance(step, Call) and step.once:
            for value in step.args.values():
                if isinstance(value, str) and (m := REFERENCE.match(value)):
                    refs.add(m.group(1))
                elif isinstance(value, Derived):
                    refs.update(r.split(".")[0] for r in value.refs)
    return refs


def handover_arguments(
    fields: Mapping[str, bool], reason: str, task: str | None, known: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The transfer tool's arguments, for the fields its schema has (``fields``: name -> required): EVA-Bench's
    ``transfer_reason`` from its list and ``issue_summary`` of 10-500 characters, and any other field (the verified
    caller's ``employee_id``, the booking's ``confirmation_number``) from what the call has ``known``; None when a
    required one is not known (the caller was never identified): no call rather than a call that must fail."""
    about = task.replace("_", " ") if task else "the caller's request"
    candidates = {
        **{name: value for name, value in known.items() if value},
        "transfer_reason": "unable_to_resolve",  # every transfer of this engine: something could not be done
        "issue_summary": f"Caller needs help with {about}; {reason}."[:500],
        "reason": reason,
    }
    if any(required and name not in candidates for name, required in fields.items()):
        return None
    return {name: value for name, value in candidates.items() if name in fields}


def escalation_arguments(rule: Escalate, scope: Mapping[str, Any]) -> dict[str, Any]:
    """The hand-over tool's arguments from the values gathered so far: one whose value is not gathered yet (the
    caller asked for a person before giving it) is left out, as the tool's optional fields are."""
    args: dict[str, Any] = {}
    for key, value in rule.args.items():
        try:
            args[key] = resolve(value, scope)
        except (WorkflowError, TypeError, ValueError):
            continue
    return args
