"""Launcher plug-ins: a missing extra, a SLURM preset without its partition, or SLURM off a cluster is one line
before anything starts (real look-ups: the installed plug-ins and PATH)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.cli.launchers import LAUNCHERS, launcher_problem, requested_launcher


def test_requested_launcher_reads_the_override() -> None:
    assert requested_launcher(["+perturb=noise_cafe", "hydra/launcher=joblib", "-m"]) == "joblib"
    assert requested_launcher(["+perturb=noise_cafe", "-m"]) is None


def test_installed_launchers_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # the dev extra installs joblib and submitit; submitit_local needs no cluster
    assert launcher_problem(["hydra/launcher=joblib"]) is None
    assert launcher_problem(["hydra/launcher=submitit_local"]) is None


def test_a_launcher_whose_extra_is_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(LAUNCHERS, "joblib", ("hydra_plugins.evalkit_no_such_launcher", "joblib"))
    assert launcher_problem(["hydra/launcher=joblib"]) == (
        'hydra/launcher=joblib needs the "joblib" extra: pip install -e ".[joblib]"'
    )


def test_the_slurm_preset_needs_its_partition_and_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "set hydra.launcher.partition=..." in (launcher_problem(["hydra/launcher=evalkit_slurm"]) or "")
    monkeypatch.setenv("PATH", "/nonexistent")
    problem = launcher_problem(["hydra/launcher=evalkit_slurm", "hydra.launcher.partition=cpu"]) or ""
    assert "no `srun` on PATH" in problem and "submitit_local" in problem


def test_the_cli_answers_in_one_line_before_hydra_starts(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "evalkit", "hydra/launcher=evalkit_slurm", f"hydra.sweep.dir={tmp_path}/s", "-m"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "hydra/launcher=evalkit_slurm: set hydra.launcher.partition=... (see conf/hydra/launcher/evalkit_slurm.yaml)"
    ]
    assert not (tmp_path / "s").exists() and not (tmp_path / "mlflow.db").exists()  # nothing started
