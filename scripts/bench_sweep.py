"""Sweep throughput on this machine: cells per minute sequential, through joblib(2) and with workers=2 inside each
cell, and the Hydra + MLflow overhead per cell beyond the conversations themselves, measured in one run.

    python scripts/bench_sweep.py [--cells 4] [--trials 2] [--scenario AL-005] [--modes sequential,joblib(2)]
                                  [--cached]

Transcripts are decoded for real (``agent.asr.cache_dir=null``): a warm transcript cache would leave the decoder,
the work the cores are shared for, out of the comparison; ``--cached`` keeps the default cache.

Each mode runs the same sweep (``--cells`` seeds of one scenario x ``--trials`` trials, twins and reuse off) in a
fresh folder with its own SQLite store. The overhead per cell is read from the store: a cell's run time minus its
``wall_s`` (the conversations), plus the gap between one cell's end and the next one's start (Hydra composing and
launching the job), averaged over the sequential sweep's cells.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlflow.tracking import MlflowClient

REPO = Path(__file__).resolve().parents[1]


def sweep(folder: Path, cells: int, trials: int, scenario: str, *extra: str) -> float:
    """Wall seconds of one sweep of ``cells`` seeds in ``folder`` (its own store)."""
    seeds = ",".join(str(s) for s in range(cells))
    command = [
        sys.executable,
        "-m",
        "evalkit",
        "+experiment=smoke",
        f"domain.scenarios=[{scenario}]",
        f"trials={trials}",
        f"seed={seeds}",
        "twins=false",
        "reuse=false",
        "progress=false",
        *extra,
        "-m",
    ]
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    run = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"sweep {' '.join(extra) or 'sequential'} failed:\n{run.stderr[-2000:]}")
    return wall


def cell_runs(folder: Path) -> list:
    client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("evalkit")
    runs = client.search_runs([experiment.experiment_id], "tags.`evalkit.kind` = 'cell'")
    return sorted(runs, key=lambda r: r.info.start_time)


def overhead_per_cell(folder: Path) -> tuple[float, float]:
    """(seconds per cell inside the run beyond its conversations, seconds between consecutive cells)."""
    runs = cell_runs(folder)
    inside = [(r.info.end_time - r.info.start_time) / 1000.0 - r.data.metrics["wall_s"] for r in runs]
    gaps = [(b.info.start_time - a.info.end_time) / 1000.0 for a, b in itertools.pairwise(runs)]
    return sum(inside) / len(inside), (sum(gaps) / len(gaps) if gaps else float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=4)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--scenario", default="AL-005")
    parser.add_argument("--modes", default="sequential,joblib(2),workers=2", help="comma-separated, in this order")
    parser.add_argument("--cached", action="store_true", help="keep the transcript cache (default: decode)")
    args = parser.parse_args()
    modes = {
        "sequential": (),
        "joblib(2)": ("hydra/launcher=joblib", "hydra.launcher.n_jobs=2"),
        "workers=2": ("workers=2",),
    }
    modes = {name: modes[name] for name in args.modes.split(",")}
    cache = () if args.cached else ("agent.asr.cache_dir=null",)
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-sweep-") as tmp:
        for name, extra in modes.items():
            folder = Path(tmp) / name.replace("(", "_").replace(")", "").replace("=", "_")
            folder.mkdir()
            wall = sweep(folder, args.cells, args.trials, args.scenario, *cache, *extra)
            results[name] = args.cells / (wall / 60.0)
            print(
                f"{name:>11}: {args.cells} cells x {args.trials} conversations in {wall:6.1f} s = "
                f"{results[name]:5.2f} cells/min",
                flush=True,
            )
            if name == "sequential":
                inside, between = overhead_per_cell(folder)
        if "sequential" not in results:
            return
        ratios = ", ".join(f"{n} {r / results['sequential']:.2f}x" for n, r in results.items() if n != "sequential")
        if ratios:
            print(f"speed-up vs sequential: {ratios} (target >= 1.7x on 2 cores)")
        print(
            f"Hydra + MLflow overhead per cell (sequential): {inside:.2f} s inside the run (params, artifacts, "
            f"audio upload) + {between:.2f} s between cells (job composition and launch) = {inside + between:.2f} s "
            "(target <= 0.1 s)"
        )


if __name__ == "__main__":
    main()
