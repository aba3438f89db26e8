"""evalkit. Importing the package registers the OmegaConf resolver ``evalkit.unique`` that conf/config.yaml's sweep
folder uses; every process that runs a job (joblib, submitit workers) imports evalkit first, so it resolves there."""

from __future__ import annotations

import os
import secrets

from omegaconf import OmegaConf


def _unique() -> str:
    return f"{os.getpid()}-{secrets.token_hex(3)}"


# use_cache: one value per config, and Hydra copies the cache into every job's config (same folder for all jobs).
OmegaConf.register_new_resolver("evalkit.unique", _unique, use_cache=True, replace=True)
