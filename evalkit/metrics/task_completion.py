"""Task completion, exactly as EVA-Bench App. E.4.1 defines it (deterministic).

1. strip the ``session`` key from both DBs; 2. every key/value of the expected session must be in the actual
session (case-insensitive string compare; extra keys allowed) or the metric fails at once; 3. canonical JSON
(sorted keys, no whitespace) of both remaining DBs, SHA-256, pass iff equal; 4. on failure, a structured diff.
Both DBs are normalized first as EVA-Bench's implementation does (``normalize_db``: 260.0 is 260, "none" is null,
order-free lists such as ``bookings`` sorted): its published expected DBs rely on it.
Unscored (never 0) when the conversation's end state is unknown (``final_db_missing``: an agent that ran its tools
on its own side posted no final DB back, issue 13).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from evalkit.metrics.base import Metric, unscored
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

THRESHOLD = 1.0  # App. E.4.1: exact match
# Lists whose order carries no meaning in EVA-Bench's DBs (its task completion sorts them before hashing): a
# booking appended by a rebooking, a standby entry, a notification.
ORDER_FREE_LISTS = frozenset(
    {"standby_list", "notifications", "bookings", "system_accounts", "group_memberships", "asset_recoveries"}
)


def normalize_db(value: Any) -> Any:
    """The DB as EVA-Bench's task completion compares it: a whole float is its int (a fare of 260.0 is 260), the
    texts "none" / "null" are null, and the order-free lists are sorted."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = normalize_db(item)
            if key in ORDER_FREE_LISTS and isinstance(item, list):
                item = sorted(item, key=lambda x: json.dumps(x, sort_keys=True, default=str))
            out[key] = item
        return out
    if isinstance(value, list):
        return [normalize_db(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("none", "null"):
        return None
    return value


def canonical_hash(db: dict[str, Any]) -> str:
    payload = json.dumps(normalize_db(db), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def session_superset(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Expected session keys that are missing or differ in the actual session."""
    return [
        key for key, value in expected.items() if key not in actual or str(actual[key]).lower() != str(value).lower()
    ]


def db_diff(expected: Any, actual: Any, path: str = "") -> list[dict[str, Any]]:
    """Field-level differences: what was added, removed or changed, with the JSON path of each (of the DBs as
    compared: ``normalize_db``)."""
    if not path:
        expected, actual = normalize_db(expected), normalize_db(actual)
    if isinstance(expected, dict) and isinstance(actual, dict):
        changes: list[dict[str, Any]] = []
        for key in sorted(set(expected) | set(actual), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                changes.append({"path": sub, "change": "missing", "expected": expected[key]})
            elif key not in expected:
                changes.append({"path": sub, "change": "unexpected", "actual": actual[key]})
            else:
                changes.extend(db_diff(expected[key], actual[key], sub))
        return changes
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [c for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for c in db_diff(e, a, f"{path}[{i}]")]
    if expected != actual:
        return [{"path": path or "<root>", "change": "modified", "expected": expected, "actual": actual}]
    return []


def task_completion(conversation: Conversation) -> MetricValue:
    if conversation.final_db_missing:  # the end state is unknown (tools ran on the agent's side): never a silent 0
        return unscored("task_completion", conversation.final_db_missing)
    expected = dict(conversation.expected_db)
    actual = dict(conversation.final_db)
    expected_session = expected.pop("session", {}) or {}
    actual_session = actual.pop("session", {}) or {}
    missing = session_superset(expected_session, actual_session)
    if missing:
        return MetricValue(
            name="task_completion",
            score=0.0,
            passed=False,
            details={"reason": "authentication", "session_keys_not_matched": missing},
        )
    expected_hash, actual_hash = canonical_hash(expected), canonical_hash(actual)
    passed = expected_hash == actual_hash
    details: dict[str, Any] = {"final_db_hash": actual_hash, "expected_db_hash": expected_hash}
    if not passed:
        details["diff"] = db_diff(expected, actual)
    return MetricValue(name="task_completion", score=float(passed), passed=passed, details=details)


METRICS = (
    Metric(
        name="task_completion",
        kind="deterministic",
        source="EVA-Bench App. E.4.1",
        inputs=("expected_db", "final_db"),
        fn=task_completion,
        threshold=THRESHOLD,
        description="SHA-256 of canonical JSON of final vs expected DB (session stripped) + auth superset check",
    ),
)

register_all(METRICS, __name__)
