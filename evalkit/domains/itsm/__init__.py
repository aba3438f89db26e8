"""Enterprise IT service management (EVA-Bench ITSM): an internal IT service desk."""

from pathlib import Path

from evalkit.domains.domain import Domain, DomainTexts, register_domain
from evalkit.domains.itsm import prompt
from evalkit.domains.itsm.api import REGISTRY
from evalkit.domains.itsm.records import record_plan
from evalkit.domains.itsm.workflows import WORKFLOWS

DOMAIN = register_domain(
    Domain(
        name="itsm",
        tools=REGISTRY,
        texts=DomainTexts.from_module(prompt),
        scenario_dir=Path(__file__).parent / "scenarios",
        workflows=WORKFLOWS,
        record_plan=record_plan,
    ),
    __name__,
)

__all__ = ["DOMAIN", "REGISTRY", "WORKFLOWS"]
