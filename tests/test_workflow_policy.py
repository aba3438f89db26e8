"""The local agent's workflow engine against the scripted simulator, in text, on a small domain built here: the
reference path completes, a misheard ID is repaired through the read-back, a persistently misheard ID ends in a
transfer, a refusal writes nothing, multi-intent runs both workflows, and persona styles still complete."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.dialogue import make_policy
from evalkit.agents.reference.workflow_policy import WorkflowPolicy, clean_text, hear_slot, match_workflows, say_value
from evalkit.config.schema import PersonaConfig
from evalkit.domains import get_domain
from evalkit.domains.base import ToolArgs, ToolError, ToolExecutor, ToolRegistry
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.workflow import TODAY as TODAY_REF
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Refuse, Say, Slot, Workflow, parse_slot, run_reference
from evalkit.metrics.task_completion import task_completion
from evalkit.records import Conversation
from evalkit.scenarios import DecisionRule, Persona, ReferenceCall, Scenario, ScriptedPlan, UserGoal
from evalkit.simulator.persona import PersonaSpec
from evalkit.spoken import DIGIT_NAMES
from evalkit.text_dialogue import run_text_dialogue, transcript

REASK = re.compile(r"didn't catch|I need a yes or a no|couldn't find a match|say yes or no|which one is it")
CONF_DIR = Path(__file__).resolve().parents[1] / "conf"
NOW = "2026-06-18 09:30 PDT"
TODAY = date(2026, 6, 18)

# -- a small HR-like test domain: 4 tools plus transfer ---------------------------------------------------------
REGISTRY = ToolRegistry()


class VerifyArgs(ToolArgs):
    employee_id: str
    last_name: str


class EligibilityArgs(ToolArgs):
    employee_id: str
    days: float


class LeaveArgs(ToolArgs):
    employee_id: str
    leave_type: str
    start_date: str
    days: float


class BadgeArgs(ToolArgs):
    employee_id: str
    old_badge: str
    shipping: str


class TransferArgs(ToolArgs):
    reason: str


@REGISTRY.tool(VerifyArgs, writes=False)
def verify_employee(db: dict[str, Any], args: VerifyArgs) -> dict[str, Any]:
    """Authenticate the caller by employee ID and last name."""
    employee = db["employees"].get(args.employee_id)
    if employee is None or employee["last_name"].lower() != args.last_name.lower():
        raise ToolError("not_found", "no employee with that ID and last name")
    db["session"]["employee_id"] = args.employee_id
    return {"employee_id": args.employee_id}


@REGISTRY.tool(EligibilityArgs, writes=False)
def check_leave_eligibility(db: dict[str, Any], args: EligibilityArgs) -> dict[str, Any]:
    """Whether the balance covers the request."""
    balance = db["employees"][args.employee_id]["leave_balance"]
    return {"eligible": args.days <= balance, "balance": balance}


@REGISTRY.tool(LeaveArgs, writes=True)
def submit_leave_request(db: dict[str, Any], args: LeaveArgs) -> dict[str, Any]:
    """File a leave request and deduct the balance."""
    request_id = f"LR{len(db['leave_requests']) + 4101}"
    db["leave_requests"][request_id] = args.model_dump()
    db["employees"][args.employee_id]["leave_balance"] -= args.days
    return {"request_id": request_id}


@REGISTRY.tool(BadgeArgs, writes=True)
def order_badge(db: dict[str, Any], args: BadgeArgs) -> dict[str, Any]:
    """Deactivate the old badge and order a new one."""
    employee = db["employees"][args.employee_id]
    if employee["badge"] != args.old_badge:
        raise ToolError("badge_mismatch", "that badge number is not this employee's badge")
    employee["badge"] = None
    db["badge_orders"][args.old_badge] = {"employee_id": args.employee_id, "shipping": args.shipping}
    return {"ordered": True}


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent."""
    db.setdefault("transfers", []).append({"reason": args.reason})
    return {"transferred": True}


EMPLOYEE = Slot("employee_id", "code", "What is your employee ID?", label="employee ID", length=7)
SURNAME = Slot("last_name", "name", "And your last name, please?")
LEAVE_TYPE = Slot(
    "leave_type",
    "choice",
    "Is this vacation or sick leave? Which leave type?",
    label="leave type",
    choices=("vacation", "sick"),
)
START = Slot("start_date", "date", "What is the start date?", label="start date")
DAYS = Slot("days", "number", "How many days do you need?", label="how many days")
BADGE = Slot(
    "old_badge", "digits", "What is the ten digit badge number on your old badge?", label="badge number", length=10
)
EXPEDITE = Slot("expedite", "yes_no", "Would you like expedited shipping for the new badge?", label="expedited")
AUTH = (
    Ask(EMPLOYEE),
    Ask(SURNAME),
    Call("verify_employee", {"employee_id": "$employee_id", "last_name": "$last_name"}),
)
WORKFLOWS = {
    "leave_request": Workflow(
        name="leave_request",
        description="Request paid leave within the balance.",
        intents=("time off", "leave", "vacation days"),
        steps=(
            *AUTH,
            Ask(LEAVE_TYPE),
            Ask(START),
            Ask(DAYS),
            Call(
                "check_leave_eligibility",
                {"employee_id": "$employee_id", "days": "$days"},
                name="eligibility",
                require={"eligible": True},
                refusal="I'm sorry, your balance of {eligibility.balance} days does not cover this request.",
            ),
            # names a slot label: the simulator must still hear a confirmation, not a question for the ID
            Confirm(
                "I'll file {days} days of {leave_type} leave from {start_date} for employee ID {employee_id}. "
                "Shall I go ahead?"
            ),
            Call(
                "submit_leave_request",
                {
                    "employee_id": "$employee_id",
                    "leave_type": "$leave_type",
                    "start_date": "$start_date",
                    "days": "$days",
                },
                name="submit",
            ),
            Say("Your request number is {submit.request_id}."),
        ),
    ),
    "badge_replacement": Workflow(
        name="badge_replacement",
        description="Replace a lost badge.",
        intents=("badge",),
        steps=(
            *AUTH,
            Ask(BADGE),
            Ask(EXPEDITE),
            Call(
                "order_badge",
                {"employee_id": "$employee_id", "old_badge": "$old_badge", "shipping": "express"},
                when="$expedite",
            ),
            Call(
                "order_badge",
                {"employee_id": "$employee_id", "old_badge": "$old_badge", "shipping": "standard"},
                when="!$expedite",
            ),
            Say("Your old badge is deactivated and a new one is on its way."),
        ),
    ),
}
DB = {
    "employees": {
        "EMP4472": {"last_name": "Delgado", "leave_balance": 10.0, "badge": "5839201746"},
        "EMP9031": {"last_name": "Okafor", "leave_balance": 2.0, "badge": "771046"},
    },
    "leave_requests": {},
    "badge_orders": {},
    "transfers": [],
    "session": {},
}
DELGADO = {"employee_id": "EMP4472", "last_name": "Delgado"}


def scenario(
    sid: str,
    names: list[str],
    answers: dict[str, str],
    kind: str = "single_intent",
    followups: tuple[str, ...] = (),
    push_back: str | None = None,
) -> Scenario:
    """A scenario as a domain generator writes one: typed values by ``parse_slot``, expected DB by executing."""
    executor = ToolExecutor(REGISTRY, DB)
    calls: list[tuple[str, dict[str, Any]]] = []
    for name in names:
        workflow = WORKFLOWS[name]
        typed = {s.name: parse_slot(s, answers[s.name], TODAY) for s in workflow.slots}
        assert None not in typed.values(), typed  # generator and agent agree by construction
        run = run_reference(workflow, typed, executor, confirm=answers.get("confirm", "yes") == "yes")
        declined = answers.get("confirm", "yes") == "no"
        assert run.outcome == ("refused" if kind == "adversarial" else "declined" if declined else "completed")
        calls += run.calls
    goal = UserGoal(
        high_level_user_goal="test",
        must_have_criteria=[],
        starting_utterance={
            "leave_request": "I'd like to book some time off.",
            "badge_replacement": "I lost my badge.",
        }[names[0]],
        information_required=answers,
        decision_tree=[DecisionRule(id=1, text="Answer what is asked.")],
        resolution_condition="done",
        failure_condition="not done",
        escalation_behavior="none",
        scripted=ScriptedPlan(
            answers=answers,
            followups=list(followups),
            push_back_say=push_back,
            push_back_times=2 if push_back else 0,
        ),
    )
    return Scenario(
        id=sid,
        domain="hrtest",
        workflow="+".join(names),
        type=kind,  # type: ignore[arg-type]
        current_date_time=NOW,
        persona=Persona(name="Ana", gender="female", text="calm"),
        user_goal=goal,
        key_entities={"employee_id": answers["employee_id"]},
        scenario_db=DB,
        reference_calls=[ReferenceCall(name=n, arguments=a) for n, a in calls],
        expected_scenario_db=executor.db,
    )


LEAVE = {**DELGADO, "leave_type": "vacation", "start_date": "June 22", "days": "3"}
SCENARIOS = [
    scenario("T-1", ["leave_request"], LEAVE),
    scenario(
        "T-2",
        ["leave_request", "badge_replacement"],
        {**LEAVE, "old_badge": "5839201746", "expedite": "yes"},
        kind="multi_intent",
        followups=("Yes, I also lost my badge and need a new one.",),
    ),
    scenario(
        "T-3",
        ["leave_request"],
        {"employee_id": "EMP9031", "last_name": "Okafor", "leave_type": "sick", "start_date": "June 25", "days": "5"},
        kind="adversarial",
        push_back="But I really need the time off. Please make an exception.",
    ),
]


def talk(
    s: Scenario, ear: Callable[[str], str] = lambda t: t, persona: PersonaSpec | None = None, seed: int = 0
) -> tuple[Conversation, list[tuple[str, str]]]:
    conversation = run_text_dialogue(
        s, ear, persona, np.random.default_rng(seed), registry=REGISTRY, workflows=WORKFLOWS
    )
    return conversation, transcript(conversation)


def said(lines: list[tuple[str, str]], role: str = "assistant") -> list[str]:
    return [text for r, text in lines if r == role]


def test_the_test_domain_is_well_formed() -> None:
    for workflow in WORKFLOWS.values():
        workflow.check(REGISTRY)
    assert SCENARIOS[0].expected_scenario_db["leave_requests"]  # the reference path wrote something


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: s.id)
def test_every_scenario_completes_with_a_perfect_ear(s: Scenario) -> None:
    conversation, lines = talk(s)
    assert conversation.end_reason == "user_end_call", lines
    assert task_completion(conversation).score == 1.0, lines
    made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]
    assert made == [(c.name, c.arguments) for c in s.reference_calls], lines  # exactly the reference path
    assert not [t for t in said(lines) if REASK.search(t)], lines  # and every answer understood the first time


def test_codes_are_read_back_character_by_character() -> None:
    _, lines = talk(SCENARIOS[1])
    assert "I have E M P 4 4 7 2. Is that right?" in said(lines)
    assert "I have 5 8 3 9 2 0 1 7 4 6. Is that right?" in said(lines)  # a digits slot too
    assert "I have D E L G A D O. Is that right?" not in said(lines)  # names are not read_back unless marked
    assert any("3 days of vacation leave from June 22" in t for t in said(lines))  # values in spoken form


def test_a_misheard_id_is_repaired_through_the_read_back() -> None:
    first = {"done": False}

    def ear(text: str) -> str:  # mishears one character of the first spelling only
        if "E M P 4 4 7 2" in text and not first["done"]:
            first["done"] = True
            return text.replace("4 4 7 2", "4 4 1 2")
        return text

    conversation, lines = talk(SCENARIOS[0], ear)
    assert "I have E M P 4 4 1 2. Is that right?" in said(lines)
    assert "No, the sixth character is the number seven." in said(lines, "user")
    assert task_completion(conversation).passed, lines


def test_a_misheard_yes_to_a_read_back_gets_the_read_back_again_not_a_transfer() -> None:
    state = {"ids": 0, "yes": 0}

    def ear(text: str) -> str:  # the ID is missed twice (two re-asks spent), then its "yes" is misheard twice
        if re.search(r"4\W+4\W+7\W+2", text):
            state["ids"] += 1
            if state["ids"] <= 2:
                return "Hmm."
        if state["ids"] >= 3 and re.search(r"\b(yes|yep|correct)\b", text, re.IGNORECASE) and state["yes"] < 2:
            state["yes"] += 1
            return "Next slide."
        return text

    conversation, lines = talk(SCENARIOS[0], ear)
    assert state["yes"] == 2, lines
    again = "Sorry, I didn't catch that. I have E M P 4 4 7 2. Is that right?"
    assert said(lines).count(again) == 2, lines  # asked again, as a careful agent does, not handed over
    assert not any("transferring you" in t for t in said(lines)), lines
    assert task_completion(conversation).passed, lines


def test_a_misheard_digit_past_the_eighth_is_corrected_by_its_place() -> None:
    first = {"done": False}

    def ear(text: str) -> str:  # the ninth digit of the badge number is misheard once
        if "5 8 3 9 2 0 1 7 4 6" in text and not first["done"]:  # a long ID, spelled
            first["done"] = True
            return text.replace("7 4 6", "7 1 6")
        return text

    s = scenario("T-6", ["badge_replacement"], {**DELGADO, "old_badge": "5839201746", "expedite": "no"})
    conversation, lines = talk(s, ear)
    assert "I have 5 8 3 9 2 0 1 7 1 6. Is that right?" in said(lines)
    # the ninth place has its ordinal as the first eight do (before: the whole number again, slowly); issue 28.6:
    # 13-character policy and reference numbers wrong past the eighth were re-spelled until the caller gave up
    assert "No, the ninth character is the number four." in said(lines, "user")
    assert "I have 5 8 3 9 2 0 1 7 4 6. Is that right?" in said(lines)
    assert task_completion(conversation).passed, lines


def test_a_persistently_misheard_id_fails_authentication_and_the_call_ends() -> None:
    def ear(text: str) -> str:  # a consistent confusion: 7 is always heard as 1, spelled (with pauses) or corrected
        return re.sub(r"(4\W+4\W+)7(?=\W+2)", r"\g<1>1", text).replace("number seven", "number one")

    conversation, lines = talk(SCENARIOS[0], ear)
    metric = task_completion(conversation)
    assert not metric.passed and metric.details["reason"] == "authentication"
    assert conversation.final_db["leave_requests"] == {}  # nothing written for an unverified caller
    # The caller gives up after five identical wrong read-backs (App. K), before the agent's repair limit.
    assert conversation.end_reason == "user_end_call" and "isn't going anywhere" in said(lines, "user")[-1]
    assert len(lines) < 40


def test_the_agent_transfers_when_the_repairs_run_out() -> None:
    """A caller who never gives up (each read-back differs): the agent's repair limit ends it with a transfer."""
    flip = {"n": 0}

    def ear(text: str) -> str:  # the 7 comes back as a different wrong digit each time
        flip["n"] += 1
        wrong = str(flip["n"] % 9 + 1) if flip["n"] % 9 + 1 != 7 else "8"
        text = re.sub(r"(4\W+4\W+)7(?=\W+2)", rf"\g<1>{wrong}", text)  # spelled, with or without pauses
        return text.replace("number seven", f"number {DIGIT_NAMES[int(wrong)]}")

    conversation, lines = talk(SCENARIOS[0], ear)
    assert conversation.final_db["transfers"] and conversation.final_db["leave_requests"] == {}
    assert "transferring you" in said(lines)[-1] or "transferring you" in said(lines)[-2]


def test_a_failed_lookup_reasks_the_id_once_then_resumes_or_transfers() -> None:
    def drive(ids: list[str]) -> tuple[WorkflowPolicy, list[str], ToolBox]:
        tools = ToolBox(ToolExecutor(REGISTRY, DB))
        policy = make_policy("hrtest", tools, NOW, WORKFLOWS)
        assert isinstance(policy, WorkflowPolicy)
        replies = [policy.greet().text, policy.step("I need some time off.").text]
        for i, code in enumerate(ids):
            replies += [policy.step(" ".join(code)).text, policy.step("Yes.").text]
            if i == 0:
                replies.append(policy.step("Delgado.").text)
        return policy, replies, tools

    _, replies, _ = drive(["EMP4471", "EMP4472"])  # a wrong ID, then the right one
    assert "I couldn't find a match for that employee ID. What is your employee ID?" in replies[4]
    assert replies[-1].endswith("Which leave type?")  # resumes at the lookup: the last name is not asked again
    _, replies, tools = drive(["EMP4471", "EMP4471"])
    assert "transferring you" in replies[-1] and tools.executor.db["transfers"]


@pytest.mark.parametrize(
    "opening",
    ["Hi, I have a couple of HR things I need help with before my time off.", "I have a few leave requests to sort."],
)
def test_an_opening_that_announces_several_requests_is_asked_for_the_first(opening: str) -> None:
    """A word of a vague opening that matches a task ("time off", "leave") is no request yet: the agent asks for
    the first one instead of guessing, and starts the task the caller then names."""
    policy = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, DB)), TODAY, WORKFLOWS)
    policy.greet()
    assert policy.step(opening).text == "Sure, I can help with those. What's the first one?"
    assert policy.step("I need a new badge.").text.endswith(EMPLOYEE.question)
    assert policy.run is not None and policy.run.workflow.name == "badge_replacement"
    # "some time off" announces nothing: a plain request that names its task is started at once
    direct = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, DB)), TODAY, WORKFLOWS)
    direct.greet()
    assert direct.step("I need some time off, I have questions about it.").text.endswith(EMPLOYEE.question)


def test_a_refuse_step_stops_the_workflow_when_its_condition_holds() -> None:
    """``Refuse(when=Derived(...))``: a boundary no tool checks (a start date already passed, against ``$today``),
    for the reference path and the agent alike; nothing after it runs."""
    past = Refuse(
        "I'm sorry, leave can't start on a date that has passed.",
        when=Derived((TODAY_REF, "start_date"), lambda today, start: start < today),
    )
    steps = (Ask(START), past, Call("transfer_to_agent", {"reason": "$start_date"}))
    workflow = Workflow("leave", "Leave from a start date.", ("leave",), steps)
    db = {"_current_date": TODAY.isoformat(), "employees": {}}
    refused = run_reference(workflow, {"start_date": "2026-06-01"}, ToolExecutor(REGISTRY, db))
    assert refused.outcome == "refused" and refused.calls == []
    done = run_reference(workflow, {"start_date": "2026-07-01"}, ToolExecutor(REGISTRY, db))
    assert done.outcome == "completed" and [tool for tool, _ in done.calls] == ["transfer_to_agent"]

    tools = ToolBox(ToolExecutor(REGISTRY, db))
    policy = WorkflowPolicy(tools, TODAY, {"leave": workflow})
    policy.greet()
    policy.step("I need leave.")
    reply = policy.step("June 1.").text
    assert reply.startswith("Thank you. I'm sorry, leave can't start") and reply.endswith(
        "anything else I can help you with?"
    )
    assert "transfers" not in tools.executor.db


@pytest.mark.parametrize(
    "request_",
    ["Hi, I need help putting in a PTO request for a coworker.", "I'd like to book some time off on her behalf."],
)
def test_a_request_for_somebody_else_is_refused_before_any_lookup(request_: str) -> None:
    """The caller can only be verified as themselves: a task for a coworker is not started (no verification, no
    lookup, nothing written), and asking again does not move the boundary."""
    tools = ToolBox(ToolExecutor(REGISTRY, DB))
    policy = WorkflowPolicy(tools, TODAY, WORKFLOWS)
    policy.greet()
    reply = policy.step(request_).text
    assert reply.startswith("I'm sorry, I can only help you with your own records.") and "anything else" in reply
    assert "only help you with your own records" in policy.step("Please, it's time off for my coworker.").text
    assert tools.executor.call_counts == {}
    assert policy.step("No, that's all.").end_call
    # a colleague named in passing is no request for them
    assert (
        not WorkflowPolicy(tools, TODAY, WORKFLOWS)
        .step("I need time off, my colleague covers for me.")
        .text.startswith("I'm sorry")
    )
    # a task that is about another employee too (it asks for a second employee ID) is not refused
    colleague = Slot("colleague_id", "code", "What is your colleague's employee ID?", label="colleague", length=7)
    handover = Workflow("handover", "Hand work over.", ("handover",), (Ask(EMPLOYEE), Ask(colleague)))
    policy = WorkflowPolicy(tools, TODAY, {"handover": handover})
    policy.greet()
    assert policy.step("I need a handover for a colleague.").text.endswith(EMPLOYEE.question)


def test_a_record_the_caller_has_none_of_ends_the_task_not_the_call() -> None:
    """A lookup that still finds no record ("<record>_not_found") after the ID was asked again: the caller has none
    on file, so the agent says so and offers more help (a multi-task call goes on); no transfer."""
    registry = ToolRegistry()

    class RecordArgs(ToolArgs):
        employee_id: str

    @registry.tool(RecordArgs, writes=False)
    def get_parking_record(db: dict[str, Any], args: RecordArgs) -> dict[str, Any]:
        """The caller's parking permit."""
        raise ToolError("parking_record_not_found", f"No parking record on file for {args.employee_id}")

    registry.tool(TransferArgs, writes=True)(transfer_to_agent)
    workflow = Workflow(
        "parking",
        "Renew a parking permit.",
        ("parking",),
        (Ask(EMPLOYEE), Call("get_parking_record", {"employee_id": "$employee_id"})),
    )
    tools = ToolBox(ToolExecutor(registry, {"employees": {}}))
    policy = WorkflowPolicy(tools, TODAY, {"parking": workflow})
    policy.greet()
    replies = [policy.step("I need to renew my parking permit.").text]
    for _ in range(2):  # the ID, read back and confirmed; the lookup fails, the ID is asked again
        replies += [policy.step("E M P 4 4 7 2.").text, policy.step("Yes.").text]
    assert "couldn't find a match for that employee ID" in replies[2]
    assert replies[-1].endswith("Is there anything else I can help you with?") and "No parking record" in replies[-1]
    assert "transfers" not in tools.executor.db
    assert policy.step("No, that's all.").end_call


def test_the_same_task_twice_in_one_call_asks_its_details_again() -> None:
    """Two leave requests in one call (EVA-Bench: two applications' access): the agent asks the second one's details
    afresh instead of reusing the first one's, and the caller answers with the second task's own answers
    (``<slot>#2``)."""
    second = {"leave_type": "sick", "start_date": "July 6", "days": "2"}
    answers = {**LEAVE, **{f"{slot}#2": value for slot, value in second.items()}}
    executor = ToolExecutor(REGISTRY, DB)
    for values in (LEAVE, {**LEAVE, **second}):
        typed = {s.name: parse_slot(s, values[s.name], TODAY) for s in WORKFLOWS["leave_request"].slots}
        assert run_reference(WORKFLOWS["leave_request"], typed, executor).outcome == "completed"
    base = SCENARIOS[0]
    plan = base.user_goal.scripted.model_copy(
        update={"answers": answers, "followups": ["I also need to book some sick leave."]}
    )
    twice = base.model_copy(
        update={
            "workflow": "leave_request+leave_request",
            "type": "multi_intent",
            "user_goal": base.user_goal.model_copy(update={"scripted": plan}),
            "expected_scenario_db": executor.db,
        }
    )
    conversation, lines = talk(twice)
    assert task_completion(conversation).passed, lines
    assert len(conversation.final_db["leave_requests"]) == 2
    assert sum(LEAVE_TYPE.question in t for t in said(lines)) == 2  # asked again, not reused


def test_only_the_verification_slots_carry_over_to_a_repeated_task() -> None:
    from evalkit.agents.reference.workflow_policy import identity_slots
    from evalkit.domains.itsm import WORKFLOWS as ITSM

    assert identity_slots(ITSM["application_access"]) == {"employee_id", "phone_last_four", "otp_code"}
    assert identity_slots(WORKFLOWS["leave_request"]) == set()  # the test domain verifies on every task


def test_a_refusal_writes_nothing_and_holds_against_push_back() -> None:
    conversation, lines = talk(SCENARIOS[2])
    assert task_completion(conversation).passed, lines
    assert conversation.final_db["leave_requests"] == {}
    assert conversation.final_db["employees"] == DB["employees"]
    refusals = [t for t in said(lines) if "balance of 2 days does not cover" in t]
    assert len(refusals) == 3, lines  # the refusal, then once per push-back
    assert said(lines, "user").count("But I really need the time off. Please make an exception.") == 2


def test_a_push_back_that_says_no_is_not_taken_as_goodbye() -> None:
    s = SCENARIOS[2].model_copy(deep=True)
    s.user_goal.scripted.push_back_say = "No, that's not fair. I need those days."
    conversation, lines = talk(s)
    assert conversation.end_reason == "user_end_call" and task_completion(conversation).passed, lines
    assert sum("does not cover" in t for t in said(lines)) == 3, lines


def test_multi_intent_runs_both_workflows() -> None:
    conversation, lines = talk(SCENARIOS[1])
    assert task_completion(conversation).passed, lines
    assert list(conversation.final_db["leave_requests"]) == ["LR4101"]
    assert conversation.final_db["badge_orders"] == {"5839201746": {"employee_id": "EMP4472", "shipping": "express"}}
    assert sum("anything else" in t for t in said(lines)) == 2
    assert any("L R 4 1 0 1" in t for t in said(lines))  # result codes are spelled when spoken
    # the second task reuses the ID and name already given (and still authenticates with them)
    assert sum(t.endswith("What is your employee ID?") for t in said(lines)) == 1
    assert [name for name, _ in [(c.name, 0) for t in conversation.turns for c in t.tool_calls]].count(
        "verify_employee"
    ) == 2


def test_a_false_when_branch_takes_the_other_call() -> None:
    s = scenario("T-4", ["badge_replacement"], {**DELGADO, "old_badge": "5839201746", "expedite": "no"})
    conversation, lines = talk(s)
    assert task_completion(conversation).passed, lines
    assert conversation.final_db["badge_orders"]["5839201746"]["shipping"] == "standard"


def test_a_declined_confirmation_writes_nothing() -> None:
    s = scenario("T-5", ["leave_request"], {**LEAVE, "confirm": "no"})
    conversation, lines = talk(s)
    assert task_completion(conversation).passed, lines
    assert conversation.final_db["leave_requests"] == {}
    assert "No, please don't do that." in said(lines, "user")


def test_intent_detection_prefers_the_longest_phrase_and_asks_when_tied() -> None:
    assert match_workflows("I lost my badge", WORKFLOWS) == ["badge_replacement"]
    assert match_workflows("hello there", WORKFLOWS) == []
    assert match_workflows("time off, and my badge", WORKFLOWS) == ["leave_request"]  # "time off" is longer
    assert sorted(match_workflows("I need leave and a badge", WORKFLOWS)) == sorted(WORKFLOWS)  # a tie
    tools = ToolBox(ToolExecutor(REGISTRY, DB))
    policy = WorkflowPolicy(tools, TODAY, WORKFLOWS)
    reply = policy.step("I need leave and a new badge")
    assert reply.text.endswith("Which one is it?")
    assert policy.step("The badge replacement, please.").text.endswith("What is your employee ID?")


def _persona(name: str, level: str = "none") -> PersonaSpec:
    config = PersonaConfig.model_validate(yaml.safe_load((CONF_DIR / "persona" / f"{name}.yaml").read_text()))
    return PersonaSpec.from_config(config.model_copy(update={"level": level}))


PERSONA_CELLS = [
    (p, level) for p in ("aggressive_impatient", "elderly_slow", "forgetful_disorganized") for level in ("none",)
] + [("default", "easy"), ("default", "hard")]


@pytest.mark.parametrize(("name", "level"), PERSONA_CELLS)
def test_persona_styles_still_complete(name: str, level: str) -> None:
    spec = _persona(name, level)
    for s in SCENARIOS:
        for seed in range(3):
            conversation, lines = talk(s, persona=spec, seed=seed)
            assert task_completion(conversation).passed, (s.id, seed, lines)


def test_persona_styling_reaches_workflow_answers() -> None:
    plain = said(talk(SCENARIOS[0])[1], "user")
    styled = said(talk(SCENARIOS[0], persona=_persona("elderly_slow"), seed=1)[1], "user")
    assert plain != styled and any("..." in t for t in styled) and not any("..." in t for t in plain)


@pytest.mark.parametrize(
    ("value", "spoken"),
    [
        ("2026-06-22", "June 22"),
        ("14:30", "2:30 PM"),
        (3.0, "3"),
        ("INC0012345", "I N C 0 0 1 2 3 4 5"),
        (15000, "15000"),
        ("14_inch", "14 inch"),
    ],
)
def test_values_are_spoken_as_a_person_says_them(value: object, spoken: str) -> None:
    assert say_value(value) == spoken


DOB = Slot("date_of_birth", "text", "And your date of birth?", label="date of birth")


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("Let me see... it's... September 5... 1970...", "September 5, 1970"),  # elderly pauses
        ("The date of birth is September 5, 1970.", "September 5, 1970"),  # easy level names the field
        ("Um... September 5, 1970.", "September 5, 1970"),  # disfluent
        ("September 5, 1970", "September 5, 1970"),  # the canonical answer is unchanged
        ("Hmm... where would I find that?", None),  # hard level: a question back is no value
        ("Oh... I'm not sure I have that to hand...", None),
        ("OH.", "OH"),  # a state code as written (Ohio) is no filler
    ],
)
def test_free_text_is_written_down_without_the_speech_around_it(heard: str, value: str | None) -> None:
    assert clean_text(DOB, heard) == value


def test_words_naming_a_code_slot_are_not_read_as_characters() -> None:
    four = Slot("phone_last_four", "digits", "The last four digits of your phone?", label="last four", length=4)
    assert hear_slot(four, "The phone last four is 8 6 3 3.", TODAY) == "8633"
    assert hear_slot(EMPLOYEE, "The employee ID is E M P 4 4 7 2.", TODAY) == "EMP4472"
    assert hear_slot(
        BADGE, "It's 5 8 3 9 2 0 1 7 1 6... oh wait, sorry, actually it's 5 8 3 9 2 0 1 7 4 6.", TODAY
    ) == ("5839201746")


# -- the shipped workflow domains (hr, itsm, ...) -----------------------------------------------------------
DOMAINS_DIR = Path(__file__).resolve().parents[1] / "evalkit" / "domains"
SHIPPED = sorted(  # a domain's workflows are a module (workflows.py) or a package (workflows/)
    d.name
    for d in DOMAINS_DIR.iterdir()
    if ((d / "workflows.py").is_file() or (d / "workflows" / "__init__.py").is_file())
    and any((d / "scenarios").glob("*.json"))
)


@pytest.mark.parametrize("domain", SHIPPED)
def test_the_local_agent_completes_every_shipped_workflow_scenario(domain: str) -> None:
    """Item 4 of issue 5: the deterministic policy is the reference path, so a clean text run passes them all."""
    failed, off_path = [], []
    # airline's reference calls were written by hand (its generator), not run from the workflows: the agent's
    # read-only calls may differ in what they search (the booked cabin) and its hand-over in its free-text summary;
    # what it writes must not
    registry = get_domain(domain).tools
    kept = (lambda name: registry[name].writes) if domain == "airline" else (lambda name: True)
    for s in load_scenarios(domain):
        conversation = run_text_dialogue(s)
        clean = not any(REASK.search(t) for t in said(transcript(conversation)))
        handed_over = [c.name for c in s.reference_calls][-1:] == ["transfer_to_agent"]  # the agent ends that call
        ended = conversation.end_reason == ("agent_end_call" if handed_over else "user_end_call")
        if not (task_completion(conversation).passed and ended and clean):
            failed.append(s.id)
        made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls if kept(c.name)]
        if made != [(c.name, c.arguments) for c in s.reference_calls if kept(c.name)]:  # e.g. verifying twice
            off_path.append(s.id)
    assert failed == [] and off_path == []


@pytest.mark.parametrize("domain", SHIPPED)
@pytest.mark.parametrize(("name", "level"), [("elderly_slow", "none"), ("forgetful_disorganized", "hard")])
def test_shipped_scenarios_complete_with_persona_styles(domain: str, name: str, level: str) -> None:
    spec = _persona(name, level)
    failed = []
    for s in load_scenarios(domain):
        conversation = run_text_dialogue(s, persona=spec, rng=np.random.default_rng(7))
        if not task_completion(conversation).passed:
            failed.append(s.id)
    assert failed == []


def test_make_policy_picks_the_engine_for_workflow_domains_and_names_unknown_ones() -> None:
    tools = ToolBox(ToolExecutor(REGISTRY, DB))
    assert "airline" in SHIPPED  # every built-in domain: airline's tasks run on the engine too
    for domain in SHIPPED:
        assert isinstance(make_policy(domain, tools, NOW), WorkflowPolicy)
    with pytest.raises(ValueError, match="no dialogue policy for domain 'nowhere'"):
        make_policy("nowhere", tools, NOW)


def test_a_misheard_request_is_restated_in_plain_words_and_the_task_completes() -> None:
    from evalkit.domains.scenarios import load_scenarios
    from evalkit.metrics.task_completion import task_completion
    from evalkit.text_dialogue import run_text_dialogue, transcript

    scenario = next(s for s in load_scenarios("hr") if s.id == "HR-003")
    opening = scenario.user_goal.starting_utterance
    garbled = opening.replace("malpractice", "Mailcrack disk")
    conversation = run_text_dialogue(scenario, ear=lambda t: garbled if t == opening else t)
    said = [text for role, text in transcript(conversation) if role == "user"]
    assert said[:2] == [opening] * 2
    assert said[2] == "I need help with malpractice update."
    assert task_completion(conversation).score == 1.0


@pytest.mark.parametrize(("domain", "scenario_id", "said"), [("itsm", "IT-001", "active directory")])
def test_a_transfer_hands_over_with_the_tool_s_own_arguments(domain: str, scenario_id: str, said: str) -> None:
    """The engine's hand-over calls the domain's transfer tool with the arguments its schema takes (EVA-Bench's:
    the verified caller's employee id, a listed reason and a summary), so the transfer is recorded, not rejected."""
    scenario = next(s for s in load_scenarios(domain) if s.id == scenario_id)

    def ear(text: str) -> str:  # after verification, one answer is never heard: the agent gives up on it
        return "mumble mumble" if said in text.lower() else text

    conversation = run_text_dialogue(scenario, ear=ear)
    transfers = [c for c in conversation.tool_calls if c.name == "transfer_to_agent"]
    assert len(transfers) == 1, [c.name for c in conversation.tool_calls]
    call = transfers[0]
    assert call.ok and call.result.get("transfer_reason") == "unable_to_resolve", call.result
    assert call.arguments["employee_id"] == scenario.user_goal.information_required["employee_id"]
    said_last = [t.intended_text for t in conversation.turns if t.role == "assistant"][-1]
    assert "transferring you" in said_last.lower(), said_last
