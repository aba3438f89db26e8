"""SkyWay Airlines' tasks as declarative workflows (see evalkit.domains.workflow), run by the local agent's one
workflow engine as every domain's are.

The package: ``steps`` (identification, the booking asked about, shared slots and cues), the families by module:
``cancellation`` (cancel and refund or credit), ``changes`` (voluntary and same-day changes, another airport, a round
trip changed both ways; ``same_day``: today's options and standby), ``disruptions`` (IRROPS rebooking, missed
connection, vouchers), ``escalation`` (fee waiver, no acceptable option, a live agent, a disputed charge),
``compensation`` (a claim after a delay or cancellation, a question about the flight). This module lists them; the
order is the order in which a request matching several is weighed.
"""

from __future__ import annotations

from evalkit.domains.airline.workflows.cancellation import CANCELLATION
from evalkit.domains.airline.workflows.changes import CHANGES
from evalkit.domains.airline.workflows.compensation import COMPENSATIONS
from evalkit.domains.airline.workflows.disruptions import DISRUPTIONS
from evalkit.domains.airline.workflows.escalation import ESCALATION
from evalkit.domains.workflow import Workflow

__all__ = ["WORKFLOWS"]

WORKFLOWS: dict[str, Workflow] = {
    CANCELLATION.name: CANCELLATION,
    **CHANGES,
    **DISRUPTIONS,
    **ESCALATION,
    **COMPENSATIONS,
}
