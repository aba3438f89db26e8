"""Per-turn stage times of the three cascade/hybrid agents on one machine, in one run, offline.

    PYTHONPATH=. python scripts/bench_openai_agents.py [--scenario AL-002] [--trials 1]

Starts the offline OpenAI-compatible voice server of the tests (tests/openai_voice_server.py: Whisper tiny.en,
eSpeak NG, the local dialogue policy emitting real tool calls) on 127.0.0.1 and runs the same cell with
``agent=cascade_local`` (in process), ``agent=cascade_openai`` and ``agent=hybrid_openai`` (over HTTP). Prints, per
agent, the mean per answered turn of the records' ``stt_ms``, ``llm_ms``, ``tts_ms`` and ``compute_ms`` (what the
caller waits), the response latency, task completion, and the HTTP cost over the in-process cascade (ratio of
mean compute_ms). Same engines on both sides of the wire, so the ratio is the price of the protocol, not of models.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evalkit.cell import run_cell  # noqa: E402
from evalkit.config.schema import validate_config  # noqa: E402
from evalkit.tracking.store import resolve_target  # noqa: E402
from tests.openai_voice_server import VoiceAgentServer  # noqa: E402
from tests.test_config import composed  # noqa: E402

AGENTS = ("cascade_local", "cascade_openai", "hybrid_openai")
STAGES = ("stt_ms", "llm_ms", "tts_ms", "compute_ms")


def measure(agent: str, server: VoiceAgentServer, scenario: str, trials: int, folder: Path) -> dict[str, float]:
    overrides = ["agent=cascade_local"] if agent == "cascade_local" else server.overrides(agent)
    raw = composed(
        *overrides,
        f"domain.scenarios=[{scenario}]",
        f"trials={trials}",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion,response_latency]",
        f"mlflow.tracking_uri=sqlite:///{folder / 'mlflow.db'}",
        "mlflow.log_audio=false",
    )
    config = validate_config(raw)
    result = run_cell(config, resolve_target(config.mlflow.tracking_uri, "bench", None, folder), folder / agent)
    turns = [
        t
        for path in sorted((folder / agent / "records").glob("*.json"))
        for t in json.loads(path.read_text())["conversation"]["turns"][1:]  # the greeting has no STT or LLM stage
        if t["role"] == "assistant"
    ]
    out = {"turns": float(len(turns))}
    for stage in STAGES:
        values = [t[stage] for t in turns if t.get(stage) is not None]
        out[stage] = sum(values) / len(values) if values else float("nan")
    out["response_latency_s"] = result.aggregates["response_latency_mean"]
    out["task_completion"] = result.aggregates["task_completion_mean"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="AL-002")
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, VoiceAgentServer() as server:
        rows = {agent: measure(agent, server, args.scenario, args.trials, Path(tmp)) for agent in AGENTS}
        served = {r: (s.requests, 1000 * s.seconds / s.requests) for r, s in server.state.stats.items()}
    print(f"{args.scenario}, {args.trials} trial(s): mean per answered assistant turn")
    print(
        f"{'agent':<16}{'turns':>6}{'stt_ms':>9}{'llm_ms':>9}{'tts_ms':>9}{'compute_ms':>12}{'latency_s':>11}{'tc':>5}"
    )
    for agent, row in rows.items():
        print(
            f"{agent:<16}{row['turns']:>6.0f}{row['stt_ms']:>9.1f}{row['llm_ms']:>9.1f}{row['tts_ms']:>9.1f}"
            f"{row['compute_ms']:>12.1f}{row['response_latency_s']:>11.3f}{row['task_completion']:>5.2f}"
        )
    base = rows["cascade_local"]["compute_ms"]
    for agent in AGENTS[1:]:
        print(f"{agent}: compute_ms {rows[agent]['compute_ms'] / base:.2f}x cascade_local's")
    print("server side (all agents): " + ", ".join(f"{r} {n} req, {ms:.1f} ms/req" for r, (n, ms) in served.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
