"""Issue 14 point 3: ``simulator=llm``, an OpenAI-compatible chat model as the caller, prompted with the App. K
structure and hanging up through its ``end_call`` tool, against tests/openai_voice_server.py on 127.0.0.1 (its caller
policy replays evalkit's scripted simulator from each request's history). Real cells with the embedded agent
``cascade_local``, a real SQLite MLflow store; the CLI cases run ``python -m evalkit``."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from evalkit import usage
from evalkit.call.host import CallHost
from evalkit.cell import run_cell
from evalkit.cell.run import NO_JUDGE, fault_kind
from evalkit.config.schema import RunConfig, cell_key, validate_config
from evalkit.domains.scenarios import load_scenarios
from evalkit.prompts import simulator_prompt_id
from evalkit.records import CellResult
from evalkit.simulator.persona import PersonaSpec
from evalkit.tracking.store import FAILURE_TAG, resolve_target
from evalkit.validation import JUDGE_GATES
from evalkit.wire.openai_http import client as http_client
from evalkit.wire.openai_http.cache import ResponseCache, open_cache, request_key
from evalkit.wire.openai_http.client import EndpointAnswerInvalid
from evalkit.wire.openai_http.simulator import LlmSimulator, LlmSimulatorConfig
from tests.conftest import REPO
from tests.openai_voice_server import CALLER_MODEL, VoiceAgentServer
from tests.test_config import composed
from tests.test_preflight import assert_no_cell_started, preflight_refusal

SCENARIO = "AL-002"  # a short airline call the scripted caller and cascade_local complete (task completion 1)
QUICK = ("simulator.max_user_turns=2",)  # two caller turns: enough for a retry or a failure


def sim_config(tmp_path: Path, server: VoiceAgentServer, *extra: str, store: str = "mlflow.db") -> RunConfig:
    raw = composed(
        *server.simulator_overrides(),
        "+experiment=smoke",
        f"domain.scenarios=[{SCENARIO}]",
        "trials=1",
        "progress=false",
        "infra.max_retries=0",
        "metrics=[task_completion,tool_call_validity]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / store}",
        "mlflow.log_audio=false",
        f"simulator.cache_dir={tmp_path / 'cache'}",
        *extra,
    )
    return validate_config(raw)


@dataclass
class Ran:
    result: CellResult
    record: dict[str, Any]
    stored: Any
    uri: str


def run_at(folder: Path, config: RunConfig) -> Ran:
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, folder)
    result = run_cell(config, target, folder / "cell")
    record = json.loads(next((folder / "cell" / "records").glob("*.json")).read_text())
    return Ran(result, record, MlflowClient(target.tracking_uri).get_run(result.run_id), target.tracking_uri)


def user_texts(record: dict[str, Any]) -> list[str]:
    return [t["intended_text"] for t in record["conversation"]["turns"] if t["role"] == "user"]


# -- a real cell, then the same cell again from the cache --------------------------------------------------------------


@dataclass
class FirstRun:
    server: VoiceAgentServer
    tmp: Path
    ran: Ran
    caller_requests: int


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstRun]:
    tmp = tmp_path_factory.mktemp("llmsim")
    with VoiceAgentServer() as server:
        ran = run_at(tmp / "first", sim_config(tmp, server, store="first.db"))
        yield FirstRun(server, tmp, ran, server.state.caller_requests)


@pytest.mark.slow
def test_the_llm_caller_finishes_a_real_cell_with_a_task_completion_value_and_logs_its_params(first_run) -> None:
    ran = first_run.ran
    conversation = ran.record["conversation"]
    assert conversation["end_reason"] == "user_end_call" and conversation["error"] is None
    assert ran.record["metrics"]["task_completion"]["score"] == 1.0 and ran.stored.info.status == "FINISHED"
    # the caller is the chat model: one request per caller turn, its words through eSpeak and the agent's Whisper
    turns = user_texts(ran.record)
    assert first_run.caller_requests == len(turns) and turns[0] == "I need to change my flight to a different day."
    heard = [t["heard_text"] for t in conversation["turns"] if t["role"] == "user" and t["heard_text"]]
    assert heard and all(t["audio_sha256"].get("user_clean") for t in conversation["turns"] if t["role"] == "user")
    # one seed per conversation, from (cell seed, scenario, trial, attempt), sent with every request and recorded
    seeds = set(first_run.server.state.caller_seeds[: first_run.caller_requests])
    assert seeds == {conversation["simulator_seed"]} and isinstance(conversation["simulator_seed"], int)
    params = ran.stored.data.params
    assert params["simulator"] == "llm" and params["simulator_model"] == CALLER_MODEL
    assert (params["simulator_temperature"], params["simulator_top_p"], params["simulator_max_tokens"]) == (
        "0.7",
        "1.0",
        "200",
    )
    assert "(seed, scenario, trial, attempt)" in params["simulator_seed"]
    assert params["simulator_prompt"] == simulator_prompt_id()
    assert "LLM caller 'evalkit-caller' (temperature 0.7, a seed per trial)" in params["randomness"]
    metrics = ran.stored.data.metrics
    assert metrics["simulator_requests"] == first_run.caller_requests and metrics["simulator_cache_hits"] == 0.0
    assert metrics["simulator_http_retries"] == 0.0


def test_the_caller_hears_the_agents_greeting_first(first_run) -> None:
    """App. K: the conversation starts with the agent's greeting; the caller's first request carries it."""
    greeting = first_run.ran.record["conversation"]["turns"][0]
    assert greeting["role"] == "assistant" and greeting["intended_text"].strip()
    assert first_run.server.state.caller_openings[0] == greeting["intended_text"].strip()


def test_a_caller_greeted_with_no_words_opens_on_the_cue(monkeypatch, tmp_path) -> None:
    chat = ScriptedChat({"role": "assistant", "content": "Hi, I need to change my flight."})
    sim = caller(monkeypatch, chat, tmp_path)
    sim.hear_greeting("   ")
    sim.first_utterance()
    assert chat.bodies[0]["messages"][1] == {"role": "user", "content": sim.texts["opening_cue"]}


def test_the_caller_hangs_up_by_calling_end_call_after_its_goodbye(first_run) -> None:
    conversation = first_run.ran.record["conversation"]
    last = conversation["turns"][-1]
    assert last["role"] == "user" and last["intended_text"] == "No, that's all. Thank you, goodbye."
    assert last["heard_text"] is None  # a hang-up turn is recorded, never sent to the agent
    assert conversation["validation"]["valid"] and conversation["validation"]["attempts"] == 1


def _compare_module() -> Any:  # scripts/ is not a package: load the checker the README documents
    spec = importlib.util.spec_from_file_location("compare_records", REPO / "scripts" / "compare_records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_a_rerun_from_the_cache_asks_the_chat_server_nothing_and_gives_identical_records(first_run, capsys) -> None:
    server, tmp = first_run.server, first_run.tmp
    before = server.state.caller_requests
    second = run_at(tmp / "second", sim_config(tmp, server, store="second.db"))
    assert server.state.caller_requests == before  # every answer came from the cache
    metrics = second.stored.data.metrics
    assert metrics["simulator_requests"] == 0.0 and metrics["simulator_cache_hits"] == first_run.caller_requests
    assert _compare_module().main([first_run.ran.uri, second.uri]) == 0, capsys.readouterr().out
    assert second.record["conversation"]["simulator_seed"] == first_run.ran.record["conversation"]["simulator_seed"]


# -- the validation gate (App. D.1) with the LLM caller ----------------------------------------------------------------


@pytest.mark.slow
def test_a_premature_hang_up_is_regenerated_with_a_new_seed_and_the_rerun_is_counted_by_reason(first_run) -> None:
    server, tmp = first_run.server, first_run.tmp / "gate"
    server.state.hang_up_early = 1  # the next conversation hangs up in the turn that gives its confirmation code
    seen = len(server.state.caller_seeds)
    ran = run_at(tmp, sim_config(tmp, server, "validation.max_reruns=2"))
    seeds = list(dict.fromkeys(server.state.caller_seeds[seen:]))
    validation = ran.record["conversation"]["validation"]
    assert validation["valid"] and validation["attempts"] == 2 and validation["attempt"] == 1
    first_flags = validation["flags"][0]
    assert [f["gate"] for f in first_flags] == ["premature_ending"] and not first_flags[0]["infrastructure"]
    assert len(seeds) == 2 and ran.record["conversation"]["simulator_seed"] == seeds[1]  # a rerun: a new seed
    assert ran.record["metrics"]["task_completion"]["score"] == 1.0  # the kept, valid attempt
    metrics = ran.stored.data.metrics
    assert metrics["sim_reruns"] == 1.0 and metrics["sim_rerun_gate_premature_ending"] == 1.0
    assert metrics["sim_rerun_simulator"] == 1.0 and metrics["sim_rerun_infrastructure"] == 0.0
    for gate in ("valid_end", "outside_goal", "duplicate_modification"):  # every gate's count is logged, 0 included
        assert metrics[f"sim_rerun_gate_{gate}"] == 0.0


def test_without_a_judge_the_llm_judge_gates_are_recorded_as_skipped_never_passed(first_run) -> None:
    validation = first_run.ran.record["conversation"]["validation"]
    assert validation["skipped"] == dict.fromkeys(JUDGE_GATES, NO_JUDGE)
    metrics = first_run.ran.stored.data.metrics
    for gate in JUDGE_GATES:
        assert metrics[f"sim_gate_skipped_{gate}"] == 1.0 and metrics[f"sim_rerun_gate_{gate}"] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("gate", JUDGE_GATES)
def test_a_conversation_the_judge_fails_is_regenerated_and_the_rerun_counted_by_gate(first_run, gate) -> None:
    """App. D.1.2/D.1.3 through judge=openai_compatible (the test server's judge route): the first attempt is judged
    corrupted (M.7 rating 0) or badly spoken (M.6: a user turn rated 1), regenerated with a new seed, and the kept
    attempt passes both judges; the speech judge reads a transcript of the caller's clean audio."""
    server, tmp = first_run.server, first_run.tmp / f"judged_{gate}"
    server.state.judge_fail = {gate: 1}
    judged = len(server.state.judged)
    # a seed of its own: the caller's seeds (and cached answers) of the other gate tests stay theirs
    seed = 11 + JUDGE_GATES.index(gate)
    ran = run_at(tmp, sim_config(tmp, server, *server.judge_overrides(), "validation.max_reruns=2", f"seed={seed}"))
    validation = ran.record["conversation"]["validation"]
    assert validation["valid"] and validation["attempts"] == 2 and validation["attempt"] == 1
    assert [f["gate"] for f in validation["flags"][0]] == [gate] and not validation["flags"][0][0]["infrastructure"]
    assert validation["flags"][1] == [] and validation["skipped"] == {}  # the kept attempt: judged, and clean
    requests = server.state.judged[judged:]
    assert [g for g, _ in requests] == [*JUDGE_GATES, *JUDGE_GATES]  # both judges on each attempt
    speech = next(text for g, text in requests if g == "user_speech_fidelity")
    user_turns = [t for t in ran.record["conversation"]["turns"] if t["role"] == "user"]
    assert f"intended: {user_turns[0]['intended_text']}" in speech and "flight" in speech.split("audio transcript:")[1]
    metrics = ran.stored.data.metrics
    assert metrics["sim_reruns"] == 1.0 and metrics[f"sim_rerun_gate_{gate}"] == 1.0
    assert metrics["sim_rerun_simulator"] == 1.0 and metrics["sim_rerun_infrastructure"] == 0.0
    assert all(metrics[f"sim_gate_skipped_{g}"] == 0.0 for g in JUDGE_GATES)
    assert ran.record["metrics"]["task_completion"]["score"] == 1.0


@pytest.mark.slow
def test_a_judge_that_refuses_leaves_the_gates_skipped_with_the_reason(first_run) -> None:
    server, tmp = first_run.server, first_run.tmp / "judge_refuses"
    ran = run_at(tmp, sim_config(tmp, server, *server.judge_overrides(), "judge.model=no-such-judge", "seed=13"))
    validation = ran.record["conversation"]["validation"]
    assert validation["attempts"] == 1 and set(validation["skipped"]) == set(JUDGE_GATES)
    assert all("no-such-judge" in why for why in validation["skipped"].values())
    assert ran.stored.data.metrics["sim_gate_skipped_user_behavioral_fidelity"] == 1.0


# -- failures of the simulator's server --------------------------------------------------------------------------------


def test_a_429_then_success_is_retried_and_counted(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        server.state.fail_next = {"chat": [429]}
        ran = run_at(tmp_path, sim_config(tmp_path, server, *QUICK, "validation.enabled=false"))
        statuses = server.state.statuses
    assert ran.record["conversation"]["end_reason"] == "max_turns" and ran.record["conversation"]["error"] is None
    assert statuses[:2] == [("chat", 429), ("chat", 200)]  # the retry came straight after, and succeeded
    metrics = ran.stored.data.metrics
    # 3 answers: the loop asks for the caller's next words after each agent turn, the turn limit's last one included
    assert metrics["simulator_http_retries"] == 1.0 and metrics["simulator_requests"] == 3.0
    assert metrics["infra_failed"] == 0.0 and ran.stored.info.status == "FINISHED"


def test_a_simulator_server_that_keeps_failing_is_an_infrastructure_failure_counted_as_the_simulators(
    tmp_path: Path,
) -> None:
    with VoiceAgentServer() as server:
        server.state.fail_always = {"chat": 500}
        extra = (*QUICK, "validation.enabled=false", "simulator.retry.max_retries=1")
        ran = run_at(tmp_path, sim_config(tmp_path, server, *extra))
    conversation = ran.record["conversation"]
    assert conversation["end_reason"] == "error"
    assert conversation["error"].startswith("EndpointUnavailable: simulator endpoint (model 'evalkit-caller')")
    assert ran.record["metrics"]["task_completion"]["score"] is None  # unscored, never the agent's 0
    metrics = ran.stored.data.metrics
    assert metrics["infra_failure_simulator_endpoint_unavailable"] == 1.0
    assert "infra_failure_endpoint_unavailable" not in metrics  # not counted as the agent's endpoint
    assert ran.stored.info.status == "FAILED" and "simulator endpoint" in ran.stored.data.tags[FAILURE_TAG]


def test_caller_side_endpoint_failures_are_counted_apart_from_the_agents() -> None:
    assert fault_kind("EndpointUnavailable: simulator endpoint (model 'm') http://x is unavailable") == (
        "simulator_endpoint_unavailable"
    )
    assert fault_kind("EndpointRefused: voice endpoint (model 'tts') http://x refused") == "voice_endpoint_refused"
    assert fault_kind("EndpointRefused: agent.llm endpoint (model 'm') http://x refused") == "endpoint_refused"
    assert fault_kind("RuntimeError: simulator exploded") == "crash"


def test_a_missing_key_env_is_one_preflight_line(tmp_path: Path) -> None:
    [line] = preflight_refusal(tmp_path, "simulator=llm", "simulator.api_key_env=EVALKIT_TEST_UNSET_SIM_KEY")
    assert "simulator.api_key_env" in line and "$EVALKIT_TEST_UNSET_SIM_KEY is not set" in line
    assert "simulator=llm" in line
    assert_no_cell_started(tmp_path)


# -- the caller itself -------------------------------------------------------------------------------------------------


class ScriptedChat:
    """Stands in for ``client.chat``: answers the given messages in turn and keeps every request body."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, endpoint: Any, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        self.bodies.append(json.loads(json.dumps(body)))
        return self.answers.pop(0), 0


END = {"type": "function", "function": {"name": "end_call", "arguments": "{}"}, "id": "c1"}


def caller(monkeypatch: pytest.MonkeyPatch, chat: ScriptedChat, tmp_path: Path, **config: Any) -> LlmSimulator:
    monkeypatch.setattr(http_client, "chat", chat)
    settings = {"name": "llm", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": None}
    sim = LlmSimulatorConfig(**(settings | {"cache_dir": str(tmp_path / "c")} | config))
    scenario = next(s for s in load_scenarios("airline") if s.id == SCENARIO)
    return sim.build(scenario, None, np.random.default_rng(7))


def test_words_alone_never_end_the_call_and_end_call_without_words_is_a_goodbye(monkeypatch, tmp_path) -> None:
    chat = ScriptedChat(
        {"role": "assistant", "content": "Thanks, goodbye."},  # says goodbye, calls no tool: the call goes on
        {"role": "assistant", "content": None, "tool_calls": [END]},
    )
    sim = caller(monkeypatch, chat, tmp_path)
    first = sim.first_utterance()
    assert (first.text, first.end_call) == ("Thanks, goodbye.", False)
    last = sim.respond("Is there anything else I can help you with?")
    assert (last.text, last.end_call) == ("Goodbye.", True)
    body = chat.bodies[-1]
    assert [t["function"]["name"] for t in body["tools"]] == ["end_call"]
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert body["messages"][1]["content"].startswith("[The agent has answered")
    assert body["seed"] == sim.sampling_seed and body["temperature"] == 0.7 and body["max_tokens"] == 200


def test_an_answer_with_neither_words_nor_end_call_is_the_servers_failure_and_not_cached(monkeypatch, tmp_path) -> None:
    other_tool = {"type": "function", "function": {"name": "transfer", "arguments": "{}"}, "id": "x"}
    chat = ScriptedChat({"role": "assistant", "content": "", "tool_calls": [other_tool]})
    sim = caller(monkeypatch, chat, tmp_path)
    with pytest.raises(EndpointAnswerInvalid, match="neither words nor an end_call tool call"):
        sim.first_utterance()
    assert not [p for p in (tmp_path / "c").rglob("*") if p.is_file()]


def test_the_seed_derives_from_the_conversations_stream_and_keys_the_cache_even_when_not_sent(
    monkeypatch, tmp_path
) -> None:
    answer = {"role": "assistant", "content": "Hello."}
    chat = ScriptedChat(answer, answer, answer)
    a = caller(monkeypatch, chat, tmp_path, send_seed=False)
    b = caller(monkeypatch, chat, tmp_path, send_seed=False)
    assert a.sampling_seed == b.sampling_seed  # the same (cell seed, scenario, trial, attempt) stream
    a.first_utterance()
    b.first_utterance()
    assert len(chat.bodies) == 1 and "seed" not in chat.bodies[0]  # the second came from the cache
    c = caller(monkeypatch, chat, tmp_path, send_seed=False)
    c.sampling_seed += 1  # another trial's conversation: the same request, another seed, not the same answer
    c.first_utterance()
    assert len(chat.bodies) == 2


def test_a_behavioural_personas_prompt_replaces_the_scenarios_persona_text(monkeypatch, tmp_path) -> None:
    chat = ScriptedChat()
    monkeypatch.setattr(http_client, "chat", chat)
    keyless = ("simulator=llm", "simulator.api_key_env=null", "simulator.cache_dir=null")
    config = validate_config(composed(*keyless, "persona=elderly_slow"))
    scenario = next(s for s in load_scenarios("airline") if s.id == SCENARIO)
    spec = PersonaSpec.from_config(config.persona)
    prompt = config.simulator.build(scenario, spec, np.random.default_rng(0)).messages[0]["content"]
    assert config.persona.prompt.strip() in prompt and scenario.persona.text not in prompt
    default = validate_config(composed(*keyless))
    spec = PersonaSpec.from_config(default.persona)
    prompt = default.simulator.build(scenario, spec, np.random.default_rng(0)).messages[0]["content"]
    assert scenario.persona.text in prompt and f'saying exactly: "{scenario.user_goal.starting_utterance}"' in prompt


def test_an_llm_caller_keeps_k_trials_even_when_nothing_else_is_random() -> None:
    quiet = ("persona.variation.enabled=false", "trials=3")
    assert validate_config(composed(*quiet)).trials_to_run == 1  # scripted, eSpeak, greedy ASR: one trial
    for temperature in ("0.7", "0"):  # even greedy: a server need not be deterministic
        config = validate_config(composed(*quiet, "simulator=llm", f"simulator.temperature={temperature}"))
        assert config.trials_to_run == 3 and config.random_sources()[0].startswith("simulator: LLM caller")


def test_the_cell_key_holds_model_sampling_and_prompt_but_not_plumbing() -> None:
    base = cell_key(validate_config(composed("simulator=llm")))
    plumbing = ("simulator.retry.max_retries=9", "simulator.timeout_s=5", "simulator.cache_dir=/elsewhere")
    assert cell_key(validate_config(composed("simulator=llm", *plumbing, "simulator.api_key_env=OTHER"))) == base
    for changed in (
        "simulator.model=other",
        "simulator.temperature=0",
        "simulator.top_p=0.5",
        "simulator.max_length=9",
    ):
        assert cell_key(validate_config(composed("simulator=llm", changed))) != base, changed
    assert base != cell_key(validate_config(composed()))


def test_usage_is_counted_per_conversation_even_when_calls_share_one_event_loop() -> None:
    """``concurrency``: conversations run in threads whose calls share the CallHost's loop and call the simulator off
    it (``asyncio.to_thread``); each conversation's counter sees only its own requests."""

    async def call(n: int) -> None:
        await asyncio.to_thread(usage.count, "simulator_requests", n)

    def conversation(n: int, host: CallHost) -> float:
        with usage.job() as counts:
            host.run(call(n))
        return counts["simulator_requests"]

    with CallHost(threads=4) as host, ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda n: conversation(n, host), [1, 2, 3, 4] * 5)) == [1, 2, 3, 4] * 5
    usage.count("simulator_requests")  # outside any conversation: counted nowhere, no error


# -- the cache ---------------------------------------------------------------------------------------------------------


def test_the_cache_is_content_addressed_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c")
    key = request_key({"url": "http://x/v1/chat/completions", "body": {"b": 1, "a": [1, 2]}})
    assert key == request_key({"body": {"a": [1, 2], "b": 1}, "url": "http://x/v1/chat/completions"})
    assert cache.get(key) is None
    cache.put(key, b"answer")
    assert cache.get(key) == b"answer" and (tmp_path / "c" / key[:2] / key).read_bytes() == b"answer"
    assert [p.name for p in (tmp_path / "c").rglob("*") if p.is_file()] == [key]


def test_a_cache_folder_that_cannot_be_written_runs_without_the_cache_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a_file"
    blocked.write_text("in the way")  # a folder below a file cannot be created, even by root (chmod would not stop it)
    evalkit_log = logging.getLogger("evalkit")
    monkeypatch.setattr(evalkit_log, "disabled", False)
    evalkit_log.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.WARNING, logger="evalkit"), VoiceAgentServer() as server:
            extra = (*QUICK, "validation.enabled=false", "trials=2", f"simulator.cache_dir={blocked / 'cache'}")
            ran = run_at(tmp_path, sim_config(tmp_path, server, *extra))
            requests = server.state.caller_requests
    finally:
        evalkit_log.removeHandler(caplog.handler)
    # one record (the handler may see it twice: on the evalkit logger and, propagated, on the root logger)
    warnings = list({id(r): r.message for r in caplog.records if "not writable" in r.message}.values())
    assert len(warnings) == 1 and str(blocked / "cache") in warnings[0] and "without caching" in warnings[0]
    assert requests == 6 and ran.stored.data.metrics["simulator_cache_hits"] == 0.0  # 2 conversations x 3 answers
    assert ran.stored.info.status == "FINISHED"
    assert open_cache(str(blocked / "cache"), "simulator cache").writable is False


# -- scenario files (issue 29 point 4): goal, facts with spoken forms and aliases, persona -------------------------


def scenario_file_folder(tmp_path: Path) -> Path:
    """evalkit's AL-002 as a scenario file, its facts given spoken forms and aliases and a persona of its own."""
    import yaml

    from evalkit.scenarios.file import from_scenario

    data = from_scenario(next(s for s in load_scenarios("airline") if s.id == SCENARIO))
    code = data["facts"]["confirmation_number"]
    value = code["value"] if isinstance(code, dict) else code
    data["facts"]["confirmation_number"] = {
        "value": value,
        "spoken": " ".join(value),
        "aliases": ["booking reference", "record locator"],
    }
    data["persona"]["text"] = "You are a retired teacher: patient, precise, fond of full sentences."
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / f"{SCENARIO}.yaml").write_text(yaml.safe_dump(data))
    return folder


def test_a_scenario_files_goal_facts_and_persona_reach_the_llm_callers_prompt(tmp_path: Path) -> None:
    from evalkit.scenarios.store import load_path

    folder = scenario_file_folder(tmp_path)
    (scenario,) = load_path(folder / f"{SCENARIO}.yaml")
    sim = LlmSimulatorConfig(name="llm", base_url="http://127.0.0.1:9/v1", model="m", api_key_env=None)
    prompt = sim.build(scenario, None, np.random.default_rng(0)).messages[0]["content"]
    value = scenario.facts["confirmation_number"].value
    line = f'- confirmation_number: {value} (say it as "{" ".join(value)}"; the agent may ask for it as '
    assert line + '"booking reference", "record locator")' in prompt
    assert scenario.user_goal.high_level_user_goal in prompt and "retired teacher" in prompt
    assert f'saying exactly: "{scenario.user_goal.starting_utterance}"' in prompt
    # a scenario without facts (evalkit's own) keeps EVA-Bench's line exactly
    own = next(s for s in load_scenarios("airline") if s.id == SCENARIO)
    plain = sim.build(own, None, np.random.default_rng(0)).messages[0]["content"]
    assert f"- confirmation_number: {value}\n" in plain


@pytest.mark.slow
def test_the_llm_caller_completes_a_scenario_file_call_through_the_validation_gates(tmp_path: Path) -> None:
    """A real call: the LLM caller (the local OpenAI-compatible server's caller policy, which finds the scenario by
    the fact lines of the prompt) and the embedded agent play the scenario file in text; App. D.1's gates pass."""
    from evalkit.agents.reference.local_text import LocalTextAgent
    from evalkit.call import CallSettings, TextChannel
    from evalkit.call.conversation import run_text_conversation
    from evalkit.domains import tool_registry
    from evalkit.domains.base import ToolExecutor
    from evalkit.metrics.registry import score_conversation
    from evalkit.scenarios.store import load_path
    from evalkit.validation import validate

    folder = scenario_file_folder(tmp_path)
    (scenario,) = load_path(folder / f"{SCENARIO}.yaml")
    with VoiceAgentServer(domain="airline", scenario_dir=folder) as server:
        settings = {"name": "llm", "base_url": server.base_url, "model": CALLER_MODEL, "api_key_env": None}
        caller = LlmSimulatorConfig(**settings, cache_dir=None).build(scenario, None, np.random.default_rng(0))
        registry = tool_registry("airline")
        conversation = run_text_conversation(
            scenario,
            LocalTextAgent(),
            caller,
            TextChannel(lambda text: text),
            ToolExecutor(registry, scenario.scenario_db),
            CallSettings(max_user_turns=20, max_duration_s=float("inf")),
        )
        requests = server.state.caller_requests
    assert conversation.end_reason == "user_end_call" and conversation.error is None
    assert validate(conversation, scenario, registry) == []  # App. D.1's deterministic gates
    assert score_conversation(conversation, [])["success_db"].passed is True  # the file's expected end state
    assert requests == len(conversation.user_turns)
