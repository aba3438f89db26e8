"""Medical HR (EVA-Bench's medical_hr, HRSD in the paper): a hospital's HR line for clinical and administrative staff,
on EVA-Bench's own tool API and DB layout, so EVA-Bench's records and evalkit's generated scenarios run on the same
tools. Registered as ``medical_hr``; ``hr`` (evalkit's former name) is an alias.
"""

from evalkit.domains.domain import DOMAINS, register_package
from evalkit.domains.hr import prompt
from evalkit.domains.hr.tools import REGISTRY
from evalkit.domains.hr.workflows import WORKFLOWS

DOMAIN = register_package(__name__, __file__, "medical_hr", REGISTRY, prompt, workflows=WORKFLOWS)
DOMAINS.alias("hr", DOMAIN.name)

__all__ = ["DOMAIN", "REGISTRY", "WORKFLOWS"]
