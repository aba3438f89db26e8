"""Arena, bias, agreement and rubric statistics (MTalk-Bench, IHBench) against hand computations and libraries."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalkit.arena.stats import (
    Comparison,
    agreement,
    bradley_terry,
    bradley_terry_ci,
    elo,
    length_bias,
    overall_win_rate,
    position_bias,
    rubric_all_pass,
    rubric_case_score,
    rubric_model_score,
    tf_win_rates,
    wilson_interval,
    win_rates,
)


def synthetic(strengths: dict[str, float], n_per_pair: int, seed: int = 0) -> list[Comparison]:
    """Verdicts drawn from a Bradley–Terry model with the given log-strengths; A/B order random."""
    rng = np.random.default_rng(seed)
    models = sorted(strengths)
    out = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            p_a = 1.0 / (1.0 + math.exp(strengths[b] - strengths[a]))
            for n in range(n_per_pair):
                first, second = (a, b) if rng.random() < 0.5 else (b, a)
                winner = a if rng.random() < p_a else b
                out.append(Comparison(f"{a}-{b}-{n}", first, second, winner))
    return out


def test_elo_follows_the_update_rule_in_the_seeded_order():
    comparisons = [Comparison("1", "a", "b", "a"), Comparison("2", "b", "c", None), Comparison("3", "a", "c", "c")]
    seed = 7
    ratings = {"a": 1000.0, "b": 1000.0, "c": 1000.0}
    for i in np.random.default_rng(seed).permutation(3):  # by hand: E_A = 1/(1+10^((R_B-R_A)/400)), K = 4
        c = comparisons[int(i)]
        e = 1.0 / (1.0 + 10.0 ** ((ratings[c.second] - ratings[c.first]) / 400.0))
        s = 0.5 if c.winner is None else float(c.winner == c.first)
        ratings[c.first] += 4.0 * (s - e)
        ratings[c.second] -= 4.0 * (s - e)
    assert elo(comparisons, seed=seed) == pytest.approx(ratings)
    assert elo(comparisons, seed=seed) == elo(comparisons, seed=seed)
    assert sum(elo(comparisons, seed=seed).values()) == pytest.approx(3000.0)  # zero-sum
    first = elo([Comparison("1", "a", "b", "a")])
    assert first == pytest.approx({"a": 1002.0, "b": 998.0})  # equal ratings: E = ½, K·½ = 2


def test_elo_depends_on_the_order_and_the_seed_picks_it():
    comparisons = synthetic({"a": 0.5, "b": 0.0, "c": -0.5}, 20)
    assert len({tuple(elo(comparisons, seed=s).values()) for s in range(5)}) > 1


def test_bradley_terry_equals_a_logistic_regression_and_recovers_the_true_order():
    import statsmodels.api as sm

    true = {"a": 0.8, "b": 0.0, "c": -0.6}
    comparisons = synthetic(true, 200, seed=3)
    strengths = bradley_terry(comparisons)
    assert sorted(strengths, key=strengths.get, reverse=True) == ["a", "b", "c"]
    # The same MLE as a no-intercept logit on (+1 winner side, -1 loser side), model "c" as the reference level
    models = ["a", "b", "c"]
    rows, y = [], []
    for c in comparisons:
        x = [0.0, 0.0, 0.0]
        x[models.index(c.first)], x[models.index(c.second)] = 1.0, -1.0
        rows.append(x[:2])
        y.append(float(c.winner == c.first))
    beta = sm.Logit(np.array(y), np.array(rows)).fit(disp=0).params
    theta = np.array([beta[0], beta[1], 0.0])
    theta -= theta.mean()
    expected = {m: 1000.0 + 400.0 / math.log(10.0) * theta[i] for i, m in enumerate(models)}
    assert strengths == pytest.approx(expected, abs=0.5)  # choix's ridge (alpha=1e-3) moves it by far less
    lows_highs = bradley_terry_ci(comparisons, n_resamples=200, seed=1)
    for m in models:
        low, high = lows_highs[m]
        assert low < strengths[m] < high
    again = bradley_terry_ci(comparisons, n_resamples=50, seed=2)
    assert bradley_terry_ci(comparisons, n_resamples=50, seed=2) == again


def test_bradley_terry_stays_finite_when_one_model_wins_everything_and_ignores_ties():
    comparisons = [Comparison(str(i), "a", "b", "a") for i in range(10)] + [Comparison("t", "a", "b", None)]
    strengths = bradley_terry(comparisons)
    assert all(math.isfinite(v) for v in strengths.values()) and strengths["a"] > strengths["b"]
    assert bradley_terry([Comparison("t", "a", "b", None)]) == {"a": 1000.0, "b": 1000.0}


def test_win_rates_count_ties_half_and_are_complementary():
    comparisons = [Comparison("1", "a", "b", "a"), Comparison("2", "b", "a", "a"), Comparison("3", "a", "b", None)]
    rates = win_rates(comparisons)
    assert rates[("a", "b")] == (pytest.approx(2.5 / 3), 3) and rates[("b", "a")] == (pytest.approx(0.5 / 3), 3)
    assert overall_win_rate(comparisons) == pytest.approx({"a": 2.5 / 3, "b": 0.5 / 3})


def test_wilson_interval_is_the_formula_mtalk_bench_gives():
    z, x, n = 1.959963984540054, 27, 55
    centre = (x + z * z / 2) / (n + z * z)
    half = z * math.sqrt(x * (n - x) / n + z * z / 4) / (n + z * z)
    assert wilson_interval(x, n) == pytest.approx((centre - half, centre + half))


def test_a_judge_that_prefers_the_first_response_is_caught_and_a_fair_one_is_not():
    rng = np.random.default_rng(0)
    biased = [Comparison(str(i), "a", "b", "a" if rng.random() < 0.8 else "b") for i in range(60)]
    result = position_bias(biased)
    assert result.rate > 0.65 and result.significant and result.delta == pytest.approx(2 * result.rate - 1)
    assert result.ci_low < result.rate < result.ci_high
    fair = [Comparison(str(i), *(("a", "b") if i % 2 else ("b", "a")), "a") for i in range(60)]  # a always wins
    assert position_bias(fair).rate == 0.5 and not position_bias(fair).significant


def test_length_bias_counts_the_longer_response_and_skips_equal_lengths():
    comparisons = [Comparison(str(i), "a", "b", "a", 30.0, 10.0) for i in range(20)]  # the longer one always wins
    comparisons += [Comparison("eq", "a", "b", "b", 5.0, 5.0), Comparison("tie", "a", "b", None, 1.0, 2.0)]
    result = length_bias(comparisons)
    assert (result.n, result.rate, result.delta) == (20, 1.0, 1.0) and result.p < 0.001
    assert length_bias([Comparison("x", "a", "b", "a")]).n == 0  # lengths unknown


def test_agreement_kappa_spearman_and_pseudo_agreement_by_hand():
    items = [("1", "a", "b"), ("2", "a", "b"), ("3", "b", "c"), ("4", "a", "c"), ("5", "c", "a")]
    judge_1 = [Comparison(i, f, s, w) for (i, f, s), w in zip(items, ["a", "a", "b", "a", "a"], strict=True)]
    judge_2 = [Comparison(i, f, s, w) for (i, f, s), w in zip(items, ["a", "b", "b", "a", None], strict=True)]
    result = agreement(judge_1, judge_2)
    assert result.n == 5 and result.raw == pytest.approx(3 / 5)
    # labels (first/second/tie): judge 1 = f f f f s; judge 2 = f s f f t  ->  p_o = 3/5
    p_o, p_e = 3 / 5, (4 / 5) * (3 / 5) + (1 / 5) * (1 / 5) + 0 * (1 / 5)
    assert result.kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    p1, p2 = 1.0, 0.5  # a over b: judge 1 two of two, judge 2 one of two
    assert result.pseudo[("a", "b")] == pytest.approx(p1 * p2 + (1 - p1) * (1 - p2))
    assert not math.isnan(result.spearman)
    assert agreement(judge_1, judge_1).kappa == 1.0


def test_rubric_mean_of_criteria_and_all_must_pass():
    assert rubric_case_score({"s_1": 1, "m_1": 0, "d_1": 1}) == pytest.approx(2 / 3)
    assert not rubric_all_pass({"s_1": 1, "m_1": 0}) and rubric_all_pass({"s_1": True})
    assert rubric_model_score([{"s_1": 1, "m_1": 0}, {"s_1": 1, "m_1": 1}]) == pytest.approx((75.0, 0.5))
    with pytest.raises(ValueError, match="at least one criterion"):
        rubric_case_score({})


def test_malformed_comparisons_are_refused():
    with pytest.raises(ValueError, match="compared with itself"):
        Comparison("1", "a", "a", "a")
    with pytest.raises(ValueError, match="neither"):
        Comparison("1", "a", "b", "c")


def test_kappa_equals_scikit_learns_on_random_verdicts():
    from sklearn.metrics import cohen_kappa_score  # installed with mlflow and librosa

    rng = np.random.default_rng(11)
    items = [(str(i), *rng.permutation(["a", "b", "c"])[:2]) for i in range(80)]
    pick = lambda f, s, r: None if r < 0.1 else f if r < 0.55 else s  # noqa: E731
    judge_1 = [Comparison(i, f, s, pick(f, s, rng.random())) for i, f, s in items]
    judge_2 = [Comparison(i, f, s, c.winner if rng.random() < 0.7 else pick(f, s, rng.random())) for (i, f, s), c in
               zip(items, judge_1, strict=True)]  # fmt: skip
    label = lambda c: "tie" if c.winner is None else "first" if c.winner == c.first else "second"  # noqa: E731
    expected = cohen_kappa_score([label(c) for c in judge_1], [label(c) for c in judge_2])
    assert agreement(judge_1, judge_2).kappa == pytest.approx(expected)


def test_tf_win_rate_against_the_pinned_baseline_by_hand():
    """IHBench TF: share of comparisons with the baseline the model won; no tie exists, so an undecided comparison
    is left out (not half a win); comparisons not involving the baseline do not count; baseline = 0.50."""
    comps = [
        Comparison("i1", "gpt4o", "ours", "ours"),
        Comparison("i2", "ours", "gpt4o", "ours"),
        Comparison("i3", "ours", "gpt4o", "gpt4o"),
        Comparison("i4", "gpt4o", "ours", None),  # the judge gave no valid choice
        Comparison("i5", "ours", "other", "other"),  # not against the baseline
        Comparison("i1", "other", "gpt4o", "gpt4o"),
    ]
    tf = tf_win_rates(comps, "gpt4o", n_resamples=2000, seed=1)
    assert tf["ours"].rate == pytest.approx(2 / 3) and (tf["ours"].wins, tf["ours"].n) == (2, 3)
    assert tf["ours"].undecided == 1  # a tie would have made it 2.5 / 4 = 0.625
    assert tf["other"].rate == 0.0 and tf["other"].n == 1
    assert tf["gpt4o"].rate == 0.5  # parity by construction
    assert 0.0 <= tf["ours"].ci_low <= 2 / 3 <= tf["ours"].ci_high == 1.0  # bootstrap over 3 outcomes
    assert tf_win_rates(comps, "gpt4o", n_resamples=2000, seed=1) == tf  # seeded
