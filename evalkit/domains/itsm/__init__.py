"""Enterprise IT service management (EVA-Bench ITSM): an internal IT service desk."""

from evalkit.domains.domain import register_package
from evalkit.domains.itsm import prompt
from evalkit.domains.itsm.api import REGISTRY
from evalkit.domains.itsm.records import record_plan
from evalkit.domains.itsm.workflows import WORKFLOWS

DOMAIN = register_package(__name__, __file__, "itsm", REGISTRY, prompt, workflows=WORKFLOWS, record_plan=record_plan)

__all__ = ["DOMAIN", "REGISTRY", "WORKFLOWS"]
