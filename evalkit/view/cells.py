"""A cell as the viewer reads it: its records (and where its WAVs are) from a cell folder, as the runner writes it
(``records/<scenario>_t<trial>.json``, ``audio/<scenario>_t<trial>/<track>.wav``, ``config.yaml``,
``aggregates.json``). Plain files only: the viewer never imports mlflow (a run is downloaded first, by
evalkit.tracking)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalkit.records import ConversationRecord


class ViewInputError(ValueError):
    """A folder or run the viewer cannot read (one line for the command line)."""


@dataclass(frozen=True)
class CellView:
    """One cell: a name for the page, its condition, its aggregates and its conversations by (scenario, trial)."""

    title: str
    condition: str
    folder: Path
    records: dict[tuple[str, int], ConversationRecord]
    aggregates: dict[str, float] = field(default_factory=dict)
    cell_key: str | None = None
    twin_key: str | None = None
    linkable: bool = True  # False: the folder is a temporary copy, a page must not link its WAVs

    def audio_file(self, key: tuple[str, int], track: str) -> Path | None:
        """The WAV of one track (``user_clean``, ``user_heard``, ``assistant``) of a conversation, if written."""
        path = self.folder / "audio" / f"{key[0]}_t{key[1]}" / f"{track}.wav"
        return path if path.is_file() else None


def _condition(config: dict[str, Any]) -> str:
    """The perturbation's name, ``clean`` without one (as ``RunConfig.condition``)."""
    perturb = config.get("perturb") or {}
    name = perturb.get("name") if isinstance(perturb, dict) else None
    return str(name or "clean")


def _title(config: dict[str, Any], condition: str) -> str:
    """``condition | domain | agent | persona | voice | seed``: the cell run's name, read back from its config."""

    def name(group: str) -> str:
        value = config.get(group) or {}
        return str(value.get("name", "?")) if isinstance(value, dict) else "?"

    interrupt = config.get("interrupt") or {}
    lead = f"{condition}+{interrupt['name']}" if isinstance(interrupt, dict) and interrupt.get("name") else condition
    return " | ".join([lead, name("domain"), name("agent"), name("persona"), name("voice"),
                       f"seed{config.get('seed', '?')}"])  # fmt: skip


def load_cell_dir(folder: Path, tags: dict[str, str] | None = None, linkable: bool = True) -> CellView:
    """A cell folder (the runner's output folder, or a downloaded cell run). ``tags``: the run's MLflow tags when
    known (name, condition, cell and twin keys); else they are read from the folder's ``config.yaml``."""
    records_dir = folder / "records"
    if not records_dir.is_dir():
        raise ViewInputError(f"{folder} is not a cell folder: it has no records/ folder")
    records: dict[tuple[str, int], ConversationRecord] = {}
    for path in sorted(records_dir.glob("*.json")):
        try:
            record = ConversationRecord.model_validate_json(path.read_text())
        except ValueError as exc:
            raise ViewInputError(f"{path} is not a conversation record: {str(exc).splitlines()[0]}") from None
        records[(record.conversation.scenario_id, record.conversation.trial)] = record
    config_path = folder / "config.yaml"
    config = yaml.safe_load(config_path.read_text()) if config_path.is_file() else {}
    config = config if isinstance(config, dict) else {}
    aggregates_path = folder / "aggregates.json"
    aggregates = json.loads(aggregates_path.read_text()) if aggregates_path.is_file() else {}
    tags = tags or {}
    condition = tags.get("condition") or _condition(config)
    return CellView(
        title=tags.get("mlflow.runName") or _title(config, condition),
        condition=condition,
        folder=folder,
        records=records,
        aggregates={k: float(v) for k, v in aggregates.items() if isinstance(v, int | float)},
        cell_key=tags.get("cell_key"),
        twin_key=tags.get("twin_key"),
        linkable=linkable,
    )
