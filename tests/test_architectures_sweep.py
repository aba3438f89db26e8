"""Issue 14's "done when": one sweep over three agent architectures — the embedded cascade in process, an LLM
cascade on an OpenAI-compatible server, a speech-to-speech model over the Realtime protocol — with the LLM caller
(``simulator=llm``), offline against the test servers on 127.0.0.1, and the analysis comparing the agents.

The calls stop after five caller turns: the wire agents run on the real clock (AL-002 whole is ~11 caller turns, up
to ~2 min a call), and what is checked of each cell is that it finishes scored with its tool calls scored, and AL-002
makes at the fourth caller turn (the lookup by name). Whole calls over the wire are test_openai_agents.py's and
test_openai_realtime.py's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mlflow.tracking import MlflowClient

from tests.conftest import REPO
from tests.openai_voice_server import VoiceAgentServer
from tests.realtime_server import MODEL, RealtimeTestServer
from tests.test_end_to_end import run_evalkit

pytestmark = pytest.mark.slow


def test_one_sweep_compares_three_architectures_with_the_llm_caller(tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    with VoiceAgentServer() as voice_server, RealtimeTestServer() as realtime_server:
        voice_server.write_agent_option(conf, "cascade_openai", "llm_cascade")
        realtime = {"defaults": ["openai_realtime", "_self_"], "name": "s2s_model"}
        realtime |= {"url": realtime_server.url, "model": MODEL, "api_key_env": None}
        (conf / "agent" / "s2s_model.yaml").write_text(yaml.safe_dump(realtime, sort_keys=False))
        sweep = run_evalkit(
            tmp_path,
            f"hydra.searchpath=[file://{conf}]",
            "agent=cascade_local,llm_cascade,s2s_model",
            *voice_server.simulator_overrides(),
            "+perturb=noise_cafe",
            "perturb.snr_db=20",
            "+experiment=smoke",
            "domain.scenarios=[AL-002]",
            "validation.enabled=false",
            "simulator.max_user_turns=5",  # the first tool call comes at the 4th: one turn of margin
            "metrics=[task_completion,tool_call_validity,response_latency]",
            "progress=false",
            "-m",
        )
        assert sweep.returncode == 0, sweep.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("evalkit").experiment_id])
    cells = {
        (r.data.params["agent"], r.data.params["perturb"]): r for r in runs if r.data.tags.get("evalkit.kind") == "cell"
    }
    agents = {"cascade_local": "cascade", "llm_cascade": "cascade", "s2s_model": "s2s"}
    assert set(cells) == {(a, p) for a in agents for p in ("clean", "noise_cafe")}
    for (agent, _), run in cells.items():
        assert run.info.status == "FINISHED" and run.data.params["architecture"] == agents[agent]
        assert run.data.params["simulator"] == "llm"
        assert run.data.metrics["infrastructure_errors"] == 0.0
        assert 0.0 <= run.data.metrics["task_completion_mean"] <= 1.0
    for agent in agents:  # each agent called the harness's tools (under noise a call may end before its first one)
        validity = [cells[(agent, p)].data.metrics.get("tool_call_validity_mean") for p in ("clean", "noise_cafe")]
        assert any(v is not None and 0.0 <= v <= 1.0 for v in validity), (agent, validity)
    analysis = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", "plots=false", "permutations=100", "bootstrap=50"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert analysis.returncode == 0, analysis.stderr[-3000:]
    report = Path(analysis.stdout.split("report: ")[1].split()[0])
    text = (report if report.is_absolute() else tmp_path / report).read_text()
    assert all(agent in text for agent in agents)  # the deltas, agent by agent
