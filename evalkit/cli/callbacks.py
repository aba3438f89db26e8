"""Hydra callbacks: create the MLflow store and the sweep's parent run once, before parallel jobs fan out
(parallel jobs racing to create a SQLite store hit "database is locked"), and close it with a summary."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from evalkit.tracking import end_sweep, read_parent_run, resolve_target, start_sweep

log = logging.getLogger("evalkit")


def _target(config: DictConfig) -> Any:
    m = config.get("mlflow", {})
    return resolve_target(m.get("tracking_uri"), m.get("experiment", "evalkit"), m.get("artifact_location"), Path.cwd())


class TrackingCallback(Callback):
    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir).resolve()
        grid = OmegaConf.to_container(config.hydra.sweeper.params or {}, resolve=False)
        overrides = list(HydraConfig.get().overrides.task) if HydraConfig.initialized() else []
        run_id = start_sweep(_target(config), sweep_dir, grid or {}, overrides)  # type: ignore[arg-type]
        log.info("sweep parent run %s (store %s)", run_id, _target(config).tracking_uri)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        parent = read_parent_run(Path(config.hydra.sweep.dir).resolve())
        if parent:
            rows = end_sweep(_target(config), parent)
            log.info("sweep parent run %s closed with %d cells", parent, len(rows))
