"""Validated run configuration: Hydra composes, pydantic validates (docs/architecture.md, decision 1)."""

from evalkit.config.schema import ConfigError, RunConfig, cell_key, validate_config

__all__ = ["ConfigError", "RunConfig", "cell_key", "validate_config"]
