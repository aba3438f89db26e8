"""`python -m evalkit.scenarios check`: shipped scenarios pass; each kind of broken file is caught and named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalkit.domains.scenarios import scenario_dir
from evalkit.scenario_tools.__main__ import main
from evalkit.scenario_tools.check import check_file
from tests.conftest import REPO

SOURCE = scenario_dir("airline") / "AL-002.json"


def broken_copy(tmp_path: Path, edit: Any, name: str = "AL-002.json") -> Path:
    raw = json.loads(SOURCE.read_text())
    edit(raw)
    path = tmp_path / name
    path.write_text(json.dumps(raw))
    return path


def checks_failed(path: Path) -> set[str]:
    return {problem.check for problem in check_file(path)}


def test_every_shipped_scenario_passes() -> None:
    assert main(["check"]) == 0


def test_cli_reports_and_exits_nonzero_on_a_broken_file(tmp_path: Path) -> None:
    path = broken_copy(tmp_path, lambda raw: raw["key_entities"].update(flight_number="ZZ999"))
    result = subprocess.run(
        [sys.executable, "-m", "evalkit.scenarios", "check", str(path)], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert f"{path}: [key_entities] key entity flight_number='ZZ999'" in result.stdout
    assert "1 scenario files checked: 0 ok, 1 with problems" in result.stdout


def test_hand_edited_expected_db_is_caught(tmp_path: Path) -> None:
    def tamper(raw: dict[str, Any]) -> None:
        reservation = next(iter(raw["expected_scenario_db"]["reservations"].values()))
        reservation["status"] = "cancelled"

    problems = check_file(broken_copy(tmp_path, tamper))
    assert [p.check for p in problems] == ["expected_db"]
    assert "status" in problems[0].message


def test_failing_and_unknown_reference_calls_are_caught(tmp_path: Path) -> None:
    def bad_args(raw: dict[str, Any]) -> None:
        raw["reference_calls"][0]["arguments"]["confirmation_number"] = "NOPE00"

    def unknown_tool(raw: dict[str, Any]) -> None:
        raw["reference_calls"][0]["name"] = "teleport"

    assert checks_failed(broken_copy(tmp_path, bad_args)) == {"reference_path"}
    problems = check_file(broken_copy(tmp_path, unknown_tool))
    assert "unknown tool 'teleport'" in problems[0].message


def test_unanswerable_question_and_duplicate_rules_are_caught(tmp_path: Path) -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["user_goal"]["information_required"]["employee_id"] = "E123"
        raw["user_goal"]["decision_tree"][1]["id"] = raw["user_goal"]["decision_tree"][0]["id"]

    messages = [p.message for p in check_file(broken_copy(tmp_path, edit))]
    assert any("information_required['employee_id'] has no scripted answer" in m for m in messages)
    assert any("decision-rule ids are not unique" in m for m in messages)


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda raw: raw.pop("user_goal"), "user_goal: Field required"),
        (lambda raw: raw.update(type="chitchat"), "type: Input should be"),
        (lambda raw: raw["persona"].update(gender="robot"), "persona.gender"),
    ],
)
def test_schema_errors_name_the_field(tmp_path: Path, edit: Any, fragment: str) -> None:
    problems = check_file(broken_copy(tmp_path, edit))
    assert [p.check for p in problems] == ["schema"]
    assert fragment in problems[0].message


def test_file_name_and_folder_must_match(tmp_path: Path) -> None:
    path = broken_copy(tmp_path, lambda raw: None, name="AL-999.json")
    problems = check_file(path, domain="hr")
    assert {p.message for p in problems} == {
        "id 'AL-002' does not match the file name 'AL-999.json'",
        "domain 'airline' but the file is in the 'hr' folder",
    }


def test_unreadable_json_is_a_schema_problem(tmp_path: Path) -> None:
    path = tmp_path / "AL-002.json"
    path.write_text("{not json")
    assert checks_failed(path) == {"schema"}
