"""Scenario records (EVA-Bench §3, App. J): user goal + decision tree + persona + initial and expected DB."""

from evalkit.scenarios.schema import (
    DecisionRule,
    Fact,
    Persona,
    ReferenceCall,
    Scenario,
    ScriptedPlan,
    UserGoal,
)
from evalkit.scenarios.store import ScenarioError, load_scenario, load_scenarios, scenario_dir

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
    "load_scenarios",
    "scenario_dir",
]
