"""`python -m evalkit [overrides] [-m]` — see README.md and conf/config.yaml."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import hydra
from omegaconf import DictConfig

from evalkit.cli.entry import EXIT_BAD_INPUT
from evalkit.cli.outcome import EXIT_FAILED, Outcome
from evalkit.config.schema import ConfigError
from evalkit.redaction import secret_override_problem


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def _task(cfg: DictConfig) -> object:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from evalkit.cli import outcome
    from evalkit.cli.entry import problem_lines
    from evalkit.cli.run import main

    # A sweep's jobs are counted by the sweeper from what they return (they may run in other processes); a single
    # run counts its cells here, each as it ends.
    hydra_cfg = HydraConfig.get()
    single = hydra_cfg.mode != RunMode.MULTIRUN
    try:
        return main(cfg, outcome.current().add_cell if single else None)
    except ConfigError as exc:
        for line in problem_lines(exc):  # one stderr line per problem
            print(line, file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT) from None
    except Exception as exc:
        if single:  # a sweep's job is counted by the sweeper, from the exception the launcher hands back
            outcome.current().add_raised(list(hydra_cfg.overrides.task), exc, Path(hydra_cfg.runtime.output_dir))
        raise


def _run() -> None:
    # Hydra writes the command line to .hydra/ (and multirun.yaml) before any task code runs: a key given as an
    # override must be refused here, before hydra.main, or it is on disk already. A launcher that cannot start
    # (extra not installed, SLURM preset without a partition) is answered here too, before anything starts.
    from evalkit.cli.launchers import launcher_problem

    problem = secret_override_problem(sys.argv[1:]) or launcher_problem(sys.argv[1:]) or mode_problem(sys.argv[1:])
    if problem:
        print(problem, file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)
    # Hydra prints a traceback for errors while composing (a YAML file with a !!python/object tag, an unknown
    # option); with HYDRA_FULL_ERROR they reach us and become one line. Errors inside a cell are not caught here.
    user_wants_full_errors = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"
    from evalkit.cli import outcome
    from evalkit.cli.entry import is_input_error

    done = outcome.reset()
    try:
        _task()
    except Exception as exc:
        if done.cells == 0 and (user_wants_full_errors or not is_input_error(exc)):
            raise
        if done.cells == 0:
            from evalkit.cli.entry import input_error_line

            print(f"config error: {input_error_line(exc)}", file=sys.stderr)
            raise SystemExit(EXIT_BAD_INPUT) from None
        # a job raised (a single run's, or the sweep itself after its jobs ran): one line each, the traceback in
        # the job's folder (on the terminal too with HYDRA_FULL_ERROR=1), then the closing line
        if user_wants_full_errors or not done.raised:
            traceback.print_exception(exc)
        for line in done.raised:
            print(f"evalkit: {line}", file=sys.stderr)
        _close(done, failed=True)
    _close(done)


# Hydra's modes: it refuses two at once with a traceback ("Only one of --run, --multirun, --cfg, --info and
# --shell_completion can be specified"), raised before any config is composed.
_MODES = {"-m": "-m", "--multirun": "-m", "-c": "--cfg", "--cfg": "--cfg", "-i": "--info", "--info": "--info",
          "-sc": "--shell-completion", "--shell-completion": "--shell-completion"}  # fmt: skip


def mode_problem(argv: list[str]) -> str | None:
    """One line for a command line with two of Hydra's modes (``-m --cfg job``); None when it has at most one."""
    modes = list(dict.fromkeys(_MODES[a.split("=", 1)[0]] for a in argv if a.split("=", 1)[0] in _MODES))
    if len(modes) < 2:
        return None
    if "-m" in modes and "--cfg" in modes:
        import importlib.util

        rest = " ".join(a for a in argv if a not in ("-m", "--multirun"))
        sweep = " ".join(a for a in argv if _MODES.get(a.split("=", 1)[0]) != "--cfg" and a != "job")
        # a sweep's cells before anything runs: evalkit.plan where this install has it (issue 30 point 2)
        plan = (
            f"; python -m evalkit.plan {sweep} lists the sweep's cells"
            if importlib.util.find_spec("evalkit.plan")
            else ""
        )
        return (f"evalkit: --cfg prints one composed config and cannot be combined with -m; drop -m to see a job's "
                f"config (python -m evalkit {rest}){plan}")  # fmt: skip
    return f"evalkit: {' and '.join(modes)} cannot be combined (Hydra runs one mode at a time)"


def _close(done: Outcome, failed: bool = False) -> None:
    """The closing line (``evalkit: N cells: F finished, X failed, R reused``) and the exit status: 0 when every
    cell finished or was reused, 1 when one ended FAILED or a job raised (docs/running.md "Exit status")."""
    if done.cells == 0 and not failed:
        return  # nothing ran: --help, --cfg, --info
    failed = failed or not done.ok
    print(done.line(), file=sys.stderr if failed else sys.stdout, flush=True)
    if failed:
        raise SystemExit(EXIT_FAILED)


if __name__ == "__main__":
    _run()
