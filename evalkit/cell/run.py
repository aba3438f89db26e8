"""Stage 3 of a cell — run: every (scenario, trial) conversation of the plan through the call loop, regenerated
while a validation gate fails (EVA-Bench App. D.1). Yields conversations in plan order as they finish, so the cell
can score and write each one as it comes (nothing is lost when a run dies). ``workers`` > 1 runs them in worker
processes; ``concurrency`` > 1 runs that many real-time calls at once in each process (evalkit.call.host)."""

from __future__ import annotations

import atexit
import functools
import logging
import multiprocessing
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any

from evalkit import usage
from evalkit.call import CallSettings, ConversationAudio, run_conversation, run_text_call
from evalkit.call.host import CallHost
from evalkit.cell.plan import CellPlan
from evalkit.config.schema import InfraConfig, RunConfig
from evalkit.config.settings import CellSettings
from evalkit.records import Conversation, SimulationValidation
from evalkit.scenarios import Scenario
from evalkit.speech.cores import AUTO, process_share, set_process_share
from evalkit.validation import GATES, JUDGE_GATES, Flag, judge_flags, validate

log = logging.getLogger("evalkit")

NO_JUDGE = "no judge is configured (judge=none)"
NOT_JUDGED = "not judged: a deterministic gate failed (the attempt is rerun or kept as invalid)"


@dataclass
class ConversationResult:
    """A finished conversation with its audio, ready to score; ``asr_s``: listener ASR seconds spent on it;
    ``usage``: requests, cache hits and HTTP retries of an LLM simulator or a remote voice during it; ``metered``:
    the provider usage of every request sent for it (evalkit.usage.Ledger rows: agent, caller, validation judge)."""

    scenario: Scenario
    trial: int
    conversation: Conversation
    audio: ConversationAudio
    asr_s: float = 0.0
    usage: dict[str, float] = field(default_factory=dict)  # caller-side remote requests (evalkit.usage)
    metered: list[dict[str, Any]] = field(default_factory=list)  # provider usage rows (evalkit.usage.Ledger)


class ConversationRunner:
    """Everything one process needs to run a cell's conversations: components built once, then ``concurrency``
    jobs at a time (one for an in-process agent). With ``workers`` > 1 each worker process holds its own (models
    are loaded per process)."""

    def __init__(self, config: RunConfig, concurrency: int = 1) -> None:
        from evalkit.cell.build import build_components
        from evalkit.cell.score import assistant_asr_entity_turns_only, build_cell_judge
        from evalkit.domains import tool_registry
        from evalkit.metrics import required_preparation

        # what the config says, read first; then the components (the models) are built, once
        self.config = config
        self.concurrency = concurrency
        self.text = config.modality.name == "text"  # MM-τ-p²'s text modality: no voice, channel or ears
        needs = required_preparation(config.metrics, judge=config.judge.enabled)
        hears_agent_audio = "assistant_asr" in needs and not self.text  # a text agent speaks no audio to hear
        self.entity_turns_only = assistant_asr_entity_turns_only(config)
        # App. D.1.2/D.1.3: the LLM-judge validation gates, through the cell's judge (None: judge=none, skipped)
        self.gate_judge = build_cell_judge(config) if config.validation.enabled else None
        self._gate_asr: Any = None
        self.settings = CallSettings(
            max_user_turns=config.simulator.max_user_turns,
            max_duration_s=config.simulator.max_duration_s,
            user_reaction_ms=config.simulator.user_reaction_ms,
            agent_timeout_s=config.infra.agent_timeout_s,
        )
        self.registry = tool_registry(config.domain.name)
        built = build_components(config, hears_agent_audio)
        self.agent, self.user_tts, self.chain, self.listener = built.agent, built.user_tts, built.chain, built.listener
        # the listener runs behind the next call (a thread) for an in-process agent, whose calls run one at a time
        # on a virtual clock; a real-time agent's live calls keep their cores: its listener runs after each call
        self.listen_behind = concurrency <= 1 and not getattr(self.agent, "realtime", False)

    def run_all(self, jobs: list[tuple[Scenario, int]]) -> Iterator[ConversationResult]:
        """The jobs' results in their order; ``concurrency`` of them in flight at once, their calls sharing one
        event loop (evalkit.call.host: why one loop, not one per thread)."""
        if self.concurrency <= 1 or len(jobs) <= 1:
            results = (self.run(*job) for job in jobs)
            if self.listener is None or not self.listen_behind:
                yield from results
                return
            from evalkit.cell.score import heard_behind

            yield from heard_behind(results, self._listen)  # overlaps the next conversation (issue 28.2)
            return
        at_once = min(self.concurrency, len(jobs))
        with CallHost(threads=2 * at_once) as host, ThreadPoolExecutor(at_once, "evalkit-conversation") as pool:
            yield from pool.map(lambda job: self.run(*job, host=host), jobs)

    def _listen(self, result: ConversationResult) -> None:
        """The listener ASR's transcript of the agent's speech in the result's turns (score-stage preparation, done
        where the audio and the model are), its seconds in ``asr_s``."""
        from evalkit.cell.score import transcribe_assistant_turns

        with usage.job() as counts:  # its short-window fallbacks count with the conversation's, in whatever thread
            result.asr_s = transcribe_assistant_turns(
                result.conversation, result.audio, self.listener, entity_turns_only=self.entity_turns_only
            )
        for name, n in counts.items():
            result.usage[name] = result.usage.get(name, 0.0) + float(n)

    def run(self, scenario: Scenario, trial: int, host: CallHost | None = None) -> ConversationResult:
        # the caller's remote requests and every provider's usage of this job alone, whatever attempts it takes
        with usage.job() as counts, usage.metered() as ledger:
            result = self._run(scenario, trial, host)
        result.usage = {name: float(n) for name, n in sorted(counts.items())}
        result.metered = ledger.rows()
        return result

    def _run(self, scenario: Scenario, trial: int, host: CallHost | None) -> ConversationResult:
        config = self.config
        tally = InfraTally()  # across validation attempts: every infrastructure failure of this job counts

        def attempt_at(attempt: int) -> tuple[Conversation, Any]:
            return run_retrying(lambda: once(attempt), config.infra, tally)

        def once(attempt: int) -> tuple[Conversation, Any]:
            if self.text:
                return run_text_call(
                    scenario,
                    trial,
                    config.seed,
                    self.agent,
                    self.registry,
                    config.persona,
                    self.settings,
                    attempt=attempt,
                    simulator_config=config.simulator,
                    interrupt=config.interrupt,
                )
            return run_conversation(
                scenario,
                trial,
                config.seed,
                self.agent,
                self.registry,
                self.user_tts,
                self.chain,
                self.settings,
                attempt=attempt,
                simulator_config=config.simulator,
                host=host,
                interrupt=config.interrupt,
                behavior=config.behavior,
            )

        if config.validation.enabled:
            heard: list[Any] = [None]  # the audio of the attempt being checked (the speech gate transcribes it)
            skipped: list[dict[str, str]] = []  # per attempt: the judge gates not judged, and why

            def attempt_checked(attempt: int) -> tuple[Conversation, Any]:
                conversation, heard[0] = attempt_at(attempt)
                return conversation, heard[0]

            def check(conversation: Conversation) -> list[Flag]:
                flags = validate(conversation, scenario, self.registry)
                if flags:  # D.1.1: only a conversation the deterministic gates pass goes to the judges
                    skipped.append(dict.fromkeys(JUDGE_GATES, NOT_JUDGED))
                    return flags
                judged, why = self.judge_gates(conversation, scenario, heard[0])
                skipped.append(why)
                return judged

            conversation, audio = run_validated(attempt_checked, check, config.validation.max_reruns)
            verdict = conversation.validation
            assert verdict is not None
            kept = verdict.model_copy(update={"skipped": skipped[verdict.attempt]})
            conversation = conversation.model_copy(update={"validation": kept})
        else:
            conversation, audio = attempt_at(0)
        conversation = conversation.model_copy(
            update={"infra_failures": tally.failures, "infra_retries": tally.retries}
        )
        result = ConversationResult(scenario, trial, conversation, audio)
        if self.listener is not None and not self.listen_behind:
            self._listen(result)
        return result

    def judge_gates(
        self, conversation: Conversation, scenario: Scenario, audio: Any
    ) -> tuple[list[Flag], dict[str, str]]:
        """The LLM-judge gates (evalkit.validation.judge_flags) on one attempt: the behavioural judge reads the
        caller's instructions (App. K prompt of the scenario and persona), the speech judge a transcript of each user
        turn's clean TTS audio (the cell's listener ASR), not what the perturbed channel let the agent hear."""
        if self.gate_judge is None:
            return [], dict.fromkeys(JUDGE_GATES, NO_JUDGE)
        from evalkit.prompts import render_simulator_prompt

        persona = self.config.persona
        persona_text = persona.prompt if persona.name != "default" else None
        context = self.gate_judge.context.model_copy(
            update={
                "current_date_time": scenario.current_date_time,
                "user_simulator_instructions": render_simulator_prompt(scenario, persona_text),
                "user_transcripts": self._user_transcripts(conversation, audio),
            }
        )
        return judge_flags(lambda gate: self.gate_judge.metric_value(gate, conversation, context))  # type: ignore[union-attr]

    def _user_transcripts(self, conversation: Conversation, audio: Any) -> dict[int, str]:
        from evalkit.cell.build import listener_asr

        clips = getattr(audio, "clips", {})
        out: dict[int, str] = {}
        for turn in conversation.user_turns:
            clip = clips.get((turn.index, "user_clean"))
            if clip is None:
                continue
            if self._gate_asr is None:
                self._gate_asr = self.listener or listener_asr(self.config, self.agent)
            out[turn.index] = self._gate_asr.transcribe(clip.samples, clip.sample_rate).text
        return out


# A worker process's runner for the cell it is serving: (cell token, runner). Built on the first batch of each cell
# (as a one-process cell builds its own); the models it loads stay cached in the process for the next cells.
_RUNNER: tuple[str, ConversationRunner] | None = None


def _init_worker(share: int) -> None:
    set_process_share(share)  # before any model loads: each worker decodes with its share of the cores
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="evalkit-orphan-watch", daemon=True).start()


def _exit_with_parent(parent: int, poll_s: float = 1.0) -> None:
    """A pool worker ends when the process that started it is gone: a parent killed with SIGKILL cannot shut its
    pool down, and the workers (which live between cells, holding their models) would wait on their queue for
    good."""
    while os.getppid() == parent:
        time.sleep(poll_s)
    os._exit(1)


def _run_batch(
    cell: str, config: RunConfig, settings: CellSettings, concurrency: int, jobs: list[tuple[Scenario, int]]
) -> list[ConversationResult]:
    global _RUNNER
    if _RUNNER is None or _RUNNER[0] != cell:
        _RUNNER = (cell, ConversationRunner(config, concurrency))
        configure_limits(settings.max_concurrency, settings.caps)  # this worker process's provider caps
    return list(_RUNNER[1].run_all(jobs))


# The worker pool of this process, by (processes, share): it lives as long as the process, so the cells of a sweep
# after the first find their workers started, evalkit imported and Whisper loaded (≈ 1-3 s per worker, more than
# a small cell's conversations: issue 16 point 8). One pool at a time (each worker holds its models in memory).
_POOLS: dict[tuple[int, int], ProcessPoolExecutor] = {}


def worker_pool(processes: int, share: int) -> ProcessPoolExecutor:
    """This process's pool of ``processes`` conversation workers (started on first use, reused after)."""
    key = (processes, share)
    if key not in _POOLS:
        shutdown_worker_pools()
        # spawn, not fork: the parent holds open store connections and threads that a fork would copy mid-state
        context = multiprocessing.get_context("spawn")
        _POOLS[key] = ProcessPoolExecutor(processes, context, _init_worker, (share,))
    return _POOLS[key]


def shutdown_worker_pools() -> None:
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown_worker_pools)


def run_conversations(plan: CellPlan, workers: int = 1, concurrency: int = 1) -> Iterator[ConversationResult]:
    """Every (scenario, trial) job of the plan, yielded in plan order as each finishes. Every seed derives from
    (cell seed, scenario, trial), so ``workers`` processes × ``concurrency`` calls give exactly the results of
    one. With both, each worker process takes ``concurrency`` consecutive jobs at a time. A cell with nothing
    random runs one trial per scenario (``CellPlan.trials``). The worker processes outlive the cell
    (:func:`worker_pool`).

    An in-process agent runs one conversation at a time whatever ``concurrency`` says: its calls never wait (a
    virtual clock), so overlapping them would only share the same cores (``workers`` is the knob for that), and
    the agent object holds one conversation's state."""
    jobs = [(s, t) for s in plan.scenarios for t in range(plan.trials)]
    realtime = getattr(plan.config.agent, "realtime", False)
    if plan.config.workers == AUTO:  # resolved by the plan (CellSettings.workers)
        log.info("workers=auto: %d worker process(es) for %d conversation(s)", workers, len(jobs))
    if concurrency > 1 and not realtime:
        log.info("concurrency=%d: %s is an in-process agent, its conversations run one at a time (use workers)",
                 concurrency, plan.config.agent.kind)  # fmt: skip
        concurrency = 1
    if workers <= 1 or len(jobs) <= 1:
        # this process's provider caps are the caller's to set (run_cell_conversations, once for the judge too)
        yield from ConversationRunner(plan.config, concurrency).run_all(jobs)
        return
    batches = [jobs[i : i + concurrency] for i in range(0, len(jobs), concurrency)]
    share = process_share() * workers
    pool = worker_pool(workers, share)  # processes start on demand: a cell with fewer batches starts fewer
    serve = functools.partial(_run_batch, uuid.uuid4().hex, plan.config, plan.settings, concurrency)
    try:
        for batch in pool.map(serve, batches):
            yield from batch
    except BrokenProcessPool:
        shutdown_worker_pools()  # a worker died (killed, out of memory): the next cell starts a fresh pool
        raise


def configure_limits(max_concurrency: int | None, caps: dict[str, int | None]) -> None:
    """The provider caps of ``providers`` (``max_concurrency`` for any provider, ``caps`` by base URL) for every
    OpenAI-compatible request of this process."""
    from evalkit.wire.openai_http import limits

    limits.configure(max_concurrency, caps)


@dataclass
class InfraTally:
    """A job's infrastructure failures (reasons, in order), how many of them were retried and how many times the
    conversation was run in all (validation regenerations included). One tally per job: its retry budget
    (``infra.max_retries``) is shared by all of the job's validation attempts, so the two limits never multiply."""

    failures: list[str] = field(default_factory=list)
    retries: int = 0
    attempts: int = 0


def run_retrying(
    run_once: Callable[[], tuple[Conversation, Any]],
    policy: InfraConfig,
    tally: InfraTally,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Conversation, Any]:
    """Run a conversation; while it ends in an infrastructure failure (``end_reason == "error"``: the agent
    crashed, hung, disconnected, sent silence or garbage audio) wait ``backoff_s * 2**retry`` and run it again, while
    the job has retries left (``max_retries`` for the whole job: ``tally`` carries what earlier validation attempts
    used). A retry replays the same seeds: the failure was the pipeline's, not the simulated user's, so a
    conversation that succeeds on a retry is the one an undisturbed run would have had. Failures, retries and runs
    are added to ``tally``; the last try is returned, failed or not."""
    while True:
        tally.attempts += 1
        conversation, extra = run_once()
        if conversation.end_reason != "error":
            return conversation, extra
        tally.failures.append(conversation.error or "unknown infrastructure failure")
        if tally.retries >= policy.max_retries:
            # said once, with the count of runs: "2 retries" of a log never hide 9 tries (issue 26)
            log.warning("%s t%d: infrastructure failure (%s) after %d attempt%s", conversation.scenario_id,
                        conversation.trial, tally.failures[-1], tally.attempts,
                        "" if tally.attempts == 1 else "s")  # fmt: skip
            return conversation, extra
        wait = policy.backoff_s * 2**tally.retries
        tally.retries += 1
        log.warning("%s t%d: infrastructure failure (%s): retry %d/%d in %.1f s", conversation.scenario_id,
                    conversation.trial, tally.failures[-1], tally.retries, policy.max_retries, wait)  # fmt: skip
        sleep(wait)


def run_validated(
    run_attempt: Callable[[int], tuple[Conversation, Any]],
    check: Callable[[Conversation], list[Flag]],
    max_reruns: int,
) -> tuple[Conversation, Any]:
    """EVA-Bench App. D.1: run a conversation, regenerate it while a validation gate fails, up to ``max_reruns``
    times (EVA-Bench names no limit; ours is ``validation.max_reruns``). Keeps the first valid attempt, else the
    last one, and marks it in ``conversation.validation`` so it can be excluded or counted.

    An attempt that ends in an infrastructure failure (``end_reason == "error"``: ``run_attempt`` already spent the
    job's infrastructure retries on it, :func:`run_retrying`) is not regenerated: regenerating would retry the
    pipeline again under another name, and the two limits would multiply (3 x 3 = 9 tries of a dead agent)."""
    history: list[list[Flag]] = []
    for attempt in range(max_reruns + 1):
        conversation, extra = run_attempt(attempt)
        flags = check(conversation)
        history.append(flags)
        if not flags or conversation.end_reason == "error":
            break
    verdict = SimulationValidation(
        valid=not history[-1],
        attempt=len(history) - 1,
        attempts=len(history),
        flags=[[asdict(f) for f in flags] for flags in history],
    )
    if not verdict.valid and conversation.end_reason != "error":  # an infrastructure failure is logged as one
        log.warning(
            "%s t%d: still invalid after %d attempts (%s): kept and marked",
            conversation.scenario_id,
            conversation.trial,
            verdict.attempts,
            "; ".join(f.reason for f in history[-1]),
        )
    return conversation.model_copy(update={"validation": verdict}), extra


FAULT_KINDS = {  # exception type (as recorded in ``Conversation.error``) -> the reason counted in the statistics
    "AgentTimeout": "timeout",
    "AgentSilence": "silence",
    "AgentGarbageAudio": "garbage_audio",
    "ConnectionError": "disconnect",
    "ConnectionResetError": "disconnect",
    "ConnectionAbortedError": "disconnect",
    "ConnectionRefusedError": "disconnect",
    "BrokenPipeError": "disconnect",
    "EOFError": "disconnect",
    "IncompleteReadError": "disconnect",
    "ConnectionClosed": "disconnect",
    "ConnectionClosedError": "disconnect",
    "ConnectionClosedOK": "disconnect",
    # an OpenAI-compatible agent's server (evalkit.wire.openai_http): retries ran out, a 4xx (key, model), junk
    "EndpointUnavailable": "endpoint_unavailable",
    "EndpointRefused": "endpoint_refused",
    "EndpointAnswerInvalid": "endpoint_invalid_answer",
    # a wire agent's connection (evalkit.wire.errors) and a Realtime server's own error event or failed response
    "WireError": "wire",
    "RealtimeServerError": "realtime_server_error",
    # a TTS or ASR engine failing on a clip mid-call (evalkit.speech.registry): the caller's voice or the agent's own
    "SpeechEngineError": "speech_engine",
}


# Endpoints on the caller's side (evalkit.wire.openai_http: simulator=llm, voice=openai_tts) name themselves first in
# their messages ("simulator endpoint (model ...)"): their failures are counted apart from the agent's.
CALLER_ENDPOINTS = ("simulator", "voice")


def fault_kind(error: str) -> str:
    """The counted reason of an infrastructure failure from its recorded ``"Type: message"``; anything else an
    agent raised is a crash. A failed endpoint of the caller's side is ``simulator_endpoint_*`` / ``voice_endpoint_*``
    (the pipeline failed, as for the agent's, but the reason says whose)."""
    kind, _, message = error.partition(":")
    reason = FAULT_KINDS.get(kind.strip(), "crash")
    side = message.strip().split(" ", 1)[0]
    return f"{side}_{reason}" if reason.startswith("endpoint_") and side in CALLER_ENDPOINTS else reason


def infra_stats(conversations: list[Conversation]) -> dict[str, float]:
    """Infrastructure failures of a cell: ``infra_retries`` (re-runs with the same seeds), ``infra_failed`` (
    conversations still failing after every retry: unscored, the cell is incomplete) and, per reason,
    ``infra_failure_<reason>`` (failed tries)."""
    failures = [f for c in conversations for f in c.infra_failures]
    out = {
        "infra_retries": float(sum(c.infra_retries for c in conversations)),
        "infra_failed": float(sum(c.end_reason == "error" for c in conversations)),
    }
    for kind, count in sorted(Counter(fault_kind(f) for f in failures).items()):
        out[f"infra_failure_{kind}"] = float(count)
    return out


def interruption_stats(conversations: list[Conversation]) -> dict[str, float]:
    """An interruption condition's cuts over a cell: ``interruptions_planned``, ``interruptions_dropped`` (planned on
    a live stream, the agent's turn ended first) and ``interruptions_delivered``; empty without one."""
    tallies = [c.interruptions for c in conversations if c.interruptions is not None]
    if not tallies:
        return {}
    return {
        f"interruptions_{k}": float(sum(getattr(t, k) for t in tallies)) for k in ("planned", "dropped", "delivered")
    }


def no_interruption_warning(conversations: list[Conversation]) -> str | None:
    """The cell's one warning when its interruption condition cut into no agent turn at all (its interruption
    metrics are then unscored in every conversation, each with the reason): None otherwise."""
    tallies = [c.interruptions for c in conversations if c.interruptions is not None]
    if not tallies or any(t.delivered for t in tallies):
        return None
    planned, dropped = sum(t.planned for t in tallies), sum(t.dropped for t in tallies)
    return (
        f"+interrupt={tallies[0].kind} delivered no interruption in {len(tallies)} conversation(s) ({planned} planned, "
        f"{dropped} dropped: the agent's turn ended before the onset); the interruption metrics are unscored"
    )


def agent_stage_stats(conversations: list[Conversation]) -> dict[str, float]:
    """The agent's per-turn stage times over a cell (``agent_stt_ms_mean``, ``agent_llm_ms_mean``,
    ``agent_tts_ms_mean``: means over the assistant turns that report the stage; only the stages some turn
    reports) and ``agent_http_retries`` (requests the agent retried, in the kept conversations)."""
    turns = [t for c in conversations for t in c.turns if t.role == "assistant"]
    out = {"agent_http_retries": float(sum(t.http_retries for t in turns))}
    for stage in ("stt_ms", "llm_ms", "tts_ms"):
        values = [v for v in (getattr(t, stage) for t in turns) if v is not None]
        if values:
            out[f"agent_{stage}_mean"] = sum(values) / len(values)
    return out


def validation_stats(conversations: list[Conversation]) -> dict[str, float]:
    """Cell counts of regeneration, comparable with EVA-Bench's rates (24.1% of trials regenerated, about half for
    simulator error, 12.0%, the rest infrastructure failures and timeouts; its cost estimate treats 24.1% as reruns
    per trial). Every attempt but the kept one failed a gate and was rerun; a rerun counts as infrastructure when
    one of its flags is (crash, turn or duration limit), else as simulator error. Per gate (every gate, 0 when it
    flagged none): the reruns it flagged (an attempt can fail several gates). ``sim_invalid_kept``: conversations
    still invalid at the limit."""
    verdicts = [c.validation for c in conversations if c.validation is not None]
    n = len(verdicts)
    reruns = [flags for v in verdicts for flags in v.flags[:-1]]
    # infrastructure retries (evalkit.cell.run.run_retrying) are reruns too, counted as infrastructure
    retried = sum(c.infra_retries for c in conversations if c.validation is not None)
    infrastructure = sum(any(f["infrastructure"] for f in flags) for flags in reruns) + retried
    total = len(reruns) + retried
    out = {
        "sim_attempts": float(sum(v.attempts for v in verdicts) + retried),
        "sim_reruns": float(total),
        "sim_invalid_kept": float(sum(not v.valid for v in verdicts)),
        "sim_rerun_rate": total / n if n else 0.0,
        "sim_rerun_infrastructure": infrastructure / n if n else 0.0,
        "sim_rerun_simulator": (total - infrastructure) / n if n else 0.0,
        "sim_regenerated_share": sum(v.attempts > 1 for v in verdicts) / n if n else 0.0,
    }
    # every gate, a 0 included: the rerun counts by reason of every cell line up (EVA-Bench's per-check breakdown)
    for gate in sorted(set(GATES) | {f["gate"] for flags in reruns for f in flags}):
        out[f"sim_rerun_gate_{gate}"] = float(sum(any(f["gate"] == gate for f in flags) for flags in reruns))
    # a judge gate that was not judged on a kept conversation (no judge, a failed judgment): neither passed nor failed
    for gate in JUDGE_GATES:
        out[f"sim_gate_skipped_{gate}"] = float(sum(gate in v.skipped for v in verdicts))
    return out
