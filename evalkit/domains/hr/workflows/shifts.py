"""Shift and pay workflows: shift swap, payroll correction and on-call registration."""

from __future__ import annotations

from evalkit.domains.hr.workflows.steps import eligible, employee_auth
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

SHIFT_SWAP = Workflow(
    name="shift_swap",
    description="An employee swaps a shift with a colleague who holds the unit's certifications.",
    intents=("swap a shift", "shift swap", "trade a shift", "swap my shift", "swap one of my shifts", "swap"),
    steps=(
        *employee_auth(),
        Ask(Slot("shift_id", "code", "What is the shift ID?", label="shift ID", length=8, read_back=True)),
        Call("get_shift_record", {"employee_id": "$employee_id", "shift_id": "$shift_id"}, name="shift"),
        Ask(
            Slot(
                "colleague_employee_id",
                "code",
                "What is your colleague's employee ID?",
                label="colleague's employee ID",
                length=9,
                read_back=True,
            )
        ),
        eligible(
            "check_swap_eligibility",
            {"employee_id": "$employee_id", "shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            "swap_check",
        ),
        Call(
            "verify_colleague_certifications",
            {"shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            require={"all_certified": True},
            refusal="Your colleague doesn't hold every certification that unit requires, so I can't swap it.",
        ),
        Confirm("I'll give shift {shift_id} to employee {colleague_employee_id}. Shall I confirm the swap?"),
        Call(
            "confirm_shift_swap",
            {"employee_id": "$employee_id", "shift_id": "$shift_id", "colleague_employee_id": "$colleague_employee_id"},
            name="swap",
        ),
        Call(
            "notify_department_manager",
            {"employee_id": "$employee_id", "case_id": "$swap.swap_id", "notification_type": "shift_swap"},
        ),
        Say("The swap is confirmed, reference {swap.swap_id}, and your manager has been notified."),
    ),
)


PAYROLL = Workflow(
    name="payroll_correction",
    description="An employee corrects hours on a timesheet of an open pay period.",
    intents=("payroll", "paycheck", "timesheet", "missing hours", "payroll correction"),
    steps=(
        *employee_auth(),
        Ask(Slot("timesheet_id", "code", "What is the timesheet ID?", label="timesheet ID", length=8, read_back=True)),
        Call(
            "get_timesheet_record",
            {"employee_id": "$employee_id", "timesheet_id": "$timesheet_id"},
            name="timesheet",
            require={"timesheet.owned_by_caller": True},
            refusal="That timesheet isn't yours, and I can only correct your own timesheets.",
        ),
        eligible(
            "check_correction_eligibility",
            {"employee_id": "$employee_id", "timesheet_id": "$timesheet_id"},
            "correction_check",
        ),
        Ask(Slot("shift_date", "date", "Which shift date needs correcting?", label="shift date")),
        Ask(
            Slot(
                "correction_type",
                "choice",
                "Is it overtime, on call, or a missed differential correction type?",
                label="correction type",
                choices=("overtime", "on_call", "missed_differential"),
            )
        ),
        Ask(
            Slot(
                "corrected_hours", "number", "What should the corrected total hours be?", label="corrected total hours"
            )
        ),
        Confirm("I'll correct {correction_type} on {shift_date} to {corrected_hours} hours. Shall I submit it?"),
        Call(
            "submit_payroll_correction",
            {
                "employee_id": "$employee_id",
                "timesheet_id": "$timesheet_id",
                "shift_date": "$shift_date",
                "correction_type": "$correction_type",
                "corrected_hours": "$corrected_hours",
            },
            name="correction",
        ),
        Call(
            "notify_department_manager",
            {
                "employee_id": "$employee_id",
                "case_id": "$correction.correction_id",
                "notification_type": "payroll_correction",
            },
        ),
        Say("Correction {correction.correction_id} is submitted and your manager has been notified."),
    ),
)


ONCALL = Workflow(
    name="oncall_registration",
    description="An employee registers on-call availability for a window with optional blackout dates.",
    intents=("on-call", "on call", "oncall availability"),
    steps=(
        *employee_auth(),
        Call("get_oncall_schedule", {"employee_id": "$employee_id"}, name="schedule"),
        eligible("check_oncall_eligibility", {"employee_id": "$employee_id"}, "oncall_check"),
        Ask(
            Slot(
                "oncall_start_date",
                "date",
                "What is the first date of your on-call window?",
                label="first date of your on-call window",
            )
        ),
        Ask(
            Slot(
                "oncall_end_date",
                "date",
                "And the last date of the on-call window?",
                label="last date of the on-call window",
            )
        ),
        Ask(
            Slot(
                "oncall_role",
                "choice",
                "Primary or backup on-call role?",
                label="on-call role",
                choices=("primary", "backup"),
            )
        ),
        Ask(
            Slot(
                "has_blackout",
                "yes_no",
                "Are there any blackout dates in that window when you can't be reached?",
                label="any blackout dates",
            )
        ),
        Ask(
            Slot("blackout_date", "date", "Which blackout date is it?", label="which blackout date"),
            when="$has_blackout",
        ),
        Confirm("I'll register you as {oncall_role} from {oncall_start_date} to {oncall_end_date}. Shall I?"),
        Call(
            "register_oncall_availability",
            {
                "employee_id": "$employee_id",
                "start_date": "$oncall_start_date",
                "end_date": "$oncall_end_date",
                "oncall_role": "$oncall_role",
                "blackout_dates": "$blackout_date",
            },
            name="registration",
            when="$has_blackout",
        ),
        Call(
            "register_oncall_availability",
            {
                "employee_id": "$employee_id",
                "start_date": "$oncall_start_date",
                "end_date": "$oncall_end_date",
                "oncall_role": "$oncall_role",
                "blackout_dates": [],
            },
            when="!$has_blackout",
        ),
        Say("You're registered for on-call."),
    ),
)
