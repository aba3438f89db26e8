"""IHBench's interruptions: `+interrupt=<type>` cuts the caller into the agent's speech at a word boundary outside
the last sentence, with IHBench's overlap per type, seeded; the embedded agent yields and recovers; the recovery
metrics read it back. Conversations here are real (the local agent and the scripted caller; text and audio)."""

from __future__ import annotations

import numpy as np
import pytest

from evalkit.call import run_text_call
from evalkit.call.interrupt import delivered_at, plan_cut
from evalkit.config.interrupt import IHBENCH_OVERLAP_S, InterruptConfig
from evalkit.config.schema import ConfigError
from evalkit.domains import tool_registry
from evalkit.domains.scenarios import scenario_dir
from evalkit.metrics.registry import METRICS
from evalkit.records import AppliedEffect, Conversation, ToolCall, Turn
from evalkit.scenarios import load_scenario
from evalkit.simulator.corrections import wrong_value
from evalkit.textnorm import sentence_spans
from tests.test_axes import composed

TEXT = "Sure, I can help with that. Let me check your booking first. May I have your confirmation code?"


def test_a_cut_lands_on_a_word_outside_the_last_sentence_with_ihbench_overlap():
    last_sentence_start = sentence_spans(TEXT)[-1][0]
    for seed in range(200):
        cut = plan_cut(TEXT, 1000.0, 7000.0, (0.15, 0.5), np.random.default_rng(seed))
        assert cut is not None
        assert cut.cut_char < last_sentence_start and (cut.cut_char == len(TEXT) or TEXT[cut.cut_char] == " ")
        assert 0.15 <= cut.overlap_s <= 0.5 and cut.stop_ms == pytest.approx(cut.onset_ms + cut.overlap_s * 1000.0)
        assert TEXT.startswith(cut.delivered) and cut.undelivered == TEXT[len(cut.delivered) :].strip()  # IHBench
        assert cut.delivered == delivered_at(TEXT, len(cut.delivered))  # whole words only
    again = [plan_cut(TEXT, 0.0, 6000.0, (0.15, 0.5), np.random.default_rng(7)) for _ in range(2)]
    assert again[0] == again[1]  # seeded
    assert plan_cut("Just one sentence here.", 0.0, 2000.0, (0.15, 0.5), np.random.default_rng(0)) is None


def test_the_config_keeps_to_ihbench_ranges_for_every_agent():
    assert IHBENCH_OVERLAP_S["filler"] == (0.15, 0.50) and IHBENCH_OVERLAP_S["correction"] == (0.40, 1.20)
    assert composed("+interrupt=impatient").interrupt.overlap_s == (0.40, 1.20)
    with pytest.raises(ConfigError, match=r"outside IHBench's range for filler interruptions \[0.15, 0.5\]"):
        composed("+interrupt=filler", "interrupt.overlap_s=[0.1,0.6]")
    assert composed("+interrupt=filler", "agent=twilio_ws").interrupt.type == "filler"  # cut on the live stream
    with pytest.raises(ConfigError, match="type"):
        composed("+interrupt=filler", "interrupt.type=shouting")


def run_with(kind: str, scenario_id: str = "AL-001", seed: int = 0) -> Conversation:
    scenario = load_scenario(scenario_dir("airline") / f"{scenario_id}.json")
    low, high = IHBENCH_OVERLAP_S[kind]
    config = InterruptConfig(name=kind, type=kind, overlap_s=(low, high), probability=1.0)
    from evalkit.agents.reference.local_text import LocalTextAgent

    conversation, _ = run_text_call(scenario, 0, seed, LocalTextAgent(), tool_registry("airline"), interrupt=config)
    return conversation


@pytest.mark.parametrize("kind", ["filler", "impatient", "normal", "topic_switch", "pushback"])
def test_the_embedded_agent_yields_and_recovers_as_each_type_expects(kind):
    conversation = run_with(kind)
    cuts = [(i, e) for i, t in enumerate(conversation.turns) for e in t.effects if e.type == "interruption"]
    assert cuts, "probability 1: every eligible agent turn is cut"
    for i, effect in cuts:
        agent, caller = conversation.turns[i], conversation.turns[i + 1]
        assert effect.params["kind"] == kind and caller.role == "user"
        # the caller starts on the cut, the agent goes on under it for the overlap, then is silent
        assert caller.start_ms == pytest.approx(effect.start_ms) and agent.end_ms == pytest.approx(effect.end_ms)
        assert caller.start_ms < agent.end_ms and effect.params["yield_ms"] == pytest.approx(
            effect.params["overlap_s"] * 1000.0
        )
        full = agent.intended_text
        assert full.startswith(effect.params["delivered"])
    recovery = METRICS["interruption_recovery"].score(conversation)
    assert recovery.score == 1.0 and recovery.passed, recovery.details
    no_redelivery = METRICS["interruption_no_redelivery"].score(conversation).score
    assert no_redelivery == (1.0 if kind in ("filler", "impatient") else None)  # fresh starts may say it again
    assert METRICS["interruption_yield_ms"].score(conversation).score > 0
    if kind != "impatient":  # skipping the rest can skip a read-back the caller needed: a real cost of impatience
        tc = METRICS["task_completion"].score(conversation)
        assert tc.score == 1.0, tc.details  # the embedded agent recovers without losing the task (a perfect ear)


def test_a_correction_plants_a_wrong_value_first_and_scores_its_uptake():
    """IHBench correction: the caller gives a value wrong (seeded; the wrong value derived from the right one), then
    cuts into the agent to correct it; the metric reads the agent's next tool call that uses the field."""
    conversation = run_with("correction")
    cuts = [(i, e.params) for i, t in enumerate(conversation.turns) for e in t.effects if e.type == "interruption"]
    assert cuts and all("corrects" in p for _, p in cuts)  # every correction corrects a planted value
    for i, params in cuts:
        fix = params["corrects"]
        assert fix["wrong"] == wrong_value(fix["right"]) != fix["right"]
        said_wrong = [t for t in conversation.turns[:i] if t.role == "user" and spaced(fix["wrong"]) in spaced(
            t.intended_text)]  # fmt: skip
        assert said_wrong, f"the caller said {fix['wrong']} before correcting it"
        assert spaced(fix["right"]) in spaced(conversation.turns[i + 1].intended_text)  # the interjection
    uptake = METRICS["interruption_correction_uptake"].score(conversation)
    assert uptake.score == 1.0, uptake.details  # the embedded agent ends up using the corrected values
    assert METRICS["interruption_recovery"].score(conversation).score == 1.0
    again = run_with("correction")
    assert [t.intended_text for t in again.turns] == [t.intended_text for t in conversation.turns]  # seeded
    scenario = load_scenario(scenario_dir("airline") / "AL-001.json")
    from evalkit.agents.reference.local_text import LocalTextAgent

    plain, _ = run_text_call(scenario, 0, 0, LocalTextAgent(), tool_registry("airline"))
    assert not any(e.type == "interruption" for t in plain.turns for e in t.effects)
    assert METRICS["interruption_recovery"].score(plain).score is None


def spaced(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def test_wrong_values_are_a_pure_function_of_the_right_one():
    assert wrong_value("WK2EXB") == "WK3EXB" and wrong_value("A19") == "A10" and wrong_value("Brooks") == "Brookt"
    assert wrong_value("zz") == "za" and wrong_value("--") is None


def _uptake_of(arguments: dict | None) -> float | None:
    effect = AppliedEffect(
        type="interruption", participant="user", turn=0, start_ms=900.0, end_ms=1200.0,
        params={"kind": "correction", "delivered": "I have", "undelivered": "W K 3. Is that right?",
                "corrects": {"field": "confirmation_number", "right": "WK2EXB", "wrong": "WK3EXB"}},
    )  # fmt: skip
    calls = [] if arguments is None else [ToolCall(name="get_reservation", arguments=arguments, result={}, ok=True,
                                                   t_ms=2000.0)]  # fmt: skip
    turns = [
        Turn(index=0, role="assistant", intended_text="I have W K 3 E X B. Is that right?", start_ms=0.0,
             end_ms=1200.0, effects=[effect]),
        Turn(index=1, role="user", intended_text="Sorry, it's W K 2 E X B.", start_ms=900.0, end_ms=2000.0),
        Turn(index=2, role="assistant", intended_text="Thanks.", start_ms=2400.0, end_ms=3000.0, tool_calls=calls),
    ]  # fmt: skip
    conversation = Conversation(
        scenario_id="X", domain="airline", trial=0, seed=0, turns=turns, end_reason="user_end_call",
        initial_db={}, final_db={}, expected_db={},
    )  # fmt: skip
    return METRICS["interruption_correction_uptake"].score(conversation).score


def test_correction_uptake_on_both_sides():
    assert _uptake_of({"confirmation_number": "wk2-exb", "last_name": "Brooks"}) == 1.0  # the corrected value
    assert _uptake_of({"confirmation_number": "WK3EXB", "last_name": "Brooks"}) == 0.0  # the wrong one kept
    assert _uptake_of({"query": "baggage"}) is None  # no call used the field: nothing to check
    assert _uptake_of(None) is None


def _cut_conversation(kind: str, reply: str) -> Conversation:
    full = "I can rebook you on the evening flight tonight. It leaves at six. Shall I go ahead?"
    delivered = "I can rebook you on the evening flight"
    effect = AppliedEffect(
        type="interruption", participant="user", turn=0, start_ms=900.0, end_ms=1200.0,
        params={"kind": kind, "delivered": delivered, "undelivered": full[len(delivered):].strip(), "yield_ms": 300.0},
    )  # fmt: skip
    turns = [
        Turn(index=0, role="assistant", intended_text=full, start_ms=0.0, end_ms=1200.0, effects=[effect]),
        Turn(index=1, role="user", intended_text="Mm-hm.", heard_text="Mm-hm.", start_ms=900.0, end_ms=1300.0),
        Turn(index=2, role="assistant", intended_text=reply, start_ms=1800.0, end_ms=3000.0),
    ]
    return Conversation(
        scenario_id="X", domain="airline", trial=0, seed=0, turns=turns, end_reason="user_end_call",
        initial_db={}, final_db={}, expected_db={},
    )  # fmt: skip


def test_the_recovery_checks_on_both_sides():
    score = lambda kind, reply: METRICS["interruption_recovery"].score(_cut_conversation(kind, reply)).score  # noqa: E731
    assert score("filler", "tonight. It leaves at six. Shall I go ahead?") == 1.0  # continues exactly
    assert score("filler", "Sorry. I can rebook you on the evening flight tonight.") == 0.0  # restarts: re-delivery
    assert score("impatient", "Shall I go ahead?") == 1.0  # skips to the pending question
    assert score("impatient", "It leaves at six. Shall I go ahead?") == 0.0  # re-explains the skipped part
    assert score("pushback", "I understand. Shall I go ahead?") == 1.0  # fresh start, back to the question
    assert score("pushback", "I understand your concern.") == 0.0  # never steers back
    assert score("topic_switch", "tonight. It leaves at six. Shall I go ahead?") == 0.0  # just carries on
    no_redelivery = METRICS["interruption_no_redelivery"]
    assert no_redelivery.score(_cut_conversation("filler", "I can rebook you on the evening flight.")).score == 0.0
    assert no_redelivery.score(_cut_conversation("impatient", "Sure. Shall I go ahead?")).score == 1.0
    assert no_redelivery.score(_cut_conversation("pushback", "I can rebook you on the evening flight.")).score is None
    restarted = "I understand. I can rebook you on the evening flight tonight. It leaves at six. Shall I go ahead?"
    assert score("normal", restarted) == 1.0  # a fresh start of the cut sentence is no continuation


@pytest.mark.slow
def test_a_sweep_with_interruptions_and_its_clean_twin_in_audio(tmp_path):
    """`+interrupt=filler -m` on one scenario: the twin runs without interruptions; in the interrupted cell the cut
    agent turn's audio ends where the agent yielded and the caller's filler is heard over its tail."""
    import json

    import soundfile as sf

    from tests.test_preflight import evalkit_cli

    result = evalkit_cli(
        tmp_path, "domain.scenarios=[AL-005]", "trials=1", "+interrupt=filler", "progress=false",
        "metrics=[task_completion,turn_taking,interruption_recovery,interruption_yield_ms]", "-m",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    records = {}
    for path in (tmp_path / "sweep").glob("*/records/AL-005_t0.json"):
        record = json.loads(path.read_text())
        cut = any(e["type"] == "interruption" for t in record["conversation"]["turns"] for e in t["effects"])
        records[cut] = (path.parent.parent, record)
    assert set(records) == {True, False}  # the interrupted cell and its clean twin
    cell_dir, record = records[True]
    turns = record["conversation"]["turns"]
    i, effect = next((i, e) for i, t in enumerate(turns) for e in t["effects"] if e["type"] == "interruption")
    agent_audio, rate = sf.read(cell_dir / "audio" / "AL-005_t0" / "assistant.wav")
    mixed, _ = sf.read(cell_dir / "audio" / "AL-005_t0" / "mixed.wav")
    start = int(turns[i]["start_ms"] / 1000 * rate)
    onset, stop = int(effect["start_ms"] / 1000 * rate), int(effect["end_ms"] / 1000 * rate)
    # the agent is silent after yielding, up to 200 ms or its next turn, whichever comes first (an agent may answer
    # a short filler 150 ms after it ends)
    following = [t["start_ms"] for t in turns[i + 1 :] if t["role"] == "assistant"]
    quiet_until = min(stop + rate // 5, int(following[0] / 1000 * rate) if following else len(agent_audio))
    assert quiet_until - stop > rate // 20, (stop, quiet_until)  # a silence long enough to look at
    assert abs(agent_audio[stop + rate // 100 : quiet_until]).max() < 1e-4
    assert abs(agent_audio[start:onset]).max() > 0.01  # it was speaking before the cut
    user_heard = mixed[onset:stop] - agent_audio[onset:stop]
    assert abs(user_heard).max() > 0.01  # the caller talks over the agent's tail: the overlap is in the audio
    assert record["metrics"]["interruption_yield_ms"]["score"] > 0
    assert record["metrics"]["turn_taking"]["score"] is not None


def test_recovery_quality_is_judged_per_interruption_with_pass_only_when_every_criterion_is_met(tmp_path):
    """The judged IHBench RQ: the judge sees each interruption in IHBench's markup with its type's criteria; PASS is
    computed here from the criteria (a judge saying otherwise is not believed); a wrong answer shape fails it."""
    import json

    from evalkit.judges.config import JudgeConfig
    from evalkit.judges.interruptions import RECOVERY_CRITERIA
    from evalkit.judges.judge import Judge
    from tests.openai_server import OpenAIStubServer, RecordedRequest, Reply, reply_json

    conversation = run_with("pushback")
    n_cuts = sum(e.type == "interruption" for t in conversation.turns for e in t.effects)

    def judge(request: RecordedRequest) -> Reply:
        prompt = request.body["messages"][1]["content"]
        ids = [int(line.split()[1]) for line in prompt.splitlines() if line.startswith("interruption_id")]
        # every criterion met, except the tone of the first interruption
        entries = [
            {"interruption_id": i, "criteria": {c: not (i == 0 and c == "non_defensive") for c in
                                                RECOVERY_CRITERIA["pushback"]}, "explanation": "-"}
            for i in ids
        ]  # fmt: skip
        return reply_json({"interruptions": entries})

    config = {"kind": "openai_compatible", "model": "rq-judge", "api_key_env": None, "cache_dir": None}
    with OpenAIStubServer([judge]) as server:
        value = Judge(JudgeConfig(base_url=server.base_url, **config)).metric_value(
            "interruption_recovery_quality", conversation, threshold=1.0
        )
        prompt = server.requests[0].body["messages"][1]["content"]
    assert "<INTERRUPTED />" in prompt and "<INTERRUPTION>" in prompt and "[Undelivered:" in prompt
    assert "concern_addressed" in prompt and prompt.count("interruption_id") == n_cuts
    assert value.score == pytest.approx((n_cuts - 1) / n_cuts) and value.passed is False
    assert value.details["interruptions"][0]["pass"] is False
    with OpenAIStubServer([reply_json({"interruptions": [{"interruption_id": 0, "criteria": {"x": True}}]})]) as bad:
        failed = Judge(JudgeConfig(base_url=bad.base_url, **config)).metric_value(
            "interruption_recovery_quality", conversation
        )
    assert failed.score is None and "expected" in json.dumps(failed.details)


def _tallied(planned: int, dropped: int, delivered: int) -> Conversation:
    from evalkit.records import InterruptionTally

    agent = Turn(index=0, role="assistant", intended_text=TEXT, start_ms=0.0, end_ms=4000.0)
    tally = InterruptionTally(kind="impatient", planned=planned, dropped=dropped, delivered=delivered)
    return Conversation(
        scenario_id="S", domain="airline", trial=0, seed=0, turns=[agent], end_reason="user_end_call",
        initial_db={}, final_db={}, expected_db={}, interruptions=tally,
    )  # fmt: skip


def test_the_counts_and_why_the_interruption_metrics_are_unscored():
    dropped = _tallied(planned=2, dropped=2, delivered=0)
    assert METRICS["interruptions_planned"].score(dropped).score == 2.0
    assert METRICS["interruptions_delivered"].score(dropped).score == 0.0
    for name in ("interruption_yield_ms", "interruption_recovery", "interruption_no_redelivery"):
        result = METRICS[name].score(dropped)
        assert result.score is None and result.details["reason"] == (
            "+interrupt=impatient delivered no interruption in this call: 2 planned, 2 dropped (the agent's turn "
            "ended before the onset)"
        )
    none_eligible = METRICS["interruption_yield_ms"].score(_tallied(0, 0, 0)).details["reason"]
    assert none_eligible.startswith("+interrupt=impatient delivered no interruption in this call: no agent turn")
    clean = _tallied(0, 0, 0).model_copy(update={"interruptions": None})
    assert METRICS["interruptions_planned"].score(clean).score is None  # no condition: nothing to count
    assert "never cut in" in METRICS["interruption_yield_ms"].score(clean).details["reason"]


def test_a_cell_whose_condition_cut_nothing_says_so_once_and_counts_it(tmp_path, caplog):
    """A text cell with ``+interrupt=impatient`` that draws no cut (probability 0), two trials: every record holds
    the tally, the interruption metrics are unscored with the reason, the cell's stats count 0 and it warns once."""
    import logging

    from evalkit.cell import plan_cell, run_cell_conversations

    config = composed(
        "modality=text", "domain.scenarios=[AL-001]", "trials=2", "progress=false", "+interrupt=impatient",
        "interrupt.probability=0.0", "metrics=[interruptions_planned,interruptions_delivered,interruption_yield_ms]",
    )  # fmt: skip
    stats: dict[str, float] = {}
    with caplog.at_level(logging.WARNING, logger="evalkit"):
        records = run_cell_conversations(plan_cell(config), tmp_path, log_audio=False, stats=stats)
    assert len(records) == 2
    for record in records:
        assert record.conversation.interruptions is not None and record.conversation.interruptions.delivered == 0
        assert record.metrics["interruptions_delivered"].score == 0.0
        assert record.metrics["interruption_yield_ms"].score is None
        assert "+interrupt=impatient delivered no interruption" in record.metrics["interruption_yield_ms"].details[
            "reason"]  # fmt: skip
    warned = [r.getMessage() for r in caplog.records if "delivered no interruption" in r.getMessage()]
    assert len(warned) == 1 and "in 2 conversation(s)" in warned[0], warned
    assert stats["interruptions_planned"] == 0.0 and stats["interruptions_delivered"] == 0.0
