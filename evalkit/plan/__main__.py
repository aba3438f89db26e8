"""``python -m evalkit.plan <overrides> [-m]``: the cells, conversations, estimated wall time and estimated cost of
the run ``python -m evalkit <overrides> [-m]`` would start, before anything runs (nothing is started, no request
sent, no store created). See docs/cost.md.

examples:
    python -m evalkit.plan +perturb=noise_cafe -m
    python -m evalkit.plan agent=cascade_openai domain.limit=3 trials=1
    python -m evalkit.plan agent=cascade_openai pricing.file=my_prices.yaml -m

exit status: 0 the plan was printed; 2 bad input (an unknown option, a malformed override, a pricing table with a
negative price), one line on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from evalkit.cli.entry import EXIT_BAD_INPUT, input_error_line, is_input_error, one_line

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
MULTIRUN_FLAGS = ("-m", "--multirun")


def _configs(overrides: list[str], multirun: bool) -> list[tuple[list[str], Any]]:
    """(job overrides, validated RunConfig) of every cell the run would start, in launch order."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from evalkit.cli.preflight import planned_jobs, to_container
    from evalkit.config.schema import cell_key, twin_config, validate_config

    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        mode = RunMode.MULTIRUN if multirun else RunMode.RUN
        master = loader.load_configuration("config", overrides, run_mode=mode)
        if not multirun:
            config = validate_config(to_container(master), dict(master.hydra.runtime.choices), overrides)
            twin = twin_config(config)
            # a single run runs its clean twin first (evalkit.cli.run), as the sweeper does for a sweep
            pair = [twin] if config.twins and cell_key(twin) != cell_key(config) else []
            return [(overrides, c) for c in (*pair, config)]
        jobs = planned_jobs(loader, master) or [overrides]
        out = []
        for job in jobs:
            cfg = loader.load_sweep_config(master, list(job))
            out.append((list(job), validate_config(to_container(cfg), dict(cfg.hydra.runtime.choices), list(job))))
        return out


def _stored(config: Any) -> list[Any]:
    """Finished cells of the store the run would use; none when it does not exist (the plan creates nothing)."""
    from evalkit.config.preflight import store_problem
    from evalkit.tracking.store import resolve_target, sqlite_path

    m = config.mlflow
    target = resolve_target(m.tracking_uri, m.experiment, m.artifact_location, Path.cwd())
    path = sqlite_path(target.tracking_uri)
    if (path is not None and not path.exists()) or (path is None and store_problem(target.tracking_uri)):
        return []
    from evalkit.tracking.past import stored_cells

    return stored_cells(target.tracking_uri, target.experiment)


def plan(overrides: list[str], multirun: bool) -> list[str]:
    from evalkit.cell.plan import plan_cell
    from evalkit.plan import cell_estimate, summary_lines
    from evalkit.pricing import load_table

    configs = _configs(overrides, multirun)
    cells, seen = [], set()
    stored: list[Any] | None = None
    table = None
    for _, config in configs:
        table = table or load_table(config.pricing.file, config.pricing.overrides)
        cell = plan_cell(config)
        if cell.key in seen:  # two jobs of one cell (a twin shared by conditions): it runs once
            continue
        seen.add(cell.key)
        stored = _stored(config) if stored is None else stored
        n = len(cell.scenarios) * cell.trials
        cells.append(cell_estimate(cell.run_name, cell.key, config, n, table, stored))
    assert table is not None
    return summary_lines(cells, table)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    multirun = any(a in MULTIRUN_FLAGS for a in args)
    overrides = [a for a in args if a not in MULTIRUN_FLAGS]
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")
    from evalkit.config.schema import ConfigError
    from evalkit.pricing import PricingError
    from evalkit.scenarios.store import ScenarioError

    try:
        lines = plan(overrides, multirun)
    except (ConfigError, PricingError, ScenarioError, KeyError, ValueError) as exc:
        print(f"evalkit.plan: {one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:
        if not is_input_error(exc):
            raise
        print(f"evalkit.plan: {input_error_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
