"""Declarative workflows: one description of a domain task that three parties read.

- the scenario generator runs it with the scenario's true slot values on the initial DB to produce the
  reference path and the expected DB (``run_reference``), so expected states are executed, never typed;
- the local agent's workflow engine walks the same steps, filling slots from what its ASR heard (so a misheard
  entity changes the outcome exactly where it would for a real agent);
- the scripted simulator answers the slot questions from the scenario's answers (the question names the slot's
  ``label``).

A workflow is an ordered tuple of steps:

- ``Ask(slot)``: the agent asks for a slot value (``Slot.kind`` says how to parse and whether to read it back);
- ``Call(tool, args, name=..., require=...)``: call a tool; argument values are templates (below); ``require``
  maps result paths to the value the workflow needs to go on (e.g. ``{"eligible": True}``); when a requirement
  fails the workflow stops with ``refusal`` spoken (policy boundary: adversarial scenarios end here);
- ``Confirm(text)``: the agent states what it will do and needs a yes; a no ends the workflow, nothing written;
- ``Say(text)``: the agent tells the caller something (e.g. a ticket number from a result); ``end=True``: the
  task is done there (a branch that is complete, such as a standby listing within a same-day change);
  ``end_call=True``: the call ends there (a hand-over to a live agent, after the transfer tool was called);
- ``Refuse(text, when=...)``: the policy boundary the agent itself checks (no tool does): when ``when`` holds the
  workflow stops with ``text`` spoken, nothing written (an FMLA request longer than the weeks left);
- ``Offer(items, value, option, slot)``: offer-and-choose over a list an earlier call returned: the agent says up to
  ``limit`` items (each as the ``option`` template says it), hears the caller's choice against them (its value, an
  ordinal, the words of one option), reads it back and binds the chosen item's ``value`` to ``slot`` (the whole
  item to ``name``); an empty list stops the workflow with ``none`` spoken; a caller who takes none of them is asked
  the ``again`` slot once more (a new search, at most ``retries`` times), else the workflow ends, nothing written;
- ``Compute(name, of)``: a value put into the scope under ``name`` (nothing said, no tool called), so a later step
  can quote it (a fee, a total, the refund or credit a cancellation gives) or branch on it: ``of`` is a literal, a
  ``"$ref"`` template or a ``Derived`` (a pure function of earlier values, written in Python beside the workflow;
  no string is ever evaluated).

``Workflow.priority``: when a request matches several workflows' intents, the highest priority wins before the
longest phrase does (a fee waiver for a bereavement over the change its words also name).

``Workflow.escalate`` (an ``Escalate(tool, args)``): a caller who asks for a person (a supervisor, a live agent) at
any step of the workflow, or after it was refused, is handed over with that tool at once; ``args`` are templates
over the values gathered so far (one whose value was not gathered yet is left out).

Templates: a string argument ``"$slot_name"`` is the slot's value, ``"$step_name.a.b"`` (or ``.0`` for a list
index) is a value from an earlier call's result; any other value is a literal. Text templates use the same
references in ``{...}``, e.g. ``"Your case number is {submit.case_id}."``.

Branches (ITSM: troubleshooting must fail before a ticket; HR: OTP elevation) are expressed with
``Ask(yes_no slot)`` + ``Call(..., when="$slot")`` / ``when="!$slot"``: a step with ``when`` runs only if the
referenced value is truthy (or falsy with ``!``); a reference to a call that did not run (or a result without the
field) is falsy. ``when="$ref=value"`` (``!$ref=value``) compares the value's text instead (e.g. the choice a caller
made). ``when`` may also be a ``Derived`` (its value's truth decides), and ``$today`` is the call's date (ISO).
``$requested`` (a ``Derived``'s input) is the caller's words that started the task.

A ``Call`` may name ``errors_ok``: error types that are an answer, not a failure (an unlock refused for a security
hold, a device too new to replace): the error result goes into the scope like a success, and ``require`` decides;
``refuse_on``: error types that are the policy's refusal (EVA-Bench's eligibility checks answer "no" with an error);
``each``: one call per item of a list of argument sets, with ``total``: the result fields summed over those calls
(the refund and the credit of every booking cancelled). ``Derived(fn, "$ref", ...)`` as an argument is ``fn`` of the
values (an SLA tier from the urgency); a ``Slot`` may ``normalize`` the parsed value to the tool's format (a floor
"2" -> "FL2") or give a code's written ``pattern`` (its dashes put back).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evalkit.domains.base import ToolExecutor, ToolRegistry

SlotKind = Literal["code", "digits", "name", "date", "time", "number", "choice", "yes_no", "text", "email"]
REFERENCE = re.compile(r"^\$([a-z_][a-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)$")
TEXT_REFERENCE = re.compile(r"\{([a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}")


class WorkflowError(ValueError):
    """A workflow that cannot run: unknown tool or reference, a failed call on the reference path."""


class RecordError(WorkflowError):
    """A ``Derived`` rule that cannot read the records it was given (a reservation without bookings, a field a
    tool's result lacks): the data, not the declaration. An agent hands such a call over; a reference run fails."""


@dataclass(frozen=True)
class Slot:
    """A piece of information the caller must give. ``label`` must appear in the agent's question (the scripted
    simulator matches on it); ``length`` constrains codes and digit strings (e.g. NPI: 10 digits)."""

    name: str
    kind: SlotKind
    question: str
    label: str = ""
    length: int | None = None
    choices: tuple[str, ...] = ()
    read_back: bool = False
    # The parsed value in the form the tools take (None when it cannot be put in that form: ask again).
    normalize: Callable[[Any], Any] | None = None
    # A code's written form, as a regex with its dashes (e.g. ``[A-Z]{2,4}-\d{2}[A-Z]``): callers spell the
    # characters and the dashes go unheard, so the parser puts them back where the format has them.
    pattern: str | None = None
    # The answer is one of the names an earlier call returned: (``"$call.list"``, the items' name field), e.g. the
    # caller's licensed products. The agent hears the answer against those names (issue 17.2: values it has from
    # its tools), and the caller's words are kept as said when none is close.
    among: tuple[str, str] | None = None
    # The domain's fixed vocabulary the answer comes from (US states, the document types a tool takes): heard as the
    # closest of these names (issue 17.2: a listener who knows the options).
    vocabulary: tuple[str, ...] = ()
    # How a person says a value the tools write as a code: (value, words) pairs, e.g. ("OH", "Ohio"),
    # ("reactivate_full", "Full access"). The caller says the words (issue 28.5: a record said as a person would);
    # the agent hears them against ``vocabulary``.
    said_as: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        label = self.label or self.name.replace("_", " ")
        object.__setattr__(self, "label", label)
        if label.lower() not in self.question.lower():
            raise WorkflowError(f"slot {self.name}: the question must name the label {label!r}: {self.question!r}")
        if self.kind == "choice" and not self.choices:
            raise WorkflowError(f"slot {self.name}: a choice slot needs choices")


@dataclass(frozen=True)
class Ask:
    slot: Slot
    when: str | None = None


@dataclass(frozen=True, init=False)
class Derived:
    """An argument computed from slots and results: an ID the tool wants in a form the caller does not say
    (``SHF-<date>-<time>`` from a shift's date and start time), a spoken name mapped to a code, an SLA tier from the
    urgency. Written ``Derived(fn, "$ref", ...)`` or ``Derived(("ref", ...), fn)``; ``refs`` are kept as in
    templates, without the ``$``. ``fn`` is pure and gets the values in order (a reference that cannot be resolved
    is an error, as for a plain reference); None from it means the caller's words did not give the value."""

    refs: tuple[str, ...]
    fn: Callable[..., Any]

    def __init__(self, first: Callable[..., Any] | tuple[str, ...], *rest: Any) -> None:
        if callable(first):
            fn, refs = first, rest
        elif len(rest) == 1 and callable(rest[0]):
            refs, fn = tuple(first), rest[0]
        else:
            raise TypeError("Derived(fn, '$ref', ...) or Derived(('ref', ...), fn)")
        object.__setattr__(self, "refs", tuple(str(r).lstrip("$") for r in refs))
        object.__setattr__(self, "fn", fn)


@dataclass(frozen=True)
class Call:
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    name: str | None = None
    require: Mapping[str, Any] = field(default_factory=dict)
    refusal: str = "I'm sorry, I can't do that under our policy."
    when: str | None = None
    # Once per call: a later task reuses the result of the same call (the caller is not verified again). Once a
    # workflow makes one of its ``once`` calls afresh (e.g. manager auth, which starts a new session), its later
    # ``once`` calls are made afresh too: the session they built on is gone.
    once: bool = False
    # Error types that answer the call (the result is kept and ``require`` decides) rather than fail it.
    errors_ok: tuple[str, ...] = ()
    # One call per item of this list of argument sets (each merged into ``args``): a request of several like
    # things (the onboarding tasks a caller finished, each with its own code); the result is the last call's.
    each: Derived | None = None
    # With ``each``: result fields summed over all its calls (the result under ``name`` is the last call's with these
    # fields the totals), so later steps quote, pass on or branch on the whole, e.g. the refund of every journey.
    total: tuple[str, ...] = ()
    # With ``each``: the items are tried in order until one call succeeds (a ranked choice: "aisle, then window"),
    # not all made; the task fails only when none does.
    first_ok: bool = False
    # Error types that are the policy's answer, not a mistake (EVA-Bench's eligibility checks answer "no" with an
    # error): the workflow stops with ``refusal`` as for a failed ``require``; the error is in scope as ``name``.
    refuse_on: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.total and self.each is None:
            raise WorkflowError(f"call {self.tool}: total= sums the results of an each= call; this call has no each")

    def accepts(self, result: Mapping[str, Any]) -> bool:
        """A success, or an error of one of the ``errors_ok`` types."""
        return result.get("status") == "success" or result.get("error_type") in self.errors_ok


def totalled(step: Call, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An ``each`` call's result for the scope: the last call's, each ``total`` field the sum over all the calls (a
    call whose result lacks the field adds nothing)."""
    last = dict(results[-1]) if results else {}
    for name in step.total:
        last[name] = sum(v for r in results if isinstance(v := r.get(name), int | float))
    return last


def memo_key(tool: str, args: Mapping[str, Any]) -> str:
    """Identity of a call for ``Call.once``: the tool and its arguments."""
    return json.dumps([tool, args], sort_keys=True, default=str)


@dataclass(frozen=True)
class Confirm:
    text: str
    when: str | None = None


@dataclass(frozen=True)
class Say:
    text: str
    when: str | Derived | None = None
    end: bool = False  # the task is done after it: the steps below are another branch's
    end_call: bool = False  # the call ends once it is said (a hand-over to a live agent, made by the step before)


@dataclass(frozen=True)
class Refuse:
    text: str
    when: str | Derived | None = None


@dataclass(frozen=True)
class Switch:
    """The task goes on as the domain's workflow ``workflow``, what was gathered kept (the caller is not asked again):
    a request this workflow cannot serve but that one can (a rebooking with no disruption on record: a change)."""

    workflow: str
    when: str | Derived | None = None


@dataclass(frozen=True)
class Offer:
    """Offer-and-choose (see the module docstring). ``items``: a reference to a list of mappings (``"$search.found"``);
    ``value``: the item field the ``slot`` takes (its question names the label, as for ``Ask``); ``option``: how one
    item is said, a ``{field}`` template over the item (``"flight {number} at {departs}"``)."""

    items: str
    value: str
    option: str
    slot: Slot
    name: str | None = None
    limit: int = 3
    none: str = "I'm sorry, I found nothing that fits."
    again: str | None = None  # an earlier Ask slot to ask again when the caller takes none (a new search)
    retries: int = 1
    when: str | None = None
    # nothing on offer, or none taken: say ``none`` and go on to the next step instead of ending the task (a later
    # step searches elsewhere, ``when="!$chosen"``: another day after a disrupted flight)
    fall_through: bool = False
    # where the caller may take several options at once (standby on two flights): the name the list of the items taken
    # is bound to (the first is bound as usual; one taken: a list of one), and the ``when`` under which several may be
    # taken (otherwise naming two is unclear and asked again)
    several: str | None = None
    several_when: str | Derived | None = None

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise WorkflowError(f"offer {self.slot.name}: limit must be at least 1, got {self.limit}")


# The words of a caller asking for a person instead of the agent ("can I speak to a supervisor?", "get me a human").
ESCALATION_CUE = (
    r"\b(?:supervisor|manager|live agent|real person|human being|a human|representative|someone else|somebody else)\b"
)


@dataclass(frozen=True)
class Escalate:
    """The workflow's hand-over when the caller asks for a person at any step: ``tool`` with ``args`` (templates;
    one whose value is not gathered yet is left out), ``text`` said as the call ends; ``cue``: a regular expression
    (case-insensitive) for such a request in the caller's words."""

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = "Of course. I'm transferring you to a supervisor now."
    cue: str = ESCALATION_CUE


@dataclass(frozen=True)
class Compute:
    """A value into the scope under ``name`` (see the module docstring): ``of`` is resolved as a call argument is
    (a literal, ``"$ref"`` or ``Derived``); a reference it needs that was not gathered is an error, as for a call."""

    name: str
    of: Any
    when: str | Derived | None = None


Step = Ask | Call | Confirm | Say | Refuse | Offer | Compute | Switch
TODAY = "today"  # the scope's name for the call's date (ISO), for a ``Derived`` that compares against it
NOW = "now"  # the call's date and time ("YYYY-MM-DD HH:MM") where the agent knows it (a 24-hour rule)
# The caller's words that started the task, as heard ("cancel just the return part of my trip"): a ``Derived`` reads
# which of several like things the caller named (the reference run takes them from ``answers``, else "").
REQUESTED = "requested"
BUILT_IN = (TODAY, NOW, REQUESTED)  # names in every scope: no step has to gather them


@dataclass(frozen=True)
class Workflow:
    """``intents``: phrases that identify the workflow in the caller's opening request (lower case)."""

    name: str
    description: str
    intents: tuple[str, ...]
    steps: tuple[Step, ...]
    escalate: Escalate | None = None  # a caller asking for a person at any step: this hand-over (None: no rule)
    priority: int = 0  # of the workflows a request matches, the highest priority wins (a waiver over a change)

    @property
    def slots(self) -> list[Slot]:
        return [step.slot for step in self.steps if isinstance(step, Ask | Offer)]

    @property
    def tools(self) -> list[str]:
        return [step.tool for step in self.steps if isinstance(step, Call)]

    def check(self, registry: ToolRegistry) -> None:
        """Every tool exists and every reference names a slot or an earlier named call."""
        known: set[str] = set()
        for i, step in enumerate(self.steps):
            where = f"workflow {self.name} step {i}"
            for ref in _references(step):
                if ref not in known:
                    raise WorkflowError(f"{where}: reference ${ref} is neither a slot nor an earlier named call")
            if isinstance(step, Ask):
                known.add(step.slot.name)
            elif isinstance(step, Offer):
                if step.again is not None and step.again not in {s.name for s in self.slots}:
                    raise WorkflowError(f"{where}: offer again={step.again!r} is no slot of the workflow")
                known.update(n for n in (step.slot.name, step.name, step.several) if n)
            elif isinstance(step, Compute):
                known.add(step.name)
            elif isinstance(step, Call):
                if step.tool not in registry:
                    raise WorkflowError(f"{where}: unknown tool {step.tool!r}")
                if step.name:
                    known.add(step.name)
        if self.escalate is not None and self.escalate.tool not in registry:
            raise WorkflowError(f"workflow {self.name} escalate: unknown tool {self.escalate.tool!r}")


def _references(step: Step) -> list[str]:
    refs: list[str] = []
    if isinstance(step.when, Derived):
        refs += [r.split(".")[0] for r in step.when.refs if r not in BUILT_IN]
    elif step.when:
        refs.append(step.when.lstrip("!$").partition("=")[0].split(".")[0])
    values = list(step.args.values()) if isinstance(step, Call) else [step.of] if isinstance(step, Compute) else []
    refs += [m.group(1) for v in values if isinstance(v, str) and (m := REFERENCE.match(v))]
    refs += [r.split(".")[0] for v in values if isinstance(v, Derived) for r in v.refs if r not in BUILT_IN]
    if isinstance(step, Call):
        refs += [r.split(".")[0] for r in (step.each.refs if step.each else ()) if r not in BUILT_IN]
    if isinstance(step, Confirm | Say | Refuse):
        refs += [m.split(".")[0] for m in TEXT_REFERENCE.findall(step.text)]
    if isinstance(step, Offer):
        refs.append(step.items.lstrip("$").split(".")[0])
    return refs


def offered(step: Offer, scope: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The items an ``Offer`` says: the first ``limit`` mappings of its list (none when the list is missing)."""
    try:
        items = resolve(step.items, scope)
    except WorkflowError:
        return []
    return [item for item in items or () if isinstance(item, Mapping)][: step.limit]


def bind_choice(step: Offer, item: Mapping[str, Any], scope: dict[str, Any]) -> None:
    """The chosen item into the scope: its ``value`` as the slot, the whole item under ``name``."""
    scope[step.slot.name] = item.get(step.value)
    if step.name:
        scope[step.name] = item
    if step.several:
        scope[step.several] = [item]


def lookup(path: str, scope: Mapping[str, Any]) -> Any:
    """``slot`` or ``call.a.0.b`` in ``scope`` (slot values and named call results)."""
    head, *rest = path.split(".")
    if head not in scope:
        raise WorkflowError(f"no value for ${head}")
    value = scope[head]
    for part in rest:
        if isinstance(value, Sequence) and not isinstance(value, str) and part.isdigit():
            value = value[int(part)]
        elif isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            raise WorkflowError(f"${path}: no {part!r} in {value!r:.200}")
    return value


def resolve(value: Any, scope: Mapping[str, Any]) -> Any:
    if isinstance(value, Derived):
        args = [lookup(ref, scope) for ref in value.refs]
        try:
            return value.fn(*args)
        except (LookupError, TypeError, AttributeError) as exc:  # the rule's own reads of the records it got
            raise RecordError(f"a rule could not read the records: {type(exc).__name__}: {exc}") from exc
    if isinstance(value, str) and (match := REFERENCE.match(value)):
        return lookup(match.group(1) + match.group(2), scope)
    return value


def render(text: str, scope: Mapping[str, Any]) -> str:
    return TEXT_REFERENCE.sub(lambda m: str(lookup(m.group(1), scope)), text)


def applies(step: Step, scope: Mapping[str, Any]) -> bool:
    return holds(step.when, scope)


def holds(when: str | Derived | None, scope: Mapping[str, Any]) -> bool:
    """A step's ``when`` (or an ``Offer``'s ``several_when``) on the values gathered: None always holds."""
    if when is None:
        return True
    if isinstance(when, Derived):
        try:
            return bool(resolve(when, scope))
        except WorkflowError:  # a value it needs was not gathered (a branch not taken)
            return False
    negate = when.startswith("!")
    reference, equals, wanted = when.lstrip("!").partition("=")
    try:
        value = resolve(reference, scope)
    except WorkflowError:  # a call that did not run (the other branch), a result without the field
        value = None
    holds = str(value) == wanted if equals else bool(value)
    return holds != negate


@dataclass
class ReferenceRun:
    """What running a workflow with the true answers did: the calls made and how it ended."""

    calls: list[tuple[str, dict[str, Any]]]
    outcome: Literal["completed", "refused", "declined"]
    scope: dict[str, Any]
    # Per call: the error type it answered with (one of its ``errors_ok``), None for a success.
    errors: list[str | None] = field(default_factory=list)


def run_reference(
    workflow: Workflow,
    answers: Mapping[str, Any],
    executor: ToolExecutor,
    confirm: bool = True,
    memo: dict[str, Any] | None = None,
    workflows: Mapping[str, Workflow] | None = None,
) -> ReferenceRun:
    """Walk the workflow as a perfect agent would with the caller's true ``answers`` (slot name -> value).

    ``confirm`` is the caller's answer to every Confirm step. A failed ``require`` ends the run as "refused"
    (the policy boundary); a tool error on the reference path is a broken scenario and raises WorkflowError.
    ``memo`` carries the results of ``once`` calls from the call's earlier workflows (multi-intent: the caller is
    verified once per call, EVA-Bench App. L.6), so those calls are not made again.
    """
    memo = {} if memo is None else memo
    fresh = False  # a ``once`` call of this workflow was made afresh: the later ones are too
    today = executor.db.get("_current_date")
    scope: dict[str, Any] = {TODAY: today} if today else {}
    scope[REQUESTED] = str(answers.get(REQUESTED, ""))
    calls: list[tuple[str, dict[str, Any]]] = []
    errors: list[str | None] = []
    for i, step in enumerate(workflow.steps):
        if not applies(step, scope):
            continue
        if isinstance(step, Ask):
            if step.slot.name not in answers:
                raise WorkflowError(f"workflow {workflow.name}: no answer for slot {step.slot.name!r}")
            scope[step.slot.name] = answers[step.slot.name]
        elif isinstance(step, Call) and step.each is not None:
            base = {key: resolve(value, scope) for key, value in step.args.items()}
            results = []
            for item in resolve(step.each, scope) or ():
                args = {**base, **item}
                results.append(result := executor.call(step.tool, args))
                calls.append((step.tool, args))
                succeeded = result.get("status") == "success"
                errors.append(None if succeeded else result.get("error_type"))
                if succeeded and step.first_ok:
                    break
                if not succeeded and not step.first_ok:
                    raise WorkflowError(f"workflow {workflow.name} step {i}: {step.tool}({args}) failed: {result}")
            if step.first_ok and (not results or results[-1].get("status") != "success"):
                raise WorkflowError(f"workflow {workflow.name} step {i}: no {step.tool} call succeeded: {results}")
            if step.name and results:
                scope[step.name] = totalled(step, results)
        elif isinstance(step, Call):
            args = {key: resolve(value, scope) for key, value in step.args.items()}
            key = memo_key(step.tool, args)
            if step.once and key in memo and not fresh:
                result = memo[key]
            else:
                result = executor.call(step.tool, args)
                calls.append((step.tool, args))
                errors.append(result.get("error_type") if result.get("status") == "error" else None)
                fresh = fresh or step.once
            if step.once and result.get("status") != "success" and result.get("error_type") in step.refuse_on:
                # A verification that does not match is tried once more (App. L: "inform the caller and try
                # again"); the caller gives the same details, so the same call is made again.
                result = executor.call(step.tool, args)
                calls.append((step.tool, args))
                errors.append(result.get("error_type") if result.get("status") == "error" else None)
            if result.get("status") != "success" and result.get("error_type") in step.refuse_on:
                if step.name:
                    scope[step.name] = result
                return ReferenceRun(calls, "refused", scope, errors)
            if not step.accepts(result):
                raise WorkflowError(f"workflow {workflow.name} step {i}: {step.tool}({args}) failed: {result}")
            if step.name:
                scope[step.name] = result
            if any(lookup_or_none(path, result) != want for path, want in step.require.items()):
                return ReferenceRun(calls, "refused", scope, errors)
            if step.once:
                memo[key] = result
        elif isinstance(step, Offer):
            items = offered(step, scope)
            chosen = [item for item in items if str(item.get(step.value)) == str(answers.get(step.slot.name))]
            if not chosen and step.fall_through:
                continue
            if not items:
                return ReferenceRun(calls, "refused", scope, errors)
            if not chosen:
                raise WorkflowError(f"workflow {workflow.name}: answer for {step.slot.name!r} is not among the offer")
            bind_choice(step, chosen[0], scope)
        elif isinstance(step, Compute):
            scope[step.name] = resolve(step.of, scope)
        elif isinstance(step, Confirm) and not confirm:
            return ReferenceRun(calls, "declined", scope, errors)
        elif isinstance(step, Refuse):
            return ReferenceRun(calls, "refused", scope, errors)
        elif isinstance(step, Say) and (step.end or step.end_call):
            break
        elif isinstance(step, Switch):
            if workflows is None or step.workflow not in workflows:
                raise WorkflowError(f"workflow {workflow.name} step {i}: no workflow {step.workflow!r} to switch to")
            rest = run_reference(workflows[step.workflow], answers, executor, confirm, memo, workflows)
            return ReferenceRun(calls + rest.calls, rest.outcome, {**scope, **rest.scope}, errors + rest.errors)
    return ReferenceRun(calls, "completed", scope, errors)


def lookup_or_none(path: str, result: Mapping[str, Any]) -> Any:
    try:
        return lookup(f"r.{path}", {"r": result})
    except WorkflowError:
        return None


# The slot parser lives in its own module (the schema here stays small); re-exported for the engine, the caller and
# the scenario generator, which read slots and workflows together.
from evalkit.domains.slot_parsing import fit_pattern, parse_slot, spoken_digits  # noqa: E402

__all__ = ["fit_pattern", "parse_slot", "spoken_digits"]
