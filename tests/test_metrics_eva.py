"""EVA-A / EVA-X metrics, diagnostics and aggregation against hand-computed cases."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from evalkit.config.schema import ConfigError, validate_config
from evalkit.metrics import METRICS, Metric, UnknownMetricError, aggregate_cell, get_metric, score_conversation
from evalkit.metrics.aggregate import aggregate_by_domain, bootstrap_ci, pool_domains
from evalkit.metrics.composites import combine
from evalkit.metrics.conciseness import conciseness_proxy
from evalkit.metrics.critical_fields import critical_field_accuracy
from evalkit.metrics.faithfulness import faithfulness_proxy
from evalkit.metrics.latency import latency_percentiles, response_latency
from evalkit.metrics.progression import conversation_progression_proxy
from evalkit.metrics.registry import register
from evalkit.metrics.speakability import speakability_proxy
from evalkit.metrics.speech_fidelity import speech_fidelity_proxy
from evalkit.metrics.tool_validity import tool_call_validity
from evalkit.metrics.turn_taking import count_score, latency_score, overlap_score, turn_taking, yield_score
from evalkit.records import Conversation, ConversationRecord, MetricValue, ToolCall, Turn

DB = {"reservations": {"ABC123": {"status": "changed"}}, "session": {"confirmation_number": "ABC123"}}


def conv(turns, end="user_end_call", scenario="S1", trial=0, domain="airline", entities=None) -> Conversation:
    return Conversation(
        scenario_id=scenario,
        domain=domain,
        trial=trial,
        seed=1,
        turns=turns,
        end_reason=end,
        initial_db={},
        final_db=copy.deepcopy(DB),
        expected_db=DB,
        key_entities=entities or {},
    )


def seg(i, role, start, end, text="Okay.", heard=None, calls=()) -> Turn:
    return Turn(
        index=i, role=role, intended_text=text, heard_text=heard, start_ms=start, end_ms=end, tool_calls=list(calls)
    )


def call(name, args, result, t_ms=0.0) -> ToolCall:
    return ToolCall(name=name, arguments=args, result=result, ok=result.get("status") == "success", t_ms=t_ms)


# --- Table 17 latency curve -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("latency", "tool", "expected"),
    [
        (-600, False, 0.0),  # below hard-early
        (-500, False, 0.0),  # at hard-early: 0 at or below
        (-400, False, 0.1),  # just above: (l + 500) / 1000
        (0, False, 0.5),
        (400, False, 0.9),  # below sweet-low
        (500, False, 1.0),  # at sweet-low
        (600, False, 1.0),  # above sweet-low
        (2000, False, 1.0),  # at sweet-high
        (2300, False, 0.8),  # above: 1 - 300/1500
        (3200, False, 0.2),  # below hard-late
        (3500, False, 0.0),  # at hard-late
        (3600, False, 0.0),  # above hard-late
        (-500, True, 0.0),
        (0, True, 0.5),
        (2300, True, 1.0),  # standard would be 0.8: tool turns are lenient
        (3000, True, 1.0),  # at tool sweet-high
        (3500, True, 0.75),  # 1 - 500/2000 (standard: 0)
        (4600, True, 0.2),
        (5000, True, 0.0),  # at tool hard-late
        (5100, True, 0.0),
    ],
)
def test_latency_curve_breakpoints(latency, tool, expected):
    assert latency_score(latency, tool) == pytest.approx(expected)


def test_interruption_subscores_hand_computed():
    assert overlap_score(0) == 0.5 and overlap_score(1000) == pytest.approx(0.25) and overlap_score(2500) == 0.0
    assert (count_score(1), count_score(2), count_score(3), count_score(5)) == (0.5, 0.25, 0.0, 0.0)
    assert yield_score(0) == 1.0 and yield_score(500) == pytest.approx(0.75) and yield_score(2000) == 0.0


# --- Table 16 routing -------------------------------------------------------------------------------------------


def test_uninterrupted_turns_use_the_tool_aware_curve_and_the_mean():
    turns = [
        seg(0, "assistant", 0, 1000),
        seg(1, "user", 1400, 3000),
        seg(2, "assistant", 5300, 6000),  # l = 2300 ms, no tool -> 0.8
        seg(3, "user", 6400, 8000),
        seg(4, "assistant", 11500, 12000, calls=[call("get_reservation", {}, {"status": "success"}, 8000)]),
        # l = 3500 ms after a tool call -> 0.75
        seg(5, "user", 12400, 13000),  # the user's goodbye: not answered, not scored
    ]
    metric = turn_taking(conv(turns))
    assert [r["score"] for r in metric.details["turns"]] == pytest.approx([0.8, 0.75])
    assert metric.score == pytest.approx(0.775) and metric.passed is False
    assert metric.details["turns"][1]["tool_turn"] is True


def test_agent_interrupting_user_scores_min_of_capped_subscores():
    turns = [
        seg(0, "assistant", 0, 1000),
        seg(1, "user", 1400, 5000),
        seg(2, "assistant", 4000, 4500),  # barges in: 500 ms overlap
        seg(3, "assistant", 5600, 7000),  # settled response 600 ms after the user's end -> s_latency 1, capped .5
        seg(4, "user", 7400, 8000),
    ]
    row = turn_taking(conv(turns)).details["turns"][0]
    assert row["condition"] == "agent_interrupted"
    assert row["overlap_ms"] == 500 and row["s_overlap"] == pytest.approx(0.375)
    assert row["n_segments"] == 1 and row["s_count"] == 0.5
    assert row["s_post"] == 0.5
    assert row["score"] == pytest.approx(0.375)


def test_user_interrupting_agent_scores_yield_and_both_takes_the_min():
    turns = [
        seg(0, "assistant", 0, 1000),
        seg(1, "user", 1400, 2000),
        seg(2, "assistant", 2600, 6000),  # l = 600 -> 1.0
        seg(3, "user", 5500, 7000),  # starts 500 ms before the agent stops: s_yield = 0.75
        seg(4, "assistant", 6000, 7600),  # and the agent barges back in: 1000 ms overlap -> s_overlap 0.25
        seg(5, "user", 8000, 9000),
    ]
    rows = turn_taking(conv(turns)).details["turns"]
    assert rows[0]["condition"] == "uninterrupted" and rows[0]["score"] == 1.0
    assert rows[1]["condition"] == "both"
    assert rows[1]["s_yield"] == pytest.approx(0.75) and rows[1]["s_overlap"] == pytest.approx(0.25)
    assert "s_post" not in rows[1]  # the agent was still speaking at the user's end: s_post omitted
    assert rows[1]["score"] == pytest.approx(0.25)


def test_unanswered_user_turn_scores_zero_unless_user_ended_the_call():
    turns = [
        seg(0, "assistant", 0, 1000),
        seg(1, "user", 1400, 2000),
        seg(2, "assistant", 2600, 3000),
        seg(3, "user", 3400, 4000),
    ]
    timed_out = turn_taking(conv(turns, end="agent_no_response"))
    assert [r["score"] for r in timed_out.details["turns"]] == [1.0, 0.0]
    assert timed_out.score == 0.5
    assert turn_taking(conv(turns, end="user_end_call")).score == 1.0


# --- proxies ----------------------------------------------------------------------------------------------------


def test_every_judge_standin_is_declared_a_proxy():
    proxies = {n for n, m in METRICS.items() if m.kind == "proxy"}
    assert {
        "faithfulness_proxy",
        "speech_fidelity_proxy",
        "conversation_progression_proxy",
        "conciseness_proxy",
        "speakability_proxy",
        "eva_a_proxy",
        "eva_x_proxy",
    } <= proxies
    assert all(n.endswith("_proxy") for n in proxies - {"key_entity_accuracy"})  # legacy name kept working
    assert get_metric("turn_taking").kind == get_metric("task_completion").kind == "deterministic"
    assert get_metric("eva_a_proxy").requires == ("task_completion", "faithfulness_proxy", "speech_fidelity_proxy")


def test_faithfulness_proxy_grounds_amounts_in_tool_results_and_arithmetic():
    lookup = call("get_reservation", {"confirmation_number": "ABC123"}, {"status": "success", "fare": 289, "paid": 228})
    turns = [
        seg(1, "user", 0, 1, heard="My code is A B C 1 2 3."),
        seg(2, "assistant", 2, 3, text="The difference is 61 dollars.", calls=[lookup]),  # 289 - 228
    ]
    good = faithfulness_proxy(conv(turns))
    assert good.score == 1.0 and good.passed
    turns[1] = seg(2, "assistant", 2, 3, text="The difference is 31 dollars.", calls=[lookup])  # J.1's slip
    bad = faithfulness_proxy(conv(turns))
    assert bad.score == 0.0 and bad.details["ungrounded_statements"] == [{"turn": 2, "entity": "3 1 dollars"}]


def test_faithfulness_proxy_rates_fabricated_write_parameter_1_and_read_parameter_2():
    read = call("get_reservation", {"confirmation_number": "XYZ999"}, {"status": "error"})
    write = call("cancel_reservation", {"confirmation_number": "XYZ999"}, {"status": "success"})
    heard = [seg(1, "user", 0, 1, heard="My code is A B C 1 2 3.")]
    assert faithfulness_proxy(conv([*heard, seg(2, "assistant", 2, 3, calls=[read])])).score == 0.5
    assert faithfulness_proxy(conv([*heard, seg(2, "assistant", 2, 3, calls=[write])])).score == 0.0


def test_speech_fidelity_proxy_rates_entity_turns_only():
    turns = [
        seg(0, "assistant", 0, 1, text="Hello, how can I help?", heard="Hello, how can I help?"),  # no entity
        seg(2, "assistant", 2, 3, text="Your code is W K 2 E X B.", heard="Your code is WK2EXB."),
        seg(4, "assistant", 4, 5, text="That is 75 dollars.", heard="That is $65."),
    ]
    metric = speech_fidelity_proxy(conv(turns))
    assert metric.score == 0.5 and metric.passed is False and metric.details["rated_turns"] == 2
    untranscribed = [t.model_copy(update={"heard_text": None}) for t in turns]
    assert speech_fidelity_proxy(conv(untranscribed)).score is None


def test_conciseness_proxy_per_turn_ratings():
    long = " ".join(["word"] * 21) + "."
    turns = [
        seg(0, "assistant", 0, 1, text="Short and clear."),  # 3 -> 1.0
        seg(2, "assistant", 2, 3, text=long),  # one failure mode -> 2 -> 0.5
        seg(4, "assistant", 4, 5, text=long + " A? B? C? D."),  # two failure modes -> 1 -> 0.0
        seg(6, "assistant", 6, 7, text="Bye. " * 6),  # the final recap may be long -> 3
    ]
    metric = conciseness_proxy(conv(turns))
    assert [r["rating"] for r in metric.details["turns"]] == [3, 2, 1, 3]
    assert metric.score == pytest.approx((1 + 0.5 + 0 + 1) / 4)


def test_progression_proxy_counts_repeated_successful_calls():
    ok = call("get_reservation", {"confirmation_number": "ABC123"}, {"status": "success"})
    one = conversation_progression_proxy(conv([seg(2, "assistant", 0, 1, calls=[ok, ok])]))
    two = conversation_progression_proxy(conv([seg(2, "assistant", 0, 1, calls=[ok, ok, ok])]))
    assert (one.details["rating"], one.score) == (2, 0.5)
    assert (two.details["rating"], two.score) == (1, 0.0)


def test_speakability_and_tool_validity_and_critical_fields():
    turns = [
        seg(0, "assistant", 0, 1, text="**Great!** See https://x.io"),
        seg(2, "assistant", 2, 3, text="Your flight leaves at eighttwentypm."),
        seg(
            4,
            "assistant",
            4,
            5,
            text="All set.",
            calls=[
                call(
                    "rebook_flight",
                    {"journey_id": "FL_SK130_20260618", "confirmation_number": "ABC124"},
                    {"status": "success"},
                ),
                call("get_reservation", {"bogus": 1}, {"status": "error", "error_type": "invalid_arguments"}),
            ],
        ),
    ]
    c = conv(turns, entities={"flight_number": "SK130", "confirmation_number": "ABC123", "last_name": "Lee"})
    speak = speakability_proxy(c)
    assert [r["rating"] for r in speak.details["turns"]] == [0, 0, 1]
    assert speak.details["turns"][1]["violations"] == ["glued_words"]
    assert tool_call_validity(c).score == 0.5
    cfa = critical_field_accuracy(c)
    assert {f["field"]: f["status"] for f in cfa.details["fields"]} == {
        "flight_number": "correct",
        "confirmation_number": "wrong",
        "last_name": "missing",
    }
    assert cfa.score == pytest.approx(1 / 3)


def test_response_latency_splits_tool_turns():
    turns = [
        seg(0, "assistant", 0, 1000),
        seg(1, "user", 1400, 2000),
        seg(2, "assistant", 3000, 4000),  # 1.0 s
        seg(3, "user", 4400, 5000),
        seg(4, "assistant", 8000, 9000, calls=[call("get_reservation", {}, {"status": "success"}, 5000)]),  # 3.0 s
    ]
    metric = response_latency(conv(turns))
    assert metric.score == pytest.approx(2.0)
    assert metric.details["submetrics"] == {"with_tools": pytest.approx(3.0), "without_tools": pytest.approx(1.0)}


def test_latency_percentiles_hand_computed():
    """Issue 30 point 3: p50/p95/p99 over every answered turn of the cell (two conversations pooled), and of the
    stages the agent reported; a stage it did not report is absent, never 0."""

    def call_with(latencies_ms, scenario):
        turns, t = [seg(0, "assistant", 0, 500)], 500.0
        for i, ms in enumerate(latencies_ms):
            turns.append(seg(2 * i + 1, "user", t + 100, t + 1100))
            start = t + 1100 + ms
            calls = [call("get_reservation", {}, {"status": "success"}, start - 10)] if i == 0 else []
            agent = seg(2 * i + 2, "assistant", start, start + 400, calls=calls)
            agent.compute_ms, agent.llm_ms = ms - 50, (ms - 50) / 2  # STT and TTS not reported
            turns.append(agent)
            t = start + 400
        return ConversationRecord(conversation=conv(turns, scenario=scenario), metrics={})

    records = [call_with([100, 200, 300, 400, 500], "S1"), call_with([600, 700, 800, 900, 1000], "S2")]
    out = latency_percentiles(records)
    # 100..1000 ms in steps of 100, linear interpolation: p50 = 550, p95 = 955, p99 = 991
    assert [out[f"latency_response_ms_p{q}"] for q in (50, 95, 99)] == pytest.approx([550.0, 955.0, 991.0])
    assert out["latency_response_n"] == 10
    # tool turns: the first answer of each call (100 and 600 ms); the other eight without
    assert out["latency_response_tool_turns_ms_p50"] == pytest.approx(350.0)
    assert out["latency_response_tool_turns_n"] == 2 and out["latency_response_no_tool_turns_n"] == 8
    assert out["latency_llm_ms_p50"] == pytest.approx(250.0) and out["latency_agent_compute_ms_p99"] == pytest.approx(
        np.percentile([ms - 50 for ms in range(100, 1001, 100)], 99)
    )
    # tool work: compute minus the reported stages, on the two tool turns (25 and 275 ms)
    assert out["latency_tools_ms_p50"] == pytest.approx(150.0) and out["latency_tools_n"] == 2
    assert not any(k.startswith(("latency_stt", "latency_tts")) for k in out)  # not reported: not invented
    assert latency_percentiles([]) == {}
    assert aggregate_cell(records)["latency_response_ms_p95"] == pytest.approx(955.0)  # logged with the aggregates


# --- composites, registry, failures -------------------------------------------------------------------------------


def mv(name, score, passed):
    return MetricValue(name=name, score=score, passed=passed)


def test_composite_is_a_three_valued_and():
    comps = ("a", "b", "c")
    assert combine("x", comps, {"a": mv("a", 1, True), "b": mv("b", 1, True), "c": mv("c", 1, True)}).passed is True
    failing = combine("x", comps, {"a": mv("a", 0, False), "b": mv("b", None, None), "c": mv("c", 1, True)})
    assert failing.passed is False and failing.score == 0.0 and failing.details["failed"] == ["a"]
    open_ = combine("x", comps, {"a": mv("a", 1, True), "b": mv("b", None, None), "c": mv("c", 1, True)})
    assert open_.passed is None and open_.score is None


def test_eva_x_proxy_from_scored_components():
    turns = [
        seg(0, "assistant", 0, 1000, text="Hi."),
        seg(1, "user", 1400, 2000),
        seg(2, "assistant", 2600, 3000, text="Sure."),
        seg(3, "user", 3400, 4000),
    ]
    scores = score_conversation(conv(turns), ["eva_x_proxy"])
    assert list(scores) == ["turn_taking", "conversation_progression_proxy", "conciseness_proxy", "eva_x_proxy"]
    assert scores["eva_x_proxy"].passed is True
    slow = [*turns[:2], seg(2, "assistant", 6000, 7000, text="Sure."), seg(3, "user", 7400, 8000)]  # l = 4000 -> 0
    assert score_conversation(conv(slow), ["eva_x_proxy"])["eva_x_proxy"].passed is False


def test_unknown_metric_name_is_a_clear_error():
    with pytest.raises(UnknownMetricError, match=r"available: .*turn_taking"):
        get_metric("turn_takin")
    with pytest.raises(ConfigError, match="unknown metric"):
        validate_config({"metrics": ["nope"]})


def test_a_metric_that_raises_is_recorded_failed_and_others_are_kept():
    def boom(conversation):
        raise RuntimeError("kaput")

    register(Metric(name="test_boom", kind="deterministic", source="test", inputs=(), fn=boom))
    try:
        scores = score_conversation(conv([seg(0, "assistant", 0, 1)]), ["test_boom", "task_completion"])
        assert scores["test_boom"].score is None and scores["test_boom"].details["error"] == "RuntimeError: kaput"
        assert scores["task_completion"].passed is True
        record = ConversationRecord(conversation=conv([]), metrics=scores)
        agg = aggregate_cell([record])
        assert agg["test_boom_failed"] == 1.0 and agg["task_completion_pass_at_1"] == 1.0
    finally:
        METRICS.pop("test_boom")


# --- aggregation ----------------------------------------------------------------------------------------------


def test_pass_family_for_eva_composites_per_cell_and_domain():
    def record(scenario, trial, passed, domain="airline"):
        c = conv([], scenario=scenario, trial=trial, domain=domain)
        return ConversationRecord(conversation=c, metrics={"eva_a_proxy": mv("eva_a_proxy", float(passed), passed)})

    # k = 2: s1 2/2, s2 1/2, s3 0/2 -> pass@1 3/6, pass@k 2/3, pass^k (1 + 1/4 + 0)/3
    records = [
        record(s, t, p)
        for s, flags in {"s1": (1, 1), "s2": (1, 0), "s3": (0, 0)}.items()
        for t, p in enumerate(map(bool, flags))
    ]
    agg = aggregate_cell(records)
    assert agg["eva_a_proxy_pass_at_1"] == pytest.approx(0.5)
    assert agg["eva_a_proxy_pass_at_k"] == pytest.approx(2 / 3)
    assert agg["eva_a_proxy_pass_hat_k"] == pytest.approx(1.25 / 3)
    itsm = [record("i1", 0, True, "itsm")]
    by_domain = aggregate_by_domain(records + itsm)
    assert by_domain["itsm"]["eva_a_proxy_pass_at_1"] == 1.0
    # equal-weighted pooling over domains: (0.5 + 1.0) / 2, not 4/7 over conversations
    assert pool_domains(by_domain, "eva_a_proxy_pass_at_1") == pytest.approx(0.75)


def test_bootstrap_ci_is_over_scenarios_seeded_and_brackets_the_mean():
    table = {"a": [0.0, 0.2], "b": [0.6], "c": [1.0], "d": [0.3]}  # scenario means .1 .6 1 .3, mean .5
    low, high = bootstrap_ci(table)
    assert low < 0.5 < high and low >= 0.1 and high <= 1.0
    assert bootstrap_ci(table) == (low, high)  # fixed seed
    assert bootstrap_ci({"a": [0.4], "b": [0.4]}) == (0.4, 0.4)
    assert all(math.isnan(x) for x in bootstrap_ci({"a": [1.0, 0.0]}))  # one scenario: no CI


def test_conversation_table_has_pass_columns():
    from evalkit.cell import per_conversation_table

    record = ConversationRecord(
        conversation=conv([]),
        metrics={"task_completion": mv("task_completion", 1.0, True), "user_wer": mv("user_wer", 0.1, None)},
    )
    table = per_conversation_table([record])
    assert table["task_completion_pass"] == [1] and table["user_wer_pass"] == [None]
    json.dumps(table)


def test_cell_transcribes_assistant_clips_into_heard_text():
    import numpy as np

    from evalkit.call import ConversationAudio
    from evalkit.cell import transcribe_assistant_turns
    from evalkit.records import AudioClip

    class FakeASR:
        def __init__(self) -> None:
            self.prompts: list[str | None] = []

        def transcribe(self, samples, rate, prompt=None, hotwords=None):
            from types import SimpleNamespace

            self.prompts.append(prompt)
            return SimpleNamespace(text=f"{len(samples)} samples", compute_s=0.25)

    c = conv([seg(0, "assistant", 0, 1), seg(1, "user", 2, 3), seg(2, "assistant", 4, 5)])
    audio = ConversationAudio(
        {
            (0, "assistant"): AudioClip(samples=np.zeros(10), sample_rate=16000),
            (1, "user_heard"): AudioClip(samples=np.zeros(7), sample_rate=16000),
            (2, "assistant"): AudioClip(samples=np.zeros(20), sample_rate=16000),
        }
    )
    asr = FakeASR()
    assert transcribe_assistant_turns(c, audio, asr) == 0.5
    assert [t.heard_text for t in c.turns] == ["10 samples", None, "20 samples"]
    assert asr.prompts == [c.turns[0].intended_text, c.turns[2].intended_text]  # decoded knowing the intended text
    c.turns[2].intended_text = "Your code is W K 2 E X B."
    c.turns[0].heard_text = c.turns[2].heard_text = None
    assert transcribe_assistant_turns(c, audio, asr, entity_turns_only=True) == 0.25  # only the turn with a code
    assert [t.heard_text for t in c.turns] == [None, None, "20 samples"]
