"""The metric registry finds every built-in metric without a hand-kept list, and two modules registering one
name fail naming both."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalkit.metrics import METRICS, Metric, UnknownMetricError, get_metric, register
from evalkit.metrics.registry import _package_modules, register_all
from evalkit.plugins import PluginError
from evalkit.records import Conversation, MetricValue

# The metric names the hand-kept module list registered before metrics registered themselves, and those added since.
BUILTIN = [
    "agent_interruption_rate",  # issue 31: interaction metrics from the call timeline (τ-voice)
    "agent_speech_fidelity",
    "arga",
    "authentication_success",
    "conciseness",
    "conciseness_proxy",
    "conversation_progression",
    "conversation_progression_proxy",
    "critical_field_accuracy",
    "eva_a",
    "eva_a_proxy",
    "eva_x",
    "eva_x_proxy",
    "faithfulness",
    "faithfulness_proxy",
    "interruption_correction_uptake",
    "interruption_no_redelivery",
    "interruption_recovery",
    "interruption_recovery_quality",
    "interruption_yield_ms",
    "interruptions_delivered",  # issue 26: how many cuts the condition planned and delivered
    "interruptions_planned",
    "irreversible_action_safety",
    "key_entity_accuracy",
    "response_latency",
    "response_latency_p50",
    "response_rate",
    "selectivity_backchannel",
    "selectivity_side_speech",
    "selectivity_vocal_tic",
    "speakability",
    "speakability_proxy",
    "speech_fidelity_proxy",
    "success_db",  # issue 29: a scenario file's success criteria, per kind and overall
    "success_judge",
    "success_overall",
    "success_tool_calls",
    "success_transcript",
    "task_completion",
    "tool_call_validity",
    "turn_efficiency",
    "turn_overhead",
    "turn_taking",
    "user_wer",
    "yield_latency",
    "yield_rate",
]


def _toy(conversation: Conversation) -> MetricValue:
    return MetricValue(name="toy", score=1.0)


def test_every_builtin_metric_is_found_without_a_module_list() -> None:
    assert sorted(METRICS) == BUILTIN
    assert "evalkit.metrics.mmtau" in _package_modules() and "evalkit.metrics.registry" not in _package_modules()
    assert METRICS.origin("turn_efficiency") == "evalkit.metrics.mmtau"
    assert METRICS["task_completion"] is get_metric("task_completion")


def test_lookups_load_the_builtins_in_a_fresh_process() -> None:
    """Importing the registry alone (no metric module yet) must still see every built-in on first look-up."""
    code = "from evalkit.metrics.registry import METRICS; print(len(list(METRICS)), 'turn_taking' in METRICS)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(BUILTIN)), "True"]


def test_a_duplicate_metric_name_fails_naming_both_modules() -> None:
    clash = Metric(name="task_completion", kind="deterministic", source="test", inputs=(), fn=_toy)
    with pytest.raises(PluginError, match=r"'task_completion': evalkit.metrics.task_completion and other_pkg.metric"):
        register_all([clash], "other_pkg.metric")
    with pytest.raises(PluginError, match=r"evalkit.metrics.task_completion and tests.test_metrics_registry"):
        register(clash)  # the default origin: the module of the metric's function


def test_a_registered_metric_is_scored_and_unknown_names_list_the_registered_ones() -> None:
    register(Metric(name="toy_registry_metric", kind="deterministic", source="test", inputs=(), fn=_toy))
    try:
        assert "toy_registry_metric" in METRICS and get_metric("toy_registry_metric").fn is _toy
    finally:
        METRICS.pop("toy_registry_metric")
    assert "toy_registry_metric" not in METRICS
    with pytest.raises(
        UnknownMetricError,
        match=r"unknown metric 'nope'; available: agent_interruption_rate, agent_speech_fidelity, arga",
    ):
        get_metric("nope")
