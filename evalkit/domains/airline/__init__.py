"""Airline customer service (EVA-Bench CSM): SkyWay Airlines."""

from evalkit.domains.airline.tools import REGISTRY

__all__ = ["REGISTRY"]
