"""Stage 5 of a cell — log: each conversation's record and audio into the cell's output folder as it finishes, then
the cell's params, aggregates, per-conversation table and folder into its MLflow run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import soundfile as sf

from evalkit.records import ConversationRecord

ARTIFACT_SAMPLE_RATE = 16_000  # audio artifacts: 16 kHz 16-bit WAV, playable in the MLflow UI


def write_conversation(out_dir: Path, record: ConversationRecord, tracks: dict[str, Any]) -> str:
    conv = record.conversation
    stem = f"{conv.scenario_id}_t{conv.trial}"
    (out_dir / "records").mkdir(parents=True, exist_ok=True)
    (out_dir / "records" / f"{stem}.json").write_text(record.model_dump_json(indent=1))
    audio_dir = out_dir / "audio" / stem
    for name, samples in tracks.items():
        audio_dir.mkdir(parents=True, exist_ok=True)
        # Encoded in memory, written by Python: a full disk is then an OSError naming ENOSPC (the run's failure
        # reason), where libsndfile writing the file itself only says "System error".
        wav = io.BytesIO()
        sf.write(wav, samples, ARTIFACT_SAMPLE_RATE, subtype="PCM_16", format="WAV")
        (audio_dir / f"{name}.wav").write_bytes(wav.getvalue())
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
    """Aggregates, the per-conversation table and the cell folder into an open ``CellRun`` (cell and re-score)."""
    run.log_metrics(aggregates)
    if records:
        run.log_table(per_conversation_table(records), "conversations_table.json")
    run.log_dir(out_dir)
