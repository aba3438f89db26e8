"""PNG plots: δ heatmap (agent × condition), forest plot with CIs and stars (the paper's Figure 3), pass@ bars."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display (CI, servers)
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm

from evalkit.analysis.compare import DeltaRow, PassRow

# For names no registered metric declares (a plug-in's column, an aggregate): words where a positive δ degrades.
LOWER_IS_BETTER = ("wer", "error", "latency", "unscored", "failed", "overhead", "_ms")
PASS_LABELS = ("pass@1", "pass@k", "pass^k")


def higher_is_better(metric: str) -> bool:
    """The metric's own direction (``Metric.lower_is_better``) when it is registered; a ``<metric>_pass`` column
    is a pass flag (higher is better); anything else by the words of its name."""
    from evalkit.metrics.registry import METRICS

    if metric in METRICS:
        return not METRICS[metric].lower_is_better
    if metric.endswith("_pass") and metric.removesuffix("_pass") in METRICS:
        return True
    return not any(word in metric.lower() for word in LOWER_IS_BETTER)


def _cmap(metric: str) -> str:
    # Red = degradation, green = improvement, as in the paper's Tables 34–36.
    return "RdYlGn" if higher_is_better(metric) else "RdYlGn_r"


def _row_label(row: DeltaRow | PassRow, many_domains: bool) -> str:
    return f"{row.model} · {row.domain}" if many_domains else row.model


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def heatmap(rows: Sequence[DeltaRow], metric: str, path: Path) -> Path:
    many = len({r.domain for r in rows}) > 1
    ys = sorted({_row_label(r, many) for r in rows})
    xs = sorted({r.condition for r in rows})
    grid = np.full((len(ys), len(xs)), np.nan)
    text = [["" for _ in xs] for _ in ys]
    for r in rows:
        i, j = ys.index(_row_label(r, many)), xs.index(r.condition)
        grid[i, j] = r.delta
        text[i][j] = f"{r.delta:+.3f}{r.stars}"
    span = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
    span = span or 1.0
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(xs), 1.2 + 0.55 * len(ys)), dpi=120)
    image = ax.imshow(grid, cmap=_cmap(metric), norm=TwoSlopeNorm(0.0, -span, span), aspect="auto")
    for i in range(len(ys)):
        for j in range(len(xs)):
            if text[i][j]:
                dark = abs(grid[i, j]) > 0.6 * span  # white on the saturated ends of the colour map
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=9, color="white" if dark else "black")
    ax.set_xticks(range(len(xs)), xs, rotation=20, ha="right")
    ax.set_yticks(range(len(ys)), ys)
    ax.set_title(f"δ {metric} (perturbed − clean); stars: Holm-adjusted p")
    fig.colorbar(image, ax=ax, label="δ")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def forest(rows: Sequence[DeltaRow], metric: str, path: Path) -> Path:
    """Mean δ with 95 % bootstrap whiskers, one colour per condition, grouped by model (Figure 3's content)."""
    many = len({r.domain for r in rows}) > 1
    conditions = sorted({r.condition for r in rows})
    colours = {c: plt.get_cmap("tab10")(i % 10) for i, c in enumerate(conditions)}
    groups = sorted({_row_label(r, many) for r in rows})
    ordered = sorted(rows, key=lambda r: (groups.index(_row_label(r, many)), conditions.index(r.condition)))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.38 * len(ordered) + 0.3 * len(groups)), dpi=120)
    y, ticks, labels = 0.0, [], []
    previous = None
    for r in ordered:
        label = _row_label(r, many)
        if previous is not None and label != previous:
            y += 0.6  # a gap between models
        previous = label
        low = r.delta - r.ci_low if not math.isnan(r.ci_low) else 0.0
        high = r.ci_high - r.delta if not math.isnan(r.ci_high) else 0.0
        ax.errorbar(r.delta, -y, xerr=[[low], [high]], fmt="o", color=colours[r.condition], capsize=3)
        if r.stars:
            ax.annotate(
                r.stars,
                (r.ci_high if not math.isnan(r.ci_high) else r.delta, -y),
                xytext=(4, -4),
                textcoords="offset points",
                fontsize=11,
                color=colours[r.condition],
            )
        ticks.append(-y)
        labels.append(f"{label} — {r.condition} (n={r.n_scenarios})")
        y += 1.0
    ax.axvline(0.0, color="0.4", linewidth=1, linestyle="--")
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_xlabel(f"δ {metric} (perturbed − clean) with 95% bootstrap CI")
    ax.set_title(f"Perturbation effect on {metric}\n* p<.05  ** p<.01  *** p<.001 (Holm–Bonferroni)", fontsize=10)
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=colours[c], label=c) for c in conditions]
    ax.legend(handles=handles, loc="best", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def pass_bars(rows: Sequence[PassRow], metric: str, path: Path) -> Path:
    many = len({r.domain for r in rows}) > 1
    labels = [f"{_row_label(r, many)}\n{r.condition}" for r in rows]
    values = np.array([[r.pass_at_1, r.pass_at_k, r.pass_hat_k] for r in rows], dtype=float)
    x = np.arange(len(rows))
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows) + 2), 4.2), dpi=120)
    for i, name in enumerate(PASS_LABELS):
        ax.bar(x + (i - 1) * width, np.nan_to_num(values[:, i]), width, label=name)
    ax.set_xticks(x, labels, fontsize=8, rotation=0 if len(rows) < 7 else 30, ha="center" if len(rows) < 7 else "right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric}: pass@1, pass@k, pass^k per cell")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_plots(out_dir: Path, rows: Sequence[DeltaRow], pass_rows: Sequence[PassRow]) -> list[Path]:
    """Every plot as a PNG in ``out_dir``; file names carry the metric."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for metric in sorted({r.metric for r in rows}):
        subset = [r for r in rows if r.metric == metric]
        paths.append(heatmap(subset, metric, out_dir / f"heatmap_{_safe(metric)}.png"))
        paths.append(forest(subset, metric, out_dir / f"forest_{_safe(metric)}.png"))
    for metric in sorted({r.metric for r in pass_rows}):
        subset_pass = [r for r in pass_rows if r.metric == metric]
        paths.append(pass_bars(subset_pass, metric, out_dir / f"pass_{_safe(metric)}.png"))
    return paths
