"""Robustness-delta statistics (EVA-Bench App. G.3), as pure functions of numbers.

Per scenario, δ = mean(perturbed trials) − mean(clean trials). Over the scenarios of one (model, condition,
domain, metric):

- p: paired sign-flip permutation test, the paper's two-sided convention — the share of sign-flip permutations
  whose |mean δ| is at least the observed |mean δ|. scipy's own two-sided p is 2·min(one-sided p), a different
  number; ours equals ``scipy.stats.permutation_test`` with the statistic |mean| and ``alternative='greater'``
  (tested), computed as one matrix product for speed. All 2ⁿ sign patterns are enumerated (exact test) when
  2ⁿ ≤ the permutation budget; otherwise the budget is drawn at random and the observed pattern counts as one of
  them ((hits + 1) / (draws + 1), scipy's estimator, never 0).
- CI: 95 % percentile bootstrap of mean δ, resampling scenarios with replacement (``scipy.stats.bootstrap``).
- Holm–Bonferroni (``statsmodels``) across the perturbation conditions of one family (model × metric × domain:
  the conditions compared against the same clean baseline); significant iff the adjusted p < α.

Random draws are seeded from a SHA-256 of a label (family + condition), so a rerun reproduces every number.
"""

from __future__ import annotations

import gc
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05
N_PERMUTATIONS = 10_000
N_BOOTSTRAP = 1_000
CONFIDENCE = 0.95


def seed_for(label: str) -> int:
    """A 63-bit seed from a label: same label, same draws, whatever the order or machine."""
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big") >> 1


def scenario_means(scenarios: Sequence[str], values: Sequence[float]) -> dict[str, float]:
    """Mean over trials per scenario; NaN (unscored) trials are left out, all-NaN scenarios dropped."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for scenario, value in zip(scenarios, values, strict=True):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        sums[scenario] = sums.get(scenario, 0.0) + float(value)
        counts[scenario] = counts.get(scenario, 0) + 1
    return {s: sums[s] / counts[s] for s in sums}


@dataclass(frozen=True)
class Deltas:
    scenarios: list[str]
    values: np.ndarray  # δ per scenario, in the order of ``scenarios``
    only_perturbed: list[str]  # scenarios with a perturbed score but no clean one
    only_clean: list[str]


def scenario_deltas(perturbed: Mapping[str, float], clean: Mapping[str, float]) -> Deltas:
    """δ per scenario on the intersection of the two scenario sets; the rest is named, not dropped silently."""
    common = sorted(set(perturbed) & set(clean))
    values = np.array([perturbed[s] - clean[s] for s in common], dtype=float)
    return Deltas(common, values, sorted(set(perturbed) - set(clean)), sorted(set(clean) - set(perturbed)))


@dataclass(frozen=True)
class PairedSample:
    """What a pilot comparison says about noise: per-scenario δ, and per side the pooled within-scenario variance
    of single trials with the mean number of trials per scenario (NaN variance: one trial per scenario)."""

    deltas: np.ndarray
    within_perturbed: tuple[float, float]  # (variance of one trial around its scenario's mean, trials per scenario)
    within_clean: tuple[float, float]


def paired_sample(
    deltas: np.ndarray, within_perturbed: tuple[float, float], within_clean: tuple[float, float]
) -> PairedSample:
    return PairedSample(np.asarray(deltas, dtype=float), within_perturbed, within_clean)


def within_variance(scenarios: Sequence[str], values: Sequence[float], keep: Sequence[str]) -> tuple[float, float]:
    """(pooled within-scenario variance of one trial, mean trials per scenario) over the scenarios in ``keep``.

    Pooled: Σ_s Σ_t (x_st − x̄_s)² / Σ_s (k_s − 1), the unbiased estimate when scenarios differ in mean only."""
    groups: dict[str, list[float]] = {}
    wanted = set(keep)
    for scenario, value in zip(scenarios, values, strict=True):
        if scenario in wanted and not (isinstance(value, float) and math.isnan(value)):
            groups.setdefault(scenario, []).append(float(value))
    if not groups:
        return float("nan"), 0.0
    squares = sum(float(np.sum((np.array(v) - np.mean(v)) ** 2)) for v in groups.values())
    dof = sum(len(v) - 1 for v in groups.values())
    mean_k = float(np.mean([len(v) for v in groups.values()]))
    return (squares / dof if dof else float("nan")), mean_k


TIE_DECIMALS = 12


def _abs_mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    # Rounded so that sums of the same numbers in another order tie (scipy's tolerance is relative, and fails
    # when the observed mean is 0 up to float noise); real score differences are far above 1e-12.
    return np.round(np.abs(np.mean(x, axis=axis)), TIE_DECIMALS)


@dataclass(frozen=True)
class SignFlip:
    p: float
    exact: bool


def _sign_patterns(n: int, n_permutations: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """(0/1 flip matrix, exact): every one of the 2ⁿ patterns when they fit the budget, else ``n_permutations``
    random ones (each sign flipped with probability 1/2, as in the paper)."""
    if 2**n <= n_permutations:
        codes = np.arange(2**n, dtype=np.uint32)[:, None]
        return ((codes >> np.arange(n, dtype=np.uint32)) & 1).astype(np.float64), True
    n_bytes = -(-n // 8)
    random_bytes = rng.integers(0, 256, size=(n_permutations, n_bytes), dtype=np.uint8)
    return np.unpackbits(random_bytes, axis=1, count=n).astype(np.float64), False


def sign_flip_test(deltas: np.ndarray, n_permutations: int = N_PERMUTATIONS, seed: int = 0) -> SignFlip:
    """Paired sign-flip permutation p in the paper's two-sided convention (see the module docstring).

    The same test as ``scipy.stats.permutation_test((δ,), |mean|, permutation_type='samples',
    alternative='greater')`` — identical p in the exact regime, the same estimator ((hits + 1) / (draws + 1)) in
    the random one (tests compare both) — written as one matrix product: scipy's generic resampling loop costs
    ~40 ms per comparison at n = 90, this ~3 ms, and an analysis runs hundreds of comparisons."""
    deltas = np.asarray(deltas, dtype=float)
    n = deltas.size
    if n == 0:
        return SignFlip(float("nan"), True)
    if n == 1:  # both sign patterns have the same |mean|
        return SignFlip(1.0, True)
    flips, exact = _sign_patterns(n, n_permutations, np.random.default_rng(seed))
    # mean of the flipped deltas = (Σδ − 2·Σ_{flipped} δ) / n
    null = np.round(np.abs((deltas.sum() - 2.0 * (flips @ deltas)) / n), TIE_DECIMALS)
    hits = int(np.count_nonzero(null >= _abs_mean(deltas)))
    if exact:
        return SignFlip(hits / flips.shape[0], True)
    return SignFlip((hits + 1) / (flips.shape[0] + 1), False)


def scipy_sign_flip_p(deltas: np.ndarray, n_permutations: int = N_PERMUTATIONS, seed: int = 0) -> float:
    """The reference: ``scipy.stats.permutation_test`` with the paper's convention (used by the tests)."""
    result = stats.permutation_test(
        (np.asarray(deltas, dtype=float),),
        _abs_mean,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_permutations,
        alternative="greater",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def bootstrap_ci(
    deltas: np.ndarray, n_resamples: int = N_BOOTSTRAP, seed: int = 0, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """95 % percentile bootstrap CI of mean δ over scenarios.

    scipy returns a NaN interval when every resample has the same mean (all δ equal, or one scenario): the
    bootstrap distribution is then a point, so the interval is [δ, δ].
    """
    deltas = np.asarray(deltas, dtype=float)
    if deltas.size == 0:
        return float("nan"), float("nan")
    if deltas.size == 1 or np.all(deltas == deltas[0]):
        return float(deltas[0]), float(deltas[0])
    result = stats.bootstrap(
        (deltas,),
        np.mean,
        n_resamples=n_resamples,
        method="percentile",
        confidence_level=confidence,
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):  # degenerate despite distinct values (e.g. tiny n): a point
        mean = float(np.mean(deltas))
        return mean, mean
    return low, high


def holm(pvalues: Sequence[float], alpha: float = ALPHA) -> tuple[list[float], list[bool]]:
    """Holm–Bonferroni adjusted p-values and rejections; NaN p-values (untestable) stay NaN and not rejected."""
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        # statsmodels' Holm branch calls gc.collect(), which walks every live object (~0.2 s each call once mlflow
        # and pandas are loaded). Freezing moves them out of the collector's sight for the call; nothing is lost.
        gc.freeze()
        try:
            rej, adj, _, _ = multipletests(p[ok], alpha=alpha, method="holm")
        finally:
            gc.unfreeze()
        adjusted[ok] = adj
        reject[ok] = rej
    return [float(a) for a in adjusted], [bool(r) for r in reject]


def stars(p: float) -> str:
    if p is None or math.isnan(p):
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def min_attainable_p(n: int, n_permutations: int = N_PERMUTATIONS) -> float:
    """The smallest p the test can return with n scenarios.

    Exact: the observed sign pattern and its mirror image always reach |mean|, so 2 / 2ⁿ (2/32 with 5 scenarios).
    Random draws: the observed pattern counts once, so at best 1 / (draws + 1).
    """
    if n <= 0:
        return 1.0
    if 2**n <= n_permutations:
        return min(1.0, 2.0 / 2**n)
    return 1.0 / (n_permutations + 1)


def family_can_reach_alpha(ns: Sequence[int], n_permutations: int = N_PERMUTATIONS, alpha: float = ALPHA) -> bool:
    """Whether any test of a family could be significant after Holm: m × (smallest attainable p) < α."""
    tests = [n for n in ns if n > 0]
    if not tests:
        return False
    return len(tests) * min(min_attainable_p(n, n_permutations) for n in tests) < alpha


@dataclass(frozen=True)
class DeltaStats:
    n: int
    delta: float
    ci_low: float
    ci_high: float
    p: float
    exact: bool
    seed: int


def delta_stats(
    deltas: np.ndarray, label: str, n_permutations: int = N_PERMUTATIONS, n_bootstrap: int = N_BOOTSTRAP
) -> DeltaStats:
    """Mean δ, its bootstrap CI and the sign-flip p for one comparison, seeded from ``label``."""
    deltas = np.asarray(deltas, dtype=float)
    seed = seed_for(label)
    flip = sign_flip_test(deltas, n_permutations, seed)
    low, high = bootstrap_ci(deltas, n_bootstrap, seed)
    mean = float(np.mean(deltas)) if deltas.size else float("nan")
    return DeltaStats(int(deltas.size), mean, low, high, flip.p, flip.exact, seed)
