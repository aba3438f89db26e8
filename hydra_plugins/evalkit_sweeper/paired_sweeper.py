"""Hydra sweeper plugin ``hydra/sweeper=evalkit``: Hydra's BasicSweeper plus clean twins.

Hydra only instantiates sweepers found in the ``hydra_plugins`` namespace, so the class lives here; the
scheduling rule itself is ``evalkit.cli.sweeper.add_clean_twins``.
"""

# No `from __future__ import annotations` here: Hydra's plugin scanner executes this module outside
# sys.modules, where dataclasses cannot resolve string annotations.
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional  # OmegaConf structured configs want typing.Optional

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.types import Override

from evalkit.cli.callbacks import close_sweep, count_job, hand_total_to_parent
from evalkit.cli.preflight import check_jobs
from evalkit.cli.sweeper import plan_jobs


@dataclass
class PairedSweeperConf:
    _target_: str = "hydra_plugins.evalkit_sweeper.paired_sweeper.PairedSweeper"
    max_batch_size: Optional[int] = None  # noqa: UP045
    params: Optional[dict[str, str]] = None  # noqa: UP045
    # A union of override bundles crossed with the grid (evalkit.cli.sweeper.with_conditions), e.g. EVA-Bench's
    # clean-full + perturbed-subset protocol in conf/experiment/eva_robustness.yaml.
    conditions: Optional[list[list[str]]] = None  # noqa: UP045


ConfigStore.instance().store(group="hydra/sweeper", name="evalkit", node=PairedSweeperConf, provider="evalkit")


class PairedSweeper(BasicSweeper):
    _conditions: Optional[list[list[str]]] = None  # noqa: UP045  (class default: sweepers built without __init__)

    def __init__(
        self,
        max_batch_size: int | None,
        params: dict[str, str] | None = None,
        conditions: list[list[str]] | None = None,
    ) -> None:
        super().__init__(max_batch_size=max_batch_size, params=params)
        self._twins = True
        self._conditions = [list(c) for c in conditions] if conditions else None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        super().setup(hydra_context=hydra_context, task_function=task_function, config=config)
        self._twins = bool(config.get("twins", True))
        self.launcher = CountingLauncher(self.launcher)  # type: ignore[assignment]

    def sweep(self, arguments: list[str]) -> Any:
        """BasicSweeper's sweep; when it raises anyway (the launcher itself failed, Ctrl-C) the parent run is
        closed FAILED here, since Hydra then skips the end callback that closes it."""
        try:
            return super().sweep(arguments)
        except BaseException as exc:
            if self.config is not None:
                with contextlib.suppress(Exception):
                    close_sweep(self.config, f"the sweep stopped: {type(exc).__name__}: {exc}"[:1000])
            raise

    def split_arguments(self, overrides: list[Override], max_batch_size: int | None) -> list[list[list[str]]]:  # type: ignore[override]
        jobs = plan_jobs(BasicSweeper.split_arguments(overrides, None)[0], self._conditions, self._twins)
        # Every job is composed and checked before the first starts: one bad value stops the sweep, not a cell.
        # (Without a Hydra context — the job list computed on its own — there is nothing to compose with.)
        context = getattr(self, "hydra_context", None)
        if context is not None:
            check_jobs(context.config_loader, self.config, jobs, Path.cwd())
            hand_total_to_parent(self.config, len(jobs))  # the progress line's "n / total" (evalkit.tracking.progress)
        size = max_batch_size or len(jobs) or 1
        return [jobs[i : i + size] for i in range(0, len(jobs), size)]


class CountingLauncher:
    """The sweep's launcher (any: basic, joblib, submitit, Ray), each job's return counted as it comes back
    (evalkit.cli.callbacks.count_job): a job that raised no longer stops the sweep nor leaves its parent RUNNING."""

    def __init__(self, launcher: Any) -> None:
        self._launcher = launcher

    def __getattr__(self, name: str) -> Any:
        if name == "_launcher":  # not set yet (a copy being built): no recursion through this method
            raise AttributeError(name)
        return getattr(self._launcher, name)

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Any:
        return [count_job(job) for job in self._launcher.launch(job_overrides, initial_job_idx=initial_job_idx)]
