"""Robustness curves (issue 31 point 4): a metric against a severity axis, with the severity where it breaks.

A severity sweep is cells of one model × domain × condition family (the same perturbation preset) that differ only
in one numeric knob (``snr_db``, or any ``cfg.perturb.<knob>`` param such as ``loss_rate``), plus their shared
clean twin. Per severity the curve is the mean over scenarios of the per-scenario value (mean over trials; for a
``<metric>_pass`` flag column, pass^k = (passes / k)^k as ``evalkit.metrics.aggregate``), with a 95 % percentile
bootstrap CI resampling scenarios. The breaking point is the severity at which the curve first falls to
``fraction`` × its clean value (half by default), linearly interpolated between the two severities around the
crossing; its CI re-finds the crossing in every bootstrap resample (the same scenarios at every severity, so the
resample keeps the pairing). A curve that never falls that far is "not reached"; a resample that does not reach it
counts as beyond the most severe point, so an upper bound past the sweep is reported as "not reached".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from evalkit.analysis.cells import CellData
from evalkit.analysis.stats import seed_for

if TYPE_CHECKING:
    from matplotlib.figure import Figure  # matplotlib is imported only when plotting (slow)

# Knobs where a smaller number is more severe (the rest: larger is more severe, e.g. loss_rate, burst rate).
LESS_IS_SEVERE = ("snr_db", "snr", "bitrate", "bandwidth", "cutoff", "high_hz")
PERTURB_PARAM = "cfg.perturb."
NOT_REACHED = "not reached"


@dataclass
class Curve:
    model: str
    domain: str
    family: str  # the preset (condition family), e.g. noise_cafe
    axis: str  # the severity knob, e.g. snr_db
    metric: str
    severities: list[float]  # least to most severe
    means: list[float]
    ci_low: list[float]
    ci_high: list[float]
    clean: float = float("nan")
    n_scenarios: int = 0
    breaking: float = float("nan")  # NaN: not reached
    # 95 % CI as (milder end, more severe end); the severe end is inf when > 2.5 % of resamples never reach it
    breaking_mild: float = float("nan")
    breaking_severe: float = float("nan")
    notes: list[str] = field(default_factory=list)


def _severity_params(cell: CellData) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in cell.params.items():
        name = key.removeprefix(PERTURB_PARAM) if key.startswith(PERTURB_PARAM) else key if key == "snr_db" else None
        if name is None or name in ("name", "chain") or "." in name:
            continue
        try:
            out[name] = float(value)
        except (TypeError, ValueError):
            continue
    return out


def sweeps(cells: Sequence[CellData]) -> list[tuple[tuple[str, str, str, str], list[tuple[float, CellData]], CellData]]:
    """((model, domain, family, axis), [(severity, cell)] least to most severe, clean twin) for every family with at
    least two severities of one knob; a knob with one value is not a curve."""
    by_key = {c.cell_key: c for c in cells}
    groups: dict[tuple[str, str, str, str], dict[float, CellData]] = {}
    twins: dict[tuple[str, str, str, str], CellData] = {}
    perturbed = [c for c in cells if not c.is_clean and c.twin_key in by_key]
    for cell in perturbed:
        family = cell.params.get("perturb", "?")
        knobs = _severity_params(cell)
        siblings = [c for c in perturbed if c.params.get("perturb") == family and c.twin_key == cell.twin_key]
        for axis, value in knobs.items():
            values = {_severity_params(c).get(axis) for c in siblings}
            others = {tuple(sorted((k, v) for k, v in _severity_params(c).items() if k != axis)) for c in siblings}
            if len(values) < 2 or len(others) != 1:  # one value, or another knob varies too: not this axis
                continue
            key = (cell.params.get("agent", "?"), cell.params.get("domain", "?"), family, axis)
            groups.setdefault(key, {})[value] = cell
            twins[key] = by_key[cell.twin_key or ""]
    out = []
    for key, points in sorted(groups.items()):
        reverse = key[3] in LESS_IS_SEVERE
        ordered = sorted(points.items(), key=lambda kv: kv[0], reverse=reverse)
        out.append((key, ordered, twins[key]))
    return out


def scenario_values(cell: CellData, metric: str) -> dict[str, float]:
    """Per scenario: mean over trials, or pass^k = (passes/k)^k for a ``<metric>_pass`` flag column."""
    groups: dict[str, list[float]] = {}
    for scenario, value in zip(cell.scenarios, cell.scores.get(metric, []), strict=False):
        if not math.isnan(value):
            groups.setdefault(scenario, []).append(value)
    if metric.endswith("_pass"):
        return {s: float(np.mean(v)) ** len(v) for s, v in groups.items()}
    return {s: float(np.mean(v)) for s, v in groups.items()}


def crossing(severities: Sequence[float], values: Sequence[float], target: float, clean: float) -> float:
    """The first severity where ``values`` fall to ``target`` or below, interpolated from the point before (the clean
    value before the first severity is not a point on the axis: a first point already below is that severity)."""
    previous_s, previous_v = None, clean
    for s, v in zip(severities, values, strict=True):
        if v <= target:
            if previous_s is None or previous_v == v:
                return float(s)
            return float(previous_s + (s - previous_s) * (previous_v - target) / (previous_v - v))
        previous_s, previous_v = s, v
    return float("nan")


def breaking_point(
    matrix: np.ndarray, clean: np.ndarray, severities: Sequence[float], fraction: float, n_boot: int, seed: int
) -> tuple[float, float, float, list[float], list[float]]:
    """(estimate, CI milder end, CI more severe end, per-severity CI low, high) from a scenarios × severities matrix
    and the clean value per scenario. NaN estimate: not reached; severe end inf: more than 2.5 % of the resamples
    never reach it."""
    means = matrix.mean(axis=0)
    estimate = crossing(severities, means, fraction * clean.mean(), clean.mean())
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, matrix.shape[0], size=(n_boot, matrix.shape[0]))
    boot_means = matrix[picks].mean(axis=1)  # n_boot × severities
    boot_clean = clean[picks].mean(axis=1)
    found = np.array(
        [crossing(severities, m, fraction * c, c) for m, c in zip(boot_means, boot_clean, strict=True)], dtype=float
    )
    # Oriented so that larger = more severe (SNR: its negative); not reached = beyond the most severe point (+inf).
    sign = 1.0 if severities[-1] >= severities[0] else -1.0
    beyond = float(np.max(np.abs(severities))) * 10 + 1e6  # a finite stand-in for inf: no inf − inf in percentile
    oriented = np.where(np.isnan(found), beyond, sign * found)
    mild, severe = (np.inf if v >= beyond else v for v in np.percentile(oriented, [2.5, 97.5]))
    ci_low, ci_high = np.percentile(boot_means, [2.5, 97.5], axis=0)
    return (
        estimate,
        float(sign * mild) if np.isfinite(mild) else math.inf,
        float(sign * severe) if np.isfinite(severe) else math.inf,
        list(map(float, ci_low)),
        list(map(float, ci_high)),
    )


def curves(
    cells: Sequence[CellData], metrics: Sequence[str], fraction: float = 0.5, n_boot: int = 1000
) -> tuple[list[Curve], list[str]]:
    """Every severity sweep's curve per metric (breaking point for higher-is-better metrics) and the gaps."""
    from evalkit.analysis.layout import lower_is_better

    out: list[Curve] = []
    gaps: list[str] = []
    for (model, domain, family, axis), points, twin in sweeps(cells):
        for metric in metrics:
            per = [scenario_values(c, metric) for _, c in points]
            clean_values = scenario_values(twin, metric)
            common = sorted(set(clean_values).intersection(*map(set, per)))
            if not common:
                continue
            if len(common) < len(clean_values):
                gaps.append(f"curve {model}|{domain}|{family}|{metric}: {len(common)} scenarios at every severity")
            matrix = np.array([[p[s] for p in per] for s in common])
            clean = np.array([clean_values[s] for s in common])
            severities = [s for s, _ in points]
            label = f"{model}|{domain}|{family}|{axis}|{metric}"
            b, lo, hi, ci_lo, ci_hi = breaking_point(matrix, clean, severities, fraction, n_boot, seed_for(label))
            curve = Curve(model, domain, family, axis, metric, severities, list(map(float, matrix.mean(axis=0))),
                          ci_lo, ci_hi, float(clean.mean()), len(common), b, lo, hi)  # fmt: skip
            if lower_is_better(metric) or curve.clean <= 0:
                curve.breaking = curve.breaking_mild = curve.breaking_severe = float("nan")
                curve.notes.append("no breaking point: lower is better" if curve.clean > 0 else "clean value is 0")
            out.append(curve)
    return out, gaps


def _severity(value: float) -> str:
    if math.isnan(value):
        return NOT_REACHED
    if math.isinf(value):
        return NOT_REACHED
    return f"{value + 0.0:.3g}"  # + 0.0: no "-0" for a crossing at 0 dB


def curve_lines(found: Sequence[Curve], fraction: float) -> list[str]:
    """The report section: one table row per curve with its breaking point and CI, and the per-severity means."""
    if not found:
        return []
    lines = [
        "## Robustness curves",
        "",
        f"Each metric against the severity knob of a sweep; breaking point = the severity where the mean falls to "
        f"{fraction:g} × its clean value (linear interpolation between severities; 95 % CI from a bootstrap over "
        "scenarios; *not reached* when the curve stays above it within the sweep). Lower-is-better metrics have no "
        "breaking point. The plot is `curve_<family>_<axis>.png`.",
        "",
        "| Model · domain | Family | Axis | Metric | n | clean | per severity: mean [95% CI] | breaking point | "
        "95% CI (milder, more severe) |",
        "|---|---|---|---|---:|---:|---|---:|---|",
    ]
    for c in found:
        points = "; ".join(
            f"{s:g}: {m:.3f} [{lo:.3f}, {hi:.3f}]"
            for s, m, lo, hi in zip(c.severities, c.means, c.ci_low, c.ci_high, strict=True)
        )
        if c.notes:
            breaking, ci = "–", c.notes[0]
        else:
            breaking, ci = _severity(c.breaking), f"[{_severity(c.breaking_mild)}, {_severity(c.breaking_severe)}]"
        metric = f"{c.metric.removesuffix('_pass')} pass^k" if c.metric.endswith("_pass") else c.metric
        lines.append(
            f"| {c.model} · {c.domain} | {c.family} | {c.axis} | {metric} | {c.n_scenarios} | {c.clean:.3f} | "
            f"{points} | {breaking} | {ci} |"
        )
    return [*lines, ""]


def curve_figure(found: Sequence[Curve]) -> Figure:
    """One panel per metric: mean with its 95 % CI band per severity, the clean value dashed, the breaking point."""
    import matplotlib.pyplot as plt

    metrics = sorted({c.metric for c in found})
    fig, axes = plt.subplots(len(metrics), 1, figsize=(8, 0.8 + 2.6 * len(metrics)), dpi=110, squeeze=False)
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        for c in [c for c in found if c.metric == metric]:
            label = f"{c.model} · {c.domain}"
            line = ax.plot(c.severities, c.means, marker="o", label=label)[0]
            ax.fill_between(c.severities, c.ci_low, c.ci_high, alpha=0.2, color=line.get_color())
            ax.axhline(c.clean, color=line.get_color(), linestyle="--", linewidth=1)
            if not math.isnan(c.breaking):
                ax.axvline(c.breaking, color=line.get_color(), linestyle=":", linewidth=1)
        first = found[0]
        if first.severities[0] > first.severities[-1]:
            ax.invert_xaxis()  # severity grows to the right (SNR 30 → 0 dB)
        title = f"{metric} against {first.axis} ({first.family}); dashed: clean, dotted: breaking point"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(first.axis)
        ax.set_ylabel(metric)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def write_curve_plots(out_dir: Path, found: Sequence[Curve]) -> list[Path]:
    """``curve_<family>_<axis>.png`` per sweep family and axis."""
    import matplotlib.pyplot as plt

    paths = []
    for family, axis in sorted({(c.family, c.axis) for c in found}):
        fig = curve_figure([c for c in found if (c.family, c.axis) == (family, axis)])
        path = out_dir / f"curve_{family}_{axis}.png"
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths


CURVES_CSV = "curves.csv"


def write_curve_csv(path: Path, found: Sequence[Curve]) -> Path:
    """One row per curve × severity (tidy), with the curve's clean value and breaking point on every row."""
    import csv

    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "domain", "family", "axis", "metric", "severity", "mean", "ci_low", "ci_high",
                         "clean", "n_scenarios", "breaking", "breaking_mild", "breaking_severe"])  # fmt: skip
        for c in found:
            for s, m, lo, hi in zip(c.severities, c.means, c.ci_low, c.ci_high, strict=True):
                writer.writerow([c.model, c.domain, c.family, c.axis, c.metric, s, m, lo, hi, c.clean, c.n_scenarios,
                                 c.breaking, c.breaking_mild, c.breaking_severe])  # fmt: skip
    return path
