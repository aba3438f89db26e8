"""The caller's wording, drawn among curated paraphrases (issue 17): what makes two trials of a scenario say the
same things in different words. The tables are data (``paraphrases.yaml`` beside this module); an entity is never
reworded, only the words around it. Off (no rng), every method returns the script's own words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

TABLE_FILE = Path(__file__).with_name("paraphrases.yaml")


def _load(path: Path = TABLE_FILE) -> dict[str, object]:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


_TABLE = _load()
SENTENCES: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _TABLE["sentences"].items()}  # type: ignore[union-attr]
OPENINGS: tuple[str, ...] = tuple(_TABLE["openings"])  # type: ignore[arg-type]
CODE_LABELS: tuple[str, ...] = tuple(_TABLE["code_labels"])  # type: ignore[arg-type]
ANSWER_PREFIXES: tuple[str, ...] = tuple(_TABLE["answer_prefixes"])  # type: ignore[arg-type]
REQUESTS: tuple[str, ...] = tuple(_TABLE["requests"])  # type: ignore[arg-type]


class Paraphraser:
    """Draws one wording per utterance from ``rng`` (the conversation's own wording stream); None: the script."""

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng

    def _pick(self, options: tuple[str, ...]) -> str:
        assert self.rng is not None
        return options[int(self.rng.integers(len(options)))]

    def sentence(self, text: str) -> str:
        """A fixed sentence of the script, reworded (a sentence the table does not list is said as it is)."""
        options = SENTENCES.get(text)
        return self._pick(options) if self.rng is not None and options else text

    def opening(self, text: str) -> str:
        return self._pick(OPENINGS) + text if self.rng is not None else text

    def code_label(self, label: str) -> str:
        return self._pick(CODE_LABELS) if self.rng is not None and label == "it's" else label

    def answer(self, text: str, lower: bool = False) -> str:
        """``text`` after a drawn prefix; ``lower``: its first letter is lower-cased after one (a choice, not a name
        or a month)."""
        if self.rng is None:
            return text
        prefix = self._pick(ANSWER_PREFIXES)
        if not prefix:
            return text
        lower = lower and not prefix.endswith(". ")  # "Sure. Window, please." starts a sentence of its own
        return prefix + (text[:1].lower() + text[1:] if lower else text)

    def request(self, task: str) -> str:
        template = self._pick(REQUESTS) if self.rng is not None else REQUESTS[0]
        return template.format(task=task)
