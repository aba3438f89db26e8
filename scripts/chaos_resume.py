"""Kill a real sweep with SIGKILL at random moments, rerun the same command, and check nothing is lost or done twice.

    python scripts/chaos_resume.py [--kills 20] [--seed 0] [--workdir DIR] [-- OVERRIDE ...]

Runs the sweep once uninterrupted (the reference, in ``DIR/reference``), then in ``DIR/chaos`` starts the same
command, SIGKILLs its whole process group at a seeded random moment inside the reference's wall time (after a rerun
that finished on its own: inside that rerun's wall time, since what is left is shorter), reruns it,
``--kills`` times, and finally lets it finish. Prints (issue 16, point 6): kills done, runs marked FAILED/KILLED,
runs left RUNNING (must be 0), FINISHED cell runs per cell key (must be exactly 1), half-written artifacts taken
as done (must be 0), and whether every record equals the uninterrupted run's (scripts/compare_records.py: timing
fields excepted). Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mlflow.tracking import MlflowClient

REPO = Path(__file__).resolve().parent.parent
# Tiny but real: two cells (the café condition and its clean twin), one conversation each, no listener ASR.
DEFAULT_OVERRIDES = (
    "+experiment=smoke",
    "+perturb=noise_cafe",
    "domain.scenarios=[AL-001,AL-005]",
    "trials=1",
    "metrics=[task_completion]",
    "progress=false",
    "-m",
)
CELL_FILES = ("config.yaml", "seeds.json", "aggregates.json", "conversations_table.json")


@dataclass
class ChaosFigures:
    kills: int = 0  # SIGKILLs delivered to a sweep still running
    finished_before_kill: int = 0  # reruns that ended before their kill moment
    killed_mid_cell: int = 0  # kills that left a cell run of that start RUNNING (work lost, to be redone)
    runs_failed: int = 0  # runs in the store with status FAILED or KILLED (killed cells and sweeps)
    runs_left_running: int = 0  # must be 0
    cell_keys: int = 0
    duplicate_keys: list[str] = field(default_factory=list)  # keys with != 1 FINISHED cell run; must be empty
    half_written_taken_as_done: int = 0  # complete runs missing a record or a cell file; must be 0
    final_returncode: int = -1
    identical_to_reference: bool = False
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.runs_left_running == 0
            and not self.duplicate_keys
            and self.half_written_taken_as_done == 0
            and self.final_returncode == 0
            and self.identical_to_reference
        )


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _start(cwd: Path, overrides: list[str]) -> subprocess.Popen[bytes]:
    cwd.mkdir(parents=True, exist_ok=True)
    log = (cwd / "runs.log").open("ab")
    # Its own session, so one killpg reaches every process of the sweep (launcher workers included).
    return subprocess.Popen(
        [sys.executable, "-m", "evalkit", *overrides], cwd=cwd, env=_env(), stdout=log, stderr=log,
        start_new_session=True,
    )  # fmt: skip


def _uri(cwd: Path) -> str:
    return f"sqlite:///{(cwd / 'mlflow.db').resolve()}"


def _runs(cwd: Path) -> list:
    if not (cwd / "mlflow.db").exists():
        return []
    client = MlflowClient(_uri(cwd))
    experiment = client.get_experiment_by_name("evalkit")
    return client.search_runs([experiment.experiment_id], max_results=5000) if experiment else []


def _running_cells(cwd: Path) -> set[str]:
    """The cell runs the store shows RUNNING (ids)."""
    with contextlib.suppress(Exception):  # a store killed while being created: nothing is running in it
        runs = _runs(cwd)
        return {r.info.run_id for r in runs if r.info.status == "RUNNING" and r.data.tags.get("evalkit.kind") == "cell"}
    return set()


def _half_written(client: MlflowClient, run: Any) -> bool:
    """A run tagged complete must hold every record it counts and every cell file."""
    top = {Path(a.path).name for a in client.list_artifacts(run.info.run_id)}
    records = client.list_artifacts(run.info.run_id, "records") if "records" in top else []
    expected = int(run.data.metrics.get("conversations", -1))
    return not set(CELL_FILES) <= top or len(records) != expected


def _compare(reference: Path, chaos: Path) -> bool:
    spec = importlib.util.spec_from_file_location("compare_records", REPO / "scripts" / "compare_records.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        same = module.main([_uri(reference), _uri(chaos)]) == 0
    print(out.getvalue().rstrip())
    return same


def inspect_store(cwd: Path, figures: ChaosFigures) -> None:
    runs = _runs(cwd)
    client = MlflowClient(_uri(cwd))
    figures.runs_failed = sum(r.info.status in ("FAILED", "KILLED") for r in runs)
    figures.runs_left_running = sum(r.info.status == "RUNNING" for r in runs)
    cells = [r for r in runs if r.data.tags.get("evalkit.kind") == "cell"]
    finished = Counter(r.data.tags.get("cell_key") for r in cells if r.info.status == "FINISHED")
    keys = {r.data.tags.get("cell_key") for r in cells}
    figures.cell_keys = len(keys)
    figures.duplicate_keys = sorted(str(k) for k in keys if finished[k] != 1)
    complete = [r for r in cells if r.data.tags.get("evalkit.complete") == "true"]
    figures.half_written_taken_as_done = sum(_half_written(client, r) for r in complete)


def run_chaos(workdir: Path, kills: int, seed: int, overrides: list[str], timeout_s: float = 900.0) -> ChaosFigures:
    rng = random.Random(seed)
    figures = ChaosFigures()
    started = time.monotonic()
    reference, chaos = workdir / "reference", workdir / "chaos"
    t0 = time.monotonic()
    if _start(reference, overrides).wait(timeout=timeout_s) != 0:
        raise SystemExit(f"the uninterrupted reference run failed: see {reference / 'runs.log'}")
    window = time.monotonic() - t0
    attempts = 0
    while figures.kills < kills and attempts < 4 * kills:  # bounded: a sweep that keeps finishing early stops it
        attempts += 1
        at = rng.uniform(0.5, window)
        # a run an earlier kill left RUNNING is still RUNNING when a kill comes before the next start marks it:
        # only a cell run this start created counts this kill as mid-cell (else one lost cell counts twice)
        earlier = _running_cells(chaos)
        proc = _start(chaos, overrides)
        t0 = time.monotonic()
        try:
            proc.wait(timeout=at)
            figures.finished_before_kill += 1
            # What is left is shorter now (reused cells): aim the next kills inside a run of that length.
            window = max(1.0, time.monotonic() - t0)
            continue
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        figures.kills += 1
        running = _running_cells(chaos)
        figures.killed_mid_cell += bool(running - earlier)
        print(f"kill {figures.kills}: at {at:.1f} s, {len(running - earlier)} cell run(s) of this start left RUNNING "
              f"({len(running)} in all)", flush=True)  # fmt: skip
    figures.final_returncode = _start(chaos, overrides).wait(timeout=timeout_s)
    inspect_store(chaos, figures)
    figures.identical_to_reference = figures.final_returncode == 0 and _compare(reference, chaos)
    figures.wall_s = time.monotonic() - started
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="default: a fresh temporary folder")
    parser.add_argument("overrides", nargs="*", help="the sweep's overrides (default: a tiny two-cell sweep)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-chaos-"))
    figures = run_chaos(workdir, args.kills, args.seed, args.overrides or list(DEFAULT_OVERRIDES))
    print(json.dumps(asdict(figures), indent=1))
    print(
        f"kills {figures.kills} (mid-cell {figures.killed_mid_cell}), runs FAILED/KILLED {figures.runs_failed}, "
        f"left RUNNING {figures.runs_left_running}, cell keys {figures.cell_keys} with duplicates "
        f"{figures.duplicate_keys or 'none'}, half-written taken as done {figures.half_written_taken_as_done}, "
        f"identical to the uninterrupted run: {figures.identical_to_reference}  ({workdir})"
    )
    return 0 if figures.ok else 1


if __name__ == "__main__":
    sys.exit(main())
