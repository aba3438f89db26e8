"""LLM judges for the judge-based metrics (EVA-Bench App. M) behind one OpenAI-compatible endpoint, with a cache.

The metric layer calls `build_judge(config)` once (None for the offline default `judge=none`) and then
`judge.evaluate(metric_name, conversation, context)` per conversation.
"""

from evalkit.judges.cache import JudgeCache, cache_key, canonical_json
from evalkit.judges.client import (
    ChatClient,
    InvalidOutput,
    JudgeConfigError,
    JudgeError,
    JudgeRequestError,
    JudgeUnavailable,
)
from evalkit.judges.config import JudgeConfig
from evalkit.judges.judge import Judge, JudgeResult, UnknownJudgeMetric, build_judge, get_prompt
from evalkit.judges.prompts import PROMPTS, JudgeContext, JudgePrompt

__all__ = [
    "PROMPTS",
    "ChatClient",
    "InvalidOutput",
    "Judge",
    "JudgeCache",
    "JudgeConfig",
    "JudgeConfigError",
    "JudgeContext",
    "JudgeError",
    "JudgePrompt",
    "JudgeRequestError",
    "JudgeResult",
    "JudgeUnavailable",
    "UnknownJudgeMetric",
    "build_judge",
    "cache_key",
    "canonical_json",
    "get_prompt",
]
