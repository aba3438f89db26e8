"""The ``noise`` op: background noise from a registered environment, mixed in at an exact SNR."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator
from pydantic.dataclasses import dataclass

from perturbations.audio import effect
from perturbations.environments import available_environments, generate
from perturbations.mixing import mix_at_snr
from perturbations.registry import OP_CONFIG, Number, Op, register_op


@register_op("noise")
@dataclass(config=OP_CONFIG)
class Noise(Op):
    """Add ``environment`` noise at ``snr_db``; see ``perturbations.mixing`` for the SNR definition.

    Reports one effect over the whole clip with the requested and measured SNR, the noise seed (the noise is
    ``generate(environment, len(audio), sample_rate, np.random.default_rng(noise_seed))``) and any limiting.
    """

    environment: str = "cafe"
    snr_db: Number = Field(default=15.0, ge=-5.0, le=40.0)  # 15 dB: EVA-Bench App. G default
    signal_power: Literal["active", "whole"] = "active"
    active_range_db: Number = Field(default=40.0, ge=10.0, le=80.0)

    @field_validator("environment")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        if value not in available_environments():
            raise ValueError("unknown environment")
        return value

    @classmethod
    def expected(cls, field: str) -> str | None:
        if field == "environment":
            return "one of the available environments (" + ", ".join(available_environments()) + ")"
        return None

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        noise_seed = int(rng.integers(0, 2**53))  # JSON-safe integer
        info: dict[str, Any]
        if not np.any(audio):
            # Nothing to set a level against: leave silence silent rather than invent an absolute noise level.
            mixed = audio.copy()
            info = {
                "snr_db_requested": self.snr_db,
                "signal_power": self.signal_power,
                "skipped": "silent input",
            }
        else:
            noise = generate(self.environment, audio.shape[0], sample_rate, np.random.default_rng(noise_seed))
            mixed, info = mix_at_snr(
                audio, noise, self.snr_db, sample_rate, self.signal_power, self.active_range_db
            )
        params = {"environment": self.environment, **info, "noise_seed": noise_seed}
        if self.signal_power == "active":
            params["active_range_db"] = self.active_range_db
        return mixed, [effect("noise", audio.shape[0], sample_rate, params)]
