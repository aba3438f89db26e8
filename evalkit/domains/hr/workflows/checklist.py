"""What a new hire says they finished (medical_hr's onboarding task): the task names, and the tasks with their
completion codes heard in the caller's words, matched against the checklist the agent looked up."""

from __future__ import annotations

import difflib
import re
from typing import Any

from evalkit.domains.hr.workflows.steps import named
from evalkit.spoken import spelled_runs

TASK_NAMES = {
    "bls": "BLS_UPLOAD",
    "i-9": "I9_VERIFY",
    "i9": "I9_VERIFY",
    "badge": "BADGE_PICKUP",
    "occupational health": "OCC_HEALTH",
    "hipaa": "HIPAA_TRAIN",
    "drug screen": "DRUG_SCREEN",
    "tb test": "TB_TEST",
    "tuberculosis": "TB_TEST",
    "orientation": "ORIENTATION",
}
# a task named by its code's words, as a caller reading the code off a record says it ("OCC_HEALTH": "occ health")
TASK_NAMES |= {code.lower().replace("_", " "): code for code in set(TASK_NAMES.values())}
SPELLED_GAPS = re.compile(r"(?<=\b[A-Za-z0-9])[\s,]+(?=[A-Za-z0-9]\b)")


def finished_tasks(text: str) -> list[dict[str, str]]:
    """The tasks a caller finished with their codes: 'HIPAA training with code K7Q2 and TB test with code T4B9',
    or a record's own mapping ('{"HIPAA_TRAIN":"H7P2"}'); each as complete_onboarding_task's arguments."""
    task_of = named(TASK_NAMES)
    text = SPELLED_GAPS.sub("", text)  # a code spelled with pauses ("3, L, 2, U") is one code
    pairs = re.findall(r'"([A-Z0-9_]{3,})"\s*:\s*"?([A-Za-z0-9]{4})\b', text)  # the record's JSON, quoted keys
    found = [(task, code) for task, code in pairs if task in TASK_NAMES.values()]
    if not found:
        for part in re.split(r"\band\b|;|,", text):
            codes = [c for c in re.findall(r"\b[A-Za-z0-9]{4}\b", part) if re.search(r"\d", c)]
            if (task := task_of(part)) and codes:
                found.append((task, codes[-1].upper()))
    return [{"task_code": task, "completion_code": code} for task, code in found]


def finished_on_checklist(text: str, checklist: dict[str, Any]) -> list[dict[str, str]]:
    """``finished_tasks``; when the words name no task (tiny.en wrote "BLS card upload" as "The LS car"), the
    pending task of the caller's checklist (the lookup's result) whose completion code the caller was heard to
    spell ("... with COVA-5-A-Z" holds A5AZ): the code heard, matched against what the agent looked up."""
    found = finished_tasks(text)
    if found:
        return found
    runs = spelled_runs(text)
    tasks = checklist.get("onboarding_checklist", {}).get("tasks", {}) if isinstance(checklist, dict) else {}
    pending = {
        task: str(entry.get("completion_code")) for task, entry in tasks.items() if entry.get("status") == "pending"
    }
    heard = [task for task, code in pending.items() if any(code in run for run in runs)]
    if not heard:
        # one character off ("9 6 6" for X966, "3 B 4 6" for 3D46): the one pending code that three of its four
        # characters were heard of, as a listener with the checklist in front of them would take it
        near = {task: max((_likeness(code, run) for run in runs), default=0.0) for task, code in pending.items()}
        close = [task for task, score in near.items() if score >= NEAR_CODE]
        heard = close if len(close) == 1 else []
    return [{"task_code": task, "completion_code": pending[task]} for task in heard]


NEAR_CODE = 0.75  # 3 of 4 characters in order (difflib's ratio: 2 * 3 / 8)


def _likeness(code: str, run: str) -> float:
    """How nearly a heard run of characters holds ``code``: the best difflib ratio of a window of its length."""
    windows = {run[i : i + len(code)] for i in range(max(1, len(run) - len(code) + 1))}
    return max(difflib.SequenceMatcher(None, code, window).ratio() for window in windows)
