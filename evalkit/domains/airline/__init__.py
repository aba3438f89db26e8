"""Airline customer service (EVA-Bench CSM): SkyWay Airlines."""

from pathlib import Path

from evalkit.domains.airline import prompt
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.domain import Domain, DomainTexts, register_domain

# No declarative workflows: the local agent's hand-written airline policy is registered on the agents' side.
DOMAIN = register_domain(
    Domain(
        name="airline",
        tools=REGISTRY,
        texts=DomainTexts.from_module(prompt),
        scenario_dir=Path(__file__).parent / "scenarios",
    ),
    __name__,
)

__all__ = ["DOMAIN", "REGISTRY"]
