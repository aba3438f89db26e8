"""A cell: one (domain, agent, simulator, persona, voice, perturb, seed) over scenarios × k trials.

A short pipeline of named stages, each its own module with typed inputs and outputs:

    plan (CellPlan) -> build (components) -> run (Conversation + audio) -> score (ConversationRecord) -> log

Records and audio are written to the cell's output folder as each conversation finishes, so nothing is lost
when a run dies; MLflow receives them when the cell completes. Re-scoring (evalkit.rescore) reuses the score and
log stages.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType

import yaml
from tqdm import tqdm

from evalkit import usage
from evalkit.call import render_tracks
from evalkit.cell.build import build_components
from evalkit.cell.cost import USAGE_FILE, cell_usage, with_usage, write_usage
from evalkit.cell.log import (
    ARTIFACT_SAMPLE_RATE,
    TABLE_FILE,
    conversation_traces,
    per_conversation_table,
    write_cell_files,
    write_conversation,
)
from evalkit.cell.plan import CellPlan, CellSettings, axis_params, cell_tags, plan_cell, plan_checked
from evalkit.cell.run import (
    agent_stage_stats,
    configure_limits,
    infra_stats,
    interruption_stats,
    no_interruption_warning,
    run_conversations,
    run_validated,
    validation_stats,
)
from evalkit.cell.score import (
    CellJudge,
    build_cell_judge,
    judge_context,
    judge_failures,
    judge_params,
    score_record,
    transcribe_assistant_turns,
)
from evalkit.config.schema import RunConfig
from evalkit.metrics import aggregate_cell, required_preparation, version_params
from evalkit.provenance import code_fingerprint
from evalkit.records import CellResult, ConversationRecord
from evalkit.redaction import redact
from evalkit.tracking import (
    CellClaimed,
    CellReport,
    CellRun,
    TrackingTarget,
    flatten,
    publish,
    wait_for_run,
)
from evalkit.tracking.past import point_to, recompute_reason, reuse_candidates, reuse_decision
from evalkit.tracking.progress import report_sweep_progress
from evalkit.tracking.traces import TraceSpec

__all__ = [
    "ARTIFACT_SAMPLE_RATE",
    "CellJudge",
    "CellPlan",
    "CellSettings",
    "axis_params",
    "build_cell_judge",
    "build_components",
    "cell_tags",
    "judge_context",
    "judge_params",
    "per_conversation_table",
    "plan_cell",
    "plan_checked",
    "run_cell",
    "run_cell_conversations",
    "run_plan",
    "run_validated",
    "score_record",
    "transcribe_assistant_turns",
    "validation_stats",
]

log = logging.getLogger("evalkit")


def run_cell_conversations(
    plan: CellPlan,
    out_dir: Path,
    log_audio: bool = True,
    stats: dict[str, float] | None = None,
    judge: CellJudge | EllipsisType | None = ...,
) -> list[ConversationRecord]:
    """Run -> score -> write each conversation as it finishes (in plan order, whatever ``workers`` is). ``judge``:
    the cell's judge when the caller built it already (``...``: built here)."""
    config, settings = plan.config, plan.settings
    if judge is ...:
        judge = build_cell_judge(config, plan.scenarios)
    # said once per cell, and only to a cell with a generative caller (one whose words vary from trial to trial: its
    # kind declares random sources): the gates judge an LLM caller's fidelity (App. D.1), which a caller following a
    # script cannot lose; each record and the stats say it either way
    if config.validation.enabled and judge is None and config.simulator.random_sources():
        log.info(
            "validation: the LLM-judge gates (user behavioral and speech fidelity, App. D.1) are skipped: no judge "
            "is configured (judge=none); recorded as skipped (sim_gate_skipped_<gate>), never as passed"
        )
    stats = stats if stats is not None else {}
    # this process's provider caps, once: the judge's requests share the in-process conversations' caps (a worker
    # process sets its own, evalkit.cell.run._run_batch)
    configure_limits(settings.max_concurrency, settings.caps)
    needs_asr = "assistant_asr" in required_preparation(config.metrics, judge=config.judge.enabled)
    records: list[ConversationRecord] = []
    total = len(plan.scenarios) * plan.trials
    with tqdm(total=total, desc=plan.run_name, unit="conv", disable=not config.progress) as bar:
        for done in run_conversations(plan, settings.workers, config.concurrency):
            conversation = done.conversation
            if needs_asr:
                stats["assistant_asr_s"] = stats.get("assistant_asr_s", 0.0) + done.asr_s
            for name, value in done.usage.items():  # an LLM simulator's or a remote voice's requests
                stats[name] = stats.get(name, 0.0) + value
            with usage.metered() as judged:  # the judge's requests for this conversation
                record = score_record(conversation, config.metrics, judge)
            record = with_usage(record, done.metered + judged.rows(), settings)
            has_audio = log_audio and config.modality.name != "text"  # a text call has no audio to render
            tracks = render_tracks(conversation, done.audio, ARTIFACT_SAMPLE_RATE) if has_audio else {}
            write_conversation(out_dir, record, tracks)
            records.append(record)
            tc = record.metrics.get("task_completion")
            bar.update(1)
            bar.set_postfix_str(
                f"{done.scenario.id} t{done.trial} end={conversation.end_reason} tc={tc.score if tc else '-'}"
            )
    if config.validation.enabled:
        stats.update(validation_stats([r.conversation for r in records]))
    stats.update(infra_stats([r.conversation for r in records]))
    stats.update(agent_stage_stats([r.conversation for r in records]))
    stats.update(interruption_stats([r.conversation for r in records]))
    stats.update(write_usage(out_dir, cell_usage(records, settings), plan.run_name))
    silent = no_interruption_warning([r.conversation for r in records])
    if silent is not None:  # said once per cell: every conversation's interruption metrics say why, unscored
        log.warning("cell %s: %s", plan.key, silent)
    return records


CELL_OUTPUTS = (
    "records",
    "audio",
    "seeds.json",
    "aggregates.json",
    "conversations_table.json",
    USAGE_FILE,
    "viewer.html",
)
NO_RANDOMNESS = (
    "persona variation off, no random persona behaviour, deterministic simulator, agent and voice, no perturbation"
)


def clear_cell_outputs(out_dir: Path) -> None:
    """Remove what an earlier, killed run of this cell wrote into the same folder (a re-queued SLURM job, a fixed
    ``hydra.run.dir``): the folder is logged whole, so a stale record would be published as this run's."""
    for name in CELL_OUTPUTS:
        path = out_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def incomplete_reason(records: list[ConversationRecord], max_retries: int) -> str | None:
    """Why a cell's data is not whole: conversations that still failed for infrastructure reasons after every
    retry are unscored, so the cell must not be reused as complete."""
    failed = [r.conversation for r in records if r.conversation.end_reason == "error"]
    if not failed:
        return None
    first = failed[0]
    return (
        f"infrastructure: {len(failed)} conversation(s) failed after {max_retries} retries "
        f"(first {first.scenario_id} t{first.trial}: {first.error})"
    )


REUSE_TAG = "evalkit.reuse"  # what reuse decided for the run: reused / recomputed (and why) / off / fresh


def run_cell(config: RunConfig, target: TrackingTarget, out_dir: Path, parent_run_id: str | None = None) -> CellResult:
    """Run (or reuse) one cell and log it. Returns the cell's aggregates.

    With reuse on, the new run claims the cell key: when another live run (a concurrent sweep) holds it, this job
    waits for that run and reuses it if it finished complete, or claims again if it died."""
    return run_plan(plan_cell(config), target, out_dir, parent_run_id)


def run_plan(plan: CellPlan, target: TrackingTarget, out_dir: Path, parent_run_id: str | None = None) -> CellResult:
    """:func:`run_cell` of a planned cell (the CLI plans each job once, right after its preflight)."""
    result = _run_or_reuse(plan, target, out_dir, parent_run_id)
    if parent_run_id:
        report_sweep_progress(target, parent_run_id)  # read from the store: jobs may run in other processes
    return result


def _run_or_reuse(plan: CellPlan, target: TrackingTarget, out_dir: Path, parent_run_id: str | None) -> CellResult:
    """A finished run of the same cell key is reused when its code fingerprint is this code's (``reuse=true``) or
    whatever it is (``reuse=any``); ``reuse=false`` always runs. What names a reuse pointer is made before the store
    is read: then the store's reads and writes, in one pass."""
    reuse = plan.config.reuse
    fingerprint = code_fingerprint()
    pointer = cell_tags(plan, "reuse"), axis_params(plan.config)
    while True:
        reason = "off: reuse=false"
        if reuse:
            found, other = reuse_candidates(target, plan.key, None if reuse == "any" else fingerprint)
            if found is not None:
                decision = reuse_decision(found, fingerprint)
                log.info("cell %s (%s) already finished in run %s (%s): reusing it", plan.key, plan.run_name,
                         found.run_id, decision)  # fmt: skip
                said = {REUSE_TAG: decision, "reused_fingerprint": found.fingerprint or "none"}
                metrics = point_to(target, found, plan.run_name, (pointer[0] | said, pointer[1]), parent_run_id)
                return CellResult(cell_key=plan.key, run_id=found.run_id, reused=True, aggregates=metrics,
                                  n_conversations=int(metrics.get("conversations", 0)))  # fmt: skip
            reason = recompute_reason(other, fingerprint)
            log.info("cell %s (%s): %s", plan.key, plan.run_name, reason)
        try:
            return _run_fresh(plan, target, out_dir, parent_run_id, reason)
        except CellClaimed as claimed:
            log.info("cell %s (%s) is being run by %s: waiting for it", plan.key, plan.run_name, claimed.holder)
            wait_for_run(target, claimed.holder)


def _run_fresh(
    plan: CellPlan, target: TrackingTarget, out_dir: Path, parent_run_id: str | None, reuse_reason: str
) -> CellResult:
    config = plan.config
    out_dir.mkdir(parents=True, exist_ok=True)
    clear_cell_outputs(out_dir)
    tags = cell_tags(plan, "cell") | {"evalkit.deterministic": str(plan.trials < config.trials).lower()}
    tags[REUSE_TAG] = reuse_reason
    if plan.trials < config.trials:
        log.info("cell %s (%s): nothing in it is random (%s): running 1 trial per scenario instead of k=%d identical "
                 "copies", plan.key, plan.run_name, NO_RANDOMNESS, config.trials)  # fmt: skip
    claim, any_code = bool(config.reuse), config.reuse == "any"
    # The run holds the cell while it computes (claim, heartbeat: evalkit.tracking.liveness); the cell computes
    # without writing to it, and the run receives the whole cell in one pass at the end.
    with CellRun.open(target, plan.run_name, tags, parent_run_id, claim=claim, claim_any_code=any_code) as run:
        cell = compute_cell(plan, target, out_dir, tags, run.run_id, run.artifact_uri)
        publish(run, cell.report)
        run_id = run.run_id
    incomplete = cell.report.incomplete
    if incomplete is None:
        log.info("cell %s (%s) finished: %s", plan.key, plan.run_name, cell.headline)
    else:  # not "finished": the cell is not done, its run is FAILED and the command exits 1 (evalkit.cli.outcome)
        log.info("cell %s (%s) ended FAILED: %s", plan.key, plan.run_name, cell.headline)
    return CellResult(
        cell_key=plan.key,
        run_id=run_id,
        reused=False,
        aggregates=cell.aggregates,
        n_conversations=cell.n_conversations,
        failure=f"{plan.run_name}: {incomplete}" if incomplete is not None else None,
    )


@dataclass(frozen=True)
class ComputedCell:
    """A fresh cell's results: what its run receives (``report``) and what the log and the caller are told."""

    report: CellReport
    aggregates: dict[str, float]
    n_conversations: int
    headline: str


def compute_cell(
    plan: CellPlan, target: TrackingTarget, out_dir: Path, tags: dict[str, str], run_id: str, artifact_uri: str
) -> ComputedCell:
    """Run, score and write the cell's conversations and files (folder, viewer) into ``out_dir``, and shape what its
    run receives. ``target``: the store the viewer finds the clean twin in; ``run_id``, ``artifact_uri``: the run that
    holds the cell (its traces' session and audio links)."""
    config = plan.config
    # the cell's own stages first, then what writes through the layers below (files, traces, redaction), then the
    # viewer
    judge = build_cell_judge(config, plan.scenarios)  # once: named in the params, then scoring every record
    named = judge_params(judge) | plan.trial_params()
    started = time.perf_counter()
    started_ms = time.time() * 1000.0
    stats: dict[str, float] = {}
    records = run_cell_conversations(plan, out_dir, config.mlflow.log_audio, stats, judge)
    wall = time.perf_counter() - started
    aggregates = aggregate_cell(records) | stats
    audio_s = sum((t.end_ms - t.start_ms) / 1000.0 for r in records for t in r.conversation.turns)
    aggregates["wall_s"] = wall
    aggregates["simulated_audio_s"] = audio_s
    aggregates["audio_s_per_wall_s"] = audio_s / wall if wall > 0 else float("nan")
    failures, reason = judge_failures(records)
    if config.judge.enabled:
        aggregates["judge_failures"] = float(failures)
    incomplete = [] if reason is None else [f"judge: {failures} judgment(s) failed: {reason}"]
    if reason is not None:
        log.warning("cell %s (%s): %d judge failure(s), run marked FAILED: %s", plan.key, plan.run_name,
                    failures, reason)  # fmt: skip
    infra = incomplete_reason(records, config.infra.max_retries)
    if infra is not None:
        log.warning("cell %s (%s): run marked FAILED: %s", plan.key, plan.run_name, infra)
        incomplete.append(infra)  # infrastructure failures, not scores: never reuse this cell as complete
    headline = _headline(aggregates)  # what the log says of the cell: its aggregates are complete here
    tables = {TABLE_FILE: per_conversation_table(records)} if records else {}
    write_cell_files(out_dir, config.seed, records, aggregates)
    traces = _traces(plan, records, started_ms, f"{plan.key}-{run_id[:8]}", artifact_uri)
    components = config.agent.params() | config.simulator.params() | config.voice.params()
    named |= axis_params(config) | components | version_params(config.metrics)  # version: of each metric
    # Redacted by value (URL user-info, secret env values): the key-name filter alone misses keys pasted
    # elsewhere. Written once the cell is this run's (a cell another run holds is not this job's folder).
    (out_dir / "config.yaml").write_text(yaml.safe_dump(redact(config.model_dump(mode="json")), sort_keys=False))
    params = redact(named | flatten(plan.identity, "cfg"))
    # last: the viewer is the one step that reads back (the clean twin's run in the store), once the cell's own
    # files are written
    cost = _write_viewer(plan, target, out_dir, tags) if config.mlflow.log_viewer and records else {}
    report = CellReport(
        params=params,
        folder=out_dir,
        tables=tables,
        metrics=aggregates | cost,
        traces=traces,
        incomplete="; ".join(incomplete) if incomplete else None,
        label=plan.key,
    )
    return ComputedCell(report, aggregates, len(records), headline)


def _write_viewer(plan: CellPlan, target: TrackingTarget, out_dir: Path, tags: dict[str, str]) -> dict[str, float]:
    """The cell's viewer.html (logged with the folder). A view of data already written: a page that cannot be built
    costs a warning, never the cell. ``viewer_s``: what it cost (audio encoding, mostly)."""
    from evalkit.view import write_cell_page  # the page's renderer: loaded only for a cell that writes one

    t0 = time.perf_counter()
    names = {"mlflow.runName": plan.run_name} | {k: tags[k] for k in ("condition", "cell_key", "twin_key")}
    try:
        twin = write_cell_page(out_dir, names, target, plan.config.mlflow.viewer_embed_mb)
    except Exception as exc:
        log.warning("cell %s: viewer.html not written: %s: %s", plan.key, type(exc).__name__, exc)
        return {}
    log.info("cell %s: viewer.html written (%s)", plan.key, twin)
    return {"viewer_s": time.perf_counter() - t0}


def _traces(
    plan: CellPlan, records: list[ConversationRecord], started_ms: float, session: str, artifact_uri: str
) -> list[TraceSpec]:
    """Each conversation as an MLflow trace, one session per cell run (``session``); none when traces are off.
    twin_key: a trace's clean twin is the trace of that cell key, scenario and trial (docs/running.md)."""
    if not plan.config.mlflow.log_traces or not records:
        return []
    tags = {"cell_key": plan.key, "cell": plan.run_name, "condition": plan.config.condition,
            "twin_key": plan.twin_key}  # fmt: skip
    return conversation_traces(records, started_ms, session, tags, artifact_uri)


def _headline(aggregates: dict[str, float]) -> str:
    keys = ("task_completion_pass_at_1", "user_wer_mean", "key_entity_accuracy_mean", "wall_s", "asr_cache_hits",
            "asr_cache_lookups")  # fmt: skip
    return ", ".join(f"{k}={aggregates[k]:.3f}" for k in keys if k in aggregates)
