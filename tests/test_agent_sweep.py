"""The architecture axis, for real (issue 13 point 6 and its "done when"): one sweep crosses the embedded agent
in-process with the same agent behind ``python -m evalkit.serve`` (a wire agent declared the Hydra way, as an
option file of the ``agent`` group on the search path), both cells land side by side in MLflow, the analysis
reports the deltas per agent, and the served agent completes the same tasks as the in-process one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import REPO
from tests.test_end_to_end import run_evalkit
from tests.test_twilio_ws import served_cascade  # noqa: F401  (the fixture: python -m evalkit.serve)

pytestmark = pytest.mark.slow

SCENARIOS = "domain.scenarios=[AL-005]"


def test_one_sweep_compares_the_in_process_agent_with_the_same_agent_over_the_wire(
    served_cascade: tuple[subprocess.Popen[str], str],  # noqa: F811
    tmp_path: Path,
) -> None:
    url = served_cascade[1]
    # a user's own agent option: conf/agent/<name>.yaml extending twilio_ws with the deployment's URL
    option_dir = tmp_path / "my_conf" / "agent"
    option_dir.mkdir(parents=True)
    (option_dir / "served_cascade.yaml").write_text(
        "defaults:\n  - twilio_ws\n  - _self_\nname: served_cascade\narchitecture: cascade\n"
        f"url: {url}\n"
        # linear PCM at the caller voice's own rate: the wire carries what the in-process agent hears, so equal
        # task completion shows the transport adds nothing (μ-law 8 kHz, the default, changes what Whisper hears)
        "encoding: pcm16\nsample_rate: 22050\n"
    )
    sweep = run_evalkit(
        tmp_path,
        "agent=cascade_local,served_cascade",
        f"hydra.searchpath=[file://{tmp_path / 'my_conf'}]",
        "+perturb=noise_cafe",
        "perturb.snr_db=20",
        SCENARIOS,
        "trials=1",
        "progress=false",
        "metrics=[task_completion,user_wer]",
        "-m",
    )
    assert sweep.returncode == 0, sweep.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("evalkit").experiment_id])
    cells = {
        (r.data.params["agent"], r.data.params["perturb"]): r for r in runs if r.data.tags["evalkit.kind"] == "cell"
    }
    assert set(cells) == {(a, p) for a in ("cascade_local", "served_cascade") for p in ("clean", "noise_cafe")}
    assert {r.data.params["architecture"] for r in cells.values()} == {"cascade"}
    for run in cells.values():
        assert run.info.status == "FINISHED" and run.data.metrics["infrastructure_errors"] == 0
    # the same agent completes the same task in-process and over the wire on a clean line. (Under café noise the
    # noise bed is placed on the call's timeline, which a real clock moves by measured compute times: the noisy
    # wire cell hears other noise than the in-process one, so only that both are scored is checked.)
    local, wire = (cells[(agent, "clean")].data.metrics for agent in ("cascade_local", "served_cascade"))
    assert wire["task_completion_pass_at_1"] == local["task_completion_pass_at_1"]
    for agent in ("cascade_local", "served_cascade"):
        assert 0.0 <= cells[(agent, "noise_cafe")].data.metrics["task_completion_pass_at_1"] <= 1.0
        assert "user_wer_mean" in cells[(agent, "noise_cafe")].data.metrics
    analysis = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", "plots=false", "permutations=100", "bootstrap=50"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert analysis.returncode == 0, analysis.stderr[-3000:]
    report_path = Path(analysis.stdout.split("report: ")[1].split()[0])
    report_path = report_path if report_path.is_absolute() else tmp_path / report_path
    text = report_path.read_text()
    assert "cascade_local" in text and "served_cascade" in text  # deltas per agent
