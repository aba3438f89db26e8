"""Deterministic tool executor shared by all domains (EVA-Bench §2.3: a declarative mock executor).

Tools are plain functions ``(db, args) -> dict`` registered with a pydantic argument model. The executor
validates arguments, runs the tool against the conversation's own DB copy, and turns every failure into a
structured result: a tool error is information for the agent, never an exception that ends the conversation.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

log = logging.getLogger("evalkit.tools")


class ToolError(Exception):
    """Raised inside a tool to return ``{"status": "error", "error_type": ..., "message": ..., **details}``.

    ``details`` (or keyword fields): further fields of the error result, facts the agent needs to explain the
    refusal (alternatives, the missing certifications). ``keep_writes``: the tool's writes stand although it reports
    an error (EVA-Bench's ITSM MFA reset opens a security case and still refuses the change); by default a failing
    tool leaves the DB untouched."""

    def __init__(
        self,
        error_type: str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        keep_writes: bool = False,
        **fields: Any,
    ) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.details = {**dict(details or {}), **fields}
        self.keep_writes = keep_writes


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


# The 1-based count of calls to the running tool in this conversation, this one included (failed calls count):
# EVA-Bench derives some record ids from it (airline refunds ``REF-<code>-002``). Set by ``ToolExecutor.call``.
_CALL_INDEX: ContextVar[int] = ContextVar("evalkit_tool_call_index", default=1)


def call_index() -> int:
    """How many times the running tool has been called in this conversation, this call included."""
    return _CALL_INDEX.get()


ToolFn = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args_model: type[ToolArgs]
    fn: ToolFn
    writes: bool
    description: str
    # Irreversible: a write the caller cannot take back (cancellations, charges, changes; MM-tau-p2's "high-risk
    # actions"), which an agent must confirm first. Always a write.
    irreversible: bool = False

    def json_schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.args_model.model_json_schema(),
        }


# (validation error, argument model) -> (error_type, message): a domain's own wording of invalid arguments.
InvalidArgs = Callable[[ValidationError, type[ToolArgs]], tuple[str, str]]


# A domain's session check: raise ToolError unless the session holds the proof(s) named (ITSM: the one flag; HR:
# any one of the tiers).
Authorize = Callable[[dict[str, Any], tuple[str, ...]], None]


def _guarded(fn: ToolFn, authorize: Authorize, tiers: tuple[str, ...]) -> ToolFn:
    """``fn`` behind its session check (the check runs first, as it did as the tool's first line)."""

    @functools.wraps(fn)
    def run(db: dict[str, Any], args: Any) -> dict[str, Any]:
        authorize(db, tiers)
        return fn(db, args)

    return run


class ToolRegistry:
    """The flat tool list of one domain (agents get all of it, as in EVA-Bench).

    How a domain reports invalid arguments (EVA-Bench's domains name the field's format in ``error_type``): either
    ``field_error_types``, argument field -> the error type an invalid value of it gets (e.g.
    ``invalid_employee_id_format``), or ``invalid_args``, a function of the validation error that returns the error
    type and message; default ``invalid_arguments`` with every pydantic error."""

    def __init__(
        self,
        field_error_types: Mapping[str, str] | None = None,
        invalid_args: InvalidArgs | None = None,
        authorize: Authorize | None = None,
    ) -> None:
        self._tools: dict[str, ToolSpec] = {}
        self.field_error_types: dict[str, str] = dict(field_error_types or {})
        self.invalid_args = invalid_args
        self.authorize = authorize

    def tool(
        self,
        args_model: type[ToolArgs],
        *,
        writes: bool,
        irreversible: bool = False,
        needs: str | tuple[str, ...] = (),
    ) -> Callable[[ToolFn], ToolFn]:
        """Register a tool. ``needs``: the session proof(s) the tool checks before anything else, given to the
        registry's ``authorize`` (the check that opened most tools of a domain, written once)."""
        if irreversible and not writes:
            raise ValueError("an irreversible tool must be a write tool (writes=True)")
        tiers = (needs,) if isinstance(needs, str) else tuple(needs)
        if tiers and self.authorize is None:
            raise ValueError("needs= takes a registry built with authorize=")

        def register(fn: ToolFn) -> ToolFn:
            run = _guarded(fn, self.authorize, tiers) if tiers and self.authorize else fn
            self._tools[fn.__name__] = ToolSpec(
                fn.__name__, args_model, run, writes, (fn.__doc__ or "").strip().split("\n")[0], irreversible
            )
            return run

        return register

    def __getitem__(self, name: str) -> ToolSpec:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def names(self) -> list[str]:
        return sorted(self._tools)

    @property
    def write_tools(self) -> list[str]:
        return sorted(n for n, t in self._tools.items() if t.writes)

    @property
    def irreversible_tools(self) -> list[str]:
        return sorted(n for n, t in self._tools.items() if t.irreversible)


def session_of(db: dict[str, Any]) -> dict[str, Any]:
    """The DB's ``session`` table (who the caller proved to be); the executor creates it, tools called on a bare
    DB (tests, generators) get an empty one."""
    return db.setdefault("session", {})


def row(table: Mapping[str, Any], key: str, label: str) -> dict[str, Any]:
    """The record ``key`` of a DB table, or ToolError ``not_found`` "<label> <key> not found": the look-up that
    starts most tools (an empty record counts as missing, as the tools always treated it)."""
    found = table.get(key)
    if not found:
        raise ToolError("not_found", f"{label} {key} not found")
    return found


def employee_verified(db: dict[str, Any], employee_id: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """Mark the session's standard employee verification and give the tool's answer (HR and ITSM share it)."""
    session_of(db).update(employee_auth=True, authenticated_employee_id=employee_id)
    return {
        "authenticated": True,
        "employee_id": employee_id,
        "first_name": record.get("first_name"),
        "last_name": record.get("last_name"),
        "message": f"Employee {employee_id} verified",
    }


def _error(error_type: str, message: str) -> dict[str, Any]:
    return {"status": "error", "error_type": error_type, "message": message}


class ToolExecutor:
    """Runs tools on a private deep copy of the scenario DB; ``db`` is the live end state."""

    def __init__(self, registry: ToolRegistry, initial_db: Mapping[str, Any]) -> None:
        self.registry = registry
        self.db: dict[str, Any] = copy.deepcopy(dict(initial_db))
        self.db.setdefault("session", {})
        self.call_counts: dict[str, int] = {}
        # Why ``db`` is not the conversation's end state, when it is not (issue 13: an agent that ran its tools on
        # its own side and posted no final DB back); task completion is then unscored with this reason.
        self.final_db_missing: str | None = None
        # The tool-call log the agent reported for tools it ran on its own side (evalkit.tool_log); None: none came.
        self.agent_log: list[dict[str, Any]] | None = None
        # Why the harness's own records are not all the agent's calls, when they are not (tools ran on the agent's
        # side and it reported no log): success_tool_calls is then unscored with this reason.
        self.tool_calls_unseen: str | None = None

    def call(self, name: str, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """``arguments``: a mapping, or the JSON text a wire agent sent. A malformed call (unknown tool, invalid
        JSON, wrong arguments) is the agent's behaviour (issue 14): an error result it must cope with, recorded and
        scored, never an exception that would end the call as an infrastructure failure."""
        if name not in self.registry:
            return _error("unknown_tool", f"no tool named {name!r}; available: {', '.join(self.registry.names)}")
        spec = self.registry[name]
        self.call_counts[name] = self.call_counts.get(name, 0) + 1
        parsed = _argument_object(arguments)
        if isinstance(parsed, str):
            return _error("invalid_arguments", parsed)
        try:
            args = spec.args_model.model_validate(parsed)
        except ValidationError as exc:
            if self.registry.invalid_args is not None:
                return _error(*self.registry.invalid_args(exc, spec.args_model))
            return _error(_validation_error_type(self.registry, exc), "; ".join(_describe(e) for e in exc.errors()))
        # Tools mutate only on success: work on a scratch copy and commit it afterwards, so a tool that
        # fails half-way leaves no partial write behind.
        scratch = copy.deepcopy(self.db)
        token = _CALL_INDEX.set(self.call_counts[name])
        try:
            result = spec.fn(scratch, args)
        except ToolError as exc:
            if exc.keep_writes:
                self.db = scratch
            return {**_error(exc.error_type, exc.message), **exc.details}
        except Exception as exc:  # a tool bug (a KeyError on an odd DB): the agent sees an error, the call goes on
            log.warning("tool %s raised %r", name, exc)
            return _error("tool_exception", f"the tool failed: {type(exc).__name__}: {exc}")
        finally:
            _CALL_INDEX.reset(token)
        if "status" in result:  # the envelope owns "status"; a tool must name its own status fields
            raise RuntimeError(f"tool {name} returned a reserved 'status' key")
        self.db = scratch
        return {"status": "success", **result}


def _argument_object(arguments: Mapping[str, Any] | str) -> dict[str, Any] | str:
    """The arguments as a dict, or why they are not an object (a str)."""
    if isinstance(arguments, str | bytes):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            return f"arguments are not valid JSON: {exc}"
    if not isinstance(arguments, Mapping):
        return f"arguments must be an object, got {type(arguments).__name__}"
    return dict(arguments)


def _validation_error_type(registry: ToolRegistry, exc: ValidationError) -> str:
    """The registry's error type for the first invalid field it names, else ``invalid_arguments``."""
    for error in exc.errors():
        loc = error.get("loc", ())
        if loc and str(loc[0]) in registry.field_error_types:
            return registry.field_error_types[str(loc[0])]
    return "invalid_arguments"


def _describe(error: Mapping[str, Any]) -> str:
    loc = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
    return f"{loc}: {error.get('msg', 'invalid')}"
