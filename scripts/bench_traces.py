"""What writing conversations as MLflow traces costs a cell (issue 17, point 5).

Takes a finished cell folder (``records/*.json`` and ``aggregates.json``), writes its conversations as traces into a
fresh SQLite store ``--repeats`` times (a new run each time, as a cell does) and reports milliseconds per
conversation beside the cell's own wall time per conversation, measured in the same run of this script.

    python -m evalkit trials=1 hydra.run.dir=/tmp/cell          # any cell
    python scripts/bench_traces.py /tmp/cell [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from mlflow.tracking import MlflowClient

from evalkit.cell.log import conversation_traces
from evalkit.records import ConversationRecord
from evalkit.tracking.traces import log_traces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cell", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    records = [ConversationRecord.model_validate_json(p.read_text()) for p in sorted(args.cell.glob("records/*.json"))]
    if not records:
        raise SystemExit(f"no records in {args.cell}/records")
    aggregates = json.loads((args.cell / "aggregates.json").read_text())
    uri = f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-traces-')) / 'mlflow.db'}"
    client = MlflowClient(uri)
    experiment_id = client.create_experiment("bench")
    client.create_run(experiment_id)  # the store's first write pays for its set-up, not the first repeat
    per_conversation_ms: list[float] = []
    for _ in range(args.repeats):
        run_id = client.create_run(experiment_id).info.run_id
        started = time.perf_counter()
        specs = conversation_traces(records, time.time() * 1000.0, f"bench-{run_id[:8]}", {}, "file:///bench")
        log_traces(uri, experiment_id, run_id, specs)
        per_conversation_ms.append((time.perf_counter() - started) * 1000.0 / len(records))
    spans = sum(len(r.conversation.turns) + len(r.conversation.tool_calls) + 1 for r in records)
    cell_ms = aggregates["wall_s"] * 1000.0 / len(records)
    median = statistics.median(per_conversation_ms)
    print(f"{len(records)} conversations, {spans / len(records):.0f} spans each; {args.repeats} repeats")
    print(f"traces: median {median:.0f} ms per conversation (min {min(per_conversation_ms):.0f}, "
          f"max {max(per_conversation_ms):.0f})")  # fmt: skip
    print(f"the cell itself: {cell_ms:.0f} ms per conversation (its wall_s) -> traces add {median / cell_ms:.1%}")


if __name__ == "__main__":
    main()
