"""Seeded draws for the generated scenarios AL-006..050: name, route and code tables, one scenario's ``Draw`` and
the ``spec`` every category builder fills in.
"""

from __future__ import annotations

import random
from typing import Any

from evalkit.domains.airline.generate.records import (
    Calls,
    carry_meal,
    credit,
    journey,
    persona,
    rebook,
    rules,
    scenario,
    seat,
)
from evalkit.domains.airline.policy import elite_waives

FIRST_NAMES = (
    ("Kenji", "male"),
    ("Aisha", "female"),
    ("Mateo", "male"),
    ("Ingrid", "female"),
    ("Tomasz", "male"),
    ("Nkechi", "female"),
    ("Rafael", "male"),
    ("Siobhan", "female"),
    ("Dmitri", "male"),
    ("Leilani", "female"),
    ("Arjun", "male"),
    ("Yuki", "female"),
    ("Olusegun", "male"),
    ("Margarethe", "female"),
    ("Bao", "male"),
)
LAST_NAMES = (
    "Thompson",
    "Nakamura",
    "Oyelaran",
    "Wojcik",
    "Fitzgerald",
    "Castellanos",
    "Lindqvist",
    "Abernathy",
    "Kowalczyk",
    "Papadopoulos",
    "Nguyen",
    "Szymanski",
    "Haddad",
    "Mbeki",
    "Vandermeer",
    "Quintero",
)
ROUTES = (
    ("LAX", "SFO"),
    ("ORD", "DEN"),
    ("JFK", "BOS"),
    ("SEA", "PHX"),
    ("ATL", "MIA"),
    ("DFW", "IAH"),
    ("DEN", "SLC"),
    ("BOS", "DCA"),
    ("SFO", "SEA"),
    ("MSP", "ORD"),
    ("PHX", "LAS"),
    ("IAD", "CLT"),
)
CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I/O/0/1, as real record locators
FARES = {"basic_economy": 159, "main_cabin": 249, "premium_economy": 489, "business": 899, "first": 1290}


class Draw:
    """One scenario's random choices, from a stream seeded by its id (so scenarios are independent)."""

    def __init__(self, sid: str) -> None:
        rng = random.Random(f"evalkit-airline-{sid}")
        self.sid = sid
        while True:
            code = "".join(rng.choice(CODE_CHARS) for _ in range(6))
            if any(c.isdigit() for c in code) and sum(c.isalpha() for c in code) >= 3:
                break
        self.code = code
        self.first, self.gender = rng.choice(FIRST_NAMES)
        self.last = rng.choice(LAST_NAMES)
        self.origin, self.destination = rng.choice(ROUTES)
        self._numbers = iter(f"SK{n}" for n in rng.sample(range(102, 989), 12))

    def flight(self) -> str:
        return next(self._numbers)

    def journey(
        self,
        date: str,
        dep: str,
        arr: str,
        fare_class: str,
        seats: int = 9,
        fare: int | None = None,
        origin: str | None = None,
        destination: str | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        fares = {fare_class: FARES[fare_class] if fare is None else fare}
        return journey(
            [self.flight()],
            origin or self.origin,
            destination or self.destination,
            date,
            dep,
            arr,
            fares,
            {fare_class: seats},
            **kw,
        )

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    def answers(self, **more: str) -> dict[str, str]:
        return {"confirmation_number": self.code, "last_name": self.last, "first_name": self.first, **more}

    def entities(self, **more: str) -> dict[str, str]:
        return {"confirmation_number": self.code, "last_name": self.last, **more}


def spoken(j: dict[str, Any]) -> str:
    hour, minute = (int(x) for x in j["departure"].split(":"))
    clock = f"{hour % 12 or 12}" + (f":{minute:02d}" if minute else "") + (" PM" if hour >= 12 else " AM")
    return f"{j['flights'][0]} at {clock}"


def spec(
    d: Draw, workflow: str, kind: str, db: dict[str, Any], *, tree: list[str], edge: tuple[str, ...] = (), **fields: Any
) -> dict[str, Any]:
    """A drawn scenario's plan: ``scenario(...)`` with the draw's id and persona, the standard first rule before
    ``tree``, and an edge-case list (empty by default); ``fields`` are ``scenario``'s other keywords."""
    first = "Give the confirmation number and last name when asked; correct any mismatch in the read-back."
    return scenario(
        d.sid, workflow, kind, persona(d.name, d.gender), db, tree=rules(first, *tree), edge=list(edge), **fields
    )


def change_calls(
    d: Draw,
    old: dict[str, Any],
    new: dict[str, Any],
    kind: str,
    pref: str,
    paid: int,
    fare_class: str,
    meal_request: str | None = None,
    *,
    elite: str = "none",
) -> Calls:
    """rebook, a downgrade's credit, the seat, the meal request carried over: the policy's order."""
    calls = rebook(d.code, old, new, kind, waive=elite_waives(kind, elite))
    difference = new["fares"][fare_class] - paid
    if kind in ("voluntary", "same_day") and difference < 0:
        calls += credit(d.code, float(-difference), "fare_difference_negative")
    calls += seat(d.code, new, pref)
    if meal_request:
        calls += carry_meal(d.code, new, meal_request)
    return calls
