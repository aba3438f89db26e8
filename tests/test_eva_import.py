"""EVA-Bench's published record layout imports through our schema; malformed records name file, field, reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalkit.scenarios import ScenarioError, load_scenario
from evalkit.scenarios.__main__ import main
from evalkit.scenarios.check import check_file
from evalkit.scenarios.eva_import import import_dataset
from evalkit.scenarios.store import scenario_dir

OURS = json.loads((scenario_dir("airline") / "AL-001.json").read_text())


def eva_record() -> dict[str, Any]:
    """A record in the layout of ServiceNow/eva data/airline_dataset.jsonl (placeholders included)."""
    expected = copy.deepcopy(OURS["expected_scenario_db"])
    expected["session"] = {"confirmation_number": "WK2EXB", "last_name": "<LAST_NAME_ROMANIZED>"}
    return {
        "id": "1.2.1",
        "current_date_time": "2026-06-18 10:50 PST",
        "user_goal": {
            "high_level_user_goal": "You want to move your LAX to SFO flight today to an earlier direct flight.",
            "decision_tree": {
                "must_have_criteria": ["Departs LAX before 2:00 PM.", "Direct.", "Fee under $80."],
                "nice_to_have_criteria": [],
                "negotiation_behavior": ["Give the code and last name when asked.", "Pick the earliest option."],
                "resolution_condition": "The rebooking is confirmed.",
                "failure_condition": "No option: keep the original flight.",
                "escalation_behavior": "Never speak to a live agent.",
                "edge_cases": ["Decline standby."],
            },
            "information_required": {
                "Passenger first name": "<FIRST_NAME>",
                "Passenger last name": "<LAST_NAME>",
                "Booking confirmation number": "WK2EXB",
                "seat_preference": {"first_choice": "window", "second_choice": "aisle"},
            },
        },
        "user_config": {
            "name": "<FIRST_NAME> <LAST_NAME>",
            "gender": "man",
            "user_persona_id": 2,
            "user_persona": "You're direct and to the point.",
        },
        "expected_flow": "Passenger wants an earlier departure on the same date.",
        "ground_truth": {"expected_scenario_db": expected},
        "starting_utterances": {"en": "Can you move me to an earlier flight today?"},
        "culture_overrides": {"en": {"first_name": "Daniel", "last_name": "Brooks"}},
        "romanized_culture_overrides": {"en": {"first_name": "Daniel", "last_name": "Brooks"}},
    }


def write_dataset(tmp_path: Path, records: list[Any]) -> tuple[Path, Path]:
    db_dir = tmp_path / "airline_scenarios"
    db_dir.mkdir()
    for record in records:
        if isinstance(record, dict) and "id" in record:
            (db_dir / f"{record['id']}.json").write_text(json.dumps(OURS["scenario_db"]))
    dataset = tmp_path / "airline_dataset.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return dataset, db_dir


def test_a_published_record_imports_and_passes_the_checker(tmp_path: Path) -> None:
    dataset, db_dir = write_dataset(tmp_path, [eva_record()])
    out = tmp_path / "out"
    assert main(["import-eva", str(dataset), str(db_dir), "--domain", "airline", "--out", str(out)]) == 0
    scenario = load_scenario(out / "1.2.1.json")
    assert scenario.source == "eva_import"
    assert scenario.persona.gender == "male" and scenario.persona.name == "Daniel Brooks"
    answers = scenario.user_goal.scripted.answers
    assert answers["confirmation_number"] == "WK2EXB" and answers["last_name"] == "Brooks"
    assert json.loads(answers["seat_preference"]) == {"first_choice": "window", "second_choice": "aisle"}
    assert scenario.key_entities == {"confirmation_number": "WK2EXB", "last_name": "Brooks", "first_name": "Daniel"}
    assert scenario.expected_scenario_db["session"]["last_name"] == "Brooks"  # romanized placeholder filled
    assert scenario.user_goal.starting_utterance == "Can you move me to an earlier flight today?"
    assert [r.id for r in scenario.user_goal.decision_tree] == [1, 2]
    assert check_file(out / "1.2.1.json", "airline") == []


def test_generated_scenarios_without_a_reference_path_are_rejected(tmp_path: Path) -> None:
    raw = copy.deepcopy(OURS)
    raw["reference_calls"] = []
    path = tmp_path / "AL-001.json"
    path.write_text(json.dumps(raw))
    assert [p.check for p in check_file(path)] == ["reference_path"]


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda r: r["user_goal"]["decision_tree"].pop("negotiation_behavior"), "field user_goal.decision_tree."),
        (lambda r: r.pop("ground_truth"), "field ground_truth.expected_scenario_db: missing"),
        (lambda r: r["user_config"].update(gender="robot"), "field persona.gender"),
        (lambda r: r["user_goal"]["decision_tree"].update(must_have_criteria="fast"), "must_have_criteria"),
    ],
)
def test_malformed_records_name_file_line_and_field(tmp_path: Path, edit: Any, fragment: str) -> None:
    good, bad = eva_record(), eva_record()
    bad["id"] = "1.2.2"
    edit(bad)
    dataset, db_dir = write_dataset(tmp_path, [good, bad])
    with pytest.raises(ScenarioError) as info:
        import_dataset(dataset, db_dir, "airline")
    assert f"{dataset}:2: " in str(info.value) and fragment in str(info.value)


def test_a_missing_initial_db_is_named(tmp_path: Path) -> None:
    dataset, db_dir = write_dataset(tmp_path, [eva_record()])
    (db_dir / "1.2.1.json").unlink()
    with pytest.raises(ScenarioError, match=r"no initial scenario DB .*1\.2\.1\.json"):
        import_dataset(dataset, db_dir, "airline")
