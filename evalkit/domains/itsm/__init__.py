"""Enterprise IT service management (EVA-Bench ITSM): an internal IT service desk."""

from evalkit.domains.itsm.tools import REGISTRY
from evalkit.domains.itsm.workflows import WORKFLOWS

__all__ = ["REGISTRY", "WORKFLOWS"]
