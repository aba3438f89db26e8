"""EVA-Bench's ITSM tool API (ServiceNow/eva ``itsm_agent.yaml`` + its tool module), implemented for evalkit:
the same tool names, argument schemas, result and error shapes and DB layout, so EVA-Bench's ITSM records replay
through it to their expected final DBs (``python -m evalkit.scenarios replay <eva checkout>``).

Policy the tools enforce, for agents that skip a step: standard verification (``employee_auth``) for incidents,
hardware, software and facilities; OTP on top (``otp_auth``) for access requests, group and permission changes;
manager verification + OTP (``manager_auth``) to provision a new hire or remove a departing employee's access.
Login and network tickets need troubleshooting first; an SLA tier must match the ticket's urgency; renewals only
within 30 days before / 14 days after expiry; desks and parking have 90/180-day reassignment cooldowns.
"""

from __future__ import annotations

# The import order is the tool registration order: keep it.
# isort: off
from evalkit.domains.itsm.api.common import FIELD_ERROR_TYPES, REGISTRY, content_id
from evalkit.domains.itsm.api import incidents, requests, software, facilities, accounts, security  # noqa: F401
# isort: on

__all__ = ["FIELD_ERROR_TYPES", "REGISTRY", "content_id"]
