"""Healthcare HR service delivery (EVA-Bench HRSD): a hospital's HR line for clinical and administrative staff."""

from pathlib import Path

from evalkit.domains.domain import Domain, DomainTexts, register_domain
from evalkit.domains.hr import prompt
from evalkit.domains.hr.tools import REGISTRY
from evalkit.domains.hr.workflows import WORKFLOWS

DOMAIN = register_domain(
    Domain(
        name="hr",
        tools=REGISTRY,
        texts=DomainTexts.from_module(prompt),
        scenario_dir=Path(__file__).parent / "scenarios",
        workflows=WORKFLOWS,
    ),
    __name__,
)

__all__ = ["DOMAIN", "REGISTRY", "WORKFLOWS"]
