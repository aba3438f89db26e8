"""The ITSM generator's fixed tables: seed and clock, scenario counts and orders, persona text, name pools,
departments and roles, and every workflow slot by name.
"""

from __future__ import annotations

from datetime import date

from evalkit.domains.itsm.workflows import WORKFLOWS
from evalkit.domains.workflow import Slot

SEED = 20260727
NOW = "2026-07-27 08:30 EST"
TODAY = date(2026, 7, 27)
COUNTS = (("single_intent", 1, 29), ("multi_intent", 2, 14), ("multi_intent", 3, 14), ("multi_intent", 4, 14))
N_ADVERSARIAL = 9
# Table 44: Security Incident and MFA Reset have no standalone single-intent scenarios. Incident flows come first
# so both branches (resolved / ticket) of each get a single-intent scenario.
SINGLE_ORDER = (
    "login_issue", "service_outage", "hardware_malfunction", "network_vpn_issue", "laptop_replacement",
    "monitor_bundle", "application_access", "software_license", "license_renewal", "desk_request",
    "parking_request", "ergonomic_equipment", "conference_room", "new_employee_provisioning", "group_membership",
    "permission_change", "access_removal", "request_status_escalation",
)  # fmt: skip
ADVERSARIAL_ORDER = (
    "laptop_replacement", "monitor_bundle", "ergonomic_equipment", "permission_change", "request_status_escalation",
    "license_renewal", "group_membership", "new_employee_provisioning", "access_removal",
)  # fmt: skip
PERSONA_TEXT = (
    "You're direct and to the point. You answer what you are asked in short sentences, don't volunteer details "
    "and show impatience if things move slowly."
)
FIRST_NAMES = (
    ("Jin", "male"), ("Oluwaseun", "male"), ("Priyanka", "female"), ("Siobhan", "female"), ("Thandiwe", "female"),
    ("Mateusz", "male"), ("Xiomara", "female"), ("Ngozi", "female"), ("Tadhg", "male"), ("Kaveh", "male"),
    ("Ludmila", "female"), ("Bartholomew", "male"), ("Yevgenia", "female"), ("Anand", "male"), ("Marisol", "female"),
)  # fmt: skip
LAST_NAMES = (
    "Li", "Adeyemi", "Raghunathan", "Ni Bhriain", "Nkosi", "Wojciechowski", "Quintanilla", "Okonkwo", "Szymanski",
    "Farahani", "Vasquez-Ortega", "Thorsdottir", "Kowalczyk", "Mbeki", "Achterberg",
)  # fmt: skip
DEPARTMENTS = {
    "finance": ("financial_analyst", "CC4410"),
    "engineering": ("software_engineer", "CC7720"),
    "marketing": ("marketing_specialist", "CC3305"),
    "operations": ("operations_coordinator", "CC5160"),
}
NEW_ROLES = {"financial_analyst": "senior_financial_analyst", "software_engineer": "staff_engineer",
             "marketing_specialist": "marketing_manager", "operations_coordinator": "operations_manager"}  # fmt: skip
SLOTS: dict[str, Slot] = {s.name: s for w in WORKFLOWS.values() for s in w.slots}
