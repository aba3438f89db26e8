"""Declarative workflows: checked against the registry, and run as the reference path that gives expected DBs."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import Field

from evalkit.domains.airline import REGISTRY
from evalkit.domains.base import ToolArgs, ToolError, ToolExecutor, ToolRegistry
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.workflow import (
    Ask,
    Call,
    Confirm,
    Derived,
    Say,
    Slot,
    Workflow,
    WorkflowError,
    fit_pattern,
    parse_slot,
    render,
    run_reference,
)
from evalkit.metrics.task_completion import canonical_hash

AL_003 = next(s for s in load_scenarios("airline") if s.id == "AL-003")
CODE = Slot("confirmation_number", "code", "What is your confirmation number?", length=6, read_back=True)
NAME = Slot("last_name", "name", "And the last name on the booking?")
REFUNDABLE = Slot("wants_refund", "yes_no", "Would you like a refund to the original payment?", label="refund")

CANCEL = Workflow(
    name="cancellation_refund",
    description="Cancel a refundable booking and refund the fare.",
    intents=("cancel",),
    steps=(
        Ask(CODE),
        Ask(NAME),
        Call(
            "get_reservation",
            {"confirmation_number": "$confirmation_number", "last_name": "$last_name"},
            name="booking",
            require={"reservation.fare_type": "refundable"},
            refusal="This fare is not refundable.",
        ),
        Call(
            "get_flight_status",
            {
                "flight_number": "$booking.reservation.bookings.0.segments.0.flight_number",
                "flight_date": "$booking.reservation.bookings.0.segments.0.date",
            },
        ),
        Confirm("I will cancel booking {booking.reservation.confirmation_number}. Shall I go ahead?"),
        Call(
            "cancel_reservation",
            {
                "confirmation_number": "$confirmation_number",
                "journey_id": "$booking.reservation.bookings.0.journey_id",
                "cancellation_reason": "voluntary",
            },
        ),
        Ask(REFUNDABLE),
        Call(
            "process_refund",
            {
                "confirmation_number": "$confirmation_number",
                "refund_amount": "$booking.reservation.bookings.0.fare_paid",
                "refund_type": "full_fare",
            },
            when="$wants_refund",
        ),
        Say("Done. Booking {booking.reservation.confirmation_number} is cancelled."),
    ),
)
ANSWERS = {"confirmation_number": "B9KM3R", "last_name": "Delgado", "wants_refund": True}


def test_the_reference_run_reproduces_the_hand_built_scenario() -> None:
    CANCEL.check(REGISTRY)
    executor = ToolExecutor(REGISTRY, AL_003.scenario_db)
    run = run_reference(CANCEL, ANSWERS, executor)
    assert run.outcome == "completed"
    assert run.calls == [(c.name, c.arguments) for c in AL_003.reference_calls]
    assert canonical_hash(executor.db) == canonical_hash(AL_003.expected_scenario_db)
    assert render(CANCEL.steps[-1].text, run.scope) == "Done. Booking B9KM3R is cancelled."


def test_a_false_when_skips_the_step_and_a_no_declines_before_any_write() -> None:
    executor = ToolExecutor(REGISTRY, AL_003.scenario_db)
    run = run_reference(CANCEL, {**ANSWERS, "wants_refund": False}, executor)
    assert [name for name, _ in run.calls] == ["get_reservation", "get_flight_status", "cancel_reservation"]
    declined = run_reference(CANCEL, ANSWERS, ToolExecutor(REGISTRY, AL_003.scenario_db), confirm=False)
    assert declined.outcome == "declined"
    assert [name for name, _ in declined.calls] == ["get_reservation", "get_flight_status"]


def test_a_failed_requirement_refuses_at_the_policy_boundary() -> None:
    db = AL_003.scenario_db
    db = {**db, "reservations": {k: {**v, "fare_type": "non_refundable"} for k, v in db["reservations"].items()}}
    executor = ToolExecutor(REGISTRY, db)
    run = run_reference(CANCEL, ANSWERS, executor)
    assert run.outcome == "refused" and [name for name, _ in run.calls] == ["get_reservation"]
    assert executor.db["reservations"] == db["reservations"]  # nothing written


def test_bad_workflows_are_named() -> None:
    with pytest.raises(WorkflowError, match="unknown tool 'teleport'"):
        Workflow("w", "", ("x",), (Ask(CODE), Call("teleport", {"to": "$confirmation_number"}))).check(REGISTRY)
    with pytest.raises(WorkflowError, match=r"reference \$booking is neither"):
        Workflow("w", "", ("x",), (Say("Code {booking.code}"),)).check(REGISTRY)
    with pytest.raises(WorkflowError, match="must name the label"):
        Slot("employee_id", "code", "Who are you?")
    with pytest.raises(WorkflowError, match="no answer for slot 'last_name'"):
        run_reference(CANCEL, {"confirmation_number": "B9KM3R"}, ToolExecutor(REGISTRY, AL_003.scenario_db))
    with pytest.raises(WorkflowError, match=r"get_reservation.*failed"):
        run_reference(CANCEL, {**ANSWERS, "last_name": "Nobody"}, ToolExecutor(REGISTRY, AL_003.scenario_db))


TODAY = date(2026, 6, 18)


@pytest.mark.parametrize(
    ("slot", "heard", "value"),
    [
        (
            Slot("npi", "digits", "Your NPI?", label="NPI", length=10),
            "one two three four five 6 7 8 nine oh",
            "1234567890",
        ),
        (Slot("npi", "digits", "Your NPI?", label="NPI", length=10), "one two three", None),
        (Slot("employee_id", "code", "Your employee ID?", label="employee ID", length=7), "E M P 4 4 7 2", "EMP4472"),
        (Slot("start_date", "date", "The start date?", label="start date"), "June 22nd, please", "2026-06-22"),
        (Slot("go", "yes_no", "Shall I go ahead?", label="go"), "Yes, please.", True),
        (Slot("go", "yes_no", "Shall I go ahead?", label="go"), "No, don't.", False),
        (Slot("email", "email", "Your email?"), "john dot smith at company dot com", "john.smith@company.com"),
        (Slot("unit", "choice", "Which unit?", choices=("icu", "emergency")), "the I C U", "icu"),
        (Slot("unit", "choice", "Which unit?", choices=("icu", "emergency")), "the cafeteria", None),
        (Slot("hours", "number", "How many hours?", label="hours"), "about 7.5 hours", 7.5),
    ],
)
def test_slot_parsing_is_shared_by_agent_and_generator(slot: Slot, heard: str, value: object) -> None:
    assert parse_slot(slot, heard, TODAY) == value


def test_once_calls_are_not_repeated_by_a_later_task_unless_the_session_was_rebuilt() -> None:
    """Multi-intent calls verify the caller once (App. L.6); a workflow that re-authenticates afresh (a different
    identity or a new level) makes its later ``once`` calls afresh too."""
    lookup_step = Call(
        "get_reservation",
        {"confirmation_number": "$confirmation_number", "last_name": "$last_name"},
        name="booking",
        once=True,
    )
    status = Call("get_flight_status", {"flight_number": "SK604", "flight_date": "2026-06-25"}, once=True)
    first = Workflow("first", "", ("a",), (Ask(CODE), Ask(NAME), lookup_step, status))
    second = Workflow("second", "", ("b",), (Ask(CODE), Ask(NAME), lookup_step, status))
    executor, memo = ToolExecutor(REGISTRY, AL_003.scenario_db), {}
    assert [n for n, _ in run_reference(first, ANSWERS, executor, memo=memo).calls] == [
        "get_reservation",
        "get_flight_status",
    ]
    again = run_reference(second, ANSWERS, executor, memo=memo)
    assert again.calls == [] and again.scope["booking"]["reservation"]["confirmation_number"] == "B9KM3R"
    other_name = run_reference(second, {**ANSWERS, "last_name": "DELGADO"}, executor, memo=memo)
    assert [n for n, _ in other_name.calls] == ["get_reservation", "get_flight_status"]  # fresh chain
    assert [n for n, _ in run_reference(second, ANSWERS, executor).calls] == ["get_reservation", "get_flight_status"]


def test_error_answers_derived_arguments_conditions_and_value_forms():
    """``errors_ok``: an error that answers the call (kept in the scope, ``require`` decides); ``Derived``: an
    argument computed from values; ``when="$ref=value"`` compares, a reference to a call that did not run is false;
    ``Slot.normalize`` puts the parsed value in the tool's form."""
    from typing import Any

    from evalkit.domains.base import ToolArgs, ToolError, ToolRegistry
    from evalkit.domains.workflow import Derived

    class Args(ToolArgs):
        code: str

    registry = ToolRegistry()

    @registry.tool(Args, writes=False)
    def check(db: dict[str, Any], args: Args) -> dict[str, Any]:
        """Eligible unless the code is blocked."""
        if args.code in db["blocked"]:
            raise ToolError("too_new", f"{args.code} is too new")
        return {"eligible": True, "tier": "gold" if args.code.endswith("7") else "basic"}

    @registry.tool(Args, writes=True)
    def order(db: dict[str, Any], args: Args) -> dict[str, Any]:
        """Order the item."""
        db.setdefault("orders", []).append(args.code)
        return {"ordered": args.code}

    slot = Slot("item", "code", "Which item code?", label="item code", length=4, normalize=lambda v: f"IT-{v}")
    flow = Workflow(
        "buy",
        "Buy an item when eligible.",
        ("buy",),
        (
            Ask(slot),
            Call("check", {"code": "$item"}, name="ok", errors_ok=("too_new",), require={"status": "success"}),
            Call("order", {"code": Derived(str.lower, "$item")}, when="$ok.tier=gold"),
            Call("order", {"code": "$item"}, when="!$ok.tier=gold"),
            Call("check", {"code": "$item"}, name="not_run", when="$ok.tier=platinum"),
            Call("order", {"code": "never"}, when="$not_run.eligible"),
        ),
    )
    flow.check(registry)
    assert parse_slot(slot, "It's 4 4 0 7.", date(2031, 1, 1)) == "IT-4407"
    gold = ToolExecutor(registry, {"blocked": []})
    assert run_reference(flow, {"item": "IT-4407"}, gold).outcome == "completed"
    assert gold.db["orders"] == ["it-4407"]
    basic = ToolExecutor(registry, {"blocked": []})
    run = run_reference(flow, {"item": "IT-4401"}, basic)
    assert basic.db["orders"] == ["IT-4401"] and run.errors == [None, None]
    blocked = ToolExecutor(registry, {"blocked": ["IT-4401"]})
    run = run_reference(flow, {"item": "IT-4401"}, blocked)
    assert (run.outcome, run.errors, "orders" in blocked.db) == ("refused", ["too_new"], False)
    with pytest.raises(WorkflowError):  # an error the call does not accept still breaks the reference path
        run_reference(
            Workflow("x", "x", ("x",), (Ask(slot), Call("check", {"code": "$item"}))),
            {"item": "IT-4401"},
            ToolExecutor(registry, {"blocked": ["IT-4401"]}),
        )


# ---------------------------------------------------------------- written forms, derived arguments, refusals by error

TOY = ToolRegistry()


class _ShiftArgs(ToolArgs):
    shift_id: str
    notes: list[str] = Field(default_factory=list)


@TOY.tool(_ShiftArgs, writes=True)
def take_shift(db: dict, args: _ShiftArgs) -> dict:
    """Take a shift; a locked one is the policy's refusal."""
    shift = db["shifts"].get(args.shift_id)
    if shift is None:
        raise ToolError("shift_not_found", f"no shift {args.shift_id}")
    if shift.get("locked"):
        raise ToolError("swap_locked", "that shift is locked")
    db["taken"].append([args.shift_id, *args.notes])
    return {"taken": args.shift_id}


SHIFT_DAY = Slot("shift_date", "date", "What is the shift date?", label="shift date")
SHIFT_START = Slot("shift_start", "time", "And the shift start time?", label="shift start")
NOTES = Slot("notes", "text", "Any notes for the shift?", label="notes")
TAKE = Workflow(
    name="take_shift",
    description="Take a shift named by its date and start time.",
    intents=("take a shift",),
    steps=(
        Ask(SHIFT_DAY),
        Ask(SHIFT_START),
        Ask(NOTES),
        Call(
            "take_shift",
            {
                "shift_id": Derived(("shift_date", "shift_start"), lambda d, t: f"S-{d.replace('-', '')}-{t[:2]}"),
                "notes": Derived(("notes",), lambda text: [n.strip() for n in text.split(",")]),
            },
            name="taken",
            refuse_on=("swap_locked",),
            refusal="Sorry: {taken.message}",
        ),
        Say("Done.", when="$notes=none"),
    ),
)
SHIFTS_DB = {"shifts": {"S-20300102-07": {}, "S-20300103-07": {"locked": True}}, "taken": []}


def test_derived_arguments_and_an_error_that_is_the_policys_refusal() -> None:
    TAKE.check(TOY)  # Derived references are checked like templates
    done = run_reference(
        TAKE,
        {"shift_date": "2030-01-02", "shift_start": "07:00", "notes": "early, quiet"},
        ex := ToolExecutor(TOY, SHIFTS_DB),
    )
    assert done.outcome == "completed" and ex.db["taken"] == [["S-20300102-07", "early", "quiet"]]
    locked = run_reference(
        TAKE, {"shift_date": "2030-01-03", "shift_start": "07:00", "notes": "x"}, ToolExecutor(TOY, SHIFTS_DB)
    )
    assert locked.outcome == "refused" and locked.scope["taken"]["error_type"] == "swap_locked"
    with pytest.raises(WorkflowError, match="shift_not_found"):  # any other error is a broken reference path
        run_reference(
            TAKE, {"shift_date": "2030-01-04", "shift_start": "07:00", "notes": "x"}, ToolExecutor(TOY, SHIFTS_DB)
        )


def test_each_makes_one_call_per_item_and_when_compares_a_value() -> None:
    each = Workflow(
        name="take_shifts",
        description="Take every shift named.",
        intents=("take shifts",),
        steps=(
            Ask(NOTES),
            Call(
                "take_shift",
                {},
                each=Derived(
                    ("notes",), lambda text: [{"shift_id": s.strip()} for s in text.split(",") if s.strip() != "none"]
                ),
            ),
            Call("take_shift", {"shift_id": "S-20300102-07"}, when="$notes=none"),
        ),
    )
    run = run_reference(each, {"notes": "S-20300102-07, S-20300102-07"}, ex := ToolExecutor(TOY, SHIFTS_DB))
    assert [c[1]["shift_id"] for c in run.calls] == ["S-20300102-07", "S-20300102-07"] and len(ex.db["taken"]) == 2
    run = run_reference(each, {"notes": "none"}, ToolExecutor(TOY, SHIFTS_DB))
    assert len(run.calls) == 1  # an empty list of items makes no call; the when-clause matched "none"


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("It's K A F N one three R.", "KAFN-13R"),  # spelled: the dashes go back where the format has them
        ("KAFN-13R", "KAFN-13R"),  # written out
        ("I have it somewhere, it's T E R 1 2 H", "TER-12H"),  # a word is not a code
        ("no idea", None),
    ],
)
def test_a_code_slot_with_a_written_form(heard: str, value: str | None) -> None:
    slot = Slot(
        "facility_code", "code", "What is your facility code?", label="facility code", pattern=r"[A-Z]{2,4}-\d{2}[A-Z]"
    )
    assert parse_slot(slot, heard, date(2030, 1, 1)) == value
    assert fit_pattern("PRV-ECHO-007", r"PRV-[A-Z]{2,6}-\d{3}") == "PRV-ECHO-007"  # 'ECHO' is not read as 'E'


def test_iso_dates_and_figures_read_digit_by_digit() -> None:
    day = Slot("day", "date", "Which day?")
    amount = Slot("amount", "number", "What is the amount?")
    assert parse_slot(day, "2030-06-29.", date(2030, 1, 1)) == "2030-06-29"
    assert parse_slot(amount, "It's 5 0 0 0 0 0 0.", date(2030, 1, 1)) == 5_000_000.0
