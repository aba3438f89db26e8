"""What a cell says about the App. D.1 validation gates it cannot run."""

from __future__ import annotations

import pytest

from evalkit.config.schema import validate_config
from tests.test_config import composed


def test_a_scripted_caller_cell_does_not_announce_the_llm_gates_it_never_needs(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from evalkit.cell import plan_cell, run_cell_conversations

    config = validate_config(
        composed(
            "domain.scenarios=[AL-005]", "trials=1", "progress=false", "modality=text", "metrics=[task_completion]"
        )
    )
    with caplog.at_level(logging.INFO, logger="evalkit"):
        records = run_cell_conversations(plan_cell(config), tmp_path, log_audio=False)
    assert records and records[0].conversation.turns
    assert not [r for r in caplog.records if "LLM-judge gates" in r.getMessage()]
