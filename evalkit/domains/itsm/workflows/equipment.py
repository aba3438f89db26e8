"""Hardware request workflows (laptop replacement, monitor bundle) and facilities workflows (desk, parking,
ergonomic equipment, conference room).
"""

from __future__ import annotations

from evalkit.domains.itsm.tools import HARDWARE_PRICES
from evalkit.domains.itsm.workflows.steps import EQUIPMENT, PARKING_ZONES, ROOMS, STANDARD_AUTH, _building, _floor
from evalkit.domains.workflow import Ask, Call, Confirm, Say, Slot, Workflow

# --------------------------------------------------------------------------------------------------- hardware

NO_BUDGET = "Your department has no budget for this right now, so the request goes on hold pending budget approval."
LAPTOP_REPLACEMENT = Workflow(
    "laptop_replacement",
    "Replace a laptop: entitlement and budget first, then the request and a return authorization for the old one.",
    ("new laptop", "laptop replacement", "replace my laptop"),
    (
        *STANDARD_AUTH,
        Call(
            "check_hardware_entitlement",
            {"employee_id": "$employee_id", "equipment_type": "laptop"},
            name="lt_ent",
            require={"eligible": True},
            refusal="I'm sorry, you're not eligible for a laptop replacement yet: {lt_ent.reason}.",
        ),
        Call(
            "verify_cost_center_budget",
            {"cost_center": "$me.employee.cost_center", "amount": HARDWARE_PRICES["laptop"]},
            require={"budget_available": True},
            refusal=NO_BUDGET,
        ),
        Call("get_employee_assets", {"employee_id": "$employee_id", "asset_type": "laptop"}, name="lt_assets"),
        Ask(
            Slot(
                "laptop_reason",
                "choice",
                "What's the reason for the replacement?",
                label="reason",
                choices=("end_of_life", "performance_degradation", "physical_damage"),
            )
        ),
        Ask(
            Slot(
                "laptop_os",
                "choice",
                "Mac or Windows operating system?",
                label="operating system",
                choices=("mac", "windows"),
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
        Ask(_building("laptop_building", "laptop delivery")),
        Ask(_floor("laptop_floor", "laptop delivery")),
        Confirm("I'll order a {laptop_os} {laptop_size} laptop to {laptop_building}, floor {laptop_floor}. Go ahead?"),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "equipment_type": "laptop",
                "reason": "$laptop_reason",
                "size": "$laptop_size",
                "operating_system": "$laptop_os",
                "delivery_building": "$laptop_building",
                "delivery_floor": "$laptop_floor",
            },
            name="lt_req",
        ),
        Call(
            "initiate_asset_return",
            {"employee_id": "$employee_id", "asset_tag": "$lt_assets.assets.0.asset_tag"},
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
        Call(
            "check_hardware_entitlement",
            {"employee_id": "$employee_id", "equipment_type": "monitor"},
            name="mn_ent",
            require={"eligible": True},
            refusal="I'm sorry, you're not eligible for a monitor right now: {mn_ent.reason}.",
        ),
        Call(
            "verify_cost_center_budget",
            {"cost_center": "$me.employee.cost_center", "amount": HARDWARE_PRICES["monitor"]},
            require={"budget_available": True},
            refusal=NO_BUDGET,
        ),
        Ask(
            Slot(
                "monitor_reason",
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
        Ask(_building("monitor_building", "monitor delivery")),
        Ask(_floor("monitor_floor", "monitor delivery")),
        Call(
            "submit_hardware_request",
            {
                "employee_id": "$employee_id",
                "equipment_type": "monitor",
                "reason": "$monitor_reason",
                "size": "$monitor_size",
                "delivery_building": "$monitor_building",
                "delivery_floor": "$monitor_floor",
            },
            name="mn_req",
        ),
        Say("Your monitor request is {mn_req.request_id}."),
    ),
)


# --------------------------------------------------------------------------------------------------- facilities


DESK_REQUEST = Workflow(
    "desk_request",
    "A permanent desk in a building and floor, or the waitlist when none is free.",
    ("desk", "office space"),
    (
        *STANDARD_AUTH,
        Ask(_building("desk_building", "desk")),
        Ask(_floor("desk_floor", "desk")),
        Call("check_desk_availability", {"building": "$desk_building", "floor": "$desk_floor"}, name="desks"),
        Call(
            "submit_desk_assignment",
            {
                "employee_id": "$employee_id",
                "building_id": "$desks.building_id",
                "floor": "$desk_floor",
                "desk_id": "$desks.available_desks.0",
            },
            name="desk",
            when="$desks.desks_available",
        ),
        Confirm(
            "No desk is free there right now. Shall I put you on the desk waitlist?", when="!$desks.desks_available"
        ),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "desk", "location_id": "$desks.building_id"},
            when="!$desks.desks_available",
        ),
    ),
)

PARKING_REQUEST = Workflow(
    "parking_request",
    "A parking space in a zone, or the waitlist when the zone is full.",
    ("parking",),
    (
        *STANDARD_AUTH,
        Ask(
            Slot(
                "parking_zone",
                "choice",
                "Which parking zone would you like?",
                label="parking zone",
                choices=PARKING_ZONES,
            )
        ),
        Call("check_parking_availability", {"zone": "$parking_zone"}, name="zone"),
        Call(
            "submit_parking_assignment",
            {"employee_id": "$employee_id", "zone_id": "$zone.zone_id", "space_id": "$zone.available_spaces.0"},
            when="$zone.spaces_available",
        ),
        Confirm("That zone is full. Shall I put you on the parking waitlist?", when="!$zone.spaces_available"),
        Call(
            "submit_waitlist",
            {"employee_id": "$employee_id", "resource_type": "parking", "location_id": "$zone.zone_id"},
            when="!$zone.spaces_available",
        ),
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
                "equipment_item",
                "choice",
                "Which equipment item do you need?",
                label="equipment item",
                choices=EQUIPMENT,
            )
        ),
        Call(
            "check_ergonomic_assessment",
            {"employee_id": "$employee_id", "item": "$equipment_item"},
            require={"eligible": True},
            refusal="That item needs a completed ergonomic assessment first; please book one on the occupational "
            "health portal.",
        ),
        Ask(_building("equipment_building", "equipment delivery")),
        Ask(_floor("equipment_floor", "equipment delivery")),
        Call(
            "submit_equipment_request",
            {
                "employee_id": "$employee_id",
                "item": "$equipment_item",
                "delivery_building": "$equipment_building",
                "delivery_floor": "$equipment_floor",
            },
            name="eq_req",
        ),
        Say("Your equipment request is {eq_req.request_id}."),
    ),
)

CONFERENCE_ROOM = Workflow(
    "conference_room",
    "Book a room for a date, time window and head count; the calendar invite is required afterwards.",
    ("conference room", "meeting room", "book a room"),
    (
        *STANDARD_AUTH,
        Ask(_building("room_building", "meeting")),
        Ask(Slot("meeting_date", "date", "What's the meeting date?", label="meeting date")),
        Ask(Slot("meeting_start", "time", "What start time?", label="start time")),
        Ask(Slot("meeting_end", "time", "And the end time?", label="end time")),
        Ask(Slot("attendees", "number", "How many attendees?", label="attendees")),
        Call(
            "check_room_availability",
            {
                "building": "$room_building",
                "date": "$meeting_date",
                "start_time": "$meeting_start",
                "end_time": "$meeting_end",
                "attendees": "$attendees",
            },
            name="rooms",
        ),
        Ask(
            Slot(
                "room_choice",
                "choice",
                "Which of the available rooms would you like?",
                label="available rooms",
                choices=ROOMS,
            )
        ),
        Call(
            "submit_room_booking",
            {
                "employee_id": "$employee_id",
                "room_id": "$room_choice",
                "date": "$meeting_date",
                "start_time": "$meeting_start",
                "end_time": "$meeting_end",
                "attendees": "$attendees",
            },
            name="booking",
        ),
        Call("send_calendar_invite", {"booking_id": "$booking.booking_id", "organizer_id": "$employee_id"}),
        Say("Room {booking.room_id} is booked, confirmation {booking.booking_id}; the invite is on its way."),
    ),
)
