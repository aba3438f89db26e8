"""Hydra launcher plug-ins evalkit documents, the extra that installs each, and a check that runs before Hydra:
`hydra/launcher=joblib` without the plug-in installed would otherwise end in Hydra's long "Could not find"
listing, and a SLURM sweep without a partition or off a cluster in a traceback from inside the launcher, instead
of the one line that says what to do."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Sequence

SLURM_LAUNCHERS = ("submitit_slurm", "evalkit_slurm")
REQUIRED_FIELDS = {"evalkit_slurm": ("partition",)}  # preset fields without a usable default
# launcher option -> (plug-in module, pyproject extra)
LAUNCHERS: dict[str, tuple[str, str]] = {
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "joblib"),
    "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
    "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
    "evalkit_slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
    "ray": ("hydra_plugins.hydra_ray_launcher", "ray"),
}


def requested_launcher(argv: Sequence[str]) -> str | None:
    """The ``hydra/launcher=NAME`` option of a command line, if any."""
    for arg in argv:
        key, sep, value = arg.partition("=")
        if sep and key.lstrip("+~") == "hydra/launcher":
            return value
    return None


def launcher_problem(argv: Sequence[str]) -> str | None:
    """One line saying what stops the requested launcher before anything starts, else None: its extra is not
    installed, a preset's required field is not set, or a SLURM launcher runs where there is no ``srun``."""
    name = requested_launcher(argv)
    if name is None or name not in LAUNCHERS:
        return None  # basic, or an option Hydra itself will judge
    module, extra = LAUNCHERS[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        return f'hydra/launcher={name} needs the "{extra}" extra: pip install -e ".[{extra}]"'
    given = {arg.partition("=")[0].lstrip("+~") for arg in argv}
    missing = [f for f in REQUIRED_FIELDS.get(name, ()) if f"hydra.launcher.{f}" not in given]
    if missing:
        fields = " ".join(f"hydra.launcher.{f}=..." for f in missing)
        return f"hydra/launcher={name}: set {fields} (see conf/hydra/launcher/{name}.yaml)"
    if name in SLURM_LAUNCHERS and shutil.which("srun") is None:
        return (
            f"hydra/launcher={name}: no `srun` on PATH — run it on a SLURM login node "
            "(hydra/launcher=submitit_local runs the same jobs on this machine)"
        )
    return None
