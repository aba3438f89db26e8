"""Escalation: handing the call to a live HR agent."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from evalkit.domains.base import ToolArgs
from evalkit.domains.hr.tools.common import (
    REGISTRY,
)

# ---------------------------------------------------------------- escalation


class TransferArgs(ToolArgs):
    reason: str
    employee_id: str | None = None


@REGISTRY.tool(TransferArgs, writes=True)
def transfer_to_agent(db: dict[str, Any], args: TransferArgs) -> dict[str, Any]:
    """Hand the call to a live HR agent."""
    db["transfers"].append(
        {
            "employee_id": args.employee_id,
            "reason": args.reason,
            "at": datetime.fromisoformat(db["meta"]["today"]).date().isoformat(),
        }
    )
    return {"transferred": True}
