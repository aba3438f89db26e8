"""A BasicSweeper that also schedules each perturbed cell's clean twin.

The command line can only name the perturbed condition (``+perturb=noise_cafe``); the analysis needs the same
cell without the perturbation. For every job with a perturb override this sweeper adds the job without it
(deduplicated, twins first), so launchers (local, SLURM, Ray) run twins like any other cell, and a twin that
already finished is reused by its cell key instead of re-run. Set ``twins=false`` to turn it off.
"""

from __future__ import annotations

from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.types import Override


def _is_perturb(override: str) -> bool:
    key = override.split("=", 1)[0].lstrip("+~")
    return key == "perturb" or key.startswith("perturb.")


def _twins_disabled(job: list[str]) -> bool:
    return any(o.replace(" ", "") in ("twins=false", "twins=False", "+twins=false") for o in job)


def add_clean_twins(jobs: list[list[str]]) -> list[list[str]]:
    """Twins first, then the requested jobs, each distinct job once."""
    twins = [
        [o for o in job if not _is_perturb(o)]
        for job in jobs
        if any(_is_perturb(o) for o in job) and not _twins_disabled(job)
    ]
    seen: set[tuple[str, ...]] = set()
    ordered: list[list[str]] = []
    for job in twins + jobs:
        key = tuple(job)
        if key not in seen:
            seen.add(key)
            ordered.append(job)
    return ordered


class PairedSweeper(BasicSweeper):
    def __init__(self, max_batch_size: int | None, params: dict[str, str] | None = None) -> None:
        super().__init__(max_batch_size=max_batch_size, params=params)
        self._twins = True

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        super().setup(hydra_context=hydra_context, task_function=task_function, config=config)
        self._twins = bool(config.get("twins", True))

    def split_arguments(self, overrides: list[Override], max_batch_size: int | None) -> list[list[list[str]]]:  # type: ignore[override]
        batches = BasicSweeper.split_arguments(overrides, None)
        jobs = add_clean_twins(batches[0]) if self._twins else batches[0]
        size = max_batch_size or len(jobs) or 1
        return [jobs[i : i + size] for i in range(0, len(jobs), size)]
