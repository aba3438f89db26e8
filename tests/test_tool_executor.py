"""The tool executor turns every failure inside a tool into a structured error for the agent: a tool's own bug
(a plain KeyError on a DB it did not expect) never escapes and ends the call, and leaves no partial write."""

from __future__ import annotations

from typing import Any

from evalkit.agents.base import ToolBox
from evalkit.domains.base import ToolArgs, ToolExecutor, ToolRegistry


class RecordArgs(ToolArgs):
    record_id: str


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(RecordArgs, writes=True)
    def close_record(db: dict[str, Any], args: RecordArgs) -> dict[str, Any]:
        """Close a record (half-written before it looks the record up)."""
        db["log"] = ["closing"]
        db["records"][args.record_id]["open"] = False  # KeyError on an unknown id: the tool's bug
        return {"closed": args.record_id}

    return registry


def test_an_exception_inside_a_tool_is_a_structured_error_and_writes_nothing():
    executor = ToolExecutor(_registry(), {"records": {"r1": {"open": True}}})
    tools = ToolBox(executor)
    failed = tools.call("close_record", record_id="r9")
    assert failed["status"] == "error" and failed["error_type"] == "tool_exception"
    assert "KeyError" in failed["message"] and "r9" in failed["message"]
    assert "log" not in executor.db  # the half-done write was on the scratch copy
    assert tools.drain() == [("close_record", {"record_id": "r9"}, failed)]  # recorded like any call
    assert tools.call("close_record", record_id="r1")["status"] == "success"
    assert executor.db["records"]["r1"]["open"] is False
