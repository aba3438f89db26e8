"""Clean-twin scheduling for the sweeper (the Hydra plugin class is ``hydra_plugins.evalkit_sweeper``).

The command line can only name the perturbed condition (``+perturb=noise_cafe``, ``voice=accent_french``); the
analysis needs the same cell without the perturbation. For every perturbed job this sweeper adds its clean twin
(deduplicated, twins first), so launchers (local, SLURM, Ray) run twins like any other cell, and a twin that
already finished is reused by its cell key instead of re-run. ``twins=false`` turns it off (the sweeper reads
it from the composed config).

The twin rule is the one of :func:`evalkit.config.schema.twin_config`, applied to override strings; both derive
from the perturbation axes declared in :mod:`evalkit.config.axes`:

- a removable group's overrides (``perturb`` / ``perturb.*``) are dropped (no perturb group = clean);
- ``voice=accent_*`` becomes ``voice=neutral`` and its ``voice.*`` overrides are dropped (they tune the accent);
- ``persona=X`` with X other than ``default`` becomes ``persona=default``, its ``persona.*`` overrides dropped.

Everything else (domain, agent, seed, trials, scenario subset, ...) is kept, so the twin differs from the job
only on the perturbation axes. Accents or personas selected inside an ``experiment`` file are invisible here;
the single-run path (``twin_config`` on the composed config) covers those.
"""

from __future__ import annotations

from evalkit.config import axes


def _split(override: str) -> tuple[str, str | None]:
    """(key without +/++/~ prefix, value or None)."""
    key, sep, value = override.partition("=")
    return key.lstrip("+~"), (value if sep else None)


def _group(override: str) -> str:
    return _split(override)[0].split(".", 1)[0]


def _removed_groups() -> set[str]:
    """Groups the twin has none of: every override of theirs, ``group.key=...`` included, is a perturbation."""
    return {a.group or a.name for a in axes.perturbation_axes() if a.removable}


def _swapped_axes(job: list[str]) -> dict[str, str]:
    """Option groups whose selected option is a perturbation: group -> the clean option the twin uses instead."""
    swapped: dict[str, str] = {}
    for key, value in map(_split, job):
        if value is not None:  # one override at a time: a repeated group is judged on each of its values
            swapped.update({g: o for g, o in axes.twin_choices({key: value}).items() if o is not None})
    return swapped


def is_perturbed(job: list[str]) -> bool:
    """A job whose twin differs from it (the sweeper schedules that twin)."""
    return twin_overrides(job) != job


def twin_overrides(job: list[str]) -> list[str]:
    """The clean twin of one job (the job itself when it is clean). Order of the kept overrides is preserved."""
    swapped = _swapped_axes(job)
    removed = _removed_groups()
    selected = {key: value for key, value in map(_split, job) if value is not None}
    twin: list[str] = []
    for override in job:
        key, _ = _split(override)
        axis = _group(override)
        if axis in removed:
            continue
        if axis in swapped:
            if key == axis:
                twin.append(f"{axis}={swapped[axis]}")
            elif _keeps(axis, selected.get(axis), key):
                twin.append(override)  # a remote accent's voice.base_url=...: its engine's, the twin's too
            continue  # otherwise voice.* / persona.* tune the replaced option: not part of the twin
        twin.append(override)
    return twin


def _keeps(group: str, option: str | None, key: str) -> bool:
    found = [a for a in axes.perturbation_axes() if (a.group or a.name) == group]
    return bool(found) and option is not None and found[0].keeps(option, key.split(".", 1)[1])


def add_clean_twins(jobs: list[list[str]]) -> list[list[str]]:
    """Twins first, then the requested jobs, each distinct job once (the order of a job's overrides does not make
    it another job: ``voice=neutral +protocol=subset`` and ``+protocol=subset voice=neutral`` are one twin)."""
    twins = [twin_overrides(job) for job in jobs if is_perturbed(job)]
    seen: set[tuple[str, ...]] = set()
    ordered: list[list[str]] = []
    for job in twins + jobs:
        key = tuple(sorted(job))
        if key not in seen:
            seen.add(key)
            ordered.append(job)
    return ordered


def with_condition(job: list[str], condition: list[str]) -> list[str]:
    """One grid job under one condition: the condition's overrides replace the job's overrides of the same key."""
    keys = {_split(override)[0] for override in condition}
    return [o for o in job if _split(o)[0] not in keys] + list(condition)


def with_conditions(jobs: list[list[str]], conditions: list[list[str]] | None) -> list[list[str]]:
    """Every grid job under every condition (``hydra.sweeper.conditions``); no conditions: the grid itself.

    Hydra's grid is a cross product, but a protocol such as EVA-Bench's (clean: all scenarios, k = 5; accent, noise,
    both: 30 scenarios, k = 3) is a union of bundles. Each bundle is a list of plain overrides, so the perturbation
    axes stay visible to the twin rule (a voice or perturb chosen inside a config file would not be)."""
    if not conditions:
        return jobs
    return [with_condition(job, list(condition)) for job in jobs for condition in conditions]


def plan_jobs(jobs: list[list[str]], conditions: list[list[str]] | None, twins: bool) -> list[list[str]]:
    """The sweeper's job list: grid × conditions, then (``twins``) the clean twins first. One rule for the sweeper
    plugin and the preflight callback, which must agree on what will run."""
    jobs = with_conditions(jobs, conditions)
    return add_clean_twins(jobs) if twins else jobs
