"""Every conf/perturb option composes, validates and builds its chain; several axes sweep at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf.errors import InterpolationToMissingValueError

from evalkit.cli.sweeper import add_clean_twins
from evalkit.config.schema import ConfigError, cell_key, validate_config
from perturbations import Chain
from tests.conftest import CONF_DIR
from tests.test_config import composed

OPTIONS = sorted(p.stem for p in (CONF_DIR / "perturb").glob("*.yaml") if p.stem != "noise_files")
SR = 16000


def sweep_jobs(*args: str) -> list[list[str]]:
    """The job list Hydra's BasicSweeper (which our sweeper extends) makes of these command-line overrides."""
    overrides = OverridesParser.create().parse_overrides(list(args))
    return [list(job) for batch in BasicSweeper.split_arguments(overrides, None) for job in batch]


@pytest.mark.parametrize("option", OPTIONS)
def test_every_option_validates_and_runs_on_audio(option: str) -> None:
    config = validate_config(composed(f"+perturb={option}"))
    chain = Chain.from_specs(config.perturb.chain if config.perturb else [])
    t = np.arange(SR) / SR
    speech = (0.3 * np.sin(2 * np.pi * 220 * t) * (np.sin(2 * np.pi * 3 * t) > 0)).astype(np.float32)
    out, applied = chain(speech, SR, np.random.default_rng(0))
    assert out.shape == speech.shape and np.isfinite(out).all() and np.abs(out).max() <= 1.0
    if option != "clean":
        assert applied
    # burst_noise's events come at 2 per minute: a second of audio usually holds none (tests/test_channel_realism.py)
    if option not in ("clean", "burst_noise"):
        assert not np.array_equal(out, speech)


def test_two_environments_by_two_snrs_sweep_with_one_shared_twin() -> None:
    jobs = sweep_jobs("+perturb=noise_cafe,noise_street", "perturb.snr_db=5,15")
    assert len(jobs) == 4
    scheduled = add_clean_twins(jobs)
    assert scheduled[0] == [] and scheduled[1:] == jobs  # the one clean twin, first
    configs = [validate_config(composed(*job)) for job in jobs]
    requested = {(c.perturb.chain[0]["environment"], c.perturb.chain[0]["snr_db"]) for c in configs}
    assert requested == {("cafe", 5.0), ("cafe", 15.0), ("street", 5.0), ("street", 15.0)}
    assert len({cell_key(c) for c in configs}) == 4


def test_connection_degradation_is_the_last_stage_of_combined_chains() -> None:
    config = validate_config(composed("+perturb=noise_cafe_g711_loss5"))
    assert [op["op"] for op in config.perturb.chain] == ["noise", "codec", "packet_loss"]


def test_noise_files_needs_a_folder_and_names_a_bad_one(tmp_path: Path) -> None:
    with pytest.raises(InterpolationToMissingValueError, match=r"perturb\.folder"):
        validate_config(composed("+perturb=noise_files"))
    with pytest.raises(ConfigError, match="folder"):
        validate_config(composed("+perturb=noise_files", f"perturb.folder={tmp_path / 'nowhere'}"))
