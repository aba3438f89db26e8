"""Judge-based metrics of EVA-Bench (App. E.4-E.6, prompts App. M), scored through the cell's LLM judge.

Each metric hands the conversation to the judge the cell built from ``judge:`` config (``evalkit.judges.Judge`` or
an adapter; anything with ``metric_value``) and applies the paper's pass threshold to the normalised score:

========================== ================= ========= =====================================================
metric                     source            threshold judge score
========================== ================= ========= =====================================================
faithfulness               E.4.2, M.2        >= 0.5    (min dimension rating - 1) / 2
agent_speech_fidelity      E.4.3, M.3        >= 0.95   mean binary per-turn rating (transcript variant)
conversation_progression   E.5.1, M.4        >= 0.5    (overall rating - 1) / 2
conciseness                E.5.2, M.5        >= 0.5    mean of (turn rating - 1) / 2
speakability               E.6, M.8          none      mean binary per-turn rating (a diagnostic)
interruption_recovery_q... IHBench RQ        1.0       share of interruptions whose criteria are all met
========================== ================= ========= =====================================================

Offline (``judge=none``, the default) a selected judge metric is *skipped*: score None, ``details.skipped`` says
why and names the proxy. It is never replaced by its proxy under the judge's name, so MLflow never pools the two.
A judge failure (endpoint down, garbage answer) is an unscored value with ``details.failed``; the judge layer
guarantees that, and :func:`score_conversation` catches anything else.
"""

from __future__ import annotations

from evalkit.metrics.base import JudgeFn, JudgeScorer, Metric
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NEEDS_ASSISTANT_ASR = "assistant_asr"


def skipped_reason(name: str) -> str:
    return f"judge=none: offline run; use {name}_proxy or judge=openai_compatible"


def _judge_fn(judge_metric: str, name: str, threshold: float | None) -> JudgeFn:
    def fn(conversation: Conversation, judge: JudgeScorer | None) -> MetricValue:
        if judge is None:
            return MetricValue(name=name, score=None, passed=None, details={"skipped": skipped_reason(name)})
        return judge.metric_value(judge_metric, conversation, name=name, threshold=threshold)

    return fn


def judge_metric(
    name: str,
    source: str,
    inputs: tuple[str, ...],
    threshold: float | None,
    needs: frozenset[str] = frozenset(),
    description: str = "",
) -> Metric:
    return Metric(
        name=name,
        kind="judge",
        source=source,
        inputs=inputs,
        fn=_judge_fn(name, name, threshold),
        threshold=threshold,
        needs=needs,
        description=description,
    )


_TRACE = ("turns.intended_text", "turns.heard_text", "turns.tool_calls", "judge context: instructions, tools")

METRICS = (
    judge_metric("faithfulness", "EVA-Bench App. E.4.2, M.2 (LLM judge)", _TRACE, 0.5),
    judge_metric(
        "agent_speech_fidelity",
        "EVA-Bench App. E.4.3, M.3 (judge over an ASR transcript of the agent audio)",
        ("turns[assistant].intended_text", "turns[assistant].heard_text (ASR of agent audio)"),
        0.95,
        frozenset({NEEDS_ASSISTANT_ASR}),
    ),
    judge_metric("conversation_progression", "EVA-Bench App. E.5.1, M.4 (LLM judge)", _TRACE, 0.5),
    judge_metric("conciseness", "EVA-Bench App. E.5.2, M.5 (LLM judge)", _TRACE, 0.5),
    judge_metric("speakability", "EVA-Bench App. E.6, M.8 (LLM judge; diagnostic)", ("turns.intended_text",), None),
    judge_metric(
        "interruption_recovery_quality",
        "IHBench Recovery Quality (LLM judge; type-specific criteria, PASS iff all met)",
        ("turns.effects (interruption)", "turns.intended_text"),
        1.0,
        description="share of the caller's interruptions the agent recovered from as the type expects (judged)",
    ),
)

register_all(METRICS, __name__)
