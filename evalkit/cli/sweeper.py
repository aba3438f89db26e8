"""Clean-twin scheduling for the sweeper (the Hydra plugin class is ``hydra_plugins.evalkit_sweeper``).

The command line can only name the perturbed condition (``+perturb=noise_cafe``); the analysis needs the same
cell without the perturbation. For every job with a perturb override this sweeper adds the job without it
(deduplicated, twins first), so launchers (local, SLURM, Ray) run twins like any other cell, and a twin that
already finished is reused by its cell key instead of re-run. ``twins=false`` turns it off (the sweeper reads
it from the composed config).
"""

from __future__ import annotations


def _is_perturb(override: str) -> bool:
    key = override.split("=", 1)[0].lstrip("+~")
    return key == "perturb" or key.startswith("perturb.")


def add_clean_twins(jobs: list[list[str]]) -> list[list[str]]:
    """Twins first, then the requested jobs, each distinct job once."""
    twins = [[o for o in job if not _is_perturb(o)] for job in jobs if any(_is_perturb(o) for o in job)]
    seen: set[tuple[str, ...]] = set()
    ordered: list[list[str]] = []
    for job in twins + jobs:
        key = tuple(job)
        if key not in seen:
            seen.add(key)
            ordered.append(job)
    return ordered
