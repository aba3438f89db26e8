"""Metrics: pure functions of a conversation record (they never import agents, simulators or speech engines)."""

from evalkit.metrics.aggregate import aggregate_cell, pass_at_1, pass_at_k, pass_hat_k
from evalkit.metrics.registry import METRICS, MetricFn, score_conversation

__all__ = ["METRICS", "MetricFn", "aggregate_cell", "pass_at_1", "pass_at_k", "pass_hat_k", "score_conversation"]
