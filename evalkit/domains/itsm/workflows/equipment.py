"""Hardware request workflows (laptop replacement, monitor bundle) and facilities workflows (desk, parking,
ergonomic equipment, conference room), on EVA-Bench's ITSM tool API.
"""

from __future__ import annotations

from typing import Any

from evalkit.domains.itsm.workflows.steps import (
    EQUIPMENT,
    NEEDS_ASSESSMENT,
    ROOM_EQUIPMENT,
    STANDARD_AUTH,
    building,
    floor,
)
from evalkit.domains.workflow import Ask, Call, Confirm, Derived, Say, Slot, Workflow

# --------------------------------------------------------------------------------------------------- hardware

NOT_ELIGIBLE = ("no_entitlement", "request_already_pending", "device_too_new", "replaced_too_recently")
NO_BUDGET = "Your department has no budget for this right now, so the request goes on hold pending budget approval."
SUCCESS = {"status": "success"}
DELIVERY_BUILDING = building("delivery_building", "delivery")
# One slot for the desk's and the meeting's building: a slot name is one question in the whole call.
BUILDING_NAME = Slot("building_name", "text", "In which building, please?", label="in which building")
DELIVERY_FLOOR = floor("delivery_floor", "delivery")


def _eligibility(prefix: str, request_type: str) -> tuple[Call, Call]:
    """Entitlement, then the department's budget; each refusal ends the workflow with the tool's reason."""
    return (
        Call(
            "check_hardware_entitlement",
            {"employee_id": "$employee_id", "request_type": request_type},
            name=f"{prefix}_ent",
            errors_ok=NOT_ELIGIBLE,
            require=SUCCESS,
            refusal=f"I'm sorry, I can't submit that: {{{prefix}_ent.message}}",
        ),
        Call(
            "verify_cost_center_budget",
            {"employee_id": "$employee_id"},
            errors_ok=("insufficient_budget",),
            require=SUCCESS,
            refusal=NO_BUDGET,
        ),
    )


LAPTOP_REPLACEMENT = Workflow(
    "laptop_replacement",
    "Replace a laptop: entitlement and budget first, then the request and a return authorization for the old one.",
    ("new laptop", "laptop replacement", "replace my laptop", "replacement laptop", "laptop replaced"),
    (
        *STANDARD_AUTH,
        *_eligibility("lt", "laptop_replacement"),
        Call("get_employee_assets", {"employee_id": "$employee_id"}),
        Ask(
            Slot(
                "justification",
                "choice",
                "What's the reason for the replacement: end of life, performance degradation or physical damage?",
                label="reason for the replacement",
                choices=("end_of_life", "performance_degradation", "physical_damage"),
            )
        ),
        Ask(
            Slot(
                "preferred_os",
                "choice",
                "Which operating system: macOS or Windows?",
                label="operating system",
                choices=("macos", "windows"),
            )
        ),
        Ask(
            Slot(
                "laptop_size",
                "choice",
                "Which screen size: 13, 14 or 16 inch?",
                label="screen size",
                choices=("13_inch", "14_inch", "16_inch"),
            )
        ),
        Ask(DELIVERY_BUILDING),
        Ask(DELIVERY_FLOOR),
        Confirm(
            "I'll order a {preferred_os} {laptop_size} laptop to {delivery_building}, floor {delivery_floor}. Go ahead?"
        ),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "request_type": "laptop_replacement",
                "justification": "$justification",
                "current_asset_tag": "$lt_ent.current_asset_tag",
                "laptop_os": "$preferred_os",
                "laptop_size": "$laptop_size",
                "delivery_building": "$delivery_building",
                "delivery_floor": "$delivery_floor",
            },
            name="lt_req",
        ),
        Call(
            "initiate_asset_return",
            {
                "employee_id": "$employee_id",
                "asset_tag": "$lt_ent.current_asset_tag",
                "request_id": "$lt_req.request_id",
            },
            name="lt_return",
        ),
        Say("Request {lt_req.request_id} is in; please return the old laptop by {lt_return.return_deadline}."),
    ),
)

MONITOR_BUNDLE = Workflow(
    "monitor_bundle",
    "A new or replacement monitor: entitlement and budget, then the request (no return).",
    ("monitor",),
    (
        *STANDARD_AUTH,
        *_eligibility("mn", "monitor_bundle"),
        Ask(
            Slot(
                "monitor_justification",
                "choice",
                "Is this a new setup or a replacement monitor?",
                label="new setup",
                choices=("new_setup", "replacement"),
            )
        ),
        Ask(
            Slot(
                "monitor_size",
                "choice",
                "Which monitor size: 24, 27 or 32 inch?",
                label="monitor size",
                choices=("24_inch", "27_inch", "32_inch"),
            )
        ),
        Ask(DELIVERY_BUILDING),
        Ask(DELIVERY_FLOOR),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "request_type": "monitor_bundle",
                "justification": "$monitor_justification",
                "current_asset_tag": "$mn_ent.current_asset_tag",
                "monitor_size": "$monitor_size",
                "delivery_building": "$delivery_building",
                "delivery_floor": "$delivery_floor",
            },
            name="mn_req",
        ),
        Say("Your monitor request is {mn_req.request_id}."),
    ),
)


# --------------------------------------------------------------------------------------------------- facilities

OTHER_FLOOR = Slot(
    "desk_other_floor",
    "yes_no",
    "No desk is free on that floor. Would another floor work for you?",
    label="another floor",
)
DESK_REQUEST = Workflow(
    "desk_request",
    "A desk on a floor of a building (another floor if the caller accepts one), or the waitlist when none is free.",
    ("desk", "office space", "workspace"),
    (
        *STANDARD_AUTH,
        Ask(BUILDING_NAME),
        Ask(floor("floor", "desk")),
        Call("check_desk_availability", {"building_code": "$building_name", "floor_code": "$floor"}, name="desks"),
        Ask(OTHER_FLOOR, when="!$desks.available_desks"),
        Ask(floor("backup_desk_floor", "other desk"), when="$desk_other_floor"),
        Call(
            "check_desk_availability",
            {"building_code": "$building_name", "floor_code": "$backup_desk_floor"},
            name="desks",
            when="$desk_other_floor",
        ),
        Confirm("I can assign desk {desks.available_desks.0.desk_code}. Shall I?", when="$desks.available_desks"),
        Call(
            "submit_desk_assignment",
            {"employee_id": "$employee_id", "desk_code": "$desks.available_desks.0.desk_code"},
            name="desk",
            when="$desks.available_desks",
        ),
        Confirm(
            "No desk is free there right now. Shall I put you on the desk waitlist?", when="!$desks.available_desks"
        ),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "desk", "zone_or_building": "$desks.building_code"},
            name="desk_wait",
            when="!$desks.available_desks",
        ),
        Say("You're number {desk_wait.position} on the desk waitlist.", when="$desk_wait"),
    ),
)

PARKING_REQUEST = Workflow(
    "parking_request",
    "A parking space in a zone, or the waitlist when the zone is full.",
    ("parking",),
    (
        *STANDARD_AUTH,
        Ask(Slot("zone_name", "text", "Which parking zone would you like?", label="parking zone")),
        Call("check_parking_availability", {"zone_code": "$zone_name"}, name="zone"),
        Confirm(
            "Space {zone.available_spaces.0.parking_space_id} is free. Shall I assign it?",
            when="$zone.available_spaces",
        ),
        Call(
            "submit_parking_assignment",
            {"employee_id": "$employee_id", "parking_space_id": "$zone.available_spaces.0.parking_space_id"},
            when="$zone.available_spaces",
        ),
        Confirm("That zone is full. Shall I put you on the parking waitlist?", when="!$zone.available_spaces"),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "parking", "zone_or_building": "$zone.zone_code"},
            name="park_wait",
            when="!$zone.available_spaces",
        ),
        Say("You're number {park_wait.position} on the parking waitlist.", when="$park_wait"),
    ),
)

ERGONOMIC_EQUIPMENT = Workflow(
    "ergonomic_equipment",
    "Ergonomic equipment; converters and chairs need a completed ergonomic assessment on file.",
    ("ergonomic", "standing desk", "chair", "footrest", "monitor arm"),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "equipment_type",
                "choice",
                "Which equipment do you need: a standing desk converter, an ergonomic chair, an ergonomic keyboard, "
                "a monitor arm or a footrest?",
                label="which equipment",
                choices=EQUIPMENT,
            )
        ),
        *(
            Call(
                "check_ergonomic_assessment",
                {"employee_id": "$employee_id"},
                when=f"$equipment_type={item}",
                errors_ok=("assessment_required",),
                require=SUCCESS,
                refusal="That item needs a completed ergonomic assessment first; please complete one on the "
                "occupational health portal.",
            )
            for item in NEEDS_ASSESSMENT
        ),
        Ask(DELIVERY_BUILDING),
        Ask(DELIVERY_FLOOR),
        Call(
            "submit_equipment_request",
            {
                "employee_id": "$employee_id",
                "equipment_type": "$equipment_type",
                "delivery_building": "$delivery_building",
                "delivery_floor": "$delivery_floor",
            },
            name="eq_req",
        ),
        Say("Your equipment request is {eq_req.request_id}."),
    ),
)


# check_room_availability's search, with or without the equipment the caller asked for
ROOM_SEARCH = {
    "building_code": "$building_name",
    "date": "$meeting_date",
    "start_time": "$start_time",
    "end_time": "$end_time",
    "min_capacity": Derived(int, "$attendee_count"),
}


def _equipment_list(item: str) -> list[str] | None:
    return None if item == "nothing" else [item]


def _none_with_equipment(rooms: list[Any], equipment: str) -> bool:
    return not rooms and equipment != "nothing"


CONFERENCE_ROOM = Workflow(
    "conference_room",
    "Book a room for a date, time window and head count; the calendar invite is required afterwards.",
    ("conference room", "meeting room", "book a room", "a room for"),
    (
        *STANDARD_AUTH,
        Ask(BUILDING_NAME),
        Ask(Slot("meeting_date", "date", "What's the meeting date?", label="meeting date")),
        Ask(Slot("start_time", "time", "What start time?", label="start time")),
        Ask(Slot("end_time", "time", "And the end time?", label="end time")),
        Ask(Slot("attendee_count", "number", "How many attendees?", label="attendees")),
        Ask(
            Slot(
                "required_equipment",
                "choice",
                "Do you need any equipment in the room: a projector, a whiteboard, video conferencing, a display "
                "screen, a speakerphone, or nothing?",
                label="equipment in the room",
                choices=ROOM_EQUIPMENT,
            )
        ),
        Call(
            "check_room_availability",
            ROOM_SEARCH | {"equipment_required": Derived(_equipment_list, "$required_equipment")},
            name="rooms",
        ),
        # none with the equipment: a room without it, if the caller can do without (EVA-Bench's agents search on)
        Ask(
            Slot(
                "room_without_equipment",
                "yes_no",
                "No room with that equipment is free then. Would a room without it work for you?",
                label="a room without it",
            ),
            when=Derived(("rooms.available_rooms", "required_equipment"), _none_with_equipment),
        ),
        Call("check_room_availability", ROOM_SEARCH, name="rooms", when="$room_without_equipment"),
        Say("I'm sorry, no room in that building fits that time and group.", when="!$rooms.available_rooms"),
        Confirm(
            "Room {rooms.available_rooms.0.room_code} is free then. Shall I book it?", when="$rooms.available_rooms"
        ),
        Call(
            "submit_room_booking",
            {
                "employee_id": "$employee_id",
                "room_code": "$rooms.available_rooms.0.room_code",
                "date": "$meeting_date",
                "start_time": "$start_time",
                "end_time": "$end_time",
                "attendee_count": Derived(int, "$attendee_count"),
            },
            name="booking",
            when="$rooms.available_rooms",
        ),
        Call(
            "send_calendar_invite",
            {
                "request_id": "$booking.request_id",
                "employee_id": "$employee_id",
                "room_code": "$booking.room_code",
                "date": "$meeting_date",
                "start_time": "$start_time",
                "end_time": "$end_time",
            },
            when="$booking",
        ),
        Say(
            "Room {booking.room_code} is booked, confirmation {booking.request_id}; the invite is on its way.",
            when="$booking",
        ),
    ),
)
