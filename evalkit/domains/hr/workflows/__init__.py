"""The 12 single-intent HRSD workflows of EVA-Bench Table 43, as declarative steps (see evalkit.domains.workflow).

Authentication follows App. L.6: employee tier (ID + date of birth) for scheduling, payroll, onboarding, on-call,
I-9 and PTO; provider tier (NPI + facility code + PIN) for licenses and malpractice; provider + OTP for DEA
transfers; employee + OTP for leave, privileges and visa. Eligibility calls carry ``require={"eligible": True}``:
a false answer ends the workflow with the tool's reason (the adversarial boundary). Slot names are unique per
meaning across workflows (``pto_start_date`` vs ``oncall_start_date``) so one scenario's answers serve a
multi-intent call; identity slots (employee ID, NPI, ...) are shared on purpose.

The package: ``steps`` (shared slots, authentication tiers, eligibility and scheduling steps) and the workflows by
group: ``credentials`` (provider credentials), ``shifts`` (shifts and pay), ``employment`` (onboarding, leave,
immigration, PTO); this module lists them in Table 43's order.
"""

from __future__ import annotations

from evalkit.domains.hr.workflows.credentials import (
    DEA_TRANSFER,
    LICENSE_EXTENSION,
    MALPRACTICE_UPDATE,
    PRIVILEGE_REACTIVATION,
)
from evalkit.domains.hr.workflows.employment import FMLA, I9, ONBOARDING, PTO, VISA_DEPENDENT
from evalkit.domains.hr.workflows.shifts import ONCALL, PAYROLL, SHIFT_SWAP
from evalkit.domains.workflow import Workflow

__all__ = ["WORKFLOWS"]

WORKFLOWS: dict[str, Workflow] = {
    w.name: w
    for w in (
        LICENSE_EXTENSION,
        SHIFT_SWAP,
        MALPRACTICE_UPDATE,
        ONBOARDING,
        DEA_TRANSFER,
        FMLA,
        PAYROLL,
        PRIVILEGE_REACTIVATION,
        ONCALL,
        I9,
        VISA_DEPENDENT,
        PTO,
    )
}
