"""Analysis speed: a synthetic experiment of 10,000 logged conversations, read back from MLflow and analysed.

2 agents × 3 domains × (clean + 3 perturbation conditions) cells, logged to a temporary SQLite store through
``evalkit.tracking`` exactly as the runner logs cells (params, tags, aggregates, conversations_table.json).
Prints the MLflow read time apart from the statistics time (target ≤ 10 s for the statistics).

    python scripts/bench_analysis.py [--conversations 10000] [--permutations 10000] [--bootstrap 1000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from evalkit.analysis.compare import Settings
from evalkit.analysis.pipeline import run_analysis
from evalkit.analysis.synthetic import Condition, log_experiment, make_experiment
from evalkit.tracking import resolve_target

CONDITIONS = [
    Condition("noise", perturb="noise_cafe", snr_db="15.0"),
    Condition("accent", voice="accent_french"),
    Condition("both", voice="accent_french", perturb="noise_cafe", snr_db="15.0"),
]
AGENTS, DOMAINS, K_CLEAN, K_PERTURBED = ["cascade_a", "cascade_b"], ["airline", "hr", "itsm"], 5, 3


def main() -> None:
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--bootstrap", type=int, default=1_000)
    args = parser.parse_args()
    per_scenario = len(AGENTS) * len(DOMAINS) * (K_CLEAN + len(CONDITIONS) * K_PERTURBED)
    n_scenarios = max(1, round(args.conversations / per_scenario))
    effects = {("cascade_a", "noise", "key_entity_accuracy"): -0.1, ("cascade_b", "both", "task_completion"): -0.2}
    cells = make_experiment(AGENTS, DOMAINS, CONDITIONS, n_scenarios, K_CLEAN, K_PERTURBED, effects, seed=1)
    n_conv = sum(len(c.scenarios) for c in cells)
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        root = Path(tmp)
        target = resolve_target(f"sqlite:///{root / 'mlflow.db'}", "bench", None, root)
        started = time.perf_counter()
        log_experiment(target, cells)
        log_s = time.perf_counter() - started
        settings = Settings(n_permutations=args.permutations, n_bootstrap=args.bootstrap)
        started = time.perf_counter()
        outcome = run_analysis(target, root / "out", settings)
        total_s = time.perf_counter() - started
    a = outcome.analysis
    print(f"experiment: {len(cells)} cells, {n_scenarios} scenarios per domain, {n_conv:,} conversations, "
          f"{len(a.metrics)} metrics -> {len(a.rows)} comparisons in {len({r.family for r in a.rows})} families "
          f"({sum(r.significant for r in a.rows)} significant)")  # fmt: skip
    print(f"logging to MLflow (setup, not analysis): {log_s:.1f} s")
    print(f"MLflow read (runs + tables):           {outcome.read_s:.2f} s")
    print(f"statistics ({args.permutations:,} sign flips, {args.bootstrap:,} bootstrap): {outcome.stats_s:.2f} s "
          f"(target <= 10 s)")  # fmt: skip
    print(f"outputs (CSV, report, plots, MLflow analysis run): {outcome.write_s:.2f} s")
    print(f"analysis wall total: {total_s:.2f} s")


if __name__ == "__main__":
    main()
