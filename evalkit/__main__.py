"""`python -m evalkit [overrides] [-m]` — see README.md and conf/config.yaml."""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from evalkit.config.schema import ConfigError


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def _task(cfg: DictConfig) -> object:
    from evalkit.cli.run import main

    try:
        return main(cfg)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    from evalkit.cli.launchers import launcher_problem

    if (problem := launcher_problem(sys.argv[1:])) is not None:
        print(problem, file=sys.stderr)
        raise SystemExit(2)
    _task()
