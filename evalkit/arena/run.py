"""The arena: MLflow cells of two or more agents -> pairs of their calls -> judge verdicts (and rubric scores) ->
Elo, Bradley–Terry, win rates, judge bias and agreement -> CSV + Markdown + plot -> an MLflow run. Used by
``python -m evalkit.arena``.
"""

from __future__ import annotations

import csv
import logging
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from evalkit.analysis.cells import load_selection
from evalkit.arena import stats
from evalkit.arena.judging import Rubric, RubricScore, Verdict, judge_pair, judge_rubric, prompt
from evalkit.arena.pairs import ArenaError, load_calls, pairings, select_cells
from evalkit.judges.judge import Judge
from evalkit.tracking import TrackingTarget
from evalkit.tracking.reading import log_analysis_run

log = logging.getLogger("evalkit")

ARENA_KIND_TAG = "evalkit.arena"


@dataclass(frozen=True)
class ArenaSettings:
    agents: tuple[str, ...] | None = None  # None: every agent found
    condition: str | None = "clean"  # the ``perturb`` param of the cells compared; None: every condition
    seed: int = 0  # A/B order and Elo order
    n_bootstrap: int = stats.N_BOOTSTRAP
    n_permutations: int = stats.N_PERMUTATIONS
    elo_k: float = stats.ELO_K
    baseline: str | None = None  # IHBench's TF win rate against this agent (pinned); None: not computed

    def __post_init__(self) -> None:
        for name, count in (("bootstrap", self.n_bootstrap), ("permutations", self.n_permutations)):
            if count < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {count}")
        if not self.elo_k > 0:  # K <= 0 leaves every rating at its start (or runs it backwards)
            raise ValueError(f"elo_k must be a positive number, got {self.elo_k}")


@dataclass
class Rating:
    model: str
    elo: float
    bradley_terry: float
    bt_ci_low: float
    bt_ci_high: float
    win_rate: float
    comparisons: int


@dataclass
class ArenaOutcome:
    verdicts: list[Verdict]
    ratings: list[Rating]
    win_rates: dict[tuple[str, str], tuple[float, int]]
    bias: dict[str, dict[str, stats.BiasTest]]  # judge -> {"position": ..., "length": ...}
    agreement: stats.Agreement | None = None
    second_verdicts: list[Verdict] = field(default_factory=list)
    rubric: Rubric | None = None
    rubric_scores: list[RubricScore] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    run_id: str | None = None
    tf: dict[str, stats.TfWinRate] = field(default_factory=dict)  # IHBench TF win rate vs settings.baseline

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts + self.second_verdicts if v.failed]


def comparisons(verdicts: Sequence[Verdict]) -> list[stats.Comparison]:
    return [c for v in verdicts if (c := v.comparison()) is not None]


def ratings(comps: Sequence[stats.Comparison], settings: ArenaSettings) -> list[Rating]:
    elo = stats.elo(comps, k=settings.elo_k, seed=settings.seed)
    bt = stats.bradley_terry(comps)
    ci = stats.bradley_terry_ci(comps, settings.n_bootstrap, settings.seed)
    rates = stats.overall_win_rate(comps)
    counts: dict[str, int] = defaultdict(int)
    for c in comps:
        counts[c.first] += 1
        counts[c.second] += 1
    out = [Rating(m, elo[m], bt[m], *ci[m], rates[m], counts[m]) for m in stats.models_of(comps)]
    return sorted(out, key=lambda r: -r.bradley_terry)


def bias_tests(comps: Sequence[stats.Comparison], settings: ArenaSettings) -> dict[str, stats.BiasTest]:
    return {
        "position": stats.position_bias(comps, settings.seed, settings.n_permutations),
        "length": stats.length_bias(comps, settings.seed, settings.n_permutations),
    }


def run_arena(
    target: TrackingTarget,
    out_dir: Path,
    judge: Judge,
    settings: ArenaSettings | None = None,
    sweep: str = "latest",
    second_judge: Judge | None = None,
    rubric: Rubric | None = None,
    log_run: bool = True,
) -> ArenaOutcome:
    """The whole arena; raises ``ArenaError`` / ``AnalysisError`` when there is nothing to compare."""
    settings = settings or ArenaSettings()
    selection = load_selection(target, sweep)
    cells = select_cells(selection.cells, settings.agents, settings.condition)
    calls = load_calls(target, cells)
    pairs = pairings(calls, settings.seed)
    log.info("arena: %d pairs of %d agents' calls, judge %s", len(pairs), len({c.agent for c in calls}), judge.model)
    verdicts = [judge_pair(judge, p) for p in pairs]
    comps = comparisons(verdicts)
    if not comps:
        raise RuntimeError(f"every judgment failed; first reason: {verdicts[0].failed}")
    outcome = ArenaOutcome(
        verdicts, ratings(comps, settings), stats.win_rates(comps), {judge.model: bias_tests(comps, settings)}
    )
    if settings.baseline is not None:
        outcome.tf = tf_against_baseline(verdicts, settings)
    if second_judge is not None:
        outcome.second_verdicts = [judge_pair(second_judge, p) for p in pairs]
        second = comparisons(outcome.second_verdicts)
        outcome.agreement = stats.agreement(comps, second)
        outcome.bias[f"{second_judge.model} (second)"] = bias_tests(second, settings)
    if rubric is not None:
        outcome.rubric = rubric
        outcome.rubric_scores = [judge_rubric(judge, rubric, call) for call in calls if call.run_id in _used(pairs)]
    outcome.files = write_outputs(out_dir, outcome, settings)
    if log_run:
        outcome.run_id = log_analysis_run(
            target,
            run_name=f"arena {selection.sweep_id or 'all'}",
            out_dir=out_dir,
            input_runs={c.run_id: "arena" for c in cells},
            params=_params(settings, judge, second_judge, rubric, sweep),
            metrics=_metrics(outcome),
            tags={ARENA_KIND_TAG: "true", "evalkit.sweep": selection.sweep_id or "all"},
        )
    for v in outcome.failed:
        log.warning("arena: judgment of %s (%s vs %s) failed: %s", v.item, v.first, v.second, v.failed)
    return outcome


def tf_against_baseline(verdicts: Sequence[Verdict], settings: ArenaSettings) -> dict[str, stats.TfWinRate]:
    """IHBench's TF win rate of every agent against the pinned baseline; a failed judgment is a comparison without
    a winner (left out and counted, as IHBench has no tie)."""
    baseline = settings.baseline
    agents = {a for v in verdicts for a in (v.first, v.second)}
    if baseline not in agents:
        raise ArenaError(f"baseline={baseline!r} is none of the compared agents ({', '.join(sorted(agents))})")
    comps = [stats.Comparison(v.item, v.first, v.second, v.winner) for v in verdicts]
    return stats.tf_win_rates(comps, baseline, settings.n_bootstrap, settings.seed)  # type: ignore[arg-type]


def _used(pairs: Sequence[object]) -> set[str]:
    return {c.run_id for p in pairs for c in (p.first, p.second)}  # type: ignore[attr-defined]


def _params(
    settings: ArenaSettings, judge: Judge, second: Judge | None, rubric: Rubric | None, sweep: str
) -> dict[str, str]:
    arena = prompt("arena")
    out = {
        "sweep": sweep,
        "agents": ",".join(settings.agents) if settings.agents else "all",
        "condition": settings.condition or "all",
        "seed": str(settings.seed),
        "elo_k": str(settings.elo_k),
        "bootstrap": str(settings.n_bootstrap),
        "permutations": str(settings.n_permutations),
        "baseline": settings.baseline or "none",
        "judge.model": judge.model,
        "judge.base_url": judge.client.url,
        "arena.prompt_version": arena.version,
        "arena.prompt_hash": arena.prompt_hash[:12],
    }
    if second is not None:
        out |= {"second_judge.model": second.model, "second_judge.base_url": second.client.url}
    if rubric is not None:
        out |= {"rubric.version": rubric.version, "rubric.sha256": rubric.sha256[:12]}
    return out


def _metrics(outcome: ArenaOutcome) -> dict[str, float]:
    out = {"pairs": float(len(outcome.verdicts)), "failed_judgments": float(len(outcome.failed))}
    for r in outcome.ratings:
        out[f"elo.{r.model}"] = r.elo
        out[f"bradley_terry.{r.model}"] = r.bradley_terry
        out[f"win_rate.{r.model}"] = r.win_rate
    for model, tf in outcome.tf.items():
        out[f"tf_win_rate.{model}"] = tf.rate
    if outcome.agreement is not None:
        out["agreement.kappa"] = outcome.agreement.kappa
        out["agreement.raw"] = outcome.agreement.raw
    return {"".join(ch if ch.isalnum() or ch in "._-/ " else "_" for ch in k): v for k, v in out.items()}


# --- outputs -------------------------------------------------------------------------------------------------------


def _num(value: float, digits: int = 3, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _write_rows(path: Path, rows: Sequence[dict[str, object]]) -> Path:
    with path.open("w", newline="") as handle:
        if rows:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return path


def markdown(outcome: ArenaOutcome, settings: ArenaSettings) -> str:
    out = [
        "# Arena",
        "",
        f"{len(outcome.verdicts)} pairs: two agents' calls of the same scenario and trial in cells that differ only "
        f"in the agent; A/B order drawn per pair from seed {settings.seed}. **Elo**: start 1000, K = "
        f"{settings.elo_k:g}, comparisons in a seeded random order (Elo depends on the order). **Bradley–Terry**: "
        f"maximum likelihood on the Elo scale with a 95 % percentile bootstrap CI ({settings.n_bootstrap:,} "
        "resamples of the comparisons). Failed judgments are left out and listed below.",
        "",
        "| Agent | Elo | Bradley–Terry | 95% CI | win rate | comparisons |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for r in outcome.ratings:
        out.append(
            f"| {r.model} | {r.elo:.1f} | {r.bradley_terry:.1f} | [{r.bt_ci_low:.1f}, {r.bt_ci_high:.1f}] | "
            f"{_num(r.win_rate)} | {r.comparisons} |"
        )
    if outcome.tf:
        out += [
            "",
            f"## Task-fulfilment win rate against the baseline {settings.baseline} (IHBench)",
            "",
            "Share of each agent's comparisons with the pinned baseline that the judge decided for the agent; the "
            "judge must pick a winner (IHBench has no tie), so failed judgments are left out and counted. 0.50 is "
            f"parity (the baseline by construction). 95 % percentile bootstrap CI ({settings.n_bootstrap:,} "
            "resamples).",
            "",
            "| Agent | TF win rate | 95% CI | wins | decided | left out |",
            "|---|---:|---|---:|---:|---:|",
        ]
        for model, tf in outcome.tf.items():
            ci = "(baseline)" if model == settings.baseline else f"[{_num(tf.ci_low)}, {_num(tf.ci_high)}]"
            out.append(f"| {model} | {_num(tf.rate)} | {ci} | {tf.wins} | {tf.n} | {tf.undecided} |")
    models = [r.model for r in outcome.ratings]
    out += ["", "## Win rates (row over column)", "", "| | " + " | ".join(models) + " |"]
    out.append("|---|" + "---:|" * len(models))
    for a in models:
        cells = [("–" if a == b else f"{outcome.win_rates.get((a, b), (math.nan, 0))[0]:.2f}") for b in models]
        out.append(f"| {a} | " + " | ".join(cells) + " |")
    out += [
        "",
        "## Judge bias",
        "",
        "Position: the call shown first wins (TPR; ΔPos = TPR − BPR). Length: the call whose agent spoke more words "
        "wins (LPR; ΔLen = LPR − SPR). Wilson 95 % CI; p: sign-flip permutation test "
        f"({settings.n_permutations:,} draws).",
        "",
        "| Judge | bias | rate | 95% CI | Δ | p | n |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    for name, tests in outcome.bias.items():
        for kind, t in tests.items():
            sig = "*" if t.n and t.significant else ""
            out.append(
                f"| {name} | {kind} | {_num(t.rate)} | [{_num(t.ci_low)}, {_num(t.ci_high)}] | "
                f"{_num(t.delta, signed=True)}{sig} | {_num(t.p, 4)} | {t.n} |"
            )
    if outcome.agreement is not None:
        a = outcome.agreement
        out += [
            "",
            "## Judge agreement",
            "",
            f"On {a.n} pairs both judges decided: raw agreement {_num(a.raw)}, Cohen's κ {_num(a.kappa)}, Spearman ρ "
            f"of the agents' win rates {_num(a.spearman)}; pseudo agreement p₁p₂ + (1 − p₁)(1 − p₂) per pair: "
            + ", ".join(f"{x} vs {y} {_num(v)}" for (x, y), v in sorted(a.pseudo.items())),
        ]
    if outcome.rubric is not None:
        out += [
            "",
            f"## Rubric (version {outcome.rubric.version}, sha256 {outcome.rubric.sha256[:12]}, "
            f"{len(outcome.rubric.criteria)} criteria fixed before the calls were read)",
            "",
            "| Agent | mean of criteria × 100 | all criteria pass | calls |",
            "|---|---:|---:|---:|",
        ]
        by_agent: dict[str, list[dict[str, int]]] = defaultdict(list)
        for s in outcome.rubric_scores:
            if s.criteria is not None:
                by_agent[s.agent].append(s.criteria)
        for agent in sorted(by_agent):
            mean, all_pass = stats.rubric_model_score(by_agent[agent])
            out.append(f"| {agent} | {mean:.1f} | {all_pass:.2f} | {len(by_agent[agent])} |")
    failed = outcome.failed + [s for s in outcome.rubric_scores if s.failed]  # type: ignore[operator]
    out += ["", "## Failed judgments", ""]
    out += [f"- {getattr(f, 'item', '?')}: {f.failed}" for f in failed] if failed else ["None."]
    return "\n".join(out) + "\n"


def win_rate_plot(path: Path, outcome: ArenaOutcome) -> Path:
    """The win-rate matrix as a heatmap (row agent's share of wins over the column agent)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = [r.model for r in outcome.ratings]
    grid = [[outcome.win_rates.get((a, b), (math.nan, 0))[0] if a != b else math.nan for b in models] for a in models]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(models), 0.9 + 0.8 * len(models)))
    image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdBu")
    ax.set_xticks(range(len(models)), models, rotation=45, ha="right")
    ax.set_yticks(range(len(models)), models)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if not math.isnan(value):
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title("win rate (row over column)")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_outputs(out_dir: Path, outcome: ArenaOutcome, settings: ArenaSettings) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "verdicts_csv": _write_rows(
            out_dir / "verdicts.csv", [asdict(v) for v in outcome.verdicts + outcome.second_verdicts]
        ),
        "ratings_csv": _write_rows(out_dir / "ratings.csv", [asdict(r) for r in outcome.ratings]),
    }
    if outcome.tf:
        rows = [{"agent": m, "baseline": settings.baseline, **asdict(tf)} for m, tf in outcome.tf.items()]
        files["tf_win_rate_csv"] = _write_rows(out_dir / "tf_win_rate.csv", rows)
    if outcome.rubric_scores:
        rows = [
            {"agent": s.agent, "item": s.item, "run_id": s.run_id, "failed": s.failed or "", **(s.criteria or {})}
            for s in outcome.rubric_scores
        ]
        files["rubric_csv"] = _write_rows(out_dir / "rubric.csv", rows)
    files["win_rates_png"] = win_rate_plot(out_dir / "win_rates.png", outcome)
    report = out_dir / "report.md"
    report.write_text(markdown(outcome, settings) + "\n![win rates](win_rates.png)\n", encoding="utf-8")
    files["report"] = report
    return files
