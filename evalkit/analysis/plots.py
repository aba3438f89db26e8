"""PNG plots: forest plots of δ with CIs (the paper's Figure 3: one combined for the headline, one per metric
family), one combined δ heatmap (metric × cell), pass@ bars. Every figure has a title and axis labels and is sized
to its content so nothing is cut off at its default size (tests/test_analysis_report.py checks both)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display (CI, servers)
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from evalkit.analysis.compare import DeltaRow, PassRow
from evalkit.analysis.layout import by_family, lower_is_better
from evalkit.analysis.report import HEADLINE_FOREST, HEATMAP, family_file

PASS_LABELS = ("pass@1", "pass@k", "pass^k")
DPI = 110
BETTER, WORSE, NEUTRAL = "#1a9850", "#d73027", "0.45"


def higher_is_better(metric: str) -> bool:
    """The metric's own direction (``Metric.lower_is_better``, evalkit.analysis.layout)."""
    return not lower_is_better(metric)


def _cmap(metric: str) -> str:
    # Red = degradation, green = improvement, as in the paper's Tables 34–36.
    return "RdYlGn" if higher_is_better(metric) else "RdYlGn_r"


def _row_label(row: DeltaRow | PassRow, many_domains: bool) -> str:
    return f"{row.model} · {row.domain}" if many_domains else row.model


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name.lower())


def _colour(row: DeltaRow) -> str:
    """Green when the change is significant and an improvement by the metric's direction, red when a degradation."""
    if not row.significant or row.delta == 0 or math.isnan(row.delta):
        return NEUTRAL
    return WORSE if (row.delta > 0) == lower_is_better(row.metric) else BETTER


def forest_figure(panels: Sequence[tuple[str, Sequence[DeltaRow]]], title: str) -> Figure:
    """One panel per metric (each on its own δ scale), one line per model · domain — condition, mean δ with its
    95 % bootstrap CI, coloured by verdict (green better, red worse, grey not significant after Holm)."""
    many = len({r.domain for _, rows in panels for r in rows}) > 1
    heights = [max(1, len(rows)) for _, rows in panels]
    fig = plt.figure(figsize=(10, 1.3 + sum(0.32 * h + 0.75 for h in heights)), dpi=DPI)
    grid = fig.add_gridspec(len(panels), 1, height_ratios=[h + 1.6 for h in heights])
    for index, (metric, rows) in enumerate(panels):
        ax = fig.add_subplot(grid[index])
        ordered = sorted(rows, key=lambda r: (_row_label(r, many), r.condition))
        for y, r in enumerate(ordered):
            low = r.delta - r.ci_low if not math.isnan(r.ci_low) else 0.0
            high = r.ci_high - r.delta if not math.isnan(r.ci_high) else 0.0
            ax.errorbar(r.delta, -y, xerr=[[low], [high]], fmt="o", color=_colour(r), capsize=3)
            if r.stars:
                x = r.ci_high if not math.isnan(r.ci_high) else r.delta
                ax.annotate(r.stars, (x, -y), xytext=(4, -4), textcoords="offset points", color=_colour(r))
        ax.axvline(0.0, color="0.4", linewidth=1, linestyle="--")
        labels = [f"{_row_label(r, many)} — {r.condition} (n={r.n_scenarios})" for r in ordered]
        ax.set_yticks([-y for y in range(len(ordered))], labels, fontsize=8)
        ax.set_ylim(-len(ordered) + 0.4, 0.6)
        arrow = "lower is better" if lower_is_better(metric) else "higher is better"
        ax.set_title(f"{metric} ({arrow})", fontsize=10, loc="left")
        ax.set_xlabel(f"δ {metric} (perturbed − clean), 95% CI", fontsize=8)
        ax.set_ylabel("condition", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(f"{title}\ngreen: better, red: worse, grey: not significant (Holm);  * p<.05 ** p<.01 *** p<.001")
    fig.tight_layout()
    return fig


def heatmap_figure(rows: Sequence[DeltaRow]) -> Figure:
    """Every metric × cell in one grid: colour = change scaled per metric (green better, red worse by the metric's
    direction, so WER and task completion read alike), text = δ with Holm stars."""
    many = len({r.domain for r in rows}) > 1
    metrics = [m for _, ms in by_family(sorted({r.metric for r in rows})) for m in ms]
    columns = sorted({f"{_row_label(r, many)}\n{r.condition}" for r in rows})
    grid = np.full((len(metrics), len(columns)), np.nan)
    text = [["" for _ in columns] for _ in metrics]
    for r in rows:
        i, j = metrics.index(r.metric), columns.index(f"{_row_label(r, many)}\n{r.condition}")
        grid[i, j] = -r.delta if lower_is_better(r.metric) else r.delta
        text[i][j] = f"{r.delta:+.3g}{r.stars}"
    span = np.nanmax(np.abs(grid), axis=1, keepdims=True) if np.isfinite(grid).any() else np.ones((len(metrics), 1))
    span = np.where(np.isfinite(span) & (span > 0), span, 1.0)
    fig, ax = plt.subplots(figsize=(3.5 + 1.25 * len(columns), 1.6 + 0.38 * len(metrics)), dpi=DPI)
    image = ax.imshow(grid / span, cmap="RdYlGn", vmin=-1, vmax=1, aspect="auto")
    for i in range(len(metrics)):
        for j in range(len(columns)):
            if text[i][j]:
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(columns)), columns, fontsize=8, rotation=30 if len(columns) > 4 else 0, ha="right")
    ax.set_yticks(range(len(metrics)), metrics, fontsize=8)
    ax.set_xlabel("cell (model · domain, condition)")
    ax.set_ylabel("metric")
    ax.set_title("δ (perturbed − clean) per metric; colour scaled per metric: green better, red worse")
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.set_ticks([-1, 0, 1], labels=["worse", "0", "better"])
    bar.set_label("δ / max |δ| of metric", fontsize=8)
    fig.tight_layout()
    return fig


def pass_figure(rows: Sequence[PassRow], metric: str) -> Figure:
    many = len({r.domain for r in rows}) > 1
    labels = [f"{_row_label(r, many)}\n{r.condition}" for r in rows]
    values = np.array([[r.pass_at_1, r.pass_at_k, r.pass_hat_k] for r in rows], dtype=float)
    x = np.arange(len(rows))
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows) + 2), 4.2), dpi=DPI)
    for i, name in enumerate(PASS_LABELS):
        ax.bar(x + (i - 1) * width, np.nan_to_num(values[:, i]), width, label=name)
    ax.set_xticks(x, labels, fontsize=8, rotation=0 if len(rows) < 7 else 30, ha="center" if len(rows) < 7 else "right")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("cell (model, condition)")
    ax.set_ylabel(f"{metric} pass rate")
    ax.set_title(f"{metric}: pass@1, pass@k, pass^k per cell")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def save(fig: Figure, path: Path) -> Path:
    fig.savefig(path)
    plt.close(fig)
    return path


def figures(rows: Sequence[DeltaRow], pass_rows: Sequence[PassRow], key: Sequence[str]) -> dict[str, Figure]:
    """file name -> figure: the headline forest (key metrics), one forest per metric family, the combined
    heatmap, pass bars per pass metric."""
    out: dict[str, Figure] = {}
    by_metric = {m: [r for r in rows if r.metric == m] for m in sorted({r.metric for r in rows})}
    headline = [(m, by_metric[m]) for m in key if m in by_metric]
    if headline:
        out[HEADLINE_FOREST] = forest_figure(headline, "Headline: key metrics, perturbed against clean")
    for family, metrics in by_family(list(by_metric)):
        out[family_file(family)] = forest_figure([(m, by_metric[m]) for m in metrics], family)
    if rows:
        out[HEATMAP] = heatmap_figure(rows)
    for metric in sorted({r.metric for r in pass_rows}):
        out[f"pass_{_safe(metric)}.png"] = pass_figure([r for r in pass_rows if r.metric == metric], metric)
    return out


def write_plots(
    out_dir: Path, rows: Sequence[DeltaRow], pass_rows: Sequence[PassRow], key: Sequence[str] = ()
) -> list[Path]:
    """Every plot as a PNG in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return [save(fig, out_dir / name) for name, fig in figures(rows, pass_rows, key).items()]
