"""Healthcare HR service delivery (EVA-Bench HRSD): a hospital's HR line for clinical and administrative staff."""

from evalkit.domains.hr.tools import REGISTRY

__all__ = ["REGISTRY"]
