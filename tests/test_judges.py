"""The judge layer against a real OpenAI-compatible HTTP server on 127.0.0.1 (tests/openai_server.py)."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from evalkit.judges import (
    PROMPTS,
    Judge,
    JudgeCache,
    JudgeConfig,
    JudgeConfigError,
    JudgeContext,
    JudgeRequestError,
    JudgeUnavailable,
    UnknownJudgeMetric,
    build_judge,
    cache_key,
)
from evalkit.judges.client import backoff_delay
from evalkit.judges.prompts import progression_rating
from evalkit.judges.schemas import ProgressionOutput
from evalkit.records import AppliedEffect, Conversation, ToolCall, Turn
from tests.conftest import CONF_DIR
from tests.openai_server import OpenAIStubServer, Reply, free_port, reply_json

KEY_ENV = "EVALKIT_TEST_JUDGE_KEY"
SECRET = "sk-test-7f3a9c1e-never-store-me"
CONTEXT = JudgeContext(
    agent_role="SkyWay Airlines rebooking assistant",
    agent_instructions="Verify the caller with confirmation number and last name before any change.",
    available_tools=[{"name": "get_reservation", "parameters": {"type": "object"}}],
    current_date_time="2026-06-18 10:50 PST",
)


def conversation() -> Conversation:
    call = ToolCall(
        name="get_reservation",
        arguments={"confirmation_number": "ABC123", "last_name": "Thompson"},
        result={"status": "success", "flight": "SK530"},
        ok=True,
        t_ms=5000,
    )
    turns = [
        Turn(
            index=0, role="assistant", intended_text="Hello, SkyWay Airlines. How can I help?", start_ms=0, end_ms=2000
        ),
        Turn(
            index=1,
            role="user",
            intended_text="My code is A B C one two three, last name Thompson.",
            heard_text="my code is abc 1 2 3 last name thomson",
            start_ms=2400,
            end_ms=5000,
        ),
        Turn(
            index=2,
            role="assistant",
            intended_text="Thanks. I found flight SK530 at five thirty PM.",
            start_ms=5600,
            end_ms=8000,
            tool_calls=[call],
        ),
        Turn(index=3, role="user", intended_text="Great, goodbye.", start_ms=8400, end_ms=9000),
    ]
    return Conversation(
        scenario_id="1.2.1",
        domain="airline",
        trial=0,
        seed=7,
        turns=turns,
        end_reason="user_end_call",
        initial_db={},
        final_db={},
        expected_db={},
        key_entities={"confirmation_number": "ABC123", "last_name": "Thompson"},
    )


def dims(names, **ratings):
    return {n: {"evidence": "cited", "flagged": ratings.get(n, 3) < 3, "rating": ratings.get(n, 3)} for n in names}


FAITH_DIMS = list(PROMPTS["faithfulness"].output_model.model_fields["dimensions"].annotation.model_fields)
PROG_DIMS = list(PROMPTS["conversation_progression"].output_model.model_fields["dimensions"].annotation.model_fields)


def faithful_answer(**ratings) -> dict:
    d = dims(FAITH_DIMS, **ratings)
    return {"dimensions": d, "rating": min(v["rating"] for v in d.values())}


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def make_config(server_url: str, tmp_path: Path, **overrides) -> JudgeConfig:
    values = {
        "kind": "openai_compatible",
        "base_url": server_url,
        "model": "judge-model-a",
        "api_key_env": KEY_ENV,
        "max_retries": 2,
        "backoff_base_s": 0.5,
        "backoff_max_s": 4.0,
        "cache_dir": str(tmp_path / "cache"),
        "invalid_output_retries": 1,
        "timeout_s": 5,
    }
    values.update(overrides)
    return JudgeConfig(**values)


class Sleeps(list):
    """Records requested backoff delays instead of sleeping, so the retry tests take milliseconds."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_correct_json_is_parsed_scored_and_sent_as_an_openai_json_mode_request(tmp_path, key_env):
    with OpenAIStubServer([reply_json(faithful_answer(violating_policies=2))]) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT)
        result = judge.evaluate("faithfulness", conversation())
    assert result.failed is None and result.cached is False
    assert result.score == 0.5  # min rating 2 -> (2-1)/2
    assert result.details["dimensions"]["violating_policies"]["rating"] == 2
    assert (result.model, result.prompt_version) == ("judge-model-a", PROMPTS["faithfulness"].version)
    assert result.prompt_hash == PROMPTS["faithfulness"].prompt_hash
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    body = request.body
    assert body["model"] == "judge-model-a" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system["role"] == "system" and "fabricating_tool_parameters" in system["content"]
    # Cascade: the judge sees what the agent's STT heard, the tool call with its result, and the agent's context.
    assert "my code is abc 1 2 3 last name thomson" in user["content"]
    assert 'get_reservation {"confirmation_number":"ABC123","last_name":"Thompson"}' in user["content"]
    assert CONTEXT.agent_instructions in user["content"] and "2026-06-18 10:50 PST" in user["content"]
    assert "$" not in system["content"].replace("$120", "")  # every template placeholder was filled


def test_overall_faithfulness_is_the_minimum_even_if_the_judge_states_otherwise(tmp_path, key_env):
    answer = faithful_answer(hallucination=1)
    answer["rating"] = 3  # the judge's own overall contradicts its dimensions
    with OpenAIStubServer([reply_json(answer)]) as server:
        result = Judge(make_config(server.base_url, tmp_path), context=CONTEXT).evaluate("faithfulness", conversation())
    assert result.score == 0.0
    assert result.details["rating"] == 1 and result.details["judge_stated_rating"] == 3


def test_server_error_then_success_is_retried_with_backoff(tmp_path, key_env):
    sleeps = Sleeps()
    script = [Reply(status=500), Reply(status=503), reply_json(faithful_answer())]
    with OpenAIStubServer(script) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT, sleep=sleeps)
        result = judge.evaluate("faithfulness", conversation())
    assert result.failed is None and result.score == 1.0
    assert len(server.requests) == 3 and result.details["attempts"] == 3
    assert len(sleeps) == 2
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0  # base·2^n with jitter in [0.5, 1]


def test_rate_limit_honours_retry_after(tmp_path, key_env):
    sleeps = Sleeps()
    script = [Reply(status=429, headers={"Retry-After": "2"}), reply_json(faithful_answer())]
    with OpenAIStubServer(script) as server:
        result = Judge(make_config(server.base_url, tmp_path), context=CONTEXT, sleep=sleeps).evaluate(
            "faithfulness", conversation()
        )
    assert result.score == 1.0 and sleeps == [2.0]


def test_backoff_is_exponential_capped_and_reproducible_from_the_seed():
    import random

    assert [backoff_delay(n, 1.0, 5.0, None) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    a = [backoff_delay(n, 1.0, 30.0, random.Random(3)) for n in range(4)]
    b = [backoff_delay(n, 1.0, 30.0, random.Random(3)) for n in range(4)]
    assert a == b and all(0.5 * 2**n <= d <= 2**n for n, d in enumerate(a))


def test_garbage_text_marks_the_metric_failed_with_the_reason_and_is_not_cached(tmp_path, key_env):
    with OpenAIStubServer([Reply(content="Sure! The assistant was great, 10/10.")]) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT)
        result = judge.evaluate("faithfulness", conversation())
        assert result.score is None
        assert result.failed is not None and "not JSON" in result.failed and "2 attempt" in result.failed
        assert len(server.requests) == 2  # 1 + invalid_output_retries
        again = judge.evaluate("faithfulness", conversation())
        assert again.failed is not None and again.cached is False
        assert len(server.requests) == 4  # a failed judgment is asked again, never served from the cache


def test_broken_envelope_is_a_failed_metric_not_a_crash(tmp_path, key_env):
    with OpenAIStubServer([Reply(raw="<html>proxy error</html>")]) as server:
        result = Judge(make_config(server.base_url, tmp_path, invalid_output_retries=0), context=CONTEXT).evaluate(
            "faithfulness", conversation()
        )
    assert result.score is None and "not a chat completion" in result.failed


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ({"dimensions": dims(FAITH_DIMS, hallucination=7), "rating": 1}, "schema"),  # rating out of range
        ({"dimensions": dims(FAITH_DIMS[:4]), "rating": 3}, "hallucination"),  # a dimension missing
        ([1, 2, 3], "schema"),  # JSON, but not an object of the right shape
    ],
)
def test_schema_invalid_json_marks_the_metric_failed(tmp_path, key_env, answer, needle):
    with OpenAIStubServer([reply_json(answer)]) as server:
        result = Judge(make_config(server.base_url, tmp_path), context=CONTEXT).evaluate("faithfulness", conversation())
    assert result.score is None and result.failed is not None and needle in result.failed
    assert len(server.requests) == 2


def test_server_down_raises_unavailable_naming_the_url_then_fails_fast(tmp_path, key_env):
    url = f"http://127.0.0.1:{free_port()}/v1"
    sleeps = Sleeps()
    judge = Judge(make_config(url, tmp_path, max_retries=1), context=CONTEXT, sleep=sleeps)
    with pytest.raises(JudgeUnavailable, match=r"127\.0\.0\.1:\d+/v1/chat/completions.*2 attempt"):
        judge.evaluate("faithfulness", conversation())
    assert len(sleeps) == 1
    with pytest.raises(JudgeUnavailable, match="failing fast"):
        judge.evaluate("conciseness", conversation())
    assert len(sleeps) == 1  # no second retry budget spent


def test_unrecoverable_http_error_is_raised_at_once_with_the_key_scrubbed(tmp_path, key_env):
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    with OpenAIStubServer([Reply(status=401, raw=body)]) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT)
        with pytest.raises(JudgeRequestError, match="HTTP 401") as info:
            judge.evaluate("faithfulness", conversation())
    assert SECRET not in str(info.value) and len(server.requests) == 1


def test_second_call_is_a_cache_hit_and_the_server_sees_one_request(tmp_path, key_env):
    with OpenAIStubServer([reply_json(faithful_answer(misrepresenting_tool_result=2))]) as server:
        config = make_config(server.base_url, tmp_path)
        first = Judge(config, context=CONTEXT).evaluate("faithfulness", conversation())
        second = Judge(config, context=CONTEXT).evaluate("faithfulness", conversation())  # a fresh process's view
        assert len(server.requests) == 1
        assert (first.cached, second.cached) == (False, True)
        assert second.score == first.score == 0.5 and second.cache_key == first.cache_key
        assert second.details["dimensions"] == first.details["dimensions"]
        # Another model, or other inputs, are other judgments.
        Judge(make_config(server.base_url, tmp_path, model="judge-model-b"), context=CONTEXT).evaluate(
            "faithfulness", conversation()
        )
        changed = conversation()
        changed.turns[2].intended_text = "I found flight SK530 at six PM."
        Judge(config, context=CONTEXT).evaluate("faithfulness", changed)
        assert len(server.requests) == 3


def test_api_key_is_sent_but_never_stored_in_results_or_cache_files(tmp_path, key_env):
    script = [reply_json(faithful_answer())]
    with OpenAIStubServer(script) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT)
        result = judge.evaluate("faithfulness", conversation())
        cached = judge.evaluate("faithfulness", conversation())
    assert all(r.headers["Authorization"] == f"Bearer {SECRET}" for r in server.requests)
    assert cached.cached
    for text in (result.model_dump_json(), cached.model_dump_json(), json.dumps(judge.describe())):
        assert SECRET not in text
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert files  # the SQLite database (and its WAL) exist and were written
    assert len(JudgeCache(tmp_path / "cache")) == 1
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path


def test_missing_key_variable_is_a_clear_config_error(tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(JudgeConfigError, match=KEY_ENV):
        Judge(make_config("http://127.0.0.1:9/v1", tmp_path))


def test_prompt_hash_and_cache_key_change_with_the_prompt_version():
    prompt = PROMPTS["conciseness"]
    bumped = dataclasses.replace(prompt, version="conciseness/v2")
    assert bumped.prompt_hash != prompt.prompt_hash
    assert dataclasses.replace(prompt).prompt_hash == prompt.prompt_hash  # deterministic
    assert len({p.prompt_hash for p in PROMPTS.values()}) == len(PROMPTS)
    common = {"metric": "conciseness", "model": "m", "params": {"temperature": 0}, "inputs": {"a": "b"}}
    key_v1 = cache_key(prompt_version=prompt.version, prompt_hash=prompt.prompt_hash, **common)
    key_v2 = cache_key(prompt_version=bumped.version, prompt_hash=bumped.prompt_hash, **common)
    assert key_v1 != key_v2
    # Same material in another key order -> the same key (canonical JSON).
    assert key_v1 == cache_key(
        **dict(reversed(list(common.items()))), prompt_hash=prompt.prompt_hash, prompt_version=prompt.version
    )


def test_unknown_metric_names_the_known_ones(tmp_path, key_env):
    judge = Judge(make_config("http://127.0.0.1:9/v1", tmp_path))
    known = r"unknown judge metric .concisenes.; known judge metrics: .*conciseness, conversation_progression, faith"
    with pytest.raises(UnknownJudgeMetric, match=known):
        judge.evaluate("concisenes", conversation())


def test_missing_context_or_inputs_fail_the_metric_without_calling_the_server(tmp_path, key_env):
    with OpenAIStubServer([reply_json({})]) as server:
        judge = Judge(make_config(server.base_url, tmp_path))  # no agent instructions / tools
        faith = judge.evaluate("faithfulness", conversation())
        speech = judge.evaluate("agent_speech_fidelity", conversation())  # no transcript of the agent audio
    assert faith.score is None and "agent_instructions" in faith.failed and "available_tools" in faith.failed
    assert speech.score is None and "assistant_transcripts" in speech.failed
    assert server.requests == []


def test_conciseness_scores_the_mean_of_rescaled_turn_ratings_with_failure_mode_rates(tmp_path, key_env):
    conv = conversation()
    conv.turns.append(Turn(index=4, role="assistant", intended_text="Bye now.", start_ms=9100, end_ms=9500))
    answer = {
        "turns": [
            {"turn_id": 0, "explanation": "", "failure_modes": [], "rating": 3},
            {"turn_id": 1, "explanation": "", "failure_modes": [], "rating": None},
            {"turn_id": 2, "explanation": "filler", "failure_modes": ["verbosity_or_filler"], "rating": 2},
            {
                "turn_id": 4,
                "explanation": "x",
                "failure_modes": ["verbosity_or_filler", "excess_information_density"],
                "rating": 1,
            },
        ]
    }
    missing_turn = {"turns": answer["turns"][:2]}
    with OpenAIStubServer([reply_json(answer), reply_json(missing_turn)]) as server:
        judge = Judge(make_config(server.base_url, tmp_path, invalid_output_retries=0))
        result = judge.evaluate("conciseness", conv)
        conv.turns[4].intended_text = "Goodbye."
        incomplete = judge.evaluate("conciseness", conv)
    assert result.score == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert result.details["failure_mode_rates"]["verbosity_or_filler"] == pytest.approx(2 / 3)
    assert result.details["failure_mode_rates"]["excess_information_density"] == pytest.approx(1 / 3)
    assert incomplete.score is None and "no rating for turn_id(s) [2, 4]" in incomplete.failed
    assert "turn_id 1:\n  user: my code is abc 1 2 3" in server.requests[0].body["messages"][1]["content"]


def test_speech_fidelity_compares_intended_text_with_the_agent_audio_transcript(tmp_path, key_env):
    ctx = JudgeContext(assistant_transcripts={0: "hello skyway airlines how can i help", 2: "i found flight sk 503"})
    answer = {
        "turns": [
            {"turn_id": 0, "transcript": "hello", "explanation": "ok", "rating": 1},
            {"turn_id": 2, "transcript": "sk 503", "explanation": "flight number wrong", "rating": 0},
        ]
    }
    with OpenAIStubServer([reply_json(answer)]) as server:
        result = Judge(make_config(server.base_url, tmp_path)).evaluate("agent_speech_fidelity", conversation(), ctx)
    assert result.score == 0.5 and result.details["turns"][2]["rating"] == 0
    sent = server.requests[0].body["messages"][1]["content"]
    assert "intended: Thanks. I found flight SK530" in sent and "audio transcript: i found flight sk 503" in sent


def test_transcription_accuracy_counts_correct_over_non_skipped_entities(tmp_path, key_env):
    entity = {"type": "code", "value": "A B C one two three", "transcribed_value": "abc 1 2 3", "analysis": ""}
    answer = {
        "turns": [
            {
                "turn_id": 1,
                "entities": [
                    {**entity, "correct": True, "skipped": False},
                    {**entity, "type": "name", "value": "Thompson", "correct": False, "skipped": False},
                    {**entity, "type": "date", "value": "June 18", "correct": False, "skipped": True},
                ],
            }
        ]
    }
    with OpenAIStubServer([reply_json(answer)]) as server:
        result = Judge(make_config(server.base_url, tmp_path)).evaluate(
            "transcription_accuracy_key_entities", conversation()
        )
    assert result.score == 0.5 and result.details["n_skipped"] == 1
    assert "- confirmation_number: ABC123" in server.requests[0].body["messages"][1]["content"]


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        ({}, 3),
        ({"information_loss": 2}, 2),
        ({"information_loss": 2, "question_quality": 2}, 2),
        ({"information_loss": 2, "question_quality": 2, "redundant_statements": 2}, 1),  # >= 3 flagged
        ({"unnecessary_tool_calls": 1}, 1),
    ],
)
def test_progression_overall_rule(ratings, expected):
    output = ProgressionOutput.model_validate({"dimensions": dims(PROG_DIMS, **ratings), "rating": 3})
    assert progression_rating(output) == expected


def test_s2s_trace_shows_intended_user_text_and_transcribed_agent_speech(tmp_path, key_env):
    ctx = JudgeContext(architecture="s2s", assistant_transcripts={2: "thanks i found flight s k five thirty"})
    answer = {"dimensions": dims(PROG_DIMS), "rating": 3}
    with OpenAIStubServer([reply_json(answer)]) as server:
        result = Judge(make_config(server.base_url, tmp_path)).evaluate("conversation_progression", conversation(), ctx)
    assert result.score == 1.0
    system, user = (m["content"] for m in server.requests[0].body["messages"])
    assert "[turn 1] user: My code is A B C one two three" in user
    assert "[turn 2] assistant: thanks i found flight s k five thirty" in user
    assert "transcribed audio" in system  # the S2S scoping note is in the rubric


def test_cache_survives_concurrent_writers(tmp_path):
    cache = JudgeCache(tmp_path / "c")
    errors: list[Exception] = []

    def work(worker: int) -> None:
        try:
            for i in range(25):
                key = f"{worker}-{i}"
                cache.put(key, metric="m", model="x", prompt_version="v", prompt_hash="h", output={"i": i})
                assert cache.get(key) == {"i": i}
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) == 100


def test_config_files_validate_and_none_means_no_judge(tmp_path):
    none = JudgeConfig(**yaml.safe_load((CONF_DIR / "judge" / "none.yaml").read_text()))
    assert not none.enabled and build_judge(none) is None
    remote = JudgeConfig(**yaml.safe_load((CONF_DIR / "judge" / "openai_compatible.yaml").read_text()))
    assert remote.enabled and remote.api_key_env == "OPENAI_API_KEY" and remote.temperature == 0
    assert remote.cache_dir == ".evalkit_cache/judges"
    with pytest.raises(ValidationError, match="needs model"):
        JudgeConfig(kind="openai_compatible", base_url="http://x/v1")
    with pytest.raises(ValidationError, match="extra"):
        JudgeConfig(name="none", api_key="sk-inline-keys-are-refused")


FULL_CONTEXT = CONTEXT.model_copy(
    update={
        "user_simulator_instructions": "You are Kenji Thompson. Move your flight earlier; fee under $80.",
        "modification_tools": ["rebook_flight", "assign_seat"],
        "assistant_transcripts": {0: "hello skyway airlines", 2: "thanks i found flight sk530"},
        "user_transcripts": {1: "my code is a b c one two three last name thompson", 3: "great goodbye"},
    }
)


@pytest.mark.parametrize("architecture", ["cascade", "hybrid", "s2s"])
@pytest.mark.parametrize("metric", sorted(PROMPTS))
def test_every_prompt_renders_fully_from_a_conversation(metric, architecture):
    """No placeholder left unfilled, the schema's field names are spelled out, and record data reaches the judge."""
    prompt = PROMPTS[metric]
    ctx = FULL_CONTEXT.model_copy(update={"architecture": architecture})
    assert prompt.missing_context(ctx) == []
    record = conversation()
    if metric == "interruption_recovery_quality":  # needs a caller who cut in: the greeting is cut
        params = {"kind": "normal", "delivered": "Hello, SkyWay Airlines.", "undelivered": "How can I help?"}
        record.turns[0].effects.append(
            AppliedEffect(type="interruption", turn=0, start_ms=1500, end_ms=1800, params=params)
        )
    if metric == "success_judge":  # needs a scenario file's judged criteria
        record.success = {"judge": ["The agent read back the booking code."]}
    system, user = (m["content"] for m in prompt.render(prompt.build_inputs(record, ctx)))
    assert not re.search(r"\$[A-Za-z_{]", system + user), metric
    for field in prompt.output_model.model_fields:
        assert f'"{field}"' in system, (metric, field)
    assert "JSON" in system  # OpenAI JSON mode requires the word in the messages
    assert "Thompson" in user or "SK530" in user or "sk530" in user


def test_metric_value_carries_judge_identity_and_turns_a_dead_endpoint_into_an_unscored_value(tmp_path, key_env):
    with OpenAIStubServer([reply_json(faithful_answer(hallucination=2))]) as server:
        judge = Judge(make_config(server.base_url, tmp_path), context=CONTEXT)
        ok = judge.metric_value("faithfulness", conversation(), threshold=0.5)
    assert (ok.name, ok.score, ok.passed) == ("faithfulness", 0.5, True)
    assert (
        ok.details["judge_model"] == "judge-model-a"
        and ok.details["prompt_hash"] == PROMPTS["faithfulness"].prompt_hash
    )
    # A fresh cache: with the first judge's cache the answer would (rightly) be served without the endpoint.
    dead_config = make_config(f"http://127.0.0.1:{free_port()}/v1", tmp_path / "other", max_retries=0)
    dead = Judge(dead_config, context=CONTEXT)
    down = dead.metric_value("faithfulness", conversation(), threshold=0.5)
    assert down.score is None and down.passed is None and "is unavailable" in down.details["failed"]
    with pytest.raises(UnknownJudgeMetric):
        dead.metric_value("faithfullness", conversation())
