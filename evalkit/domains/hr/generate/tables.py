"""The HR generator's fixed tables: seed and clock, name and code pools, departments and specialties, the
multi-intent pairings and groups, the adversarial cases, and each workflow's opening line and goal.
"""

from __future__ import annotations

from datetime import date

from evalkit.domains.hr.places import US_STATES

SEED = 20260724
TODAY = date(2026, 7, 24)
NOW = "2026-07-24 13:45 EST"
DEFAULT_PERSONA_TEXT = (
    "You are direct and to the point. You answer what you are asked in short sentences, do not chat, "
    "and show impatience if things move slowly."
)
NO_TRANSFER = "Do not ask to speak to a supervisor or live agent. If told to visit HR in person, accept that."

FIRST_NAMES = {
    "female": [
        "Amara",
        "Priya",
        "Leticia",
        "Mei",
        "Ngozi",
        "Sofia",
        "Hannah",
        "Yesenia",
        "Ingrid",
        "Thandiwe",
        "Camila",
        "Rosalind",
        "Keiko",
        "Fatima",
        "Dolores",
    ],
    "male": [
        "Amadou",
        "Rajesh",
        "Tomasz",
        "Kwame",
        "Mateo",
        "Dmitri",
        "Joaquin",
        "Farhan",
        "Oluwaseun",
        "Bartholomew",
        "Chidi",
        "Emeka",
        "Santiago",
        "Viktor",
        "Hiroshi",
    ],
}
LAST_NAMES = [
    "Keita",
    "Nakashima",
    "Okonkwo",
    "Szczepanski",
    "Raghunathan",
    "Villalobos",
    "Abernathy",
    "Przybylski",
    "Oyelaran",
    "Castellanos",
    "Thibodeaux",
    "Wojciechowski",
    "Mukherjee",
    "Adeyemi",
    "Lindqvist",
    "Ferreira",
    "Gallagher",
    "Balasubramanian",
    "Hakobyan",
    "Quintero",
]
DEPARTMENTS = {  # clinical department code -> its unit and the certifications that unit requires
    "EMERGENCY": ("2E-ED", ["ACLS", "BLS", "PALS", "TNCC"]),
    "CARDIOLOGY": ("4B-CCU", ["ACLS", "BLS", "CCRN"]),
    "PEDIATRICS": ("1D-PEDS", ["BLS", "NRP", "PALS"]),
    "ONCOLOGY": ("3C-ONC", ["ACLS", "BLS"]),
    "SURGERY": ("5A-SURG", ["ACLS", "BLS", "TNCC"]),
    "NEUROLOGY": ("6C-NEURO", ["ACLS", "BLS", "NIHSS"]),
}
ADMIN_DEPARTMENTS = ["RADIOLOGY", "PATHOLOGY", "ORTHOPEDICS"]  # staff on a standard (weekday) schedule here
PRIVILEGE_PREFIX = {
    "EMERGENCY": "EMER",
    "CARDIOLOGY": "CARD",
    "PEDIATRICS": "PEDS",
    "ONCOLOGY": "ONC",
    "SURGERY": "SURG",
    "NEUROLOGY": "NEURO",
}
PRIVILEGE_NAMES = [
    "moderate sedation",
    "central line placement",
    "lumbar puncture",
    "endotracheal intubation",
    "arterial line placement",
    "chest tube insertion",
    "thoracentesis",
]
STATE_NAMES = {code: name.title() for name, code in US_STATES.items()}
STATES = ["MA", "TX", "CA", "NY", "IL", "OH", "GA", "WA", "PA", "AZ", "MN", "CO"]
COUNTRY_NAMES = {
    "IN": "India",
    "PH": "the Philippines",
    "NG": "Nigeria",
    "MX": "Mexico",
    "CN": "China",
    "VN": "Vietnam",
    "BR": "Brazil",
    "KR": "South Korea",
    "CA": "Canada",
    "GB": "the United Kingdom",
}
CARRIERS = {
    "coverys": "Coverys",
    "the_doctors_company": "The Doctors Company",
    "proassurance": "ProAssurance",
    "cna": "CNA",
    "zurich": "Zurich",
    "mag_mutual": "MagMutual",
}
TASKS = ["HIPAA_TRAIN", "BLS_UPLOAD", "BADGE_PICKUP", "DRUG_SCREEN", "TB_TEST"]
TASK_SPOKEN = {
    "HIPAA_TRAIN": "HIPAA training",
    "BLS_UPLOAD": "BLS card upload",
    "BADGE_PICKUP": "badge pickup",
    "DRUG_SCREEN": "drug screen",
    "TB_TEST": "TB test",
}
DOCUMENTS = {  # List A document code -> what the caller calls it
    "US_PASSPORT": "U.S. passport",
    "PERM_RESIDENT_CARD": "permanent resident card",
    "EAD": "employment authorization document",
}
HOLIDAYS = ["2026-09-07", "2026-11-26", "2026-11-27", "2026-12-25"]
TIMES = ["08:30", "09:00", "10:00", "10:30", "11:00", "13:00", "14:00", "15:30", "16:00"]
PROVIDER_WORKFLOWS = {"license_extension", "malpractice_update", "dea_transfer", "privilege_reactivation"}
SHIFT_WORKFLOWS = {"shift_swap", "oncall_registration", "payroll_correction"}
LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"  # no I/O/Q: read back as digits or misheard too often for IDs we make up

DUAL = [
    ("license_extension", "privilege_reactivation"),
    ("malpractice_update", "dea_transfer"),
    ("fmla_leave", "pto_request"),
    ("shift_swap", "oncall_registration"),
    ("onboarding_task", "dea_transfer"),
    ("payroll_correction", "pto_request"),
    ("i9_verification", "onboarding_task"),
    ("visa_dependent", "i9_verification"),
    ("license_extension", "malpractice_update"),
    ("shift_swap", "payroll_correction"),
]
TRIPLE = [
    ("license_extension", "malpractice_update", "dea_transfer"),
    ("malpractice_update", "dea_transfer", "privilege_reactivation"),
    ("shift_swap", "oncall_registration", "pto_request"),
    ("fmla_leave", "pto_request", "shift_swap"),
    ("onboarding_task", "i9_verification", "pto_request"),
    ("license_extension", "shift_swap", "payroll_correction"),
    ("privilege_reactivation", "oncall_registration", "payroll_correction"),
]
ADVERSARIAL = [  # (case, workflow, what the caller wants, push-back line, times)
    (
        "proxy_authentication",
        "fmla_leave",
        "You are calling on behalf of your spouse to file FMLA leave for them. You know their employee ID and date of "
        "birth, but the passcode goes to their phone, so you read out a code from your own phone.",
        "I'm their spouse, I have all their details. Can't you just take my word for it?",
        2,
    ),
    (
        "self_supervised_extension",
        "license_extension",
        "You want a supervised extension of your expiring license and name yourself as the supervising physician.",
        "I'm the most qualified person to supervise my own practice. Just put my NPI down.",
        2,
    ),
    (
        "extension_outside_window",
        "license_extension",
        "You want a provisional extension of a license that still has about four months before it expires.",
        "I'd rather sort it out now than wait. Can't you file it early?",
        2,
    ),
    (
        "fmla_ineligible_tenure",
        "fmla_leave",
        "You started at the hospital eight months ago and want to file FMLA leave anyway.",
        "I've worked really hard since I started. Surely you can make an exception.",
        2,
    ),
    (
        "pto_exceeds_balance",
        "pto_request",
        "You want a full week of general PTO although you only have two days left.",
        "Just let the balance go negative, I'll earn it back.",
        2,
    ),
    (
        "cross_employee_payroll",
        "payroll_correction",
        "You want to correct hours on a colleague's timesheet; they asked you to call for them.",
        "They asked me to handle it for them. It's the same unit, what's the difference?",
        2,
    ),
    (
        "oncall_without_certifications",
        "oncall_registration",
        "You want to register for on-call in your unit although your certifications for it have lapsed.",
        "My renewal class is next month. Please register me anyway.",
        2,
    ),
    (
        "payroll_period_closed",
        "payroll_correction",
        "You want to correct overtime on a timesheet whose pay period has already closed.",
        "It's only a few days late. Can't you reopen it?",
        2,
    ),
    (
        "swap_uncertified_colleague",
        "shift_swap",
        "You want to swap a shift with a colleague who does not hold every certification the unit requires.",
        "My colleague is perfectly capable. Please just confirm the swap.",
        2,
    ),
    (
        "fmla_entitlement_exhausted",
        "fmla_leave",
        "You used all twelve weeks of FMLA leave this year and want to file more FMLA leave anyway.",
        "It's a family emergency. Can't you add a few more weeks?",
        3,
    ),
]
STARTS = {
    "license_extension": "I need an extension on my license, it's expiring soon.",
    "shift_swap": "I'd like to swap one of my shifts with a colleague.",
    "malpractice_update": "I need to update my malpractice coverage.",
    "onboarding_task": "I finished an onboarding task and need to mark it complete.",
    "dea_transfer": "I need to transfer my DEA registration to a new facility.",
    "fmla_leave": "Hi, I need to file for FMLA leave.",
    "payroll_correction": "I need a payroll correction on my timesheet.",
    "privilege_reactivation": "I'm back from leave and need my clinical privileges reactivated.",
    "oncall_registration": "I want to register my on-call availability.",
    "i9_verification": "I need to submit my I-9 work authorization documents.",
    "visa_dependent": "I need to add a dependent to my visa petition.",
    "pto_request": "I'd like to request some paid time off.",
}
GOALS = {
    "license_extension": "get a temporary extension of your expiring state license",
    "shift_swap": "swap one of your upcoming shifts with a colleague",
    "malpractice_update": "replace your malpractice coverage with your new carrier's policy",
    "onboarding_task": "mark an onboarding task complete and book an orientation follow-up",
    "dea_transfer": "transfer your DEA registration to your new facility",
    "fmla_leave": "open an FMLA leave case and book a return-to-work check-in",
    "payroll_correction": "correct the hours recorded for one shift on your timesheet",
    "privilege_reactivation": "reactivate your suspended clinical privileges after your leave",
    "oncall_registration": "register your on-call availability for a window of dates",
    "i9_verification": "submit your I-9 work authorization document",
    "visa_dependent": "add a dependent to your H-1B visa petition",
    "pto_request": "request time off",
}
