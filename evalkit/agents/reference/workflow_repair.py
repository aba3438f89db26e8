"""Which value the workflow engine asks again after a failed call (``WorkflowPolicy._after_error``, issue 17.2): the
one most likely misheard, never one another call already accepted. Pure functions of the step, the tool's result and
the values gathered; in their own module so the engine stays small."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evalkit.agents.reference.workflow_facts import identity_slots
from evalkit.domains.workflow import REFERENCE, Ask, Call, Derived, Workflow, WorkflowError, resolve

# The likelier a kind of value is misheard, the earlier it is asked again: IDs, figures, dates, ... and last the values
# heard against a fixed list (choices)
REASK_ORDER = ("code", "digits", "number", "date", "time", "email", "name", "text", "yes_no", "choice")


def _unresolved(value: Derived, scope: Mapping[str, Any]) -> bool:
    """A Derived argument the caller's words did not give (its function answered None)."""
    try:
        return resolve(value, scope) is None
    except (WorkflowError, TypeError, ValueError):  # a value it needs is missing or unusable: not given either
        return True


def fed_slots(step: Call) -> set[str]:
    """The names a call's arguments read directly (``$slot`` or a ``Derived`` of it): the values it tested."""
    names = {m.group(1) for v in step.args.values() if isinstance(v, str) and (m := REFERENCE.match(v))}
    return names | {r.split(".")[0] for v in step.args.values() if isinstance(v, Derived) for r in v.refs}


def slots_to_reask(
    step: Call, result: Mapping[str, Any], workflow: Workflow, scope: Mapping[str, Any], accepted: set[str]
) -> list[str]:
    """The workflow's slots that fed the failed ``step``, in the order to ask them again: those no call accepted yet
    (all of them when every one was), first what the caller's words did not give (a Derived that came out None) or
    what the tool's error names ("Invalid date_of_birth 'family ride in 1974'"), then by ``REASK_ORDER``."""
    slots = {s.slot.name: s.slot for s in workflow.steps if isinstance(s, Ask)}
    message = str(result.get("message", ""))
    fed = [
        m.group(1)
        for v in step.args.values()
        if isinstance(v, str) and (m := REFERENCE.match(v)) and m.group(1) in slots and not m.group(2)
    ]
    fed += [r for v in step.args.values() if isinstance(v, Derived) for r in v.refs if r in slots]
    fed += [r for r in (step.each.refs if step.each else ()) if r in slots]
    # a value the error states is asked again even if an earlier lookup took it ("The check-in must be on or after
    # the leave's end, not 2026-10-04": the availability check accepted the date, the booking did not); never the
    # caller's verified identity, which an error may quote as whose record it is
    refused = {name for name in fed if stated_in(scope.get(name), message)} - identity_slots(workflow)
    fed = [name for name in fed if name not in accepted or name in refused] or fed
    unheard = {r for v in step.args.values() if isinstance(v, Derived) and _unresolved(v, scope) for r in v.refs}
    unheard |= {
        name
        for key, value in step.args.items()
        # the argument named by its key, or in words as the error's subject ("Last name does not match ...", not
        # "no employee with that ID and last name", which names both)
        if re.search(rf"\b{re.escape(key)}\b", message)
        or re.match(rf"\W*{re.escape(key.replace('_', ' '))}\b", message, re.IGNORECASE)
        for name in fed_slots(Call(step.tool, {key: value}))
    }
    # the value the error quotes ("Building 'hardware point' not recognized"): the one it could not resolve
    unheard |= {name for name in fed if named_in(scope.get(name), message)} | (refused & set(fed))
    return sorted(fed, key=lambda name: (name not in unheard, REASK_ORDER.index(slots[name].kind)))


def named_in(value: Any, message: str) -> bool:
    """Whether a tool's error message quotes this slot value (the value it could not resolve)."""
    return isinstance(value, str) and bool(value) and f"'{value}'".lower() in message.lower()


def stated_in(value: Any, message: str) -> bool:
    """Whether a tool's error message states this slot value as a whole word, quoted or not ("..., not 2026-10-04"):
    the value the call refused. Values of three characters or more only (a "1" or a "no" is in many messages)."""
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return len(text) >= 3 and re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", message, re.IGNORECASE) is not None
