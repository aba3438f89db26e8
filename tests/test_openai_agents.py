"""Issue 14 point 2 (with the parts of 5 and 6 it needs): ``agent=cascade_openai`` (STT -> chat with tools -> TTS)
and ``agent=hybrid_openai`` (audio-in chat -> TTS) against a real OpenAI-compatible server on 127.0.0.1
(tests/openai_voice_server.py: Whisper tiny.en, eSpeak NG, and evalkit's local dialogue policy emitting real tool
calls). Real cells, a real SQLite MLflow store; the CLI cases run ``python -m evalkit``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from evalkit.agents.base import AgentContext, ToolBox
from evalkit.cell import run_cell
from evalkit.config.schema import RunConfig, cell_key, validate_config
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios
from evalkit.records import CellResult
from evalkit.tracking.store import FAILURE_TAG, resolve_target
from evalkit.wire.openai_http.agent import tool_schemas
from evalkit.wire.openai_http.client import PCM_SAMPLE_RATE, Endpoint, speech
from evalkit.wire.openai_http.config import CascadeOpenAIConfig
from evalkit.wire.tools.remote import RemoteRegistry
from tests.openai_server import free_port
from tests.openai_voice_server import CHAT_MODEL, STT_MODEL, TTS_MODEL, VoiceAgentServer
from tests.test_config import composed
from tests.test_preflight import assert_no_cell_started, evalkit_cli, preflight_refusal

QUICK = ("simulator.max_user_turns=2",)  # two caller turns: enough for a tool call, a retry or a failure
MALFORMED = ("unknown_tool", "invalid_arguments")  # the harness's verdicts on a call it could not run


def cell_config(tmp_path: Path, server: VoiceAgentServer, agent: str, scenario: str, *extra: str) -> RunConfig:
    raw = composed(
        *server.overrides(agent),
        "+experiment=smoke",
        f"domain.scenarios=[{scenario}]",
        "validation.enabled=false",
        "persona.variation.enabled=false",  # one fixed caller: these tests pin the agent's conversation
        "progress=false",
        "infra.max_retries=0",
        "metrics=[task_completion,tool_call_validity,response_latency]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
        "mlflow.log_audio=false",
        *extra,
    )
    return validate_config(raw)


def run(tmp_path: Path, config: RunConfig) -> tuple[CellResult, dict[str, Any], Any]:
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    record = json.loads(next((tmp_path / "cell" / "records").glob("*.json")).read_text())
    return result, record, MlflowClient(target.tracking_uri).get_run(result.run_id)


def assistant_turns(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in record["conversation"]["turns"] if t["role"] == "assistant"]


def tool_names(record: dict[str, Any]) -> list[str]:
    return [c["name"] for t in record["conversation"]["turns"] for c in t["tool_calls"]]


def timings_line(agent: str, record: dict[str, Any], server: VoiceAgentServer) -> str:
    """Per-turn means, printed with -s (the figures the issue's note reports)."""
    turns = assistant_turns(record)[1:]  # the greeting has no STT or LLM stage
    mean = {s: sum(t[s] or 0.0 for t in turns) / len(turns) for s in ("stt_ms", "llm_ms", "tts_ms", "compute_ms")}
    served = {r: f"{s.requests} req {1000 * s.seconds / s.requests:.0f} ms" for r, s in server.state.stats.items()}
    return f"{agent}: {len(turns)} answered turns, mean ms {mean}; server-side {served}"


# -- real cells -----------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cascade_openai_cell_completes_with_real_tool_calls_stage_timings_and_params(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        result, record, stored = run(tmp_path, cell_config(tmp_path, server, "cascade_openai", "AL-002"))
        print(timings_line("cascade_openai", record, server))
        stats = server.state.stats
    conversation = record["conversation"]
    assert conversation["end_reason"] == "user_end_call" and conversation["error"] is None
    # the policy's calls came back as OpenAI tool_calls, ran through the harness's executor and changed its DB. The
    # reads may fail and repeat: the server's ear (Whisper tiny.en, 30 s window) hears what it hears (the Piper
    # caller's "Raman." is "Ramen." to it, in the 30 s and the short window alike), the lookup then fails
    # authentication and the policy asks for the spelling, as a person would; the writes happen once, in order
    tools = tool_names(record)
    assert set(tools) == {"get_reservation", "search_rebooking_options", "rebook_flight", "assign_seat"}
    assert [t for t in tools if t in ("rebook_flight", "assign_seat")] == ["rebook_flight", "assign_seat"]
    calls = [c for t in conversation["turns"] for c in t["tool_calls"]]
    for failed in (c for c in calls if not c["ok"]):  # the domain's own refusal, sent back to the model
        assert failed["name"] not in ("rebook_flight", "assign_seat")
        assert failed["result"]["status"] == "error" and failed["result"]["error_type"] not in MALFORMED
        assert any(c["ok"] and c["name"] == failed["name"] for c in calls[calls.index(failed) :])  # tried again
    assert record["metrics"]["task_completion"]["score"] == 1.0 and result.aggregates["task_completion_mean"] == 1.0
    answered = assistant_turns(record)[1:]
    assert stats["chat"].requests == len(answered) + len(calls)  # one extra round per tool call
    assert stats["transcriptions"].requests == len(answered)
    assert stats["speech"].requests == len(answered) + 1  # the greeting is spoken too (no model call)
    greeting = assistant_turns(record)[0]
    assert greeting["stt_ms"] is None and greeting["llm_ms"] is None and greeting["tts_ms"] > 0
    for turn in answered:
        assert turn["stt_ms"] > 0 and turn["llm_ms"] > 0 and turn["tts_ms"] > 0 and turn["http_retries"] == 0
        assert turn["compute_ms"] >= turn["stt_ms"] + turn["llm_ms"] + turn["tts_ms"]
    heard = [t["heard_text"] for t in conversation["turns"] if t["role"] == "user" and t["heard_text"]]
    assert heard and heard[0].startswith("I need to change my flight")  # the STT endpoint's transcript
    for key in ("agent_stt_ms_mean", "agent_llm_ms_mean", "agent_tts_ms_mean"):
        assert result.aggregates[key] > 0
    params = stored.data.params
    assert params["architecture"] == "cascade" and params["agent"] == "cascade_openai"
    assert (params["agent_stt_model"], params["agent_llm_model"], params["agent_tts_model"]) == (
        STT_MODEL,
        CHAT_MODEL,
        TTS_MODEL,
    )
    assert stored.data.metrics["agent_http_retries"] == 0.0


def test_hybrid_openai_cell_sends_the_callers_audio_and_completes_the_task(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        result, record, stored = run(tmp_path, cell_config(tmp_path, server, "hybrid_openai", "AL-002"))
        print(timings_line("hybrid_openai", record, server))
        state = server.state
    conversation = record["conversation"]
    assert conversation["end_reason"] == "user_end_call"
    # the reads may repeat (a code asked again when the server's tiny.en mishears the caller's voice); the writes not
    tools = tool_names(record)
    assert set(tools) == {"get_reservation", "search_rebooking_options", "rebook_flight", "assign_seat"}
    assert [t for t in tools if t in ("rebook_flight", "assign_seat")] == ["rebook_flight", "assign_seat"]
    assert record["metrics"]["task_completion"]["score"] == 1.0
    assert "transcriptions" not in state.stats  # no STT stage: the chat model hears the audio itself
    answered = assistant_turns(record)[1:]
    assert state.audio_parts >= len(answered)  # every caller turn went out as an input_audio part
    for turn in answered:
        assert turn["stt_ms"] is None and turn["llm_ms"] > 0 and turn["tts_ms"] > 0
    assert all(t["heard_text"] is None for t in conversation["turns"] if t["role"] == "user")
    params = stored.data.params
    assert params["architecture"] == "hybrid" and params["agent_llm_model"] == CHAT_MODEL
    assert "agent_stt_model" not in params and result.aggregates["agent_llm_ms_mean"] > 0


# -- the agent's own mistakes ---------------------------------------------------------------------------------------


def test_a_mangled_tool_call_is_the_agents_error_recorded_and_scored_not_infrastructure(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        server.state.mangled[1] = [("fly_me_to_the_moon", "{}"), ("get_reservation", '{"confirmation_number": "7H')]
        result, record, stored = run(tmp_path, cell_config(tmp_path, server, "cascade_openai", "AL-001", *QUICK))
    conversation = record["conversation"]
    assert conversation["end_reason"] != "error" and conversation["infra_failures"] == []
    unknown, broken = assistant_turns(record)[1]["tool_calls"][:2]
    assert (unknown["name"], unknown["ok"], unknown["result"]["error_type"]) == (
        "fly_me_to_the_moon",
        False,
        "unknown_tool",
    )
    assert (broken["name"], broken["ok"], broken["result"]["error_type"]) == (
        "get_reservation",
        False,
        "invalid_arguments",
    )
    assert broken["arguments"] == {"_raw": '{"confirmation_number": "7H'}  # the raw text, for the record
    validity = record["metrics"]["tool_call_validity"]
    assert validity["score"] == 0.0 and len(validity["details"]["malformed"]) == 2
    assert result.aggregates["infra_failed"] == 0.0 and FAILURE_TAG not in stored.data.tags


def test_a_model_stuck_in_its_tool_loop_is_cut_at_max_tool_rounds_and_says_so(tmp_path: Path) -> None:
    scenario = load_scenarios("airline", ["AL-001"])[0]
    with VoiceAgentServer() as server:
        server.state.tools_forever = ("get_reservation", '{"confirmation_number": "WK2EXB", "last_name": "x"}')
        config = cell_config(tmp_path, server, "cascade_openai", "AL-001", "agent.llm.max_tool_rounds=3").agent
        agent = config.build()
        tools = ToolBox(ToolExecutor(tool_registry("airline"), scenario.scenario_db))
        agent.start(AgentContext("airline", scenario.current_date_time, tools))
        reply = agent.respond("Can you move me to an earlier flight today?")  # a text channel: no STT
        chat_requests = server.state.stats["chat"].requests
    assert reply.text == config.llm.tool_limit_reply and reply.audio is not None
    assert len(reply.tool_calls) == 3 and chat_requests == 4  # the 4th request's tool call was not executed
    assert agent._messages[-1] == {"role": "assistant", "content": config.llm.tool_limit_reply}


# -- infrastructure: retried, counted, and failing as infrastructure -------------------------------------------------


def test_a_429_then_success_is_retried_and_counted(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        server.state.fail_next = {"chat": [429], "transcriptions": [503], "speech": [500]}
        result, record, stored = run(tmp_path, cell_config(tmp_path, server, "cascade_openai", "AL-001", *QUICK))
        statuses = server.state.statuses
    assert record["conversation"]["end_reason"] != "error"
    assert sum(t["http_retries"] for t in record["conversation"]["turns"]) == 3
    assert assistant_turns(record)[0]["http_retries"] == 1  # the greeting's speech request was retried
    assert result.aggregates["agent_http_retries"] == 3.0 and stored.data.metrics["agent_http_retries"] == 3.0
    for route, status in (("speech", 500), ("transcriptions", 503), ("chat", 429)):
        first = statuses.index((route, status))
        assert statuses[first + 1] == (route, 200)  # the retry came straight after, and succeeded
    assert result.aggregates["infra_failed"] == 0.0


def test_a_500_forever_is_an_infrastructure_failure_never_scored(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        server.state.fail_always = {"chat": 500}
        config = cell_config(tmp_path, server, "cascade_openai", "AL-001", *QUICK, "agent.retry.max_retries=2")
        result, record, stored = run(tmp_path, config)
        chat_requests = server.state.stats["chat"].requests
    conversation = record["conversation"]
    assert conversation["end_reason"] == "error" and chat_requests == 3  # 1 + agent.retry.max_retries
    assert conversation["error"].startswith("EndpointUnavailable: agent.llm endpoint (model 'evalkit-policy')")
    assert "unavailable after 3 attempt(s): HTTP 500" in conversation["error"]
    assert record["metrics"]["task_completion"]["score"] is None  # unscored, never a 0
    assert result.aggregates["infra_failed"] == 1.0 and result.aggregates["infra_failure_endpoint_unavailable"] == 1.0
    assert stored.info.status == "FAILED" and "EndpointUnavailable" in stored.data.tags[FAILURE_TAG]


def test_a_model_the_server_rejects_is_one_clear_infrastructure_error(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        config = cell_config(tmp_path, server, "cascade_openai", "AL-001", *QUICK, "agent.tts.model=tts-nope")
        result, record, stored = run(tmp_path, config)
        speech_requests = server.state.stats["speech"].requests
    error = record["conversation"]["error"]
    assert speech_requests == 1  # a 4xx is not retried
    assert error.startswith("EndpointRefused: agent.tts endpoint (model 'tts-nope') http://127.0.0.1:")
    assert "/v1/audio/speech refused the request with HTTP 404" in error and "tts-nope` does not exist" in error
    assert result.aggregates["infra_failure_endpoint_refused"] == 1.0 and stored.info.status == "FAILED"


def test_a_wrong_base_url_is_one_clear_infrastructure_error(tmp_path: Path) -> None:
    """Bad input: a stage pointed where nothing listens is retried, then fails the call as infrastructure (never the
    agent's failure, never a crash), naming the stage and the URL."""
    with VoiceAgentServer() as server:
        wrong = f"http://127.0.0.1:{free_port()}/v1"
        extra = (*QUICK, f"agent.stt.base_url={wrong}", "agent.retry.max_retries=1", "infra.max_retries=0")
        result, record, stored = run(tmp_path, cell_config(tmp_path, server, "cascade_openai", "AL-001", *extra))
    error = record["conversation"]["error"]
    assert error.startswith("EndpointUnavailable: agent.stt endpoint (model 'whisper-tiny.en')") and wrong in error
    assert record["metrics"]["task_completion"]["score"] is None  # unscored, never a 0
    assert result.aggregates["infra_failure_endpoint_unavailable"] == 1.0 and stored.info.status == "FAILED"


# -- keys ------------------------------------------------------------------------------------------------------------


def test_a_missing_key_env_is_one_line_before_any_cell(tmp_path: Path) -> None:
    """Each unset key is one line (the LLM's variable, and OPENAI_API_KEY for the other stages), before any cell."""
    llm, *stages = preflight_refusal(
        tmp_path, "agent=cascade_openai", "agent.llm.api_key_env=EVALKIT_TEST_UNSET_LLM_KEY"
    )
    assert "agent.llm.api_key_env: $EVALKIT_TEST_UNSET_LLM_KEY is not set" in llm and "agent=cascade_openai" in llm
    unset = "agent.tts.api_key_env, agent.stt.api_key_env: $OPENAI_API_KEY is not set"
    assert len(stages) == (0 if os.environ.get("OPENAI_API_KEY") else 1) and all(unset in x for x in stages)
    assert_no_cell_started(tmp_path)


def test_building_without_the_key_says_which_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALKIT_TEST_UNSET_LLM_KEY", raising=False)
    config = validate_config(composed("agent=cascade_openai", "agent.llm.api_key_env=EVALKIT_TEST_UNSET_LLM_KEY"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-for-the-other-stages")
    assert isinstance(config.agent, CascadeOpenAIConfig)
    with pytest.raises(ValueError, match=r"agent\.llm\.api_key_env: \$EVALKIT_TEST_UNSET_LLM_KEY is not set"):
        config.agent.build()


PLANTED = "sk-planted-Agent-Key-7c41e9"


@pytest.mark.slow
def test_a_planted_key_is_sent_but_never_written_anywhere_by_a_sweep(tmp_path: Path) -> None:
    with VoiceAgentServer(api_key=PLANTED) as server:
        proc = evalkit_cli(
            tmp_path,
            *server.overrides("cascade_openai", key_env="EVALKIT_TEST_AGENT_KEY"),
            "+experiment=smoke",
            "domain.scenarios=[AL-001]",
            *QUICK,
            "validation.enabled=false",
            "metrics=[task_completion,tool_call_validity]",
            "-m",
            env={"EVALKIT_TEST_AGENT_KEY": PLANTED},
        )
        seen = set(server.state.authorization)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert seen == {f"Bearer {PLANTED}"}  # every request carried the key
    assert PLANTED not in proc.stdout + proc.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "mlflow.db" for p in written) and any(".hydra" in p.parts for p in written)
    assert any(p.suffix == ".json" and "records" in p.parts for p in written)  # the artifacts are there too
    for path in written:
        assert PLANTED.encode() not in path.read_bytes(), path


def test_the_cell_key_holds_the_models_but_not_the_retry_plumbing_or_the_key_variable() -> None:
    base = cell_key(validate_config(composed("agent=cascade_openai")))
    plumbing = ("agent.retry.max_retries=9", "agent.stt.timeout_s=5", "agent.llm.api_key_env=OTHER_KEY")
    assert cell_key(validate_config(composed("agent=cascade_openai", *plumbing))) == base
    changes = ("agent.llm.model=other", "agent.tts.voice=nova", "agent.llm.max_length=64", "agent.stt.language=fr")
    for changed in changes:
        assert cell_key(validate_config(composed("agent=cascade_openai", changed))) != base, changed


# -- the client ------------------------------------------------------------------------------------------------------


def test_pcm_speech_decodes_at_its_rate() -> None:
    with VoiceAgentServer() as server:
        endpoint = Endpoint(server.base_url, TTS_MODEL, "agent.tts")
        samples, rate, retries = speech(endpoint, "Hello there.", "alloy", "pcm")
        wav, wav_rate, _ = speech(endpoint, "Hello there.", "alloy", "wav")
    assert rate == PCM_SAMPLE_RATE and retries == 0 and samples.dtype.name == "float32"
    assert abs(len(samples) / rate - len(wav) / wav_rate) < 0.01 and 0.1 < abs(samples).max() <= 1.0


# -- one sweep over the architectures ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_one_sweep_crosses_the_local_cascade_and_both_openai_agents(tmp_path: Path) -> None:
    """``agent=cascade_local,<cascade_openai option>,<hybrid_openai option> -m``: options a user writes for their own
    servers (``defaults: [cascade_openai]`` + endpoints, on ``hydra.searchpath``); the same policy behind all three,
    so the same task is completed and only the architecture and its timings differ."""
    conf = tmp_path / "conf"
    with VoiceAgentServer() as server:
        server.write_agent_option(conf, "cascade_openai", "cascade_openai_test")
        server.write_agent_option(conf, "hybrid_openai", "hybrid_openai_test")
        proc = evalkit_cli(
            tmp_path,
            f"hydra.searchpath=[file://{conf}]",
            "agent=cascade_local,cascade_openai_test,hybrid_openai_test",
            "+experiment=smoke",
            "domain.scenarios=[AL-002]",
            "validation.enabled=false",
            "persona.variation.enabled=false",  # one fixed caller for all three agents
            "metrics=[task_completion,tool_call_validity,response_latency]",
            "-m",
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db").search_runs(["1"])
    cells = {r.data.params["agent"]: r for r in runs if r.data.tags.get("evalkit.kind") == "cell"}
    assert set(cells) == {"cascade_local", "cascade_openai_test", "hybrid_openai_test"}
    architectures = {name: run.data.params["architecture"] for name, run in cells.items()}
    assert architectures == {
        "cascade_local": "cascade",
        "cascade_openai_test": "cascade",
        "hybrid_openai_test": "hybrid",
    }
    for name, run in cells.items():
        assert run.info.status == "FINISHED" and run.data.metrics["task_completion_mean"] == 1.0, name
        assert run.data.metrics["agent_llm_ms_mean"] > 0 and run.data.metrics["agent_tts_ms_mean"] > 0
    assert "agent_stt_ms_mean" not in cells["hybrid_openai_test"].data.metrics
    assert cells["cascade_openai_test"].data.params["agent_stt_model"] == STT_MODEL


def test_tool_schemas_come_from_the_local_registry_or_as_a_remote_tool_endpoint_serves_them() -> None:
    local = ToolBox(ToolExecutor(tool_registry("airline"), {}))
    schemas = tool_schemas(AgentContext("airline", "2026-06-18 10:50 PDT", local))
    assert [s["function"]["name"] for s in schemas] == tool_registry("airline").names
    assert all(s["type"] == "function" and s["function"]["parameters"]["type"] == "object" for s in schemas)
    served = RemoteRegistry(schemas)  # what GET <tool_endpoint>/tools answers, as evalkit.serve's agents see it
    remote = ToolBox(SimpleNamespace(registry=served))  # type: ignore[arg-type]
    assert tool_schemas(AgentContext("airline", "2026-06-18 10:50 PDT", remote)) == schemas
