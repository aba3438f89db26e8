"""Results tied to the code that made them (issue 32 point 2): the code fingerprint, git provenance on every run,
and reuse that takes a finished cell only from the same code unless ``reuse=any`` (real MLflow, real cells)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from evalkit.cell import axis_params, cell_tags, plan_cell, run_cell
from evalkit.config.schema import RunConfig, validate_config
from evalkit.provenance import (
    EXCLUDED,
    FINGERPRINT_TAG,
    PACKAGE_DIR,
    code_fingerprint,
    git_state,
    provenance_tags,
    sources_digest,
)
from evalkit.tracking import CellRun, TrackingTarget, end_sweep, resolve_target, start_sweep
from evalkit.tracking.reading import sweep_children
from tests.conftest import CONF_DIR, REPO

OTHER_CODE = "0.0.1+00000000deadbeef"


def composed(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["progress=false", *overrides])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


# ---- the fingerprint -------------------------------------------------------------------------------------------


def test_fingerprint_is_the_version_and_a_digest_the_same_in_every_process():
    fingerprint = code_fingerprint()
    version, digest = fingerprint.split("+")
    assert version == provenance_tags()["evalkit.version"] and len(digest) == 16
    again = subprocess.run(
        [sys.executable, "-c", "from evalkit.provenance import code_fingerprint; print(code_fingerprint())"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == fingerprint


def test_fingerprint_is_computed_once_per_process_and_cheap():
    code_fingerprint()
    hits = code_fingerprint.cache_info().hits
    code_fingerprint()
    assert code_fingerprint.cache_info().hits == hits + 1 and code_fingerprint.cache_info().misses <= 1
    started = time.process_time()  # CPU time of hashing the real tree (not the wall clock of a loaded machine)
    sources_digest({"evalkit": (PACKAGE_DIR, EXCLUDED)})
    assert time.process_time() - started < 2.0


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "evalkit"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def digest_of(root: Path) -> str:
    return sources_digest({"evalkit": (root, EXCLUDED)})


@pytest.mark.parametrize(
    "edit",
    ["metrics/latency.py", "judges/prompts.yaml", "domains/airline/scenarios/AL-001.json", "call/loop.py"],
)
def test_an_edit_to_code_or_data_that_computes_results_changes_the_fingerprint(package_copy: Path, edit: str):
    before = digest_of(package_copy)
    with (package_copy / edit).open("a") as f:
        f.write("\n")
    assert digest_of(package_copy) != before


def test_a_moved_or_added_source_changes_it_and_excluded_files_do_not(package_copy: Path):
    before = digest_of(package_copy)
    for unused in ("cli/__init__.py", "analysis/__init__.py", "tracking/store.py", "__main__.py", "rescore.py"):
        with (package_copy / unused).open("a") as f:  # start, read or log results: never change them
            f.write("# edited\n")
    (package_copy / "metrics" / "__pycache__").mkdir(exist_ok=True)
    (package_copy / "metrics" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (package_copy / "notes.wav").write_bytes(b"RIFF")  # not a source suffix
    assert digest_of(package_copy) == before
    (package_copy / "metrics" / "latency.py").rename(package_copy / "metrics" / "latency2.py")
    moved = digest_of(package_copy)
    assert moved != before
    (package_copy / "metrics" / "new_metric.py").write_text("X = 1\n")
    assert digest_of(package_copy) != moved


# ---- git provenance --------------------------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def test_git_provenance_of_a_checkout_and_none_outside_one(tmp_path: Path):
    head = git(REPO, "rev-parse", "HEAD")
    dirty = bool(git(REPO, "status", "--porcelain", "--untracked-files=no"))
    assert provenance_tags()["evalkit.git_commit"] == head
    assert provenance_tags()["evalkit.git_dirty"] == str(dirty).lower()

    assert git_state(tmp_path) == {}  # not a checkout: absent, not "unknown"
    repo = tmp_path / "repo"
    package = repo / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("A = 1\n")
    git(repo, "init", "-q")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "empty")
    assert git_state(package) == {}  # inside a repository that does not track the package: not its code
    git(repo, "add", ".")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "pkg")
    assert git_state(package) == {"evalkit.git_commit": git(repo, "rev-parse", "HEAD"), "evalkit.git_dirty": "false"}
    (package / "__init__.py").write_text("A = 2\n")
    assert git_state(package)["evalkit.git_dirty"] == "true"


# ---- reuse by fingerprint, through the real runner and store ---------------------------------------------------


@pytest.fixture
def target(tmp_path: Path) -> TrackingTarget:
    return resolve_target(f"sqlite:///{tmp_path / 'mlflow.db'}", "fingerprint", None, tmp_path)


def log_other_code_cell(target: TrackingTarget, config: RunConfig) -> str:
    """A finished cell of the same key as another evalkit (another fingerprint) would have logged it."""
    plan = plan_cell(config)
    tags = cell_tags(plan, "cell") | {FINGERPRINT_TAG: OTHER_CODE}
    with CellRun.open(target, plan.run_name, tags, None) as run:
        run.log_params(axis_params(config))
        run.log_metrics({"conversations": 1.0, "task_completion_pass_at_1": 0.123})
    return run.run_id


def test_a_cell_of_other_code_is_recomputed_unless_reuse_any(target, tmp_path, caplog):
    cheap = ("modality=text", "domain.limit=1", "trials=1", "metrics=[task_completion]")
    config = composed(*cheap)
    old = log_other_code_cell(target, config)
    client = MlflowClient(target.tracking_uri)
    caplog.set_level(logging.INFO, logger="evalkit")

    parent = start_sweep(target, tmp_path / "sweep", {}, ["reuse=any"])
    taken = run_cell(composed(*cheap, "reuse=any"), target, tmp_path / "any", parent)
    end_sweep(target, parent)
    assert taken.reused and taken.run_id == old
    (pointer,) = sweep_children(target, parent)
    assert pointer.tags["reused_from"] == old and pointer.tags["reused_fingerprint"] == OTHER_CODE
    assert pointer.tags["evalkit.reuse"].startswith(f"reused with reuse=any: computed by code fingerprint {OTHER_CODE}")
    assert client.get_run(parent).data.tags[FINGERPRINT_TAG] == code_fingerprint()  # the sweep's run too

    caplog.clear()
    fresh = run_cell(config, target, tmp_path / "fresh")  # reuse=true (the default): other code is not reused
    assert not fresh.reused and fresh.run_id != old
    tags = client.get_run(fresh.run_id).data.tags
    why = f"recomputed because the code fingerprint differs: run {old} has {OTHER_CODE}, this code is "
    assert tags["evalkit.reuse"].startswith(why)
    assert why in caplog.text
    assert tags[FINGERPRINT_TAG] == code_fingerprint() and tags["cell_key"] == plan_cell(config).key
    assert tags["evalkit.git_commit"] == git(REPO, "rev-parse", "HEAD")
    assert tags["evalkit.git_dirty"] in {"true", "false"}
    assert client.get_run(fresh.run_id).data.params["metric_version.task_completion"] == "1"  # issue 32 point 5

    caplog.clear()
    again = run_cell(config, target, tmp_path / "again")  # now a run of this very code exists
    assert again.reused and again.run_id == fresh.run_id
    same = f"reused: same code fingerprint {code_fingerprint()}"
    assert f"already finished in run {fresh.run_id} ({same}): reusing it" in caplog.text

    forced = run_cell(composed(*cheap, "reuse=false"), target, tmp_path / "forced")
    assert not forced.reused
    assert client.get_run(forced.run_id).data.tags["evalkit.reuse"] == "off: reuse=false"


def test_reuse_accepts_true_false_and_any_only():
    assert composed("reuse=any").reuse == "any" and composed("reuse=false").reuse is False
    with pytest.raises(Exception, match="reuse"):
        composed("reuse=sometimes")
