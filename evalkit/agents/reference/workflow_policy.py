"""The local agent's workflow engine: one deterministic policy that runs any domain's declarative ``WORKFLOWS``.

It walks the same steps as the scenario generator's ``run_reference`` (``evalkit.domains.workflow``), but fills
the slots from what its ASR heard, so a misheard entity changes the outcome exactly where it would for a real
agent. Conversation rules follow the airline policy (App. L): greet, find the caller's intent, ask one thing at a
time, read codes back character by character and take corrections, confirm before writing, refuse at the policy
boundary, offer a transfer after repeated failures, and ask "anything else" after each task (multi-intent calls).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.policy import DialogueAct, PolicyReply
from evalkit.agents.reference.slot_hearing import clean_text, hear_slot, say_value, speak
from evalkit.agents.reference.workflow_calls import WorkflowCalls
from evalkit.agents.reference.workflow_facts import (
    acts_for_others,
    escalation_arguments,
    handover_arguments,
    identity_slots,
)
from evalkit.agents.reference.workflow_hearing import WorkflowHearing, listed_names, match_workflows, names_among
from evalkit.agents.reference.workflow_offer import WorkflowOffers
from evalkit.agents.reference.workflow_repair import named_in
from evalkit.agents.reference.workflow_run import Run
from evalkit.agents.reference.workflow_slots import ALPHABET_ASK, WorkflowSlots
from evalkit.domains.workflow import (
    NOW,
    REQUESTED,
    TODAY,
    Ask,
    Compute,
    Confirm,
    Offer,
    RecordError,
    Refuse,
    Say,
    Switch,
    Workflow,
    WorkflowError,
    applies,
    resolve,
)
from evalkit.spoken import parse_yes_no

# Names other modules and tests import from here (the engine's public face before it was split in modules).
__all__ = [
    "ALPHABET_ASK",
    "Run",
    "WorkflowPolicy",
    "clean_text",
    "hear_slot",
    "identity_slots",
    "listed_names",
    "match_workflows",
    "named_in",
    "say_value",
    "speak",
]

MAX_REASKS = 2  # two plain re-asks (the second one clearer), then a transfer, as in the airline policy
ANYTHING_ELSE = "Is there anything else I can help you with?"
# The caller asks to hear the last question again (elderly persona): repeat it instead of spending a re-ask.
REPEAT_REQUEST = re.compile(r"\b(say that again|repeat that|come again|pardon)\b", re.IGNORECASE)
CLOSING = re.compile(r"\b(that's all|that is all|nothing else|bye|goodbye)\b", re.IGNORECASE)
BARE_NO = re.compile(r"\W*(?:no|nope)(?:,? thanks| thank you)?\W*", re.IGNORECASE)
# An opening that announces several requests without stating them ("I have a couple of HR things I need help
# with"): a word in it that happens to match a task is no request yet, so the agent asks for the first one.
SEVERAL_REQUESTS = re.compile(
    r"\b(?:a couple of|a few|several)\s+(?:[\w-]+\s+){0,4}?(?:things|items|issues|requests|updates|questions)\b",
    re.IGNORECASE,
)
# A request for somebody else ("a PTO request for a coworker"): the caller can only be verified as themselves, so
# the agent does not start the task (it would act on the caller's own record, or on another's with their details).
FOR_SOMEONE_ELSE = re.compile(
    r"\b(?:for|on behalf of) (?:a|my|our|another) (?:co-?worker|colleague|team-?mate|friend|manager|employee)\b"
    r"|\bon (?:his|her|their) behalf\b",
    re.IGNORECASE,
)
NOT_FOR_OTHERS = "I'm sorry, I can only help you with your own records. They will need to call us themselves."


class WorkflowPolicy(WorkflowSlots, WorkflowOffers, WorkflowCalls, WorkflowHearing):
    """A ``DialoguePolicy`` over a domain's ``WORKFLOWS`` (every non-airline domain)."""

    def __init__(
        self,
        tools: ToolBox,
        today: date,
        workflows: Mapping[str, Workflow],
        greeting: str = "Hello! You're through to the help desk. How can I help you today?",
        now: str | None = None,
    ) -> None:
        self.tools = tools
        self.today = today
        self.now = now  # the call's date and time ("YYYY-MM-DD HH:MM"), ``$now`` in a workflow (a 24-hour rule)
        self.workflows = dict(workflows)
        self.greeting = greeting
        self.pending = "intent"
        self.run: Run | None = None
        self.candidates: list[str] = []
        self.value: Any = None  # the slot value being read back
        # Values the caller already gave in this call: a later task does not ask again (a scenario's answers are
        # one dict keyed by slot name, so a name means the same value in every workflow of the call).
        self.known: dict[str, Any] = {}
        self.memo: dict[str, Any] = {}  # results of ``Call.once`` steps (auth), reused by the call's later tasks
        self.reasks = 0
        # repairs of the value read back; unclear: replies to it that were neither a yes, a no nor a correction
        self.repairs = self.unclear = 0
        self.refused: tuple[str, str] | None = None  # (workflow, spoken refusal) of the last refused workflow
        self.last_text = ""
        self.confirming = ""  # the pending Confirm question, for asking it again
        self.asked_first = False  # the caller announced several requests and was asked for the first one
        self.started: set[str] = set()  # the workflows begun in this call
        self.last_run: Run | None = None  # the workflow begun last, running or not (its ``escalate`` rule holds)
        # Per slot, the names a tool listed for it after a miss ("Known names: Harbor Point, ..."): values the agent
        # legitimately has, so it hears the slot's next answer against them.
        self.listed: dict[str, tuple[str, ...]] = {}
        self.requests: list[str] = []  # what the caller asked for, as heard: context for the ASR (WorkflowHearing)

    # -- public ----------------------------------------------------------------------------------------------
    def greet(self) -> PolicyReply:
        return self._say(self.greeting)

    def step(self, heard: str) -> PolicyReply:
        if REPEAT_REQUEST.search(heard) and self.last_text:
            return PolicyReply(self.last_text)
        if (escalated := self._escalate(heard)) is not None:
            return escalated
        if self.pending in ("intent", "choose", "anything_else") and heard.strip():
            # the call's requests so far, latest last (an opening "a few IT things: first, a license for
            # Mathematica" names the product; the request that follows may not): bounded, as Whisper's prompt is
            self.requests = [*self.requests, heard.strip()][-3:]
        try:
            return getattr(self, f"_on_{self.pending}")(heard)
        except RecordError:  # the records lack what the task reads (no booking on the reservation): a person's job
            return self._transfer("the records do not show what the request needs")

    # -- speaking --------------------------------------------------------------------------------------------
    def _say(self, text: str, end_call: bool = False, acts: tuple[DialogueAct, ...] = ()) -> PolicyReply:
        self.last_text = " ".join(text.split())
        return PolicyReply(self.last_text, end_call, list(acts))

    def _ask(self, pending: str, text: str, *acts: DialogueAct) -> PolicyReply:
        """``acts``: what the turn does, for a caller that wants exactness (ask(slot), confirm(slot, value))."""
        self.pending = pending
        return self._say(text, acts=acts)

    def _transfer(self, reason: str, prefix: str = "I'm sorry I couldn't sort this out.") -> PolicyReply:
        registry = self.tools.executor.registry
        if "transfer_to_agent" in registry:
            task = self.run.workflow.name if self.run is not None else None
            verified = self.tools.executor.db.get("session", {}).get("authenticated_employee_id")
            known = {**self.known, "employee_id": verified or self.known.get("employee_id")}
            schema = registry["transfer_to_agent"].args_model.model_fields
            args = handover_arguments({n: f.is_required() for n, f in schema.items()}, reason, task, known)
            if args is not None:
                self.tools.call("transfer_to_agent", **args)
        self.run = None
        return self._say(f"{prefix} I'm transferring you to a live agent now.", end_call=True)

    def _escalate(self, heard: str) -> PolicyReply | None:
        """The caller asks for a person during (or right after) a workflow that declares ``escalate``: hand over
        with its tool at once, from any step; None when no such rule applies."""
        rule = self.last_run.workflow.escalate if self.last_run is not None else None
        if rule is None or self.last_run is None or not re.search(rule.cue, heard, re.IGNORECASE):
            return None
        self.tools.call(rule.tool, **escalation_arguments(rule, self.last_run.scope))
        self.run = None
        return self._say(speak(rule.text, self.last_run.scope), end_call=True)

    def _anything_else(self, prefix: str) -> PolicyReply:
        self.run = None
        self.reasks = 0
        return self._ask("anything_else", f"{prefix} {ANYTHING_ELSE}")

    def _reask(self, first: str, clearer: str, reason: str) -> PolicyReply:
        self.reasks += 1
        if self.reasks > MAX_REASKS:
            return self._transfer(reason)
        return self._say(first if self.reasks == 1 else clearer)

    # -- finding the task ------------------------------------------------------------------------------------
    def _menu(self) -> str:
        names = [w.name.replace("_", " ") for w in self.workflows.values()]
        return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]

    def _on_intent(self, heard: str) -> PolicyReply:
        found = match_workflows(heard, self.workflows)
        if FOR_SOMEONE_ELSE.search(heard) and not any(acts_for_others(self.workflows[n]) for n in found):
            self.refused = (found[0] if len(found) == 1 else "", NOT_FOR_OTHERS)
            return self._anything_else(NOT_FOR_OTHERS)
        if len(found) <= 1 and not self.asked_first and SEVERAL_REQUESTS.search(heard):
            self.asked_first = True
            return self._ask("intent", "Sure, I can help with those. What's the first one?")
        if not found:
            return self._reask(
                f"Sorry, I didn't catch that. I can help with {self._menu()}. What would you like to do?",
                "Could you tell me again what you need help with today?",
                "could not identify the caller's request",
            )
        if len(found) > 1:
            self.candidates = found
            names = [n.replace("_", " ") for n in found]
            return self._ask("choose", f"I can help with {', '.join(names[:-1])} or {names[-1]}. Which one is it?")
        return self._start(found[0], "Sure, I can help with that.")

    def _on_choose(self, heard: str) -> PolicyReply:
        found = match_workflows(heard, {n: self.workflows[n] for n in self.candidates})
        if len(found) != 1:
            names = " or ".join(n.replace("_", " ") for n in self.candidates)
            return self._reask(f"Sorry, which one is it: {names}?", f"Please say {names}.", "unclear request")
        # the words that started the task: the request the choice answered, and the choice
        return self._start(found[0], "Sure.", " ".join(self.requests[-2:]))

    def _start(self, name: str, prefix: str, requested: str | None = None) -> PolicyReply:
        self.reasks = 0
        self.refused = None
        workflow = self.workflows[name]
        if name in self.started:  # the same task again (a second application): its details are asked afresh
            for slot in set(s.name for s in workflow.slots) - identity_slots(workflow):
                self.known.pop(slot, None)
        self.started.add(name)
        clock = {NOW: self.now} if self.now else {}
        if requested is None:  # the words that started this task
            requested = self.requests[-1] if self.requests else ""
        asked = {REQUESTED: requested}
        self.run = self.last_run = Run(workflow, scope={TODAY: self.today.isoformat(), **clock, **asked})
        return self._advance(prefix)

    # -- walking the steps -----------------------------------------------------------------------------------
    def _advance(self, prefix: str = "") -> PolicyReply:
        """Run steps until one needs the caller (an Ask, an Offer or a Confirm) or the workflow ends."""
        run = self.run
        assert run is not None
        said = [prefix] if prefix else []
        steps = run.workflow.steps
        while run.index < len(steps):
            step = steps[run.index]
            if not applies(step, run.scope):
                run.index += 1
                continue
            if isinstance(step, Ask):
                if step.slot.name in self.known:
                    run.scope[step.slot.name] = self.known[step.slot.name]
                    run.index += 1
                    continue
                if names := names_among(step.slot, run.scope):
                    self.listed[step.slot.name] = names
                return self._ask("slot", " ".join([*said, step.slot.question]), DialogueAct("ask", step.slot.name))
            if isinstance(step, Offer):
                if (offer := self._offer(step, said)) is not None:
                    return offer
                run.index += 1
                continue
            if isinstance(step, Confirm):
                self.confirming = speak(step.text, run.scope)
                return self._ask("confirm", " ".join([*said, self.confirming]))
            if isinstance(step, Compute):  # a value for later steps to quote or branch on: nothing said
                run.scope[step.name] = resolve(step.of, run.scope)
                run.index += 1
                continue
            if isinstance(step, Say):
                said.append(speak(step.text, run.scope))
                run.index += 1
                if step.end_call:  # the hand-over is made: the call ends here
                    self.run = None
                    return self._say(" ".join(said), end_call=True)
                if step.end:  # the task is done: the steps below are another branch's
                    break
                continue
            if isinstance(step, Switch):  # the task goes on as another workflow, what was gathered kept
                if step.workflow not in self.workflows:  # a declaration error: said as the reference run says it
                    raise WorkflowError(
                        f"workflow {run.workflow.name} step {run.index}: no workflow {step.workflow!r} to switch to"
                    )
                return self._start(step.workflow, " ".join(said), run.scope.get(REQUESTED, ""))
            if isinstance(step, Refuse):  # the policy boundary (``applies`` said its condition holds)
                refusal = speak(step.text, run.scope)
                self.refused = (run.workflow.name, refusal)
                return self._anything_else(" ".join([*said, refusal]))
            reply = self._call(step, said)
            if reply is not None:
                return reply
            run.index += 1
        return self._anything_else(" ".join(said) or "All done.")

    # -- confirmations and the end of a task -----------------------------------------------------------------
    def _on_confirm(self, heard: str) -> PolicyReply:
        answer = parse_yes_no(heard)
        if answer is None:
            return self._reask(
                f"Sorry, I need a yes or a no. {self.confirming}",
                "Shall I go ahead? Please say yes or no.",
                "no answer",
            )
        if answer is False:
            return self._anything_else("Okay, I won't make that change.")
        assert self.run is not None
        self.run.index += 1
        self.reasks = 0
        return self._advance()

    def _on_anything_else(self, heard: str) -> PolicyReply:
        found = match_workflows(heard, self.workflows)
        finished = CLOSING.search(heard) or BARE_NO.fullmatch(heard)  # not any "no": "No, that's not fair!"
        if self.refused is not None and (not found or found == [self.refused[0]]) and not finished:
            # Push-back after a refusal: the policy boundary does not move (adversarial scenarios).
            return self._anything_else(f"I understand, but I'm not able to make an exception. {self.refused[1]}")
        if found:
            return self._on_intent(heard)
        if self._done(heard):
            return self._say("Thank you for calling. Goodbye!", end_call=True)
        return self._ask("intent", "Sure. What else can I help you with?")

    @staticmethod
    def _done(heard: str) -> bool:
        return parse_yes_no(heard) is False or bool(CLOSING.search(heard))
