"""Spoken US state and country names -> the codes EVA-Bench's tools take (``new_state_code``,
``issuing_country_code``, ``dependent_country_of_birth``): callers say "Arizona" or "the Philippines".

Hand-written: no dependency-free library maps spoken names to codes; the tables cover what callers say.
"""

from __future__ import annotations

import re

US_STATES = {
    "alabama": "AL",
    "alaska": "AK",
    "arizona": "AZ",
    "arkansas": "AR",
    "california": "CA",
    "colorado": "CO",
    "connecticut": "CT",
    "delaware": "DE",
    "florida": "FL",
    "georgia": "GA",
    "hawaii": "HI",
    "idaho": "ID",
    "illinois": "IL",
    "indiana": "IN",
    "iowa": "IA",
    "kansas": "KS",
    "kentucky": "KY",
    "louisiana": "LA",
    "maine": "ME",
    "maryland": "MD",
    "massachusetts": "MA",
    "michigan": "MI",
    "minnesota": "MN",
    "mississippi": "MS",
    "missouri": "MO",
    "montana": "MT",
    "nebraska": "NE",
    "nevada": "NV",
    "new hampshire": "NH",
    "new jersey": "NJ",
    "new mexico": "NM",
    "new york": "NY",
    "north carolina": "NC",
    "north dakota": "ND",
    "ohio": "OH",
    "oklahoma": "OK",
    "oregon": "OR",
    "pennsylvania": "PA",
    "rhode island": "RI",
    "south carolina": "SC",
    "south dakota": "SD",
    "tennessee": "TN",
    "texas": "TX",
    "utah": "UT",
    "vermont": "VT",
    "virginia": "VA",
    "washington": "WA",
    "west virginia": "WV",
    "wisconsin": "WI",
    "wyoming": "WY",
}
COUNTRIES = {
    "united states": "US",
    "usa": "US",
    "india": "IN",
    "china": "CN",
    "mexico": "MX",
    "philippines": "PH",
    "nigeria": "NG",
    "canada": "CA",
    "united kingdom": "GB",
    "vietnam": "VN",
    "brazil": "BR",
    "pakistan": "PK",
    "south korea": "KR",
    "korea": "KR",
    "egypt": "EG",
    "france": "FR",
    "germany": "DE",
    "ghana": "GH",
    "kenya": "KE",
    "colombia": "CO",
    "haiti": "HT",
    "jamaica": "JM",
    "poland": "PL",
    "ukraine": "UA",
}

# The names as said, for the agent's ear (``Slot.vocabulary``): "New Hampshire", "USA"
STATE_NAMES = tuple(name.title() for name in US_STATES)
COUNTRY_NAMES = tuple(name.upper() if len(name) <= 3 else name.title() for name in COUNTRIES)
# A code as a caller says it (``Slot.said_as``): "OH" -> "Ohio", "PH" -> "Philippines"; the first name of a code
# ("United States", not "USA") where the table has two
STATES_SAID = tuple((code, name.title()) for name, code in US_STATES.items())
COUNTRIES_SAID = tuple({code: name.title() for name, code in reversed(COUNTRIES.items())}.items())


def _place(value: str) -> str:
    """'The Philippines.' -> 'philippines': callers' words, as ASR writes them, for the name tables."""
    return re.sub(r"[^a-z ]", "", value.lower()).strip().removeprefix("the ").strip()


def state_code(spoken: str) -> str | None:
    """'Arizona' / 'AZ' -> 'AZ'; None when it names no state."""
    code = US_STATES.get(_place(spoken), spoken.strip().rstrip(".").upper())
    return code if code in US_STATES.values() or code in ("DC", "PR") else None


def country_code(spoken: str) -> str | None:
    """'the Philippines' / 'PH' -> 'PH'; None when it names no country we know."""
    code = COUNTRIES.get(_place(spoken), spoken.strip().rstrip(".").upper())
    return code if re.fullmatch(r"[A-Z]{2}", code) else None
