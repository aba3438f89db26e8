"""Injected faults (issue 16, point 7): an agent that crashes, hangs, disconnects, returns silence or garbage audio
is an infrastructure failure — recorded with its reason, retried with backoff (``infra.*``), counted in the cell's
rerun statistics, never scored as the agent's failure; a cell still failing after its retries ends FAILED and is
never reused. A malformed tool call is the agent's behaviour (issue 14): recorded, scored, not retried.

Real cells: eSpeak NG caller voice, the scripted simulator, the airline tools, a real SQLite MLflow store; only the
agent is a toy kind registered here (one class + its config, as a newcomer writes one)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.call import AgentSpeech, AgentTurnEnd, CallSettings, VirtualClock, run_call
from evalkit.cell import plan_cell, run_cell, run_cell_conversations
from evalkit.cell.run import InfraTally, fault_kind, infra_stats, run_retrying
from evalkit.config.schema import ConfigError, InfraConfig, RunConfig, cell_key, validate_config
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.plugins import Registry
from evalkit.records import AudioClip
from evalkit.speech import EspeakTTS
from evalkit.tracking.store import FAILURE_TAG, find_finished_cell, resolve_target
from tests.test_call_loop import ScriptCaller, ToneChannel, context
from tests.test_config import composed

SENTENCE = "Let me check that for you."
Fault = Literal["none", "crash", "hang", "disconnect", "silence", "nan", "huge", "unknown_tool", "bad_json"]


class FaultyAgent:
    """Answers every turn with one sentence; on the second turn of each of its first ``faulty_calls``
    conversations it misbehaves as ``fault`` says (mid-call, after a greeting and one good answer), and on every
    conversation while ``FaultyAgent.outage`` is on (a remote service down: outside the cell's config)."""

    outage = False

    def __init__(self, fault: Fault, faulty_calls: int) -> None:
        self.fault = fault
        self.faulty_calls = faulty_calls
        self.tts = EspeakTTS("en-us")
        self.calls = 0
        self.turn = 0
        self.tools: ToolBox | None = None

    def _say(self, samples: np.ndarray | None = None) -> AgentReply:
        spoken, rate = self.tts.synthesize(SENTENCE)
        audio = spoken if samples is None else samples
        return AgentReply(text=SENTENCE, audio=AudioClip(samples=audio, sample_rate=rate))

    def start(self, context: AgentContext) -> AgentReply:
        self.calls += 1
        self.turn = 0
        self.tools = context.tools
        return self._say()

    def respond(self, user_audio: Any) -> AgentReply:
        self.turn += 1
        if self.turn != 2 or (self.calls > self.faulty_calls and not FaultyAgent.outage):
            return self._say()
        return self._misbehave()

    def _misbehave(self) -> AgentReply:
        if self.fault == "crash":
            raise RuntimeError("the agent process crashed")
        if self.fault == "hang":
            time.sleep(30)  # never answers in time (the guard abandons this daemon thread)
        if self.fault == "disconnect":
            raise ConnectionResetError("the agent closed the connection mid-call")
        if self.fault == "silence":
            return self._say(np.zeros(0, dtype=np.float32))
        if self.fault == "nan":
            return self._say(np.full(1600, np.nan, dtype=np.float32))
        if self.fault == "huge":
            return self._say(np.full(1600, 3e4, dtype=np.float32))  # int16 values passed as float
        assert self.tools is not None
        if self.fault == "unknown_tool":
            self.tools.call("teleport_passenger", confirmation_number="ABC123")
        if self.fault == "bad_json":
            self.tools.call_json("get_reservation", '{"confirmation_number": "ABC1')
        reply = self._say()
        reply.tool_calls = self.tools.drain()  # what the call loop records for this turn
        return reply


class FaultyConfig(AgentConfig):
    kind: Literal["faulty"] = "faulty"
    name: str = "faulty"
    fault: Fault = "none"
    faulty_calls: int = 1

    def build(self) -> FaultyAgent:
        return FaultyAgent(self.fault, self.faulty_calls)


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """The toy kind, registered for this test only (restored afterwards, as tests/test_registries.py does)."""
    AGENTS.load()
    monkeypatch.setattr(AGENTS, "_items", dict(AGENTS._items))
    monkeypatch.setattr(AGENTS, "_origins", dict(AGENTS._origins))
    AGENTS.register("faulty")(FaultyConfig)
    return AGENTS


def cell_config(fault: Fault, *overrides: str, faulty_calls: int = 1, tmp_path: Any = None) -> RunConfig:
    raw = composed(
        "+experiment=smoke",
        "domain.scenarios=[AL-005]",
        "simulator.max_user_turns=3",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion,tool_call_validity]",
        "mlflow.log_audio=false",
        "infra.backoff_s=0.01",
        *overrides,
    )
    raw["agent"] = {"kind": "faulty", "name": "faulty", "fault": fault, "faulty_calls": faulty_calls}
    if tmp_path is not None:
        raw["mlflow"]["tracking_uri"] = f"sqlite:///{tmp_path / 'mlflow.db'}"
    return validate_config(raw)


def run_records(config: RunConfig, out: Any) -> tuple[list, dict[str, float]]:
    stats: dict[str, float] = {}
    records = run_cell_conversations(plan_cell(config), out, log_audio=False, stats=stats)
    return records, stats


INFRA_FAULTS = [
    ("crash", "RuntimeError: the agent process crashed", "crash", ()),
    ("hang", "AgentTimeout: the agent did not answer within 0.5 s", "timeout", ("infra.agent_timeout_s=0.5",)),
    ("disconnect", "ConnectionResetError: the agent closed the connection mid-call", "disconnect", ()),
    ("silence", "AgentSilence: the agent's turn ('Let me check that for you.') came with no samples", "silence", ()),
    ("nan", "AgentGarbageAudio: 1600 of 1600 agent audio samples are NaN or inf", "garbage_audio", ()),
    ("huge", "AgentGarbageAudio: agent audio peaks at 3e+04 (limit 8 full scale)", "garbage_audio", ()),
]


@pytest.mark.parametrize(("fault", "reason", "kind", "overrides"), INFRA_FAULTS, ids=[f[0] for f in INFRA_FAULTS])
def test_an_infrastructure_fault_is_recorded_retried_counted_and_not_scored(
    faulty: Registry, tmp_path: Any, fault: Fault, reason: str, kind: str, overrides: tuple[str, ...]
) -> None:
    """The fault hits the first try only: the retry (same seeds) succeeds, and is the conversation a run without
    the fault has; the failure's reason and count are kept."""
    (record,), stats = run_records(cell_config(fault, *overrides), tmp_path / "faulty")
    (clean,), _ = run_records(cell_config("none"), tmp_path / "clean")
    conversation = record.conversation
    assert conversation.end_reason != "error" and conversation.infra_failures == [reason]
    assert conversation.infra_retries == 1
    assert record.metrics["task_completion"].score is not None  # scored: the kept try is the agent's own
    assert [t.intended_text for t in conversation.turns] == [t.intended_text for t in clean.conversation.turns]
    assert conversation.seed == clean.conversation.seed
    assert stats["infra_retries"] == 1 and stats[f"infra_failure_{kind}"] == 1 and stats["infra_failed"] == 0


def test_a_fault_on_every_try_is_unscored_and_the_cell_ends_failed_and_runs_again(
    faulty: Registry, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crashing on every try: max_retries + 1 tries, the conversation unscored (never an agent failure), the run
    FAILED with the reason, never reused; once the outage is over the same cell runs again and finishes."""
    monkeypatch.setattr(FaultyAgent, "outage", True)
    config = cell_config("crash", "infra.max_retries=2", faulty_calls=0, tmp_path=tmp_path)
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    client = MlflowClient(target.tracking_uri)
    run = client.get_run(result.run_id)
    assert run.info.status == "FAILED"
    assert run.data.tags[FAILURE_TAG] == (
        "infrastructure: 1 conversation(s) failed after 2 retries "
        "(first AL-005 t0: RuntimeError: the agent process crashed)"
    )
    assert run.data.metrics["infra_retries"] == 2 and run.data.metrics["infra_failure_crash"] == 3
    assert run.data.metrics["infra_failed"] == 1 and run.data.metrics["infrastructure_errors"] == 1
    assert "task_completion_pass_at_1" not in run.data.metrics  # nothing scored, not a 0
    assert find_finished_cell(target, result.cell_key) is None

    monkeypatch.setattr(FaultyAgent, "outage", False)
    again = run_cell(config, target, tmp_path / "again")
    assert not again.reused and again.cell_key == result.cell_key
    assert client.get_run(again.run_id).info.status == "FINISHED"
    assert find_finished_cell(target, result.cell_key) == again.run_id


@pytest.mark.parametrize(("retries", "reruns"), [(2, 2), (0, 3)])
def test_a_dead_agent_is_tried_max_retries_plus_one_times_with_validation_on(
    faulty: Registry,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    retries: int,
    reruns: int,
) -> None:
    """Issue 26 point 4: validation regenerations used to multiply infrastructure retries (3 x 3 = 9 calls to an
    agent that always fails while the log said "2 retries"). An infrastructure failure is retried per
    ``infra.max_retries`` only; validation does not regenerate it. Counted at the agent: its calls."""
    monkeypatch.setattr(FaultyAgent, "outage", True)
    starts: list[int] = []
    real_start = FaultyAgent.start
    monkeypatch.setattr(FaultyAgent, "start", lambda self, ctx: (starts.append(1), real_start(self, ctx))[1])
    config = cell_config("crash", "validation.enabled=true", f"validation.max_reruns={reruns}",
                         f"infra.max_retries={retries}", faulty_calls=0)  # fmt: skip
    with caplog.at_level("WARNING", logger="evalkit"):
        (record,), stats = run_records(config, tmp_path / "dead")
    assert len(starts) == retries + 1
    conversation = record.conversation
    assert conversation.end_reason == "error" and conversation.infra_retries == retries
    assert len(conversation.infra_failures) == retries + 1
    assert conversation.validation is not None and conversation.validation.attempts == 1
    assert stats["infra_failed"] == 1 and stats["infra_failure_crash"] == retries + 1
    assert stats["sim_attempts"] == retries + 1
    last = [r.getMessage() for r in caplog.records if "after" in r.getMessage()]
    plural = "attempt" if retries == 0 else "attempts"
    assert last == [
        f"AL-005 t0: infrastructure failure (RuntimeError: the agent process crashed) after {retries + 1} {plural}"
    ]


def test_an_infrastructure_retry_budget_is_shared_by_the_validation_attempts() -> None:
    """A recovered attempt that a gate rejects is regenerated; the regeneration's infrastructure failures draw on
    the retries the job has left, never on a fresh budget per attempt."""
    from evalkit.records import Conversation

    def conv(end: str) -> Conversation:
        error = "AgentTimeout: slow" if end == "error" else None
        return Conversation(scenario_id="S", domain="d", trial=0, seed=1, turns=[], end_reason=end, initial_db={},
                            final_db={}, expected_db={}, error=error)  # fmt: skip

    # attempt 0: error, then max_turns (a gate fails: regenerate); attempt 1: error, error (budget of 2 spent)
    outcomes = iter([conv("error"), conv("max_turns"), conv("error"), conv("error"), conv("user_end_call")])
    tally = InfraTally()
    policy = InfraConfig(max_retries=2, backoff_s=0.0)
    runs = [run_retrying(lambda: (next(outcomes), None), policy, tally, lambda _: None) for _ in range(2)]
    assert [c.end_reason for c, _ in runs] == ["max_turns", "error"]
    assert tally.attempts == 4 and tally.retries == 2 and len(tally.failures) == 3


def test_infrastructure_retries_are_reruns_in_the_validation_statistics(faulty: Registry, tmp_path: Any) -> None:
    (record,), stats = run_records(cell_config("disconnect", "validation.enabled=true"), tmp_path / "v")
    assert record.conversation.infra_retries == 1
    assert stats["sim_reruns"] >= 1 and stats["sim_rerun_infrastructure"] >= 1.0
    assert stats["infra_failure_disconnect"] == 1


@pytest.mark.parametrize("fault", ["unknown_tool", "bad_json"])
def test_a_malformed_tool_call_is_the_agents_behaviour_scored_not_retried(
    faulty: Registry, tmp_path: Any, fault: Fault
) -> None:
    """Issue 14: an unknown tool or arguments that are not JSON is what the agent did: an error result it must
    cope with, recorded as a tool error and scored by tool_call_validity; no infrastructure failure, no retry."""
    (record,), stats = run_records(cell_config(fault), tmp_path / fault)
    conversation = record.conversation
    assert conversation.end_reason != "error" and conversation.infra_failures == []
    (call,) = [c for c in conversation.tool_calls if not c.ok]
    expected = "unknown_tool" if fault == "unknown_tool" else "invalid_arguments"
    assert call.result["error_type"] == expected
    if fault == "bad_json":
        assert call.arguments == {"_raw": '{"confirmation_number": "ABC1'}
        assert call.result["message"].startswith("arguments are not valid JSON")
    assert record.metrics["tool_call_validity"].score is not None and record.metrics["tool_call_validity"].score < 1
    assert stats["infra_retries"] == 0 and stats["infra_failed"] == 0


def test_the_executor_answers_malformed_arguments_with_an_error_result() -> None:
    executor = ToolExecutor(tool_registry("airline"), {})
    assert executor.call("get_reservation", "{oops")["error_type"] == "invalid_arguments"
    assert executor.call("get_reservation", "[1, 2]")["message"] == "arguments must be an object, got list"
    # a value of the wrong type: the domain's error type for that field (EVA-Bench's airline names the format)
    wrong = executor.call("get_reservation", '{"confirmation_number": 5}')
    assert wrong["error_type"] == "invalid_confirmation_number_format" and "confirmation_number" in wrong["message"]


def test_a_wire_agent_that_disconnects_mid_call_ends_the_call_as_an_infrastructure_error() -> None:
    """A streaming session whose connection drops after the greeting: the loop records the reason."""

    class DroppingSession:
        def __init__(self) -> None:
            self.events = [AgentSpeech(text="hello", audio=None), AgentTurnEnd()]

        async def open(self, context: AgentContext) -> None: ...
        async def send(self, frame: Any) -> None: ...
        async def end_of_turn(self) -> None: ...
        async def interrupt(self) -> None: ...
        async def close(self) -> None: ...

        async def receive(self) -> Any:
            if self.events:
                return self.events.pop(0)
            raise ConnectionResetError("socket closed by peer")

    outcome = asyncio.run(
        run_call(ScriptCaller(["hi", "my code is X"]), DroppingSession(), ToneChannel(), context(), VirtualClock())
    )
    assert outcome.end_reason == "error" and outcome.error == "ConnectionResetError: socket closed by peer"
    assert fault_kind(outcome.error) == "disconnect"


def test_the_turn_guard_is_off_by_default_and_bounds_a_hung_agent_when_set() -> None:
    class Sleeper:
        def start(self, context: AgentContext) -> AgentReply:
            time.sleep(5)
            return AgentReply(text="late", audio=None)

    from evalkit.call import TurnBasedSession

    clock = VirtualClock()
    started = time.perf_counter()
    outcome = asyncio.run(
        run_call(
            ScriptCaller(["hi"]),
            TurnBasedSession(Sleeper(), clock, 0.2),
            ToneChannel(),
            context(),
            clock,
            CallSettings(agent_timeout_s=0.2),
        )
    )
    assert time.perf_counter() - started < 2.0  # the call did not wait for the thread (nor did asyncio.run)
    assert outcome.error == "AgentTimeout: the agent did not answer within 0.2 s"
    assert TurnBasedSession(Sleeper(), clock).timeout_s is None


def test_retries_back_off_and_stop_at_the_limit() -> None:
    from evalkit.records import Conversation

    failed = Conversation(scenario_id="S", domain="d", trial=0, seed=1, turns=[], end_reason="error",
                          initial_db={}, final_db={}, expected_db={}, error="AgentTimeout: slow")  # fmt: skip
    waits: list[float] = []
    tally = InfraTally()
    conversation, _ = run_retrying(
        lambda: (failed, None), InfraConfig(max_retries=3, backoff_s=0.5), tally, waits.append
    )
    assert conversation.end_reason == "error" and waits == [0.5, 1.0, 2.0]
    assert tally.retries == 3 and len(tally.failures) == 4 and tally.attempts == 4
    stats = infra_stats([conversation.model_copy(update={"infra_failures": tally.failures, "infra_retries": 3})])
    assert stats == {"infra_retries": 3.0, "infra_failed": 1.0, "infra_failure_timeout": 4.0}


def test_infra_settings_are_validated_and_not_part_of_the_cell_identity() -> None:
    base = validate_config(composed())
    assert base.infra == InfraConfig(max_retries=2, backoff_s=1.0, agent_timeout_s=None)
    changed = validate_config(composed("infra.max_retries=5", "infra.agent_timeout_s=30"))
    assert cell_key(base) == cell_key(changed)
    with pytest.raises(ConfigError, match=r"infra\.max_retries"):
        validate_config(composed("infra.max_retries=-1"))
