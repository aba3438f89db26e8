"""A tool-call log an agent reports for the tools it ran on its own side (issue 29: ``success.tool_calls`` when the
tools are the agent's, ``agent.tools=agent_side``, or an in-process agent's own back end).

The harness records every call it executes itself; it cannot see an agent's own tools. Such an agent reports what
it called as a list of entries, ``{"name": str, "arguments": {...} or "<JSON text>", "result": {...}}`` (``result``
optional; ``{"status": "error", ...}`` marks a failed call), by:

- a wire agent on the Twilio-WS protocol: the event ``{"event": "evalkit_tool_calls", "calls": [...]}`` at any
  time before it hangs up (each event adds its calls), or ``POST <tool_endpoint>/tool_calls`` with
  ``{"calls": [...]}`` until ``agent.final_db_timeout_s`` after the call's ``stop`` (beside ``/final_db``);
- an in-process agent: ``context.tools.report(calls)`` (``evalkit.agents.base.ToolBox.report``).

The log goes into the record as ``Conversation.agent_tool_calls``; ``success_tool_calls`` checks it together with
the harness's own records. Pure functions only: validating an entry never touches a DB.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.records import ToolCall

EVENT = "evalkit_tool_calls"


class ToolLogError(ValueError):
    """A malformed log: one line naming the entry and what is wrong (the agent's mistake, never a crash)."""


def _arguments(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):  # the JSON text a model produced, as OpenAI's tool calls carry it
        try:
            value = json.loads(value)
        except ValueError:
            raise ToolLogError(f"{where}.arguments: not a JSON object") from None
    if not isinstance(value, dict):
        raise ToolLogError(f"{where}.arguments: must be an object, got {type(value).__name__}")
    return value


def parse_log(calls: Any) -> list[dict[str, Any]]:
    """Validated entries ``{name, arguments, result}`` of a reported log (``ToolLogError`` naming the first bad one)."""
    if not isinstance(calls, list):
        raise ToolLogError(f"calls: must be a list of tool calls, got {type(calls).__name__}")
    entries = []
    for i, call in enumerate(calls):
        where = f"calls[{i}]"
        if not isinstance(call, dict):
            raise ToolLogError(f"{where}: must be an object with a name, got {type(call).__name__}")
        if "function" in call and isinstance(call["function"], dict):  # OpenAI's whole tool call
            call = call["function"]
        name = call.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ToolLogError(f"{where}.name: missing or empty")
        result = call.get("result")
        if result is not None and not isinstance(result, dict):
            raise ToolLogError(f"{where}.result: must be an object, got {type(result).__name__}")
        entries.append({"name": name, "arguments": _arguments(call.get("arguments"), where), "result": result or {}})
    return entries


def tool_call_records(entries: list[dict[str, Any]]) -> list[ToolCall]:
    """The log as ``records.ToolCall`` rows (``ok``: the result is not an error; ``t_ms`` 0: the agent's clock is
    not the call's)."""
    return [
        ToolCall(
            name=e["name"],
            arguments=e["arguments"],
            result=e["result"],
            ok=e["result"].get("status") != "error",
            t_ms=0.0,
        )
        for e in entries
    ]
