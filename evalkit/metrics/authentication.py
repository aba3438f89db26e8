"""Authentication success, EVA-Bench App. E.6 / F.3 (deterministic diagnostic).

The same superset check as task completion's authentication gate (E.4.1): every key/value of the expected
``session`` is in the final session (case-insensitive). 1 when it holds, 0 otherwise; unscored when the scenario
needs no authentication (empty expected session) or the end state is unknown (``final_db_missing``).
"""

from __future__ import annotations

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.metrics.task_completion import session_superset
from evalkit.records import Conversation, MetricValue

NAME = "authentication_success"


def authentication_success(conversation: Conversation) -> MetricValue:
    expected = conversation.expected_db.get("session") or {}
    if not expected:
        return unscored(NAME, "the scenario expects no authentication")
    if conversation.final_db_missing:
        return unscored(NAME, conversation.final_db_missing)
    missing = session_superset(expected, conversation.final_db.get("session") or {})
    return value(NAME, float(not missing), None, session_keys_not_matched=missing)


METRICS = (
    Metric(
        name=NAME,
        kind="deterministic",
        source="EVA-Bench App. E.6, F.3 (auth gate of E.4.1)",
        inputs=("expected_db.session", "final_db.session"),
        fn=authentication_success,
    ),
)

register_all(METRICS, __name__)
