"""Stage 1 of a cell — plan: the validated config, its identity (cell key) and its scenarios; the params and tags
that name the cell in MLflow."""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.config.axes import axis_params
from evalkit.config.schema import RunConfig, cell_key, twin_config
from evalkit.provenance import provenance_tags
from evalkit.scenarios import Scenario, load_scenarios

__all__ = ["CellPlan", "axis_params", "cell_tags", "plan_cell"]  # axis_params: declared in evalkit.config.axes


@dataclass(frozen=True)
class CellPlan:
    config: RunConfig
    key: str
    scenarios: list[Scenario]

    @property
    def trials(self) -> int:
        """Trials per scenario actually run: k, or 1 when nothing in the cell is random (issue 17)."""
        return self.config.trials_to_run

    def trial_params(self) -> dict[str, str]:
        """What the cell says about its trials (MLflow params): how many ran and what made them differ."""
        sources = self.config.random_sources()
        return {"trials_run": str(self.trials), "randomness": "; ".join(sources) if sources else "none"}

    @property
    def run_name(self) -> str:
        c = self.config
        # axes added later name themselves only when set, so existing cells keep the names they always had
        extra = ("|text" if c.modality.name == "text" else "") + (f"|{c.interrupt.name}" if c.interrupt else "")
        return f"{c.domain.name}|{c.agent.name}|{c.persona.name}|{c.voice.name}|{c.condition}{extra}|seed{c.seed}"


def plan_cell(config: RunConfig) -> CellPlan:
    domain = config.domain
    scenarios = load_scenarios(domain.name, domain.scenarios, domain.limit, domain.scenario_dir)
    return CellPlan(config, cell_key(config), scenarios)


def cell_tags(plan: CellPlan, kind: str) -> dict[str, str]:
    return {
        "cell_key": plan.key,
        "twin_key": cell_key(twin_config(plan.config)),  # the clean twin's cell_key: the analysis pairs by it
        "condition": plan.config.condition,
        "evalkit.kind": kind,
        **provenance_tags(),  # version, code fingerprint (part of the cell's identity), git commit and dirty flag
    }
