"""The call state of the airline policy and the helpers every stage uses (ask, re-ask, wrap up, transfer, the
booking in question); the stage mixins build on it."""

from __future__ import annotations

from datetime import date
from typing import Any

from evalkit.agents.airline_policy.rules import (
    MAX_REASKS,
)
from evalkit.agents.base import ToolBox
from evalkit.agents.policy import PolicyReply


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
        self.rejections = 0
        self.choice: dict[str, Any] | None = None
        self.seat = "no_preference"
        self.travel_date: date | None = None
        self.opening = ""
        self.transfer_reason = ""
        self.refund_type = "standard"
        self.disruption: dict[str, Any] = {}
        self.searched: list[date] = []

    # -- helpers -----------------------------------------------------------------------------------------
    def _ask(self, pending: str, text: str) -> PolicyReply:
        self.pending = pending
        return PolicyReply(text)

    def _reask(self, text: str, fallback: str) -> PolicyReply:
        self.reasks += 1
        if self.reasks > MAX_REASKS:
            return self._transfer("unresolved_after_two_attempts")
        return PolicyReply(text if self.reasks == 1 else fallback)

    def _anything_else(self, prefix: str) -> PolicyReply:
        return self._ask("anything_else", f"{prefix} Is there anything else I can help you with?")

    def _transfer(self, reason: str) -> PolicyReply:
        self.tools.call("transfer_to_agent", reason=reason)
        return PolicyReply("I'm sorry I couldn't sort this out. I'm transferring you to a live agent now.", True)

    @property
    def booking(self) -> dict[str, Any]:
        """The booking the call is about: a missed leg if there is one, else the first."""
        assert self.reservation is not None
        bookings = self.reservation["bookings"]
        return next((b for b in bookings if b["status"] == "missed"), bookings[0])

    @property
    def passenger_id(self) -> str:
        assert self.reservation is not None
        return self.reservation["passengers"][0]["passenger_id"]
