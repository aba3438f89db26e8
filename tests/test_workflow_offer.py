"""The workflow engine's offer-and-choose step and escalate-anywhere rule (issue 28.4), on a small table-booking
domain built here: up to ``limit`` options said, the choice heard against them (value, ordinal, words), read back
and bound; a caller who takes none searches again; an empty search ends the task; a caller asking for a supervisor
at any step is handed over with the workflow's own tool; workflows without the rule keep their old behaviour."""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.workflow_offer import NONE_TAKEN, choose_option, option_list
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains.base import ToolArgs, ToolError, ToolExecutor, ToolRegistry
from evalkit.domains.workflow import (
    Ask,
    Call,
    Confirm,
    Escalate,
    Offer,
    Say,
    Slot,
    Workflow,
    WorkflowError,
    parse_slot,
    run_reference,
)
from evalkit.metrics.task_completion import task_completion
from evalkit.scenarios import DecisionRule, Persona, ReferenceCall, Scenario, ScriptedPlan, UserGoal
from evalkit.text_dialogue import run_text_dialogue, transcript

TODAY = date(2026, 6, 18)
REGISTRY = ToolRegistry()


class FindArgs(ToolArgs):
    day: str


class BookArgs(ToolArgs):
    table_id: str


class HandOverArgs(ToolArgs):
    reason: str
    day: str | None = None


@REGISTRY.tool(FindArgs, writes=False)
def find_tables(db: dict[str, Any], args: FindArgs) -> dict[str, Any]:
    """The free tables of a day, in the order the restaurant offers them."""
    return {"tables": [t for t in db["tables"] if t["day"] == args.day and not t["booked"]]}


@REGISTRY.tool(BookArgs, writes=True)
def book_table(db: dict[str, Any], args: BookArgs) -> dict[str, Any]:
    """Book one table."""
    for table in db["tables"]:
        if table["table_id"] == args.table_id and not table["booked"]:
            table["booked"] = True
            return {"booked": args.table_id}
    raise ToolError("not_found", f"no free table {args.table_id}")


@REGISTRY.tool(HandOverArgs, writes=True)
def call_manager(db: dict[str, Any], args: HandOverArgs) -> dict[str, Any]:
    """Hand the call to the duty manager."""
    db["handovers"].append(args.model_dump())
    return {"handed_over": True}


DAY = Slot("day", "date", "Which day would you like to come?", label="day")
TABLE = Slot("table_id", "code", "Which table would you like?", label="table", length=6)
OFFER = Offer(
    items="$search.tables",
    value="table_id",
    option="table {table_id} at {time}",
    slot=TABLE,
    name="chosen",
    again="day",
    none="I'm sorry, we have no free table that day.",
)
STEPS = (
    Ask(DAY),
    Call("find_tables", {"day": "$day"}, name="search"),
    OFFER,
    Confirm("Shall I book table {table_id} at {chosen.time}?"),
    Call("book_table", {"table_id": "$table_id"}),
    Say("You're booked."),
)
ESCALATE = Escalate("call_manager", {"reason": "caller asked for a supervisor", "day": "$day"})
WORKFLOWS = {"book_table": Workflow("book_table", "Book a table.", ("book a table", "table"), STEPS, ESCALATE)}
PLAIN = {"book_table": Workflow("book_table", "Book a table.", ("book a table", "table"), STEPS)}
TABLES = [  # four free tables on June 20 (three are offered), one on June 21, none on June 22
    {"table_id": "T4K9X2", "day": "2026-06-20", "time": "18:30", "booked": False},
    {"table_id": "B7Q2M5", "day": "2026-06-20", "time": "19:00", "booked": False},
    {"table_id": "W3N8P1", "day": "2026-06-20", "time": "20:15", "booked": False},
    {"table_id": "Z9Z9Z9", "day": "2026-06-20", "time": "21:45", "booked": False},
    {"table_id": "R5D6F7", "day": "2026-06-21", "time": "12:00", "booked": False},
]


def fresh_db() -> dict[str, Any]:
    return {"tables": [dict(t) for t in TABLES], "handovers": []}


def policy(workflows: dict[str, Workflow] = WORKFLOWS) -> tuple[WorkflowPolicy, ToolExecutor]:
    executor = ToolExecutor(REGISTRY, fresh_db())
    return WorkflowPolicy(ToolBox(executor), TODAY, workflows), executor


def dialogue(lines: list[str], workflows: dict[str, Workflow] = WORKFLOWS) -> tuple[list[str], ToolExecutor]:
    """The agent's replies to the caller's ``lines`` (after its greeting), and the tools it used."""
    agent, executor = policy(workflows)
    agent.greet()
    return [agent.step(line).text for line in lines], executor


def booked(executor: ToolExecutor) -> list[str]:
    return [t["table_id"] for t in executor.db["tables"] if t["booked"]]


# -- the schema -----------------------------------------------------------------------------------------------------
def test_the_test_domain_is_well_formed_and_bad_declarations_fail_with_one_line() -> None:
    WORKFLOWS["book_table"].check(REGISTRY)
    wrong_again = Workflow(
        "w", "", ("w",), (*STEPS[:2], Offer("$search.tables", "table_id", "{table_id}", TABLE, again="time"))
    )
    with pytest.raises(WorkflowError, match="offer again='time' is no slot"):
        wrong_again.check(REGISTRY)
    with pytest.raises(WorkflowError, match="escalate: unknown tool 'page_manager'"):
        Workflow("w", "", ("w",), STEPS, Escalate("page_manager")).check(REGISTRY)
    with pytest.raises(WorkflowError, match="limit must be at least 1"):
        Offer("$search.tables", "table_id", "{table_id}", TABLE, limit=0)
    assert TABLE in WORKFLOWS["book_table"].slots  # the caller answers an offer's question like an Ask's


def test_the_reference_run_binds_the_chosen_option_and_rejects_one_never_offered() -> None:
    executor = ToolExecutor(REGISTRY, fresh_db())
    run = run_reference(WORKFLOWS["book_table"], {"day": "2026-06-20", "table_id": "B7Q2M5"}, executor)
    assert run.outcome == "completed" and booked(executor) == ["B7Q2M5"]
    assert run.scope["chosen"]["time"] == "19:00"
    with pytest.raises(WorkflowError, match="not among the offer"):  # the fourth table is never said
        run_reference(
            WORKFLOWS["book_table"], {"day": "2026-06-20", "table_id": "Z9Z9Z9"}, ToolExecutor(REGISTRY, fresh_db())
        )
    empty = run_reference(
        WORKFLOWS["book_table"], {"day": "2026-06-22", "table_id": "X"}, ToolExecutor(REGISTRY, fresh_db())
    )
    assert empty.outcome == "refused"


# -- hearing a choice -------------------------------------------------------------------------------------------
ITEMS = TABLES[:3]
TEXTS = ["table T 4 K 9 X 2 at 6:30 PM", "table B 7 Q 2 M 5 at 7 PM", "table W 3 N 8 P 1 at 8:15 PM"]


@pytest.mark.parametrize(
    ("heard", "index"),
    [
        ("B 7 Q 2 M 5, please.", 1),  # the value, spelled
        ("I'll take w3n8p1", 2),  # the value, written
        ("The second one.", 1),
        ("Option three, please.", 2),
        ("The last one sounds good.", 2),
        ("table B seven Q two M five at seven", 1),  # the option's words, nearly
        ("None of those work for me.", NONE_TAKEN),
        ("No, something else.", NONE_TAKEN),
        ("I can't come tonight anymore. Is there something tomorrow?", NONE_TAKEN),  # a decline in the caller's words
        ("Those are too late for me.", NONE_TAKEN),
        ("I'd rather come another week.", NONE_TAKEN),
        ("I'd rather have the second one.", 1),  # an option named wins over the decline words
        ("Hmm, let me think.", None),  # unclear: asked again
        ("The fifth one.", None),  # an ordinal past the options
    ],
)
def test_a_choice_is_heard_against_the_offered_options(heard: str, index: int | None) -> None:
    assert choose_option(heard, OFFER, ITEMS, TEXTS, TODAY) == index


def test_options_are_said_as_one_list() -> None:
    assert option_list(["A", "B", "C"]) == "I have 3 options: A; B; or C."
    assert option_list(["A"]) == "I have one option: A."


# -- the dialogue -----------------------------------------------------------------------------------------------
def test_up_to_limit_options_are_offered_the_choice_read_back_and_booked() -> None:
    replies, executor = dialogue(["I'd like to book a table.", "June 20th.", "The second one.", "Yes.", "Yes, please."])
    offer = replies[1]
    assert "I have 3 options: table T 4 K 9 X 2 at 6:30 PM;" in offer and "Z 9 Z 9 Z 9" not in offer  # limit 3
    assert offer.endswith("Which table would you like?")
    assert replies[2] == "I have table B 7 Q 2 M 5 at 7 PM. Is that right?"
    assert "Shall I book table B 7 Q 2 M 5 at 7 PM?" in replies[3]
    assert booked(executor) == ["B7Q2M5"] and "You're booked." in replies[4]


def test_a_no_to_the_read_back_with_another_choice_takes_that_one() -> None:
    replies, executor = dialogue(
        ["Book a table please.", "June 20.", "The first one.", "No, the third one.", "Yes.", "Yes."]
    )
    assert replies[3] == "I have table W 3 N 8 P 1 at 8:15 PM. Is that right?"
    assert booked(executor) == ["W3N8P1"]


def test_none_taken_searches_again_once_then_ends_writing_nothing() -> None:
    replies, executor = dialogue(
        ["A table, please.", "June 20.", "None of those.", "June 21.", "The first one.", "Yes.", "Yes."]
    )
    assert replies[2] == "Okay, let's look again. Which day would you like to come?"
    assert "I have one option: table R 5 D 6 F 7 at 12 PM." in replies[3]
    assert booked(executor) == ["R5D6F7"]
    replies, executor = dialogue(["A table, please.", "June 20.", "Neither.", "June 21.", "No, none of them."])
    assert "I won't change anything" in replies[-1] and "anything else" in replies[-1]
    assert booked(executor) == []


def test_an_empty_search_ends_the_task_with_the_none_text() -> None:
    replies, executor = dialogue(["A table, please.", "June 22."])
    assert replies[-1].startswith("Thank you. I'm sorry, we have no free table that day.")
    assert booked(executor) == []


@pytest.mark.parametrize(
    ("lines", "day"),
    [
        (["I'd like to book a table.", "Can I speak to a supervisor?"], None),  # at a slot, before the day is known
        (["I'd like to book a table.", "June 20.", "I want to talk to your manager."], "2026-06-20"),  # at the offer
        (["I'd like to book a table.", "June 20.", "The first one.", "Get me a real person."], "2026-06-20"),
    ],
)
def test_a_caller_asking_for_a_supervisor_at_any_step_is_handed_over(lines: list[str], day: str | None) -> None:
    agent, executor = policy()
    agent.greet()
    replies = [agent.step(line) for line in lines]
    assert replies[-1].end_call and replies[-1].text == "Of course. I'm transferring you to a supervisor now."
    assert executor.db["handovers"] == [{"reason": "caller asked for a supervisor", "day": day}]
    assert booked(executor) == []


def test_a_workflow_without_the_rule_does_not_hand_over() -> None:
    replies, executor = dialogue(["I'd like to book a table.", "Can I speak to a supervisor?"], PLAIN)
    assert "didn't catch that" in replies[-1] and executor.db["handovers"] == []


# -- with the scripted caller, in text --------------------------------------------------------------------------
def scenario(answers: dict[str, str], push_back: str | None = None) -> Scenario:
    executor = ToolExecutor(REGISTRY, fresh_db())
    typed = {s.name: parse_slot(s, answers[s.name], TODAY) for s in WORKFLOWS["book_table"].slots}
    run = run_reference(WORKFLOWS["book_table"], typed, executor)
    goal = UserGoal(
        high_level_user_goal="a table",
        must_have_criteria=[],
        starting_utterance="I'd like to book a table.",
        information_required=answers,
        decision_tree=[DecisionRule(id=1, text="Answer what is asked.")],
        resolution_condition="booked",
        failure_condition="not booked",
        escalation_behavior="ask for a supervisor when refused" if push_back else "none",
        scripted=ScriptedPlan(answers=answers, push_back_say=push_back, push_back_times=1 if push_back else 0),
    )
    return Scenario(
        id="TB-1",
        domain="tabletest",
        workflow="book_table",
        type="adversarial" if push_back else "single_intent",
        current_date_time="2026-06-18 09:30 PDT",
        persona=Persona(name="Ana Ruiz", gender="female", text="calm"),
        user_goal=goal,
        key_entities={"table_id": answers["table_id"]},
        scenario_db=fresh_db(),
        reference_calls=[ReferenceCall(name=n, arguments=a) for n, a in run.calls],
        expected_scenario_db=executor.db,
    )


def test_the_scripted_caller_chooses_its_table_among_the_offer_and_the_task_completes() -> None:
    s = scenario({"day": "June 20", "table_id": "W3N8P1"})
    conversation = run_text_dialogue(
        s, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    assert any(r == "assistant" and t == "I have table W 3 N 8 P 1 at 8:15 PM. Is that right?" for r, t in lines), lines


def test_the_scripted_caller_pushing_back_for_a_supervisor_after_a_refusal_is_handed_over() -> None:
    s = scenario({"day": "June 20", "table_id": "W3N8P1"}, push_back="Then let me speak to a supervisor.")
    s = s.model_copy(update={"scenario_db": {**fresh_db(), "tables": []}})  # nothing free: the task is refused
    conversation = run_text_dialogue(
        s, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    made = [(c.name, c.arguments) for t in conversation.turns for c in t.tool_calls]
    assert made[-1] == ("call_manager", {"reason": "caller asked for a supervisor", "day": "2026-06-20"}), lines
    assert lines[-1] == ("assistant", "Of course. I'm transferring you to a supervisor now."), lines
