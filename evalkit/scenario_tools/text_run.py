"""Text-mode task completion over a scenario collection: the local agent and the scripted caller with a perfect ear.

``python -m evalkit.scenarios text-run PATH`` runs every scenario (a folder of scenario files, a domain's own folder,
or EVA-Bench's records imported on the fly) through ``run_text_dialogue`` and prints, per domain, how many tasks
completed and, for each one that did not, task completion's first difference. It measures the dialogue logic alone
(issue 15 point 5: "text-mode (perfect ear) task completion"), seconds for a whole domain, no audio.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.metrics.task_completion import task_completion
from evalkit.scenario_tools.eva_import import DEFAULT_OPTIONS, ImportOptions
from evalkit.scenario_tools.replay import first_db_difference
from evalkit.scenario_tools.walk import walk
from evalkit.scenarios.schema import Scenario
from evalkit.text_dialogue import run_text_dialogue


@dataclass(frozen=True)
class TextOutcome:
    record_id: str
    completed: bool | None  # None: the scenario could not be run (it does not load or import)
    detail: str = ""


@dataclass
class DomainTextRun:
    domain: str
    outcomes: list[TextOutcome] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return sum(o.completed is True for o in self.outcomes)

    @property
    def errors(self) -> int:
        return sum(o.completed is None for o in self.outcomes)

    def summary(self, verbose: bool = True) -> str:
        n = len(self.outcomes)
        rate = self.completed / n if n else 0.0
        head = f"{self.domain}: {self.completed}/{n} tasks completed in text mode ({rate:.0%}), {self.errors} errors"
        if not verbose:
            return head
        failed = [o for o in self.outcomes if o.completed is not True]
        return "\n".join([head] + [f"  {o.record_id}: {o.detail}" for o in failed])


def run_one(scenario: Scenario) -> TextOutcome:
    try:
        conversation = run_text_dialogue(scenario)
    except Exception as exc:  # a dialogue bug on one scenario must not hide the others' results
        return TextOutcome(scenario.id, False, f"crashed: {type(exc).__name__}: {exc}")
    value = task_completion(conversation)
    if value.passed:
        return TextOutcome(scenario.id, True)
    why = first_db_difference(conversation.expected_db, conversation.final_db) or str(value.details.get("reason"))
    return TextOutcome(scenario.id, False, f"{why} ({len(conversation.turns)} turns)")


def text_run(path: Path, options: ImportOptions = DEFAULT_OPTIONS, limit: int | None = None) -> list[DomainTextRun]:
    """Every scenario under ``path``; ``limit``: at most this many per domain (a quick look)."""
    by_domain: dict[str, DomainTextRun] = {}
    for entry in walk(path, options):
        report = by_domain.setdefault(entry.domain, DomainTextRun(entry.domain))
        if limit is not None and len(report.outcomes) >= limit:
            continue
        if entry.scenario is None:
            report.outcomes.append(TextOutcome(entry.id, None, entry.error))
        else:
            report.outcomes.append(run_one(entry.scenario))
    return [by_domain[d] for d in sorted(by_domain)]


def render(reports: Iterable[DomainTextRun], verbose: bool = True) -> str:
    return "\n".join(r.summary(verbose) for r in reports)
