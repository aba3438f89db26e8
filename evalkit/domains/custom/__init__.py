"""The ``custom`` domain: scenario files for anyone's agent (``domain=custom domain.scenario_dir=<folder>``).

The harness brings no tools and no DB here: the agent under test runs its own back end, and success is judged from
what the harness sees (the transcript, the judge's verdicts, the tool calls the harness records, a DB the scenario
declares). A scenario that wants the harness's tools names a registered domain in its file (``domain: airline``) and
runs under that domain instead. Its own folder is the example scenario file's (``python -m evalkit.scenarios new``
writes that one), kept beside the file format in ``evalkit.scenarios``.
"""

from evalkit.domains.base import ToolRegistry
from evalkit.domains.domain import Domain, DomainTexts, register_domain
from evalkit.scenarios.file import EXAMPLE_DIR

REGISTRY = ToolRegistry()  # no harness tools: the agent's own back end answers it

TEXTS = DomainTexts(
    agent_personality="You are a customer-service voice agent.",
    agent_instructions="Help the caller with what they ask for; confirm what you heard before acting on it.",
    simulator_role="You are a customer calling a company's voice agent.",
    simulator_domain_notes="",
)

DOMAIN = register_domain(
    Domain(
        name="custom",
        tools=REGISTRY,
        texts=TEXTS,
        scenario_dir=EXAMPLE_DIR,
        workflows={},  # no workflows: the embedded agent has nothing to offer here (a wire agent is the point)
    ),
    __name__,
)

__all__ = ["DOMAIN", "REGISTRY"]
