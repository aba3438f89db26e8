"""The same sweep through Hydra's joblib and submitit_local launchers logs exactly what the sequential sweep logs:
the same cells, seeds, records (heard text, tool calls, effects, end DB, each turn's audio SHA-256) and metrics,
timing fields excepted."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.conftest import REPO
from tests.test_end_to_end import run_evalkit

SWEEP = ("+experiment=smoke", "domain.scenarios=[AL-005]", "+perturb=noise_cafe", "progress=false")
LAUNCHERS = {
    "sequential": (),
    "joblib": ("hydra/launcher=joblib", "hydra.launcher.n_jobs=2"),
    "submitit_local": ("hydra/launcher=submitit_local", "hydra.launcher.timeout_min=30"),
}


def _compare_module():  # scripts/ is not a package: load the checker the README documents
    spec = importlib.util.spec_from_file_location("compare_records", REPO / "scripts" / "compare_records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _seeds_and_metrics(cwd: Path) -> dict[str, tuple[dict, dict]]:
    compare = _compare_module()
    client = MlflowClient(f"sqlite:///{cwd / 'mlflow.db'}")
    out = {}
    for name, run_id in compare._cells(f"sqlite:///{cwd / 'mlflow.db'}", "evalkit").items():
        local = client.download_artifacts(run_id, "seeds.json", str(cwd / "dl" / run_id))
        metrics = client.get_run(run_id).data.metrics
        # measured from the clock: wall times, and simulated_audio_s, a sum of (end - start) over turns whose start
        # moves with the measured compute time (equal durations, different float rounding); the agent's stage times
        timing = ("wall_s", "audio_s_per_wall_s", "assistant_asr_s", "simulated_audio_s", *compare.TIMING_METRICS)
        timing += ("agent_stt_ms", "agent_llm_ms", "agent_tts_ms", "trace_log_s", "latency_")  # latency percentiles
        timing += ("viewer_s",)  # the time the conversation viewer took to write
        # what the caches answered depends on what ran before (the first launch fills them) and the record checker
        # drops the records' usage: cache hits and lookups; usage totals (audio_s_sent sums turns' end - start,
        # which move with the compute time: equal durations, different float rounding, as simulated_audio_s)
        # the short-window decodes' fallbacks are counted when a clip is decoded, not when the cache answers it
        timing += ("asr_cache_", "tts_cache_", "usage_", "asr_short_window_")
        kept = {k: v for k, v in metrics.items() if not k.startswith(timing)}
        out[name] = (json.loads(Path(local).read_text()), kept)
    return out


@pytest.mark.slow
def test_joblib_and_submitit_local_log_what_the_sequential_sweep_logs(tmp_path: Path) -> None:
    dirs = {}
    for name, launcher in LAUNCHERS.items():
        cwd = tmp_path / name
        cwd.mkdir()
        run = run_evalkit(cwd, *SWEEP, *launcher, "-m")  # overrides before the flag: argparse takes them once
        assert run.returncode == 0, run.stderr[-3000:]
        dirs[name] = cwd
    compare = _compare_module()
    reference = _seeds_and_metrics(dirs["sequential"])
    assert len(reference) == 2  # the café cell and its clean twin
    for name in ("joblib", "submitit_local"):
        status = compare.main(
            [f"sqlite:///{dirs['sequential'] / 'mlflow.db'}", f"sqlite:///{dirs[name] / 'mlflow.db'}"]
        )
        assert status == 0, f"{name}: records differ from the sequential sweep"
        other = _seeds_and_metrics(dirs[name])
        differing = {
            (cell, key): (value, other.get(cell, ({}, {}))[1].get(key))
            for cell, (_, metrics) in reference.items()
            for key, value in metrics.items()
            if other.get(cell, ({}, {}))[1].get(key) != value
        }
        assert other == reference, (name, differing)


def test_the_record_checker_ignores_what_the_agents_compute_time_moves_in_the_interaction_metrics() -> None:
    """The same call on a loaded machine: every agent turn starts later by its (measured) compute time and the rest of
    the call with it. The checker drops those latencies and nothing else: a launch under another load compares equal
    (the interaction metrics once put per-event latencies in their details and failed this test's slow twin above)."""
    from tests.test_interaction_metrics import INTERACTION, RESPONSES, score

    def loaded(conversation, extra_ms: float):
        shift, turns = 0.0, []
        for turn in conversation.turns:
            shift += extra_ms * (turn.index + 1) if turn.role == "assistant" else 0.0
            turns.append(turn.model_copy(update={"start_ms": turn.start_ms + shift, "end_ms": turn.end_ms + shift}))
        return conversation.model_copy(update={"turns": turns})

    compare = _compare_module()

    def compared(conversation) -> dict:
        metrics = {name: score(name, conversation).model_dump(mode="json") for name in INTERACTION}
        return compare._strip(compare._strip(metrics, compare.TIMING_METRICS))

    slow = loaded(RESPONSES, 37.0)
    assert score("response_latency_p50", slow).score != score("response_latency_p50", RESPONSES).score
    assert compared(slow) == compared(RESPONSES)
    unanswered = RESPONSES.model_copy(update={"turns": [t for t in RESPONSES.turns if t.index != 4]})
    assert compared(unanswered) != compared(RESPONSES)  # a response the agent did not give is still a difference
