"""What the LLM caller (``simulator=llm``) and the remote caller voice (``voice=openai_tts``) cost, and what their
caches save, on one machine, in one run, offline.

    PYTHONPATH=. python scripts/bench_llm_caller.py [--scenario AL-002] [--trials 2]

Starts the offline OpenAI-compatible server of the tests (tests/openai_voice_server.py: its caller policy replays
evalkit's scripted simulator from each chat request's history; its speech route is eSpeak NG) on 127.0.0.1 and runs
the same cell (agent ``cascade_local``) five times: the scripted caller with the eSpeak voice (the reference), the
LLM caller (cold cache, then again from the cache), and the scripted caller with the remote voice (cold, then
cached). A warm-up cell runs first (not reported). Prints per cell the wall time and its ratio to the reference, task
completion, the cache hits, the requests the server answered with its time per request, and the client's time per
request (the round trip the caller waits: ``client.chat`` / ``client.speech_bytes`` timed in this process). The
agent's Whisper dominates a cell and moves with the machine's load, so compare the per-request times; the wall
ratios only show that the caller's side is not where the time goes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evalkit.cell import run_cell  # noqa: E402
from evalkit.config.schema import validate_config  # noqa: E402
from evalkit.tracking.store import resolve_target  # noqa: E402
from evalkit.wire.openai_http import client  # noqa: E402
from tests.openai_voice_server import VoiceAgentServer  # noqa: E402
from tests.test_config import composed  # noqa: E402

CLIENT_MS: dict[str, list[float]] = {"chat": [], "speech": []}


def _timed(function, route: str):
    def call(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            CLIENT_MS[route].append(1000 * (time.perf_counter() - started))

    return call


def measure(name: str, overrides: list[str], server: VoiceAgentServer, args: argparse.Namespace, folder: Path) -> dict:
    raw = composed(
        *overrides,
        f"domain.scenarios=[{args.scenario}]",
        f"trials={args.trials}",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion]",
        f"mlflow.tracking_uri=sqlite:///{folder / (name + '.db')}",
        "mlflow.log_audio=false",
        f"simulator.cache_dir={folder / 'sim_cache'}" if "simulator=llm" in overrides else "seed=0",
        f"voice.cache_dir={folder / 'tts_cache'}" if "voice=openai_tts" in overrides else "seed=0",
    )
    config = validate_config(raw)
    before = {route: (s.requests, s.seconds) for route, s in server.state.stats.items()}
    for times in CLIENT_MS.values():
        times.clear()
    started = time.perf_counter()
    result = run_cell(config, resolve_target(config.mlflow.tracking_uri, "bench", None, folder), folder / name)
    wall = time.perf_counter() - started
    served = {}
    for route, stats in server.state.stats.items():
        n0, s0 = before.get(route, (0, 0.0))
        if stats.requests > n0:
            served[route] = (stats.requests - n0, 1000 * (stats.seconds - s0) / (stats.requests - n0))
    a = result.aggregates
    hits = a.get("simulator_cache_hits", 0.0) + a.get("voice_cache_hits", 0.0)
    client_ms = {route: sum(t) / len(t) for route, t in CLIENT_MS.items() if t}
    return {"wall_s": wall, "tc": a["task_completion_mean"], "served": served, "hits": hits, "client": client_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="AL-002")
    parser.add_argument("--trials", type=int, default=2)
    args = parser.parse_args()
    client.chat = _timed(client.chat, "chat")
    client.speech_bytes = _timed(client.speech_bytes, "speech")
    with tempfile.TemporaryDirectory() as tmp, VoiceAgentServer() as server:
        folder = Path(tmp)
        measure("warmup", [], server, args, folder)
        cells = {
            "scripted+espeak": [],
            "llm+espeak (cold)": server.simulator_overrides(),
            "llm+espeak (cached)": server.simulator_overrides(),
            "scripted+openai_tts (cold)": server.voice_overrides(),
            "scripted+openai_tts (cached)": server.voice_overrides(),
        }
        rows = {}
        for n, (name, overrides) in enumerate(cells.items()):
            rows[name] = measure(f"cell{n}", overrides, server, args, folder)
    reference = rows["scripted+espeak"]["wall_s"]
    print(f"{args.scenario}, {args.trials} trial(s), agent cascade_local")
    print(f"{'cell':30} {'wall s':>7} {'ratio':>6} {'tc':>5} {'hits':>5}  requests: n x server ms, client ms")
    for name, row in rows.items():
        served = ", ".join(
            f"{route} {n} x {ms:.1f} ms, {row['client'][route]:.1f} ms" for route, (n, ms) in row["served"].items()
        )
        print(
            f"{name:30} {row['wall_s']:7.1f} {row['wall_s'] / reference:6.2f} {row['tc']:5.2f} {row['hits']:5.0f}  "
            f"{served or 'none'}"
        )


if __name__ == "__main__":
    main()
