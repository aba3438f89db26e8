"""Issue 30 point 2: usage and cost. Every request to an OpenAI-compatible server is metered as the server reported
it (real local servers: the scriptable chat stub, the voice-agent server), priced by the versioned table into
``cost = counts × prices``; an unpriced model stays unpriced (never 0); ``python -m evalkit.plan`` estimates a run
before it starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit import usage
from evalkit.cell.cost import cell_usage
from evalkit.config.schema import validate_config
from evalkit.config.settings import resolve_settings
from evalkit.judges.client import ChatClient
from evalkit.plan import PROFILE, cell_estimate, wall_estimate
from evalkit.plan.__main__ import main as plan_main
from evalkit.pricing import PricingError, load_table, price_rows
from evalkit.records import ConversationRecord
from evalkit.tracking.past import StoredCell
from evalkit.wire.openai_http.client import Endpoint, chat
from tests.openai_server import OpenAIStubServer, Reply
from tests.test_config import composed

# -- what a request reports ------------------------------------------------------------------------------------------


def test_usage_is_read_from_every_shape_openai_compatible_servers_send() -> None:
    chat_usage = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "prompt_tokens_details": {"audio_tokens": 50, "cached_tokens": 10},
        "completion_tokens_details": {"audio_tokens": 7},
    }
    got = usage.quantities({"usage": chat_usage})
    assert (got.tokens_in, got.tokens_out, got.audio_tokens_in, got.audio_tokens_out) == (120, 30, 50, 7)
    realtime = {"input_tokens": 900, "output_tokens": 400, "input_token_details": {"audio_tokens": 600},
                "output_token_details": {"audio_tokens": 300}}  # fmt: skip
    got = usage.quantities({"id": "resp_1", "usage": realtime})
    assert (got.tokens_in, got.tokens_out, got.audio_tokens_in, got.audio_tokens_out) == (900, 400, 600, 300)
    assert usage.quantities({"text": "hi"}).requests_without_usage == 1  # no usage object: counted, not zero tokens
    assert usage.quantities({"usage": {"prompt_tokens": -3, "completion_tokens": "x"}}).tokens_in == 0


def test_chat_and_judge_requests_are_metered_as_the_server_reported() -> None:
    """The stub reports 10 prompt and 5 completion tokens per answer (tests/openai_server.completion_body)."""
    with OpenAIStubServer([Reply(content="{}")]) as server:
        endpoint = Endpoint(server.base_url + "/", "chat-m", "agent.llm endpoint")
        with usage.metered() as ledger:
            chat(endpoint, {"messages": [{"role": "user", "content": "hi"}]})
            chat(endpoint, {"messages": [{"role": "user", "content": "again"}]})
            ChatClient(server.base_url, "judge-m").complete([{"role": "user", "content": "judge"}])
        outside = usage.Ledger()  # nothing is metered outside a job
        chat(endpoint, {"messages": []})
        assert len(server.requests) == 4
    rows = {row["component"]: row for row in ledger.rows()}
    counts = {c: (row["requests"], row["tokens_in"], row["tokens_out"]) for c, row in rows.items()}
    assert counts == {"agent.llm": (2, 20, 10), "judge": (1, 10, 5)}
    assert rows["agent.llm"]["base_url"] == server.base_url and rows["judge"]["model"] == "judge-m"
    assert outside.rows() == []


@pytest.mark.slow  # a real-time call: a few seconds of streamed audio
def test_a_realtime_session_is_metered_per_response_and_for_its_audio_both_ways() -> None:
    """The Realtime test server reports a usage on every response.done and counts the audio it streamed."""
    from tests.realtime_server import MODEL
    from tests.test_openai_realtime import dial, echo_server

    with echo_server() as server, usage.metered() as ledger:
        outcome = dial(server.url, ["one two three"], turn_detection="server_vad")
    assert outcome.end_reason == "user_end_call", outcome.error
    [row] = ledger.rows()
    assert (row["component"], row["base_url"], row["model"]) == ("agent", server.url, MODEL)
    sent = server.usage_sent
    assert row["requests"] == len(sent) >= 2  # the greeting and the answer
    assert row["tokens_in"] == sum(u["input_tokens"] for u in sent)
    assert row["tokens_out"] == sum(u["output_tokens"] for u in sent)
    assert row["audio_tokens_out"] == sum(u["output_token_details"]["audio_tokens"] for u in sent) > 0
    assert row["audio_s_out"] == pytest.approx(server.audio_s_streamed, abs=0.01)
    assert row["audio_s_in"] > 0.3  # the caller's tone and the line's silence after it


# -- prices ----------------------------------------------------------------------------------------------------------

URL = "http://127.0.0.1:9/v1"


def _row(component: str, model: str, **counts: float) -> dict:
    return {"component": component, "base_url": URL, "model": model, **usage.Usage(**counts).as_dict()}  # type: ignore[arg-type]


def test_cost_is_counts_times_prices_and_an_unpriced_model_is_never_zero() -> None:
    table = load_table(
        overrides=[
            {"base_url": URL, "model": "llm", "input_per_1m": 2.0, "output_per_1m": 8.0},
            {"base_url": URL, "model": "stt", "audio_in_per_minute": 0.006},
            {"base_url": URL, "model": "tts", "characters_per_1m": 15.0},
            {"base_url": URL, "model": "s2s", "input_per_1m": 4.0, "output_per_1m": 16.0, "audio_input_per_1m": 32.0,
             "audio_output_per_1m": 64.0},
        ]
    )  # fmt: skip
    rows = [
        _row("agent.llm", "llm", requests=3, tokens_in=10_000, tokens_out=500),
        _row("agent.stt", "stt", requests=3, audio_s_in=90.0),
        _row("agent.tts", "tts", requests=3, characters_in=2_000, audio_s_out=40.0),
        _row("agent", "s2s", requests=2, tokens_in=3_000, audio_tokens_in=1_000, tokens_out=800, audio_tokens_out=600),
    ]
    cost, priced = price_rows(rows, table)
    llm = 10_000 * 2.0 / 1e6 + 500 * 8.0 / 1e6
    stt = 90.0 / 60 * 0.006
    tts = 2_000 * 15.0 / 1e6
    s2s = (2_000 * 4.0 + 1_000 * 32.0 + 200 * 16.0 + 600 * 64.0) / 1e6  # text = total - audio tokens
    assert [r["cost_usd"] for r in priced] == pytest.approx([llm, stt, tts, s2s])
    assert cost.total_usd == pytest.approx(llm + stt + tts + s2s)

    missing = _row("simulator", "not-in-table", requests=1, tokens_in=5)
    silent = _row("agent.llm", "llm", requests=2, requests_without_usage=2)  # the server reported no usage
    audio = _row("agent.llm", "llm", requests=1, tokens_in=10, audio_tokens_in=4)  # no audio rate for "llm"
    for row, why in ((missing, "not in the pricing table"), (silent, "reported no token usage"), (audio, "audio")):
        cost, priced = price_rows([rows[0], row], table)
        assert cost.total_usd is None and priced[1]["cost_usd"] is None and why in cost.unpriced[0]
    assert price_rows([], table)[0].total_usd == 0.0  # nothing metered (local components): 0 by declaration


def test_a_negative_price_or_a_broken_table_is_one_line(tmp_path: Path) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text("version: 1\ndate: 2026-01-01\nproviders:\n  x:\n    base_urls: [http://h/v1]\n    models:\n"
                     "      m: {input_per_1m: -1}\n")  # fmt: skip
    with pytest.raises(PricingError) as bad:
        load_table(str(table))
    assert str(bad.value).count("\n") == 0 and "input_per_1m" in str(bad.value) and "-1" in str(bad.value)
    with pytest.raises(PricingError, match="needs base_url and model"):
        load_table(overrides=[{"model": "m", "input_per_1m": 1}])
    with pytest.raises(PricingError, match="at least one rate"):
        load_table(overrides=[{"base_url": URL, "model": "m"}])
    with pytest.raises(PricingError, match="cannot read"):
        load_table(str(tmp_path / "missing.yaml"))
    shipped = load_table()
    assert shipped.version and shipped.date and shipped.price("https://api.openai.com/v1/", "gpt-4o-mini")


# -- a cell against the voice-agent server ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_cells_usage_and_cost_are_what_the_server_reported(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    from tests.openai_voice_server import CHAT_MODEL, STT_MODEL, TTS_MODEL, VoiceAgentServer
    from tests.test_openai_agents import QUICK, cell_config, run

    with VoiceAgentServer() as server:
        prices = (
            f"[{{base_url: '{server.base_url}', model: {CHAT_MODEL}, input_per_1m: 3.0, output_per_1m: 12.0}},"
            f" {{base_url: '{server.base_url}', model: {STT_MODEL}, audio_in_per_minute: 0.006}},"
            f" {{base_url: '{server.base_url}', model: {TTS_MODEL}, characters_per_1m: 15.0}}]"
        )
        config = cell_config(tmp_path, server, "cascade_openai", "AL-001", *QUICK, f"pricing.overrides={prices}")
        result, record, stored = run(tmp_path, config)
        reported = list(server.state.reported)

    def total(route: str, key: str) -> float:
        return sum(r.get(key, 0) for r in reported if r["route"] == route)

    rows = {row["component"]: row for row in record["usage"]["providers"]}
    assert rows["agent.llm"]["requests"] == sum(r["route"] == "chat" for r in reported)
    assert rows["agent.llm"]["tokens_in"] == total("chat", "tokens_in") > 0
    assert rows["agent.llm"]["tokens_out"] == total("chat", "tokens_out") > 0
    assert rows["agent.stt"]["audio_s_in"] == pytest.approx(total("transcriptions", "audio_s_in"), abs=1e-3)
    assert rows["agent.tts"]["audio_s_out"] == pytest.approx(total("speech", "audio_s_out"), abs=1e-3)
    assert rows["agent.tts"]["characters_in"] == total("speech", "characters_in") > 0
    expected = (
        total("chat", "tokens_in") * 3.0 / 1e6
        + total("chat", "tokens_out") * 12.0 / 1e6
        + total("transcriptions", "audio_s_in") / 60 * 0.006
        + total("speech", "characters_in") * 15.0 / 1e6
    )
    assert record["usage"]["cost_usd"] == pytest.approx(expected, rel=1e-6)
    assert result.aggregates["cost_usd"] == pytest.approx(expected, rel=1e-6)
    assert stored.data.metrics["usage_tokens_in"] == total("chat", "tokens_in")
    assert stored.data.metrics["usage_audio_s_sent"] > 0  # the caller's audio the agent was sent
    summary = json.loads((tmp_path / "cell" / "usage.json").read_text())
    assert summary["pricing"]["version"] and summary["cost_usd"] == pytest.approx(expected, rel=1e-6)
    assert summary["local"] == ["simulator=scripted (kind scripted)", "voice=piper (kind piper)"]

    # the same records priced by the shipped table: the test server's models are not in it, so no cost, never 0
    records = [ConversationRecord.model_validate(record)]
    unpriced = cell_usage(records, resolve_settings(config, load_table()))
    assert unpriced["cost_usd"] is None and any(CHAT_MODEL in reason for reason in unpriced["unpriced"])

    # MLflow's token-usage panels: the trace's usage spans and its token usage
    client = MlflowClient(config.mlflow.tracking_uri)
    traces = client.search_traces(locations=[stored.info.experiment_id], run_id=stored.info.run_id)
    assert traces, "the cell logged no trace"
    trace = client.get_trace(traces[0].info.trace_id)
    llm = [s for s in trace.data.spans if s.name == f"usage agent.llm {CHAT_MODEL}"]
    assert llm and llm[0].attributes["mlflow.chat.tokenUsage"]["input_tokens"] == total("chat", "tokens_in")
    assert llm[0].attributes["mlflow.llm.cost"]["total_cost"] == pytest.approx(rows["agent.llm"]["cost_usd"])
    assert trace.info.token_usage["input_tokens"] == total("chat", "tokens_in")


# -- the plan ----------------------------------------------------------------------------------------------------------


def test_wall_time_comes_from_stored_runs_and_says_which() -> None:
    stored = [
        StoredCell("r1", "k1", "cascade_local", "airline", 100.0, 10),
        StoredCell("r2", "k2", "cascade_local", "hr", 300.0, 10),
    ]
    same = wall_estimate("k1", "cascade_local", "airline", stored)
    assert same.seconds_per_conversation == 10.0 and "this cell" in same.source
    agent_domain = wall_estimate("k9", "cascade_local", "hr", stored)
    assert agent_domain.seconds_per_conversation == 30.0 and "on hr" in agent_domain.source
    agent = wall_estimate("k9", "cascade_local", "itsm", stored)
    assert agent.seconds_per_conversation == 20.0 and "(2 cell(s)" in agent.source
    unknown = wall_estimate("k9", "twilio", "airline", stored)
    assert unknown.seconds_per_conversation is None and "run one small cell" in unknown.source


@pytest.mark.slow  # three compositions of the whole config (≈ 3 s each on a loaded machine)
def test_plan_prints_cells_conversations_time_and_cost_before_anything_runs(tmp_path: Path, capsys) -> None:
    store = f"mlflow.tracking_uri=sqlite:///{tmp_path / 'none' / 'mlflow.db'}"
    assert plan_main(["+perturb=noise_cafe", "-m", "domain.limit=2", "trials=1", store]) == 0
    out = capsys.readouterr().out
    # run names lead with the condition
    assert "cells: 2, conversations: 4" in out and "noise_cafe|airline|" in out and "clean|airline|" in out
    assert "$0 (local components only)" in out and "wall time unknown" in out
    assert not (tmp_path / "none").exists()  # nothing created

    priced = ["agent=cascade_openai", "agent.stt.model=whisper-1", "domain.limit=1", "trials=1", store]
    assert plan_main(priced) == 0
    out = capsys.readouterr().out
    assert "cells: 1, conversations: 1" in out and "estimated cost: ~$" in out and "unpriced" not in out
    config = validate_config(composed(*priced))  # the a-priori profile priced by the shipped table, as printed
    estimate = cell_estimate("cell", "key", config, 1, load_table(), [])
    assert estimate.cost_usd and f"~${estimate.cost_usd:.4f}" in out and PROFILE["caller_turns"] > 0

    unknown = ["agent=cascade_openai", "agent.llm.model=my-local-llm", "domain.limit=1", store]
    assert plan_main(unknown) == 0
    out = capsys.readouterr().out
    assert "estimated cost: unpriced (never 0)" in out and "my-local-llm" in out


def test_plan_refuses_a_negative_price_in_one_line(tmp_path: Path, capsys) -> None:
    bad = "pricing.overrides=[{base_url: 'http://h/v1', model: m, output_per_1m: -2}]"
    assert plan_main([bad, "-m"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "output_per_1m" in err and "-2" in err
