"""Conversations as MLflow traces: one trace per conversation, a span per turn, tool calls as TOOL spans.

The MLflow UI's trace and session views are made for reading dialogues; this writes each finished conversation
into them, linked to its cell's run (``mlflow.sourceRun``) and grouped as one session per cell run
(``mlflow.trace.session``), with the conversation's scores as assessments (the run's evaluation view lists them).

Why not ``mlflow.start_span`` / ``MlflowClient.start_trace``: both export through the process-wide tracer provider,
bound to the *global* tracking URI (``mlflow.set_tracking_uri`` also rewrites ``$MLFLOW_TRACKING_URI``, which
evalkit reads to pick its store) and, by default, asynchronously. A cell names its store explicitly and is done only
when its data is stored, so the spans are built here with MLflow's own span entities on a private OpenTelemetry
tracer (no processors: nothing is exported behind our back) and written synchronously through MLflow's
``TracingClient`` for the cell's URI, the same two calls MLflow's exporter makes (``start_trace`` and ``log_spans``,
in the cheaper order: see :func:`log_traces`; trace data as an artifact for stores that do not keep spans).

Times come from the conversation's virtual timeline laid on the wall clock (``base_ms``), so span durations are
the simulated turn durations, not logging time. Trace ids are derived from (run id, scenario, trial): writing a
run's traces twice writes nothing new.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mlflow.entities import (
    AssessmentSource,
    AssessmentSourceType,
    Feedback,
    LiveSpan,
    Span,
    SpanStatusCode,
    TraceData,
    TraceInfo,
    TraceLocation,
    TraceState,
)
from mlflow.exceptions import MlflowException
from mlflow.tracing.client import TracingClient
from mlflow.tracing.constant import SpansLocation, TraceMetadataKey, TraceTagKey
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import Tracer, set_span_in_context

log = logging.getLogger("evalkit")

SESSION_KEY = TraceMetadataKey.TRACE_SESSION  # "mlflow.trace.session": the UI's session grouping
SOURCE_RUN_KEY = TraceMetadataKey.SOURCE_RUN  # "mlflow.sourceRun": the run's Traces tab
PREVIEW_CHARS = 1000


class _FixedTraceId(RandomIdGenerator):
    """Gives the root span the trace id derived from (run, conversation), so a rewrite is recognised."""

    def __init__(self, trace_id: int) -> None:
        self._trace_id = trace_id

    def generate_trace_id(self) -> int:
        return self._trace_id


def _tracer(otel_trace_id: int) -> Tracer:
    # Private, per trace: no span processor, so nothing is exported behind our back; empty resource (cheap).
    provider = TracerProvider(id_generator=_FixedTraceId(otel_trace_id), resource=Resource.get_empty())
    return provider.get_tracer("evalkit")


@dataclass
class SpanSpec:
    """One span to write: what happened between ``start_ms`` and ``end_ms`` (wall-clock epoch milliseconds)."""

    name: str
    span_type: str  # mlflow.entities.SpanType value: CHAIN, AGENT, TOOL, LLM...
    start_ms: float
    end_ms: float
    inputs: Any = None
    outputs: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)
    ok: bool = True
    children: list[SpanSpec] = field(default_factory=list)


@dataclass
class TraceSpec:
    """A conversation as a trace: the root span and its tree, where it belongs, and its scores."""

    key: str  # unique within the run (scenario/trial): with the run id it fixes the trace id
    root: SpanSpec
    session: str
    tags: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)  # logged as CODE feedback assessments


def _ids(run_id: str, key: str) -> tuple[int, str]:
    digest = hashlib.sha256(f"{run_id}/{key}".encode()).hexdigest()
    otel_trace_id = int(digest[:32], 16) or 1
    return otel_trace_id, f"tr-{digest[:32]}"


def _ns(ms: float) -> int:
    return round(ms * 1_000_000)


def _build(spec: SpanSpec, trace_id: str, tracer: Tracer, parent: Any, out: list[Span]) -> None:
    context = set_span_in_context(parent) if parent is not None else None
    otel = tracer.start_span(spec.name, context=context, start_time=_ns(spec.start_ms))
    live = LiveSpan(otel, trace_id, spec.span_type)
    if spec.inputs is not None:
        live.set_inputs(spec.inputs)
    if spec.outputs is not None:
        live.set_outputs(spec.outputs)
    if spec.attributes:
        live.set_attributes(spec.attributes)
    live.set_status(SpanStatusCode.OK if spec.ok else SpanStatusCode.ERROR)
    otel.end(end_time=_ns(max(spec.end_ms, spec.start_ms)))
    out.append(live.to_immutable_span())
    for child in spec.children:
        _build(child, trace_id, tracer, otel, out)


def build_spans(spec: TraceSpec, run_id: str) -> tuple[str, list[Span]]:
    """The trace id and the finished MLflow spans of one conversation (root first)."""
    otel_trace_id, trace_id = _ids(run_id, spec.key)
    spans: list[Span] = []
    _build(spec.root, trace_id, _tracer(otel_trace_id), None, spans)
    return trace_id, spans


def _preview(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text[:PREVIEW_CHARS]


def _trace_info(spec: TraceSpec, trace_id: str, experiment_id: str, run_id: str) -> TraceInfo:
    source = AssessmentSource(source_type=AssessmentSourceType.CODE, source_id="evalkit")
    assessments = [
        Feedback(name=name, value=score, source=source, trace_id=trace_id)
        for name, score in spec.scores.items()
        if score == score  # NaN is no score
    ]
    root = spec.root
    return TraceInfo(
        trace_id=trace_id,
        trace_location=TraceLocation.from_experiment_id(experiment_id),
        request_time=int(root.start_ms),
        execution_duration=int(max(root.end_ms - root.start_ms, 0)),
        state=TraceState.OK if root.ok else TraceState.ERROR,
        request_preview=_preview(root.inputs),
        response_preview=_preview(root.outputs),
        trace_metadata={SESSION_KEY: spec.session, SOURCE_RUN_KEY: run_id, **spec.metadata},
        tags={TraceTagKey.TRACE_NAME: root.name, **spec.tags},
        assessments=assessments,
    )


def existing_traces(client: TracingClient, experiment_id: str, run_id: str) -> dict[str, TraceInfo]:
    """The run's traces already in the store, by id (infos only)."""
    found: dict[str, TraceInfo] = {}
    token = None
    while True:
        page = client.search_traces(
            locations=[experiment_id], run_id=run_id, include_spans=False, max_results=500, page_token=token
        )
        found.update((t.info.trace_id, t.info) for t in page)
        token = page.token
        if not token:
            return found


def _spans_in_store(info: TraceInfo) -> bool:
    return info.tags.get(TraceTagKey.SPANS_LOCATION) == SpansLocation.TRACKING_STORE.value


def log_traces(tracking_uri: str, experiment_id: str, run_id: str, specs: Iterable[TraceSpec]) -> list[str]:
    """Write every conversation's trace (skipping those this run already has whole). The trace ids, in order.

    One ``start_trace`` per conversation writes its info (previews, tags, metadata, assessments), then one
    ``log_spans`` call writes every span (the store writes them in one session). Info first: MLflow's exporter
    logs spans first, which makes the store create a bare trace that ``start_trace`` must then merge into on its
    conflict path: ≈ 2x the cost for the same stored trace (issue 16 point 8; same content, checked by
    tests/test_traces.py). A retry after a failure between the two calls finds the started traces without spans
    (``log_spans`` is one transaction) and logs their spans only: span ids are random, so spans are never logged
    twice for one trace."""
    client = TracingClient(tracking_uri)
    have = existing_traces(client, experiment_id, run_id)
    written: list[str] = []
    pending: list[tuple[TraceInfo, list[Span]]] = []  # traces whose spans are not stored yet
    for spec in specs:
        trace_id, spans = build_spans(spec, run_id)
        written.append(trace_id)
        if trace_id in have:
            if not _spans_in_store(have[trace_id]):
                pending.append((have[trace_id], spans))
            continue
        info = _trace_info(spec, trace_id, experiment_id, run_id)
        stored = client.start_trace(info)
        if info.assessments and not stored.assessments:  # a store that drops assessments sent with the trace
            for assessment in info.assessments:
                client.log_assessment(info.trace_id, assessment)
        pending.append((stored, spans))
        have[trace_id] = stored
    if not pending:
        return written
    try:
        client.log_spans(experiment_id, [span for _, spans in pending for span in spans])
    except (NotImplementedError, MlflowException) as exc:  # a store that keeps spans as an artifact only
        log.debug("trace spans go to the trace artifacts: %s", exc)
        for info, spans in pending:
            client._upload_trace_data(info, TraceData(spans=spans))
    return written


__all__ = ["SESSION_KEY", "SOURCE_RUN_KEY", "SpanSpec", "TraceSpec", "build_spans", "log_traces"]
