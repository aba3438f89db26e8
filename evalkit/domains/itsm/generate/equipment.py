"""Part builders for hardware requests (laptop, monitors) and facilities (desk, parking, ergonomic equipment,
conference rooms).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from evalkit.domains.itsm.generate.base_db import monitor
from evalkit.domains.itsm.generate.entities import asset_tag, months_ago, spoken
from evalkit.domains.itsm.generate.part import Part
from evalkit.domains.itsm.generate.tables import BUILDINGS, TODAY, ZONES
from evalkit.spoken import say_date, say_time

OS_WORDS = {"macos": "macOS", "windows": "Windows"}


def _delivery(db: dict[str, Any], c: dict[str, Any], part: Part) -> None:
    """Deliveries go to the caller's own building and floor (one answer for every request of the call)."""
    me = db["employees"][c["employee_id"]]
    building = BUILDINGS[me["building_code"]][0]
    part.answers |= {"delivery_building": building, "delivery_floor": me["floor_code"]}
    part.rules.append(f"Delivery goes to {building}, floor {me['floor_code']}.")


def laptop_replacement(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    laptop = db["assets"][c["laptop"]]
    laptop["purchase_date"] = months_ago(rng.randint(12, 30) if adv else rng.randint(37, 60))
    reason = "performance_degradation" if adv else rng.choice(("end_of_life", "performance_degradation"))
    os_, size = rng.choice(("macos", "windows")), rng.choice(("13_inch", "14_inch", "16_inch"))
    part = Part(
        "laptop_replacement",
        "I need a new laptop, a laptop replacement for my current one.",
        "get your laptop replaced",
        [] if adv else ["a replacement request is submitted and you get the return instructions"],
        [f"The reason is {spoken(reason)}.", f"You want {OS_WORDS[os_]} with a {spoken(size)} screen."],
        {"justification": spoken(reason), "preferred_os": OS_WORDS[os_], "laptop_size": spoken(size)},
    )
    _delivery(db, c, part)
    part.key_entities["asset_tag"] = c["laptop"]
    return part.outcome(
        adv,
        done="Entitled and funded: request submitted, old laptop return authorized.",
        refused="Laptop younger than 36 months: not entitled, refuse.",
        push_back="Come on, it's really slow. Can't you just make an exception and order the new laptop?",
    )


def monitor_bundle(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    replacement = not adv and variant % 2 == 1
    if replacement:
        tag = asset_tag(rng, "MON", c["tags"])
        db["assets"][tag] = monitor(rng, tag, c["employee_id"], rng.randint(14, 48))
        db["employees"][c["employee_id"]]["hardware_entitlements"]["monitor_bundle"]["current_asset_tag"] = tag
    if adv:
        cost_center = db["employees"][c["employee_id"]]["cost_center_code"]
        db["cost_centers"][cost_center].update(has_budget=False, remaining_budget_usd=rng.randrange(0, 400, 50))
    size = rng.choice(("24_inch", "27_inch", "32_inch"))
    reason = "replacement" if replacement else "new_setup"
    part = Part(
        "monitor_bundle",
        "I'd like to request a monitor for my desk.",
        "get a monitor",
        [] if adv else ["a monitor request is submitted"],
        [f"It is a {spoken(reason)}.", f"You want the {spoken(size)} monitor."],
        {"monitor_justification": spoken(reason), "monitor_size": spoken(size)},
    )
    _delivery(db, c, part)
    return part.outcome(
        adv,
        done="Entitled and funded: monitor request submitted.",
        refused="The cost center has no budget: on hold, nothing submitted.",
        push_back="It's just one monitor. Please submit it anyway, the budget will sort itself out.",
    )


def _desks(rng: random.Random, db: dict[str, Any], building: str, floor: int, free: int, taken_by: str) -> None:
    """``free`` available desks and one taken desk on a floor."""
    numbers = rng.sample(range(1, 60), free + 1)
    for i, number in enumerate(numbers):
        desk = f"{building}-FL{floor}-D{floor}{number:02d}"
        db["facilities"]["desks"][desk] = {
            "desk_code": desk,
            "building_code": building,
            "floor_code": f"FL{floor}",
            "zone": rng.choice("ABC"),
            "near_window": rng.random() < 0.4,
            "status": "assigned" if i == free else "available",
            "assigned_employee_id": taken_by if i == free else None,
        }


def desk_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = db["employees"][c["employee_id"]]["building_code"]  # the caller's own (one building per call)
    floor, other = rng.sample(range(2, 7), 2)
    mode = variant % 3  # 0: a desk free on the floor; 1: none anywhere, waitlisted; 2: free on the other floor
    _desks(rng, db, building, floor, 2 if mode == 0 else 0, c["manager_id"])
    _desks(rng, db, building, other, 1 if mode == 2 else 0, c["manager_id"])
    name = BUILDINGS[building][0]
    part = Part(
        "desk_request",
        "I'd like a permanent desk assignment.",
        f"get a desk in {name} on floor {floor}",
        ["you are assigned a desk or placed on the waitlist"],
        [f"You want {name}, floor FL{floor}."],
        {"building_name": name, "floor": f"FL{floor}"},
    )
    if mode == 0:
        part.flow = "Desk free: assigned."
    else:
        accept = mode == 2
        part.answers |= {"desk_other_floor": "yes" if accept else "no"}
        if accept:
            part.answers["backup_desk_floor"] = f"FL{other}"
            part.rules.append(f"If nothing is free, FL{other} works too; if that is full too, accept the waitlist.")
            part.flow = "Nothing on the floor asked for: the other floor the caller accepts has a desk, assigned."
        else:
            part.rules.append("If nothing is free, no other floor works for you; accept the waitlist.")
            part.flow = "No free desk: waitlisted."
    return part


def parking_request(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    zone = rng.choice(sorted(ZONES))
    available = variant % 2 == 0
    numbers = rng.sample(range(1, 200), 3)
    for i, number in enumerate(numbers):
        space = f"{zone}-{number:03d}"
        free = available and i < 2
        db["facilities"]["parking"][space] = {
            "parking_space_id": space,
            "zone_code": zone,
            "level": f"L{rng.randint(1, 3)}",
            "covered": rng.random() < 0.5,
            "status": "available" if free else "assigned",
            "assigned_employee_id": None if free else c["manager_id"],
        }
    name = ZONES[zone][0]
    return Part(
        "parking_request",
        "I need a parking space.",
        f"get a parking space in the {name}",
        ["you are assigned a space or placed on the waitlist"],
        [f"You want the {name}.", "If it is full, accept the waitlist."],
        {"zone_name": name},
        flow="Space free: assigned." if available else "Zone full: waitlisted.",
    )


def ergonomic_equipment(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    item = (
        rng.choice(("standing_desk_converter", "ergonomic_chair"))
        if adv or variant % 2 == 1
        else rng.choice(("ergonomic_keyboard", "monitor_arm", "footrest"))
    )
    if not adv and item in ("standing_desk_converter", "ergonomic_chair"):
        done = months_ago(rng.randint(1, 10))
        db["employees"][c["employee_id"]]["ergonomic_assessment"] = {"status": "completed", "completed_date": done}
    part = Part(
        "ergonomic_equipment",
        f"I'd like to order ergonomic equipment, a {spoken(item)}.",
        f"get a {spoken(item)}",
        [] if adv else [f"a {spoken(item)} request is submitted"],
        [f"The item is a {spoken(item)}."],
        {"equipment_type": spoken(item)},
    )
    _delivery(db, c, part)
    return part.outcome(
        adv,
        done="Assessment on file or not required: request submitted.",
        refused="No ergonomic assessment on file: refuse.",
        push_back="I don't have time for an assessment. Just order the chair, my back is killing me.",
    )


def conference_room(rng: random.Random, db: dict[str, Any], c: dict[str, Any], adv: bool, variant: int) -> Part:
    building = db["employees"][c["employee_id"]]["building_code"]  # the caller's own (one building per call)
    day = (TODAY + timedelta(days=rng.randint(1, 12))).isoformat()
    start = rng.choice((9, 10, 11, 13, 14, 15))
    begin, end = f"{start:02d}:00", f"{start + 1:02d}:00"
    attendees = rng.randint(4, 14)
    equipment = rng.choice(("video_conferencing", "projector", "whiteboard", "nothing"))
    has = [] if equipment == "nothing" else [equipment]
    # The first room fits but is taken at that time; the second is too small; the third fits and is free.
    rooms = [
        (attendees + 4, has, [{"booking_id": None, "date": day, "start_time": begin, "end_time": end,
                               "employee_id": c["manager_id"], "attendee_count": 3}]),
        (max(2, attendees - rng.randint(1, 3)), has, []),
        (attendees + rng.randint(0, 6), [*has, "display_screen"], []),
    ]  # fmt: skip
    floors = rng.sample(range(1, 7), 3)
    for (capacity, kit, bookings), floor in zip(rooms, floors, strict=True):
        room = f"{building}-FL{floor}-RM{floor}{rng.randint(10, 99)}"
        db["facilities"]["conference_rooms"][room] = {
            "room_code": room,
            "building_code": building,
            "floor_code": f"FL{floor}",
            "capacity": capacity,
            "equipment": kit,
            "bookings": bookings,
        }
    name = BUILDINGS[building][0]
    wanted = "no special equipment" if equipment == "nothing" else spoken(equipment)
    return Part(
        "conference_room",
        "I need to book a conference room for a meeting.",
        f"book a room in {name} for {attendees} people on {say_date(day)}",
        ["a room is booked and the calendar invite is sent"],
        [f"The building is {name}.", f"The meeting is on {say_date(day)}, {say_time(begin)} to {say_time(end)}, "
         f"{attendees} attendees.", f"You need {wanted}.", "Accept the room the agent offers."],
        {"building_name": name, "meeting_date": say_date(day), "start_time": say_time(begin),
         "end_time": say_time(end), "attendee_count": str(attendees), "required_equipment": spoken(equipment)},
        flow="Free rooms checked for size, time and equipment; the first one booked; calendar invite sent.",
    )  # fmt: skip
