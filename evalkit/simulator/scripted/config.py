"""Registers the built-in ``scripted`` simulator kind (the simulator itself: ``evalkit.simulator.scripted.caller``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from evalkit.simulator.registry import SIMULATORS, SimulatorConfig

if TYPE_CHECKING:
    import numpy as np

    from evalkit.scenarios import Scenario
    from evalkit.simulator.persona import PersonaSpec
    from evalkit.simulator.scripted.caller import ScriptedSimulator

__all__ = ["ScriptedSimulatorConfig"]


@SIMULATORS.register("scripted")
class ScriptedSimulatorConfig(SimulatorConfig):
    METERING: ClassVar[str] = "local"  # runs in this process, sends no request: 0 USD (evalkit.pricing)
    """Offline and deterministic: follows the scenario's decision tree (``user_goal.scripted``)."""

    kind: Literal["scripted"] = "scripted"

    def build(self, scenario: Scenario, persona: PersonaSpec | None, rng: np.random.Generator) -> ScriptedSimulator:
        from evalkit.simulator.scripted.caller import ScriptedSimulator  # imports the domains: only when a call starts

        return ScriptedSimulator(scenario, persona, rng)

    def random_sources(self) -> list[str]:
        return []  # the decision tree is followed exactly; its only draws are the persona's (counted there)
