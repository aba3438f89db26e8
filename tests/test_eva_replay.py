"""Issue 15 point 4's command: ``python -m evalkit.scenarios replay PATH`` replays every record's ground-truth tool
calls on its initial DB through evalkit's tools and compares the end state with its expected DB (task completion's
rule), per domain: ``replayed N: equal E, differ D, error X``, and per record the first difference. Fixtures in
EVA-Bench's layout (tests/eva_fixtures.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from evalkit.scenario_tools.__main__ import main
from evalkit.scenario_tools.replay import first_db_difference
from tests.eva_fixtures import EMPLOYEE, HR_DB, hr_record, write_checkout


def eva_checkout(tmp_path: Path) -> Path:
    equal = hr_record("9.1")  # verify_provider_auth: the expected DB is its session
    differ = hr_record("9.2")  # expects a change no call in its trace makes
    differ["ground_truth"]["expected_scenario_db"]["employees"][EMPLOYEE]["dependents"] = ["Ottilie"]
    wrong_call = hr_record("9.3")  # a call evalkit's tool refuses: the session is never opened
    wrong_call["ground_truth"]["expected_trace"]["trace"][2]["params"]["pin"] = "12"
    unknown = hr_record("9.4")
    unknown["ground_truth"]["expected_trace"]["trace"][2]["tool_name"] = "teleport_employee"
    malformed = hr_record("9.5")
    del malformed["user_config"]
    records = [equal, differ, wrong_call, unknown, malformed]
    return write_checkout(tmp_path / "eva", {"medical_hr": [(r, copy.deepcopy(HR_DB)) for r in records]})


def test_replay_counts_and_first_differences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(eva_checkout(tmp_path))]) == 1  # not every record reproduces its expected DB
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "medical_hr: replayed 5: equal 1, differ 2, error 2"
    details = dict(line.strip().split(": ", 1) for line in lines[1:])
    assert sorted(details) == ["9.2", "9.3", "9.4", "9.5"]  # an equal record has no difference to show
    assert details["9.2"].startswith(f'differ: employees.{EMPLOYEE}.dependents: missing expected ["Ottilie"]')
    assert details["9.3"].startswith("differ: session.provider_auth: expected true, got null")
    assert 'first: call 1 verify_provider_auth: error ("invalid_pin_format: Invalid pin ' in details["9.3"]
    assert details["9.3"].endswith("recorded success")
    assert details["9.4"] == "error: call 1: unknown tool 'teleport_employee' in domain medical_hr"
    assert details["9.5"].startswith("error: medical_hr medical_hr_dataset.json[4]: field user_config: missing")


def test_replay_of_an_imported_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["import-eva", str(eva_checkout(tmp_path)), "--out", str(out)]) == 1  # 9.4 and 9.5 do not import
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "medical_hr: replayed 3: equal 1, differ 2, error 0"
    assert main(["replay", str(out / "medical_hr")]) == 1  # one domain's folder


def test_every_record_equal_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_checkout(tmp_path / "eva", {"medical_hr": [(hr_record("9.1"), HR_DB)]})
    assert main(["replay", str(root / "data")]) == 0
    assert capsys.readouterr().out.strip() == "medical_hr: replayed 1: equal 1, differ 0, error 0"


def test_nothing_to_replay_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path)]) == 2
    assert "no EVA-Bench dataset and no scenario files" in capsys.readouterr().err


def test_the_comparison_is_task_completions_rule() -> None:
    expected = {"t": {"a": 1}, "session": {"employee_id": "E1"}}
    assert first_db_difference(expected, {"t": {"a": 1}, "session": {"employee_id": "e1", "extra": 2}}) is None
    assert first_db_difference(expected, {"t": {"a": 2}, "session": {"employee_id": "E1"}}) == (
        "t.a: modified expected 1, actual 2"
    )
