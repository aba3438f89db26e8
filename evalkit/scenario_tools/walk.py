"""Walk a scenario collection, for the verbs that run every scenario of one (``replay``, ``text-run``): an EVA-Bench
checkout, data folder or dataset file (its records imported on the fly), or a folder of scenario files (and its
sub-folders: an import's ``<out>/<domain>/``). A scenario that cannot be had is an entry with the reason, so one bad
file or record never hides the others."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.scenario_tools.eva_import import DEFAULT_OPTIONS, ImportOptions, find_datasets, iter_dataset
from evalkit.scenarios.schema import Scenario
from evalkit.scenarios.store import ScenarioError, load_scenario


@dataclass(frozen=True)
class Entry:
    domain: str
    id: str
    scenario: Scenario | None  # None: ``error`` says why it cannot be had
    error: str = ""
    record: Mapping[str, Any] | None = None  # the EVA-Bench record it was imported from


def walk(path: Path, options: ImportOptions = DEFAULT_OPTIONS) -> Iterator[Entry]:
    """Every scenario under ``path``, dataset by dataset or file by file in name order. ScenarioError when ``path``
    is neither an EVA-Bench dataset nor a folder."""
    try:
        datasets = find_datasets(path)
    except ScenarioError:
        if not path.is_dir():
            raise
        yield from _folder(path)
        return
    for dataset in datasets:
        for rid, record, scenario in iter_dataset(dataset, options, tools=None):
            if isinstance(scenario, Scenario):
                yield Entry(dataset.domain, rid, scenario, record=record)
            else:
                yield Entry(dataset.domain, rid, None, str(scenario), record)


def _folder(folder: Path) -> Iterator[Entry]:
    for file in sorted(folder.rglob("*.json")):
        try:
            scenario = load_scenario(file)
        except ScenarioError as exc:
            yield Entry(file.parent.name, file.stem, None, str(exc))
            continue
        yield Entry(scenario.domain, scenario.id, scenario)
