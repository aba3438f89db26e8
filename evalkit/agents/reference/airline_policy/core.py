"""The call state of the airline policy and the helpers every stage uses (ask, re-ask, wrap up, transfer, the
booking in question); the stage mixins build on it."""

from __future__ import annotations

from datetime import date
from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.airline_policy.rules import (
    MAX_REASKS,
    TRANSFER_REASONS,
    booking_view,
)
from evalkit.agents.reference.policy import PolicyReply, ok
from evalkit.dialogue_acts import DialogueAct


class PolicyCore:
    """State of one call and the shared helpers; the stage mixins add the ``_on_<pending>`` handlers."""

    def __init__(self, tools: ToolBox, today: date, clock: str = "00:00") -> None:
        self.tools = tools
        self.today = today
        self.clock = clock  # "HH:MM" now: same-day cut-offs and standby need it
        self.pending = "intent"
        self.intent: str | None = None
        self.code: str | None = None
        self.name: str | None = None
        self.spelling: str = "code"  # what the current read-back is about: "code" or "name"
        self.repairs = 0
        self.reservation: dict[str, Any] | None = None
        self.auth_failures = 0
        self.reasks = 0
        self.options: list[dict[str, Any]] = []
        self.standby_options: list[dict[str, Any]] = []  # full flights offered for free standby
        self.rejections = 0
        self.choice: dict[str, Any] | None = None
        self.also: list[dict[str, Any]] = []  # further full flights the caller chose to stand by for
        self.seat = "no_preference"
        self.seat_choices: list[str] = []  # the caller's seat types in order of preference
        self.travel_date: date | None = None
        self.opening = ""
        self.transfer_reason = ""
        self.refund_type = "standard"
        self.disruption: dict[str, Any] = {}
        self.searched: list[date] = []
        self.focus: dict[str, Any] | None = None  # the booking the caller named on a multi-journey reservation
        self.meal_issued = False
        self.changed: set[str] = set()  # journeys rebooked in this call (both legs of a round trip)
        self.route: dict[str, str] = {}  # "origin"/"destination" -> the airport the caller moved that end to
        self.moving: str | None = None  # the end of the trip whose new airport is being asked for

    # -- helpers -----------------------------------------------------------------------------------------
    def _ask(self, pending: str, text: str, *acts: DialogueAct) -> PolicyReply:
        """``acts``: what the turn does, for a caller that wants exactness (ask(field), confirm(field, value))."""
        self.pending = pending
        return PolicyReply(text, acts=list(acts))

    def _reask(self, text: str, fallback: str) -> PolicyReply:
        self.reasks += 1
        if self.reasks > MAX_REASKS:
            return self._transfer("unresolved_after_two_attempts")
        return PolicyReply(text if self.reasks == 1 else fallback)

    def _anything_else(self, prefix: str) -> PolicyReply:
        return self._ask("anything_else", f"{prefix} Is there anything else I can help you with?")

    def _transfer(self, reason: str) -> PolicyReply:
        self._call_transfer(reason)
        return PolicyReply("I'm sorry I couldn't sort this out. I'm transferring you to a live agent now.", True)

    def _call_transfer(self, reason: str) -> None:
        """transfer_to_agent for an authenticated caller; before that the tool (which needs the reservation) would
        only fail, so the handover is spoken without it."""
        if self.reservation is None:
            return
        summary = f"Caller's request: {self.opening}".strip() if self.opening else "Caller needs a live agent."
        self.tools.call(
            "transfer_to_agent",
            confirmation_number=self.reservation["confirmation_number"],
            transfer_reason=TRANSFER_REASONS.get(reason, reason),
            issue_summary=summary,
        )

    def _look_up_disruption(self, booking: dict[str, Any]) -> dict[str, Any]:
        """The disruption desk's record of a booked flight, flattened (empty when there is none)."""
        info = self.tools.call("get_disruption_info", flight_number=booking["flight_number"], date=booking["date"])
        if not ok(info):
            return {}
        record = info["disruption"]
        entitled = record.get("passenger_entitled_to") or {}
        return {
            "disruption_type": record.get("disruption_type"),
            "delay_minutes": record.get("delay_minutes") or 0,
            "cause": record.get("cause"),
            "irrops": bool(record.get("is_irrops")),
            "refund_eligible": bool(entitled.get("refund_option")),
        }

    def _issue_meal(self, reason: str) -> int:
        """Issue a meal voucher for ``reason``; its amount (the tool sets it by the reason)."""
        assert self.code is not None
        result = self.tools.call(
            "issue_meal_voucher", confirmation_number=self.code, passenger_id=self.passenger_id, voucher_reason=reason
        )
        self.meal_issued = self.meal_issued or ok(result)
        return int(result["amount"]) if ok(result) else 0

    @property
    def bookings(self) -> list[dict[str, Any]]:
        """The reservation's live bookings (not cancelled), each as ``booking_view``."""
        assert self.reservation is not None
        return [booking_view(b) for b in self.reservation["bookings"] if b.get("status") != "cancelled"]

    @property
    def cancelling(self) -> list[dict[str, Any]]:
        """The bookings a cancellation covers: the journey the caller named, else every live one."""
        return [self.focus] if self.focus is not None else self.bookings

    @property
    def booking(self) -> dict[str, Any]:
        """The booking the call is about: a missed leg if there is one, else the first live one."""
        if self.focus is not None:
            return self.focus
        live = self.bookings or [booking_view(self.reservation["bookings"][0])]  # type: ignore[index]
        return next((b for b in live if b["status"] == "missed"), live[0])

    @property
    def passenger_id(self) -> str:
        assert self.reservation is not None
        return self.reservation["passengers"][0]["passenger_id"]
