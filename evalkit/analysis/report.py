"""Tidy CSV and a Markdown report in the paper's layout (one table per metric: model × condition × domain)."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path

from evalkit.analysis.compare import Analysis, DeltaRow, PassRow, Settings

DELTAS_CSV = "deltas.csv"
PASS_CSV = "pass_at_k.csv"
REPORT_MD = "report.md"


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


def markdown(
    analysis: Analysis,
    settings: Settings,
    source: str,
    input_runs: Mapping[str, str],
    plots: Sequence[str] = (),
) -> str:
    out = ["# Robustness deltas", "", f"Source: {source}.", "", conventions(settings), ""]
    if not analysis.rows:
        out += ["**No comparison could be made** — see *Gaps* below.", ""]
    for metric in analysis.metrics:
        rows = [r for r in analysis.rows if r.metric == metric]
        if not rows:
            continue
        out += [f"## {metric}", "", *delta_table(rows), ""]
        for name in plots:
            if name.endswith(f"_{metric}.png") and not name.startswith("pass_"):
                out.append(f"![{name}]({name})")
        out.append("")
    gap = modality_gap_lines(analysis.rows)
    if gap:
        out += gap
    if analysis.pass_rows:
        out += ["## pass@1 / pass@k / pass^k per cell", "", *pass_lines(analysis.pass_rows), ""]
        out += [f"![{n}]({n})" for n in plots if n.startswith("pass_")] + [""]
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
) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "deltas_csv": write_csv(out_dir / DELTAS_CSV, analysis.rows, DeltaRow),
        "pass_csv": write_csv(out_dir / PASS_CSV, analysis.pass_rows, PassRow),
    }
    report = out_dir / REPORT_MD
    report.write_text(markdown(analysis, settings, source, input_runs, plots))
    paths["report"] = report
    return paths
