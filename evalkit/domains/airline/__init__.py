"""Airline customer service (EVA-Bench CSM): SkyWay Airlines."""

from evalkit.domains.airline import prompt
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.domain import register_package

# No declarative workflows: the local agent's hand-written airline policy is registered on the agents' side.
DOMAIN = register_package(__name__, __file__, "airline", REGISTRY, prompt)

__all__ = ["DOMAIN", "REGISTRY"]
