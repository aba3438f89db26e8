"""Metric registry: config names -> :class:`Metric` plug-ins, and the scoring of one conversation.

A metric module registers its metrics when imported (``register_all(METRICS, __name__)`` at its end). Built-in
modules are found by importing every module of this package, so adding a metric is adding a module; third-party
packages register through the entry-point group ``evalkit.metrics``. Two modules registering one name fail at
import, naming both.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Iterable
from pathlib import Path

from evalkit.metrics.base import JudgeScorer, Metric, UnknownMetricError
from evalkit.plugins import Registry, UnknownPluginError
from evalkit.records import Conversation, MetricValue

MetricFn = Callable[[Conversation], MetricValue]  # the plain scoring function a Metric wraps
VERSION_PARAM_PREFIX = "metric_version."


def _package_modules() -> tuple[str, ...]:
    """Every module of ``evalkit.metrics`` but this one (helpers without metrics register nothing)."""
    here = Path(__file__).resolve().parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name != "registry")
    return tuple(f"evalkit.metrics.{name}" for name in names)


class MetricRegistry(Registry[Metric]):
    """The shared plug-in registry plus the dict reads metric callers use (``METRICS[name]``, ``pop``)."""

    def __getitem__(self, name: str) -> Metric:
        self.load()
        return self._items[name]

    def pop(self, name: str) -> Metric:
        """Remove a metric (tests that register a throw-away one)."""
        self._origins.pop(name, None)
        return self._items.pop(name)


METRICS = MetricRegistry("metric", "evalkit.metrics", builtin_modules=_package_modules())


def register(metric: Metric, origin: str | None = None) -> Metric:
    """Register one metric; ``origin`` (default: the module of its function) names it in duplicate-name errors."""
    return METRICS.add(metric.name, metric, origin=origin or getattr(metric.fn, "__module__", None))


def register_all(metrics: Iterable[Metric], origin: str) -> None:
    """A metric module's registration: ``register_all(METRICS, __name__)``."""
    for metric in metrics:
        register(metric, origin)


def get_metric(name: str) -> Metric:
    try:
        return METRICS.get(name)
    except UnknownPluginError as exc:
        raise UnknownMetricError(f"unknown metric {name!r}; available: {', '.join(exc.options)}") from None


def resolve(names: Iterable[str]) -> list[str]:
    """Selected names plus what composites require, each after its requirements; unknown names raise."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"metric dependency cycle: {' -> '.join((*path, name))}")
        for dep in get_metric(name).requires:
            visit(dep, (*path, name))
        order.append(name)

    for n in names:
        visit(n, ())
    return order


def required_preparation(names: Iterable[str], judge: bool = True) -> set[str]:
    """What the cell must prepare before scoring (e.g. 'assistant_asr'), over the resolved selection. Without a
    judge (``judge=False``) the judge metrics are skipped, so their preparation is not paid for."""
    return {need for n in resolve(names) if judge or get_metric(n).kind != "judge" for need in get_metric(n).needs}


def _failed(name: str, exc: BaseException) -> MetricValue:
    return MetricValue(name=name, score=None, passed=None, details={"error": f"{type(exc).__name__}: {exc}"})


def score_conversation(
    conversation: Conversation, names: list[str], judge: JudgeScorer | None = None
) -> dict[str, MetricValue]:
    """Score one conversation with the selected metrics (and what they require).

    ``judge`` scores the judge-kind metrics (None offline: they are reported as skipped, see metrics.judged).
    A conversation whose scenario declares success criteria is also scored by the success_* metrics.

    A crashed conversation is unscored (None), never scored 0 (Inspect's rule). A metric that raises is recorded as
    failed (score None, ``details.error``); the other metrics are still scored.
    """
    if conversation.success:  # a scenario file's criteria are always scored, whatever the selection
        names = [*names, "success_overall"]
    ordered = resolve(names)
    if conversation.end_reason == "error":
        return {
            n: MetricValue(name=n, score=None, details={"unscored": conversation.error}, version=METRICS[n].version)
            for n in ordered
        }
    out: dict[str, MetricValue] = {}
    for name in ordered:
        metric = METRICS[name]
        try:
            result = metric.score(conversation, out, judge)
        except Exception as exc:  # a metric bug must not cost the cell its other metrics and artifacts
            result = _failed(name, exc)
        # every score says which version of its metric produced it (whatever the metric's function filled in)
        out[name] = result.model_copy(update={"name": name, "version": metric.version})
    return out


def metric_versions(names: Iterable[str]) -> dict[str, int]:
    """Each metric of the resolved selection -> its version (logged with a cell's run as ``metric_version.<name>``)."""
    return {name: get_metric(name).version for name in resolve(names)}


def version_params(names: Iterable[str]) -> dict[str, str]:
    """:func:`metric_versions` as MLflow params."""
    return {f"{VERSION_PARAM_PREFIX}{name}": str(v) for name, v in metric_versions(names).items()}
