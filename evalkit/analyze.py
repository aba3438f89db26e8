"""`python -m evalkit.analyze [overrides]` — robustness deltas of a sweep; see conf/analyze.yaml.

An entry point: the only kind of module that imports hydra (docs/architecture.md, dependency rules).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger("evalkit")


def settings_from(cfg: DictConfig) -> object:
    from evalkit.analysis.compare import Settings
    from evalkit.cli.entry import config_number
    from evalkit.config.axes import condition_axes

    metrics = OmegaConf.to_container(cfg.metrics) if cfg.metrics is not None else None
    if isinstance(metrics, str):
        metrics = [metrics]
    # condition_axes: null = the params of the perturbation axes declared in evalkit.config.axes.
    axes = tuple(cfg.condition_axes) if cfg.get("condition_axes") is not None else condition_axes()
    return Settings(
        metrics=metrics,  # type: ignore[arg-type]
        condition_axes=axes,
        alpha=config_number(cfg, "alpha", float),
        n_permutations=config_number(cfg, "permutations", int),
        n_bootstrap=config_number(cfg, "bootstrap", int),
        holm_family=str(cfg.get("holm_family", "model_metric_domain")),
        pooled=bool(cfg.get("pooled", True)),
    )


def curve_and_power(cfg: DictConfig) -> tuple[float, float | None]:
    """(curve.fraction, power.delta or None); a value that is not a number in range raises ValueError (one line)."""
    fraction = cfg.get("curve", {}).get("fraction", 0.5)
    delta = cfg.get("power", {}).get("delta")
    if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0.0 < fraction < 1.0:
        raise ValueError(f"curve.fraction must be a number strictly between 0 and 1, got {fraction!r}")
    if delta is not None and (isinstance(delta, bool) or not isinstance(delta, int | float) or not delta > 0):
        raise ValueError(f"power.delta must be a positive number (the δ to detect, e.g. 0.1), got {delta!r}")
    return float(fraction), None if delta is None else float(delta)


@hydra.main(version_base="1.3", config_path="../conf", config_name="analyze")
def main(cfg: DictConfig) -> int:
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # one bar per cell table is noise
    from evalkit.analysis.cells import AnalysisError
    from evalkit.analysis.pipeline import run_analysis
    from evalkit.tracking import resolve_target

    target = resolve_target(cfg.mlflow.tracking_uri, cfg.mlflow.experiment, None, Path.cwd())
    out_dir = Path(cfg.output_dir) if cfg.output_dir else Path(HydraConfig.get().runtime.output_dir)
    try:
        settings = settings_from(cfg)
        fraction, delta = curve_and_power(cfg)
    except ValueError as exc:
        print(f"evalkit.analyze: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        outcome = run_analysis(
            target,
            out_dir,
            settings,  # type: ignore[arg-type]
            str(cfg.sweep),
            bool(cfg.plots),
            bool(cfg.log_to_mlflow),  # type: ignore[arg-type]
            fraction,
            delta,
        )
    except AnalysisError as exc:
        print(f"evalkit.analyze: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    a = outcome.analysis
    print(
        f"{len(a.rows)} comparisons ({sum(r.significant for r in a.rows)} significant), {len(a.gaps)} gaps, "
        f"{len(a.warnings)} warnings; read {outcome.read_s:.2f} s, statistics {outcome.stats_s:.2f} s, "
        f"outputs {outcome.write_s:.2f} s"
    )
    print(f"report: {outcome.files['report']} (and {outcome.files['html'].name})")
    if outcome.curves:
        print(f"robustness curves: {len(outcome.curves)} in {outcome.files['curves_csv']}")
    for line in outcome.power_lines:
        print(line)
    if outcome.analysis_run_id:
        print(f"MLflow analysis run: {outcome.analysis_run_id} ({target.tracking_uri}, experiment {target.experiment})")
    if not a.rows:
        print("nothing could be compared: see the report's Gaps section", file=sys.stderr)
        raise SystemExit(1)
    return 0


if __name__ == "__main__":
    from evalkit.cli.entry import run_entry_point

    run_entry_point(main, "evalkit.analyze")
