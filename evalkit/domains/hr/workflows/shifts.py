"""Shift and pay workflows: shift swap, payroll correction and on-call registration. A shift is named by its date
and start time (the caller's words); its ID (SHF-YYYYMMDD-HHMM) is built from them."""

from __future__ import annotations

from evalkit.domains.hr.workflows.steps import (
    EMPLOYEE_ID_FORM,
    SHIFT_ID,
    UNIT_FORM,
    dates_in,
    dates_or_none,
    eligible,
    employee_auth,
    notify,
    shift_id,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Say, Slot, Workflow

SHIFT_SWAP = Workflow(
    name="shift_swap",
    description="An employee swaps a shift with a colleague who holds the unit's certifications.",
    intents=("swap a shift", "shift swap", "trade a shift", "swap my shift", "swap one of my shifts", "swap"),
    steps=(
        *employee_auth(),
        Ask(Slot("shift_date", "date", "What is the date of the shift you want to swap?", label="date of the shift")),
        Ask(
            Slot(
                "shift_start_time",
                "time",
                "And the shift time: what is the shift start time?",
                label="shift start time",
            )
        ),
        Call("get_shift_record", {"employee_id": "$employee_id", "shift_id": SHIFT_ID}, name="shift"),
        eligible(
            "check_swap_eligibility",
            {"employee_id": "$employee_id", "shift_id": SHIFT_ID},
            "swap_check",
            ("already_swapped", "shift_cancelled", "shift_in_past", "swap_locked"),
        ),
        Ask(
            Slot(
                "colleague_employee_id",
                "code",
                "What is your colleague's employee ID?",
                label="colleague's employee ID",
                read_back=True,
                pattern=EMPLOYEE_ID_FORM,
            )
        ),
        eligible(
            "verify_colleague_certifications",
            {"colleague_employee_id": "$colleague_employee_id", "unit_code": "$swap_check.unit_code"},
            "colleague_check",
            ("certification_missing",),
        ),
        Confirm("I'll give your shift to employee {colleague_employee_id}. Shall I confirm the swap?"),
        Call(
            "confirm_shift_swap",
            {
                "employee_id": "$employee_id",
                "shift_id": SHIFT_ID,
                "colleague_employee_id": "$colleague_employee_id",
                "unit_code": "$swap_check.unit_code",
            },
            name="swap",
        ),
        notify("notify_department_manager", "swap", "shift_swap_confirmed"),
        Say("The swap is confirmed, case {swap.case_id}, and your manager has been notified."),
    ),
)

PAYROLL_SHIFT_ID = Derived(("payroll_shift_date", "payroll_shift_start_time"), shift_id)

PAYROLL = Workflow(
    name="payroll_correction",
    description="An employee corrects the hours of one of their shifts while its pay period is open.",
    intents=("payroll", "paycheck", "timesheet", "missing hours", "payroll correction"),
    steps=(
        *employee_auth(),
        Ask(
            Slot(
                "payroll_shift_date",
                "date",
                "What is the date of the shift whose hours need correcting?",
                label="date of the shift",
            )
        ),
        Ask(
            Slot(
                "payroll_shift_start_time",
                "time",
                "And the payroll shift time: what was the shift start time?",
                label="shift start",
            )
        ),
        eligible(
            "get_timesheet_record",
            {"employee_id": "$employee_id", "shift_id": PAYROLL_SHIFT_ID},
            "timesheet",
            ("shift_not_owned",),
        ),
        eligible(
            "check_correction_eligibility",
            {"employee_id": "$employee_id", "shift_id": PAYROLL_SHIFT_ID},
            "correction_check",
            ("correction_already_pending", "pay_period_closed", "shift_not_logged"),
        ),
        Ask(
            Slot(
                "correction_type",
                "choice",
                "Is it on-call hours, overtime hours, or a missed differential correction type?",
                label="correction type",
                choices=("on_call_hours", "overtime_hours", "differential_missed"),
            )
        ),
        Ask(
            Slot(
                "corrected_hours",
                "number",
                "What should the corrected total hours be?",
                label="corrected total hours",
                read_back=True,  # "14" and "40" sound alike to tiny.en: a figure is read back before the change
            )
        ),
        Confirm("I'll correct that shift to {corrected_hours} hours of {correction_type}. Shall I submit it?"),
        Call(
            "submit_payroll_correction",
            {
                "employee_id": "$employee_id",
                "shift_id": PAYROLL_SHIFT_ID,
                "correction_type": "$correction_type",
                "corrected_hours": "$corrected_hours",
            },
            name="correction",
        ),
        notify("notify_department_manager", "correction", "payroll_correction_submitted"),
        Say("Correction {correction.case_id} is submitted and your manager has been notified."),
    ),
)


ONCALL = Workflow(
    name="oncall_registration",
    description="An employee registers on-call availability on a unit for a window with optional blackout dates.",
    intents=("on-call", "on call", "oncall availability"),
    steps=(
        *employee_auth(),
        Ask(Slot("unit_code", "code", "Which unit code is the on-call for?", label="unit code", pattern=UNIT_FORM)),
        Call("get_oncall_schedule", {"employee_id": "$employee_id", "unit_code": "$unit_code"}, name="schedule"),
        eligible(
            "check_oncall_eligibility",
            {"employee_id": "$employee_id", "unit_code": "$unit_code"},
            "oncall_check",
            ("employee_on_leave", "certification_missing"),
        ),
        Ask(
            Slot(
                "availability_start_date",
                "date",
                "What is the first date of your on-call window?",
                label="first date of your on-call window",
            )
        ),
        Ask(
            Slot(
                "availability_end_date",
                "date",
                "And the last date of the on-call window?",
                label="last date of the on-call window",
            )
        ),
        Ask(
            Slot(
                "oncall_tier",
                "choice",
                "Primary or backup on-call tier?",
                label="on-call tier",
                choices=("primary", "backup"),
            )
        ),
        Ask(
            Slot(
                "blackout_dates",
                "text",
                "Any blackout dates in that window when you can't be reached? Tell me the blackout dates, or say none.",
                label="blackout dates",
                normalize=dates_or_none,
            )
        ),
        Confirm(
            "I'll register you as {oncall_tier} from {availability_start_date} to {availability_end_date}. Shall I?"
        ),
        Call(
            "register_oncall_availability",
            {
                "employee_id": "$employee_id",
                "unit_code": "$unit_code",
                "availability_start_date": "$availability_start_date",
                "availability_end_date": "$availability_end_date",
                "oncall_tier": "$oncall_tier",
                "blackout_dates": Derived(("blackout_dates", "availability_start_date"), dates_in),
            },
            name="registration",
        ),
        Say("You're registered for on-call, registration {registration.registration_id}."),
    ),
)
