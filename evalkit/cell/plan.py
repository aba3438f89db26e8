"""Stage 1 of a cell — plan: the validated config, its identity (cell key, and its clean twin's) and its scenarios;
the params and tags that name the cell in MLflow.

A job plans once (:func:`plan_cell`, called by the CLI after preflight) and every later stage reads the plan: the
identity payload is hashed once per cell, the scenarios and the pricing table are read once per job (the twin shares
them: a twin changes only perturbation axes, never the domain), and the settings the stages below need (prices,
provider caps, the tracking store) are resolved once into :class:`CellSettings`: those stages take these values, not
the config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalkit.config.axes import axis_params
from evalkit.config.schema import RunConfig, identity_key, identity_payload, twin_config
from evalkit.config.settings import CellSettings, resolve_settings
from evalkit.domains.scenarios import load_scenarios
from evalkit.pricing import load_table
from evalkit.provenance import provenance_tags
from evalkit.scenarios import Scenario

if TYPE_CHECKING:
    from evalkit.pricing import PricingTable
    from evalkit.tracking import TrackingTarget

NOTE_TAG = "mlflow.note.content"  # MLflow's run description

# axis_params, CellSettings, resolve_settings: declared in evalkit.config
__all__ = ["CellPlan", "CellSettings", "axis_params", "cell_tags", "plan_cell", "plan_checked", "resolve_settings"]


@dataclass(frozen=True)
class CellPlan:
    config: RunConfig
    key: str
    scenarios: list[Scenario]
    twin_key: str  # the clean twin's cell key (the analysis pairs by it); a clean cell's own key
    identity: dict[str, Any] = field(repr=False)  # what ``key`` hashes (logged as ``cfg.*`` params)
    settings: CellSettings = field(repr=False)  # what the stages below read of the config, resolved once
    twin: CellPlan | None = field(default=None, repr=False)  # the clean twin's plan, when it is another cell

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
        """``condition|domain|agent|persona|voice|seed``: the condition leads, so MLflow's run list (which cuts long
        names) tells a clean cell from a noisy one (issue 30 point 7). Axes added later name themselves only when
        set, beside the condition."""
        c = self.config
        lead = (
            c.condition
            + (f"+{c.interrupt.name}" if c.interrupt else "")
            + (f"+{c.behavior.name}" if c.behavior else "")
            + ("|text" if c.modality.name == "text" else "")
        )
        return f"{lead}|{c.domain.name}|{c.agent.name}|{c.persona.name}|{c.voice.name}|seed{c.seed}"

    def description(self, kind: str) -> str:
        """What the cell is, for the run's description (MLflow's ``mlflow.note.content``, shown on the run page)."""
        c = self.config
        if c.perturb is None:
            what = "the clean condition (no perturbation): the reference its perturbed twins are compared with"
        else:
            ops = ", ".join(str(op.get("op", "?")) for op in c.perturb.chain) or "no op"
            snr = f" at {c.perturb.snr_db:g} dB SNR" if c.perturb.snr_db is not None else ""
            what = f"condition {c.perturb.name} ({ops}{snr}), compared with its clean twin (tag twin_key)"
        if c.interrupt:
            what += f"; the caller interrupts ({c.interrupt.name})"
        if c.behavior:
            what += f"; the caller behaves: {c.behavior.name} (docs/caller-behaviours.md)"
        lines = [
            f"Cell: {what}.",
            f"Domain {c.domain.name}: {len(self.scenarios)} scenario(s) x {self.trials} trial(s); "
            f"agent {c.agent.name}, caller {c.simulator.name} (persona {c.persona.name}, voice {c.voice.name}), "
            f"seed {c.seed}" + (", text modality" if c.modality.name == "text" else "") + ".",
        ]
        if kind == "reuse":
            lines.append("Reuse pointer: this cell was already computed; its data is in the run named by reused_from.")
        else:
            lines.append(
                "Artifacts: viewer.html (every conversation with its audio lanes, beside the clean twin's), records/, "
                "audio/, conversations_table.json; traces: one session per cell run (docs/viewer.md)."
            )
        return "\n\n".join(lines)


def plan_cell(config: RunConfig) -> CellPlan:
    """The plan of a config that no preflight read (tests, scripts): its scenarios and pricing table read here,
    its tracking store left unknown."""
    domain = config.domain
    scenarios = load_scenarios(domain.name, domain.scenarios, domain.limit, domain.scenario_dir)
    # read once here, so the twin shares the cell's table as it does after a preflight
    return plan_checked(config, scenarios, load_table(config.pricing.file, config.pricing.overrides))


def plan_checked(
    config: RunConfig,
    scenarios: list[Scenario],
    pricing: PricingTable,
    target: TrackingTarget | None = None,
) -> CellPlan:
    """The cell's plan: its key and its twin's, each hashed once, its scenarios and the settings of the cell and
    its twin resolved once (``scenarios``, ``pricing``, ``target``: what the preflight read for this config)."""
    identity = identity_payload(config)
    key = identity_key(identity)
    clean = twin_config(config)
    clean_identity = identity_payload(clean)
    twin_key = identity_key(clean_identity)
    # the twin's own settings: an accent's twin has another voice (what is metered locally differs)
    # (and the worker processes for its conversations: a twin that runs one trial may want fewer)
    sized = ((c, len(scenarios) * c.trials_to_run) for c in (config, clean))
    settings, twin_settings = (resolve_settings(c, pricing, target, n) for c, n in sized)
    if twin_key == key:
        return CellPlan(config, key, scenarios, key, identity, settings)
    # A clean config is its own twin (twin_config's rule), so the twin's plan names itself as its twin.
    twin = CellPlan(clean, twin_key, scenarios, twin_key, clean_identity, twin_settings)
    return CellPlan(config, key, scenarios, twin_key, identity, settings, twin)


def cell_tags(plan: CellPlan, kind: str) -> dict[str, str]:
    return {
        "cell_key": plan.key,
        "twin_key": plan.twin_key,  # the clean twin's cell_key: the analysis pairs by it
        "condition": plan.config.condition,
        "evalkit.kind": kind,
        NOTE_TAG: plan.description(kind),
        **provenance_tags(),  # version, code fingerprint (part of the cell's identity), git commit and dirty flag
    }
