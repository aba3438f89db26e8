"""Small records in EVA-Bench's published layout (ServiceNow/eva ``data/<domain>_dataset.json`` + one initial DB per
record in ``data/<domain>_scenarios/<id>.json``), with invented values: evalkit's own fixtures, not EVA-Bench's data.

The medical_hr record authenticates a provider with evalkit's ``verify_provider_auth`` (the one ground-truth call its
trace holds), so its expected DB is what replaying that call through evalkit's tools gives.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from evalkit.scenario_tools.eva_record import DB_LAYOUTS

NPI, FACILITY, PIN, EMPLOYEE = "1234567893", "KQF-22B", "8080", "EMP700001"

TREE = {
    "must_have_criteria": ["Your dependent is added and you get a confirmation."],
    "nice_to_have_criteria": [],
    "negotiation_behavior": [
        "1. Give your NPI, facility code and PIN when the agent asks for them.",
        "2. Give your dependent's details exactly as listed in information_required.",
    ],
    "resolution_condition": "The agent confirms the change. End the call.",
    "failure_condition": "No progress for 3 turns: say goodbye and end the call.",
    "escalation_behavior": "Do not ask for a supervisor.",
    "edge_cases": ["If asked whether there is anything else, say no."],
}

HR_DB: dict[str, Any] = {
    "_current_date": "2031-02-03",
    "employees": {
        EMPLOYEE: {
            "employee_id": EMPLOYEE,
            "first_name": "<FIRST_NAME>",
            "last_name": "<LAST_NAME>",
            "email": "<FIRST_NAME_ROMANIZED>.<LAST_NAME_ROMANIZED>@example.org",
            "date_of_birth": "1980-01-02",
        },
        "EMP700002": {"employee_id": "EMP700002", "first_name": "Bertrand", "last_name": "Oyelaran"},
    },
    "providers": {NPI: {"npi": NPI, "facility_code": FACILITY, "pin": PIN, "employee_id": EMPLOYEE}},
    "shifts": {},
    "appointment_availability": {},
    "department_blackout_dates": {},
    "unit_cert_requirements": {},
    "notifications": [],
    "org_holidays": [],
}


def hr_record(record_id: str = "9.1") -> dict[str, Any]:
    """A medical_hr record: the caller, a dependent and a colleague each have a name or an ID of their own."""
    expected = copy.deepcopy(HR_DB) | {
        "session": {"provider_auth": True, "authenticated_npi": NPI, "authenticated_employee_id": EMPLOYEE}
    }
    auth = {"npi": NPI, "facility_code": FACILITY, "pin": PIN}
    return {
        "id": record_id,
        "current_date_time": "2031-02-03 08:05 EST",
        "user_goal": {
            "high_level_user_goal": "You want to add your daughter as a dependent and swap a shift.",
            "decision_tree": copy.deepcopy(TREE),
            "information_required": {
                "first_name": "<FIRST_NAME>",
                "last_name": "<LAST_NAME>",
                "employee_id": EMPLOYEE,
                "npi": NPI,
                "facility_code": FACILITY,
                "pin": PIN,
                "date_of_birth": "1980-01-02",
                "dependent_first_name": "Ottilie",
                "dependent_last_name": "Brandvold",
                "dependent_date_of_birth": "2019-05-06",
                "colleague_employee_id": "EMP700002",
                "extension_days": 60,
                "privilege_codes": ["ACLS", "BLS"],
            },
        },
        "user_config": {
            "name": "<FIRST_NAME> <LAST_NAME>",
            "gender": "woman",
            "user_persona_id": 3,
            "user_persona": "You speak calmly and in full sentences.",
        },
        "seed_data": {"first_name": "<FIRST_NAME>", "npi": NPI},
        "scenario_context": {
            "premise": "A nurse adds a dependent, then swaps a shift.",
            "category": "double_intent",
            "intents": [
                {"intent": "Add a dependent to benefits", "satisfiable": True},
                {"intent": "Swap a shift with a colleague", "satisfiable": True},
            ],
        },
        "subflow_in_depth": {},
        "ground_truth": {
            "expected_scenario_db": expected,
            "expected_trace": {
                "trace": [
                    {"event_type": "agent_utterance", "utterance": "Hello, how can I help?"},
                    {"event_type": "user_utterance", "utterance": "Hi, I need to add my daughter."},
                    {"event_type": "tool_call", "tool_name": "verify_provider_auth", "params": auth},
                    {
                        "event_type": "tool_response",
                        "tool_name": "verify_provider_auth",
                        "status": "success",
                        "response": {"status": "success", "authenticated": True},
                    },
                ]
            },
        },
        "starting_utterances": {
            "en": "Hi, this is <FIRST_NAME>. I need to add my daughter to my benefits.",
            "fr": "Bonjour, c'est <FIRST_NAME>. Je dois ajouter ma fille à mes avantages.",
            "hi": "नमस्ते, मैं <FIRST_NAME> हूँ।",
        },
        "culture_overrides": {
            "en": {"first_name": "Wilhelmina", "last_name": "Quarrie"},
            "fr": {"first_name": "Solène", "last_name": "Marchetti"},
            "hi": {"first_name": "देविका", "last_name": "राणावत"},
        },
        "romanized_culture_overrides": {
            "en": {"first_name": "Wilhelmina", "last_name": "Quarrie"},
            "fr": {"first_name": "Solene", "last_name": "Marchetti"},
            "hi": {"first_name": "Devika", "last_name": "Ranawat"},
        },
    }


AIRLINE_DB: dict[str, Any] = {
    "_current_date": "2031-04-09",
    "reservations": {
        "QX7PLM": {
            "confirmation_number": "QX7PLM",
            "passengers": [
                {
                    "first_name": "<FIRST_NAME_ROMANIZED>",
                    "last_name": "<LAST_NAME_ROMANIZED>",
                    "phone": "<PHONE>",
                    "travel_companion": "<COMPANION_FIRST_NAME_ROMANIZED>",
                }
            ],
        }
    },
    "journeys": {},
    "disruptions": {},
    "refunds": {},
    "travel_credits": {},
    "meal_vouchers": {},
}


def airline_record(record_id: str = "8.1.1") -> dict[str, Any]:
    """An airline record with prose labels, a phone and a nested (companion) culture override."""
    return {
        "id": record_id,
        "current_date_time": "2031-04-09 16:20 PDT",
        "user_goal": {
            "high_level_user_goal": "You want to move your flight so you travel with your husband.",
            "decision_tree": copy.deepcopy(TREE),
            "information_required": {
                "Passenger last name": "<LAST_NAME>",
                "Booking confirmation number": "QX7PLM",
                "Husband's name": "<COMPANION_FIRST_NAME> <LAST_NAME>",
                "Phone number (if requested for contact)": "<PHONE>",
                "seat_preference": {"first_choice": "aisle", "second_choice": "window"},
                "Maximum total rebooking cost": "$95",
            },
        },
        "user_config": {
            "name": "<FIRST_NAME> <LAST_NAME>",
            "gender": "man",
            "user_persona_id": 2,
            "user_persona": "You are brief.",
        },
        "expected_flow": "Passenger moves to the flight the husband is on.",
        "scenario_context": {"premise": "<FIRST_NAME> travels with <COMPANION_FIRST_NAME>.", "user_priorities": []},
        "ground_truth": {
            "expected_scenario_db": copy.deepcopy(AIRLINE_DB) | {"session": {}},
            "expected_trace": {
                "trace": [
                    {
                        "event_type": "tool_call",
                        "tool_name": "get_reservation",
                        "params": {"confirmation_number": "QX7PLM", "last_name": "<LAST_NAME_ROMANIZED>"},
                    }
                ]
            },
        },
        "starting_utterances": {"en": "Hi, I need to change my flight to travel with <COMPANION_FIRST_NAME>."},
        "culture_overrides": {
            "en": {
                "first_name": "Rosalind",
                "last_name": "Achterberg",
                "phone": "+1-555-0100",
                "companion": {"first_name": "Teodor"},
            }
        },
        "romanized_culture_overrides": {
            "en": {"first_name": "Rosalind", "last_name": "Achterberg", "companion": {"first_name": "Teodor"}}
        },
    }


ITSM_TABLES = [t for t in DB_LAYOUTS["itsm"] if t != "_current_date"] + ["session"]
HARBOR = {
    "name": "Harbor Point",
    "translatable": True,
    "base": ["harbor point"],
    "translations": {"fr": ["pointe du port"]},
}


def itsm_record(record_id: str = "501") -> tuple[dict[str, Any], dict[str, Any]]:
    """An ITSM record whose goal names a location by its alias (``<LOC:Harbor Point>``), and its initial DB."""
    db: dict[str, Any] = {"_current_date": "2031-06-01"} | {t: {} for t in ITSM_TABLES}
    db["facilities"] = {"HP1": {"building_code": "HP1", "name": "Harbor Point"}}
    db["employees"] = {"EMP123456": {"employee_id": "EMP123456", "first_name": "<FIRST_NAME>"}}
    record = {
        "id": record_id,
        "current_date_time": "2031-06-01 11:00 EST",
        "user_goal": {
            "high_level_user_goal": "You need a desk at <LOC:Harbor Point>.",
            "decision_tree": copy.deepcopy(TREE),
            "information_required": {
                "first_name": "<FIRST_NAME>",
                "employee_id": "EMP123456",
                "building_name": "<LOC:Harbor Point>",
            },
        },
        "user_config": {"name": "<FIRST_NAME> <LAST_NAME>", "gender": "man", "user_persona": "You are patient."},
        "scenario_context": {"category": "single_intent", "intents": [{"intent": "Get a desk"}]},
        "ground_truth": {"expected_scenario_db": copy.deepcopy(db), "expected_trace": {"trace": []}},
        "starting_utterances": {
            "en": "I need a desk at <LOC:Harbor Point>.",
            "fr": "Il me faut un bureau à <LOC:Harbor Point>.",
        },
        "culture_overrides": {
            "en": {"first_name": "Anselm", "last_name": "Ferreira"},
            "fr": {"first_name": "Anselme", "last_name": "Ferrand"},
        },
        "romanized_culture_overrides": {},
    }
    return record, db


def write_checkout(root: Path, datasets: dict[str, list[tuple[Any, Any]]], aliases: bool = True) -> Path:
    """``root/data/<domain>_dataset.json`` with one initial DB per record (a record id of None writes no DB), plus
    an ITSM alias store; returns ``root``."""
    data = root / "data"
    for domain, entries in datasets.items():
        (data / f"{domain}_scenarios").mkdir(parents=True, exist_ok=True)
        for record, db in entries:
            if isinstance(record, dict) and record.get("id") is not None and db is not None:
                (data / f"{domain}_scenarios" / f"{record['id']}.json").write_text(json.dumps(db, ensure_ascii=False))
        (data / f"{domain}_dataset.json").write_text(json.dumps([r for r, _ in entries], ensure_ascii=False))
    if aliases:
        (data / "itsm_aliases").mkdir(parents=True, exist_ok=True)
        (data / "itsm_aliases" / "harbor_point.json").write_text(json.dumps(HARBOR))
    return root
