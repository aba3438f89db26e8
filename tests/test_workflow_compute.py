"""The workflow engine's value step ``Compute(name, of)`` (issue 28.4), on a small parts-ordering domain built here:
a value put into the scope (a literal, a ``"$ref"`` template or a ``Derived`` pure function; no string evaluated),
branch-selected with ``when``, quoted by a confirmation before anything is written, passed to a tool, and a caller
whose fee limit is below the quoted total declines it."""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains.base import ToolArgs, ToolError, ToolExecutor, ToolRegistry
from evalkit.domains.workflow import (
    Ask,
    Call,
    Compute,
    Confirm,
    Derived,
    Offer,
    Say,
    Slot,
    Switch,
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
DELIVERY_FEE = 15.0
FREE_DELIVERY_FROM = 100.0


class PartArgs(ToolArgs):
    part_id: str


class OrderArgs(ToolArgs):
    part_id: str
    quantity: int
    amount: float


@REGISTRY.tool(PartArgs, writes=False)
def get_part(db: dict[str, Any], args: PartArgs) -> dict[str, Any]:
    """A part's catalogue entry (its unit price)."""
    if args.part_id not in db["parts"]:
        raise ToolError("not_found", f"no part {args.part_id}")
    return {"part": db["parts"][args.part_id]}


@REGISTRY.tool(OrderArgs, writes=True)
def place_order(db: dict[str, Any], args: OrderArgs) -> dict[str, Any]:
    """Place an order for the amount the caller agreed to."""
    db["orders"].append(args.model_dump())
    return {"order_id": f"ORD{len(db['orders']):03d}"}


def order_quote(found: dict[str, Any], quantity: float, fee: float) -> dict[str, Any]:
    """The parts' price, the delivery fee and their total."""
    parts = found["part"]["price"] * quantity
    return {"parts": parts, "fee": fee, "total": parts + fee}


PART = Slot("part_id", "code", "Which part number would you like?", label="part number", length=6)
QUANTITY = Slot("quantity", "number", "How many would you like?", label="how many")
FREE_DELIVERY = Derived(lambda found, n: found["part"]["price"] * n >= FREE_DELIVERY_FROM, "$found", "$quantity")
STEPS = (
    Ask(PART),
    Ask(QUANTITY),
    Call("get_part", {"part_id": "$part_id"}, name="found"),
    Compute("unit", "$found.part.price"),  # a template: the value as it stands
    Compute("fee", DELIVERY_FEE),  # a literal ...
    Compute("fee", 0.0, when=FREE_DELIVERY),  # ... that a later branch replaces
    Compute("quote", Derived(order_quote, "$found", "$quantity", "$fee")),
    Confirm(
        "At {unit} dollars each that's {quote.parts} dollars plus a {quote.fee} dollar delivery fee, a total of "
        "{quote.total} dollars. Shall I place the order?"
    ),
    Call("place_order", {"part_id": "$part_id", "quantity": "$quantity", "amount": "$quote.total"}, name="order"),
    Say("Your order number is {order.order_id}."),
)
WORKFLOWS = {"order_parts": Workflow("order_parts", "Order parts.", ("order", "parts"), STEPS)}
PARTS = {"BRK204": {"name": "brake pads", "price": 12.5}, "CHN118": {"name": "chain", "price": 40.0}}


def fresh_db() -> dict[str, Any]:
    return {"parts": {k: dict(v) for k, v in PARTS.items()}, "orders": []}


def dialogue(lines: list[str]) -> tuple[list[str], ToolExecutor]:
    """The agent's replies to the caller's ``lines`` (after its greeting), and the tools it used."""
    executor = ToolExecutor(REGISTRY, fresh_db())
    agent = WorkflowPolicy(ToolBox(executor), TODAY, WORKFLOWS)
    agent.greet()
    return [agent.step(line).text for line in lines], executor


# -- the schema and the reference run -------------------------------------------------------------------------
def test_a_computed_name_is_known_to_later_steps_only() -> None:
    WORKFLOWS["order_parts"].check(REGISTRY)
    quoted_first = Workflow("w", "", ("w",), (Confirm("A total of {quote.total} dollars?"), *STEPS))
    with pytest.raises(WorkflowError, match=r"step 0: reference \$quote is neither"):
        quoted_first.check(REGISTRY)
    unknown_input = Workflow("w", "", ("w",), (Ask(PART), Compute("unit", "$catalogue.price")))
    with pytest.raises(WorkflowError, match=r"step 1: reference \$catalogue is neither"):
        unknown_input.check(REGISTRY)


@pytest.mark.parametrize(
    ("part", "quantity", "fee", "total"),
    [("BRK204", 2.0, DELIVERY_FEE, 40.0), ("CHN118", 3.0, 0.0, 120.0)],  # the second order ships free
)
def test_the_reference_run_computes_values_and_passes_them_to_the_tool(
    part: str, quantity: float, fee: float, total: float
) -> None:
    executor = ToolExecutor(REGISTRY, fresh_db())
    run = run_reference(WORKFLOWS["order_parts"], {"part_id": part, "quantity": quantity}, executor)
    assert run.outcome == "completed"
    assert run.scope["fee"] == fee and run.scope["quote"]["total"] == total
    assert run.scope["unit"] == PARTS[part]["price"]
    assert executor.db["orders"] == [{"part_id": part, "quantity": int(quantity), "amount": total}]


def test_a_string_is_never_evaluated_and_a_missing_input_is_an_error() -> None:
    literal = Workflow("w", "", ("w",), (Compute("sum", "1 + 2"), Compute("echo", "$sum")))
    assert run_reference(literal, {}, ToolExecutor(REGISTRY, fresh_db())).scope["echo"] == "1 + 2"
    missing = Workflow("w", "", ("w",), (Compute("unit", "$found.part.price"),))  # no call named found ran
    with pytest.raises(WorkflowError, match=r"no value for \$found"):
        run_reference(missing, {}, ToolExecutor(REGISTRY, fresh_db()))


# -- the engine -------------------------------------------------------------------------------------------------
def test_the_confirmation_quotes_the_computed_total_before_anything_is_written() -> None:
    replies, executor = dialogue(["I'd like to order some parts.", "B R K 2 0 4", "Yes.", "2, please."])
    assert replies[-1].endswith(
        "At 12.5 dollars each that's 25 dollars plus a 15 dollar delivery fee, a total of 40 dollars. "
        "Shall I place the order?"
    )
    assert executor.db["orders"] == []  # quoted, not written
    replies, executor = dialogue(["I'd like to order some parts.", "B R K 2 0 4", "Yes.", "2, please.", "Yes."])
    assert executor.db["orders"] == [{"part_id": "BRK204", "quantity": 2, "amount": 40.0}]
    assert "Your order number is O R D 0 0 1." in replies[-1]


def test_a_branch_replaces_a_computed_value() -> None:
    replies, _ = dialogue(["I'd like to order some parts.", "C H N 1 1 8", "Yes.", "3."])
    assert "plus a 0 dollar delivery fee, a total of 120 dollars" in replies[-1]


# -- with the scripted caller, in text --------------------------------------------------------------------------
def scenario(max_fee: float | None, confirm: bool) -> Scenario:
    answers = {"part_id": "B R K 2 0 4", "quantity": "2"}
    executor = ToolExecutor(REGISTRY, fresh_db())
    typed = {s.name: parse_slot(s, answers[s.name], TODAY) for s in WORKFLOWS["order_parts"].slots}
    run = run_reference(WORKFLOWS["order_parts"], typed, executor, confirm=confirm)
    goal = UserGoal(
        high_level_user_goal="two brake pads",
        must_have_criteria=[],
        starting_utterance="I'd like to order some parts.",
        information_required=answers,
        decision_tree=[DecisionRule(id=1, text="Confirm only if the stated total is within your budget.")],
        resolution_condition="ordered within budget",
        failure_condition="ordered over budget",
        escalation_behavior="none",
        scripted=ScriptedPlan(answers=answers, max_fee=max_fee),
    )
    return Scenario(
        id="PO-1",
        domain="partstest",
        workflow="order_parts",
        type="single_intent",
        current_date_time="2026-06-18 09:30 PDT",
        persona=Persona(name="Ana Ruiz", gender="female", text="calm"),
        user_goal=goal,
        key_entities={"part_id": "BRK204"},
        scenario_db=fresh_db(),
        reference_calls=[ReferenceCall(name=n, arguments=a) for n, a in run.calls],
        expected_scenario_db=executor.db,
    )


@pytest.mark.parametrize(("max_fee", "ordered"), [(50.0, True), (30.0, False)])
def test_the_scripted_caller_decides_on_the_quoted_total(max_fee: float, ordered: bool) -> None:
    s = scenario(max_fee, confirm=ordered)
    conversation = run_text_dialogue(
        s, lambda t: t, None, np.random.default_rng(0), registry=REGISTRY, workflows=WORKFLOWS
    )
    lines = transcript(conversation)
    assert task_completion(conversation).score == 1.0, lines
    made = [c.name for t in conversation.turns for c in t.tool_calls]
    assert ("place_order" in made) == ordered, lines
    assert any(r == "assistant" and "a total of 40 dollars" in t for r, t in lines), lines


def test_a_say_that_ends_the_task_skips_the_other_branch_s_steps() -> None:
    """``Say(end=True)``: a branch that is complete (a part only asked about) ends the task there, in the reference
    run and in the agent; without the condition the steps below run as before."""
    asking = Derived(lambda part: part["part"]["price"] > 20, "$found")
    steps = (
        Ask(PART),
        Call("get_part", {"part_id": "$part_id"}, name="found"),
        Say("That part is {found.part.price} dollars; it ships on request.", when=asking, end=True),
        Ask(QUANTITY),
        Call("place_order", {"part_id": "$part_id", "quantity": "$quantity", "amount": 1.0}),
    )
    workflow = Workflow("order_parts", "Order parts.", ("order", "parts"), steps)
    workflow.check(REGISTRY)
    answers = {"part_id": "CHN118", "quantity": 1}
    ended = run_reference(workflow, answers, ToolExecutor(REGISTRY, fresh_db()))
    assert ended.outcome == "completed" and [name for name, _ in ended.calls] == ["get_part"]
    ordered = run_reference(workflow, {**answers, "part_id": "BRK204"}, ToolExecutor(REGISTRY, fresh_db()))
    assert [name for name, _ in ordered.calls] == ["get_part", "place_order"]
    executor = ToolExecutor(REGISTRY, fresh_db())
    agent = WorkflowPolicy(ToolBox(executor), TODAY, {"order_parts": workflow})
    agent.greet()
    replies = [agent.step(line).text for line in ["I'd like to order parts.", "C H N 1 1 8", "yes"]]
    assert "ships on request" in replies[-1] and "How many" not in replies[-1], replies
    assert executor.db["orders"] == []


def test_an_offer_that_falls_through_lets_a_later_step_offer_something_else() -> None:
    """``Offer(fall_through=True)``: nothing on offer (or none taken) goes on to the next step, which offers another
    list on the branch ``when="!$chosen"``; the reference run takes the caller's answer from the second list."""
    steps = (
        Compute("stocked", []),  # nothing in stock here
        Offer("$stocked", "part_id", "part {part_id}", PART, name="chosen", none="None here.", fall_through=True),
        Compute("elsewhere", [{"part_id": "BRK204"}, {"part_id": "CHN118"}], when="!$chosen"),
        Offer("$elsewhere", "part_id", "part {part_id}", PART, name="chosen", when="!$chosen"),
        Call("place_order", {"part_id": "$part_id", "quantity": 1, "amount": 1.0}),
    )
    workflow = Workflow("order_parts", "Order parts.", ("order", "parts"), steps)
    workflow.check(REGISTRY)
    run = run_reference(workflow, {"part_id": "CHN118"}, ToolExecutor(REGISTRY, fresh_db()))
    assert run.outcome == "completed" and run.calls == [
        ("place_order", {"part_id": "CHN118", "quantity": 1, "amount": 1.0})
    ]
    ending = Workflow(
        "order_parts", "Order parts.", ("order",), (steps[0], Offer("$stocked", "part_id", "{part_id}", PART))
    )
    assert run_reference(ending, {"part_id": "CHN118"}, ToolExecutor(REGISTRY, fresh_db())).outcome == "refused"


def test_a_ranked_choice_is_tried_in_order_until_one_call_succeeds() -> None:
    """``Call(each=..., first_ok=True)``: the caller's ranked choices ("the brake pads, else the chain") are tried in
    order and the first that works is kept; the reference run and the agent make the same calls."""
    ranked = Derived(lambda said: [{"part_id": p.strip()} for p in said.split(",")], "$wanted")
    wanted = Slot("wanted", "text", "Which parts, in order of preference?", label="parts")
    steps = (Ask(wanted), Call("get_part", {}, name="found", each=ranked, first_ok=True), Say("{found.part.name}."))
    workflow = Workflow("order_parts", "Order parts.", ("order", "parts"), steps)
    run = run_reference(workflow, {"wanted": "NOPE01, CHN118, BRK204"}, ToolExecutor(REGISTRY, fresh_db()))
    assert [args["part_id"] for _, args in run.calls] == ["NOPE01", "CHN118"] and run.errors == ["not_found", None]
    assert run.scope["found"]["part"]["name"] == "chain"
    with pytest.raises(WorkflowError, match="no get_part call succeeded"):
        run_reference(workflow, {"wanted": "NOPE01, NOPE02"}, ToolExecutor(REGISTRY, fresh_db()))
    every = Workflow("w", "", ("w",), (Ask(wanted), Call("get_part", {}, each=ranked)))
    with pytest.raises(WorkflowError, match="failed"):  # without first_ok every call must succeed
        run_reference(every, {"wanted": "NOPE01, CHN118"}, ToolExecutor(REGISTRY, fresh_db()))
    executor = ToolExecutor(REGISTRY, fresh_db())
    agent = WorkflowPolicy(ToolBox(executor), TODAY, {"order_parts": workflow})
    agent.greet()
    replies = [agent.step(line).text for line in ["I'd like to order parts.", "NOPE01, CHN118, BRK204"]]
    assert "chain." in replies[-1], replies


def test_the_words_that_started_a_task_chosen_among_several_keep_the_request_it_answered() -> None:
    """A request that fits two tasks is followed by "which one is it?"; ``$requested`` is then the request and the
    choice ("... it's for the race team" and "order parts"), not the bare choice, so a rule that reads the caller's
    words (which journey, a disruption the caller tells of) still has them."""
    steps = (Ask(PART), Say("Noted."))
    workflows = {name: Workflow(name, name, ("order",), steps) for name in ("order_parts", "order_tools")}
    agent = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, fresh_db())), TODAY, workflows)
    agent.greet()
    assert "Which one is it?" in agent.step("I'd like to order, it's for the race team.").text
    agent.step("Order parts, please.")
    assert agent.run is not None and agent.run.workflow.name == "order_parts"
    assert agent.run.scope["requested"] == "I'd like to order, it's for the race team. Order parts, please."


def test_a_switch_goes_on_as_another_workflow_with_what_was_gathered() -> None:
    """``Switch(workflow)``: a request the first workflow cannot serve goes on as another (a part out of the catalogue:
    a special order), the part number not asked again; the reference run follows it when given the workflows."""
    special = Workflow(
        "special_order", "Special order.", ("special",), (Ask(PART), Say("Special order for {part_id}."))
    )
    asking = Workflow(
        "order_parts",
        "Order parts.",
        ("order",),
        (
            Ask(PART),
            Call("get_part", {"part_id": "$part_id"}, name="found", errors_ok=("not_found",)),
            Switch("special_order", when="!$found.part"),
            Say("That's {found.part.name}."),
        ),
    )
    workflows = {w.name: w for w in (asking, special)}
    run = run_reference(asking, {"part_id": "ZZZ999"}, ToolExecutor(REGISTRY, fresh_db()), workflows=workflows)
    assert run.outcome == "completed" and [name for name, _ in run.calls] == ["get_part"]
    with pytest.raises(WorkflowError, match="no workflow 'special_order' to switch to"):
        run_reference(asking, {"part_id": "ZZZ999"}, ToolExecutor(REGISTRY, fresh_db()))
    agent = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, fresh_db())), TODAY, workflows)
    agent.greet()
    replies = [agent.step(line).text for line in ["I'd like to order a part.", "Z Z Z 9 9 9", "Yes."]]
    assert "Special order for Z Z Z 9 9 9." in replies[-1] and "Which part number" not in replies[-1], replies
    alone = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, fresh_db())), TODAY, {"order_parts": asking})
    alone.greet()
    alone.step("I'd like to order a part.")
    alone.step("Z Z Z 9 9 9")
    with pytest.raises(WorkflowError, match="no workflow 'special_order' to switch to"):  # a declaration error
        alone.step("Yes.")


def test_a_rule_that_cannot_read_its_records_raises_a_record_error_the_agent_hands_over() -> None:
    """A reservation without bookings (a record's thin database): the data, not the declaration, is at fault."""
    from evalkit.domains.workflow import RecordError, WorkflowError, resolve

    first = Derived(lambda found: found["bookings"][0], "$reservation")
    assert resolve(first, {"reservation": {"bookings": [{"id": 1}]}}) == {"id": 1}
    with pytest.raises(RecordError, match="could not read the records: KeyError"):
        resolve(first, {"reservation": {}})
    with pytest.raises(WorkflowError) as missing:  # a reference to nothing gathered stays a declaration error
        resolve(first, {})
    assert not isinstance(missing.value, RecordError)
