"""A cell's conversations in worker processes (``workers=N``) give exactly the records of one process."""

from __future__ import annotations

from pathlib import Path

from evalkit.cell import plan_cell, run_cell_conversations
from evalkit.config.schema import cell_key, validate_config
from tests.test_config import composed
from tests.test_launch_equivalence import _compare_module

_strip = _compare_module()._strip  # the record checker's own rule for timing fields (scripts/compare_records.py)


def _records(tmp_path: Path, workers: int) -> list[dict]:
    config = validate_config(
        composed(
            "domain.scenarios=[AL-005]",
            "trials=2",
            "progress=false",
            "metrics=[task_completion,user_wer]",
            "+perturb=noise_cafe",
            f"workers={workers}",
        )
    )
    records = run_cell_conversations(plan_cell(config), tmp_path / f"w{workers}", log_audio=False)
    return [_strip(r.model_dump(mode="json")) for r in records]


def test_two_workers_give_the_records_of_one(tmp_path: Path) -> None:
    one, two = _records(tmp_path, 1), _records(tmp_path, 2)
    # plan order, whatever finished first
    assert [(r["conversation"]["scenario_id"], r["conversation"]["trial"]) for r in two] == [
        ("AL-005", 0),
        ("AL-005", 1),
    ]
    assert one == two
    assert any(t["heard_text"] for r in two for t in r["conversation"]["turns"])  # the agent really listened


def test_workers_is_not_part_of_the_cell_identity() -> None:
    base = validate_config(composed())
    assert cell_key(base) == cell_key(validate_config(composed("workers=2")))
