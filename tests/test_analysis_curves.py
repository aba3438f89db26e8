"""Issue 31 points 4 and 5: robustness curves with their breaking point, and the power planner (pure, seeded)."""

from __future__ import annotations

import numpy as np
import pytest
from omegaconf import OmegaConf

from evalkit.analysis import stats
from evalkit.analysis.compare import Settings, compare
from evalkit.analysis.curves import breaking_point, crossing, curve_lines, curves
from evalkit.analysis.power import estimate_noise, plan, power, scenarios_needed
from evalkit.analysis.synthetic import Condition, make_experiment, to_cell_data
from evalkit.analyze import curve_and_power

SNRS = [30.0, 20.0, 10.0, 5.0, 0.0]  # least to most severe


def test_crossing_interpolates_between_severities():
    assert crossing(SNRS, [0.8, 0.75, 0.5, 0.3, 0.1], 0.4, 0.8) == pytest.approx(7.5)
    assert crossing([0.0, 0.1, 0.2], [0.9, 0.6, 0.2], 0.45, 0.9) == pytest.approx(0.1 + 0.1 * 0.15 / 0.4)
    assert np.isnan(crossing(SNRS, [0.8, 0.8, 0.7, 0.6, 0.5], 0.4, 0.8))  # not reached


def test_breaking_point_and_its_ci_cover_a_known_one():
    """60 scenarios whose true curve halves at 7.5 dB (0.5 at 10 dB, 0.3 at 5 dB, clean 0.8), scenario noise 0.1."""
    rng = np.random.default_rng(7)
    truth = np.array([0.8, 0.75, 0.5, 0.3, 0.1])
    matrix = truth + rng.normal(0, 0.1, size=(60, 5))  # unclipped: clipping would move the true means
    clean = 0.8 + rng.normal(0, 0.1, size=60)
    estimate, mild, severe, low, high = breaking_point(matrix, clean, SNRS, 0.5, 1000, seed=1)
    assert abs(estimate - 7.5) < 1.0
    assert severe < 7.5 < mild <= 10.0  # SNR: the milder end is the higher dB
    covered = sum(lo <= t <= hi for lo, t, hi in zip(low, truth, high, strict=True))
    assert covered >= 4  # five 95 % intervals: one may miss by chance (here the 30 dB one, just)
    flat = np.clip(0.8 + rng.normal(0, 0.05, size=(60, 5)), 0, 1)
    estimate, mild, severe, _, _ = breaking_point(flat, clean, SNRS, 0.5, 300, seed=1)
    assert np.isnan(estimate) and np.isinf(severe)


def test_curves_from_a_severity_sweep_of_cells():
    conditions = [Condition(f"snr{s:g}", perturb="noise_cafe", snr_db=str(s)) for s in SNRS]
    shifts = dict(zip(SNRS, [0.0, -0.05, -0.3, -0.5, -0.7], strict=True))
    effects = {("a1", f"snr{s:g}", m): shifts[s] * (1 if m != "user_wer" else -1)
               for s in SNRS for m in ("task_completion", "key_entity_accuracy", "user_wer")}  # fmt: skip
    cells = [to_cell_data(c) for c in make_experiment(["a1"], ["airline"], conditions, 40, 2, 2, effects, seed=2)]
    found, gaps = curves(cells, ["key_entity_accuracy", "task_completion", "user_wer"], 0.5, 300)
    assert not gaps and {c.metric for c in found} == {"key_entity_accuracy", "task_completion", "user_wer"}
    ke = next(c for c in found if c.metric == "key_entity_accuracy")
    assert (ke.axis, ke.family, ke.severities, ke.n_scenarios) == ("snr_db", "noise_cafe", SNRS, 40)
    assert 0.0 < ke.breaking < 10.0 and ke.means[0] > ke.means[-1]
    wer = next(c for c in found if c.metric == "user_wer")
    assert np.isnan(wer.breaking) and wer.notes == ["no breaking point: lower is better"]
    text = "\n".join(curve_lines(found, 0.5))
    assert "| a1 · airline | noise_cafe | snr_db | key_entity_accuracy | 40 |" in text
    one = [c for c in cells if c.params["snr_db"] in ("none", "10.0")]  # one severity: no curve
    assert curves(one, ["task_completion"], 0.5, 100) == ([], [])


def test_power_plan_reaches_the_target_power_in_simulation():
    """Plan n for δ = 0.15 with k = 2 trials at α = 0.05 after Holm over m = 3, then simulate 300 sweeps of that
    size (the sign-flip test and Holm the analysis runs): the effect is found in ≈ 80 % of them."""
    sigma_b, sigma_w, delta, k, m, alpha = 0.12, 0.3, 0.15, 2, 3, 0.05
    rng = np.random.default_rng(11)

    def sweep_deltas(n: int, effect: float, trials: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        true = rng.normal(effect, sigma_b, n)
        pert = true[:, None] + rng.normal(0, sigma_w, (n, trials))
        clean = rng.normal(0, sigma_w, (n, trials))
        return pert.mean(1) - clean.mean(1), pert, clean

    # the pilot: 30 scenarios × 3 trials; the noise estimates come back near the truth
    d, pert, clean = sweep_deltas(30, delta, 3)
    ids = [f"s{i}" for i in range(30) for _ in range(3)]
    sample = stats.paired_sample(
        d,
        stats.within_variance(ids, list(pert.ravel()), [f"s{i}" for i in range(30)]),
        stats.within_variance(ids, list(clean.ravel()), [f"s{i}" for i in range(30)]),
    )
    between, within, n_pilot = estimate_noise([sample])
    assert n_pilot == 30 and abs(within - sigma_w**2) < 0.03 and between < 0.06
    n = scenarios_needed(delta, k, sigma_b**2, sigma_w**2, alpha, m)
    assert n is not None and 30 < n < 200
    assert power(delta, n - 1, k, sigma_b**2, sigma_w**2, alpha, m) < 0.8 <= power(delta, n, k, sigma_b**2,
                                                                                     sigma_w**2, alpha, m)  # fmt: skip
    hits = 0
    runs = 300
    for i in range(runs):
        ps = [stats.sign_flip_test(sweep_deltas(n, effect, k)[0], 1000, seed=i).p for effect in (delta, 0.0, 0.0)]
        hits += stats.holm(ps, alpha)[1][0]
    assert 0.72 <= hits / runs <= 0.88, hits / runs


def test_plan_from_an_analysis_and_bad_settings_are_one_line():
    noise = Condition("noise", perturb="noise_cafe", snr_db="15.0")
    cells = make_experiment(["a1"], ["airline"], [noise], 20, 3, 3, {}, seed=1)
    analysis = compare([to_cell_data(c) for c in cells], Settings(n_permutations=200, n_bootstrap=100))
    noises, table = plan(analysis, 0.1, 0.05, trials=(1, 3))
    assert {n.metric for n in noises} == {"task_completion", "key_entity_accuracy", "user_wer"}
    tc = {k: n for metric, k, n in table if metric == "task_completion"}
    assert tc[1] is not None and tc[3] is not None and tc[3] <= tc[1]  # more trials, fewer scenarios
    for bad in (0, -0.1, float("nan")):
        with pytest.raises(ValueError, match=r"power\.delta must be a positive number"):
            plan(analysis, bad, 0.05)
    assert curve_and_power(OmegaConf.create({"curve": {"fraction": 0.5}, "power": {"delta": 0.1}})) == (0.5, 0.1)
    bad_configs = (
        ({"power": {"delta": "abc"}}, r"power\.delta must be a positive number"),
        ({"power": {"delta": -1}}, r"power\.delta must be a positive number"),
        ({"curve": {"fraction": 1.5}}, r"curve\.fraction must be a number strictly between"),
    )
    for cfg, message in bad_configs:
        with pytest.raises(ValueError, match=message):
            curve_and_power(OmegaConf.create(cfg))


def test_snr_curve_experiment_plans_five_snrs_and_one_clean_twin():
    from hydra import compose, initialize_config_dir

    from evalkit.cli.preflight import planned_jobs
    from tests.conftest import CONF_DIR

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["+experiment=snr_curve"], return_hydra_config=True)
    jobs = planned_jobs(None, cfg) or []
    snrs = sorted(float(o.split("=")[1]) for job in jobs for o in job if o.startswith("perturb.snr_db="))
    assert snrs == [0.0, 5.0, 10.0, 20.0, 30.0]
    assert len(jobs) == 6 and sum(not any(o.startswith("+perturb=") for o in job) for job in jobs) == 1  # the twin
    assert len(cfg.domain.scenarios) == 3 and cfg.trials == 2  # small: 36 conversations
