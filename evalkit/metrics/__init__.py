"""Metrics: pure functions of a conversation record (they never import agents, simulators or speech engines)."""

from evalkit.metrics.aggregate import aggregate_cell, pass_at_1, pass_at_k, pass_hat_k
from evalkit.metrics.base import Metric, MetricKind, UnknownMetricError
from evalkit.metrics.registry import (
    METRICS,
    MetricFn,
    get_metric,
    metric_versions,
    register,
    required_preparation,
    resolve,
    score_conversation,
    version_params,
)

__all__ = [
    "METRICS",
    "Metric",
    "MetricFn",
    "MetricKind",
    "UnknownMetricError",
    "aggregate_cell",
    "get_metric",
    "metric_versions",
    "pass_at_1",
    "pass_at_k",
    "pass_hat_k",
    "register",
    "required_preparation",
    "resolve",
    "score_conversation",
    "version_params",
]
