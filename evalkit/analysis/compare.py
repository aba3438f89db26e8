"""Pair every perturbed cell with its clean twin and compute the robustness deltas (pure: no I/O).

Holm–Bonferroni runs within a family, chosen by ``Settings.holm_family``:

- ``model_metric_domain`` (evalkit's default): one clean baseline × one metric — every perturbation condition
  compared against the same clean cell (model × metric × domain).
- ``model_metric``: every condition × domain of one model and metric in one family, the family EVA-Bench's
  statistics script uses for its per-domain output (3 conditions × 3 domains = 9 tests).

Besides the per-domain rows, ``Settings.pooled`` adds one row per model × condition × metric over the scenarios of
every domain (domain ``pooled``; scenarios keep their domain, so equal ids in two domains stay two scenarios), Holm
across the conditions of each model × metric, as EVA-Bench's pooled analysis does. Anything that cannot be
compared — no twin, a metric missing on one side, scenarios present on one side only — is named in ``gaps``; what
can be compared is still reported.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from evalkit.analysis import stats
from evalkit.analysis.cells import CellData
from evalkit.config import axes

PASS_SUFFIXES = {"pass_at_1": "pass@1", "pass_at_k": "pass@k", "pass_hat_k": "pass^k"}
HOLM_FAMILIES = ("model_metric_domain", "model_metric")
POOLED = "pooled"


@dataclass(frozen=True)
class Settings:
    metrics: Sequence[str] | None = None  # None: every metric found
    # The params of the perturbation axes (evalkit.config.axes), read when Settings is made: a registered axis counts.
    condition_axes: Sequence[str] = field(default_factory=axes.condition_axes)
    alpha: float = stats.ALPHA
    n_permutations: int = stats.N_PERMUTATIONS
    n_bootstrap: int = stats.N_BOOTSTRAP
    holm_family: str = "model_metric_domain"  # one of HOLM_FAMILIES
    pooled: bool = True  # add the pooled-across-domains rows (when a model × condition × metric spans ≥ 2 domains)

    def __post_init__(self) -> None:
        if self.holm_family not in HOLM_FAMILIES:
            raise ValueError(f"holm_family must be one of {', '.join(HOLM_FAMILIES)}, got {self.holm_family!r}")
        # alpha = 2 once made every comparison "significant" at p = 1.0 (issue 27 item 9): a level is a probability
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be strictly between 0 and 1, got {self.alpha}")
        for name, count in (("permutations", self.n_permutations), ("bootstrap", self.n_bootstrap)):
            if count < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {count}")


@dataclass
class DeltaRow:
    """One line of the tidy CSV: one model × condition × domain × metric."""

    model: str
    condition: str
    domain: str
    metric: str
    family: str
    n_scenarios: int
    delta: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float = float("nan")
    significant: bool = False
    stars: str = ""
    exact: bool = True
    n_perturbed_trials: int = 0
    n_clean_trials: int = 0
    missing_scenarios: str = ""
    perturbed_mean: float = float("nan")  # mean over the compared scenarios of the per-scenario means
    clean_mean: float = float("nan")
    perturbed_run_id: str = ""
    clean_run_id: str = ""
    perturbed_cell_key: str = ""
    clean_cell_key: str = ""
    seed: int = 0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class PassRow:
    model: str
    domain: str
    condition: str
    metric: str
    pass_at_1: float
    pass_at_k: float
    pass_hat_k: float
    run_id: str


@dataclass
class Analysis:
    rows: list[DeltaRow] = field(default_factory=list)
    pass_rows: list[PassRow] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    # Per compared pair: (model, domain, condition, perturbed cell's aggregates, clean twin's) — the cell-level
    # numbers with no per-scenario pairing (latency percentiles) that the report's headline shows beside the δ rows.
    pair_aggregates: list[tuple[str, str, str, dict[str, float], dict[str, float]]] = field(default_factory=list)
    # Per per-domain δ row (keyed by id(row)): its per-scenario δ and trial noise, what the power planner reads.
    samples: dict[int, stats.PairedSample] = field(default_factory=dict)


def condition_label(cell: CellData, twin: CellData, axes: Sequence[str]) -> str:
    """The axes on which a cell differs from its twin, e.g. ``accent_french+noise_cafe@15.0dB``."""
    parts: list[str] = []
    for axis in axes:
        value, clean = cell.params.get(axis, ""), twin.params.get(axis, "")
        if value == clean:
            continue
        if axis == "snr_db" and parts:
            parts[-1] += f"@{value}dB"
        elif axis == "snr_db":
            parts.append(f"snr={value}dB")
        else:
            parts.append(value)
    return "+".join(parts) or cell.params.get("perturb") or cell.cell_key


def _metric_names(cells: Sequence[CellData], wanted: Sequence[str] | None, gaps: list[str]) -> list[str]:
    found = sorted({m for c in cells for m in c.scores})
    if wanted is None:
        return found
    for name in wanted:
        if name not in found:
            gaps.append(f"metric {name!r} is not in any run's conversations table (found: {', '.join(found)})")
    return [m for m in wanted if m in found]


def twin_pairs(cells: Sequence[CellData], gaps: list[str]) -> list[tuple[CellData, CellData]]:
    """(perturbed cell, its clean twin) for every perturbed cell whose twin is among ``cells``; the rest in gaps."""
    by_key = {c.cell_key: c for c in cells}
    pairs = []
    for cell in cells:
        if cell.is_clean:
            continue
        twin = by_key.get(cell.twin_key or "")
        if twin is None:
            gaps.append(
                f"{cell.describe()}: no finished clean twin (twin_key {cell.twin_key}) in the selection or the "
                "experiment: not compared. Run the sweep with twins=true (default) to schedule it."
            )
            continue
        pairs.append((cell, twin))
    return pairs


def _missing_text(deltas: stats.Deltas) -> str:
    parts = []
    if deltas.only_perturbed:
        parts.append("no clean score: " + ",".join(deltas.only_perturbed))
    if deltas.only_clean:
        parts.append("no perturbed score: " + ",".join(deltas.only_clean))
    return "; ".join(parts)


def compare(cells: Sequence[CellData], settings: Settings | None = None) -> Analysis:
    """Every perturbed-vs-twin delta with p, CI, Holm within each family; gaps and warnings named."""
    settings = settings or Settings()
    out = Analysis()
    out.metrics = _metric_names(cells, settings.metrics, out.gaps)
    pairs = twin_pairs(cells, out.gaps)
    rows: list[DeltaRow] = []
    row_deltas: list[tuple[list[str], np.ndarray]] = []  # per row: its scenarios and δ values (for pooling)
    labels_seen: dict[tuple[str, str], int] = defaultdict(int)
    for cell, twin in pairs:
        condition = condition_label(cell, twin, settings.condition_axes)
        labels_seen[(twin.cell_key, condition)] += 1
        if labels_seen[(twin.cell_key, condition)] > 1:
            condition = f"{condition}[{cell.cell_key[:6]}]"
        model, domain = cell.params.get("agent", "?"), cell.params.get("domain", "?")
        out.pair_aggregates.append((model, domain, condition, dict(cell.aggregates), dict(twin.aggregates)))
        for metric in out.metrics:
            absent = [c.describe() for c in (cell, twin) if metric not in c.scores]
            if absent:
                out.gaps.append(f"metric {metric!r} missing in {' and '.join(absent)}: {model}|{domain}|{condition}")
                continue
            pert_means = stats.scenario_means(cell.scenarios, cell.scores[metric])
            clean_means = stats.scenario_means(twin.scenarios, twin.scores[metric])
            deltas = stats.scenario_deltas(pert_means, clean_means)
            missing = _missing_text(deltas)
            if missing:
                out.gaps.append(
                    f"{metric} {model}|{domain}|{condition}: scenario sets differ between perturbed run "
                    f"{cell.run_id} and clean run {twin.run_id} ({missing}); analysed the "
                    f"{len(deltas.scenarios)} in both"
                )
            if not deltas.scenarios:
                continue
            family = _family(settings.holm_family, model, domain, metric, twin.cell_key)
            result = stats.delta_stats(
                deltas.values, f"{family}|{condition}", settings.n_permutations, settings.n_bootstrap
            )
            row = DeltaRow(
                model=model,
                condition=condition,
                domain=domain,
                metric=metric,
                family=family,
                n_scenarios=result.n,
                delta=result.delta,
                ci_low=result.ci_low,
                ci_high=result.ci_high,
                p=result.p,
                exact=result.exact,
                n_perturbed_trials=_count(cell, metric, deltas.scenarios),
                n_clean_trials=_count(twin, metric, deltas.scenarios),
                missing_scenarios=missing,
                perturbed_mean=float(np.mean([pert_means[s] for s in deltas.scenarios])),
                clean_mean=float(np.mean([clean_means[s] for s in deltas.scenarios])),
                perturbed_run_id=cell.run_id,
                clean_run_id=twin.run_id,
                perturbed_cell_key=cell.cell_key,
                clean_cell_key=twin.cell_key,
                seed=result.seed,
            )
            rows.append(row)
            row_deltas.append(([f"{domain}/{s}" for s in deltas.scenarios], deltas.values))
            out.samples[id(row)] = stats.paired_sample(
                deltas.values,
                stats.within_variance(cell.scenarios, cell.scores[metric], deltas.scenarios),
                stats.within_variance(twin.scenarios, twin.scores[metric], deltas.scenarios),
            )
    if settings.pooled:
        rows += _pooled_rows(rows, row_deltas, settings)
    families: dict[str, list[DeltaRow]] = defaultdict(list)
    for row in rows:
        families[row.family].append(row)
    for family, members in families.items():
        adjusted, reject = stats.holm([r.p for r in members], settings.alpha)
        for row, p_adj, rej in zip(members, adjusted, reject, strict=True):
            row.p_holm, row.significant, row.stars = p_adj, rej and p_adj < settings.alpha, stats.stars(p_adj)
        if not stats.family_can_reach_alpha([r.n_scenarios for r in members], settings.n_permutations, settings.alpha):
            best = min(stats.min_attainable_p(r.n_scenarios, settings.n_permutations) for r in members)
            out.warnings.append(
                f"family {family}: {len(members)} test(s) with n = {sorted({r.n_scenarios for r in members})} "
                f"scenarios cannot reach α = {settings.alpha} (smallest attainable p {best:.4g}, × {len(members)} "
                "by Holm): add scenarios"
            )
        out.rows.extend(members)
    out.rows.sort(key=lambda r: (r.metric, r.model, r.domain == POOLED, r.domain, r.condition))
    out.pass_rows = pass_table(cells, pairs, settings.condition_axes)
    return out


def _family(rule: str, model: str, domain: str, metric: str, baseline: str) -> str:
    if domain == POOLED:  # the pooled rows of one model × metric, whatever the rule (EVA-Bench's pooled family)
        return f"{model}|{POOLED}|{metric}"
    if rule == "model_metric":
        return f"{model}|{metric}"
    return f"{model}|{domain}|{metric}|baseline={baseline}"


def _pooled_rows(
    rows: Sequence[DeltaRow], row_deltas: Sequence[tuple[list[str], np.ndarray]], settings: Settings
) -> list[DeltaRow]:
    """One row per model × condition × metric whose per-domain rows span at least two domains: the δ of every
    scenario of those rows, tested together (a single domain's pooled row would repeat that domain's row)."""
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[(row.model, row.condition, row.metric)].append(i)
    pooled = []
    for (model, condition, metric), members in groups.items():
        domains = sorted({rows[i].domain for i in members})
        if len(domains) < 2:
            continue
        scenarios = [s for i in members for s in row_deltas[i][0]]
        values = np.concatenate([row_deltas[i][1] for i in members])
        family = _family(settings.holm_family, model, POOLED, metric, "")
        result = stats.delta_stats(values, f"{family}|{condition}", settings.n_permutations, settings.n_bootstrap)
        parts = [rows[i] for i in members]
        pooled.append(
            DeltaRow(
                model=model,
                condition=condition,
                domain=POOLED,
                metric=metric,
                family=family,
                n_scenarios=len(scenarios),
                delta=result.delta,
                ci_low=result.ci_low,
                ci_high=result.ci_high,
                p=result.p,
                exact=result.exact,
                n_perturbed_trials=sum(r.n_perturbed_trials for r in parts),
                n_clean_trials=sum(r.n_clean_trials for r in parts),
                missing_scenarios="; ".join(f"{r.domain}: {r.missing_scenarios}" for r in parts if r.missing_scenarios),
                perturbed_mean=sum(r.perturbed_mean * r.n_scenarios for r in parts) / len(scenarios),
                clean_mean=sum(r.clean_mean * r.n_scenarios for r in parts) / len(scenarios),
                perturbed_run_id=",".join(r.perturbed_run_id for r in parts),
                clean_run_id=",".join(r.clean_run_id for r in parts),
                perturbed_cell_key=",".join(r.perturbed_cell_key for r in parts),
                clean_cell_key=",".join(r.clean_cell_key for r in parts),
                seed=result.seed,
            )
        )
    return pooled


def _count(cell: CellData, metric: str, scenarios: Sequence[str]) -> int:
    keep = set(scenarios)
    return sum(1 for s, v in zip(cell.scenarios, cell.scores[metric], strict=True) if s in keep and not math.isnan(v))


def pass_table(
    cells: Sequence[CellData], pairs: Sequence[tuple[CellData, CellData]], axes: Sequence[str]
) -> list[PassRow]:
    """pass@1 / pass@k / pass^k per cell and metric, from the aggregates each cell run logged."""
    conditions = {cell.cell_key: condition_label(cell, twin, axes) for cell, twin in pairs}
    rows = []
    for cell in cells:
        condition = "clean" if cell.is_clean else conditions.get(cell.cell_key, cell.params.get("perturb", "?"))
        bases = sorted({k.removesuffix("_pass_at_1") for k in cell.aggregates if k.endswith("_pass_at_1")})
        for base in bases:
            values = [cell.aggregates.get(f"{base}_{suffix}", float("nan")) for suffix in PASS_SUFFIXES]
            rows.append(
                PassRow(
                    cell.params.get("agent", "?"),
                    cell.params.get("domain", "?"),
                    condition,
                    base,
                    *values,
                    run_id=cell.run_id,
                )
            )
    rows.sort(key=lambda r: (r.metric, r.model, r.domain, r.condition != "clean", r.condition))
    return rows
