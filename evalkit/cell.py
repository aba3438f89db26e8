"""A cell: one (domain, agent, simulator, persona, voice, perturb, seed) over scenarios × k trials.

config -> cell plan -> conversations -> per-conversation records -> cell aggregates -> MLflow run.
Records and audio are written to the cell's output folder as each conversation finishes, so nothing is lost
when a run dies; MLflow receives them when the cell completes.
"""

from __future__ import annotations

import functools
import json
import logging
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import soundfile as sf
import yaml
from tqdm import tqdm

from evalkit.config.schema import RunConfig, cell_key, identity_payload, twin_config
from evalkit.domains import tool_registry
from evalkit.judges import Judge, JudgeContext, build_judge
from evalkit.metrics import aggregate_cell, required_preparation, resolve, score_conversation
from evalkit.metrics.speech_fidelity import DEFAULT_ASR_PROMPT_MODE, assistant_asr_prompt, has_entities
from evalkit.orchestrator import ConversationAudio, LoopSettings, render_tracks, run_conversation
from evalkit.records import CellResult, Conversation, ConversationRecord, MetricValue, SimulationValidation
from evalkit.scenarios import Scenario, load_scenarios
from evalkit.tracking import CellRun, TrackingTarget, find_finished_cell, flatten
from evalkit.tracking.store import copy_reference
from evalkit.validation import Flag, validate

log = logging.getLogger("evalkit")
ARTIFACT_SAMPLE_RATE = 16_000  # audio artifacts: 16 kHz 16-bit WAV, playable in the MLflow UI
AXES = ("domain", "agent", "simulator", "persona", "voice")


@dataclass(frozen=True)
class CellPlan:
    config: RunConfig
    key: str
    scenarios: list[Scenario]

    @property
    def run_name(self) -> str:
        c = self.config
        return f"{c.domain.name}|{c.agent.name}|{c.persona.name}|{c.voice.name}|{c.condition}|seed{c.seed}"


def plan_cell(config: RunConfig) -> CellPlan:
    scenarios = load_scenarios(config.domain.name, config.domain.scenarios, config.domain.limit)
    return CellPlan(config, cell_key(config), scenarios)


def axis_params(config: RunConfig) -> dict[str, str]:
    """Short per-axis params so the MLflow UI's compare view and search_runs filter per axis."""
    params = {axis: getattr(config, axis).name for axis in AXES}
    params["perturb"] = config.condition
    params["snr_db"] = str(config.perturb.snr_db) if config.perturb and config.perturb.snr_db is not None else "none"
    params["trials"] = str(config.trials)
    params["seed"] = str(config.seed)
    params["scenarios"] = "all" if not config.domain.scenarios else ",".join(config.domain.scenarios)
    return params


def cell_tags(plan: CellPlan, kind: str) -> dict[str, str]:
    return {
        "cell_key": plan.key,
        "twin_key": cell_key(twin_config(plan.config)),  # the clean twin's cell_key: the analysis pairs by it
        "condition": plan.config.condition,
        "evalkit.kind": kind,
        "evalkit.version": _code_version(),
        "evalkit.git_commit": _git_commit(),
    }


def _code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("evalkit")
    except PackageNotFoundError:
        return "unknown"


@functools.cache
def _git_commit() -> str:
    """The checkout's commit, with "-dirty" when it has uncommitted changes ("unknown" outside a git checkout):
    the package version alone does not say which code produced a cell."""
    def git(*args: str) -> str:
        run = subprocess.run(
            ["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5, check=True
        )
        return run.stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{commit}-dirty" if dirty else commit


def build_components(config: RunConfig) -> tuple[Any, Any, Any]:
    """(agent, user_tts, perturb) for a config. Imports the speech stack lazily: it is the slow part."""
    from evalkit.agents.cascade_local import CascadeLocalAgent
    from evalkit.speech import EspeakTTS, WhisperASR
    from perturbations import Chain

    asr = WhisperASR(**config.agent.asr.model_dump())
    agent_tts = EspeakTTS(**config.agent.tts.model_dump(exclude={"engine"}))
    agent = CascadeLocalAgent(asr, agent_tts)
    from evalkit.speech.voices import UserVoice

    # The caller: speaker pool of the voice (accent x gender) with the persona's rate, pitch and pauses; it also
    # carries the persona's behaviour, which the orchestrator hands to the simulator.
    user_tts = UserVoice.from_config(config.voice, config.persona)
    chain = Chain.from_specs(config.perturb.chain if config.perturb else [])
    return agent, user_tts, chain


def _write_conversation(out_dir: Path, record: ConversationRecord, tracks: dict[str, Any]) -> str:
    conv = record.conversation
    stem = f"{conv.scenario_id}_t{conv.trial}"
    (out_dir / "records").mkdir(parents=True, exist_ok=True)
    (out_dir / "records" / f"{stem}.json").write_text(record.model_dump_json(indent=1))
    audio_dir = out_dir / "audio" / stem
    audio_dir.mkdir(parents=True, exist_ok=True)
    for name, samples in tracks.items():
        sf.write(audio_dir / f"{name}.wav", samples, ARTIFACT_SAMPLE_RATE, subtype="PCM_16")
    return stem


def transcribe_assistant_turns(
    conversation: Any,
    audio: ConversationAudio,
    asr: Any,
    prompt_mode: str = DEFAULT_ASR_PROMPT_MODE,
    entity_turns_only: bool = False,
) -> float:
    """Put an ASR transcript of each assistant clip in the turn's ``heard_text`` (what the user would hear), for
    metrics that compare the agent's speech with its intended text. Returns the ASR wall seconds (its cost).

    The ASR is prompted with the turn's intended text (``prompt_mode``, see metrics.speech_fidelity): like the M.3
    judge, which hears the audio knowing what the agent meant to say, it then writes spelled codes in the intended
    format instead of guessing words, and the entity match measures the audio, not Whisper's spelling habits.
    ``entity_turns_only`` skips turns that speak no entity (the proxy does not rate them): about half the agent
    audio, and so half the cost, in the airline cells."""
    spent = 0.0
    for turn in conversation.turns:
        clip = audio.clips.get((turn.index, "assistant"))
        if turn.role != "assistant" or clip is None:
            continue
        if entity_turns_only and not has_entities(turn.intended_text, conversation.key_entities):
            continue
        transcript = asr.transcribe(
            clip.samples, clip.sample_rate, **assistant_asr_prompt(turn.intended_text, prompt_mode)
        )
        turn.heard_text = transcript.text
        spent += transcript.compute_s
    return spent


def _listener_asr(config: RunConfig, agent: Any) -> Any:
    """The cell's WhisperASR: the agent's own instance when it has one (no second model load)."""
    asr = getattr(agent, "asr", None)
    if asr is None:
        from evalkit.speech import WhisperASR

        asr = WhisperASR(**config.agent.asr.model_dump())
    return asr


class CellJudge:
    """The cell's judge: one `Judge` plus the cell's `JudgeContext` (agent instructions, tool schemas, architecture),
    completed per conversation with its scenario's date and time. Judge metrics call ``metric_value``."""

    def __init__(self, judge: Judge, context: JudgeContext, scenario_times: dict[str, str] | None = None) -> None:
        self.judge = judge
        self.context = context
        self.scenario_times = scenario_times or {}

    def context_for(self, conversation: Conversation) -> JudgeContext:
        when = self.scenario_times.get(conversation.scenario_id, self.context.current_date_time)
        return self.context.model_copy(update={"current_date_time": when})

    def metric_value(
        self,
        metric_name: str,
        conversation: Conversation,
        context: JudgeContext | None = None,
        *,
        name: str | None = None,
        threshold: float | None = None,
    ) -> MetricValue:
        ctx = context or self.context_for(conversation)
        return self.judge.metric_value(metric_name, conversation, ctx, name=name, threshold=threshold)

    def describe(self) -> dict[str, str]:
        return self.judge.describe()


def judge_context(domain: str, architecture: str = "cascade") -> JudgeContext:
    """What every judge prompt of a cell needs beyond the record: the agent's role, instructions and tools."""
    from evalkit.prompts import domain_texts

    registry = tool_registry(domain)
    texts = domain_texts(domain)
    return JudgeContext(
        architecture=architecture,  # type: ignore[arg-type]
        agent_role=texts.AGENT_PERSONALITY,
        agent_instructions=texts.AGENT_INSTRUCTIONS,
        available_tools=[registry[name].json_schema() for name in registry.names],
        modification_tools=registry.write_tools,
    )


def build_cell_judge(config: RunConfig, scenarios: list[Scenario] | None = None) -> CellJudge | None:
    """None for judge=none (judge metrics are then skipped); raises JudgeConfigError before any conversation runs
    when the judge is misconfigured (e.g. its API key variable is unset)."""
    judge = build_judge(config.judge)
    if judge is None:
        return None
    times = {s.id: s.current_date_time for s in scenarios or []}
    return CellJudge(judge, judge_context(config.domain.name, config.agent.architecture), times)


def assistant_asr_entity_turns_only(config: RunConfig) -> bool:
    """True unless a judge will read the agent transcript of every turn (agent_speech_fidelity with a judge)."""
    return not (config.judge.enabled and "agent_speech_fidelity" in resolve(config.metrics))


def judge_params(judge: CellJudge | None) -> dict[str, str]:
    """MLflow params naming the judge (endpoint, model, prompt versions and hashes); never the key."""
    return judge.describe() if judge is not None else {"judge.name": "none"}


def score_record(conversation: Conversation, metrics: list[str], judge: CellJudge | None = None) -> ConversationRecord:
    """Score one finished conversation: the one path the cell, re-scoring and tests share."""
    return ConversationRecord(conversation=conversation, metrics=score_conversation(conversation, metrics, judge))


def run_cell_conversations(
    plan: CellPlan, out_dir: Path, log_audio: bool = True, stats: dict[str, float] | None = None
) -> list[ConversationRecord]:
    config = plan.config
    agent, user_tts, chain = build_components(config)
    needs = required_preparation(config.metrics, judge=config.judge.enabled)
    listener = _listener_asr(config, agent) if "assistant_asr" in needs else None
    judge = build_cell_judge(config, plan.scenarios)
    stats = stats if stats is not None else {}
    registry = tool_registry(config.domain.name)

    settings = LoopSettings(
        max_user_turns=config.simulator.max_user_turns,
        max_duration_s=config.simulator.max_duration_s,
        user_reaction_ms=config.simulator.user_reaction_ms,
    )
    jobs = [(s, t) for s in plan.scenarios for t in range(config.trials)]
    records: list[ConversationRecord] = []
    bar = tqdm(jobs, desc=plan.run_name, unit="conv", disable=not config.progress)
    for scenario, trial in bar:

        def attempt_at(attempt: int, scenario: Scenario = scenario, trial: int = trial) -> tuple[Conversation, Any]:
            return run_conversation(
                scenario, trial, config.seed, agent, registry, user_tts, chain, settings, attempt=attempt
            )

        if config.validation.enabled:
            conversation, audio = run_validated(
                attempt_at, lambda c, s=scenario: validate(c, s, registry), config.validation.max_reruns
            )
        else:
            conversation, audio = attempt_at(0)
        if listener is not None:
            stats["assistant_asr_s"] = stats.get("assistant_asr_s", 0.0) + transcribe_assistant_turns(
                conversation, audio, listener, entity_turns_only=assistant_asr_entity_turns_only(config)
            )
        record = score_record(conversation, config.metrics, judge)
        tracks = render_tracks(conversation, audio, ARTIFACT_SAMPLE_RATE) if log_audio else {}
        _write_conversation(out_dir, record, tracks)
        records.append(record)
        tc = record.metrics.get("task_completion")
        bar.set_postfix_str(f"{scenario.id} t{trial} end={conversation.end_reason} tc={tc.score if tc else '-'}")
    if config.validation.enabled:
        stats.update(validation_stats([r.conversation for r in records]))
    return records


def run_validated(
    run_attempt: Callable[[int], tuple[Conversation, Any]],
    check: Callable[[Conversation], list[Flag]],
    max_reruns: int,
) -> tuple[Conversation, Any]:
    """EVA-Bench App. D.1: run a conversation, regenerate it while a validation gate fails, up to ``max_reruns``
    times (EVA-Bench names no limit; ours is ``validation.max_reruns``). Keeps the first valid attempt, else the
    last one, and marks it in ``conversation.validation`` so it can be excluded or counted."""
    history: list[list[Flag]] = []
    for attempt in range(max_reruns + 1):
        conversation, extra = run_attempt(attempt)
        flags = check(conversation)
        history.append(flags)
        if not flags:
            break
    verdict = SimulationValidation(
        valid=not history[-1],
        attempt=len(history) - 1,
        attempts=len(history),
        flags=[[asdict(f) for f in flags] for flags in history],
    )
    if not verdict.valid:
        log.warning(
            "%s t%d: still invalid after %d attempts (%s): kept and marked",
            conversation.scenario_id,
            conversation.trial,
            verdict.attempts,
            "; ".join(f.reason for f in history[-1]),
        )
    return conversation.model_copy(update={"validation": verdict}), extra


def validation_stats(conversations: list[Conversation]) -> dict[str, float]:
    """Cell counts of regeneration, comparable with EVA-Bench's rates (24.1% of trials regenerated, about half for
    simulator error, 12.0%, the rest infrastructure failures and timeouts; its cost estimate treats 24.1% as reruns
    per trial). Every attempt but the kept one failed a gate and was rerun; a rerun counts as infrastructure when
    one of its flags is (crash, turn or duration limit), else as simulator error. Per gate: the reruns it flagged
    (an attempt can fail several gates). ``sim_invalid_kept``: conversations still invalid at the limit."""
    verdicts = [c.validation for c in conversations if c.validation is not None]
    n = len(verdicts)
    reruns = [flags for v in verdicts for flags in v.flags[:-1]]
    infrastructure = sum(any(f["infrastructure"] for f in flags) for flags in reruns)
    out = {
        "sim_attempts": float(sum(v.attempts for v in verdicts)),
        "sim_reruns": float(len(reruns)),
        "sim_invalid_kept": float(sum(not v.valid for v in verdicts)),
        "sim_rerun_rate": len(reruns) / n if n else 0.0,
        "sim_rerun_infrastructure": infrastructure / n if n else 0.0,
        "sim_rerun_simulator": (len(reruns) - infrastructure) / n if n else 0.0,
        "sim_regenerated_share": sum(v.attempts > 1 for v in verdicts) / n if n else 0.0,
    }
    for gate in sorted({f["gate"] for flags in reruns for f in flags}):
        out[f"sim_rerun_gate_{gate}"] = float(sum(any(f["gate"] == gate for f in flags) for flags in reruns))
    return out


def _per_conversation_table(records: list[ConversationRecord]) -> dict[str, list[Any]]:
    rows = []
    for r in records:
        c = r.conversation
        row: dict[str, Any] = {
            "scenario": c.scenario_id,
            "trial": c.trial,
            "seed": c.seed,
            "end_reason": c.end_reason,
            "turns": len(c.turns),
        }
        if c.validation is not None:  # 0: still invalid after regeneration (App. D.1); the analysis excludes it
            row["valid"] = int(c.validation.valid)
        row.update({name: m.score for name, m in r.metrics.items()})
        row.update({f"{name}_pass": None if m.passed is None else int(m.passed) for name, m in r.metrics.items()})
        rows.append(row)
    columns = list(dict.fromkeys(col for row in rows for col in row))  # metrics may differ between records
    return {col: [row.get(col) for row in rows] for col in columns}


def run_cell(config: RunConfig, target: TrackingTarget, out_dir: Path, parent_run_id: str | None = None) -> CellResult:
    """Run (or reuse) one cell and log it. Returns the cell's aggregates."""
    plan = plan_cell(config)
    if config.reuse:
        previous = find_finished_cell(target, plan.key)
        if previous is not None:
            log.info("cell %s (%s) already finished in run %s: reusing it", plan.key, plan.run_name, previous)
            metrics = copy_reference(target, previous)
            if parent_run_id:  # a pointer in this sweep, so the sweep's summary lists every cell it covers
                tags = cell_tags(plan, "reuse") | {"reused_from": previous}
                with CellRun.open(target, plan.run_name, tags, parent_run_id) as run:
                    run.log_params(axis_params(config))
                    run.log_metrics(metrics)
            return CellResult(
                cell_key=plan.key,
                run_id=previous,
                reused=True,
                aggregates=metrics,
                n_conversations=int(metrics.get("conversations", 0)),
            )

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.yaml").write_text(yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False))
    with CellRun.open(target, plan.run_name, cell_tags(plan, "cell"), parent_run_id) as run:
        params = axis_params(config) | flatten(identity_payload(config), "cfg")
        params |= judge_params(build_cell_judge(config))
        run.log_params(params)
        started = time.perf_counter()
        stats: dict[str, float] = {}
        records = run_cell_conversations(plan, out_dir, config.mlflow.log_audio, stats)
        wall = time.perf_counter() - started
        aggregates = aggregate_cell(records) | stats
        audio_s = sum((t.end_ms - t.start_ms) / 1000.0 for r in records for t in r.conversation.turns)
        aggregates["wall_s"] = wall
        aggregates["simulated_audio_s"] = audio_s
        aggregates["audio_s_per_wall_s"] = audio_s / wall if wall > 0 else float("nan")
        run.log_metrics(aggregates)
        seeds = {f"{r.conversation.scenario_id}/t{r.conversation.trial}": r.conversation.seed for r in records}
        (out_dir / "seeds.json").write_text(json.dumps({"cell_seed": config.seed, "conversations": seeds}, indent=1))
        (out_dir / "aggregates.json").write_text(json.dumps(aggregates, indent=1))
        if records:
            run.log_table(_per_conversation_table(records), "conversations_table.json")
        run.log_dir(out_dir)
        run_id = run.run_id
    log.info("cell %s (%s) finished: %s", plan.key, plan.run_name, _headline(aggregates))
    return CellResult(
        cell_key=plan.key, run_id=run_id, reused=False, aggregates=aggregates, n_conversations=len(records)
    )


def _headline(aggregates: dict[str, float]) -> str:
    keys = ("task_completion_pass_at_1", "user_wer_mean", "key_entity_accuracy_mean", "wall_s")
    return ", ".join(f"{k}={aggregates[k]:.3f}" for k in keys if k in aggregates)
