"""Dialogue acts: what an agent's turn does, stated by the agent beside its words (issue 29). A module of its own (no
package imports) so agents, the call loop and callers can all use it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DialogueAct:
    """What an agent's turn does, stated by the agent for a caller that wants exactness (optional): ``ask`` a
    ``field``, ``confirm`` a ``field``'s ``value`` (a read-back), ``done`` (the task is carried out), ``transfer``,
    ``goodbye``. The harness passes acts through to the caller untouched; a caller may ignore them."""

    act: str
    field: str | None = None
    value: str | None = None

    @classmethod
    def parse(cls, raw: object) -> DialogueAct | None:
        """An act as a wire agent sends it (``{"act": "ask", "field": "last_name"}``); None: not an act."""
        if isinstance(raw, DialogueAct):
            return raw
        if not isinstance(raw, dict) or not isinstance(raw.get("act"), str):
            return None
        field, value = raw.get("field"), raw.get("value")
        return cls(raw["act"], str(field) if field is not None else None, str(value) if value is not None else None)
