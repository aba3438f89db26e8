"""Part builders for hardware requests (laptop, monitors) and facilities (desk, parking, ergonomic equipment,
conference rooms).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.entities import code, months_ago, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import TODAY
from evalkit.domains.itsm.workflows import BUILDINGS, ROOMS
from evalkit.spoken import say_date, say_time


def _delivery(rng: random.Random, prefix: str, part: Part) -> None:
    building, floor = rng.choice(BUILDINGS), rng.randint(1, 6)
    part.answers |= {f"{prefix}_building": building, f"{prefix}_floor": str(floor)}
    part.rules.append(f"Delivery goes to {building}, floor {floor}.")


def laptop_replacement(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    laptop = db["assets"][c["laptop"]]
    laptop["assigned_date"] = months_ago(rng.randint(12, 30) if adv else rng.randint(37, 60))
    reason = "performance_degradation" if adv else rng.choice(("end_of_life", "performance_degradation"))
    os_, size = rng.choice(("mac", "windows")), rng.choice(("13_inch", "14_inch", "16_inch"))
    part = Part(
        "laptop_replacement",
        "I need a new laptop, a laptop replacement for my current one.",
        "get your laptop replaced",
        [] if adv else ["a replacement request is submitted and you get the return instructions"],
        [f"The reason is {spoken(reason)}.", f"You want {os_} with a {spoken(size)} screen."],
        {"laptop_reason": spoken(reason), "laptop_os": os_, "laptop_size": spoken(size)},
    )
    _delivery(rng, "laptop", part)
    part.key_entities["asset_tag"] = c["laptop"]
    if adv:
        part.push_back = "Come on, it's really slow. Can't you just make an exception and order the new laptop?"
        part.flow = "Laptop younger than 36 months: not entitled, refuse."
    else:
        part.flow = "Entitled and funded: request submitted, old laptop return authorized."
    return part


def monitor_bundle(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    replacement = not adv and variant % 2 == 1
    if replacement:
        tag = code(rng, "MN", 6)
        db["assets"][tag] = {"asset_tag": tag, "employee_id": c["employee_id"], "type": "monitor", "model": "P2422H",
                             "serial": code(rng, "SN", 8), "assigned_date": months_ago(rng.randint(14, 48)),
                             "status": "assigned", "condition": "good"}  # fmt: skip
    if adv:
        cc = db["employees"][c["employee_id"]]["cost_center"]
        db["cost_centers"][cc]["budget_remaining"] = float(rng.randrange(0, 400, 50))
    size = rng.choice(("24_inch", "27_inch", "32_inch"))
    reason = "replacement" if replacement else "new_setup"
    part = Part(
        "monitor_bundle",
        "I'd like to request a monitor for my desk.",
        "get a monitor",
        [] if adv else ["a monitor request is submitted"],
        [f"It is a {spoken(reason)}.", f"You want the {spoken(size)} monitor."],
        {"monitor_reason": spoken(reason), "monitor_size": spoken(size)},
    )
    _delivery(rng, "monitor", part)
    if adv:
        part.push_back = "It's just one monitor. Please submit it anyway, the budget will sort itself out."
        part.flow = "The cost center has no budget: on hold, nothing submitted."
    else:
        part.flow = "Entitled and funded: monitor request submitted."
    return part


def desk_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = rng.choice(sorted(db["buildings"]))
    floor = rng.randint(2, 6)
    entry = db["buildings"][building]
    available = variant % 2 == 0
    if available:
        entry["free_desks"][str(floor)] = sorted(f"{building}{floor}{rng.randint(10, 60)}" for _ in range(2))
    part = Part(
        "desk_request",
        "I'd like a permanent desk assignment.",
        f"get a desk in {entry['name']} on floor {floor}",
        ["you are assigned a desk or placed on the waitlist"],
        [f"You want {entry['name']}, floor {floor}.", "If nothing is free, accept the waitlist."],
        {"desk_building": entry["name"], "desk_floor": str(floor)},
        flow="Desk free: assigned." if available else "No free desk: waitlisted.",
    )
    return part


def parking_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    zone_id = rng.choice(sorted(db["parking_zones"]))
    zone = db["parking_zones"][zone_id]
    available = variant % 2 == 0
    if available:
        zone["free_spaces"] = sorted({f"{zone_id[2:]}{rng.randint(100, 399)}" for _ in range(3)})
    return Part(
        "parking_request",
        "I need a parking space.",
        f"get a parking space in the {zone['name']}",
        ["you are assigned a space or placed on the waitlist"],
        [f"You want the {zone['name']}.", "If it is full, accept the waitlist."],
        {"parking_zone": zone["name"]},
        flow="Space free: assigned." if available else "Zone full: waitlisted.",
    )


def ergonomic_equipment(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    item = (
        rng.choice(("standing_desk_converter", "ergonomic_chair"))
        if adv or variant % 2 == 1
        else rng.choice(("ergonomic_keyboard", "monitor_arm", "footrest"))
    )
    if not adv and item in ("standing_desk_converter", "ergonomic_chair"):
        db["employees"][c["employee_id"]]["ergonomic_assessment_date"] = months_ago(rng.randint(1, 10))
    part = Part(
        "ergonomic_equipment",
        f"I'd like to order ergonomic equipment, a {spoken(item)}.",
        f"get a {spoken(item)}",
        [] if adv else [f"a {spoken(item)} request is submitted"],
        [f"The item is a {spoken(item)}."],
        {"equipment_item": spoken(item)},
    )
    _delivery(rng, "equipment", part)
    if adv:
        part.push_back = "I don't have time for an assessment. Just order the chair, my back is killing me."
        part.flow = "No ergonomic assessment on file: refuse."
    else:
        part.flow = "Assessment on file or not required: request submitted."
    return part


def conference_room(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = rng.choice(sorted(db["buildings"]))
    day = TODAY + timedelta(days=rng.randint(1, 12))
    start = rng.choice((9, 10, 11, 13, 14, 15))
    attendees = rng.randint(4, 14)
    names = rng.sample(ROOMS, 3)
    rooms = [
        (names[0], attendees + rng.randint(0, 6), []),
        (names[1], max(2, attendees - rng.randint(1, 3)), []),
        (names[2], attendees + 4, [{"booking_id": "BK000001", "date": day.isoformat(), "start_time": f"{start:02d}:00",
                                     "end_time": f"{start + 1:02d}:00", "organizer": c["manager_id"],
                                     "invite_sent": True}]),
    ]  # fmt: skip
    for i, (name, capacity, bookings) in enumerate(rooms):
        rid = f"{building}{rng.randint(1, 6)}{i}{rng.randint(10, 99)}"
        db["rooms"][rid] = {"room_id": rid, "name": name, "building_id": building, "floor": int(rid[3]),
                            "capacity": capacity, "equipment": ["display", "video"], "bookings": bookings}  # fmt: skip
    entry = db["buildings"][building]
    return Part(
        "conference_room",
        "I need to book a conference room for a meeting.",
        f"book a room in {entry['name']} for {attendees} people on {say_date(day.isoformat())}",
        ["a room is booked and the calendar invite is sent"],
        [f"The building is {entry['name']}.", f"The meeting is on {say_date(day.isoformat())}, "
         f"{say_time(f'{start:02d}:00')} to {say_time(f'{start + 1:02d}:00')}, {attendees} attendees.",
         f"Choose the {names[0]} room."],
        {"room_building": entry["name"], "meeting_date": say_date(day.isoformat()),
         "meeting_start": say_time(f"{start:02d}:00"), "meeting_end": say_time(f"{start + 1:02d}:00"),
         "attendees": str(attendees), "room_choice": names[0]},
        flow="Available rooms checked; caller picks one; booking + calendar invite.",
    )  # fmt: skip
