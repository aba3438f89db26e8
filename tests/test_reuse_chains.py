"""Reuse pointers always name the run holding the data, and the analysis follows any chain of them (issue 16, 9).

The README's own workflow at the store level: a noise_cafe sweep, a noise_street sweep, then noise_cafe again.
Cells that run are logged the way ``evalkit.cell.run_cell`` logs them (tags, axis params, aggregates and a
``conversations_table.json``) without synthesising speech; cells that are reused go through the real
``run_cell``, which finds the finished run and writes the pointer.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from evalkit.analysis.cells import load_selection
from evalkit.analysis.compare import Settings
from evalkit.analysis.pipeline import run_analysis
from evalkit.cell import axis_params, cell_tags, plan_cell, run_cell
from evalkit.config.schema import RunConfig, twin_config, validate_config
from evalkit.tracking import CellRun, TrackingTarget, end_sweep, find_finished_cell, resolve_target, start_sweep
from evalkit.tracking.reading import get_run, sweep_children
from tests.conftest import CONF_DIR, REPO

SETTINGS = Settings(n_permutations=500, n_bootstrap=200)


def composed(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["progress=false", *overrides])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


def log_finished_cell(target: TrackingTarget, config: RunConfig, parent: str, shift: float) -> str:
    """A cell run with run_cell's tags, params and table layout; scores drawn around 0.7 + shift."""
    plan = plan_cell(config)
    rng = np.random.default_rng(int(plan.key, 16))
    rows = [(s.id, t) for s in plan.scenarios for t in range(config.trials)]
    table = {
        "scenario": [s for s, _ in rows],
        "trial": [t for _, t in rows],
        "task_completion": [float(rng.random() < 0.7 + shift) for _ in rows],
        "user_wer": [float(max(0.0, 0.1 - shift + rng.normal(0, 0.02))) for _ in rows],
    }
    with CellRun.open(target, plan.run_name, cell_tags(plan, "cell"), parent) as run:
        run.log_params(axis_params(config))
        run.log_metrics({"conversations": float(len(rows))})
        run.log_table(table, "conversations_table.json")
    return run.run_id


def reuse(target: TrackingTarget, config: RunConfig, parent: str, out_dir: Path) -> str:
    """The real runner's reuse path; returns the pointer run written into the sweep."""
    key = plan_cell(config).key
    assert find_finished_cell(target, key) is not None  # else run_cell would synthesise speech
    result = run_cell(config, target, out_dir, parent)
    assert result.reused
    pointers = [r for r in sweep_children(target, parent) if r.tags.get("cell_key") == key]
    return pointers[0].run_id


@pytest.fixture
def target(tmp_path: Path) -> TrackingTarget:
    return resolve_target(f"sqlite:///{tmp_path / 'mlflow.db'}", "readme-workflow", None, tmp_path)


@pytest.mark.slow
def test_readme_workflow_cafe_street_cafe_again_finds_the_comparisons(target, tmp_path):
    cafe, street = composed("+perturb=noise_cafe"), composed("+perturb=noise_street")
    clean = twin_config(cafe)
    assert plan_cell(clean).key == plan_cell(twin_config(street)).key  # one clean baseline for both

    first = start_sweep(target, tmp_path / "s1", {}, ["+perturb=noise_cafe"])  # clean twin + café both run
    clean_run = log_finished_cell(target, clean, first, 0.0)
    cafe_run = log_finished_cell(target, cafe, first, -0.3)
    end_sweep(target, first)

    second = start_sweep(target, tmp_path / "s2", {}, ["+perturb=noise_street"])  # clean reused, street runs
    reuse(target, clean, second, tmp_path / "o2")
    log_finished_cell(target, street, second, -0.2)
    end_sweep(target, second)

    third = start_sweep(target, tmp_path / "s3", {}, ["+perturb=noise_cafe"])  # both reused
    clean_pointer = reuse(target, clean, third, tmp_path / "o3c")
    cafe_pointer = reuse(target, cafe, third, tmp_path / "o3n")
    end_sweep(target, third)

    # Every pointer names the run that holds the data, never another pointer.
    assert get_run(target, clean_pointer).tags["reused_from"] == clean_run
    assert get_run(target, cafe_pointer).tags["reused_from"] == cafe_run
    assert find_finished_cell(target, plan_cell(clean).key) == clean_run

    outcome = run_analysis(target, tmp_path / "out", SETTINGS, plots=False, log_run=False)  # the latest sweep
    rows = outcome.analysis.rows
    assert {r.metric for r in rows} == {"task_completion", "user_wer"}
    assert {(r.perturbed_run_id, r.clean_run_id) for r in rows} == {(cafe_run, clean_run)}
    assert not [g for g in outcome.analysis.gaps if "twin" in g or "not found" in g or "no conversations" in g]
    assert outcome.selection.input_runs[clean_pointer] == "reuse_pointer"

    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(REPO)
    cli = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", f"mlflow.tracking_uri={target.tracking_uri}",
         f"mlflow.experiment={target.experiment}", "permutations=200", "bootstrap=100", "plots=false",
         "log_to_mlflow=false", f"output_dir={tmp_path / 'cli'}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr[-3000:]
    assert "2 comparisons" in cli.stdout  # the README workflow, through conf/analyze.yaml (condition_axes: null)


def pointer(target: TrackingTarget, parent: str, name: str, cell_key: str, reused_from: str) -> str:
    tags = {"evalkit.kind": "reuse", "cell_key": cell_key, "twin_key": cell_key, "reused_from": reused_from}
    with CellRun.open(target, name, tags, parent) as run:
        pass
    return run.run_id


def test_pointer_chains_resolve_and_cycles_or_dangling_pointers_are_named_gaps(target, tmp_path):
    """Stores written before the fix hold pointer -> pointer chains; a broken store may hold worse."""
    cafe = composed("+perturb=noise_cafe")
    clean = twin_config(cafe)
    first = start_sweep(target, tmp_path / "s1", {}, [])
    clean_run = log_finished_cell(target, clean, first, 0.0)
    cafe_run = log_finished_cell(target, cafe, first, -0.3)
    end_sweep(target, first)

    later = start_sweep(target, tmp_path / "s2", {}, [])
    clean_key, cafe_key = plan_cell(clean).key, plan_cell(cafe).key
    hop = clean_run
    for i in range(5):  # a long legacy chain: each pointer points at the previous pointer
        hop = pointer(target, later, f"old{i}", clean_key, hop)
    cafe_hop = pointer(target, later, "cafe-old", cafe_key, cafe_run)
    pointer(target, later, "cafe-new", cafe_key, cafe_hop)
    assert find_finished_cell(target, clean_key) == clean_run  # pointers are never offered for reuse
    # A cycle (each names the other) and a dangling pointer, for cells of their own.
    a = pointer(target, later, "cycle-a", "k-cycle", "placeholder")
    b = pointer(target, later, "cycle-b", "k-cycle", a)
    MlflowClient(target.tracking_uri).set_tag(a, "reused_from", b)
    pointer(target, later, "dangling", "k-gone", "0" * 32)
    end_sweep(target, later)

    selection = load_selection(target, later)
    data_runs = {c.run_id for c in selection.cells}
    assert data_runs == {clean_run, cafe_run}
    gaps = "\n".join(selection.gaps)
    assert "cycle of reuse pointers" in gaps and a in gaps and b in gaps
    assert f"points to {'0' * 32!r}, not found" in gaps
    outcome = run_analysis(target, tmp_path / "out", SETTINGS, sweep=later, plots=False, log_run=False)
    assert {(r.perturbed_run_id, r.clean_run_id) for r in outcome.analysis.rows} == {(cafe_run, clean_run)}
