"""Scenario records (EVA-Bench §3, App. J): user goal + decision tree + persona + initial and expected DB.

The low layer of scenarios: the schema, the scenario file format and reading files by path. It imports nothing of
evalkit above it (domains, metrics, dialogue), so domains and metrics can import it. A registered domain's scenarios,
found by the domain's name, are ``evalkit.domains.scenarios``; the command-line tools (check, new, import-eva,
replay, text-run) are ``evalkit.scenario_tools`` (``python -m evalkit.scenarios`` runs them: see ``__main__``).
"""

from evalkit.scenarios.schema import (
    DecisionRule,
    Fact,
    Persona,
    ReferenceCall,
    Scenario,
    ScriptedPlan,
    UserGoal,
)
from evalkit.scenarios.store import ScenarioError, load_scenario

__all__ = [
    "DecisionRule",
    "Fact",
    "Persona",
    "ReferenceCall",
    "Scenario",
    "ScenarioError",
    "ScriptedPlan",
    "UserGoal",
    "load_scenario",
]
