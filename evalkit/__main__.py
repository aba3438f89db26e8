"""`python -m evalkit [overrides] [-m]` — see README.md and conf/config.yaml."""

from __future__ import annotations

import os
import sys

import hydra
from omegaconf import DictConfig

from evalkit.config.schema import ConfigError
from evalkit.redaction import secret_override_problem

EXIT_BAD_INPUT = 2


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def _task(cfg: DictConfig) -> object:
    from evalkit.cli.preflight import one_line
    from evalkit.cli.run import main

    try:
        return main(cfg)
    except ConfigError as exc:
        print(one_line(exc), file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT) from None


def _run() -> None:
    # Hydra writes the command line to .hydra/ (and multirun.yaml) before any task code runs: a key given as an
    # override must be refused here, before hydra.main, or it is on disk already. A launcher that cannot start
    # (extra not installed, SLURM preset without a partition) is answered here too, before anything starts.
    from evalkit.cli.launchers import launcher_problem

    problem = secret_override_problem(sys.argv[1:]) or launcher_problem(sys.argv[1:])
    if problem:
        print(problem, file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)
    # Hydra prints a traceback for errors while composing (a YAML file with a !!python/object tag, an unknown
    # option); with HYDRA_FULL_ERROR they reach us and become one line. Errors inside a cell are not caught here.
    user_wants_full_errors = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        _task()
    except Exception as exc:
        if user_wants_full_errors or not _is_input_error(exc):
            raise
        from evalkit.cli.preflight import one_line

        print(f"config error: {one_line(exc)}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT) from None


def _is_input_error(exc: BaseException) -> bool:
    """Errors that mean "the config files or overrides are malformed", raised while Hydra composes."""
    import yaml
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    return isinstance(exc, yaml.YAMLError | HydraException | OmegaConfBaseException)


if __name__ == "__main__":
    _run()
