"""A scenario file's success criteria, one metric per kind and one overall (docs/scenarios.md, "Your own scenarios").

The criteria travel in the record (``Conversation.success``, facts already substituted), so each metric is a pure
function of it. A kind the scenario does not declare is unscored with that reason, never 0; so is a kind whose
evidence the record lacks (a DB the agent kept on its side; judged criteria with no judge configured).

================== ============ ===========================================================================
metric             kind         pass iff
================== ============ ===========================================================================
success_db         deterministic every value of ``success.db`` is in the final DB (a subset: dicts key by key, a
                                list's items each match some item, in any order; task completion's
                                normalization: 260.0 is 260, "none" is null; texts case-insensitive)
success_tool_calls deterministic each required call matches a recorded call (name, argument subset), no forbidden
                                call does; the calls: the harness's records plus the agent's reported log
                                (``agent_tool_calls``, evalkit.tool_log); unscored when the tools ran on the
                                agent's side and it reported no log
success_transcript deterministic each must_say regex matches what the agent said, no must_not_say regex does
success_judge      judge        the judge passes every criterion (score: the share passed; a reason for each)
success_overall    composite    every declared kind passes; fails as soon as one fails; unscored when one is
                                unscored and none failed
================== ============ ===========================================================================

The agent's words are what the caller heard where the record has it (an assistant turn's ``heard_text``, the
caller's ASR of the agent's audio), else the agent's intended text; ``details.heard`` says which.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evalkit.metrics.base import JudgeScorer, Metric, unscored
from evalkit.metrics.normalize import spelled_runs
from evalkit.metrics.registry import register_all
from evalkit.metrics.task_completion import normalize_db
from evalkit.records import Conversation, MetricValue, ToolCall

KINDS = ("db", "tool_calls", "transcript", "judge")
NAMES = {kind: f"success_{kind}" for kind in KINDS}
OVERALL = "success_overall"
JUDGE_PROMPT = "success_judge"


def _criteria(conversation: Conversation, kind: str) -> Any:
    return (conversation.success or {}).get(kind)


def _not_declared(kind: str) -> MetricValue:
    return unscored(NAMES[kind], f"the scenario declares no {kind} success criteria")


def _verdict(name: str, failures: list[Any], **details: Any) -> MetricValue:
    passed = not failures
    return MetricValue(name=name, score=float(passed), passed=passed, details={"failures": failures, **details})


# -- db ---------------------------------------------------------------------------------------------------------


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().lower() == actual.strip().lower()
    return expected == actual


def subset_differences(expected: Any, actual: Any, path: str = "") -> list[dict[str, Any]]:
    """Where ``actual`` lacks or differs from a value ``expected`` names (dicts: key by key; anything else whole)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [{"path": path or "<root>", "expected": expected, "actual": actual}]
        out: list[dict[str, Any]] = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append({"path": sub, "expected": value, "actual": "<missing>"})
            else:
                out += subset_differences(value, actual[key], sub)
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        # a list names items that must be there, in any order: each matches (as a subset) some item of the actual
        return [
            {"path": f"{path}[{i}]", "expected": item, "actual": "<no matching item>"}
            for i, item in enumerate(expected)
            if not any(not subset_differences(item, candidate) for candidate in actual)
        ]
    return [] if _same(expected, actual) else [{"path": path or "<root>", "expected": expected, "actual": actual}]


def success_db(conversation: Conversation) -> MetricValue:
    expected = _criteria(conversation, "db")
    if expected is None:
        return _not_declared("db")
    if conversation.final_db_missing:  # the agent's own back end: the harness never saw the end state
        return unscored(NAMES["db"], conversation.final_db_missing)
    return _verdict(NAMES["db"], subset_differences(normalize_db(expected), normalize_db(conversation.final_db)))


# -- tool calls -------------------------------------------------------------------------------------------------


def call_matches(rule: Mapping[str, Any], call: ToolCall) -> bool:
    """Same tool, and every argument the rule names has that value (text compared case-insensitively)."""
    if call.name != rule["name"]:
        return False
    args = normalize_db(call.arguments)
    return not subset_differences(normalize_db(rule.get("arguments") or {}), args)


def success_tool_calls(conversation: Conversation) -> MetricValue:
    criteria = _criteria(conversation, "tool_calls")
    if criteria is None:
        return _not_declared("tool_calls")
    reported = conversation.agent_tool_calls
    if reported is None:  # no log: the harness's records are all there is, unless the tools ran on the agent's side
        unseen = conversation.tool_calls_unseen or conversation.final_db_missing
        if unseen:
            return unscored(NAMES["tool_calls"], unseen)
    # the harness's records and the agent's own log (issue 29: evalkit.tool_log) together are the calls made
    calls = [*conversation.tool_calls, *(reported or [])]
    failures: list[dict[str, Any]] = [
        {"required": rule, "found": False}
        for rule in criteria.get("required", [])
        if not any(call_matches(rule, c) for c in calls)
    ]
    for rule in criteria.get("forbidden", []):
        made = [{"name": c.name, "arguments": c.arguments} for c in calls if call_matches(rule, c)]
        if made:
            failures.append({"forbidden": rule, "made": made})
    return _verdict(NAMES["tool_calls"], failures, calls=[c.name for c in calls], reported=len(reported or []))


# -- transcript -------------------------------------------------------------------------------------------------


def agent_words(conversation: Conversation) -> tuple[list[tuple[int, str]], bool]:
    """(turn index, text) of every agent turn, as the caller heard it where the record has that (``heard_text``, or
    an intended text that is itself the caller's transcript); and whether every turn is such a hearing."""
    rows, heard = [], []
    for turn in conversation.turns:
        if turn.role != "assistant":
            continue
        if turn.heard_text is not None:
            rows.append((turn.index, turn.heard_text))
            heard.append(True)
        else:
            rows.append((turn.index, turn.intended_text))
            heard.append(turn.text_source == "caller_asr")
    return rows, bool(heard) and all(heard)


def success_transcript(conversation: Conversation) -> MetricValue:
    criteria = _criteria(conversation, "transcript")
    if criteria is None:
        return _not_declared("transcript")
    rows, heard = agent_words(conversation)
    # a code spelled out ("flight S K 1 3 0") is said as surely as written ("SK130"): each turn is read with its
    # spelled runs joined as well (the metrics' own reading, ``normalize.spelled_runs``)
    rows = [(i, f"{text} {' '.join(run for run in spelled_runs(text) if run not in text)}") for i, text in rows]
    failures: list[dict[str, Any]] = []
    for pattern in criteria.get("must_say", []):
        if not any(re.search(pattern, text, re.IGNORECASE) for _, text in rows):
            failures.append({"must_say": pattern, "said": False})
    for pattern in criteria.get("must_not_say", []):
        hits = [{"turn": i, "text": m[0]} for i, text in rows if (m := re.search(pattern, text, re.IGNORECASE))]
        if hits:
            failures.append({"must_not_say": pattern, "said": hits})
    return _verdict(NAMES["transcript"], failures, heard=heard, agent_turns=len(rows))


# -- judge ------------------------------------------------------------------------------------------------------


def success_judge(conversation: Conversation, judge: JudgeScorer | None) -> MetricValue:
    criteria = _criteria(conversation, "judge")
    if not criteria:
        return _not_declared("judge")
    if judge is None:
        return unscored(
            NAMES["judge"],
            f"judge=none: no judge is configured, so the {len(criteria)} judged criteria are not scored (set "
            "judge=openai_compatible)",
            criteria=list(criteria),
        )
    return judge.metric_value(JUDGE_PROMPT, conversation, name=NAMES["judge"], threshold=1.0)


# -- overall ----------------------------------------------------------------------------------------------------


def success_overall(conversation: Conversation, upstream: Mapping[str, MetricValue]) -> MetricValue:
    declared = [k for k in KINDS if _criteria(conversation, k)]
    if not declared:
        return unscored(OVERALL, "the scenario declares no success criteria")
    values = {k: upstream.get(NAMES[k]) for k in declared}
    failed = [k for k, v in values.items() if v is not None and v.passed is False]
    open_ = [k for k, v in values.items() if v is None or v.passed is None]
    details: dict[str, Any] = {"kinds": declared, "failed": failed, "unscored": open_}
    if failed:  # one failed kind decides it, whatever the unscored ones would say
        return MetricValue(name=OVERALL, score=0.0, passed=False, details=details)
    if open_:
        reasons = "; ".join(f"{k}: {_reason(values[k])}" for k in open_)
        return unscored(OVERALL, f"not every declared kind was scored ({reasons})", **details)
    return MetricValue(name=OVERALL, score=1.0, passed=True, details=details)


def _reason(value: MetricValue | None) -> str:
    if value is None:
        return "not scored"
    return str(value.details.get("reason") or value.details.get("failed") or value.details.get("skipped") or "")


def _det(kind: str, fn: Any, inputs: tuple[str, ...], description: str, version: int = 1) -> Metric:
    return Metric(
        name=NAMES[kind],
        kind="deterministic",
        source="evalkit scenario files (issue 29)",
        inputs=("success", *inputs),
        fn=fn,
        threshold=1.0,
        description=description,
        version=version,
    )


METRICS = (
    _det("db", success_db, ("final_db",), "the final DB holds every value success.db names (a subset)"),
    _det(
        "tool_calls",
        success_tool_calls,
        ("turns.tool_calls", "agent_tool_calls"),
        "required tool calls made (name + argument subset), forbidden ones not",
        # v2: the agent's reported tool-call log counts; tools on the agent's side with no log are unscored, not 0
        version=2,
    ),
    _det(
        "transcript",
        success_transcript,
        ("turns.heard_text", "turns.intended_text"),
        "must_say regexes match the agent's words (as heard where recorded), must_not_say ones do not",
        version=2,  # v2: a spelled-out code counts as said ("S K 1 3 0" matches "SK130")
    ),
    Metric(
        name=NAMES["judge"],
        kind="judge",
        source="evalkit scenario files (issue 29)",
        inputs=("success", "turns"),
        fn=success_judge,
        threshold=1.0,
        description="each natural-language criterion judged pass/fail with a reason; all must pass",
    ),
    Metric(
        name=OVERALL,
        kind="deterministic",
        source="evalkit scenario files (issue 29)",
        inputs=("success",),
        fn=success_overall,
        requires=tuple(NAMES.values()),
        threshold=1.0,
        description="every declared success kind passes",
        version=2,  # v2: success_transcript v2 (a spelled-out code counts as said)
    ),
)

register_all(METRICS, __name__)
