"""Facilities: desks, parking (and its waitlist), ergonomic equipment, meeting rooms and calendar invites."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

from evalkit.domains.base import ToolArgs, ToolError
from evalkit.domains.itsm.tools.common import (
    ASSESSMENT_ITEMS,
    DESK_COOLDOWN_DAYS,
    PARKING_COOLDOWN_DAYS,
    REGISTRY,
    _next_id,
    _require_auth,
    _resolve_name,
    _today,
)

# ------------------------------------------------------------------------------------------------ facilities


class DeskAvailabilityArgs(ToolArgs):
    building: str
    floor: int


@REGISTRY.tool(DeskAvailabilityArgs, writes=False)
def check_desk_availability(db: dict[str, Any], args: DeskAvailabilityArgs) -> dict[str, Any]:
    """Free desks on a floor of a building (names and aliases resolve to the building code)."""
    building = _resolve_name(db["buildings"], args.building, "building")
    desks = building["free_desks"].get(str(args.floor))
    if desks is None:
        raise ToolError("floor_not_found", f"{building['name']} has floors {sorted(building['free_desks'])}")
    return {
        "building_id": building["building_id"],
        "floor": args.floor,
        "desks_available": bool(desks),
        "available_desks": sorted(desks),
    }


def _cooldown(db: dict[str, Any], last: str | None, days: int, what: str) -> None:
    if last is None:
        return
    eligible = date.fromisoformat(last) + timedelta(days=days)
    if _today(db) < eligible:
        raise ToolError("reassignment_cooldown", f"{what} reassignment allowed again from {eligible.isoformat()}")


class DeskAssignmentArgs(ToolArgs):
    employee_id: str
    building_id: str
    floor: int
    desk_id: str


@REGISTRY.tool(DeskAssignmentArgs, writes=True)
def submit_desk_assignment(db: dict[str, Any], args: DeskAssignmentArgs) -> dict[str, Any]:
    """Assign a free desk (not if one is on file; once per 90 days)."""
    employee = _require_auth(db, args.employee_id)
    if employee.get("desk"):
        raise ToolError("desk_already_assigned", f"desk {employee['desk']} is on file: release it first")
    _cooldown(db, employee.get("last_desk_assignment"), DESK_COOLDOWN_DAYS, "desk")
    building = _resolve_name(db["buildings"], args.building_id, "building")
    free = building["free_desks"].get(str(args.floor), [])
    if args.desk_id.upper() not in free:
        raise ToolError("desk_unavailable", f"desk {args.desk_id} is not free")
    free.remove(args.desk_id.upper())
    employee["desk"] = args.desk_id.upper()
    employee["last_desk_assignment"] = db["current_date"]
    return {"desk_id": employee["desk"], "building_id": building["building_id"], "floor": args.floor}


class ParkingAvailabilityArgs(ToolArgs):
    zone: str


@REGISTRY.tool(ParkingAvailabilityArgs, writes=False)
def check_parking_availability(db: dict[str, Any], args: ParkingAvailabilityArgs) -> dict[str, Any]:
    """Free spaces in a parking zone (names and aliases resolve to the zone code)."""
    zone = _resolve_name(db["parking_zones"], args.zone, "parking_zone")
    free = sorted(zone["free_spaces"])
    return {"zone_id": zone["zone_id"], "spaces_available": bool(free), "available_spaces": free}


class ParkingAssignmentArgs(ToolArgs):
    employee_id: str
    zone_id: str
    space_id: str


@REGISTRY.tool(ParkingAssignmentArgs, writes=True)
def submit_parking_assignment(db: dict[str, Any], args: ParkingAssignmentArgs) -> dict[str, Any]:
    """Assign a free parking space (not if one is on file; once per 180 days)."""
    employee = _require_auth(db, args.employee_id)
    if employee.get("parking"):
        raise ToolError("parking_already_assigned", f"space {employee['parking']} is on file")
    _cooldown(db, employee.get("last_parking_assignment"), PARKING_COOLDOWN_DAYS, "parking")
    zone = _resolve_name(db["parking_zones"], args.zone_id, "parking_zone")
    if args.space_id.upper() not in zone["free_spaces"]:
        raise ToolError("space_unavailable", f"space {args.space_id} is not free")
    zone["free_spaces"].remove(args.space_id.upper())
    employee["parking"] = args.space_id.upper()
    employee["last_parking_assignment"] = db["current_date"]
    return {"space_id": employee["parking"], "zone_id": zone["zone_id"]}


class WaitlistArgs(ToolArgs):
    employee_id: str
    resource_type: Literal["desk", "parking"]
    location_id: str


@REGISTRY.tool(WaitlistArgs, writes=True)
def submit_waitlist(db: dict[str, Any], args: WaitlistArgs) -> dict[str, Any]:
    """Waitlist the caller for a building's desks or a parking zone (once per list)."""
    employee = _require_auth(db, args.employee_id)
    key = f"{args.resource_type}:{args.location_id.upper()}"
    waitlist = db["waitlists"].setdefault(key, [])
    if employee["employee_id"] in waitlist:
        raise ToolError("already_waitlisted", f"already on the {key} waitlist")
    waitlist.append(employee["employee_id"])
    return {"waitlist": key, "position": len(waitlist)}


class AssessmentArgs(ToolArgs):
    employee_id: str
    item: str | None = None


@REGISTRY.tool(AssessmentArgs, writes=False)
def check_ergonomic_assessment(db: dict[str, Any], args: AssessmentArgs) -> dict[str, Any]:
    """Whether a completed ergonomic assessment is on file (and so whether ``item`` may be ordered)."""
    employee = _require_auth(db, args.employee_id)
    done = employee.get("ergonomic_assessment_date")
    eligible = done is not None or args.item not in ASSESSMENT_ITEMS
    return {"assessment_completed": done is not None, "assessment_date": done, "eligible": eligible}


class EquipmentArgs(ToolArgs):
    employee_id: str
    item: Literal["standing_desk_converter", "ergonomic_chair", "ergonomic_keyboard", "monitor_arm", "footrest"]
    delivery_building: str
    delivery_floor: int


@REGISTRY.tool(EquipmentArgs, writes=True)
def submit_equipment_request(db: dict[str, Any], args: EquipmentArgs) -> dict[str, Any]:
    """Order ergonomic equipment; converters and chairs need a completed assessment on file."""
    employee = _require_auth(db, args.employee_id)
    if args.item in ASSESSMENT_ITEMS and not employee.get("ergonomic_assessment_date"):
        raise ToolError("assessment_required", "complete an ergonomic assessment on the occupational health portal")
    building = _resolve_name(db["buildings"], args.delivery_building, "building")
    request_id = _next_id(db, "equipment_request", "REQEQ", 6)
    db["equipment_requests"][request_id] = {
        "request_id": request_id,
        "employee_id": employee["employee_id"],
        "item": args.item,
        "delivery": f"{building['building_id']}-{args.delivery_floor}",
    }
    return {"request_id": request_id}


class RoomAvailabilityArgs(ToolArgs):
    building: str
    date: str
    start_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    end_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    attendees: int = Field(gt=0)
    floor: int | None = None


def _overlaps(booking: dict[str, Any], day: str, start: str, end: str) -> bool:
    return booking["date"] == day and booking["start_time"] < end and start < booking["end_time"]


@REGISTRY.tool(RoomAvailabilityArgs, writes=False)
def check_room_availability(db: dict[str, Any], args: RoomAvailabilityArgs) -> dict[str, Any]:
    """Rooms in a building with enough seats and free for the whole time window."""
    if args.end_time <= args.start_time:
        raise ToolError("invalid_time_window", "the end time must be after the start time")
    building = _resolve_name(db["buildings"], args.building, "building")
    rooms = [
        {k: v for k, v in room.items() if k != "bookings"}
        for room in db["rooms"].values()
        if room["building_id"] == building["building_id"]
        and room["capacity"] >= args.attendees
        and (args.floor is None or room["floor"] == args.floor)
        and not any(_overlaps(b, args.date, args.start_time, args.end_time) for b in room["bookings"])
    ]
    return {"building_id": building["building_id"], "available_rooms": sorted(rooms, key=lambda r: r["room_id"])}


class RoomBookingArgs(ToolArgs):
    employee_id: str
    room_id: str
    date: str
    start_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    end_time: str = Field(pattern=r"^\d{2}:\d{2}$")
    attendees: int = Field(gt=0)


@REGISTRY.tool(RoomBookingArgs, writes=True)
def submit_room_booking(db: dict[str, Any], args: RoomBookingArgs) -> dict[str, Any]:
    """Book a conference room the caller chose."""
    employee = _require_auth(db, args.employee_id)
    room = _resolve_name(db["rooms"], args.room_id, "room")
    if room["capacity"] < args.attendees:
        raise ToolError("capacity_exceeded", f"{room['room_id']} seats {room['capacity']}")
    if any(_overlaps(b, args.date, args.start_time, args.end_time) for b in room["bookings"]):
        raise ToolError("room_unavailable", f"{room['room_id']} is booked in that window")
    booking_id = _next_id(db, "room_booking", "BK", 6)
    room["bookings"].append(
        {
            "booking_id": booking_id,
            "date": args.date,
            "start_time": args.start_time,
            "end_time": args.end_time,
            "organizer": employee["employee_id"],
            "invite_sent": False,
        }
    )
    return {"booking_id": booking_id, "room_id": room["room_id"]}


class InviteArgs(ToolArgs):
    booking_id: str
    organizer_id: str


@REGISTRY.tool(InviteArgs, writes=True)
def send_calendar_invite(db: dict[str, Any], args: InviteArgs) -> dict[str, Any]:
    """Send the organizer the calendar invite for a booking (required after every booking)."""
    employee = _require_auth(db, args.organizer_id)
    for room in db["rooms"].values():
        for booking in room["bookings"]:
            if booking.get("booking_id") == args.booking_id.upper() and booking["organizer"] == employee["employee_id"]:
                booking["invite_sent"] = True
                return {"invite_sent_to": employee["email"], "booking_id": booking["booking_id"]}
    raise ToolError("booking_not_found", f"no booking {args.booking_id} organized by {args.organizer_id}")
