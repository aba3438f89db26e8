"""Arena, rubric and judge-agreement statistics (MTalk-Bench §3 and App. C/F; IHBench's all-must-pass), as pure
functions of stored verdicts and a seed.

- Elo (MTalk-Bench): every model starts at 1000, E_A = 1 / (1 + 10^((R_B − R_A)/400)), R'_A = R_A + K(S_A − E_A)
  with K = 4. Elo depends on the order of the comparisons; the order is a seeded shuffle, and the seed is reported.
- Bradley–Terry: the order-free maximum-likelihood strengths (``choix``), on the Elo scale (1000 + 400/ln 10 · θ,
  θ centred), with percentile-bootstrap CIs over comparisons (seeded). Ties carry no Bradley–Terry information and
  are left out of it (they count half a win in Elo and in the win-rate matrix).
- Win-rate matrix: row model's wins over column model / their comparisons.
- Judge bias (MTalk-Bench App. C.1.3): position (the response shown first wins: TPR, ΔPos = TPR − BPR) and length
  (the longer response wins: LPR, ΔLen = LPR − SPR), each with a Wilson 95 % CI and a permutation p: under "no
  bias" the label of each verdict (first/second, longer/shorter) is exchangeable, so the test flips each verdict's
  sign at random — the paired sign-flip test of the robustness analysis (``evalkit.analysis.stats``), 10,000 draws.
- Agreement between two judges on the same comparisons: raw agreement, Cohen's κ (statsmodels), Spearman ρ of the
  models' win rates (scipy), and MTalk-Bench's pseudo agreement p₁p₂ + (1 − p₁)(1 − p₂) per model pair.
- Task-fulfilment (TF) win rate against a pinned baseline (IHBench §4): each model's share of its comparisons with
  the baseline agent that it won. IHBench's judge must pick a winner (no tie option), so a comparison without a
  winner is no verdict: it is left out (and counted), never scored as half a win. The baseline against itself is
  0.50 by construction. A 95 % percentile-bootstrap CI over the comparisons (IHBench Table 1).
- Rubrics: a case's score is the mean of its binary criteria (MTalk-Bench S_case; a model's score is the mean over
  cases × 100) or all-must-pass (IHBench).
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evalkit.analysis import stats as paired

ELO_START = 1000.0
ELO_K = 4.0  # MTalk-Bench: "K = 4 for stability"
ELO_SCALE = 400.0
N_BOOTSTRAP = 1000
N_PERMUTATIONS = paired.N_PERMUTATIONS
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Comparison:
    """One judged pair: ``first`` was shown as response A, ``second`` as B. ``winner``: a model name, None = tie.
    ``len_first`` / ``len_second``: the responses' lengths (words or seconds) for the length-bias test."""

    item: str
    first: str
    second: str
    winner: str | None
    len_first: float = math.nan
    len_second: float = math.nan

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"comparison {self.item}: a model compared with itself ({self.first})")
        if self.winner is not None and self.winner not in (self.first, self.second):
            pair = f"{self.first} nor {self.second}"
            raise ValueError(f"comparison {self.item}: winner {self.winner!r} is neither {pair}")

    def score(self, model: str) -> float:
        """1 win, 0 loss, ½ tie, from ``model``'s side."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == model else 0.0


def models_of(comparisons: Iterable[Comparison]) -> list[str]:
    return sorted({m for c in comparisons for m in (c.first, c.second)})


def elo(
    comparisons: Sequence[Comparison], k: float = ELO_K, start: float = ELO_START, seed: int = 0
) -> dict[str, float]:
    """Sequential Elo over a seeded shuffle of the comparisons (MTalk-Bench: order-dependent, so the order is drawn
    from ``seed`` and a rerun with the same seed gives the same ratings)."""
    ratings = dict.fromkeys(models_of(comparisons), start)
    order = np.random.default_rng(seed).permutation(len(comparisons))
    for i in order:
        c = comparisons[int(i)]
        expected_first = 1.0 / (1.0 + 10.0 ** ((ratings[c.second] - ratings[c.first]) / ELO_SCALE))
        change = k * (c.score(c.first) - expected_first)
        ratings[c.first] += change
        ratings[c.second] -= change
    return ratings


def bradley_terry(comparisons: Sequence[Comparison], models: Sequence[str] | None = None) -> dict[str, float]:
    """Maximum-likelihood Bradley–Terry strengths on the Elo scale; ties left out. A tiny ridge (choix's ``alpha``)
    keeps the estimate finite when one model wins every comparison (the unregularised MLE is then infinite)."""
    import choix  # MIT; imported here: only the arena needs it

    models = list(models or models_of(comparisons))
    index = {m: i for i, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))  # wins[i, j]: times i beat j
    for c in comparisons:
        if c.winner is not None:
            loser = c.second if c.winner == c.first else c.first
            wins[index[c.winner], index[loser]] += 1
    if not wins.any():
        return dict.fromkeys(models, ELO_START)
    # the dense (count-matrix) estimator: ~1 ms a fit, against ~80 ms for choix's per-comparison optimiser, which
    # makes 1,000 bootstrap refits affordable
    theta = np.asarray(choix.ilsr_pairwise_dense(wins, alpha=1e-3), dtype=float)
    theta -= theta.mean()
    return {m: ELO_START + ELO_SCALE / math.log(10.0) * float(theta[index[m]]) for m in models}


def bradley_terry_ci(
    comparisons: Sequence[Comparison], n_resamples: int = N_BOOTSTRAP, seed: int = 0, confidence: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Percentile-bootstrap interval of each model's Bradley–Terry strength, resampling comparisons."""
    models = models_of(comparisons)
    rng = np.random.default_rng(seed)
    draws = np.empty((n_resamples, len(models)))
    for b in range(n_resamples):
        sample = [comparisons[int(i)] for i in rng.integers(0, len(comparisons), len(comparisons))]
        strengths = bradley_terry(sample, models)
        draws[b] = [strengths[m] for m in models]
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(draws, [tail, 100.0 - tail], axis=0)
    return {m: (float(low[i]), float(high[i])) for i, m in enumerate(models)}


def win_rates(comparisons: Sequence[Comparison]) -> dict[tuple[str, str], tuple[float, int]]:
    """(row, column) -> (row's share of wins over column, ties ½; number of their comparisons)."""
    wins: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for c in comparisons:
        for model, other in ((c.first, c.second), (c.second, c.first)):
            wins[(model, other)] += c.score(model)
            counts[(model, other)] += 1
    return {pair: (wins[pair] / n, n) for pair, n in counts.items()}


def overall_win_rate(comparisons: Sequence[Comparison]) -> dict[str, float]:
    """Each model's share of wins over all its comparisons (ties ½)."""
    wins: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for c in comparisons:
        for model in (c.first, c.second):
            wins[model] += c.score(model)
            counts[model] += 1
    return {m: wins[m] / counts[m] for m in counts}


@dataclass(frozen=True)
class TfWinRate:
    """One model's TF win rate over the pinned baseline: ``wins`` of ``n`` decided comparisons with it, a 95 %
    percentile-bootstrap CI, and ``undecided`` comparisons left out (no winner: IHBench has no tie)."""

    rate: float
    ci_low: float
    ci_high: float
    wins: int
    n: int
    undecided: int


def tf_win_rates(
    comparisons: Sequence[Comparison], baseline: str, n_resamples: int = N_BOOTSTRAP, seed: int = 0
) -> dict[str, TfWinRate]:
    """IHBench's task-fulfilment win rate of every model compared with ``baseline`` (which gets 0.50, parity)."""
    outcomes: dict[str, list[int]] = defaultdict(list)
    undecided: dict[str, int] = defaultdict(int)
    for c in comparisons:
        if baseline not in (c.first, c.second):
            continue
        model = c.second if c.first == baseline else c.first
        if c.winner is None:
            undecided[model] += 1
        else:
            outcomes[model].append(int(c.winner == model))
    rng = np.random.default_rng(seed)
    out = {baseline: TfWinRate(0.5, 0.5, 0.5, 0, 0, 0)}
    for model in sorted(set(outcomes) | set(undecided)):
        won = np.asarray(outcomes[model], dtype=float)
        if won.size == 0:
            out[model] = TfWinRate(math.nan, math.nan, math.nan, 0, 0, undecided[model])
            continue
        means = won[rng.integers(0, won.size, (n_resamples, won.size))].mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        out[model] = TfWinRate(float(won.mean()), float(low), float(high), int(won.sum()), won.size, undecided[model])
    return out


def wilson_interval(successes: int, n: int) -> tuple[float, float]:
    """Wilson 95 % score interval of a proportion (statsmodels; MTalk-Bench App. C.1.3)."""
    from statsmodels.stats.proportion import proportion_confint

    if n == 0:
        return math.nan, math.nan
    low, high = proportion_confint(successes, n, alpha=1.0 - 0.95, method="wilson")
    return float(low), float(high)


@dataclass(frozen=True)
class BiasTest:
    """``rate``: share of decided verdicts won by the favoured side (shown first / longer); ``delta`` = rate − (1 −
    rate) (ΔPos, ΔLen); ``p``: the sign-flip permutation p of ``delta``; ``n``: verdicts counted."""

    rate: float
    ci_low: float
    ci_high: float
    delta: float
    p: float
    n: int

    @property
    def significant(self) -> bool:
        return self.p < paired.ALPHA


def _bias(signs: Sequence[int], seed: int, n_permutations: int) -> BiasTest:
    signs_arr = np.asarray(signs, dtype=float)
    n = int(signs_arr.size)
    if n == 0:
        return BiasTest(math.nan, math.nan, math.nan, math.nan, math.nan, 0)
    favoured = int(np.count_nonzero(signs_arr > 0))
    low, high = wilson_interval(favoured, n)
    p = paired.sign_flip_test(signs_arr, n_permutations, seed).p
    return BiasTest(favoured / n, low, high, float(signs_arr.mean()), p, n)


def position_bias(comparisons: Sequence[Comparison], seed: int = 0, n_permutations: int = N_PERMUTATIONS) -> BiasTest:
    """Does the response shown first win more often than half the time? Ties left out."""
    signs = [1 if c.winner == c.first else -1 for c in comparisons if c.winner is not None]
    return _bias(signs, seed, n_permutations)


def length_bias(comparisons: Sequence[Comparison], seed: int = 0, n_permutations: int = N_PERMUTATIONS) -> BiasTest:
    """Does the longer response win more often than half the time? Ties, equal or unknown lengths left out."""
    signs = []
    for c in comparisons:
        if c.winner is None or math.isnan(c.len_first) or math.isnan(c.len_second) or c.len_first == c.len_second:
            continue
        longer = c.first if c.len_first > c.len_second else c.second
        signs.append(1 if c.winner == longer else -1)
    return _bias(signs, seed, n_permutations)


@dataclass(frozen=True)
class Agreement:
    n: int  # comparisons both judges decided on (same item, same pair, same order)
    raw: float
    kappa: float
    spearman: float  # of the models' overall win rates (NaN with fewer than 3 models)
    pseudo: dict[tuple[str, str], float]  # MTalk-Bench App. F.3, per model pair


def _key(c: Comparison) -> tuple[str, str, str]:
    return (c.item, c.first, c.second)


def agreement(judge_a: Sequence[Comparison], judge_b: Sequence[Comparison]) -> Agreement:
    """Two judges' verdicts on the same comparisons (matched by item and the order shown). Labels: first wins,
    second wins, tie."""
    from scipy.stats import spearmanr
    from statsmodels.stats.inter_rater import cohens_kappa

    b_by_key = {_key(c): c for c in judge_b}
    pairs = [(c, b_by_key[_key(c)]) for c in judge_a if _key(c) in b_by_key]
    labels = ("first", "second", "tie")

    def label(c: Comparison) -> int:
        return labels.index("tie" if c.winner is None else "first" if c.winner == c.first else "second")

    table = np.zeros((3, 3))
    for a, b in pairs:
        table[label(a), label(b)] += 1
    n = len(pairs)
    raw = float(np.trace(table) / n) if n else math.nan
    with warnings.catch_warnings():  # statsmodels' z statistic divides by 0 when one judge uses one label only
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float(cohens_kappa(table).kappa) if n and raw < 1.0 else (1.0 if n else math.nan)
    rates_a = overall_win_rate([a for a, _ in pairs])
    rates_b = overall_win_rate([b for _, b in pairs])
    models = sorted(set(rates_a) & set(rates_b))
    rho = math.nan
    if len(models) >= 3:
        rho = float(spearmanr([rates_a[m] for m in models], [rates_b[m] for m in models]).statistic)
    pseudo = {}
    wr_a, wr_b = win_rates([a for a, _ in pairs]), win_rates([b for _, b in pairs])
    for pair, (p1, _) in wr_a.items():
        if pair[0] < pair[1] and pair in wr_b:
            p2 = wr_b[pair][0]
            pseudo[pair] = p1 * p2 + (1.0 - p1) * (1.0 - p2)
    return Agreement(n, raw, kappa, rho, pseudo)


def rubric_case_score(criteria: Mapping[str, int | bool]) -> float:
    """MTalk-Bench S_case: the mean of a case's binary criteria."""
    if not criteria:
        raise ValueError("a rubric case needs at least one criterion")
    return float(np.mean([1.0 if v else 0.0 for v in criteria.values()]))


def rubric_all_pass(criteria: Mapping[str, int | bool]) -> bool:
    """IHBench: the case passes only when every criterion does."""
    if not criteria:
        raise ValueError("a rubric case needs at least one criterion")
    return all(bool(v) for v in criteria.values())


def rubric_model_score(cases: Sequence[Mapping[str, int | bool]]) -> tuple[float, float]:
    """(MTalk-Bench S_model × 100: mean of the case scores, IHBench pass rate: share of all-pass cases)."""
    if not cases:
        return math.nan, math.nan
    return (
        100.0 * float(np.mean([rubric_case_score(c) for c in cases])),
        float(np.mean([rubric_all_pass(c) for c in cases])),
    )
