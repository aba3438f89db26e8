"""Facilities: desks, parking, waitlists, ergonomic equipment, conference rooms and calendar invites."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field, field_validator

from evalkit.domains.base import ToolArgs, ToolError, row
from evalkit.domains.itsm.api.common import (
    REGISTRY,
    BuildingRef,
    ClockTime,
    DeskCode,
    EmployeeArgs,
    EmployeeId,
    FloorCode,
    IsoDate,
    ParkingSpaceId,
    RequestId,
    RoomCode,
    ZoneRef,
    content_id,
    employee,
    empty_to_none,
    facility_code,
    filed,
    not_found,
    require,
    today,
    today_text,
)

DESK_COOLDOWN_DAYS, PARKING_COOLDOWN_DAYS = 90, 180
Equipment = Literal["standing_desk_converter", "ergonomic_chair", "ergonomic_keyboard", "monitor_arm", "footrest"]
RoomEquipment = Literal["projector", "whiteboard", "video_conferencing", "display_screen", "speakerphone"]

# ------------------------------------------------------------------------------------------------ desks


class DeskAvailabilityArgs(ToolArgs):
    building_code: BuildingRef
    floor_code: FloorCode


@REGISTRY.tool(DeskAvailabilityArgs, writes=False, needs="employee_auth")
def check_desk_availability(db: dict[str, Any], args: DeskAvailabilityArgs) -> dict[str, Any]:
    """The free desks on a floor of a building (code, name or alias)."""
    building = facility_code(db, "building", args.building_code)
    free = [
        {"desk_code": code, "zone": desk.get("zone"), "near_window": desk.get("near_window", False)}
        for code, desk in db.get("facilities", {}).get("desks", {}).items()
        if desk.get("building_code") == building
        and desk.get("floor_code") == args.floor_code
        and desk.get("status") == "available"
    ]
    return {"building_code": building, "available_desks": free, "message": f"{len(free)} desk(s) free"}


def _cooldown(db: dict[str, Any], last: str | None, days: int, what: str) -> None:
    """A new desk (parking space) only ``days`` after the last assignment."""
    if not last:
        return
    since = (today(db) - date.fromisoformat(last)).days
    if since < days:
        again = (date.fromisoformat(last) + timedelta(days=days)).isoformat()
        raise ToolError(
            "too_soon",
            f"The last {what} assignment was {since} days ago; reassignment needs {days} days (from {again}).",
            details={"days_since_last": since, "cooldown_days": days, "last_assignment_date": last},
        )


class DeskAssignmentArgs(ToolArgs):
    employee_id: EmployeeId
    desk_code: DeskCode


@dataclass(frozen=True)
class _Assignable:
    """A facility an employee holds one of at a time (a desk, a parking space), with a cooldown between two."""

    what: str  # in the employee's fields and the request type: "desk" -> assigned_desk, desk_assignment
    label: str  # in messages: "Desk D-1 is taken"
    collection: str  # db["facilities"][collection][item_id]
    id_field: str  # the request's and the answer's key for the item
    cooldown_days: int


DESK = _Assignable("desk", "Desk", "desks", "desk_code", DESK_COOLDOWN_DAYS)
PARKING = _Assignable("parking", "Parking space", "parking", "parking_space_id", PARKING_COOLDOWN_DAYS)


def _assign(db: dict[str, Any], kind: _Assignable, employee_id: str, item_id: str) -> dict[str, Any]:
    """Assign a free item of ``kind``; not while the employee holds one, nor within the cooldown of the last one."""
    require(db)
    person = db.get("employees", {}).get(employee_id)
    held = f"assigned_{kind.what}"
    if person and person.get(held):
        raise ToolError("already_assigned", f"The employee already has {kind.what} {person[held]}; release it first.")
    last = f"last_{kind.what}_assignment_date"
    _cooldown(db, person and person.get(last), kind.cooldown_days, kind.what)
    item = db.get("facilities", {}).get(kind.collection, {}).get(item_id)
    if not item:
        raise not_found(f"{kind.label} {item_id}")
    if item["status"] != "available":
        raise ToolError("not_available", f"{kind.label} {item_id} is taken")
    item.update(status="assigned", assigned_employee_id=employee_id)
    if person is not None:
        person.update({held: item_id, last: today_text(db)})
    request = {
        "employee_id": employee_id,
        kind.id_field: item_id,
        "request_type": f"{kind.what}_assignment",
        "created_date": today_text(db),
    }
    return {
        "request_id": content_id("REQ-FAC-", request),
        kind.id_field: item_id,
        "message": f"{kind.label} {item_id} assigned",
    }


@REGISTRY.tool(DeskAssignmentArgs, writes=True, irreversible=True)
def submit_desk_assignment(db: dict[str, Any], args: DeskAssignmentArgs) -> dict[str, Any]:
    """Assign a free desk; not while the employee holds one, nor within 90 days of the last assignment."""
    return _assign(db, DESK, args.employee_id, args.desk_code)


# ------------------------------------------------------------------------------------------------ parking


class ParkingAvailabilityArgs(ToolArgs):
    zone_code: ZoneRef | None = Field(default=None, description="Omit to search every zone")

    @field_validator("zone_code", mode="before")
    @classmethod
    def _placeholder_is_absent(cls, value: Any) -> Any:
        return empty_to_none(value)


@REGISTRY.tool(ParkingAvailabilityArgs, writes=False, needs="employee_auth")
def check_parking_availability(db: dict[str, Any], args: ParkingAvailabilityArgs) -> dict[str, Any]:
    """The free parking spaces of a zone (code, name or alias), or of every zone."""
    zone = facility_code(db, "zone", args.zone_code) if args.zone_code is not None else None
    free = [
        {
            "parking_space_id": space_id,
            "zone_code": space.get("zone_code"),
            "level": space.get("level"),
            "covered": space.get("covered", False),
        }
        for space_id, space in db.get("facilities", {}).get("parking", {}).items()
        if (zone is None or space.get("zone_code") == zone) and space.get("status") == "available"
    ]
    where = " (all zones)" if zone is None else ""
    return {"zone_code": zone, "available_spaces": free, "message": f"{len(free)} space(s) free{where}"}


class ParkingAssignmentArgs(ToolArgs):
    employee_id: EmployeeId
    parking_space_id: ParkingSpaceId


@REGISTRY.tool(ParkingAssignmentArgs, writes=True, irreversible=True)
def submit_parking_assignment(db: dict[str, Any], args: ParkingAssignmentArgs) -> dict[str, Any]:
    """Assign a free parking space; not while the employee holds one, nor within 180 days of the last one."""
    return _assign(db, PARKING, args.employee_id, args.parking_space_id)


class WaitlistArgs(ToolArgs):
    employee_id: EmployeeId
    resource_type: Literal["desk", "parking"]
    zone_or_building: str = Field(
        min_length=1, max_length=20, description="The building code for a desk, the zone code for parking"
    )


@REGISTRY.tool(WaitlistArgs, writes=True, needs="employee_auth")
def submit_waitlist(db: dict[str, Any], args: WaitlistArgs) -> dict[str, Any]:
    """Put the employee on the desk or parking waitlist of a building or zone when nothing is free."""
    employee(db, args.employee_id)
    waitlist = db.setdefault("waitlists", {}).setdefault(args.resource_type, [])
    for entry in waitlist:
        if entry["employee_id"] == args.employee_id and entry["zone_or_building"] == args.zone_or_building:
            raise ToolError("already_waitlisted", f"Already on the waitlist at position {entry['position']}")
    position = len(waitlist) + 1
    waitlist_id = f"WL-{args.resource_type[:3].upper()}-{position:04d}"
    waitlist.append(
        {
            "waitlist_id": waitlist_id,
            "employee_id": args.employee_id,
            "resource_type": args.resource_type,
            "zone_or_building": args.zone_or_building,
            "position": position,
            "added_date": today_text(db),
        }
    )
    return {
        "waitlist_id": waitlist_id,
        "resource_type": args.resource_type,
        "position": position,
        "zone_or_building": args.zone_or_building,
        "message": f"On the {args.resource_type} waitlist at position {position}",
    }


# ------------------------------------------------------------------------------------------------ ergonomics


@REGISTRY.tool(EmployeeArgs, writes=False, needs="employee_auth")
def check_ergonomic_assessment(db: dict[str, Any], args: EmployeeArgs) -> dict[str, Any]:
    """Whether the employee completed an ergonomic assessment (needed for standing desks and chairs)."""
    assessment = employee(db, args.employee_id).get("ergonomic_assessment")
    if not assessment or assessment.get("status") != "completed":
        raise ToolError(
            "assessment_required",
            "No completed ergonomic assessment on file; one is done on the occupational health portal.",
        )
    return {
        "employee_id": args.employee_id,
        "assessment_date": assessment.get("completed_date"),
        "message": "Assessment on file",
    }


class EquipmentArgs(ToolArgs):
    employee_id: EmployeeId
    equipment_type: Equipment
    delivery_building: BuildingRef
    delivery_floor: FloorCode


@REGISTRY.tool(EquipmentArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_equipment_request(db: dict[str, Any], args: EquipmentArgs) -> dict[str, Any]:
    """Request ergonomic equipment delivered to a building and floor."""
    building = facility_code(db, "building", args.delivery_building)
    request: dict[str, Any] = {
        "request_id": None,
        "employee_id": args.employee_id,
        "equipment_type": args.equipment_type,
        "delivery_building": building,
        "delivery_floor": args.delivery_floor,
        "status": "submitted",
        "created_date": today_text(db),
    }
    request_id = filed(db, "requests", request, "request_id", "REQ-FAC-")
    return {
        "request_id": request_id,
        "equipment_type": args.equipment_type,
        "delivery_building": building,
        "message": f"Equipment request {request_id}",
    }


# ------------------------------------------------------------------------------------------------ rooms


def _overlaps(booking: dict[str, Any], day: str, start: str, end: str) -> bool:
    return booking["date"] == day and not (end <= booking.get("start_time", "") or start >= booking.get("end_time", ""))


class RoomAvailabilityArgs(ToolArgs):
    building_code: BuildingRef
    floor_code: FloorCode | None = Field(default=None, description="Omit to search every floor")
    date: IsoDate
    start_time: ClockTime
    end_time: ClockTime
    min_capacity: int = Field(gt=0, le=50)
    equipment_required: list[RoomEquipment] | None = None

    @field_validator("floor_code", mode="before")
    @classmethod
    def _placeholder_is_absent(cls, value: Any) -> Any:
        return empty_to_none(value)

    @field_validator("equipment_required", mode="before")
    @classmethod
    def _one_item(cls, value: Any) -> Any:
        """A bare item counts as a list of one; a placeholder as none."""
        value = empty_to_none(value)
        return [value] if isinstance(value, str) else value


@REGISTRY.tool(RoomAvailabilityArgs, writes=False, needs="employee_auth")
def check_room_availability(db: dict[str, Any], args: RoomAvailabilityArgs) -> dict[str, Any]:
    """The conference rooms of a building free at the time, seating enough and having the equipment asked for."""
    building = facility_code(db, "building", args.building_code)
    required = args.equipment_required or []
    free = []
    for code, room in db.get("facilities", {}).get("conference_rooms", {}).items():
        if room.get("building_code") != building:
            continue
        if args.floor_code is not None and room.get("floor_code") != args.floor_code:
            continue
        equipment = room.get("equipment", [])
        if room.get("capacity", 0) < args.min_capacity or not all(item in equipment for item in required):
            continue
        if any(_overlaps(b, args.date, args.start_time, args.end_time) for b in room.get("bookings", [])):
            continue
        free.append(
            {
                "room_code": code,
                "floor_code": room.get("floor_code"),
                "capacity": room["capacity"],
                "equipment": equipment,
            }
        )
    return {"available_rooms": free, "message": f"{len(free)} room(s) free"}


class RoomBookingArgs(ToolArgs):
    employee_id: EmployeeId
    room_code: RoomCode
    date: IsoDate
    start_time: ClockTime
    end_time: ClockTime
    attendee_count: int = Field(gt=0, le=50)


@REGISTRY.tool(RoomBookingArgs, writes=True, irreversible=True, needs="employee_auth")
def submit_room_booking(db: dict[str, Any], args: RoomBookingArgs) -> dict[str, Any]:
    """Book a conference room for a date and time."""
    room = row(db.get("facilities", {}).get("conference_rooms", {}), args.room_code, "Room")
    if args.attendee_count > room.get("capacity", 0):
        raise ToolError(
            "over_capacity", f"{args.attendee_count} attendees exceed the room's capacity of {room.get('capacity')}"
        )
    for booking in room.get("bookings", []):
        if _overlaps(booking, args.date, args.start_time, args.end_time):
            raise ToolError("room_conflict", f"Booked on {args.date} {booking['start_time']}-{booking['end_time']}")
    booking = {
        "booking_id": None,
        "date": args.date,
        "start_time": args.start_time,
        "end_time": args.end_time,
        "employee_id": args.employee_id,
        "attendee_count": args.attendee_count,
    }
    request_id = booking["booking_id"] = content_id("REQ-FAC-", booking)
    room.setdefault("bookings", []).append(booking)
    return {
        "request_id": request_id,
        "room_code": args.room_code,
        "date": args.date,
        "start_time": args.start_time,
        "end_time": args.end_time,
        "message": f"{args.room_code} booked ({request_id})",
    }


class InviteArgs(ToolArgs):
    request_id: RequestId
    employee_id: EmployeeId
    room_code: RoomCode
    date: IsoDate
    start_time: ClockTime
    end_time: ClockTime


@REGISTRY.tool(InviteArgs, writes=True, needs="employee_auth")
def send_calendar_invite(db: dict[str, Any], args: InviteArgs) -> dict[str, Any]:
    """Send the calendar invite of a room booking (recorded in ``calendar_events``)."""
    event_id = f"CAL-{args.request_id[-6:]}"
    db.setdefault("calendar_events", {})[event_id] = {
        "calendar_event_id": event_id,
        "request_id": args.request_id,
        "employee_id": args.employee_id,
        "room_code": args.room_code,
        "date": args.date,
        "start_time": args.start_time,
        "end_time": args.end_time,
        "created_date": today_text(db),
    }
    return {
        "calendar_event_id": event_id,
        "room_code": args.room_code,
        "date": args.date,
        "message": f"Invite sent ({event_id})",
    }
