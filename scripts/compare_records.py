"""Diff the per-conversation records of two MLflow stores: the behaviour-preservation check of a refactoring.

    python scripts/compare_records.py BEFORE_TRACKING_URI AFTER_TRACKING_URI [--experiment evalkit]

Cells are matched by run name (condition|domain|agent|persona|voice|seed), not by cell key: a refactoring may
change what enters the config hash (e.g. a new ``kind`` field) without changing a single conversation. For every
matched cell the records (``records/*.json``: turns, heard text, tool calls, effects, end DB, scores and each
turn's audio SHA-256, so the audio itself is compared) are compared field by field after dropping what measures
wall time:
turn start/end/compute times, tool-call times, effect positions on the call timeline (they move with the measured
compute time) and the metrics computed from them (latency, turn-taking timing), and the record's ``usage``
(requests a cache answered are not sent again). Fields that exist only on one side
(a new record field) are listed, not counted as differences. Exit status 1 when anything else differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mlflow.tracking import MlflowClient

TIMING_KEYS = frozenset(
    {"start_ms", "end_ms", "compute_ms", "t_ms", "wall_s", "asr_ms", "stt_ms", "llm_ms", "tts_ms", "line_align_ms"}
    # the interaction metrics' per-event latencies in their details (evalkit.metrics.interaction): the response_rate
    # a call scores is compared, the agent's measured latency behind each event is not
    | {"latency_ms", "latencies_ms", "yield_ms"}
)  # line_align_ms: a real-time turn moved onto the line's frame grid (evalkit.call.line)
# computed from the measured compute time (so from the machine's load), and EVA-X, whose pass needs turn_taking's;
# response_latency_p50 and yield_latency are the interaction metrics' medians and means of measured latencies
TIMING_METRICS = frozenset(
    {"response_latency", "turn_taking", "eva_x", "eva_x_proxy", "response_latency_p50", "yield_latency"}
)


# what a conversation (or a judgment) used depends on the caches, not on its behaviour: a cached answer sends no request
DROPPED_KEYS = TIMING_KEYS | {"usage"}


def _strip(node: Any, drop: frozenset[str] = DROPPED_KEYS) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v, drop) for k, v in node.items() if k not in drop}
    if isinstance(node, list):
        return [_strip(v, drop) for v in node]
    return node


def _records(client: MlflowClient, run_id: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(client.download_artifacts(run_id, "records", tmp))
        out = {}
        for path in sorted(local.glob("*.json")):
            record = json.loads(path.read_text())
            # timing metrics, also where a composite lists them among its components
            record["metrics"] = _strip(record.get("metrics", {}), TIMING_METRICS)
            out[path.name] = _strip(record)
        return out


def _cells(uri: str, experiment: str) -> dict[str, str]:
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        raise SystemExit(f"{uri}: no experiment {experiment!r}")
    runs = client.search_runs([exp.experiment_id], "tags.`evalkit.kind` = 'cell'", max_results=1000)
    return {r.info.run_name: r.info.run_id for r in runs if r.info.status == "FINISHED"}


def _diff(a: Any, b: Any, path: str, out: list[str], only_one_side: set[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            where = f"{path}.{key}"
            if key not in a or key not in b:
                only_one_side.add(f"{'after' if key not in a else 'before'} only: {_generic(where)}")
                continue
            _diff(a[key], b[key], where, out, only_one_side)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}[{i}]", out, only_one_side)
    elif a != b:
        out.append(f"{path}: {str(a)[:80]!r} != {str(b)[:80]!r}")


def _generic(path: str) -> str:
    import re

    return re.sub(r"\[\d+\]", "[]", re.sub(r"^[^.]*\.json", "", path))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--experiment", default="evalkit")
    args = parser.parse_args(argv)
    before, after = _cells(args.before, args.experiment), _cells(args.after, args.experiment)
    problems: list[str] = []
    only_one_side: set[str] = set()
    for name in sorted(set(before) | set(after)):
        if name not in before or name not in after:
            problems.append(f"cell {name}: only in {'after' if name not in before else 'before'}")
            continue
        a = _records(MlflowClient(args.before), before[name])
        b = _records(MlflowClient(args.after), after[name])
        diffs: list[str] = []
        _diff(a, b, "", diffs, only_one_side)
        turns = sum(len(r["conversation"]["turns"]) for r in a.values())
        print(f"{name}: {len(a)} records, {turns} turns, {len(diffs)} differences")
        problems += [f"  {name}{d}" for d in diffs[:20]]
    for line in sorted(only_one_side):
        print(f"  (schema) {line}")
    for line in problems:
        print(line)
    print("IDENTICAL (timing fields excepted)" if not problems else f"{len(problems)} DIFFERENCES")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
