"""``python -m evalkit.scenarios text-run``: text-mode task completion per domain, each failure with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.domains.scenarios import scenario_dir
from evalkit.scenario_tools.__main__ import main as scenarios_cli
from evalkit.scenario_tools.text_run import text_run


def test_own_scenarios_complete_and_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    assert scenarios_cli(["text-run", "airline", "--limit", "3"]) == 0
    assert "airline: 3/3 tasks completed in text mode (100%), 0 errors" in capsys.readouterr().out


def test_a_broken_expected_db_is_a_failure_with_its_difference(tmp_path: Path) -> None:
    source = sorted(scenario_dir("airline").glob("*.json"))[0]
    record = json.loads(source.read_text())
    record["expected_scenario_db"]["planted_table"] = {"x": 1}
    folder = tmp_path / "airline"  # a broken file counts under its folder's name: an import's <out>/<domain>/
    folder.mkdir()
    (folder / source.name).write_text(json.dumps(record))
    (folder / "broken.json").write_text("{not json")
    [report] = text_run(tmp_path)
    assert (report.completed, report.errors, len(report.outcomes)) == (0, 1, 2)
    failed = next(o for o in report.outcomes if o.completed is False)
    assert "planted_table" in failed.detail


def test_nothing_to_run_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert scenarios_cli(["text-run", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
