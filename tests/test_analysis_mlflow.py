"""The analysis end to end against a real MLflow SQLite store: synthetic cells logged like the runner's."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import mlflow
import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from evalkit.analysis import stats
from evalkit.analysis.cells import AnalysisError
from evalkit.analysis.compare import Settings
from evalkit.analysis.pipeline import run_analysis
from evalkit.analysis.synthetic import Condition, log_cell, log_experiment, make_experiment
from evalkit.tracking import CellRun, resolve_target
from tests.conftest import REPO

NOISE = Condition("noise", perturb="noise_cafe", snr_db="15.0")
ACCENT = Condition("accent", voice="accent_french")
SETTINGS = Settings(n_permutations=2000, n_bootstrap=300)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One store (creating one costs seconds): a sweep of 2 agents × {clean, noise, accent}, 7 scenarios."""
    root = tmp_path_factory.mktemp("analysis-store")
    target = resolve_target(f"sqlite:///{root / 'mlflow.db'}", "synthetic", None, root)
    cells = make_experiment(["a1", "a2"], ["airline"], [NOISE, ACCENT], 7, 3, 2,
                            {("a1", "noise", "key_entity_accuracy"): -0.2}, seed=4)  # fmt: skip
    parent, run_ids = log_experiment(target, cells)
    return target, cells, parent, run_ids, root


def test_report_csv_plots_and_a_linked_analysis_run(store, tmp_path):
    target, cells, parent, run_ids, _ = store
    outcome = run_analysis(target, tmp_path, SETTINGS)
    assert outcome.selection.sweep_id == parent
    names = {p.name for p in tmp_path.iterdir()}
    assert {"deltas.csv", "pass_at_k.csv", "report.md", "report.html"} <= names
    # issue 30 point 6: one combined heatmap and forest plots per family, not one pair per metric
    assert {"forest_headline.png", "heatmap_all.png", "forest_task_success.png", "forest_hearing.png"} <= names
    assert not any(n.startswith("heatmap_") and n != "heatmap_all.png" for n in names)
    assert "pass_task_completion.png" in names
    assert all((tmp_path / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names if n.endswith(".png"))

    rows = list(csv.DictReader((tmp_path / "deltas.csv").open()))
    assert len(rows) == 2 * 2 * 3  # agents × conditions × metrics
    by_key = {c.cell_key: c for c in cells}
    for row in rows:  # every number equals the direct computation from the synthetic scores
        pert = by_key[row["perturbed_cell_key"]]
        clean = by_key[row["clean_cell_key"]]
        assert run_ids[pert.cell_key] == row["perturbed_run_id"] and run_ids[clean.cell_key] == row["clean_run_id"]
        metric = row["metric"]
        p_means = stats.scenario_means(pert.scenarios, pert.scores[metric])
        c_means = stats.scenario_means(clean.scenarios, clean.scores[metric])
        deltas = np.array([p_means[s] - c_means[s] for s in sorted(c_means)])
        direct = stats.delta_stats(deltas, f"{row['family']}|{row['condition']}", 2000, 300)
        assert [float(row[k]) for k in ("delta", "ci_low", "ci_high", "p")] == pytest.approx(
            [direct.delta, direct.ci_low, direct.ci_high, direct.p]
        )
    planted = [r for r in rows if r["model"] == "a1" and r["condition"] == "noise_cafe@15.0dB"]
    assert [r["significant"] for r in planted if r["metric"] == "key_entity_accuracy"] == ["True"]

    report = (tmp_path / "report.md").read_text()
    assert "### key_entity_accuracy" in report and "whose |mean δ| ≥ the observed |mean δ|" in report  # p convention
    assert "## Gaps" in report and "![forest_hearing.png](forest_hearing.png)" in report
    # the answer first: headline, its forest plot, then families in the fixed order (not alphabetical)
    order = [report.index(h) for h in ("## Headline", "forest_headline.png", "## Task success", "## Hearing")]
    assert order == sorted(order)
    headline = report[report.index("## Headline") : report.index("## How to read")]
    for condition in ("noise_cafe@15.0dB", "accent_french"):
        assert f"| {condition} | a1 · airline | task_completion |" in headline
        assert f"| {condition} | a2 · airline | user_wer |" in headline
        assert f"| {condition} | a1 · airline | task_completion pass^k |" in headline
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == sum(n.endswith(".png") for n in names)  # self-contained
    assert 'src="forest' not in page and "<th>p (Holm)</th>" in page

    client = MlflowClient(target.tracking_uri)
    run = client.get_run(outcome.analysis_run_id)
    assert run.data.tags["evalkit.kind"] == "analysis" and run.info.status == "FINISHED"
    inputs = {k.removeprefix("evalkit.input."): v for k, v in run.data.tags.items() if k.startswith("evalkit.input.")}
    assert set(run_ids.values()) | {parent} == set(inputs)
    assert inputs[parent] == "sweep" and {inputs[run_ids[c.cell_key]] for c in cells} == {"clean", "perturbed"}
    assert set(run.data.tags["evalkit.inputs"].split(",")) == set(inputs)
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"inputs.json", "report.md", "report.html", "deltas.csv", "forest_headline.png"} <= artifacts
    # MLflow's markdown preview resolves images through the server's artifact route, not relative to the page
    logged = client.download_artifacts(run.info.run_id, "report.md", str(tmp_path / "dl"))
    link = f"![forest_headline.png](get-artifact?path=forest_headline.png&run_uuid={run.info.run_id})"
    assert link in Path(logged).read_text() and "](forest_" not in Path(logged).read_text()
    found = client.search_runs([run.info.experiment_id], f"tags.`evalkit.input.{parent}` = 'sweep'")
    assert [r.info.run_id for r in found] == [outcome.analysis_run_id]


def test_search_runs_filters_per_axis(store):
    target, cells, _, run_ids, _ = store
    mlflow.set_tracking_uri(target.tracking_uri)
    exp = MlflowClient(target.tracking_uri).get_experiment_by_name(target.experiment).experiment_id

    def found(filter_string: str) -> set[str]:
        frame = mlflow.search_runs([exp], filter_string=f"{filter_string} and tags.`evalkit.kind` = 'cell'")
        return set(frame["run_id"])

    def expected(pred) -> set[str]:
        return {run_ids[c.cell_key] for c in cells if pred(c)}

    assert found("params.perturb = 'noise_cafe'") == expected(lambda c: c.condition.perturb == "noise_cafe")
    assert found("params.snr_db = '15.0'") == expected(lambda c: c.condition.snr_db == "15.0")
    assert found("params.agent = 'a2'") == expected(lambda c: c.agent == "a2")
    assert found("params.voice = 'accent_french' and params.agent = 'a1'") == expected(
        lambda c: c.condition.voice == "accent_french" and c.agent == "a1"
    )
    assert len(found("params.domain = 'airline'")) == 6


def test_reuse_pointers_missing_twins_and_unfinished_runs(store, tmp_path):
    """A second sweep: a reuse pointer to the noise cell, an accent cell whose twin lives in the first sweep, and a
    cell that died. The pointer is followed, the twin found experiment-wide, the dead run named."""
    from evalkit.tracking import end_sweep, start_sweep

    target, cells, first_parent, run_ids, _ = store
    parent = start_sweep(target, tmp_path / "sweep2", {}, [])
    noise = next(c for c in cells if c.agent == "a1" and c.condition.name == "noise")
    tags = {"cell_key": noise.cell_key, "twin_key": noise.twin_key, "evalkit.kind": "reuse",
            "reused_from": run_ids[noise.cell_key], "condition": "noise_cafe"}  # fmt: skip
    with CellRun.open(target, "pointer", tags, parent) as run:
        run.log_params(noise.params())
    pointer = run.run_id
    accent_cells = make_experiment(["a1"], ["airline"], [ACCENT], 7, 3, 2, {}, seed=4)
    accent = next(c for c in accent_cells if not c.condition.is_clean)
    _, accent_run = log_cell(target, accent, parent)
    with pytest.raises(RuntimeError), CellRun.open(target, "dies", {"evalkit.kind": "cell", "cell_key": "x"}, parent):
        raise RuntimeError("killed")
    end_sweep(target, parent)

    outcome = run_analysis(target, tmp_path / "out", SETTINGS, sweep=parent, plots=False, log_run=False)
    rows = outcome.analysis.rows
    assert {r.perturbed_run_id for r in rows} == {run_ids[noise.cell_key], accent_run}
    assert {r.clean_run_id for r in rows} == {run_ids[noise.twin_key]}  # the first sweep's clean cell
    assert outcome.selection.input_runs[pointer] == "reuse_pointer"
    assert any("dies" in g and "did not finish" in g for g in outcome.analysis.gaps)
    assert "did not finish" in (tmp_path / "out" / "report.md").read_text()
    latest = run_analysis(target, tmp_path / "latest", SETTINGS, plots=False, log_run=False)
    assert latest.selection.sweep_id == parent  # the newest sweep by default
    assert first_parent != parent


def test_no_runs_at_all_is_a_clear_error(store, tmp_path):
    target, *_ = store
    empty = resolve_target(target.tracking_uri, "nothing-here", None, tmp_path)
    with pytest.raises(AnalysisError, match="no finished cell runs in all cells of experiment 'nothing-here'"):
        run_analysis(empty, tmp_path, SETTINGS)
    with pytest.raises(AnalysisError, match="sweep run 'deadbeef' not found"):
        run_analysis(target, tmp_path, SETTINGS, sweep="deadbeef")


@pytest.mark.slow
def test_cli_entry_point(store, tmp_path):
    target, _, parent, _, _ = store
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(REPO)
    result = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", f"mlflow.tracking_uri={target.tracking_uri}",
         "mlflow.experiment=synthetic", f"sweep={parent}", "permutations=500", "bootstrap=200", "plots=false",
         "metrics=[user_wer]", "power.delta=0.1", f"output_dir={tmp_path / 'cli'}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "4 comparisons" in result.stdout and "MLflow analysis run" in result.stdout
    assert "## Power plan" in result.stdout and "| user_wer |" in result.stdout  # issue 31 point 5
    rows = list(csv.DictReader((tmp_path / "cli" / "deltas.csv").open()))
    assert {r["metric"] for r in rows} == {"user_wer"} and {r["n_scenarios"] for r in rows} == {"7"}
    bad = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", f"mlflow.tracking_uri=sqlite:///{tmp_path / 'empty.db'}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bad.returncode == 2 and "no finished cell runs" in bad.stderr


BAD_SETTINGS = [
    ("alpha=2", "evalkit.analyze: alpha must be strictly between 0 and 1, got 2.0"),
    ("alpha=0", "evalkit.analyze: alpha must be strictly between 0 and 1, got 0.0"),
    ("permutations=-5", "evalkit.analyze: permutations must be a whole number of at least 1, got -5"),
    ("bootstrap=abc", "evalkit.analyze: bootstrap must be a whole number, got 'abc'"),
    ("nonsense=1", "evalkit.analyze: config error: Could not override 'nonsense'.; To append to your config use "
     "+nonsense=1"),
]  # fmt: skip


@pytest.mark.slow
def test_cli_refuses_bad_settings_in_one_line_and_logs_nothing(store, tmp_path):
    """Issue 27 item 9: ``alpha=2`` marked every comparison significant (delta 0, p 1.0) and logged a FINISHED
    analysis run; ``permutations=-5`` ended in a traceback. Each is one line, exit 2, before anything is read."""
    target, _, parent, _, _ = store
    env = {k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "HYDRA_FULL_ERROR")}
    env["PYTHONPATH"] = str(REPO)
    client = MlflowClient(target.tracking_uri)
    experiment = client.get_experiment_by_name("synthetic").experiment_id
    before = len(client.search_runs([experiment]))
    for override, line in BAD_SETTINGS:
        result = subprocess.run(
            [sys.executable, "-m", "evalkit.analyze", f"mlflow.tracking_uri={target.tracking_uri}",
             "mlflow.experiment=synthetic", f"sweep={parent}", "plots=false", f"output_dir={tmp_path / 'out'}",
             override],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert (result.returncode, result.stderr.strip().splitlines()) == (2, [line]), result.stderr[-2000:]
    assert len(client.search_runs([experiment])) == before and not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="alpha must be strictly between 0 and 1"):
        Settings(alpha=1.0)


@pytest.mark.slow
def test_a_stored_severity_sweep_gets_its_curve_table_and_plot(store, tmp_path):
    """Issue 31 point 4 end to end on a real store: a 3-SNR sweep logged as the runner logs cells → curves.csv,
    the curve plot, and the breaking-point table in report.md and report.html."""
    target = resolve_target(store[0].tracking_uri, "curve", None, tmp_path)  # the module's store: no new database
    snrs = ["20.0", "10.0", "0.0"]
    conditions = [Condition(f"snr{s}", perturb="noise_cafe", snr_db=s) for s in snrs]
    effects = {
        ("a1", f"snr{s}", "key_entity_accuracy"): shift for s, shift in zip(snrs, (0.0, -0.3, -0.6), strict=True)
    }
    log_experiment(target, make_experiment(["a1"], ["airline"], conditions, 8, 2, 2, effects, seed=5))
    outcome = run_analysis(target, tmp_path / "out", SETTINGS, log_run=False)
    ke = next(c for c in outcome.curves if c.metric == "key_entity_accuracy")
    assert ke.severities == [20.0, 10.0, 0.0] and 0.0 < ke.breaking < 20.0
    assert (tmp_path / "out" / "curve_noise_cafe_snr_db.png").is_file()
    rows = list(csv.DictReader((tmp_path / "out" / "curves.csv").open()))
    assert {r["severity"] for r in rows} == {"20.0", "10.0", "0.0"}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Robustness curves" in report and "![curve_noise_cafe_snr_db.png](curve_noise_cafe_snr_db.png)" in report
    assert "| a1 · airline | noise_cafe | snr_db | key_entity_accuracy | 8 |" in report
    assert "<h2>Robustness curves</h2>" in (tmp_path / "out" / "report.html").read_text()
