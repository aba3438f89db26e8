"""One call's tools as the tool server serves them: the conversation's ``ToolBox`` behind a lock (no I/O here).

The tool server's thread executes the agent's calls while the call loop's thread drains the recorded calls into
the agent's turns, so every touch of the ToolBox or its DB goes through the session's lock. Once the call has
ended the session refuses everything (``SessionEnded``): a late request never changes a finished conversation.
"""

from __future__ import annotations

import copy
import threading
from typing import Any, Literal

from evalkit.agents.base import ToolBox
from evalkit.call.events import ToolCallTuple
from evalkit.domains.base import ToolRegistry
from evalkit.tool_log import parse_log

ServedMode = Literal["harness", "agent_side"]


class SessionEnded(LookupError):
    """The session's call is over (or it was never registered): the tool server answers 404."""


class ToolCrash(RuntimeError):
    """A tool raised in the harness (a harness bug, not the agent's mistake): the call ends with this reason."""


class ModeError(RuntimeError):
    """A request the session's ``tools`` mode does not serve (e.g. a final DB while the harness owns the DB)."""


def openai_tools(registry: ToolRegistry) -> list[dict[str, Any]]:
    """The tools as an agent receives them: OpenAI's function-tool shape, from each ToolSpec's JSON schema."""
    return [{"type": "function", "function": registry[name].json_schema()} for name in registry.names]


class ToolSession:
    """``session_id`` -> one conversation's ToolBox. ``mode`` ``harness``: the agent's calls run on the harness's
    DB; ``agent_side``: the agent runs its tools itself, reads the scenario DB here and posts its final DB back
    (which then is the conversation's end state)."""

    def __init__(self, session_id: str, toolbox: ToolBox, mode: ServedMode = "harness") -> None:
        self.session_id = session_id
        self.mode = mode
        self._toolbox = toolbox
        self._lock = threading.Lock()
        self._ended = False
        self.tools = openai_tools(toolbox.executor.registry)
        self._scenario_db = copy.deepcopy(toolbox.executor.db) if mode == "agent_side" else None
        self.final_db_posted = threading.Event()
        self.crash: str | None = None  # why a tool crashed; the caller session ends the call with it

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """Execute one call on the conversation's DB and record it (a bad name or bad arguments is an error result
        for the agent, recorded and scored as its behaviour)."""
        with self._lock:
            self._check_open()
            try:
                return self._toolbox.call_json(name, arguments)
            except Exception as exc:  # the executor turns the agent's mistakes into results: this is the harness's
                self.crash = f"tool {name!r} crashed in the harness: {type(exc).__name__}: {exc}"
                raise

    def drain(self) -> list[ToolCallTuple]:
        """The calls recorded since the last drain (the caller session puts them in the agent turn it emits);
        ``ToolCrash`` once a tool has crashed."""
        with self._lock:
            if self.crash is not None:
                raise ToolCrash(self.crash)
            return self._toolbox.drain()

    def scenario_db(self) -> dict[str, Any]:
        if self._scenario_db is None:
            raise ModeError("tools: harness: the harness owns the scenario DB; call the tools instead")
        with self._lock:
            self._check_open()
            return copy.deepcopy(self._scenario_db)

    def post_final_db(self, db: dict[str, Any]) -> None:
        if self.mode != "agent_side":
            raise ModeError("tools: harness: the harness owns the DB, a posted final DB is not taken")
        with self._lock:
            self._check_open()
            self._toolbox.executor.db = copy.deepcopy(db)
        self.final_db_posted.set()

    def report_calls(self, calls: Any) -> int:
        """The agent's log of calls to its own tools (evalkit.tool_log; ``ToolLogError`` when malformed)."""
        entries = parse_log(calls)
        with self._lock:
            self._check_open()
            self._toolbox.executor.agent_log = [*(self._toolbox.executor.agent_log or []), *entries]
        return len(entries)

    def end(self) -> None:
        with self._lock:
            self._ended = True

    def _check_open(self) -> None:
        if self._ended:
            raise SessionEnded(f"tool session {self.session_id!r} has ended: its call is over")
