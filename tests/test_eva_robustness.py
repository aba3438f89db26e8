"""`+experiment=eva_robustness`: EVA-Bench's protocol shape as one override (issue 16, point 1).

The sweeper's job list is computed as the sweeper computes it (grid × conditions + clean twins) and every job is
composed with Hydra's compose API — no cell runs. Paper arithmetic (seed 001, App. C): 213 × 5 + 90 × 3 × 3 =
1,875 conversations per model; per domain N × 5 + 30 × 3 × 3 (airline 520, hr 685, itsm 670). evalkit adds one
clean twin per domain (30 × 3 = 90: the same 30 scenarios, k = 3) that the paper's count leaves out.
"""

from __future__ import annotations

import functools

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.cli.preflight import planned_jobs
from evalkit.cli.sweeper import is_perturbed, twin_overrides, with_conditions
from evalkit.config.schema import RunConfig, cell_key, twin_config, validate_config
from evalkit.domains.scenarios import load_scenarios
from evalkit.domains.subset import SUBSET_SEED, seeded_subset
from tests.conftest import CONF_DIR

DOMAINS = ("airline", "hr", "itsm")
PAPER_SIZES = {"airline": 50, "hr": 83, "itsm": 80}  # 213 scenarios (EVA-Bench Table 6)


@functools.cache
def sweep_jobs() -> tuple[tuple[str, ...], ...]:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["+experiment=eva_robustness"], return_hydra_config=True)
    return tuple(tuple(job) for job in planned_jobs(None, cfg) or [])


@functools.cache
def composed(job: tuple[str, ...]) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(job))
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


def n_scenarios(config: RunConfig) -> int:
    return len(config.domain.scenarios) if config.domain.scenarios else len(load_scenarios(config.domain.name))


def test_subset_is_fixed_seeded_and_per_domain() -> None:
    assert SUBSET_SEED == 20260416
    for domain in DOMAINS:
        subset = seeded_subset(domain)
        ids = {s.id for s in load_scenarios(domain)}
        assert len(subset) == len(set(subset)) == 30 and set(subset) <= ids
        assert subset == tuple(sorted(subset)) == seeded_subset.__wrapped__(domain)  # same draw, cache or not
    assert seeded_subset("airline")[:5] == ("AL-001", "AL-002", "AL-005", "AL-006", "AL-007")  # pinned
    assert seeded_subset("itsm")[:5] == ("IT-001", "IT-004", "IT-005", "IT-013", "IT-015")
    assert seeded_subset.__wrapped__("airline", seed=SUBSET_SEED + 1) != seeded_subset("airline")


def test_conditions_replace_the_grid_values_they_name() -> None:
    jobs = with_conditions([["domain=hr", "voice=neutral"]], [["voice=accent_french"], ["+perturb=noise_cafe"]])
    assert jobs == [["domain=hr", "voice=accent_french"], ["domain=hr", "voice=neutral", "+perturb=noise_cafe"]]
    assert with_conditions([["a=1"]], None) == [["a=1"]]


def test_eva_robustness_jobs_follow_the_paper_protocol() -> None:
    jobs = sweep_jobs()
    configs = {job: composed(job) for job in jobs}
    assert {c.domain.name for c in configs.values()} == set(DOMAINS)
    assert len(jobs) == 15  # per domain: clean full, accent, noise, both, and the subset's clean twin
    keys = {cell_key(c) for c in configs.values()}
    assert len(keys) == len(jobs)  # no job twice
    perturbed = [job for job in jobs if is_perturbed(list(job))]
    assert len(perturbed) == 9
    for job in perturbed:
        config = configs[job]
        assert config.trials == 3 and n_scenarios(config) == 30
        assert list(config.domain.scenarios or []) == list(seeded_subset(config.domain.name))
        twin = tuple(twin_overrides(list(job)))
        # the twin is in the list (order of overrides aside), and the sweeper's twin is twin_config's
        assert any(sorted(twin) == sorted(j) for j in jobs)
        assert cell_key(composed(twin)) == cell_key(twin_config(config))
    conditions = {
        (c.domain.name, c.voice.name, c.perturb.name if c.perturb else "clean", c.trials, n_scenarios(c))
        for c in configs.values()
    }
    for domain in DOMAINS:
        full = PAPER_SIZES[domain]
        assert {row for row in conditions if row[0] == domain} == {
            (domain, "neutral", "clean", 5, full),  # clean, every scenario, k = 5
            (domain, "neutral", "clean", 3, 30),  # the perturbed subset's clean twin
            (domain, "accent_french", "clean", 3, 30),
            (domain, "neutral", "noise_cafe", 3, 30),
            (domain, "accent_french", "noise_cafe", 3, 30),
        }


def conversations(config: RunConfig) -> int:
    return n_scenarios(config) * config.trials


@pytest.mark.parametrize("domain", DOMAINS)
def test_conversation_count_per_domain_is_the_papers(domain: str) -> None:
    configs = [composed(job) for job in sweep_jobs() if composed(job).domain.name == domain]
    twins = {cell_key(twin_config(c)) for c in configs if cell_key(twin_config(c)) != cell_key(c)}
    paper = sum(conversations(c) for c in configs if cell_key(c) not in twins)
    assert paper == PAPER_SIZES[domain] * 5 + 30 * 3 * 3  # airline 520, hr 685, itsm 670
    assert sum(conversations(c) for c in configs) == paper + 30 * 3  # + the clean twin evalkit runs
    # the three conditions share one baseline: one Holm family of three per model × metric × domain (paper §7.2)
    assert len(twins) == 1


def test_paper_total_is_1875_per_model() -> None:
    jobs = sweep_jobs()
    added_twins = {tuple(sorted(twin_overrides(list(j)))) for j in jobs if is_perturbed(list(j))}
    paper = sum(conversations(composed(j)) for j in jobs if tuple(sorted(j)) not in added_twins)
    assert paper == 213 * 5 + 90 * 3 * 3 == 1875
    assert sum(conversations(composed(j)) for j in jobs) == 1875 + 270


def test_smoke_stays_tiny() -> None:
    config = composed(("+experiment=smoke",))
    assert config.trials == 1 and len(config.domain.scenarios or []) == 2
