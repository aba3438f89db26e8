"""`python -m evalkit`: compose, validate, plan once, then run one cell (and, outside a sweep, its clean twin first).

The data flows one way: the composed config is validated and preflight-checked, what the check read (scenarios,
pricing table, tracking store) and the cell keys go into one :class:`~evalkit.cell.plan.CellPlan` (the twin's plan
inside it), and the runner reads only the plan."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from evalkit.cell import CellPlan, run_plan
from evalkit.cli.preflight import checked_job_plan, checked_plan
from evalkit.records import CellResult
from evalkit.speech.cores import set_process_share, usable_cores
from evalkit.tracking import mark_stale_runs, read_parent_run

log = logging.getLogger("evalkit")
logging.getLogger("faster_whisper").setLevel(logging.WARNING)  # one INFO line per clip drowns the progress bar


def to_plan(cfg: DictConfig) -> CellPlan:
    """Validated and preflight-checked (scenario ids, model folder, judge key, tracking store) before any cell, and
    planned once."""
    hydra_cfg = HydraConfig.get() if HydraConfig.initialized() else None
    choices: dict[str, Any] = dict(hydra_cfg.runtime.choices) if hydra_cfg else {}
    overrides = list(hydra_cfg.overrides.task) if hydra_cfg else []
    if hydra_cfg is not None and hydra_cfg.mode == RunMode.MULTIRUN and (known := checked_job_plan(overrides)):
        return known  # a sweep job this process checked before the sweep started
    base_dir = Path(hydra_cfg.runtime.cwd) if hydra_cfg else Path.cwd()
    return checked_plan(cfg, choices, overrides, base_dir)


def launcher_parallelism(launcher: Any) -> int:
    """How many jobs a launcher runs at once on this machine: joblib's ``n_jobs`` (negative as joblib reads it:
    -1 every usable core, -2 all but one, ...); 1 for
    the basic launcher and for submitit/Ray, whose jobs get their own cores (a SLURM allocation narrows the usable
    cores instead)."""
    n_jobs = launcher.get("n_jobs") if launcher is not None else None
    if not isinstance(n_jobs, int) or n_jobs == 0:
        return 1
    return max(1, usable_cores() + 1 + n_jobs) if n_jobs < 0 else n_jobs


def main(cfg: DictConfig, record: Callable[[CellResult], None] | None = None) -> dict[str, CellResult]:
    """The Hydra task: one cell per job. Returns {"cell": ..., and "twin": ... when this job ran its twin};
    ``record`` is told each cell as it ends (a twin that finished still counts when the cell after it raises)."""
    record = record or (lambda _: None)
    hydra_cfg = HydraConfig.get()
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    if multirun and (jobs := launcher_parallelism(hydra_cfg.launcher)) > 1:
        # cells side by side (joblib): each decodes with its share of the cores, and the plan sizes its workers so
        set_process_share(jobs)
    plan = to_plan(cfg)
    config = plan.config
    out_dir = Path(hydra_cfg.runtime.output_dir)
    target = plan.settings.target
    assert target is not None  # the preflight found the store (checked_plan)
    parent = read_parent_run(Path(hydra_cfg.sweep.dir).resolve()) if multirun else None
    if not multirun:  # a sweep's callback already did this once for all its jobs
        mark_stale_runs(target)
    results: dict[str, CellResult] = {}
    # A single run has no sweeper to schedule the twin (perturb, accent voice or behavioural persona reset), so the
    # job runs (or reuses) it itself, first.
    twin_first = config.twins and not multirun and plan.twin is not None
    for name, cell in ([("twin", plan.twin)] if twin_first else []) + [("cell", plan)]:
        results[name] = run_plan(cell, target, out_dir / "clean_twin" if name == "twin" else out_dir, parent)
        record(results[name])
    return results
