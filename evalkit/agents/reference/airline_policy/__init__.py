"""SkyWay Airlines dialogue policy (EVA-Bench App. L.4): authenticate, find options, explain fees, confirm, act.

It covers the seven workflow categories of Table 42: voluntary change, IRROPS rebooking, missed connection,
same-day change and standby, cancellation and refund, escalation (fee waivers that need a live agent, no acceptable
option, a caller who insists on a supervisor) and compensation claims. Airline keeps this hand-written policy rather
than the declarative workflow engine of HR and ITSM because its tasks are negotiations over tool results (offered
flights, fees, delays, entitlements), not slot filling.

Wording keeps to the paper's voice rules: short sentences, codes spelled out, one or two questions per turn.

The policy is one class, :class:`AirlinePolicy`, assembled from one mixin per stage of the call over the
shared call state (``core``); the numbers and word lists live in ``rules``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.airline_policy.disruptions import DisruptionMixin
from evalkit.agents.reference.airline_policy.identify import IdentifyMixin
from evalkit.agents.reference.airline_policy.rebooking import RebookingMixin
from evalkit.agents.reference.airline_policy.refunds import RefundMixin
from evalkit.agents.reference.airline_policy.rules import (
    CODE_LENGTH,
    INTENT_KEYWORDS,
    MAX_AUTH_ATTEMPTS,
    MAX_REASKS,
    MAX_REPAIRS,
    REJECT_CUES,
    SAME_DAY_CUTOFF_MINUTES,
    SUPERVISOR_CUES,
    WAIVER_KEYWORDS,
    classify_intent,
    describe_option,
    later,
    waiver_reason,
)
from evalkit.agents.reference.policy import POLICIES, PolicyReply
from evalkit.spoken import (
    parse_code,
    parse_correction,
    parse_date,
    parse_seat_preference,
    parse_yes_no,
)

__all__ = [
    "CODE_LENGTH",
    "INTENT_KEYWORDS",
    "MAX_AUTH_ATTEMPTS",
    "MAX_REASKS",
    "MAX_REPAIRS",
    "REJECT_CUES",
    "SAME_DAY_CUTOFF_MINUTES",
    "SUPERVISOR_CUES",
    "WAIVER_KEYWORDS",
    "AirlinePolicy",
    "airline_policy",
    "classify_intent",
    "describe_option",
    "later",
    "waiver_reason",
]


class AirlinePolicy(IdentifyMixin, RebookingMixin, DisruptionMixin, RefundMixin):
    """SkyWay's hand-written dialogue policy: ``greet``, then ``step`` on every caller turn."""

    # -- public ------------------------------------------------------------------------------------------
    def greet(self) -> PolicyReply:
        return PolicyReply("Hello! Thank you for calling SkyWay Airlines. How can I help you today?")

    def expected_form(self) -> Callable[[str], bool] | None:
        """Which ASR hypothesis can be the answer to what was asked (agents.reference.hearing): a six-character code,
        a one-character correction of a read-back or the value spelled again (not as read back: the caller is
        correcting it), a date, one of the offered flights, a seat type, a yes or a no;
        anything else (a name, a request): the recogniser's best."""
        forms: dict[str, Callable[[str], bool]] = {
            "code": lambda text: len(parse_code(text) or "") == CODE_LENGTH,
            "check": lambda text: parse_correction(text) is not None or self._restated(text) is not None,
            "date": lambda text: parse_date(text, self.today) is not None,
            "choice": lambda text: self._match_option(text) is not None,
            "seat": lambda text: parse_seat_preference(text) is not None,
            "confirm": lambda text: parse_yes_no(text) is not None,
        }
        return forms.get(self.pending)

    def step(self, heard: str) -> PolicyReply:
        handler = getattr(self, f"_on_{self.pending}")
        return handler(heard)

    def _on_anything_else(self, heard: str) -> PolicyReply:
        low = heard.lower()
        if any(c in low for c in SUPERVISOR_CUES):  # insisting on somebody else: offer, then wait for a yes
            self.transfer_reason = "caller_request"
            return self._offer_transfer("I understand.")
        if self.intent == "compensation_claim" and ("voucher" in low or "deserve" in low or "fair" in low):
            return self._anything_else(
                "I understand your frustration. Our policy only allows vouchers for the delays it lists, "
                "so I'm not able to issue one today."
            )
        if parse_yes_no(heard) is False or "bye" in low or "that's all" in low or "that is all" in low:
            return PolicyReply("Thank you for calling SkyWay Airlines. Goodbye!", end_call=True)
        return self._ask("intent", "Sure. What else can I help you with?")


@POLICIES.register("airline")
def airline_policy(tools: ToolBox, current_date_time: str) -> AirlinePolicy:
    """Airline's tasks are negotiations over tool results, not slot filling, so it has no workflows to run."""
    return AirlinePolicy(tools, date.fromisoformat(current_date_time[:10]), current_date_time[11:16])
