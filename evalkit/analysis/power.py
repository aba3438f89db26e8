"""Power planner (issue 31 point 5): scenarios × trials needed to detect a δ with power 0.8 after Holm.

From a pilot sweep's comparisons (per-scenario δ and the trial noise of both cells), per metric:

- σ_w²: within-scenario variance of one trial (pooled over scenarios, perturbed and clean cells averaged);
- σ_b²: between-scenario variance of the true δ, Var(δ_s) − σ_w² (1/k_p + 1/k_c), floored at 0 (k_p, k_c: the
  pilot's trials per scenario);
- a new sweep of n scenarios × k trials (both cells) has SE(mean δ) = √((σ_b² + 2σ_w²/k) / n).

Holm over m comparisons tests its smallest p at α/m, so a lone true effect needs p < α/m (planning for that is
conservative when several effects are real). The two-sided test then has power ≈ Φ(|Δ|/SE − z_{1−α/(2m)}), and n is
the smallest number of scenarios with that ≥ the target power, with the t quantile (n − 1 degrees of freedom) in
place of z, and n large enough that the sign-flip test can reach α/m at all (2/2ⁿ < α/m). m is the largest Holm
family of the pilot (the comparisons sharing a clean baseline), or ``power.comparisons``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from evalkit.analysis.compare import Analysis, DeltaRow
from evalkit.analysis.stats import PairedSample

MAX_SCENARIOS = 100_000


@dataclass(frozen=True)
class Noise:
    metric: str
    between: float  # σ_b²
    within: float  # σ_w² (0 when the pilot ran one trial per scenario: unknown, trials then do not help)
    comparisons: int  # m of the Holm family
    pilot_scenarios: int


def estimate_noise(samples: Sequence[PairedSample]) -> tuple[float, float, int]:
    """(σ_b², σ_w², scenarios) pooled over a metric's pilot comparisons (their δ variances averaged)."""
    between, within, n = [], [], 0
    for sample in samples:
        if sample.deltas.size < 2:
            continue
        wp, kp = sample.within_perturbed
        wc, kc = sample.within_clean
        w = float(np.nanmean([wp, wc])) if not (math.isnan(wp) and math.isnan(wc)) else 0.0
        total = float(np.var(sample.deltas, ddof=1))
        between.append(max(0.0, total - w * (1 / max(kp, 1) + 1 / max(kc, 1))))
        within.append(w)
        n += sample.deltas.size
    if not between:
        return float("nan"), float("nan"), 0
    return float(np.mean(between)), float(np.mean(within)), n


def power(delta: float, n: int, trials: int, between: float, within: float, alpha: float, m: int) -> float:
    """Approximate power of the paired test at α/m (two-sided) with n scenarios × ``trials`` trials per cell."""
    if n < 2 or 2.0 / 2**n >= alpha / m:
        return 0.0
    se = math.sqrt((between + 2 * within / trials) / n)
    if se == 0:
        return 1.0
    t = sps.t.ppf(1 - alpha / (2 * m), n - 1)
    return float(sps.norm.cdf(abs(delta) / se - t))


def scenarios_needed(
    delta: float, trials: int, between: float, within: float, alpha: float, m: int, target: float = 0.8
) -> int | None:
    """Smallest n with power ≥ target (None: more than MAX_SCENARIOS)."""
    n = 2
    while n <= MAX_SCENARIOS:
        if power(delta, n, trials, between, within, alpha, m) >= target:
            return n
        n = n + 1 if n < 200 else int(n * 1.05)
    return None


def family_sizes(rows: Sequence[DeltaRow]) -> int:
    sizes: dict[str, int] = {}
    for r in rows:
        sizes[r.family] = sizes.get(r.family, 0) + 1
    return max(sizes.values(), default=1)


def plan(
    analysis: Analysis,
    delta: float,
    alpha: float,
    trials: Sequence[int] = (1, 2, 3, 5),
    target: float = 0.8,
    comparisons: int | None = None,
) -> tuple[list[Noise], list[tuple[str, int, int | None]]]:
    """Per metric of the pilot: its noise, and (metric, trials, scenarios needed) for each trials count."""
    if not (isinstance(delta, int | float) and math.isfinite(delta) and delta > 0):
        raise ValueError(f"power.delta must be a positive number (the δ to detect), got {delta!r}")
    noises, table = [], []
    for metric in sorted({r.metric for r in analysis.rows}):
        rows = [r for r in analysis.rows if r.metric == metric and id(r) in analysis.samples]
        between, within, n = estimate_noise([analysis.samples[id(r)] for r in rows])
        if n == 0:
            continue
        m = comparisons or family_sizes([r for r in analysis.rows if r.metric == metric])
        noises.append(Noise(metric, between, within, m, n))
        for k in trials:
            table.append((metric, k, scenarios_needed(delta, k, between, within, alpha, m, target)))
    return noises, table


def plan_lines(noises: Sequence[Noise], table: Sequence[tuple[str, int, int | None]], delta: float) -> list[str]:
    lines = [
        "## Power plan",
        "",
        f"Scenarios needed per trials count to detect |δ| = {delta:g} with power 0.8 after Holm over m comparisons "
        "(docs/analysis.md, power planner), from this sweep as the pilot.",
        "",
        "| Metric | σ_b² | σ_w² | m | " + " | ".join(f"k={k}" for k in sorted({k for _, k, _ in table})) + " |",
        "|---|---:|---:|---:|" + "---:|" * len({k for _, k, _ in table}),
    ]
    for noise in noises:
        cells = [f"{n}" if n is not None else f">{MAX_SCENARIOS}" for metric, _, n in table if metric == noise.metric]
        lines.append(
            f"| {noise.metric} | {noise.between:.4g} | {noise.within:.4g} | {noise.comparisons} | "
            + " | ".join(cells)
            + " |"
        )
    return [*lines, ""]
