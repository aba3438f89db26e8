"""The CI gate's rules (docs/ci.md): threshold expressions, and their checks on a sweep's cells — absolute per
cell, perturbed cell minus its clean twin (the analysis's own pairing), or cell minus the same cell of a baseline
sweep. Pure functions of the cells read back from MLflow; ``evalkit.gate`` is the command around them."""

from __future__ import annotations

import difflib
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from evalkit.analysis import stats
from evalkit.analysis.cells import CellData
from evalkit.analysis.compare import condition_label, twin_pairs
from evalkit.config import axes

Kind = Literal["absolute", "delta", "baseline"]
OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
# longest operators first, so ">=" is not read as ">" followed by "=..."
_EXPRESSION = re.compile(r"^\s*(?:(?P<prefix>[A-Za-z_]+)\s*:)?\s*(?P<metric>[A-Za-z0-9_.\-]+)\s*(?P<op>>=|<=|==|>|<)"
                         r"\s*(?P<value>\S+)\s*$")  # fmt: skip


class GateInputError(ValueError):
    """Bad input to the gate: one line, exit 2."""


@dataclass(frozen=True)
class Threshold:
    text: str
    kind: Kind
    metric: str
    op: str
    value: float

    def holds(self, measured: float) -> bool:
        return OPS[self.op](measured, self.value)


def parse_threshold(text: str) -> Threshold:
    """``[delta:|baseline:]<metric><op><number>`` → a Threshold; anything else is a GateInputError naming why."""
    match = _EXPRESSION.match(text)
    if match is None or match["value"].startswith(("=", ">", "<")):
        raise GateInputError(
            f"malformed threshold {text!r}: expected [delta:|baseline:]<metric><op><number>, op one of {' '.join(OPS)}"
        )
    prefix = match["prefix"]
    if prefix is not None and prefix not in ("delta", "baseline"):
        raise GateInputError(f"unknown prefix {prefix!r} in {text!r}: use delta: or baseline: (or none)")
    try:
        value = float(match["value"])
    except ValueError:
        raise GateInputError(f"{match['value']!r} is not a number in {text!r}") from None
    if math.isnan(value):
        raise GateInputError(f"a NaN bound in {text!r} can never hold")
    kind: Kind = prefix or "absolute"  # type: ignore[assignment]
    return Threshold(text.strip(), kind, match["metric"], match["op"], value)


def thresholds_from_yaml(data: Any, source: str) -> list[str]:
    """A YAML list of expressions, or a list under ``thresholds:``."""
    if isinstance(data, Mapping):
        if set(data) != {"thresholds"}:
            raise GateInputError(f"{source}: expected a list of thresholds or a mapping with one key, thresholds")
        data = data["thresholds"]
    if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
        raise GateInputError(f"{source}: thresholds must be a list of expressions such as 'x_mean>=0.5'")
    return list(data)


def check_known(thresholds: Sequence[Threshold], cells: Sequence[CellData]) -> None:
    """A metric that no cell logged is a typo: one line with the closest names."""
    logged = sorted({name for c in cells for name in c.aggregates})
    for t in thresholds:
        if t.metric in logged:
            continue
        close = difflib.get_close_matches(t.metric, logged, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise GateInputError(f"unknown metric {t.metric!r}: no cell of the selection logged it{hint}")


@dataclass
class Check:
    threshold: str
    kind: str
    metric: str
    cell: str
    run_id: str
    value: float | None
    bound: float
    op: str
    passed: bool
    reference: float | None = None
    reference_run_id: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""

    def line(self) -> str:
        if self.kind == "run":  # not a threshold: the cell itself did not finish
            return f"FAIL cell {self.cell} (run {self.run_id}) {self.note}"
        head = f"FAIL {self.threshold}: {self.cell} (run {self.run_id})"
        if self.value is None:
            return f"{head}: {self.note}"
        measured = f"{self.value:.4g}"
        if self.reference is not None:
            what = "clean twin" if self.kind == "delta" else "baseline"
            measured += f" ({what} {self.reference:.4g}, run {self.reference_run_id})"
        ci = ""
        if self.ci_low is not None and self.ci_high is not None and math.isfinite(self.ci_low):
            ci = f", 95% CI [{self.ci_low:.4g}, {self.ci_high:.4g}]"
        return f"{head}: {self.metric} {measured}, threshold {self.op} {self.bound:g}{ci}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class GateResult:
    checks: list[Check] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def passed(self) -> bool:
        return bool(self.checks) and not self.failures


def score_column(metric: str) -> str:
    """The per-conversation column behind an aggregate: ``X_mean`` → ``X``, ``X_pass_at_1`` → ``X_pass``."""
    if metric.endswith("_mean"):
        return metric.removesuffix("_mean")
    if metric.endswith("_pass_at_1"):
        return metric.removesuffix("_at_1")
    return metric


def _absolute_ci(cell: CellData, metric: str) -> tuple[float | None, float | None]:
    low, high = cell.aggregates.get(f"{metric}_ci_low"), cell.aggregates.get(f"{metric}_ci_high")
    if low is not None and high is not None:
        return low, high
    column = cell.scores.get(score_column(metric))
    if not column:
        return None, None
    means = stats.scenario_means(cell.scenarios, column)
    if not means:
        return None, None
    return stats.bootstrap_ci(np.array(list(means.values())), seed=stats.seed_for(f"{cell.cell_key}|{metric}"))


def _paired_ci(cell: CellData, reference: CellData, metric: str) -> tuple[float | None, float | None]:
    column = score_column(metric)
    ours, theirs = cell.scores.get(column), reference.scores.get(column)
    if not ours or not theirs:
        return None, None
    deltas = stats.scenario_deltas(
        stats.scenario_means(cell.scenarios, ours), stats.scenario_means(reference.scenarios, theirs)
    )
    if deltas.values.size == 0:
        return None, None
    seed = stats.seed_for(f"{cell.cell_key}|{reference.cell_key}|{metric}")
    return stats.bootstrap_ci(deltas.values, seed=seed)


def _value(cell: CellData, metric: str) -> float | None:
    value = cell.aggregates.get(metric)
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def cell_label(cell: CellData, twin: CellData | None) -> str:
    """``domain|agent|condition``: the condition as the analysis names it (``noise_cafe@15.0dB``), ``clean`` for a
    clean cell."""
    if cell.is_clean:
        condition = "clean"
    elif twin is not None:
        condition = condition_label(cell, twin, axes.condition_axes())
    else:
        condition = cell.params.get("perturb") or cell.cell_key
    return f"{cell.params.get('domain', '?')}|{cell.params.get('agent', '?')}|{condition}"


def _check(t: Threshold, cell: CellData, label: str, reference: CellData | None = None) -> Check:
    check = Check(t.text, t.kind, t.metric, label, cell.run_id, None, t.value, t.op, False)
    value = _value(cell, t.metric)
    if reference is not None:
        check.reference_run_id = reference.run_id
        check.reference = _value(reference, t.metric)
    if value is None or (reference is not None and check.reference is None):
        missing = "the cell" if value is None else "its reference"
        check.note = f"not measured: {missing} logged no value for {t.metric}"
        return check
    if reference is None:
        check.value = value
        check.ci_low, check.ci_high = _absolute_ci(cell, t.metric)
    else:
        check.value = value - check.reference  # type: ignore[operator]
        check.ci_low, check.ci_high = _paired_ci(cell, reference, t.metric)
    check.passed = t.holds(check.value)
    return check


def _baseline_signature(params: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    names = [n for n in ("domain", *axes.param_names()) if n != "agent"]
    return tuple((n, params.get(n, "")) for n in dict.fromkeys(names))


def baseline_match(cell: CellData, baseline: Sequence[CellData]) -> CellData | None:
    """The same cell in the baseline sweep: by cell key, else the one baseline cell with the same axis params
    other than the agent (a new agent under the same conditions)."""
    same = [b for b in baseline if b.cell_key == cell.cell_key]
    if same:
        return same[0]
    signature = _baseline_signature(cell.params)
    alike = [b for b in baseline if _baseline_signature(b.params) == signature]
    return alike[0] if len(alike) == 1 else None


def evaluate(
    thresholds: Sequence[Threshold],
    cells: Sequence[CellData],
    sweep_run_ids: set[str],
    baseline: Sequence[CellData] | None = None,
) -> GateResult:
    """Every threshold on every cell it applies to. Strict: a threshold that applies to no cell fails (a gate that
    checked nothing must not pass), and so does a cell with no value for the metric."""
    result = GateResult()
    gated = [c for c in cells if c.listed_as in sweep_run_ids or c.run_id in sweep_run_ids]
    twins = dict((p.run_id, twin) for p, twin in twin_pairs(cells, result.gaps))
    pairs = [(c, twins[c.run_id]) for c in gated if c.run_id in twins]
    labels = {c.run_id: cell_label(c, twins.get(c.run_id)) for c in gated}
    for t in thresholds:
        checks: list[Check] = []
        if t.kind == "absolute":
            checks = [_check(t, c, labels[c.run_id]) for c in gated]
        elif t.kind == "delta":
            checks = [_check(t, p, labels[p.run_id], twin) for p, twin in pairs]
        else:
            for c in gated:
                reference = baseline_match(c, baseline or [])
                if reference is None:
                    check = Check(t.text, t.kind, t.metric, labels[c.run_id], c.run_id, None, t.value, t.op, False)
                    check.note = "not measured: no matching cell in the baseline sweep"
                    checks.append(check)
                else:
                    checks.append(_check(t, c, labels[c.run_id], reference))
        if not checks:
            empty = Check(t.text, t.kind, t.metric, "(none)", "", None, t.value, t.op, False)
            empty.note = "applies to no cell of the sweep" + (" (no perturbed cell with its clean twin)"
                                                               if t.kind == "delta" else "")  # fmt: skip
            checks.append(empty)
        result.checks += checks
    return result
