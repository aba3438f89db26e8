"""Re-score finished cells from their stored records, without re-running a conversation.

    python -m evalkit.rescore RUN_ID [RUN_ID ...] [--metrics a,b,c] [--tracking-uri URI] [--experiment NAME]

For each cell run: download its ``records/*.json`` artifacts, recompute the metrics with the current metric code,
and log the result as a NEW run (tag ``evalkit.kind=rescore``, ``rescored_from=<run id>``, under the same parent
sweep run) with the aggregates, the re-scored records and the per-conversation table. The original run is never
modified, so a re-score is auditable and reversible; the new run deliberately carries no ``cell_key`` tag (it is
not a cell that `reuse` could pick up). Metrics that need cell-side preparation (``speech_fidelity_proxy`` needs
an ASR transcript of the agent audio) use what the record holds: they cannot be added by a re-score if the cell
did not prepare their input, and say so (unscored, with the reason).

Judge metrics are re-scored through a judge when one is given (``--judge-base-url`` and ``--judge-model``; the key
is read from ``--judge-api-key-env``); its cache makes a re-score of unchanged inputs cost nothing. Without one they
are reported as skipped, as in an offline cell.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

import yaml

from evalkit.cell import CellJudge, judge_context, judge_params, score_record
from evalkit.cell.log import log_scored_cell, write_conversation
from evalkit.judges import JudgeConfig, JudgeContext, build_judge
from evalkit.metrics import aggregate_cell, resolve, version_params
from evalkit.metrics.registry import VERSION_PARAM_PREFIX
from evalkit.records import ConversationRecord
from evalkit.tracking import CellRun, TrackingTarget
from evalkit.tracking.reading import download_records, get_stored_cell
from evalkit.tracking.store import resolve_target

log = logging.getLogger("evalkit.rescore")


def rescore_records(
    records: list[ConversationRecord], metrics: list[str], judge: CellJudge | None = None
) -> list[ConversationRecord]:
    """The same conversations with fresh scores (nothing is re-run), through the cell's own scoring path."""
    # the conversation's usage is kept as it ran (docs/cost.md); a re-scoring judge's requests are not added to it
    return [score_record(r.conversation, metrics, judge).model_copy(update={"usage": r.usage}) for r in records]


def rescore_judge(config: JudgeConfig, domain: str | None, architecture: str = "cascade") -> CellJudge | None:
    """A judge for re-scoring, with the domain's agent context (instructions, tools) when the cell names its domain."""
    judge = build_judge(config)
    if judge is None:
        return None
    return CellJudge(judge, judge_context(domain, architecture) if domain else JudgeContext())


def load_records(paths: list[Path]) -> list[ConversationRecord]:
    return [ConversationRecord.model_validate_json(p.read_text()) for p in paths]


def _stored_metrics(records: list[ConversationRecord]) -> list[str]:
    """The metric names the cell was scored with (the union over its records, in first-seen order)."""
    return list(dict.fromkeys(name for r in records for name in r.metrics))


def rescore_run(
    target: TrackingTarget, run_id: str, metrics: list[str] | None = None, judge_config: JudgeConfig | None = None
) -> tuple[str, dict[str, float]]:
    """Re-score one finished cell run; returns (new run id, aggregates)."""
    source = get_stored_cell(target, run_id)
    judge = rescore_judge(
        judge_config or JudgeConfig(),
        source.params.get("domain"),
        source.params.get("cfg.agent.architecture", "cascade"),
    )
    with tempfile.TemporaryDirectory(prefix="evalkit-rescore-") as tmp:
        work = Path(tmp)
        records = load_records(download_records(target, run_id, work / "download"))
        if not records:
            raise SystemExit(f"run {run_id} has no records/*.json artifacts to re-score")
        names = resolve(metrics or _stored_metrics(records))
        rescored = rescore_records(records, names, judge)
        aggregates = aggregate_cell(rescored)
        out = work / "out"
        out.mkdir(parents=True)
        for r in rescored:
            write_conversation(out, r, {})
        (out / "rescore.yaml").write_text(yaml.safe_dump({"rescored_from": run_id, "metrics": names}))
        tags = {
            "evalkit.kind": "rescore",
            "rescored_from": run_id,
            "rescored_cell_key": source.tags.get("cell_key", ""),
            "condition": source.tags.get("condition", ""),
        }
        with CellRun.open(target, f"rescore {source.run_name}", tags, source.parent_run_id) as run:
            # this re-score's judge and metric versions, not the cell's
            stale = {k for k in source.params if k.startswith(("judge.", VERSION_PARAM_PREFIX))}
            fresh = judge_params(judge) | version_params(names)
            run.log_params({k: v for k, v in source.params.items() if k not in stale} | fresh)
            log_scored_cell(run, rescored, aggregates, out)
            new_id = run.run_id
    return new_id, aggregates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalkit.rescore", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_ids", nargs="+", help="MLflow run ids of finished cells")
    parser.add_argument("--metrics", help="comma-separated metric names (default: the ones the cell used)")
    parser.add_argument("--tracking-uri", default=None, help="default: $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db")
    parser.add_argument("--experiment", default="evalkit")
    parser.add_argument("--judge-base-url", default=None, help="OpenAI-compatible endpoint for the judge metrics")
    parser.add_argument("--judge-model", default=None)
    parser.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", help="'' for a keyless local server")
    parser.add_argument("--judge-cache-dir", default=".evalkit_cache/judges")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    target = resolve_target(args.tracking_uri, args.experiment, None, Path.cwd())
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    if metrics:
        resolve(metrics)  # an unknown name stops here, with the list of available ones
    judge_config = JudgeConfig()
    if args.judge_base_url or args.judge_model:
        judge_config = JudgeConfig(
            kind="openai_compatible",
            base_url=args.judge_base_url,
            model=args.judge_model,
            api_key_env=args.judge_api_key_env or None,
            cache_dir=args.judge_cache_dir,
        )
    for run_id in args.run_ids:
        new_id, aggregates = rescore_run(target, run_id, metrics, judge_config)
        shown = {k: round(v, 3) for k, v in aggregates.items() if k.endswith(("_mean", "_pass_at_1"))}
        log.info("re-scored %s -> new run %s: %s", run_id, new_id, shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
