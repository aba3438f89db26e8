"""The user-simulator kinds: ``conf/simulator/<option>.yaml`` names one (``kind: scripted``) and the config class
registered under that kind validates the option and builds one simulator per conversation.

A third-party simulator registers through the entry-point group ``evalkit.simulators`` (docs/architecture.md,
"Plug-ins").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field

from evalkit.kinds import KindConfig
from evalkit.plugins import Registry

if TYPE_CHECKING:
    import numpy as np

    from evalkit.scenarios import Scenario
    from evalkit.simulator.persona import PersonaSpec

__all__ = ["DEFAULT_SIMULATOR", "SIMULATORS", "Simulator", "SimulatorConfig", "default_simulator"]


class Simulator(Protocol):
    """What the call loop asks of a simulator: the caller's first words, then an answer to each agent turn."""

    def first_utterance(self) -> Any: ...

    def respond(self, agent_text: str) -> Any: ...


class SimulatorConfig(KindConfig):
    """What every simulator option has: its kind, its display name, and the call limits the loop enforces."""

    name: str  # display name: run names and the `simulator` param
    max_user_turns: int = Field(default=80, ge=1, le=200)
    max_duration_s: float = Field(default=600.0, gt=0)
    user_reaction_ms: float = Field(default=400.0, ge=0)

    def build(self, scenario: Scenario, persona: PersonaSpec | None, rng: np.random.Generator) -> Simulator:
        """A fresh simulator for one conversation; ``rng`` is the conversation's own seeded stream."""
        raise NotImplementedError(f"simulator kind {self.kind!r} does not implement build()")

    def params(self) -> dict[str, str]:
        """MLflow params beyond the ``simulator`` axis param: a model-backed kind's model and sampling settings."""
        return {}

    def identity_extras(self) -> dict[str, str]:
        """What decides the simulator beyond its config (e.g. a prompt file's hash): part of the cell key."""
        return {}


SIMULATORS: Registry[type[SimulatorConfig]] = Registry(
    "simulator",
    "evalkit.simulators",
    # Found by name like any plug-in: evalkit.simulator.scripted is the demo caller (simulator=scripted), which the
    # harness never imports; evalkit.wire.openai_http.simulator, the LLM caller (simulator=llm), lives with its
    # OpenAI-compatible wire adapter.
    builtin_modules=("evalkit.simulator.scripted.config", "evalkit.wire.openai_http.simulator"),
)

# The kind a call runs when it is given no simulator config (a test, a tool calling the call loop directly): the
# scripted caller, looked up by name so that the call loop does not import it (conf/simulator/scripted.yaml).
DEFAULT_SIMULATOR = "scripted"


def default_simulator() -> SimulatorConfig:
    """The ``DEFAULT_SIMULATOR`` kind with its defaults."""
    return SIMULATORS.get(DEFAULT_SIMULATOR)(name=DEFAULT_SIMULATOR)
