"""MLflow → cells → deltas → CSV, report, plots → an MLflow analysis run. Used by ``python -m evalkit.analyze``."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.analysis.cells import Selection, load_selection
from evalkit.analysis.compare import Analysis, Settings, compare
from evalkit.analysis.curves import CURVES_CSV, Curve, curve_lines, curves, write_curve_csv
from evalkit.analysis.html import for_mlflow
from evalkit.analysis.layout import by_family, is_key
from evalkit.analysis.power import plan, plan_lines
from evalkit.analysis.report import REPORT_MD, write_report
from evalkit.tracking import TrackingTarget
from evalkit.tracking.reading import log_analysis_run

log = logging.getLogger("evalkit")


@dataclass
class Outcome:
    analysis: Analysis
    selection: Selection
    files: dict[str, Path] = field(default_factory=dict)
    plots: list[Path] = field(default_factory=list)
    analysis_run_id: str | None = None
    curves: list[Curve] = field(default_factory=list)
    power_lines: list[str] = field(default_factory=list)
    read_s: float = 0.0
    stats_s: float = 0.0
    write_s: float = 0.0


def run_analysis(
    target: TrackingTarget,
    out_dir: Path,
    settings: Settings | None = None,
    sweep: str = "latest",
    plots: bool = True,
    log_run: bool = True,
    curve_fraction: float = 0.5,
    power_delta: float | None = None,
) -> Outcome:
    """The whole analysis; raises ``AnalysisError`` when there is nothing to read. Severity sweeps in the selection
    also get robustness curves; ``power_delta`` adds the power plan for detecting that δ."""
    settings = settings or Settings()
    started = time.perf_counter()
    selection = load_selection(target, sweep)
    read_s = time.perf_counter() - started

    started = time.perf_counter()
    analysis = compare(selection.cells, settings)
    analysis.gaps[:0] = selection.gaps
    found, curve_gaps = curves(selection.cells, analysis.metrics, curve_fraction, settings.n_bootstrap)
    analysis.gaps += curve_gaps
    extra = curve_lines(found, curve_fraction)
    power_lines: list[str] = []
    if power_delta is not None:
        noises, table = plan(analysis, power_delta, settings.alpha)
        power_lines = plan_lines(noises, table, power_delta)
        extra += power_lines
    stats_s = time.perf_counter() - started

    started = time.perf_counter()
    plot_paths: list[Path] = []
    if plots and (analysis.rows or analysis.pass_rows):
        from evalkit.analysis.plots import write_plots  # matplotlib is slow to import: only when plotting

        key = [m for _, ms in by_family(analysis.metrics) for m in ms if is_key(m)]
        plot_paths = write_plots(out_dir, analysis.rows, analysis.pass_rows, key)
    if plots and found:
        from evalkit.analysis.curves import write_curve_plots  # matplotlib: only when plotting

        out_dir.mkdir(parents=True, exist_ok=True)
        plot_paths += write_curve_plots(out_dir, found)
    files = write_report(
        out_dir, analysis, settings, selection.description, selection.input_runs, [p.name for p in plot_paths], extra
    )
    if found:
        files["curves_csv"] = write_curve_csv(out_dir / CURVES_CSV, found)
    report_text = files["report"].read_text()
    outcome = Outcome(analysis, selection, files, plot_paths, None, found, power_lines, read_s, stats_s, 0.0)
    if log_run:
        outcome.analysis_run_id = log_analysis_run(
            target,
            run_name=f"analysis {selection.sweep_id or 'all'}",
            out_dir=out_dir,
            input_runs=selection.input_runs,
            params=_params(settings, sweep),
            metrics=_summary_metrics(analysis),
            tags={"evalkit.sweep": selection.sweep_id or "all"},
            texts=lambda run_id: {REPORT_MD: for_mlflow(report_text, run_id)},
        )
    outcome.write_s = time.perf_counter() - started
    for warning in analysis.warnings:
        log.warning(warning)
    for gap in analysis.gaps:
        log.warning("gap: %s", gap)
    return outcome


def _params(settings: Settings, sweep: str) -> dict[str, str]:
    return {
        "sweep": sweep,
        "metrics": ",".join(settings.metrics) if settings.metrics else "all",
        "condition_axes": ",".join(settings.condition_axes),
        "alpha": str(settings.alpha),
        "permutations": str(settings.n_permutations),
        "bootstrap": str(settings.n_bootstrap),
        "holm_family": settings.holm_family,
        "pooled": str(settings.pooled),
    }


def _summary_metrics(analysis: Analysis) -> dict[str, float]:
    metrics = {
        "comparisons": float(len(analysis.rows)),
        "significant": float(sum(r.significant for r in analysis.rows)),
        "gaps": float(len(analysis.gaps)),
    }
    for r in analysis.rows:  # one metric per comparison, for the MLflow UI's charts
        if not math.isnan(r.delta):
            key = f"delta.{r.metric}.{r.model}.{r.domain}.{r.condition}"
            metrics["".join(ch if ch.isalnum() or ch in "._-/ " else "_" for ch in key)[:250]] = r.delta
    return metrics
