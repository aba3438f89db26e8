"""The workflow engine's tool calls (``evalkit.agents.reference.workflow_policy``): make a ``Call`` step, reuse a
``once`` verification, one call per item of ``each``, and what a failure means for the dialogue (a refusal at the
policy boundary, the value that fed it asked again once, a missing record, a transfer). A mixin of
``WorkflowPolicy`` over its state, in its own module so the engine stays small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.policy import DialogueAct, PolicyReply, ok
from evalkit.agents.reference.slot_hearing import speak
from evalkit.agents.reference.workflow_hearing import listed_names
from evalkit.agents.reference.workflow_repair import fed_slots, named_in, slots_to_reask
from evalkit.agents.reference.workflow_run import EngineState
from evalkit.domains.workflow import Ask, Call, lookup_or_none, memo_key, resolve, totalled

MAX_TOOL_RETRIES = 1  # a failed lookup re-asks the slot that fed it once (a misheard ID), then transfers


class WorkflowCalls(EngineState):
    """The ``Call`` steps of ``WorkflowPolicy`` (the engine's state and methods it relies on: ``EngineState``; the
    call's own state below)."""

    tools: ToolBox
    memo: dict[str, Any]
    listed: dict[str, tuple[str, ...]]

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
        """One call per item of ``step.each`` (none heard: the value is asked again, as after a failed call); the
        result under ``step.name`` has its ``total`` fields summed over the calls."""
        run = self.run
        assert run is not None
        base = {key: resolve(value, run.scope) for key, value in step.args.items()}
        items = resolve(step.each, run.scope) or []
        if not items:
            return self._after_error(step, {"message": "nothing to do was heard"}, said)
        results = []
        for item in items:
            results.append(result := self.tools.call(step.tool, **{**base, **item}))
            if ok(result) and step.first_ok:  # a ranked choice: the first that works
                break
            if not ok(result) and not step.first_ok:
                return self._after_error(step, result, said)
        if not ok(results[-1]):
            return self._after_error(step, results[-1], said)
        if step.name:
            run.scope[step.name] = totalled(step, results)
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
        name = bool(fed) and run.workflow.steps[slots[fed[0]]].slot.kind == "name"
        # a name still not matched after it was spelled gets one more try, with the phonetic alphabet
        if not fed or tries >= MAX_TOOL_RETRIES + name:
            return self._transfer(f"{step.tool} failed: {result.get('message', '')}")
        run.retries[run.index] = tries + 1
        run.resume_at = run.index
        slot = run.workflow.steps[slots[fed[0]]].slot
        run.index = slots[fed[0]]
        self.reasks = 0
        apology = f"I'm sorry, I couldn't find a match for that {slot.label}."
        question = slot.question
        if slot.kind == "name":  # a name heard wrong is asked for letter by letter, as a careful agent does
            question = f"Could you spell the {slot.label} for me, letter by letter?"
            if tries:  # spelled and still heard wrong: letters that sound like words ("O, K" heard "oh, okay")
                question = f"Could you spell the {slot.label} with the phonetic alphabet, like A as in Alpha?"
        if named_in(run.scope.get(slot.name), message) and (names := listed_names(message)):
            # The tool listed the names it knows: the agent now hears the answer against that list (issue 17.2).
            self.listed[slot.name] = names
            apology += f" The ones I have are {', '.join(names[:-1])} and {names[-1]}." if len(names) > 1 else ""
        return self._ask("slot", " ".join([*said, apology, question]), DialogueAct("ask", slot.name))
