"""Airline customer service (EVA-Bench CSM): SkyWay Airlines."""

from evalkit.domains.airline import prompt
from evalkit.domains.airline.tools import REGISTRY
from evalkit.domains.airline.workflows import WORKFLOWS
from evalkit.domains.domain import register_package

GREETING = "Hello! Thank you for calling SkyWay Airlines. How can I help you today?"
DOMAIN = register_package(__name__, __file__, "airline", REGISTRY, prompt, workflows=WORKFLOWS, greeting=GREETING)

__all__ = ["DOMAIN", "REGISTRY", "WORKFLOWS"]
