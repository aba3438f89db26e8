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
# Department code -> (role code, cost center); the role each caller's department gives them, and the role an
# HR-approved change moves them to.
DEPARTMENTS = {
    "FIN": ("ANLST", "CC-4410"),
    "ENG": ("SWE", "CC-7720"),
    "DSGN": ("DESGN", "CC-3305"),
    "OPS": ("ADMIN", "CC-5160"),
}
NEW_ROLES = {"ANLST": "DATAN", "SWE": "MGENG", "DESGN": "PM", "ADMIN": "MGOPS"}
MANAGER_ROLES = {"FIN": "MGOPS", "ENG": "MGENG", "DSGN": "MGSLS", "OPS": "MGOPS"}
# Building code -> (name, aliases); zone code -> (name, aliases).
BUILDINGS = {
    "BLD1": ("Harbor Point", ["HP", "Harbor"]),
    "BLD2": ("Riverside Center", ["Riverside"]),
    "BLD4": ("Summit Tower", ["Summit"]),
    "BLD6": ("Lakeview Annex", ["Lakeview"]),
}
ZONES = {
    "PZA": ("Harbor Garage", ["Garage A"]),
    "PZB": ("River Lot", ["Lot B"]),
    "PZC": ("Summit Deck", ["Deck C"]),
    "PZD": ("Visitor Lot", ["Lot D"]),
}
# Catalog id -> (name, vendor, access levels, manager approval needed).
APPLICATIONS = {
    "APP-1040": ("Confluence", "Atlassian", ["read_only", "standard", "admin"], False),
    "APP-1041": ("Tableau", "Salesforce", ["read_only", "standard"], False),
    "APP-1042": ("GitHub", "Microsoft", ["read_only", "standard", "admin"], True),
    "APP-1043": ("Figma", "Figma", ["read_only", "standard", "admin"], False),
    "APP-1044": ("Snowflake", "Snowflake", ["read_only", "standard", "admin"], True),
    "APP-1045": ("ServiceNow", "ServiceNow", ["standard", "admin"], True),
}
LICENSES = {
    "LIC-2040": ("Adobe Acrobat", "Adobe"),
    "LIC-2041": ("Visio", "Microsoft"),
    "LIC-2042": ("AutoCAD", "Autodesk"),
    "LIC-2043": ("Mathematica", "Wolfram"),
    "LIC-2044": ("Camtasia", "TechSmith"),
    "LIC-2045": ("PyCharm", "JetBrains"),
}
# Group code -> (name, requires approval).
GROUPS = {
    "GRP-FINRPT": ("Finance Reporting", False),
    "GRP-PRODDP": ("Prod Deploy", True),
    "GRP-HRANLY": ("HR Analytics", False),
    "GRP-VENDOR": ("Vendor Portal", False),
    "GRP-DSLAB": ("Data Science Lab", True),
}
SLOTS: dict[str, Slot] = {s.name: s for w in WORKFLOWS.values() for s in w.slots}
