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


def test_a_tool_error_may_carry_details_and_keep_its_writes():
    """EVA-Bench's ITSM MFA reset refuses but opens a security case: ``keep_writes`` commits the tool's writes,
    ``details`` add fields to the error; a plain ToolError still leaves nothing behind."""
    from pydantic import Field

    from evalkit.domains.base import ToolError

    class Args(ToolArgs):
        record_id: str = Field(pattern=r"^R\d$")

    registry = ToolRegistry({"record_id": "invalid_record_id_format"})

    @registry.tool(Args, writes=True)
    def refuse_but_log(db: dict[str, Any], args: Args) -> dict[str, Any]:
        """Log the request, then refuse it."""
        db.setdefault("log", []).append(args.record_id)
        raise ToolError("in_person_required", "come in person", details={"case": "C1"}, keep_writes=True)

    @registry.tool(Args, writes=True)
    def refuse(db: dict[str, Any], args: Args) -> dict[str, Any]:
        """Write, then refuse: nothing stays."""
        db["log"] = ["x"]
        raise ToolError("nope", "no")

    executor = ToolExecutor(registry, {})
    result = executor.call("refuse_but_log", {"record_id": "R1"})
    assert result == {"status": "error", "error_type": "in_person_required", "message": "come in person", "case": "C1"}
    assert executor.db["log"] == ["R1"]
    assert executor.call("refuse", {"record_id": "R2"})["error_type"] == "nope" and executor.db["log"] == ["R1"]
    bad = executor.call("refuse", {"record_id": "X"})
    assert bad["error_type"] == "invalid_record_id_format" and "record_id" in bad["message"]
    assert executor.call("refuse", {"record_id": "R3", "other": 1})["error_type"] == "invalid_arguments"


def test_a_tool_registered_with_needs_checks_the_session_first_and_row_names_a_missing_record():
    """``needs=`` runs the registry's ``authorize`` before the tool (so a refused call writes nothing and never
    reaches the tool); ``row`` is the shared look-up whose miss is a ``not_found`` error naming the record."""
    import pytest

    from evalkit.domains.base import ToolError, row, session_of

    def authorize(db: dict[str, Any], tiers: tuple[str, ...]) -> None:
        if not any(session_of(db).get(t) for t in tiers):
            raise ToolError("authentication_required", f"needs {' or '.join(tiers)}")

    registry = ToolRegistry(authorize=authorize)

    @registry.tool(RecordArgs, writes=True, needs=("employee_auth", "otp_auth"))
    def close_record(db: dict[str, Any], args: RecordArgs) -> dict[str, Any]:
        """Close a record."""
        row(db["records"], args.record_id, "Record")["open"] = False
        return {"closed": args.record_id}

    assert registry["close_record"].description == "Close a record."  # the wrapper keeps the tool's doc
    executor = ToolExecutor(registry, {"records": {"r1": {"open": True}}})
    refused = executor.call("close_record", {"record_id": "r1"})
    assert (refused["error_type"], refused["message"]) == ("authentication_required", "needs employee_auth or otp_auth")
    assert executor.db["records"]["r1"]["open"] is True
    executor.db["session"] = {"otp_auth": True}
    missing = executor.call("close_record", {"record_id": "r9"})
    assert (missing["error_type"], missing["message"]) == ("not_found", "Record r9 not found")
    assert executor.call("close_record", {"record_id": "r1"})["status"] == "success"
    assert executor.db["records"]["r1"]["open"] is False
    with pytest.raises(ValueError, match="authorize"):
        ToolRegistry().tool(RecordArgs, writes=False, needs="employee_auth")
