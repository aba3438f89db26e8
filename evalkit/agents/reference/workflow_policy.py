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
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.policy import DialogueAct, PolicyReply, ok
from evalkit.agents.reference.slot_hearing import choice_hint, clean_text, hear_slot, read_back_text, say_value, speak
from evalkit.agents.reference.workflow_facts import acts_for_others, handover_arguments, identity_slots
from evalkit.agents.reference.workflow_hearing import (
    WorkflowHearing,
    listed_names,
    match_workflows,
    names_among,
    spells_letters,
)
from evalkit.agents.reference.workflow_repair import fed_slots, named_in, slots_to_reask
from evalkit.domains.workflow import (
    TODAY,
    Ask,
    Call,
    Confirm,
    Refuse,
    Say,
    Slot,
    Workflow,
    applies,
    fit_pattern,
    lookup_or_none,
    memo_key,
    resolve,
)
from evalkit.spoken import parse_correction, parse_yes_no

__all__ = ["WorkflowPolicy", "clean_text", "hear_slot", "identity_slots", "match_workflows", "say_value", "speak"]

ALPHABET_ASK = " Could you spell it with the phonetic alphabet, like A as in Alpha?"
MAX_REASKS = 2  # two plain re-asks (the second one clearer), then a transfer, as in the airline policy
MAX_REPAIRS = 8  # single-character corrections of one read-back before giving up
MAX_TOOL_RETRIES = 1  # a failed lookup re-asks the slot that fed it once (a misheard ID), then transfers
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
HINTS = {
    "code": "Please say it slowly, one character at a time.",
    "digits": "Please say the digits slowly, one at a time.",
    "date": "Please tell me the month and the day.",
    "time": "Please tell me the time, for example two thirty PM.",
    "yes_no": "Please say yes or no.",
    "number": "Please tell me the number.",
    "email": "Please say it like john dot smith at company dot com.",
    "name": "Please say just the name.",
}


@dataclass
class Run:
    """Where the engine is in one workflow: the step index and the values gathered so far."""

    workflow: Workflow
    index: int = 0
    scope: dict[str, Any] = field(default_factory=dict)
    resume_at: int | None = None  # after re-asking a slot for a failed call, go back to that call
    retries: dict[int, int] = field(default_factory=dict)
    fresh_once: bool = False  # a ``once`` call was made afresh here, so the later ones are too (Call.once)
    # Slots whose value a call already accepted (a lookup found the NPI, a verification matched the ID): a later
    # call's failure is not theirs, so they are not asked again for it (the value it did not find is).
    accepted: set[str] = field(default_factory=set)


class WorkflowPolicy(WorkflowHearing):
    """A ``DialoguePolicy`` over a domain's ``WORKFLOWS`` (every non-airline domain)."""

    def __init__(
        self,
        tools: ToolBox,
        today: date,
        workflows: Mapping[str, Workflow],
        greeting: str = "Hello! You're through to the help desk. How can I help you today?",
    ) -> None:
        self.tools = tools
        self.today = today
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
        if self.pending in ("intent", "choose", "anything_else") and heard.strip():
            # the call's requests so far, latest last (an opening "a few IT things: first, a license for
            # Mathematica" names the product; the request that follows may not): bounded, as Whisper's prompt is
            self.requests = [*self.requests, heard.strip()][-3:]
        return getattr(self, f"_on_{self.pending}")(heard)

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
            fields = set(registry["transfer_to_agent"].args_model.model_fields)
            args = handover_arguments(fields, reason, task, verified or self.known.get("employee_id"))
            if args is not None:
                self.tools.call("transfer_to_agent", **args)
        self.run = None
        return self._say(f"{prefix} I'm transferring you to a live agent now.", end_call=True)

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
        return self._start(found[0], "Sure.")

    def _start(self, name: str, prefix: str) -> PolicyReply:
        self.reasks = 0
        self.refused = None
        workflow = self.workflows[name]
        if name in self.started:  # the same task again (a second application): its details are asked afresh
            for slot in set(s.name for s in workflow.slots) - identity_slots(workflow):
                self.known.pop(slot, None)
        self.started.add(name)
        self.run = Run(workflow, scope={TODAY: self.today.isoformat()})
        return self._advance(prefix)

    # -- walking the steps -----------------------------------------------------------------------------------
    def _advance(self, prefix: str = "") -> PolicyReply:
        """Run steps until one needs the caller (an Ask or a Confirm) or the workflow ends."""
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
            if isinstance(step, Confirm):
                self.confirming = speak(step.text, run.scope)
                return self._ask("confirm", " ".join([*said, self.confirming]))
            if isinstance(step, Say):
                said.append(speak(step.text, run.scope))
                run.index += 1
                continue
            if isinstance(step, Refuse):  # the policy boundary (``applies`` said its condition holds)
                refusal = speak(step.text, run.scope)
                self.refused = (run.workflow.name, refusal)
                return self._anything_else(" ".join([*said, refusal]))
            reply = self._call(step, said)
            if reply is not None:
                return reply
            run.index += 1
        return self._anything_else(" ".join(said) or "All done.")

    def _call(self, step: Call, said: list[str]) -> PolicyReply | None:
        """Make the call; a reply when the workflow cannot go on (refusal, re-ask after an error, transfer)."""
        run = self.run
        assert run is not None
        if step.each is not None:
            return self._call_each(step, said)
        args = {key: resolve(value, run.scope) for key, value in step.args.items()}
        key = memo_key(step.tool, args)
        # A ``once`` call already made in this call (the caller's verification) is not made again (App. L.6).
        if step.once and key in self.memo and not run.fresh_once:
            result = self.memo[key]
        else:
            result = self.tools.call(step.tool, **args)
            run.fresh_once = run.fresh_once or step.once
        if not ok(result) and result.get("error_type") in step.refuse_on:
            if step.once and (retry := self._verify_again(step, said)) is not None:
                return retry
            if step.name:
                run.scope[step.name] = result
            refusal = speak(step.refusal, run.scope)
            self.refused = (run.workflow.name, refusal)
            return self._anything_else(" ".join([*said, refusal]))
        if not ok(result) and not step.accepts(result):
            return self._after_error(step, result, said)
        if step.once and not any(lookup_or_none(path, result) != want for path, want in step.require.items()):
            self.memo[key] = result
        if ok(result):
            run.accepted.update(fed_slots(step))
        if step.name:
            run.scope[step.name] = result
        if any(lookup_or_none(path, result) != want for path, want in step.require.items()):
            refusal = speak(step.refusal, run.scope)
            self.refused = (run.workflow.name, refusal)
            return self._anything_else(" ".join([*said, refusal]))
        return None

    def _verify_again(self, step: Call, said: list[str]) -> PolicyReply | None:
        """A verification that did not match (App. L, HR: "If credentials do not match, inform the caller and try
        again"; OTP: "try once more"): ask again, once, for the details it tested that no call has accepted yet (the
        passcode, not the ID a first verification matched); None when that was done already (the refusal stands)."""
        run = self.run
        assert run is not None
        asks = {s.slot.name: i for i, s in enumerate(run.workflow.steps) if isinstance(s, Ask)}
        fed = [name for name in fed_slots(step) if name in asks]
        again = [name for name in fed if name not in run.accepted] or fed
        if not again or run.retries.get(run.index, 0) >= MAX_TOOL_RETRIES:
            return None
        run.retries[run.index] = run.retries.get(run.index, 0) + 1
        for name in again:
            self.known.pop(name, None)
            run.scope.pop(name, None)
        run.index = min(asks[name] for name in again)
        self.reasks = 0
        apology = "I'm sorry, those details don't match our records. Let's try once more."
        slot = run.workflow.steps[run.index].slot
        return self._ask("slot", " ".join([*said, apology, slot.question]), DialogueAct("ask", slot.name))

    def _call_each(self, step: Call, said: list[str]) -> PolicyReply | None:
        """One call per item of ``step.each`` (none heard: the value is asked again, as after a failed call)."""
        run = self.run
        assert run is not None
        base = {key: resolve(value, run.scope) for key, value in step.args.items()}
        items = resolve(step.each, run.scope) or []
        if not items:
            return self._after_error(step, {"message": "nothing to do was heard"}, said)
        for item in items:
            result = self.tools.call(step.tool, **{**base, **item})
            if not ok(result):
                return self._after_error(step, result, said)
            if step.name:
                run.scope[step.name] = result
        return None

    def _after_error(self, step: Call, result: Mapping[str, Any], said: list[str]) -> PolicyReply:
        """A failed tool call: most often a misheard ID, so ask for the value that fed it once more."""
        run = self.run
        assert run is not None
        slots = {s.slot.name: i for i, s in enumerate(run.workflow.steps) if isinstance(s, Ask)}
        fed = slots_to_reask(step, result, run.workflow, run.scope, run.accepted)
        message = str(result.get("message", ""))
        tries = run.retries.get(run.index, 0)
        # "<record>_not_found" (checklist, DEA record, ...): the person is known but has no such record; a plain
        # "not_found" (no such employee or provider) is more likely a misheard ID, and stays a transfer.
        missing = str(result.get("error_type", "")).endswith("_not_found") and not step.once
        if fed and tries >= MAX_TOOL_RETRIES and missing:
            # The same value heard twice and still no record: the caller has none on file. That ends this task,
            # not the call (App. L: transfers are for technical issues and exceptions, not a missing record).
            self.refused = (run.workflow.name, f"I'm sorry, I can't find that on file: {result.get('message', '')}.")
            return self._anything_else(" ".join([*said, self.refused[1]]))
        if not fed or tries >= MAX_TOOL_RETRIES:
            return self._transfer(f"{step.tool} failed: {result.get('message', '')}")
        run.retries[run.index] = tries + 1
        run.resume_at = run.index
        slot = run.workflow.steps[slots[fed[0]]].slot
        run.index = slots[fed[0]]
        self.reasks = 0
        apology = f"I'm sorry, I couldn't find a match for that {slot.label}."
        if named_in(run.scope.get(slot.name), message) and (names := listed_names(message)):
            # The tool listed the names it knows: the agent now hears the answer against that list (issue 17.2).
            self.listed[slot.name] = names
            apology += f" The ones I have are {', '.join(names[:-1])} and {names[-1]}." if len(names) > 1 else ""
        return self._ask("slot", " ".join([*said, apology, slot.question]), DialogueAct("ask", slot.name))

    @property
    def slot(self) -> Slot:
        assert self.run is not None
        step = self.run.workflow.steps[self.run.index]
        assert isinstance(step, Ask)
        return step.slot

    def _filled(self, value: Any) -> PolicyReply:
        run = self.run
        assert run is not None
        run.scope[self.slot.name] = value
        self.known[self.slot.name] = value
        self.reasks = 0
        self.repairs = self.unclear = 0
        if run.resume_at is not None:
            run.index, run.resume_at = run.resume_at, None
        else:
            run.index += 1
        return self._advance("Thank you.")

    def _on_slot(self, heard: str) -> PolicyReply:
        slot = self.slot
        if self.known_names(slot):
            value = self.heard_name(slot, heard)
            # none close: the words as said where the tool decides (a listed name), or a code the tool takes said
            # as such ("EAD", "reactivate_full", "AZ": an EVA-Bench record's answer), not any stray sentence
            if value is None and (slot.among is not None or re.fullmatch(r"[\w-]+", heard.strip(" .,!?"))):
                value = hear_slot(slot, heard, self.today)
        else:
            value = hear_slot(slot, heard, self.today)
        if value is None:
            if slot.kind == "choice" and self.reasks and (offer := self._offer_choice(slot, heard)) is not None:
                return offer  # asked twice and still not heard: the options one by one, as yes-or-no questions
            hint = choice_hint(slot) or HINTS.get(slot.kind, "")
            # a code with letters is asked for with the spelling alphabet first (App. L: clarify a misheard code;
            # on tiny.en, eSpeak's "Sierra, Victor, Alpha, 8, 4, Mike" was heard exactly 13/20 against 5/20 for
            # the letters with pauses, scripts/bench_entity_asr.py --hr)
            again = ALPHABET_ASK if spells_letters(slot) else ""
            return self._reask(
                f"Sorry, I didn't catch that. {slot.question}{again}",
                f"{slot.question} {hint}",
                f"could not capture the {slot.label}",
            )
        if self._read_back_first(slot, heard, value):
            return self._read_back(value)
        return self._filled(value)

    # -- read-backs ------------------------------------------------------------------------------------------
    def _read_back(self, value: Any, prefix: str = "") -> PolicyReply:
        """Confirm a critical value before using it (App. L: read codes back; the caller corrects)."""
        self.value = value
        slot = self.slot
        said = read_back_text(slot, value)
        return self._ask("check", f"{prefix}I have {said}. Is that right?", DialogueAct("confirm", slot.name, said))

    def _on_check(self, heard: str) -> PolicyReply:
        slot = self.slot
        value = str(self.value).replace("-", "") if slot.pattern else str(self.value)  # as it was read back
        correction = parse_correction(heard) if slot.kind in ("code", "digits", "name") else None
        if correction is not None and 1 <= correction[0] <= len(value):
            position, char = correction
            if slot.kind != "digits" or char.isdigit():
                self.repairs += 1
                if self.repairs > MAX_REPAIRS:
                    return self._transfer(f"could not capture the {slot.label}")
                fixed = value[: position - 1] + char + value[position:]
                if slot.pattern:  # the characters in the pattern's written form, in the tools' form
                    fitted = fit_pattern(" ".join(fixed), slot.pattern)
                    fixed = (slot.normalize(fitted) if slot.normalize else fitted) if fitted else fixed
                return self._read_back(fixed.capitalize() if slot.kind == "name" else fixed)
        answer = parse_yes_no(heard)
        if answer is True:
            return self._filled(self.value)
        restated = self._restated(slot, heard)  # or, an option offered refused, the next one to offer
        # a value said again in a "no" ("No, it's March 27, 2030."): free text only when it has a form (a date)
        if restated is not None and slot.kind != "yes_no" and (slot.kind != "text" or slot.normalize is not None):
            self.repairs += 1
            if self.repairs > MAX_REPAIRS:
                return self._transfer(f"could not capture the {slot.label}")
            return self._read_back(restated)
        if answer is None and self.unclear < 2:  # twice at most, then the value is asked for again
            # Neither a yes nor a no (a "Yes, that's right." misheard): a careful agent asks again rather than
            # dropping a value it may well have right, and never hands the call over for it.
            self.unclear += 1
            return self._read_back(self.value, "Sorry, I didn't catch that. ")
        # An unusable "no" is a failed repair too (the value given again next resets the re-ask count).
        self.repairs += 1
        if self.repairs > MAX_REPAIRS:
            return self._transfer(f"could not capture the {slot.label}")
        self.pending = "slot"
        return self._reask(
            f"Sorry, could you give me the {slot.label} again?",
            f"{slot.question} {HINTS.get(slot.kind, '')}",
            f"could not capture the {slot.label}",
        )

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
