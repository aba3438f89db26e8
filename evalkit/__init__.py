"""evalkit. Importing the package registers the OmegaConf resolvers ``evalkit.unique`` (conf/config.yaml's sweep
folder) and ``evalkit.subset`` (conf/protocol/: a domain's fixed, seeded scenario subset); every process that runs
a job (joblib, submitit workers) imports evalkit first, so they resolve there."""

from __future__ import annotations

import os
import secrets

from omegaconf import OmegaConf


def _unique() -> str:
    return f"{os.getpid()}-{secrets.token_hex(3)}"


# use_cache: one value per config, and Hydra copies the cache into every job's config (same folder for all jobs).
OmegaConf.register_new_resolver("evalkit.unique", _unique, use_cache=True, replace=True)


def _subset(domain: str, size: int | None = None) -> list[str]:
    from evalkit.domains.subset import SUBSET_SIZE, seeded_subset  # lazy: `import evalkit` stays light

    return list(seeded_subset(domain, SUBSET_SIZE if size is None else int(size)))


# `${evalkit.subset:${domain.name}}` -> the domain's 30 ids (evalkit.domains.subset: seed and rule documented there)
OmegaConf.register_new_resolver("evalkit.subset", _subset, replace=True)
