"""Config validation, cell identity and clean-twin scheduling."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.cli.sweeper import add_clean_twins
from evalkit.config.schema import ConfigError, cell_key, twin_config, validate_config
from tests.conftest import CONF_DIR


def composed(*overrides: str) -> dict:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides))
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return raw


def test_default_config_is_valid_and_clean():
    config = validate_config(composed())
    assert config.perturb is None and config.condition == "clean"
    assert config.domain.name == "airline" and config.agent.name == "cascade_local"


def test_perturb_group_composes_and_snr_interpolates():
    config = validate_config(composed("+perturb=noise_cafe", "perturb.snr_db=5"))
    assert config.condition == "noise_cafe"
    assert config.perturb.chain[0]["snr_db"] == 5.0


def test_bad_snr_names_the_key_and_the_file():
    raw = composed("+perturb=noise_cafe", "perturb.snr_db=loud")
    with pytest.raises(ConfigError) as info:
        validate_config(raw, {"perturb": "noise_cafe"})
    message = str(info.value)
    assert "perturb.snr_db" in message and "conf/perturb/noise_cafe.yaml" in message and "'loud'" in message


def test_out_of_range_and_unknown_values_are_rejected():
    with pytest.raises(ConfigError, match="trials"):
        validate_config(composed("trials=0"))
    with pytest.raises(ConfigError, match="unknown metric"):
        validate_config(composed("metrics=[task_completion,made_up]"))
    raw = composed()
    raw["domain"]["name"] = "space"
    with pytest.raises(ConfigError, match=r"domain\.name.*conf/domain/airline\.yaml"):
        validate_config(raw, {"domain": "airline"})
    with pytest.raises(ConfigError, match="typo_key"):
        validate_config(composed("+agent.asr.typo_key=1"))


def test_unknown_domain_group_fails_at_compose_time():
    with pytest.raises(Exception, match="space"):
        composed("domain=space")


def test_cell_key_ignores_tracking_but_not_content():
    base = validate_config(composed())
    moved = validate_config(composed("mlflow.experiment=other", "reuse=false", "progress=false"))
    assert cell_key(base) == cell_key(moved)
    assert cell_key(base) != cell_key(validate_config(composed("seed=1")))
    assert cell_key(base) != cell_key(validate_config(composed("+perturb=noise_cafe")))


def test_named_clean_condition_shares_the_clean_identity():
    assert cell_key(validate_config(composed("+perturb=clean"))) == cell_key(validate_config(composed()))
    perturbed = validate_config(composed("+perturb=noise_cafe"))
    assert cell_key(twin_config(perturbed)) == cell_key(validate_config(composed()))


def test_sweeper_adds_one_clean_twin_per_distinct_clean_config():
    jobs = [
        ["domain=airline", "+perturb=noise_cafe", "perturb.snr_db=5"],
        ["domain=airline", "+perturb=noise_cafe", "perturb.snr_db=15"],
        ["domain=airline", "seed=1", "+perturb=noise_cafe"],
    ]
    out = add_clean_twins(jobs)
    assert out[:2] == [["domain=airline"], ["domain=airline", "seed=1"]]
    assert out[2:] == jobs
    assert add_clean_twins([["domain=airline"]]) == [["domain=airline"]]


def test_token_limits_are_part_of_the_cell_key_but_credentials_are_not() -> None:
    from evalkit.config.schema import cell_key, identity_payload, is_secret_key, validate_config

    base = validate_config(composed())
    assert cell_key(base) != cell_key(validate_config(composed("agent.asr.max_new_tokens=64")))
    assert identity_payload(base)["agent"]["asr"]["max_new_tokens"] == 96
    assert [is_secret_key(k) for k in ("api_key", "api_key_env", "auth_token", "client-secret", "max_new_tokens")] == [
        True,
        True,
        True,
        True,
        False,
    ]
