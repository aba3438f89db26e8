"""Stage 5 of a cell — log: each conversation's record and audio into the cell's output folder as it finishes, then
the cell's params, aggregates, per-conversation table, folder and conversation traces into its MLflow run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import soundfile as sf

from evalkit.records import ConversationRecord, Turn
from evalkit.redaction import redact, secret_env_values
from evalkit.safe_paths import inside
from evalkit.tracking.store import write_table
from evalkit.tracking.traces import SpanSpec, TraceSpec

ARTIFACT_SAMPLE_RATE = 16_000  # audio artifacts: 16 kHz 16-bit WAV, playable in the MLflow UI
TABLE_FILE = "conversations_table.json"  # the per-conversation table (an MLflow table artifact)


def write_conversation(out_dir: Path, record: ConversationRecord, tracks: dict[str, Any]) -> str:
    conv = record.conversation
    stem = f"{conv.scenario_id}_t{conv.trial}"
    # The id comes from a scenario file: checked again here, where it becomes a path (evalkit.safe_paths).
    record_path = inside(out_dir / "records", f"{stem}.json")
    audio_dir = inside(out_dir / "audio", stem)
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record_path.write_text(record.model_dump_json(indent=1))
    for name, samples in tracks.items():
        audio_dir.mkdir(parents=True, exist_ok=True)
        # Encoded in memory, written by Python: a full disk is then an OSError naming ENOSPC (the run's failure
        # reason), where libsndfile writing the file itself only says "System error".
        wav = io.BytesIO()
        sf.write(wav, samples, ARTIFACT_SAMPLE_RATE, subtype="PCM_16", format="WAV")
        inside(audio_dir, f"{name}.wav").write_bytes(wav.getvalue())
    return stem


def per_conversation_table(records: list[ConversationRecord]) -> dict[str, list[Any]]:
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


def write_cell_files(
    out_dir: Path, cell_seed: int, records: list[ConversationRecord], aggregates: dict[str, float]
) -> None:
    """``seeds.json`` and ``aggregates.json`` beside the records: the cell folder alone reproduces and summarises it."""
    seeds = {f"{r.conversation.scenario_id}/t{r.conversation.trial}": r.conversation.seed for r in records}
    (out_dir / "seeds.json").write_text(json.dumps({"cell_seed": cell_seed, "conversations": seeds}, indent=1))
    (out_dir / "aggregates.json").write_text(json.dumps(aggregates, indent=1))


def log_scored_cell(run: Any, records: list[ConversationRecord], aggregates: dict[str, float], out_dir: Path) -> None:
    """Aggregates, the per-conversation table and the cell folder into an open ``CellRun`` (cell and re-score):
    the table is written into the folder, which goes up in one upload; the aggregates go with the run's last
    write."""
    run.log_dir(out_dir, tables=write_tables(out_dir, records))
    run.log_at_close(aggregates)


def write_tables(out_dir: Path, records: list[ConversationRecord]) -> tuple[str, ...]:
    """The per-conversation table into the cell folder (goes up with it); the MLflow tables the folder holds."""
    if not records:
        return ()
    write_table(per_conversation_table(records), out_dir / TABLE_FILE)
    return (TABLE_FILE,)


def _turn_span(turn: Turn, base_ms: float, previous: Turn | None, secrets: list[str]) -> SpanSpec:
    """A turn as a span: user turns say what the caller meant and what the agent heard (with the effects the channel
    applied); agent turns what the agent heard, what it said, its latencies and its tool calls as TOOL spans."""
    attributes: dict[str, object] = {"turn": turn.index, "role": turn.role, "start_ms": turn.start_ms,
                                     "end_ms": turn.end_ms, "compute_ms": turn.compute_ms}  # fmt: skip
    if turn.audio:
        attributes["audio"] = dict(turn.audio)
    if turn.role == "user":
        attributes["effects"] = [e.model_dump() for e in turn.effects]
        if turn.variation:
            attributes["variation"] = dict(turn.variation)
        inputs: dict[str, object] = {"intended_text": turn.intended_text}
        outputs: dict[str, object] = {"heard_text": turn.heard_text}
        span_type = "CHAIN"
    else:
        heard_before = previous.heard_text if previous is not None and previous.role == "user" else None
        latency = {"response_latency_ms": turn.start_ms - previous.end_ms} if previous is not None else {}
        stages = {"stt_ms": turn.stt_ms, "llm_ms": turn.llm_ms, "tts_ms": turn.tts_ms}
        attributes |= latency | {k: v for k, v in stages.items() if v is not None}
        attributes["http_retries"] = turn.http_retries
        inputs = {"heard_user_text": heard_before}
        outputs = {"intended_text": turn.intended_text, "heard_text": turn.heard_text}
        span_type = "AGENT"
    tools = [
        SpanSpec(
            name=call.name,
            span_type="TOOL",
            start_ms=base_ms + call.t_ms,
            end_ms=base_ms + call.t_ms,
            inputs=redact(call.arguments, secrets),
            outputs=redact(call.result, secrets),
            attributes={"writes": call.writes, "irreversible": call.irreversible},
            ok=call.ok,
        )
        for call in turn.tool_calls
    ]
    return SpanSpec(
        name=f"turn {turn.index} {turn.role}",
        span_type=span_type,
        start_ms=base_ms + turn.start_ms,
        end_ms=base_ms + turn.end_ms,
        inputs=redact(inputs, secrets),
        outputs=redact(outputs, secrets),
        attributes=redact(attributes, secrets),
        children=tools,
    )


# MLflow's span attributes and trace metadata for token usage and cost (mlflow.tracing.constant): named here as
# strings, since only evalkit.tracking imports mlflow; MLflow's trace list and usage panels read them.
SPAN_TOKEN_USAGE, SPAN_COST = "mlflow.chat.tokenUsage", "mlflow.llm.cost"
SPAN_MODEL, SPAN_PROVIDER = "mlflow.llm.model", "mlflow.llm.provider"
TRACE_TOKEN_USAGE, TRACE_COST = "mlflow.trace.tokenUsage", "mlflow.trace.cost"


def usage_spans(record: ConversationRecord, start_ms: float, end_ms: float) -> list[SpanSpec]:
    """One LLM span per (component, base URL, model) the conversation used, over the whole call, carrying MLflow's
    token-usage and cost attributes (cost only where priced: an unpriced model has none, never 0)."""
    spans = []
    for row in record.usage.providers if record.usage else []:
        tokens = {"input_tokens": int(row["tokens_in"]), "output_tokens": int(row["tokens_out"])}
        attributes: dict[str, Any] = {
            SPAN_TOKEN_USAGE: tokens | {"total_tokens": tokens["input_tokens"] + tokens["output_tokens"]},
            SPAN_MODEL: row["model"],
            SPAN_PROVIDER: row["base_url"],
            "evalkit.usage": {k: v for k, v in row.items() if k not in ("component", "base_url", "model")},
        }
        if row.get("cost_usd") is not None:
            attributes[SPAN_COST] = {
                "input_cost": row["input_usd"],
                "output_cost": row["output_usd"],
                "total_cost": row["cost_usd"],
            }
        name = f"usage {row['component']} {row['model']}"
        spans.append(SpanSpec(name=name, span_type="LLM", start_ms=start_ms, end_ms=end_ms, attributes=attributes))
    return spans


def usage_metadata(record: ConversationRecord) -> dict[str, str]:
    """The trace's token usage (and cost, when the whole conversation is priced) as MLflow trace metadata."""
    if record.usage is None or not record.usage.providers:
        return {}
    rows = record.usage.providers
    tokens_in, tokens_out = sum(int(r["tokens_in"]) for r in rows), sum(int(r["tokens_out"]) for r in rows)
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out}
    out = {TRACE_TOKEN_USAGE: json.dumps(usage)}
    if record.usage.cost_usd is not None:
        input_cost = sum(r.get("input_usd", 0.0) for r in rows)
        output_cost = sum(r.get("output_usd", 0.0) for r in rows)
        cost = {"input_cost": input_cost, "output_cost": output_cost, "total_cost": record.usage.cost_usd}
        out[TRACE_COST] = json.dumps(cost)
    return out


def conversation_traces(
    records: list[ConversationRecord], base_ms: float, session: str, tags: dict[str, str], artifact_uri: str
) -> list[TraceSpec]:
    """One trace per conversation for the MLflow trace/session views, laid end to end on the wall clock from
    ``base_ms`` (a span's length is the turn's simulated length). ``artifact_uri``: the run's artifact root, to
    which each trace links its audio folder."""
    secrets = list(secret_env_values())
    specs: list[TraceSpec] = []
    for record in records:
        conv = record.conversation
        stem = f"{conv.scenario_id}_t{conv.trial}"
        length = max((t.end_ms for t in conv.turns), default=0.0)
        usage, usage_meta = usage_spans(record, base_ms, base_ms + length), usage_metadata(record)
        turns = [_turn_span(t, base_ms, conv.turns[i - 1] if i else None, secrets) for i, t in enumerate(conv.turns)]
        scores = {name: m.score for name, m in record.metrics.items() if m.score is not None}
        root = SpanSpec(
            name=f"{conv.scenario_id} t{conv.trial}",
            span_type="CHAIN",
            start_ms=base_ms,
            end_ms=base_ms + length,
            inputs=redact(
                {
                    "scenario": conv.scenario_id,
                    "domain": conv.domain,
                    "trial": conv.trial,
                    "key_entities": conv.key_entities,
                },
                secrets,
            ),
            outputs={"end_reason": conv.end_reason, "turns": len(conv.turns)},  # scores: the trace's assessments
            attributes={
                "seed": conv.seed,
                "records": f"records/{stem}.json",
                "audio": f"{artifact_uri}/audio/{stem}",
                "error": conv.error,
            },
            ok=conv.end_reason != "error",
            children=turns + usage,
        )
        specs.append(
            TraceSpec(
                key=f"{conv.scenario_id}/t{conv.trial}",
                root=root,
                session=session,
                tags=tags | {"scenario": conv.scenario_id, "trial": str(conv.trial)},
                metadata={"evalkit.audio": f"{artifact_uri}/audio/{stem}"} | usage_meta,
                scores=scores,
            )
        )
        base_ms += length + 1000.0  # a second between calls, so the trace list keeps plan order
    return specs
