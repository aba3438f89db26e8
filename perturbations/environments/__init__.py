"""Noise environments: registered generators ``(n_samples, sample_rate, rng) -> float32``."""

from perturbations.environments import (  # noqa: F401  (registers the built-in environments)
    airport,
    baby,
    basic,
    cafe,
    construction,
    music,
    road,
    static,
    street,
)
from perturbations.environments.registry import (
    NoiseGenerator,
    available_environments,
    generate,
    looped,
    register_environment,
)

__all__ = ["NoiseGenerator", "available_environments", "generate", "looped", "register_environment"]
