"""A sweep composes and checks each job once (issue 16 point 8): Hydra's sweeper composes every job to validate the
batch, evalkit's preflight composes and checks it, the launcher composes it again to run it, and the job checked it
once more; ``memoize_sweep_configs`` and the preflight's checked configs make that one composition and one check per
job. Counted through the real Hydra path (a real multirun, Hydra's own config loader), so the memo silently
ceasing to help fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import REPO

COUNTING_RUN = """
import atexit, collections, json, runpy, sys

from hydra._internal.config_loader_impl import ConfigLoaderImpl

import evalkit.cli.preflight as preflight
import evalkit.cli.run as run

counts = collections.Counter()


def counting(owner, name, label):
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        counts[label] += 1
        return real(*args, **kwargs)

    setattr(owner, name, counted)


counting(ConfigLoaderImpl, "load_sweep_config", "compose")  # Hydra's composition of one job
counting(preflight, "checked_plan", "sweep_check")  # the preflight's check of one job, before the sweep
counting(run, "checked_plan", "job_check")  # a job checking its config again when it starts
atexit.register(lambda: print("COUNTS " + json.dumps(counts), flush=True))
sys.argv = ["evalkit", *sys.argv[1:]]
runpy.run_module("evalkit", run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow
def test_a_sweep_of_n_jobs_composes_and_checks_each_job_once(tmp_path: Path) -> None:
    (tmp_path / "counting_run.py").write_text(COUNTING_RUN)
    seeds = [0, 1, 2]
    sweep = ["+experiment=smoke", "domain.scenarios=[AL-005]", f"seed={','.join(map(str, seeds))}", "twins=false"]
    quick = ["progress=false", "validation.enabled=false", "mlflow.log_audio=false", "mlflow.log_traces=false"]
    quick += ["metrics=[task_completion]", "simulator.max_user_turns=2"]
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "counting_run.py", *sweep, *quick, "-m"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(line for line in proc.stdout.splitlines() if line.startswith("COUNTS "))
    counts = json.loads(line.removeprefix("COUNTS "))
    assert counts == {"compose": len(seeds), "sweep_check": len(seeds)}  # no job composed or checked twice
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("evalkit")
    cells = client.search_runs([experiment.experiment_id], "tags.`evalkit.kind` = 'cell'")
    assert sorted(int(r.data.params["seed"]) for r in cells) == seeds  # every job ran, with its own config
    assert all(r.info.status == "FINISHED" for r in cells)
