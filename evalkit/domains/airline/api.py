"""The airline tools' argument schemas as EVA-Bench exports them to agents (``configs/agents/airline_agent.yaml``):
argument names, types, enums and identifier formats, and the error type an invalid value of each field gets."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from evalkit.domains.airline.policy import MAX_BAGS
from evalkit.domains.base import ToolArgs

FARE_CLASSES = ("basic_economy", "main_cabin", "premium_economy", "business", "first")


FareClass = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first"]


FareClassOrAny = Literal["basic_economy", "main_cabin", "premium_economy", "business", "first", "any"]


RebookingType = Literal[
    "voluntary",
    "same_day",
    "irrops_cancellation",
    "irrops_delay",
    "irrops_schedule_change",
    "missed_flight_passenger_fault",
    "missed_connection_airline_fault",
]


SeatPreference = Literal["window", "aisle", "middle", "no_preference"]


MealType = Literal[
    "vegetarian",
    "vegan",
    "kosher",
    "halal",
    "gluten_free",
    "diabetic",
    "low_sodium",
    "child",
    "hindu",
    "standard",
    "none",
]


CreditReason = Literal[
    "cancellation_non_refundable",
    "fare_difference_negative",
    "service_recovery",
    "goodwill",
    "downgrade_compensation",
]


VoucherReason = Literal["delay_over_2_hours", "delay_over_4_hours", "cancellation_wait_same_day", "irrops_overnight"]


RefundType = Literal["full_fare", "partial_fare", "taxes_only", "ancillary_fees"]


CancellationReason = Literal[
    "voluntary", "irrops_refund", "24_hour_rule", "schedule_unacceptable", "medical", "bereavement"
]


# Identifier formats as the agent schema states them.
ConfirmationNumber = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{6}$", description="6 alphanumeric characters")]


FlightNumber = Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}\d{1,4}$", description="e.g. SK621")]


IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]


JourneyId = Annotated[str, Field(pattern=r"^FL_(?:[A-Za-z]{2,3}\d{1,4}_)+\d{8}$", description="FL_<flight>_<YYYYMMDD>")]


PassengerId = Annotated[str, Field(pattern=r"^PAX\d+$", description="e.g. PAX001")]


AirportCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$", description="3-letter airport code")]


# EVA-Bench's error type for an invalid value of each field.
FIELD_ERRORS = {
    "rebooking_type": "invalid_rebooking_type",
    "new_fare_class": "invalid_fare_class",
    "fare_class": "invalid_fare_class",
    "meal_type": "invalid_meal_type",
    "credit_reason": "invalid_credit_reason",
    "voucher_reason": "invalid_voucher_reason",
    "refund_type": "invalid_refund_type",
    "seat_preference": "invalid_seat_preference",
    "cancellation_reason": "invalid_cancellation_reason",
    "confirmation_number": "invalid_confirmation_number_format",
    "flight_number": "invalid_flight_number_format",
    "flight_date": "invalid_date_format",
    "date": "invalid_date_format",
    "journey_id": "invalid_journey_id_format",
    "new_journey_id": "invalid_journey_id_format",
    "passenger_id": "invalid_passenger_id_format",
    "passenger_ids": "invalid_passenger_id_format",
    "origin": "invalid_airport_code_format",
    "destination": "invalid_airport_code_format",
    "num_bags": "invalid_bag_count",
}


class AirlineArgs(ToolArgs):
    """Arguments of an airline tool."""


class GetReservationArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    last_name: str


class FlightStatusArgs(AirlineArgs):
    flight_number: FlightNumber
    flight_date: IsoDate


class DisruptionArgs(AirlineArgs):
    flight_number: FlightNumber
    date: IsoDate


class SearchArgs(AirlineArgs):
    origin: AirportCode
    destination: AirportCode
    date: IsoDate
    passenger_count: int = Field(ge=1)
    fare_class: FareClassOrAny  # "any": the cheapest class with seats


class RebookArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    new_journey_id: JourneyId
    rebooking_type: RebookingType
    waive_change_fee: bool
    new_fare_class: FareClass | None = None
    flight_number: FlightNumber | None = None


class StandbyArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    passenger_ids: list[PassengerId]


class AssignSeatArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    journey_id: JourneyId
    seat_preference: SeatPreference
    flight_number: FlightNumber | None = None


class BaggageArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    num_bags: int = Field(ge=0, le=MAX_BAGS)
    flight_number: FlightNumber | None = None


class MealRequestArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    journey_id: JourneyId
    meal_type: MealType
    flight_number: FlightNumber | None = None


class TravelCreditArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    amount: float = Field(gt=0)
    credit_reason: CreditReason


class HotelVoucherArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    num_nights: int = Field(ge=1)


class MealVoucherArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    passenger_id: PassengerId
    voucher_reason: VoucherReason


class CancelArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    journey_id: JourneyId
    cancellation_reason: CancellationReason


class RefundArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    refund_amount: float = Field(gt=0)
    refund_type: RefundType


class TransferArgs(AirlineArgs):
    confirmation_number: ConfirmationNumber
    transfer_reason: str  # free text in EVA-Bench's schema: passenger_requested, policy_exception_needed, ...
    issue_summary: str
