"""Synthetic experiments with known effects, logged exactly as the runner logs cells (no speech).

For tests and ``scripts/bench_analysis.py``: same params (``axis_params`` names), tags (cell_key, twin_key,
condition, evalkit.kind/version/complete), parent sweep run, aggregates (evalkit.metrics.aggregate) and
``conversations_table.json`` layout, written through the same ``evalkit.tracking`` functions as
``evalkit.cell.run_cell``. Scores are drawn from a seeded generator with a planted shift per condition.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evalkit.analysis.cells import CellData
from evalkit.metrics.aggregate import pass_at_1, pass_at_k, pass_hat_k
from evalkit.tracking import CellRun, TrackingTarget, end_sweep, start_sweep

BINARY_METRICS = ("task_completion",)


@dataclass(frozen=True)
class Condition:
    name: str
    voice: str = "neutral"
    persona: str = "default"
    perturb: str = "clean"
    snr_db: str = "none"

    @property
    def is_clean(self) -> bool:
        return (self.voice, self.persona, self.perturb) == ("neutral", "default", "clean")


CLEAN = Condition("clean")


@dataclass
class SyntheticCell:
    agent: str
    domain: str
    condition: Condition
    trials: int
    seed: int = 0
    scenarios: list[str] = field(default_factory=list)  # one per conversation
    trial_index: list[int] = field(default_factory=list)
    scores: dict[str, list[float | None]] = field(default_factory=dict)

    def params(self) -> dict[str, str]:
        c = self.condition
        scenario_ids = sorted(set(self.scenarios))
        return {
            "domain": self.domain,
            "agent": self.agent,
            "simulator": "scripted",
            "persona": c.persona,
            "voice": c.voice,
            "perturb": c.perturb,
            "snr_db": c.snr_db,
            "trials": str(self.trials),
            "seed": str(self.seed),
            "scenarios": ",".join(scenario_ids)[:500],
        }

    def identity(self, condition: Condition) -> str:
        payload = {"agent": self.agent, "domain": self.domain, "seed": self.seed, "condition": condition.__dict__}
        payload["condition"] = {k: v for k, v in payload["condition"].items() if k != "name"}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def cell_key(self) -> str:
        return self.identity(self.condition)

    @property
    def twin_key(self) -> str:
        return self.identity(CLEAN)

    def table(self) -> dict[str, list]:
        n = len(self.scenarios)
        columns: dict[str, list] = {
            "scenario": list(self.scenarios),
            "trial": list(self.trial_index),
            "seed": [self.seed * 1_000_003 + i for i in range(n)],
            "end_reason": ["goal_reached"] * n,
            "turns": [8] * n,
        }
        columns.update({m: list(v) for m, v in self.scores.items()})
        return columns

    def aggregates(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for metric, values in self.scores.items():
            scored = [v for v in values if v is not None]
            out[f"{metric}_mean"] = float(np.mean(scored)) if scored else float("nan")
            if metric in BINARY_METRICS:
                table: dict[str, list[bool]] = {}
                for s, v in zip(self.scenarios, values, strict=True):
                    if v is not None:
                        table.setdefault(s, []).append(v >= 1.0)
                out[f"{metric}_pass_at_1"] = pass_at_1(table)
                out[f"{metric}_pass_at_k"] = pass_at_k(table)
                out[f"{metric}_pass_hat_k"] = pass_hat_k(table)
        out["conversations"] = float(len(self.scenarios))
        return out


def make_experiment(
    agents: Sequence[str],
    domains: Sequence[str],
    conditions: Sequence[Condition],
    n_scenarios: int,
    trials_clean: int,
    trials_perturbed: int,
    effects: Mapping[tuple[str, str, str], float],
    seed: int = 0,
) -> list[SyntheticCell]:
    """Clean + perturbed cells. ``effects[(agent, condition, metric)]`` shifts that cell's expected score.

    Scenario difficulty is shared between a cell and its twin (that is what pairing removes); trial noise is not.
    ``task_completion`` is 0/1 (Bernoulli), ``key_entity_accuracy`` continuous in [0, 1], ``user_wer`` ≥ 0.
    """
    rng = np.random.default_rng(seed)
    cells: list[SyntheticCell] = []
    for agent in agents:
        for domain in domains:
            ids = [f"{domain[:2].upper()}-{i:03d}" for i in range(1, n_scenarios + 1)]
            base_tc = rng.uniform(0.2, 0.8, n_scenarios)
            base_ke = rng.uniform(0.5, 0.9, n_scenarios)
            base_wer = rng.uniform(0.05, 0.3, n_scenarios)
            for condition in (CLEAN, *conditions):
                k = trials_clean if condition.is_clean else trials_perturbed
                cell = SyntheticCell(agent, domain, condition, k)
                shift_tc = effects.get((agent, condition.name, "task_completion"), 0.0)
                shift_ke = effects.get((agent, condition.name, "key_entity_accuracy"), 0.0)
                shift_wer = effects.get((agent, condition.name, "user_wer"), 0.0)
                tc, ke, wer = [], [], []
                for i, sid in enumerate(ids):
                    for t in range(k):
                        cell.scenarios.append(sid)
                        cell.trial_index.append(t)
                        tc.append(float(rng.random() < np.clip(base_tc[i] + shift_tc, 0, 1)))
                        ke.append(float(np.clip(base_ke[i] + shift_ke + rng.normal(0, 0.05), 0, 1)))
                        wer.append(float(max(0.0, base_wer[i] + shift_wer + rng.normal(0, 0.03))))
                cell.scores = {"task_completion": tc, "key_entity_accuracy": ke, "user_wer": wer}
                cells.append(cell)
    return cells


def log_experiment(
    target: TrackingTarget, cells: Sequence[SyntheticCell], with_records: bool = False
) -> tuple[str, dict[str, str]]:
    """Log cells as children of one sweep parent run. Returns (parent run id, cell_key -> run id)."""
    with tempfile.TemporaryDirectory(prefix="evalkit-synth-") as tmp:
        sweep_dir = Path(tmp) / "multirun"
        parent = start_sweep(target, sweep_dir, {"agent": ",".join(sorted({c.agent for c in cells}))}, [])
        run_ids = {key: run_id for key, run_id in (log_cell(target, c, parent, with_records) for c in cells)}
        end_sweep(target, parent)
    return parent, run_ids


def log_cell(
    target: TrackingTarget, cell: SyntheticCell, parent: str | None, with_records: bool = False
) -> tuple[str, str]:
    """One cell run with the runner's layout. Returns (cell_key, run id)."""
    tags = {
        "cell_key": cell.cell_key,
        "twin_key": cell.twin_key,
        "condition": cell.condition.perturb,
        "evalkit.kind": "cell",
        "evalkit.version": "synthetic",
    }
    name = f"{cell.domain}|{cell.agent}|{cell.condition.persona}|{cell.condition.voice}|{cell.condition.perturb}"
    with CellRun.open(target, name, tags, parent) as run:
        run.log_params(cell.params())
        run.log_metrics(cell.aggregates())
        run.log_table(cell.table(), "conversations_table.json")
        if with_records:
            with tempfile.TemporaryDirectory(prefix="evalkit-rec-") as tmp:
                out = Path(tmp)
                (out / "records").mkdir()
                for i, (sid, t) in enumerate(zip(cell.scenarios, cell.trial_index, strict=True)):
                    record = {
                        "conversation": {"scenario_id": sid, "trial": t, "seed": i},
                        "metrics": {m: {"score": v[i], "passed": None, "details": {}} for m, v in cell.scores.items()},
                    }
                    (out / "records" / f"{sid}_t{t}.json").write_text(json.dumps(record))
                run.log_dir(out)
        return cell.cell_key, run.run_id


def to_cell_data(cell: SyntheticCell, run_id: str | None = None) -> CellData:
    """The cell as the analysis would read it back, without a tracking store (for pure tests)."""
    return CellData(
        run_id=run_id or f"run-{cell.cell_key}",
        listed_as=run_id or f"run-{cell.cell_key}",
        name=f"{cell.agent}|{cell.domain}|{cell.condition.name}",
        cell_key=cell.cell_key,
        twin_key=cell.twin_key,
        params=cell.params(),
        aggregates=cell.aggregates(),
        scenarios=list(cell.scenarios),
        trials=list(cell.trial_index),
        scores={m: [float("nan") if v is None else float(v) for v in vals] for m, vals in cell.scores.items()},
    )
