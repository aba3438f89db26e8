"""Per-turn latency of ``agent=openai_realtime`` against the offline Realtime test server, in one run.

    PYTHONPATH=. python scripts/bench_openai_realtime.py [--scenario AL-002] [--turn-detection server_vad none]

Starts the Realtime-protocol server of the tests (tests/realtime_server.py: the embedded cascade behind the
protocol, its tool calls sent out as function calls) on 127.0.0.1 and runs the same cell once per turn-detection
mode (a fixed caller: persona variation off). Prints, per mode, the answered turns, the caller's wait from the end
of its turn to the agent's first audio on the call's clock (mean, median, min, max), the server's own time from a
response's start to its first audio delta, the call's length and task completion. Calls run in real time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evalkit.cell import run_cell  # noqa: E402
from evalkit.config.schema import validate_config  # noqa: E402
from evalkit.tracking.store import resolve_target  # noqa: E402
from tests.realtime_server import RealtimeTestServer  # noqa: E402
from tests.test_config import composed  # noqa: E402


def measure(server: RealtimeTestServer, mode: str, scenario: str, folder: Path) -> dict[str, float]:
    raw = composed(
        *server.overrides(None, f"agent.turn_detection={mode}"),
        f"domain.scenarios=[{scenario}]",
        "trials=1",
        "validation.enabled=false",
        "persona.variation.enabled=false",
        "progress=false",
        "metrics=[task_completion,response_latency]",
        f"mlflow.tracking_uri=sqlite:///{folder / 'mlflow.db'}",
        "mlflow.log_audio=false",
    )
    config = validate_config(raw)
    server.first_audio_ms.clear()
    result = run_cell(config, resolve_target(config.mlflow.tracking_uri, "bench", None, folder), folder / mode)
    record = json.loads(next((folder / mode / "records").glob("*.json")).read_text())
    turns = record["conversation"]["turns"]
    waits = [
        b["start_ms"] - a["end_ms"]
        for a, b in itertools.pairwise(turns)
        if (a["role"], b["role"]) == ("user", "assistant")
    ]
    first_audio = server.first_audio_ms[1:]  # the greeting answers no caller turn
    return {
        "turns": float(len(waits)),
        "mean_ms": statistics.fmean(waits),
        "median_ms": statistics.median(waits),
        "min_ms": min(waits),
        "max_ms": max(waits),
        "server_first_audio_ms": statistics.fmean(first_audio) if first_audio else float("nan"),
        "call_s": turns[-1]["end_ms"] / 1000.0,
        "task_completion": result.aggregates["task_completion_mean"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="AL-002")
    parser.add_argument("--turn-detection", nargs="+", default=["server_vad", "none"], choices=["server_vad", "none"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, RealtimeTestServer() as server:
        rows = {mode: measure(server, mode, args.scenario, Path(tmp)) for mode in args.turn_detection}
    print(f"{'turn detection':<15} turns  mean  median   min   max  server→audio  call  task")
    for mode, r in rows.items():
        print(
            f"{mode:<15} {r['turns']:5.0f} {r['mean_ms']:5.0f} {r['median_ms']:7.0f} {r['min_ms']:5.0f}"
            f" {r['max_ms']:5.0f} {r['server_first_audio_ms']:12.0f} {r['call_s']:5.0f} {r['task_completion']:5.2f}"
        )


if __name__ == "__main__":
    main()
