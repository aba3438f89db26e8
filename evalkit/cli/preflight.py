"""Validate every job of a sweep before the first one starts (and before the sweep's MLflow parent run exists).

Hydra composes one job at a time, so a sweep used to find a bad value only when its job ran: the twin ran,
``perturb.snr_db=500`` stopped the sweep, 15 never ran and the parent run stayed RUNNING. Here each job's config is
composed exactly as the launcher will compose it (``load_sweep_config``), validated (schema + preflight) and every
bad job is reported as one line, exit code 2, before anything starts.

Two callers share :func:`check_jobs`: :class:`PreflightCallback` (listed before the tracking callback in
``conf/config.yaml``, so nothing is created in MLflow for a sweep that cannot run) and the sweeper plugin (a guard
for setups that drop the callback); jobs the callback already passed are not composed twice.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from evalkit.cli.entry import EXIT_BAD_INPUT, one_line, problem_lines
from evalkit.config.preflight import preflight, scenarios_source, to_container
from evalkit.config.schema import ConfigError, RunConfig, validate_config
from evalkit.redaction import config_secret_problems, redact_text

if TYPE_CHECKING:
    from evalkit.cell.plan import CellPlan

_PASSED: set[tuple[str, ...]] = set()  # jobs already validated in this process (callback, then sweeper guard)
# The plan of each job checked here, for that job's own start in this process (the basic launcher): resolving the
# composed config is most of the check (≈ 5-10 ms a job), and the job's composition is the one checked
# (memoize_sweep_configs), up to the hydra node, which the run config leaves out. Taken once.
_CHECKED: dict[tuple[str, ...], CellPlan] = {}


def checked_job_plan(overrides: Sequence[str]) -> CellPlan | None:
    """The plan the sweep's check made for the job with these overrides (once), or None."""
    return _CHECKED.pop(tuple(overrides), None)


def fail(lines: Sequence[str]) -> NoReturn:
    for line in lines:
        print(line, file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


def checked_config(cfg: DictConfig, choices: dict[str, Any], overrides: list[str], base_dir: Path) -> RunConfig:
    """Compose-time config -> validated :class:`RunConfig` (else :class:`ConfigError`), not yet preflight-checked."""
    return validate_config(to_container(cfg), choices, overrides)


def checked_plan(cfg: DictConfig, choices: dict[str, Any], overrides: list[str], base_dir: Path) -> CellPlan:
    """Compose-time config -> validated, preflight-checked config -> the job's one plan (cell key, twin, and what
    the preflight read once: scenarios, pricing table, tracking store); else :class:`ConfigError`."""
    from evalkit.cell.plan import plan_checked  # the cell stage's imports: only once a job is checked

    config = checked_config(cfg, choices, overrides, base_dir)
    checked = preflight(config, base_dir, scenarios_source(overrides, choices))
    return plan_checked(config, checked.scenarios, checked.pricing, checked.target)


def job_problem(config_loader: Any, master: DictConfig, job: Sequence[str], base_dir: Path) -> tuple[str, ...] | None:
    """The job's problems, one line each (None: the job is valid)."""
    try:
        cfg = config_loader.load_sweep_config(master, list(job))
        _CHECKED[tuple(job)] = checked_plan(cfg, dict(cfg.hydra.runtime.choices), list(job), base_dir)
    except ConfigError as exc:
        return tuple(problem_lines(exc))
    except Exception as exc:  # Hydra composition errors (unknown option, bad override) of one job
        return (redact_text(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"),)
    return None


def check_jobs(config_loader: Any, master: DictConfig, jobs: Sequence[Sequence[str]], base_dir: Path) -> None:
    """Exit 2 with one line per problem of each bad job (or per problem once when every job fails the same way)
    unless all are valid."""
    todo = [list(job) for job in jobs if tuple(job) not in _PASSED]
    bad = {tuple(job): p for job in todo if (p := job_problem(config_loader, master, job, base_dir)) is not None}
    if not bad:
        _PASSED.update(tuple(job) for job in todo)
        return
    reasons = set(bad.values())
    if len(bad) == len(todo) > 1 and len(reasons) == 1:
        fail([f"sweep not started: all {len(jobs)} jobs: {line}" for line in reasons.pop()])
    fail(
        [
            f"sweep not started: job [{redact_text(' '.join(job)) or 'defaults'}]: {line}"
            for job, lines in bad.items()
            for line in lines
        ]
    )


def planned_jobs(config_loader: Any, config: DictConfig) -> list[list[str]] | None:
    """The jobs the evalkit sweeper will launch (grid params + command-line overrides, clean twins added); None for
    another sweeper, whose plan only it knows."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from evalkit.cli.sweeper import plan_jobs

    sweeper = config.hydra.sweeper
    if not str(sweeper.get("_target_", "")).endswith("PairedSweeper"):
        return None
    params = [f"{k}={v}" for k, v in (sweeper.get("params") or {}).items()]
    arguments = params + list(config.hydra.overrides.task)
    overrides = OverridesParser.create(config_loader=config_loader).parse_overrides(arguments)
    jobs = BasicSweeper.split_arguments(overrides, None)[0]
    conditions = OmegaConf.to_container(sweeper.get("conditions")) if sweeper.get("conditions") else None
    return plan_jobs(jobs, conditions, bool(config.get("twins", True)))  # type: ignore[arg-type]


def memoize_sweep_configs(loader: Any) -> None:
    """Compose each job of a sweep once. Hydra's sweeper composes every job to validate the batch, the preflight
    check composes it again and the launcher a third time to run it: ~0.35 s each on this machine, most of a
    cell's overhead beyond its conversations (issue 16 point 8). The loader is Hydra's one instance (GlobalHydra,
    also the sweeper's and launcher's ``hydra_context``), so wrapping its method here serves all three. Each
    caller gets its own copy: the launcher writes the job's id and number into the config it is given."""
    if getattr(loader, "_evalkit_memoized", False):
        return
    compose = loader.load_sweep_config
    composed: dict[tuple[int, tuple[str, ...]], DictConfig] = {}

    def load_sweep_config(master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        key = (id(master_config), tuple(sweep_overrides))
        if key not in composed:
            composed[key] = compose(master_config, list(sweep_overrides))
        job = copy.deepcopy(composed[key])
        # as Hydra's loader does at call time: the master's resolver cache as it is *now* (the sweep folder's
        # `evalkit.unique` is resolved on the master after the preflight composed the jobs, before the launch)
        OmegaConf.copy_cache(from_config=master_config, to_config=job)
        return job

    loader.load_sweep_config = load_sweep_config
    loader._evalkit_memoized = True


def composed_secret_problems(config: DictConfig) -> list[str]:
    """Secrets in a composed config (a YAML option with ``http://user:pw@host``, ``headers: {Authorization: ...}``),
    found before Hydra writes ``.hydra/config.yaml`` or ``multirun.yaml``: the command line is checked earlier
    (``evalkit.__main__``), but a YAML option's values only exist once composed."""
    from omegaconf import open_dict

    job = config.copy()
    with open_dict(job):
        job.pop("hydra", None)
    try:
        values = OmegaConf.to_container(job, resolve=True)
    except Exception:  # a ??? or a broken interpolation: reported by the full check, with its own line
        values = OmegaConf.to_container(job, resolve=False)
    return config_secret_problems(values)


class PreflightCallback(Callback):
    """Runs before ``TrackingCallback`` (callbacks start in the order of ``hydra.callbacks``)."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        # Hydra calls this after composing and before run_job writes .hydra/: the last moment to refuse a secret.
        if problems := composed_secret_problems(config):
            fail(problems[:1])

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from hydra.core.global_hydra import GlobalHydra

        if problems := composed_secret_problems(config):  # before the sweeper writes multirun.yaml
            fail([f"sweep not started: {problems[0]}"])

        loader = GlobalHydra.instance().config_loader()
        memoize_sweep_configs(loader)  # the sweeper, this check and the launcher each compose every job
        try:
            jobs = planned_jobs(loader, config)
        except Exception as exc:  # a malformed sweep override, as one line
            fail([f"sweep not started: {one_line(exc)}"])
        if jobs is not None:
            check_jobs(loader, config, jobs, Path.cwd())
