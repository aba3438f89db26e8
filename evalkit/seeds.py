"""Seed derivation: every random draw in a cell comes from a SeedSequence of stable keys.

Results must not depend on execution order, process count or Python's salted ``hash``,
so string keys are folded to integers with SHA-256 before entering the SeedSequence.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key_to_int(key: int | str) -> int:
    if isinstance(key, int):
        if key < 0:
            raise ValueError(f"seed keys must be non-negative, got {key}")
        return key
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def seed_sequence(*keys: int | str) -> np.random.SeedSequence:
    """A SeedSequence whose entropy is the ordered tuple of keys (cell seed, scenario, trial, turn, ...)."""
    return np.random.SeedSequence([_key_to_int(k) for k in keys])


def derive_seed(*keys: int | str) -> int:
    """A 63-bit integer seed for (cell seed, scenario, trial, turn, ...); logged so a turn can be replayed."""
    return int(seed_sequence(*keys).generate_state(2, dtype=np.uint32).astype(np.uint64) @ [1, 1 << 32]) & (
        (1 << 63) - 1
    )


def rng_for(*keys: int | str) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(*keys))
