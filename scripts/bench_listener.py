"""What the listener ASR of the agent's speech (the speech-fidelity proxy's transcripts, issue 28.2) costs a cell.

Usage: python scripts/bench_listener.py [--domain airline_sample] [--trials 1] [overrides ...]

Runs one cell's conversations (the default config: Piper voices, the short-window ear) three ways, in one process,
after a warm-up conversation that loads every model: without the listener (no metric needs the agent's audio
transcribed), with it running behind the next conversation in a thread (the default), and with it in line after
each call (as before issue 28). Every cache is off (TTS, transcripts), so each way synthesises and decodes
everything. Prints each way's wall seconds and the listener's share: (with - without) / with. The wall time is the
conversation stage's (calls + listener; scoring, audio rendering and MLflow logging excluded): a cell's whole wall
time is longer, so the share printed is an upper bound of the share of a cell. Load average printed beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from evalkit.cell import plan_cell  # noqa: E402
from evalkit.cell.run import ConversationRunner  # noqa: E402
from evalkit.config.schema import RunConfig, validate_config  # noqa: E402

WITH = "[task_completion,eva_a_proxy]"  # eva_a_proxy needs the agent's audio transcribed (the listener)
WITHOUT = "[task_completion]"


def config(metrics: str, overrides: list[str]) -> RunConfig:
    """The default config with these metrics, validation off (its judge gates are not the listener) and every cache
    off (each way pays for all its synthesis and decoding)."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[f"metrics={metrics}", "validation.enabled=false", *overrides])
    raw: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    raw.pop("hydra", None)
    raw["agent"]["asr"]["cache_dir"] = None
    raw["agent"]["tts"]["cache_dir"] = None
    raw["voice"]["cache_dir"] = None
    return validate_config(raw)


def timed(cfg: RunConfig, behind: bool | None) -> tuple[float, float, int]:
    """(wall seconds, listener ASR seconds, conversations) of the cell's conversations; ``behind`` None: no
    listener, else the listener behind the next call (True) or in line (False)."""
    plan = plan_cell(cfg)
    runner = ConversationRunner(cfg)
    if behind is not None:
        assert runner.listener is not None, "the metrics should need the agent's audio transcribed"
        runner.listen_behind = behind
    jobs = [(s, t) for s in plan.scenarios for t in range(plan.trials)]
    start = time.perf_counter()
    results = list(runner.run_all(jobs))
    return time.perf_counter() - start, sum(r.asr_s for r in results), len(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="airline_sample")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides (e.g. voice=neutral agent.tts.kind=espeak)")
    args = parser.parse_args()
    overrides = [f"domain={args.domain}", f"trials={args.trials}", "progress=false", *args.overrides]
    warm = config(WITH, [*overrides, "domain.limit=1", "simulator.max_user_turns=2"])
    timed(warm, True)  # loads Whisper, the Piper voice and eSpeak once for the three ways
    print(f"cell: {' '.join(overrides)}; load average before: {os.getloadavg()[0]:.2f}")
    without, _, n = timed(config(WITHOUT, overrides), None)
    behind, asr_behind, _ = timed(config(WITH, overrides), True)
    inline, asr_inline, _ = timed(config(WITH, overrides), False)
    print(f"{n} conversations; load average after: {os.getloadavg()[0]:.2f}")
    print(f"{'way':<28} {'wall s':>8} {'listener ASR s':>15} {'listener share':>15}")
    print(f"{'without the listener':<28} {without:>8.1f} {'-':>15} {'-':>15}")
    ways = (("listener behind next call", behind, asr_behind), ("listener in line", inline, asr_inline))
    for name, wall, asr in ways:
        print(f"{name:<28} {wall:>8.1f} {asr:>15.1f} {(wall - without) / wall:>14.1%}")


if __name__ == "__main__":
    main()
