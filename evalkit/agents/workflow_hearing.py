"""The workflow engine's side of format-aware hearing (issue 17.2, evalkit.agents.hearing): what vocabulary primes
the ASR and which hypothesis can be the answer, from the pending question of a ``WorkflowPolicy``. Its own module so
the engine stays small; ``evalkit.agents.hearing`` calls it."""

from __future__ import annotations

from collections.abc import Callable

from evalkit.agents.workflow_policy import WorkflowPolicy, hear_slot, match_workflows
from evalkit.spoken import parse_correction, parse_yes_no


def workflow_asr_context(policy: WorkflowPolicy) -> str | None:
    """While the caller says what they need: the domain's task names (its fixed vocabulary, "DEA transfer, FMLA
    leave"), which tiny.en otherwise writes as "DNA" or "family leave" (evalkit.agents.hearing)."""
    if policy.pending in ("intent", "choose", "anything_else"):
        return f"I can help with {policy._menu()}."
    if policy.pending == "slot" and policy.run is not None and policy.slot.kind == "time":
        return "The time, for example 2:30 PM or 7 AM."  # a format example: "7 a.m." was heard "Sam and Em"
    return None


def workflow_expected_form(policy: WorkflowPolicy) -> Callable[[str], bool] | None:
    """Which ASR hypothesis can be the answer to what was asked (evalkit.agents.hearing): one that names exactly
    one task, a slot value the slot's own parser accepts (a code of its length or pattern, a date, a time, one
    of a choice's options), a one-character correction of a read-back, a yes or a no; free text and names:
    the recogniser's best."""
    pending = policy.pending
    if pending in ("intent", "choose"):
        pool = policy.workflows if pending == "intent" else {n: policy.workflows[n] for n in policy.candidates}
        return lambda text: len(match_workflows(text, pool)) == 1
    if pending == "confirm":
        return lambda text: parse_yes_no(text) is not None
    if pending not in ("slot", "check") or policy.run is None:
        return None
    slot = policy.slot
    if pending == "check":
        if slot.kind in ("code", "digits", "name"):
            return lambda text: parse_correction(text) is not None
        return None
    if slot.kind in ("text", "name"):
        return None

    def fits(text: str) -> bool:
        value = hear_slot(slot, text, policy.today)
        if value is None:
            return False
        return (
            slot.kind not in ("code", "digits")
            or slot.pattern is not None
            or slot.length is None
            or (len(str(value)) == slot.length)
        )

    return fits
