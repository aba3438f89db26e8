"""Pairing, families and bad input of the robustness-delta analysis (in memory), and the clean-twin rule."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf

from evalkit.analysis import stats
from evalkit.analysis.cells import records_table, table_scores
from evalkit.analysis.compare import Settings, compare, condition_label
from evalkit.analysis.report import conventions
from evalkit.analysis.synthetic import Condition, make_experiment, to_cell_data
from evalkit.cli.sweeper import add_clean_twins, is_perturbed, twin_overrides
from evalkit.config.schema import PersonaConfig, cell_key, twin_config, validate_config
from hydra_plugins.evalkit_sweeper.paired_sweeper import PairedSweeper
from tests.conftest import CONF_DIR, REPO

NOISE = Condition("noise", perturb="noise_cafe", snr_db="15.0")
ACCENT = Condition("accent", voice="accent_french")
BOTH = Condition("both", voice="accent_french", perturb="noise_cafe", snr_db="15.0")
FAST = Settings(n_permutations=2000, n_bootstrap=300)


def cells_of(**kwargs):
    defaults = dict(
        agents=["a1"], domains=["airline"], conditions=[NOISE, ACCENT, BOTH], n_scenarios=30, trials_clean=3,
        trials_perturbed=2, effects={}, seed=0,
    )  # fmt: skip
    defaults.update(kwargs)
    return [to_cell_data(c) for c in make_experiment(**defaults)]


# --- statistics on cells ----------------------------------------------------------------------------------------


def test_a_planted_delta_is_found_and_a_null_one_is_not():
    cells = cells_of(effects={("a1", "noise", "key_entity_accuracy"): -0.15})
    rows = {(r.condition, r.metric): r for r in compare(cells, Settings(n_bootstrap=300)).rows}  # 10,000 flips
    planted = rows[("noise_cafe@15.0dB", "key_entity_accuracy")]
    assert planted.significant and planted.stars == "***"
    assert planted.ci_low < planted.delta < planted.ci_high < -0.1  # the CI excludes 0 by far
    assert planted.delta == pytest.approx(-0.15, abs=0.03)
    for condition in ("accent_french", "accent_french+noise_cafe@15.0dB"):
        null = rows[(condition, "key_entity_accuracy")]
        assert not null.significant and null.ci_low < 0 < null.ci_high


def test_rows_equal_a_direct_computation_from_the_raw_scores():
    cells = cells_of(effects={("a1", "accent", "user_wer"): 0.05})
    analysis = compare(cells, FAST)
    clean = next(c for c in cells if c.is_clean)
    for row in (r for r in analysis.rows if r.metric == "user_wer"):
        pert = next(c for c in cells if c.run_id == row.perturbed_run_id)
        deltas = []
        for sid in sorted(set(clean.scenarios)):  # by hand: mean over trials per scenario, then the difference
            p = [v for s, v in zip(pert.scenarios, pert.scores["user_wer"], strict=True) if s == sid]
            c = [v for s, v in zip(clean.scenarios, clean.scores["user_wer"], strict=True) if s == sid]
            deltas.append(np.mean(p) - np.mean(c))
        direct = stats.delta_stats(np.array(deltas), f"{row.family}|{row.condition}", 2000, 300)
        assert (row.delta, row.ci_low, row.ci_high, row.p) == pytest.approx(
            (direct.delta, direct.ci_low, direct.ci_high, direct.p)
        )
        assert row.n_perturbed_trials == 60 and row.n_clean_trials == 90 and row.clean_run_id == clean.run_id
    family = [r for r in analysis.rows if r.metric == "user_wer"]
    adjusted, _ = stats.holm([r.p for r in family])
    assert [r.p_holm for r in family] == pytest.approx(adjusted)


def test_families_are_per_baseline_and_metric_and_reruns_reproduce_every_number():
    cells = cells_of(agents=["a1", "a2"], domains=["airline", "hr"], n_scenarios=8)
    per_domain = Settings(n_permutations=2000, n_bootstrap=300, pooled=False)
    first, again = compare(cells, per_domain), compare(cells, per_domain)
    assert [r.as_dict() for r in first.rows] == [r.as_dict() for r in again.rows]
    families = {r.family for r in first.rows}
    assert len(families) == 2 * 2 * 3  # agents × domains × metrics
    assert all(sum(r.family == f for r in first.rows) == 3 for f in families)  # three conditions each


def test_pooled_rows_test_every_domains_scenarios_together_with_holm_per_model_and_metric():
    cells = cells_of(domains=["airline", "hr", "itsm"], n_scenarios=6, effects={("a1", "noise", "user_wer"): 0.1})
    analysis = compare(cells, FAST)
    pooled = [r for r in analysis.rows if r.domain == "pooled"]
    assert len(pooled) == 3 * 3  # conditions × metrics
    assert {r.family for r in pooled} == {f"a1|pooled|{m}" for m in analysis.metrics}
    for row in pooled:
        parts = [
            r for r in analysis.rows if r.domain != "pooled" and (r.condition, r.metric) == (row.condition, row.metric)
        ]
        assert len(parts) == 3 and row.n_scenarios == sum(r.n_scenarios for r in parts) == 18
        # the pooled δ is the mean over all 18 scenarios: the per-domain means weighted by their scenario counts
        assert row.delta == pytest.approx(sum(r.delta * r.n_scenarios for r in parts) / 18)
        assert row.n_perturbed_trials == sum(r.n_perturbed_trials for r in parts)
    for metric in analysis.metrics:  # Holm across the pooled conditions of one model × metric
        family = [r for r in pooled if r.metric == metric]
        assert [r.p_holm for r in family] == pytest.approx(stats.holm([r.p for r in family])[0])
    noise = next(r for r in pooled if (r.condition, r.metric) == ("noise_cafe@15.0dB", "user_wer"))
    assert noise.significant  # 18 scenarios reach what 6 per domain cannot
    assert all(r.domain != "pooled" for r in compare(cells_of(n_scenarios=6), FAST).rows)  # one domain: no pooling


def test_holm_family_model_metric_spans_conditions_and_domains_as_eva_benchs_per_domain_output():
    cells = cells_of(domains=["airline", "hr", "itsm"], n_scenarios=6)
    eva = Settings(n_permutations=2000, n_bootstrap=300, holm_family="model_metric", pooled=False)
    analysis = compare(cells, eva)
    assert {r.family for r in analysis.rows} == {f"a1|{m}" for m in analysis.metrics}
    for metric in analysis.metrics:
        family = [r for r in analysis.rows if r.metric == metric]
        assert len(family) == 9  # 3 conditions × 3 domains
        assert [r.p_holm for r in family] == pytest.approx(stats.holm([r.p for r in family])[0])
    default = compare(cells, Settings(n_permutations=2000, n_bootstrap=300, pooled=False))
    by_key = {(r.condition, r.domain, r.metric): r for r in default.rows}
    # same raw p, a larger family: Holm-adjusted p never smaller
    for r in analysis.rows:
        twin = by_key[(r.condition, r.domain, r.metric)]
        assert r.p == twin.p and r.p_holm >= twin.p_holm
    assert "holm_family=model_metric," in conventions(eva) and "pooled" not in conventions(eva)  # the report says
    assert "holm_family=model_metric_domain" in conventions(FAST) and "**pooled**" in conventions(FAST)
    with pytest.raises(ValueError, match="holm_family must be one of model_metric_domain, model_metric"):
        Settings(holm_family="metric")


def test_a_family_that_cannot_reach_alpha_is_warned_about():
    analysis = compare(cells_of(n_scenarios=5, conditions=[NOISE]), FAST)
    assert analysis.rows and all(r.p >= 2 / 32 for r in analysis.rows)
    assert len(analysis.warnings) == 3  # one per metric family
    assert "cannot reach α = 0.05" in analysis.warnings[0] and "0.0625" in analysis.warnings[0]
    assert not compare(cells_of(n_scenarios=7, conditions=[NOISE]), FAST).warnings


def test_condition_labels_name_the_axes_that_differ():
    cells = {c.name.split("|")[-1]: c for c in cells_of()}
    axes = ("voice", "persona", "perturb", "snr_db")
    assert condition_label(cells["both"], cells["clean"], axes) == "accent_french+noise_cafe@15.0dB"
    assert condition_label(cells["noise"], cells["clean"], ("perturb",)) == "noise_cafe"


def test_pass_rows_come_from_the_logged_aggregates():
    analysis = compare(cells_of(conditions=[NOISE]), FAST)
    assert {(r.condition, r.metric) for r in analysis.pass_rows} == {
        ("clean", "task_completion"),
        ("noise_cafe@15.0dB", "task_completion"),
    }
    clean = next(r for r in analysis.pass_rows if r.condition == "clean")
    assert 0 <= clean.pass_hat_k <= clean.pass_at_1 <= clean.pass_at_k <= 1


# --- bad input: gaps are named, the rest is still reported ------------------------------------------------------


def test_a_perturbed_cell_without_twin_is_named():
    cells = [c for c in cells_of(conditions=[NOISE]) if not c.is_clean]
    analysis = compare(cells, FAST)
    assert not analysis.rows
    assert any(cells[0].run_id in g and "no finished clean twin" in g for g in analysis.gaps)


def test_mismatched_scenarios_are_analysed_on_the_intersection_and_named():
    cells = cells_of(conditions=[NOISE], n_scenarios=10)
    pert = next(c for c in cells if not c.is_clean)
    keep = [i for i, s in enumerate(pert.scenarios) if s not in ("AI-003", "AI-007")]
    pert.scenarios = [pert.scenarios[i] for i in keep]
    pert.trials = [pert.trials[i] for i in keep]
    pert.scores = {m: [v[i] for i in keep] for m, v in pert.scores.items()}
    analysis = compare(cells, FAST)
    assert {r.n_scenarios for r in analysis.rows} == {8}
    assert all(r.missing_scenarios == "no perturbed score: AI-003,AI-007" for r in analysis.rows)
    assert any("AI-003,AI-007" in g and pert.run_id in g for g in analysis.gaps)


def test_a_metric_missing_in_one_run_is_named_and_the_others_still_compared():
    cells = cells_of(conditions=[NOISE, ACCENT])
    accent = next(c for c in cells if c.params["voice"] == "accent_french")
    del accent.scores["user_wer"]
    analysis = compare(cells, FAST)
    assert {(r.condition, r.metric) for r in analysis.rows if r.metric == "user_wer"} == {
        ("noise_cafe@15.0dB", "user_wer")
    }
    assert any("'user_wer' missing" in g and accent.run_id in g for g in analysis.gaps)
    assert len(analysis.rows) == 5
    unknown = compare(cells, Settings(metrics=["made_up"], n_permutations=100, n_bootstrap=100))
    assert not unknown.rows and "'made_up'" in unknown.gaps[0]


def test_tables_and_records_read_back_alike():
    table = {
        "columns": ["scenario", "trial", "seed", "end_reason", "turns", "tc", "tc_pass", "note"],
        "data": [
            ["A", 0, 1, "done", 5, 1.0, True, "x"],
            ["A", 1, 2, "done", 5, None, None, "y"],
            ["A", 1, 3, "done", 5, 0.0, False, "z"],  # duplicate (scenario, trial)
        ],
    }
    scenarios, trials, scores, problems = table_scores(table)
    assert scenarios == ["A", "A"] and trials == [0, 1]
    assert set(scores) == {"tc", "tc_pass"}  # strings and scenario/trial/seed/turns are not metrics
    assert scores["tc"][0] == 1.0 and np.isnan(scores["tc"][1]) and scores["tc_pass"][0] == 1.0
    assert len(problems) == 1 and "A trial 1 appears twice" in problems[0]
    records = {
        "A_t0.json": {"conversation": {"scenario_id": "A", "trial": 0}, "metrics": {"tc": {"score": 1.0}}},
        "A_t1.json": {"conversation": {"scenario_id": "A", "trial": 1}, "metrics": {"tc": {"score": None}}},
    }
    r_scen, r_trials, r_scores, _ = table_scores(records_table(records))
    assert (r_scen, r_trials) == (["A", "A"], [0, 1]) and r_scores["tc"][0] == 1.0 and np.isnan(r_scores["tc"][1])


def test_conversations_still_invalid_after_regeneration_are_excluded_and_named():
    table = {
        "columns": ["scenario", "trial", "valid", "tc"],
        "data": [["A", 0, 1, 1.0], ["A", 1, 0, 0.0], ["B", 0, None, 0.0]],  # None: validation was off
    }
    scenarios, trials, scores, problems = table_scores(table)
    assert (scenarios, trials, scores) == (["A", "B"], [0, 0], {"tc": [1.0, 0.0]})  # "valid" is not a metric
    assert problems == ["conversation A trial 1 failed simulation validation: excluded"]
    records = {
        "A_t0.json": {
            "conversation": {"scenario_id": "A", "trial": 0, "validation": {"valid": False, "attempt": 2}},
            "metrics": {"tc": {"score": 0.0}},
        },
        "B_t0.json": {"conversation": {"scenario_id": "B", "trial": 0}, "metrics": {"tc": {"score": 1.0}}},
    }
    r_scen, _, r_scores, r_problems = table_scores(records_table(records))
    assert r_scen == ["B"] and r_scores == {"tc": [1.0]} and "A trial 0 failed simulation validation" in r_problems[0]


# --- the clean-twin rule ----------------------------------------------------------------------------------------


def composed(*overrides: str):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides))
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


ELDERLY = PersonaConfig(name="elderly_slow", description="slow", rate_wpm=110, pitch_shift=-5)


def test_twin_config_resets_every_perturbation_axis_to_the_composed_clean_value():
    clean = composed()
    noisy = composed("+perturb=noise_cafe", "seed=3")
    assert cell_key(twin_config(noisy)) == cell_key(composed("seed=3")) != cell_key(clean)  # perturb-only twin
    accent = composed("voice=accent_french").voice  # conf/voice/accent_french.yaml
    for update in ({"voice": accent}, {"persona": ELDERLY}, {"voice": accent, "persona": ELDERLY}):
        perturbed = noisy.model_copy(update=update)
        twin = twin_config(perturbed)
        # an eSpeak accent's twin is eSpeak's neutral voice (the default voice is Piper's, another engine)
        voice = ("voice=neutral",) if "voice" in update else ()
        assert twin.voice == composed(*voice).voice and twin.persona == clean.persona and twin.perturb is None
        assert cell_key(twin) == cell_key(composed("seed=3", *voice))
    assert twin_config(clean) == clean
    custom = clean.model_copy(update={"voice": clean.voice.model_copy(update={"name": "deep_male"})})
    assert twin_config(custom).voice.name == "deep_male"  # a non-accent voice is not a perturbation axis


def test_sweeper_twin_rule_on_override_strings():
    job = ["domain=airline", "voice=accent_french", "voice.rate_wpm=150", "+perturb=noise_cafe", "perturb.snr_db=5"]
    assert twin_overrides(job) == ["domain=airline", "voice=neutral"]
    assert twin_overrides(["persona=elderly_slow", "persona.pitch_shift=3", "seed=1"]) == ["persona=default", "seed=1"]
    assert twin_overrides(["persona=default", "voice=neutral", "voice.pitch=40"]) == [
        "persona=default",
        "voice=neutral",
        "voice.pitch=40",
    ]
    assert not is_perturbed(["persona=default", "voice=neutral"]) and is_perturbed(["persona=elderly_slow"])
    jobs = [["voice=neutral", "+perturb=noise_cafe"], ["voice=accent_french"], ["voice=accent_french", "+perturb=x"]]
    assert add_clean_twins(jobs) == [["voice=neutral"], *jobs]  # one shared twin, scheduled first


def test_sweeper_job_list_schedules_one_twin_for_accent_noise_and_both():
    parser = OverridesParser.create()
    overrides = parser.parse_overrides(["domain=airline", "voice=neutral,accent_french", "+perturb=clean,noise_cafe"])
    # Hydra's plugin scan reloads BasicSweeper, so its __init__'s super() check fails outside a Hydra run;
    # the job list needs only the twin switch.
    sweeper = PairedSweeper.__new__(PairedSweeper)
    sweeper._twins = True
    (jobs,) = sweeper.split_arguments(overrides, None)
    assert jobs[0] == ["domain=airline", "voice=neutral"]
    assert jobs[1:] == [
        ["domain=airline", "voice=neutral", "+perturb=clean"],
        ["domain=airline", "voice=neutral", "+perturb=noise_cafe"],
        ["domain=airline", "voice=accent_french", "+perturb=clean"],
        ["domain=airline", "voice=accent_french", "+perturb=noise_cafe"],
    ]
    # The twin job composes to the very cell the perturbed jobs name as their twin.
    assert cell_key(composed(*jobs[0])) == cell_key(twin_config(composed(*jobs[2])))


def test_cell_tags_carry_the_twin_key_and_code_version():
    from evalkit.cell import cell_tags, plan_cell

    noisy, clean = composed("+perturb=noise_cafe"), composed()
    tags = cell_tags(plan_cell(noisy), "cell")
    assert tags["twin_key"] == cell_key(clean) != tags["cell_key"]
    assert tags["evalkit.version"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    assert tags["evalkit.git_commit"].removesuffix("-dirty") == head
    clean_tags = cell_tags(plan_cell(clean), "cell")
    assert clean_tags["twin_key"] == clean_tags["cell_key"]


def test_plot_colours_follow_the_metrics_own_direction():
    """Issue 30 point 6: ``turn_overhead`` falling (fewer extra turns: better) was drawn red because the
    lower-is-better word list missed it. Direction now comes from ``Metric.lower_is_better``."""
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm

    from evalkit.analysis.plots import _cmap, higher_is_better
    from evalkit.metrics.registry import METRICS

    declared = sorted(name for name in METRICS.names() if METRICS[name].lower_is_better)
    assert {"turn_overhead", "user_wer", "response_latency", "interruption_yield_ms"} <= set(declared)
    assert not any(higher_is_better(name) for name in declared)
    assert higher_is_better("task_completion") and higher_is_better("turn_efficiency")
    assert higher_is_better("task_completion_pass")  # a pass-flag column of the conversations table
    assert not higher_is_better("latency_response_ms_p95") and not higher_is_better("judge_failed")  # by name
    norm = TwoSlopeNorm(0.0, -1.0, 1.0)
    for metric, improving in (("turn_overhead", -0.5), ("task_completion", 0.5)):
        red, green, _, _ = colormaps[_cmap(metric)](norm(improving))
        assert green > red, (metric, red, green)  # an improvement is drawn green
        red, green, _, _ = colormaps[_cmap(metric)](norm(-improving))
        assert red > green, (metric, red, green)  # a degradation red


def test_scenario_file_cells_get_deltas_per_success_kind_and_overall():
    """Issue 29 point 6: a clean + noisy pair of cells on scenario files (real text-mode calls of evalkit's first
    airline scenarios written as scenario files with all three offline success kinds) is compared like any other
    pair: a delta per success_* kind and overall. The noisy cell's ear turns every digit into a 7."""
    from evalkit.analysis.cells import CellData
    from evalkit.domains.scenarios import load_scenarios
    from evalkit.metrics.registry import score_conversation
    from evalkit.scenarios.file import ScenarioFile, from_scenario, to_scenario
    from evalkit.text_dialogue import run_text_dialogue

    scenarios = []
    for scenario in load_scenarios("airline", ["AL-001", "AL-002", "AL-005"]):
        data = from_scenario(scenario)  # success: the expected DB and the reference path's calls
        data["success"]["transcript"] = {"must_not_say": ["could you repeat"]}
        scenarios.append(to_scenario(ScenarioFile.model_validate(data)))
    ears = {"clean": lambda text: text, "noisy": lambda text: "".join("7" if c.isdigit() else c for c in text)}
    cells = []
    for condition, ear in ears.items():
        records = {}
        for scenario in scenarios:
            conversation = run_text_dialogue(scenario, ear=ear)
            scores = score_conversation(conversation, [])
            metrics = {name: {"score": value.score} for name, value in scores.items()}
            records[scenario.id] = {"conversation": conversation.model_dump(mode="json"), "metrics": metrics}
        sids, trials, scores, problems = table_scores(records_table(records))
        assert not problems
        params = {"agent": "cascade_local", "domain": "airline", "perturb": condition, "snr_db": "none"}
        run, key = f"run-{condition}", f"key-{condition}"
        cells.append(CellData(run, run, condition, key, "key-clean", params, {}, sids, trials, scores))
    kinds = ("success_db", "success_tool_calls", "success_transcript", "success_overall")
    wanted = Settings(metrics=[*kinds, "success_judge"], n_permutations=2000, n_bootstrap=300)
    rows = {r.metric: r for r in compare(cells, wanted).rows}
    assert all(name in rows for name in kinds), sorted(rows)
    assert all(rows[name].condition == "noisy" for name in kinds)
    assert rows["success_overall"].delta < 0  # a caller whose digits the agent cannot hear fails more tasks
    assert rows["success_db"].delta < 0 and rows["success_db"].n_perturbed_trials == len(scenarios)
    assert "success_judge" not in rows  # offline: unscored everywhere, never compared as 0
