"""Issue 15 point 5, last sentence: with ``simulator=llm`` an imported EVA-Bench record runs as in the paper — the LLM
caller is prompted from the record (its goal, information and persona; App. K) and the cell scores the record's own
end state. The chat model is tests/openai_voice_server.py on 127.0.0.1, whose caller policy replays evalkit's
scripted caller for the scenario the prompt describes (here: found in the imported folder)."""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.cell import run_cell
from evalkit.config.schema import validate_config
from evalkit.scenario_tools.__main__ import main as scenarios_cli
from evalkit.scenarios import load_scenario
from evalkit.tracking.store import resolve_target
from tests.eva_fixtures import AIRLINE_DB, airline_record, write_checkout
from tests.openai_voice_server import VoiceAgentServer
from tests.test_config import composed


def test_an_imported_record_runs_with_the_llm_caller(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "eva", {"airline": [(airline_record(), AIRLINE_DB)]})
    assert scenarios_cli(["import-eva", str(root), "--out", str(tmp_path / "imported")]) == 0
    folder = tmp_path / "imported" / "airline"
    scenario = load_scenario(folder / "8.1.1.json")
    with VoiceAgentServer(scenario_dir=folder) as server:
        config = validate_config(
            composed(
                *server.simulator_overrides(),
                "domain=airline",
                f"domain.scenario_dir={folder}",
                "trials=1",
                "progress=false",
                "modality=text",  # the dialogue, not the ears: the audio path is the same cell with voices
                "infra.max_retries=0",
                "metrics=[task_completion]",
                f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
                f"simulator.cache_dir={tmp_path / 'cache'}",
            )
        )
        target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
        result = run_cell(config, target, tmp_path / "cell")
        requests = server.state.caller_requests
    record = json.loads((tmp_path / "cell" / "records" / "8.1.1_t0.json").read_text())
    conversation = record["conversation"]
    users = [t["intended_text"] for t in conversation["turns"] if t["role"] == "user"]
    assert requests >= len(users) > 2  # every caller turn came from the chat server
    assert users[0] == scenario.user_goal.starting_utterance  # the record's own opening, through the App. K prompt
    # the fixture's reservation has no flights: the agent hands the call over (before a fix it crashed on it)
    assert conversation["end_reason"] == "agent_end_call" and conversation["error"] is None
    assert "transferring you" in conversation["turns"][-1]["intended_text"]
    tc = record["metrics"]["task_completion"]
    assert tc["score"] == 1.0  # scored against the record's expected end state (no write was due)
    assert result.aggregates["task_completion_pass_at_1"] == tc["score"]
