"""Judge metrics wired into cell scoring: the cell's own scoring path (`score_record` + `build_cell_judge`) against
the real local OpenAI-compatible server of tests/openai_server.py. No speech: records are constructed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.cell import build_cell_judge, judge_params, score_record
from evalkit.config.schema import cell_key, identity_payload, validate_config
from evalkit.judges import JudgeConfigError
from evalkit.metrics import get_metric
from evalkit.metrics.judged import skipped_reason
from evalkit.records import Conversation
from tests.conftest import CONF_DIR
from tests.openai_server import OpenAIStubServer, RecordedRequest, Reply, free_port, reply_json
from tests.test_judges import FAITH_DIMS, PROG_DIMS, conversation, dims

KEY_ENV = "EVALKIT_TEST_CELL_JUDGE_KEY"
SECRET = "sk-cell-test-0b9d-never-log-me"
SELECTED = ["eva_a", "eva_x", "speakability", "user_wer"]


def judged_conversation() -> Conversation:
    conv = conversation()
    for turn in conv.turns:  # the cell's assistant-ASR step fills these (agent_speech_fidelity reads them)
        if turn.role == "assistant":
            turn.heard_text = turn.intended_text
    return conv


# One answer per judge metric, recognised by a phrase of its system prompt (the order of calls does not matter).
ANSWERS = {
    "fabricating_tool_parameters": {"dimensions": dims(FAITH_DIMS, hallucination=2), "rating": 2},  # -> 0.5
    "unnecessary_tool_calls": {"dimensions": dims(PROG_DIMS), "rating": 3},  # -> 1.0
    "text-to-speech output": {
        "turns": [
            {"turn_id": 0, "transcript": "hello", "explanation": "ok", "rating": 1},
            {"turn_id": 2, "transcript": "sk 530", "explanation": "ok", "rating": 1},
        ]
    },  # -> 1.0
    "voice assistants. You judge": {
        "turns": [
            {"turn_id": 0, "explanation": "fine", "failure_modes": [], "rating": 3},
            {"turn_id": 2, "explanation": "padded", "failure_modes": ["verbosity_or_filler"], "rating": 2},
        ]
    },  # -> mean(1.0, 0.5) = 0.75
    "text that a voice agent sends": {
        "turns": [
            {"turn_id": 0, "explanation": "plain", "rating": 1},
            {"turn_id": 2, "explanation": "has a code", "rating": 0},
        ]
    },  # -> 0.5
}


class RoutingServer(OpenAIStubServer):
    """Answers each request with the judge answer of the metric whose system prompt it carries."""

    def __init__(self) -> None:
        super().__init__([Reply(status=500)])

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
        system = request.body["messages"][0]["content"]
        for phrase, answer in ANSWERS.items():
            if phrase in system:
                return reply_json(answer)
        return Reply(status=400)


def composed(*overrides: str):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides))
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


def judge_overrides(base_url: str, cache: Path, *extra: str) -> list[str]:
    return [
        "judge=openai_compatible",
        f"judge.base_url={base_url}",
        "judge.model=judge-model-a",
        f"judge.api_key_env={KEY_ENV}",
        f"judge.cache_dir={cache}",
        "judge.max_retries=0",
        "judge.timeout_s=5",
        *extra,
    ]


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def test_offline_judge_metrics_are_skipped_and_never_replaced_by_proxies():
    config = composed()
    assert config.judge.name == "none" and build_cell_judge(config) is None
    record = score_record(judged_conversation(), [*SELECTED, "faithfulness_proxy"], build_cell_judge(config))
    m = record.metrics
    for name in ("faithfulness", "agent_speech_fidelity", "conversation_progression", "conciseness", "speakability"):
        assert m[name].score is None and m[name].passed is None
        assert m[name].details == {"skipped": f"judge=none: offline run; use {name}_proxy or judge=openai_compatible"}
    for name in ("eva_a", "eva_x"):  # skipped composites, never passes or fails (not even on task completion)
        assert m[name].score is None and m[name].passed is None
        assert m[name].details["skipped"] == f"judge=none: offline run; use {name}_proxy or judge=openai_compatible"
    failed_task = judged_conversation()
    failed_task.expected_db = {"reservations": {"X": "changed"}}
    m2 = score_record(failed_task, SELECTED).metrics
    assert m2["task_completion"].passed is False and m2["eva_a"].passed is None and "skipped" in m2["eva_a"].details
    assert m["faithfulness_proxy"].score is not None  # the proxy still scores under its own name
    assert m["task_completion"].score == 1.0 and m["user_wer"].score is not None
    assert skipped_reason("conciseness").startswith("judge=none")


def test_judge_metrics_are_registered_with_the_papers_thresholds():
    expected = {"faithfulness": 0.5, "agent_speech_fidelity": 0.95, "conversation_progression": 0.5}
    expected |= {"conciseness": 0.5, "speakability": None}
    for name, threshold in expected.items():
        metric = get_metric(name)
        assert metric.kind == "judge" and metric.threshold == threshold
    assert get_metric("agent_speech_fidelity").needs == {"assistant_asr"}
    assert get_metric("eva_a").requires == ("task_completion", "faithfulness", "agent_speech_fidelity")
    assert get_metric("eva_x").requires == ("turn_taking", "conversation_progression", "conciseness")


def test_judge_scores_land_with_pass_flags_composites_and_the_cache(tmp_path, key_env):
    with RoutingServer() as server:
        config = composed(*judge_overrides(server.base_url, tmp_path / "cache"))
        record = score_record(judged_conversation(), SELECTED, build_cell_judge(config))
        m = record.metrics
        assert len(server.requests) == 5  # one call per judge metric
        assert (m["faithfulness"].score, m["faithfulness"].passed) == (0.5, True)
        assert (m["agent_speech_fidelity"].score, m["agent_speech_fidelity"].passed) == (1.0, True)
        assert (m["conversation_progression"].score, m["conversation_progression"].passed) == (1.0, True)
        assert (m["conciseness"].score, m["conciseness"].passed) == (0.75, True)
        assert (m["speakability"].score, m["speakability"].passed) == (0.5, None)  # a diagnostic: no pass flag
        assert m["faithfulness"].details["judge_model"] == "judge-model-a"
        # EVA-A: task completion 1.0, faithfulness 0.5 >= 0.5, speech fidelity 1.0 >= 0.95 -> pass
        assert (m["eva_a"].score, m["eva_a"].passed) == (1.0, True)
        assert m["eva_a"].details["components"] == {
            "task_completion": 1.0,
            "faithfulness": 0.5,
            "agent_speech_fidelity": 1.0,
        }
        assert m["eva_x"].details["components"]["conciseness"] == 0.75
        assert m["eva_x"].passed is (m["turn_taking"].score >= 0.8)
        # The judge saw the domain's real agent instructions, tools and the scenario's date (the cell's context).
        faith = next(r for r in server.requests if "fabricating_tool_parameters" in r.body["messages"][0]["content"])
        prompt = json.dumps(faith.body["messages"])
        assert "rebook_flight" in prompt and "Authentication" in prompt
        assert faith.headers["Authorization"] == f"Bearer {SECRET}"

        again = score_record(judged_conversation(), SELECTED, build_cell_judge(config))  # a fresh judge, same cache
        assert len(server.requests) == 5  # every judgment came from the cache
        assert again.metrics["faithfulness"].details["cached"] is True
        assert {n: v.score for n, v in again.metrics.items()} == {n: v.score for n, v in m.items()}


def test_judge_endpoint_down_fails_its_metrics_with_the_reason_and_keeps_the_others(tmp_path, key_env):
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = composed(*judge_overrides(url, tmp_path / "cache"))
    record = score_record(judged_conversation(), SELECTED, build_cell_judge(config))
    m = record.metrics
    for name in ("faithfulness", "agent_speech_fidelity", "conversation_progression", "conciseness", "speakability"):
        assert m[name].score is None
        assert "unavailable" in m[name].details["failed"] and url in m[name].details["failed"]
    assert m["task_completion"].score == 1.0 and m["turn_taking"].score is not None and m["user_wer"].score is not None
    assert m["eva_a"].score is None and "unscored" in m["eva_a"].details["reason"]


def test_judge_params_name_model_and_prompts_but_never_the_key(tmp_path, key_env):
    config = composed(*judge_overrides("http://127.0.0.1:9/v1", tmp_path / "cache"))
    params = judge_params(build_cell_judge(config))
    assert params["judge.model"] == "judge-model-a"
    assert params["judge.faithfulness.prompt_version"] == "faithfulness/v1"
    assert len(params["judge.conciseness.prompt_hash"]) == 12
    flat = json.dumps(params) + json.dumps(identity_payload(config))
    assert SECRET not in flat and KEY_ENV not in flat
    assert judge_params(None) == {"judge.name": "none"}


def test_missing_key_stops_the_cell_before_any_conversation(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    config = composed(*judge_overrides("http://127.0.0.1:9/v1", tmp_path / "cache"))
    with pytest.raises(JudgeConfigError, match=KEY_ENV):
        build_cell_judge(config)


def test_cell_key_ignores_judge_plumbing_but_not_the_judge(tmp_path):
    base = judge_overrides("http://127.0.0.1:9/v1", tmp_path / "a")
    key = cell_key(composed(*base))
    plumbing = ("judge.cache_dir=/elsewhere", "judge.timeout_s=30", "judge.max_retries=7", "judge.seed=3")
    assert cell_key(composed(*base, *plumbing)) == key
    assert cell_key(composed(*base, "judge.model=judge-model-b")) != key
    assert cell_key(composed(*base, "judge.temperature=0.7")) != key
    offline = composed()
    assert "judge" not in identity_payload(offline)  # judge=none keeps the offline cell keys of before
    assert cell_key(offline) != key


def test_offline_cells_do_not_pay_for_judge_preparation():
    from evalkit.metrics import required_preparation

    assert required_preparation(["eva_a", "eva_x"], judge=False) == set()  # skipped: no agent-audio ASR
    assert required_preparation(["eva_a"], judge=True) == {"assistant_asr"}  # the judge reads the agent transcript
    assert required_preparation(["eva_a_proxy"], judge=False) == {"assistant_asr"}  # the proxy always needs it


def test_default_metrics_show_eva_a_and_eva_x_offline_and_judged():
    config = composed()
    from evalkit.metrics import resolve

    assert {"eva_a_proxy", "eva_x_proxy", "eva_a", "eva_x", "faithfulness", "conciseness"} <= set(
        resolve(config.metrics)
    )
    assert {"turn_efficiency", "turn_overhead", "arga", "irreversible_action_safety"} <= set(config.metrics)


def test_eva_full_experiment_enables_every_metric():
    from evalkit.metrics import METRICS, required_preparation, resolve
    from evalkit.metrics.success import NAMES, OVERALL

    config = composed("+experiment=eva_full")
    # a scenario file's success criteria are scored whenever a scenario declares them, whatever metrics= lists
    scenario_declared = {*NAMES.values(), OVERALL}
    assert set(resolve(config.metrics)) == set(METRICS) - scenario_declared
    assert required_preparation(config.metrics, judge=False) == {"assistant_asr"}
