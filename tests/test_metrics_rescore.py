"""`python -m evalkit.rescore`: re-score a finished cell from its stored records, against a real MLflow store."""

from __future__ import annotations

import json
from pathlib import Path

from mlflow.tracking import MlflowClient

from evalkit.metrics import score_conversation
from evalkit.records import Conversation, ConversationRecord, Turn
from evalkit.rescore import main, rescore_run
from evalkit.tracking import CellRun, resolve_target

DB = {"reservations": {"ABC123": {"status": "changed"}}, "session": {"confirmation_number": "ABC123"}}


def _conversation(trial: int, latency_ms: float) -> Conversation:
    turns = [
        Turn(index=0, role="assistant", intended_text="Hello.", start_ms=0, end_ms=1000),
        Turn(index=1, role="user", intended_text="Hi.", heard_text="Hi.", start_ms=1400, end_ms=2000),
        Turn(index=2, role="assistant", intended_text="Sure.", start_ms=2000 + latency_ms, end_ms=3000 + latency_ms),
    ]
    return Conversation(
        scenario_id="S1",
        domain="airline",
        trial=trial,
        seed=trial,
        turns=turns,
        end_reason="agent_end_call",
        initial_db={},
        final_db=DB,
        expected_db=DB,
    )


def test_rescore_writes_a_new_run_from_stored_records(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)
    target = resolve_target(None, "evalkit", None, tmp_path)
    cell_dir = tmp_path / "cell"
    (cell_dir / "records").mkdir(parents=True)
    for trial, latency in ((0, 1000.0), (1, 4000.0)):  # turn-taking 1.0 and 0.0
        conversation = _conversation(trial, latency)
        record = ConversationRecord(
            conversation=conversation, metrics=score_conversation(conversation, ["task_completion"])
        )
        (cell_dir / "records" / f"S1_t{trial}.json").write_text(record.model_dump_json())
    with CellRun.open(target, "a cell", {"cell_key": "k1", "evalkit.kind": "cell"}, None) as run:
        run.log_params({"domain": "airline"})
        run.log_dir(cell_dir)
        source_id = run.run_id

    new_id, aggregates = rescore_run(target, source_id, ["task_completion", "eva_x_proxy"])
    assert aggregates["turn_taking_mean"] == 0.5
    assert aggregates["eva_x_proxy_pass_at_1"] == 0.5 and aggregates["eva_x_proxy_pass_at_k"] == 1.0
    client = MlflowClient(target.tracking_uri)
    new = client.get_run(new_id)
    assert new.data.tags["evalkit.kind"] == "rescore" and new.data.tags["rescored_from"] == source_id
    assert "cell_key" not in new.data.tags  # never taken for a reusable cell
    assert new.data.metrics["task_completion_pass_at_1"] == 1.0 and new.data.params["domain"] == "airline"
    records = client.download_artifacts(new_id, "records", str(tmp_path / "dl"))
    stored = json.loads((tmp_path / "dl" / "records" / "S1_t1.json").read_text())
    assert records and stored["metrics"]["turn_taking"]["score"] == 0.0
    table_path = client.download_artifacts(new_id, "conversations_table.json", str(tmp_path))
    table = json.loads(Path(table_path).read_text())
    assert "eva_x_proxy_pass" in table["columns"]
    assert client.get_run(source_id).data.metrics == {}  # the original run is untouched

    # the CLI: default metrics are the ones the cell used
    assert main([source_id, "--tracking-uri", target.tracking_uri]) == 0
    runs = client.search_runs([new.info.experiment_id], "tags.`evalkit.kind` = 'rescore'")
    assert len(runs) == 2 and any(
        {k for k in r.data.metrics if not k.startswith("latency_")}  # + the latency percentiles, from the records
        == {
            "task_completion_pass_at_1",
            "task_completion_pass_at_k",
            "task_completion_pass_hat_k",
            "task_completion_mean",
            "conversations",
            "infrastructure_errors",
        }
        for r in runs
    )
    assert all(r.data.metrics["latency_response_n"] == 2 for r in runs)  # one answered turn per conversation
