"""Escalation: handing the call to a live IT agent."""

from __future__ import annotations

from typing import Any

from evalkit.domains.base import ToolArgs
from evalkit.domains.itsm.tools.common import (
    REGISTRY,
)


class TransferArgs(ToolArgs):
    reason: str


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live agent (recorded, so an unneeded transfer fails task completion)."""
    db.setdefault("transfers", []).append({"reason": args.reason})
    return {"transferred": True}
