"""Robustness-delta statistics against independent brute-force computations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evalkit.analysis import stats


def brute_force_p(deltas: np.ndarray) -> float:
    """The paper's p by enumeration in exact rational arithmetic: share of all 2ⁿ sign patterns whose |mean| is
    at least the observed |mean| (so ties are ties, with no float tolerance to argue about)."""
    exact = [Fraction(float(d)).limit_denominator(10_000) for d in deltas]
    observed = abs(sum(exact))
    patterns = list(itertools.product((1, -1), repeat=len(exact)))
    hits = sum(abs(sum(s * d for s, d in zip(signs, exact, strict=True))) >= observed for signs in patterns)
    return hits / len(patterns)


# Scores rounded to 1/12 steps, like means of a few 0/1 trials: many ties, the hard case for ">=".
deltas_strategy = st.lists(st.integers(-12, 12).map(lambda k: k / 12), min_size=1, max_size=9).map(np.array)


@settings(max_examples=60, deadline=None)
@given(deltas_strategy)
def test_exact_sign_flip_p_equals_enumeration(deltas):
    result = stats.sign_flip_test(deltas, n_permutations=10_000, seed=1)
    assert result.exact
    assert result.p == pytest.approx(brute_force_p(deltas), abs=1e-12)


def test_a_zero_mean_gives_p_one_despite_float_noise():
    deltas = np.array([0.0, 0.0, -1 / 12, -5 / 12, 0.5])  # mean 0 in exact arithmetic, ~1e-17 in floats
    assert stats.sign_flip_test(deltas).p == 1.0


def test_random_sign_flips_approximate_the_exact_p_when_2n_exceeds_the_budget():
    deltas = np.random.default_rng(7).normal(0.08, 0.3, 16)  # 2^16 = 65,536 patterns > 10,000 draws
    result = stats.sign_flip_test(deltas, n_permutations=10_000, seed=3)
    assert not result.exact
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=deltas.size)))  # all 65,536, in floats
    exact = float(np.mean(np.abs((signs * deltas).mean(axis=1)) >= abs(deltas.mean()) - 1e-12))
    assert 0.02 < exact < 0.98
    assert abs(result.p - exact) < 4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4


def test_bootstrap_ci_equals_a_numpy_percentile_bootstrap_with_the_same_seed():
    deltas = np.random.default_rng(11).normal(-0.1, 0.2, 17)
    low, high = stats.bootstrap_ci(deltas, n_resamples=1000, seed=99)
    rng = np.random.default_rng(99)
    means = deltas[rng.integers(0, deltas.size, (1000, deltas.size))].mean(axis=1)
    assert (low, high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=1e-12)
    assert low < deltas.mean() < high


@pytest.mark.parametrize("deltas", [[0.25] * 6, [0.0] * 4, [-0.5]])
def test_all_equal_deltas_give_a_point_interval_not_nan(deltas):
    low, high = stats.bootstrap_ci(np.array(deltas), seed=1)
    assert low == high == deltas[0]


def test_holm_matches_a_hand_computed_case():
    # sorted p: 0.01, 0.03, 0.04 -> ×3, ×2, ×1 = 0.03, 0.06, 0.04 -> running max 0.03, 0.06, 0.06
    adjusted, reject = stats.holm([0.01, 0.04, 0.03], alpha=0.05)
    assert adjusted == pytest.approx([0.03, 0.06, 0.06])
    assert reject == [True, False, False]
    adjusted, reject = stats.holm([0.2, float("nan")])
    assert adjusted[0] == pytest.approx(0.2) and math.isnan(adjusted[1]) and reject == [False, False]


def test_stars():
    assert [stats.stars(p) for p in (0.0009, 0.009, 0.049, 0.05, float("nan"))] == ["***", "**", "*", "", ""]


def test_minimum_attainable_p_and_family_reach():
    assert stats.min_attainable_p(5) == pytest.approx(2 / 32)
    assert stats.min_attainable_p(5) == pytest.approx(stats.sign_flip_test(np.array([0.1, 0.2, 0.3, 0.4, 0.5])).p)
    assert stats.min_attainable_p(90) == pytest.approx(1 / 10_001)
    assert not stats.family_can_reach_alpha([5])
    assert stats.family_can_reach_alpha([6])  # 2/64 < 0.05
    assert not stats.family_can_reach_alpha([6, 6, 6])  # Holm: 3 × 2/64 > 0.05
    assert stats.family_can_reach_alpha([7, 7, 7])  # 3 × 2/128 < 0.05


def test_seeds_come_from_the_label_and_reproduce_every_number():
    deltas = np.random.default_rng(5).normal(0.05, 0.2, 40)
    first = stats.delta_stats(deltas, "agent|airline|task_completion|noise", 2000, 500)
    again = stats.delta_stats(deltas, "agent|airline|task_completion|noise", 2000, 500)
    other = stats.delta_stats(deltas, "agent|airline|task_completion|accent", 2000, 500)
    assert first == again
    assert first.seed == stats.seed_for("agent|airline|task_completion|noise") != other.seed
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)


def test_scenario_means_and_deltas_pair_on_the_intersection():
    pert = stats.scenario_means(["A", "A", "A", "B", "C"], [1.0, 0.0, 1.0, float("nan"), 0.5])
    clean = stats.scenario_means(["A"] * 5 + ["B", "D"], [1, 1, 1, 1, 0, 0.25, 1.0])
    assert pert == pytest.approx({"A": 2 / 3, "C": 0.5})  # B had only an unscored trial
    d = stats.scenario_deltas(pert, clean)
    assert d.scenarios == ["A"] and d.values == pytest.approx([2 / 3 - 4 / 5])
    assert d.only_perturbed == ["C"] and d.only_clean == ["B", "D"]


@settings(max_examples=30, deadline=None)
@given(deltas_strategy)
def test_exact_p_equals_scipy_permutation_test(deltas):
    assume(deltas.size >= 2)  # scipy needs two observations; n = 1 is p = 1 by definition
    assert stats.sign_flip_test(deltas).p == pytest.approx(stats.scipy_sign_flip_p(deltas), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_regime_agrees_with_scipy_within_monte_carlo_error(seed):
    deltas = np.random.default_rng(seed).normal(0.03, 0.3, 40)  # 2^40 patterns: both sample 10,000
    ours, theirs = stats.sign_flip_test(deltas, seed=seed).p, stats.scipy_sign_flip_p(deltas, seed=seed)
    assert 0.01 < theirs < 0.99
    assert abs(ours - theirs) < 6 * math.sqrt(theirs * (1 - theirs) / 10_000)
