"""medical_hr tools: EVA-Bench's medical_hr tool API (ServiceNow/eva ``configs/agents/medical_hr_agent.yaml``) in
evalkit's style. Names, argument formats and enums, result and error shapes and the scenario DB layout are
EVA-Bench's, so its records replay unchanged (``python -m evalkit.scenarios replay <eva checkout>``).

The DB: ``employees`` and ``providers`` by ID / NPI (each provider also an employee), each carrying its own records
(licenses, malpractice, DEA registration, privileges, onboarding checklist, leave, I-9, visa, PTO, on-call,
appointments); ``shifts`` by shift ID (timesheets are shifts); ``appointment_availability[type][department][date]``;
``unit_cert_requirements``, ``department_blackout_dates``, ``org_holidays``; ``notifications``; ``_current_date``
(the call's date); ``session`` (who the caller proved to be).

One difference, on purpose: a tool that fails leaves the DB as it was (evalkit's executor commits only on success),
where EVA-Bench's keeps what the tool changed before failing (only ``reactivate_privileges`` with a mix of known and
unknown privilege codes does so).
"""

from __future__ import annotations

# The import order is the tool registration order (EVA-Bench's agent configuration lists them so): keep it.
# isort: off
from evalkit.domains.hr.tools.common import REGISTRY, invalid_args, normalize_date
from evalkit.domains.hr.tools import auth, credentials, staff, employment
# isort: on

__all__ = ["REGISTRY", "auth", "credentials", "employment", "invalid_args", "normalize_date", "staff"]
