"""The architecture axis, for real (issue 13 point 6 and its "done when"): one sweep crosses the embedded agent
in-process with the same agent behind ``python -m evalkit.serve`` (a wire agent declared the Hydra way, as an
option file of the ``agent`` group on the search path), both cells land side by side in MLflow, and the served agent
completes the same tasks as the in-process one.

Clean cells only: a wire call runs on the real clock (~90 s for AL-005, ~140 s under café noise), and the noisy
cells were only checked to be scored. The analysis's deltas per agent across architectures, two of them over the
wire, are tests/test_architectures_sweep.py's; the noise condition through a sweep is tests/test_end_to_end.py's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

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
    assert set(cells) == {("cascade_local", "clean"), ("served_cascade", "clean")}
    assert {r.data.params["architecture"] for r in cells.values()} == {"cascade"}
    for run in cells.values():
        assert run.info.status == "FINISHED" and run.data.metrics["infrastructure_errors"] == 0
        assert "user_wer_mean" in run.data.metrics
    # the same agent completes the same task in-process and over the wire
    local, wire = (cells[(agent, "clean")].data.metrics for agent in ("cascade_local", "served_cascade"))
    assert wire["task_completion_pass_at_1"] == local["task_completion_pass_at_1"]
