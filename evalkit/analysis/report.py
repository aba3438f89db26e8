"""Tidy CSV and a Markdown report in the paper's layout (one table per metric: model × condition × domain)."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path

from evalkit.analysis.compare import Analysis, DeltaRow, PassRow, Settings
from evalkit.analysis.html import to_html
from evalkit.analysis.layout import Headline, by_family, headline, latency_rows, lower_is_better

# Plot file names, defined here so the report can name them without importing matplotlib (plots.py imports these)
HEADLINE_FOREST = "forest_headline.png"
HEATMAP = "heatmap_all.png"


def family_file(family: str) -> str:
    return "forest_" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in family.lower()) + ".png"


DELTAS_CSV = "deltas.csv"
PASS_CSV = "pass_at_k.csv"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"


def write_csv(path: Path, rows: Sequence[DeltaRow] | Sequence[PassRow], row_type: type) -> Path:
    names = [f.name for f in fields(row_type)]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(v) for k, v in asdict(row).items()})
    return path


def _csv_value(value: object) -> object:
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)  # repr: full precision, so the CSV reproduces the numbers
    return value


def _num(value: float, digits: int = 3, signed: bool = False) -> str:
    if value is None or math.isnan(value):
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _p(value: float) -> str:
    if value is None or math.isnan(value):
        return "–"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


HOLM_TEXT = {
    "model_metric_domain": "the perturbation conditions of one model × metric × domain (the same clean baseline; "
    "holm_family=model_metric_domain, evalkit's default).",
    "model_metric": "every condition × domain of one model × metric (holm_family=model_metric, the family of "
    "EVA-Bench's per-domain output).",
}


def _pooled_text(settings: Settings) -> str:
    if not settings.pooled:
        return ""
    return (
        " Rows of domain **pooled** test the scenarios of every domain together (each domain's scenarios, its own "
        "twin), Holm across the conditions of each model × metric, as EVA-Bench's pooled analysis."
    )


def conventions(settings: Settings) -> str:
    return (
        "δ per scenario = mean over trials (perturbed) − mean over trials (clean twin); trials are paired by "
        "(scenario, trial) inside each cell and δ is averaged over the scenarios both cells have. "
        f"**p** is the paired sign-flip permutation p in the paper's two-sided convention: the share of sign-flip "
        f"permutations whose |mean δ| ≥ the observed |mean δ| (the test scipy.stats.permutation_test runs with a "
        f"|mean| statistic and alternative='greater', vectorised; not scipy's two-sided 2·min(one-sided p)). "
        f"The test is exact (all 2ⁿ "
        f"sign patterns) when 2ⁿ ≤ {settings.n_permutations:,}, otherwise {settings.n_permutations:,} random "
        "patterns with the observed one counted ((hits + 1)/(draws + 1)). **95% CI**: percentile bootstrap of mean δ "
        f"over scenarios ({settings.n_bootstrap:,} resamples). **p (Holm)**: Holm–Bonferroni within each family: "
        f"{HOLM_TEXT[settings.holm_family]}{_pooled_text(settings)} Significant: "
        f"p (Holm) < α = {settings.alpha}; * < .05, ** < .01, *** < .001. Random draws are seeded from a SHA-256 "
        "of the family label and condition, so a rerun reproduces every number."
    )


def delta_table(rows: Sequence[DeltaRow]) -> list[str]:
    lines = [
        "| Model | Condition | Domain | n | δ | 95% CI | p | p (Holm) | sig |",
        "|---|---|---|---:|---:|---|---:|---:|:--:|",
    ]
    for r in rows:
        ci = f"[{_num(r.ci_low, signed=True)}, {_num(r.ci_high, signed=True)}]"
        exact = "" if r.exact else "~"
        lines.append(
            f"| {r.model} | {r.condition} | {r.domain} | {r.n_scenarios} | {_num(r.delta, signed=True)}{r.stars} | "
            f"{ci} | {exact}{_p(r.p)} | {_p(r.p_holm)} | {'yes' if r.significant else 'no'} |"
        )
    return lines


def pass_lines(rows: Sequence[PassRow]) -> list[str]:
    lines = [
        "| Metric | Model | Domain | Condition | pass@1 | pass@k | pass^k |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.metric} | {r.model} | {r.domain} | {r.condition} | {_num(r.pass_at_1)} | {_num(r.pass_at_k)} | "
            f"{_num(r.pass_hat_k)} |"
        )
    return lines


TEXT_CONDITION = "text"  # the condition label of a modality=text cell against its voice twin (evalkit.config.axes)


def modality_gap_lines(rows: Sequence[DeltaRow]) -> list[str]:
    """MM-τ-p²'s modality gap: per metric, the voice cell's mean against its text twin's, as the ratio voice / text
    (MRS for pass metrics) and the difference voice − text with the paired CI and Holm p of the comparison."""
    gap = [r for r in rows if r.condition == TEXT_CONDITION]
    if not gap:
        return []
    lines = [
        "## Modality gap (voice against text, MM-τ-p²)",
        "",
        "The same cells with a perfect text channel (modality=text) against their voice twins: voice / text is the "
        "ratio of the means (MRS for pass/fail metrics; – when the text mean is 0), voice − text the paired "
        "difference with its 95 % CI; p (Holm) as in the tables above.",
        "",
        "| Metric | Model | Domain | n | voice | text | voice / text | voice − text | 95% CI | p (Holm) |",
        "|---|---|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in sorted(gap, key=lambda r: (r.metric, r.model, r.domain)):
        ratio = r.clean_mean / r.perturbed_mean if r.perturbed_mean else float("nan")
        # voice − text = −δ (δ = text − voice); + 0.0 turns −0.0 into 0.0
        ci = f"[{_num(-r.ci_high + 0.0, signed=True)}, {_num(-r.ci_low + 0.0, signed=True)}]"
        lines.append(
            f"| {r.metric} | {r.model} | {r.domain} | {r.n_scenarios} | {_num(r.clean_mean)} | "
            f"{_num(r.perturbed_mean)} | {_num(ratio)} | {_num(-r.delta + 0.0, signed=True)}{r.stars} | {ci} | "
            f"{_p(r.p_holm)} |"
        )
    return [*lines, ""]


EFFECT = {"better": "🟢 better", "worse": "🔴 worse", "no significant change": "⚪ no significant change"}


def _value(metric: str, value: float) -> str:
    return _num(value, 0 if metric.startswith("latency_") else 3)


def headline_lines(lines: Sequence[Headline]) -> list[str]:
    """One screen: per condition and key metric, clean, perturbed, δ, CI, Holm p and the verdict by direction."""
    out = [
        "| Condition | Model · domain | Metric | clean | perturbed | δ | 95% CI | p (Holm) | effect |",
        "|---|---|---|---:|---:|---:|---|---:|---|",
    ]
    for h in lines:
        ci = "–" if math.isnan(h.ci_low) else f"[{_num(h.ci_low, signed=True)}, {_num(h.ci_high, signed=True)}]"
        digits = 0 if h.metric.startswith("latency_") else 3
        out.append(
            f"| {h.condition} | {h.model} · {h.domain} | {h.metric} | {_value(h.metric, h.clean)} | "
            f"{_value(h.metric, h.perturbed)} | {h.arrow} {_num(h.delta, digits, signed=True)} | {ci} | "
            f"{_p(h.p_holm)} | {EFFECT.get(h.verdict, h.verdict)} |"
        )
    return out


def markdown(
    analysis: Analysis,
    settings: Settings,
    source: str,
    input_runs: Mapping[str, str],
    plots: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> str:
    """The report: the headline first, then the combined forest plot, then one section per metric family in the
    fixed order of ``layout.FAMILIES``, then pass@k, curves/power (``extra``), warnings, gaps and inputs."""
    out = ["# Robustness report", "", f"Source: {source}.", "", "## Headline", ""]
    lines = headline(analysis.rows, analysis.pass_rows, latency_rows(analysis.pair_aggregates))
    if lines:
        out += [
            "Key metrics per condition: the clean twin's value, the perturbed cell's, their difference (▲ up, ▼ down) "
            "and whether that is better or worse by the metric's own direction (significant after Holm; pass^k and "
            "latency p95 are cell aggregates without a paired test).",
            "",
            *headline_lines(lines),
            "",
        ]
    elif analysis.rows:
        out += ["No key metric (task completion, success_*, user WER, latency p95) was compared: see the sections.", ""]
    else:
        out += ["**No comparison could be made** — see *Gaps* below.", ""]
    if HEADLINE_FOREST in plots:
        out += [f"![{HEADLINE_FOREST}]({HEADLINE_FOREST})", ""]
    out += ["## How to read the numbers", "", conventions(settings), ""]
    for family, metrics in by_family([m for m in analysis.metrics if any(r.metric == m for r in analysis.rows)]):
        out += [f"## {family}", ""]
        for metric in metrics:
            arrow = "lower is better" if lower_is_better(metric) else "higher is better"
            rows = [r for r in analysis.rows if r.metric == metric]
            out += [f"### {metric} ({arrow})", "", *delta_table(rows), ""]
        if family_file(family) in plots:
            out += [f"![{family_file(family)}]({family_file(family)})", ""]
    if HEATMAP in plots:
        out += ["## Every metric at a glance", "", f"![{HEATMAP}]({HEATMAP})", ""]
    gap = modality_gap_lines(analysis.rows)
    if gap:
        out += gap
    if analysis.pass_rows:
        out += ["## pass@1 / pass@k / pass^k per cell", "", *pass_lines(analysis.pass_rows), ""]
        out += [f"![{n}]({n})" for n in plots if n.startswith("pass_")] + [""]
    out += list(extra)
    out += [f"![{n}]({n})" for n in plots if n.startswith("curve_")] + (
        [""] if any(n.startswith("curve_") for n in plots) else []
    )
    if analysis.warnings:
        out += ["## Warnings", "", *[f"- {w}" for w in analysis.warnings], ""]
    out += ["## Gaps", ""]
    out += [f"- {g}" for g in analysis.gaps] if analysis.gaps else ["None: every perturbed cell had its twin and data."]
    out += ["", "## Input runs", "", "| run id | role |", "|---|---|"]
    out += [f"| {run_id} | {role} |" for run_id, role in sorted(input_runs.items(), key=lambda kv: (kv[1], kv[0]))]
    return "\n".join(out) + "\n"


def write_report(
    out_dir: Path,
    analysis: Analysis,
    settings: Settings,
    source: str,
    input_runs: Mapping[str, str],
    plots: Sequence[str] = (),
    extra: Sequence[str] = (),
) -> dict[str, Path]:
    """deltas.csv, pass_at_k.csv, report.md and report.html (the same report, images embedded) in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "deltas_csv": write_csv(out_dir / DELTAS_CSV, analysis.rows, DeltaRow),
        "pass_csv": write_csv(out_dir / PASS_CSV, analysis.pass_rows, PassRow),
    }
    report = out_dir / REPORT_MD
    text = markdown(analysis, settings, source, input_runs, plots, extra)
    report.write_text(text)
    paths["report"] = report
    paths["html"] = out_dir / REPORT_HTML
    paths["html"].write_text(to_html(text, out_dir))
    return paths
