"""Harness-owned tools for wire agents (issue 13 point 3): the process's tool server on 127.0.0.1 (JSON HTTP in
OpenAI's function-call shape and MCP over streamable HTTP, scoped by session id), a real MCP client of the ``mcp``
SDK, and third-party-shaped agent servers that reach the tools from the ``start`` message's customParameters."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from mcp import Client
from websockets.asyncio.server import ServerConnection, serve

from evalkit.agents.base import AgentContext, ToolBox
from evalkit.call import CallOutcome, CallSettings, RealClock, run_call
from evalkit.call.conversation import conversation_record
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolArgs, ToolExecutor, ToolRegistry
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.authentication import authentication_success
from evalkit.metrics.success import success_tool_calls
from evalkit.metrics.task_completion import task_completion
from evalkit.records import Conversation
from evalkit.wire.tools.remote import RemoteExecutor, ToolEndpointError
from evalkit.wire.tools.server import ToolServer, tool_server
from evalkit.wire.tools.session import ToolCrash, ToolSession, openai_tools
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.codec import encode
from evalkit.wire.twilio_ws.server import url_of
from tests.test_call_loop import ScriptCaller, ToneChannel

SCENARIO = load_scenarios("airline", ["AL-005"])[0]  # read-only: authenticate, then flight status and disruption
AUTH = {"confirmation_number": "M4TX6L", "last_name": "Okafor"}
STATUS = {"flight_number": "SK418", "flight_date": "2026-06-18"}
DISRUPTION = {"flight_number": "SK418", "date": "2026-06-18"}


# -- plain HTTP, as any agent would speak it (stdlib only) -----------------------------------------------------


def http(method: str, url: str, body: Any = None, raw: bytes | None = None) -> tuple[int, Any]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def executor() -> ToolExecutor:
    return ToolExecutor(tool_registry("airline"), SCENARIO.scenario_db)


@pytest.fixture
def live() -> Iterator[tuple[ToolServer, ToolSession, ToolExecutor]]:
    """A session of the process's tool server over a fresh copy of AL-005's DB; unregistered afterwards."""
    server = tool_server()
    tools = executor()
    session = ToolSession(f"CAtest{id(tools):x}", ToolBox(tools))
    server.register(session)
    yield server, session, tools
    server.unregister(session.session_id)


def test_one_tool_server_per_process_serves_every_session() -> None:
    assert tool_server() is tool_server()
    assert tool_server().base_url("X").startswith("http://127.0.0.1:")
    # every call of a process shares it: a call asking for another address is refused, not silently re-pointed
    with pytest.raises(RuntimeError, match="must be the same for every call"):
        tool_server(public_url="https://tunnel.example")


def test_a_deployed_agent_is_told_the_public_url_and_reaches_the_tools_by_it() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # the agent reaches this machine as "localhost" (standing in for a LAN name or a tunnel)
    server = ToolServer("0.0.0.0", port, public_url=f"http://localhost:{port}/")
    server.start()
    session = ToolSession("CApublic", ToolBox(executor()))
    server.register(session)
    assert server.base_url("CApublic") == f"http://localhost:{port}/sessions/CApublic"
    status, listed = http("GET", server.base_url("CApublic") + "/tools")
    assert status == 200 and listed == openai_tools(tool_registry("airline"))

    async def over_mcp() -> Any:  # MCP's DNS-rebinding guard accepts the public host
        async with Client(server.mcp_url("CApublic")) as client:
            return await client.call_tool("get_reservation", AUTH)

    assert not asyncio.run(over_mcp()).is_error
    assert [n for n, _, _ in session.drain()] == ["get_reservation"]


def test_the_json_http_endpoint_lists_and_calls_the_tools_on_the_conversations_db(live) -> None:
    server, session, tools = live
    base = server.base_url(session.session_id)
    status, listed = http("GET", base + "/tools")
    assert status == 200 and listed == openai_tools(tool_registry("airline"))  # as the agent receives them
    assert listed[0]["type"] == "function" and set(listed[0]["function"]) == {"name", "description", "parameters"}
    # arguments as an object, as JSON text, and OpenAI's tool_call shape
    status, found = http("POST", base + "/call", {"name": "get_reservation", "arguments": AUTH})
    assert status == 200 and found["status"] == "success"
    assert found["reservation"]["confirmation_number"] == "M4TX6L"
    status, flight = http("POST", base + "/call", {"name": "get_flight_status", "arguments": json.dumps(STATUS)})
    assert status == 200 and flight["status"] == "success"
    call = {"id": "call_1", "type": "function", "function": {"name": "get_disruption_info", "arguments": "{}"}}
    status, wrong = http("POST", base + "/call", call)  # well-formed, wrong arguments: the agent's error result
    assert status == 200 and wrong["status"] == "error" and wrong["error_type"] == "invalid_flight_number_format"
    # executed on this conversation's DB, recorded in order
    assert tools.db["session"] == {"confirmation_number": "M4TX6L", "last_name": "okafor"}
    recorded = session.drain()
    assert [(n, a) for n, a, _ in recorded] == [
        ("get_reservation", AUTH),
        ("get_flight_status", STATUS),
        ("get_disruption_info", {}),
    ]
    assert [r for _, _, r in recorded] == [found, flight, wrong]
    assert session.drain() == []
    # the reference server's agent sees the same tools through its ToolBox (a registry from the list, no DB)
    remote = RemoteExecutor(base)
    assert remote.registry.names == tool_registry("airline").names and "transfer_to_agent" in remote.registry
    assert not hasattr(remote, "db")


def test_an_mcp_client_lists_and_calls_the_tools_of_a_live_session(live) -> None:
    server, session, tools = live

    async def main() -> tuple[Any, Any, Any]:
        async with Client(server.mcp_url(session.session_id)) as client:
            listed = await client.list_tools()
            called = await client.call_tool("get_reservation", AUTH)
            unknown = await client.call_tool("book_a_spaceship", {"to": "Mars"})
            return listed, called, unknown

    listed, called, unknown = asyncio.run(main())
    schemas = {f["name"]: f for f in (t["function"] for t in openai_tools(tool_registry("airline")))}
    assert {t.name: (t.description, t.input_schema) for t in listed.tools} == {
        n: (f["description"], f["parameters"]) for n, f in schemas.items()
    }
    assert not called.is_error and called.structured_content["status"] == "success"
    assert json.loads(called.content[0].text) == called.structured_content
    assert unknown.is_error and unknown.structured_content["error_type"] == "unknown_tool"  # the agent's mistake
    assert tools.db["session"]["confirmation_number"] == "M4TX6L"  # landed in the conversation's DB
    assert [n for n, _, _ in session.drain()] == ["get_reservation", "book_a_spaceship"]  # both recorded


def test_bad_session_ids_and_malformed_bodies_get_clear_errors(live) -> None:
    server, session, tools = live
    base = server.base_url(session.session_id)
    for method, path in (("GET", "/tools"), ("POST", "/call"), ("POST", "/mcp")):
        status, body = http(method, server.base_url("CAnobody") + path, {"name": "get_reservation"})
        assert status == 404 and body == {
            "error": "unknown tool session 'CAnobody': no call of this harness has that session id"
        }
    assert http("POST", base + "/call", raw=b"{not json")[0] == 400
    assert "not JSON" in http("POST", base + "/call", raw=b"{not json")[1]["error"]
    status, body = http("POST", base + "/call", {"arguments": AUTH})
    assert status == 400 and body["error"] == 'the body names no tool: "name" must be a non-empty string'
    assert http("POST", base + "/call", ["get_reservation"])[0] == 400
    mcp_request = urllib.request.Request(
        base + "/mcp", b"{not json", {"Content-Type": "application/json", "Accept": "application/json"}, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:  # the SDK's own answer: a JSON-RPC parse error
        urllib.request.urlopen(mcp_request, timeout=10)
    assert refused.value.code == 400 and json.loads(refused.value.read())["error"]["code"] == -32700
    status, body = http("POST", base + "/final_db", {"reservations": {}})  # the harness owns the DB here
    assert status == 409 and "harness owns the DB" in body["error"]
    assert http("GET", base + "/scenario_db")[0] == 409
    assert session.drain() == [] and tools.db == executor().db  # nothing ran
    # a call of this process that has ended: its id answers 404, says so, and nothing reaches the DB
    server.unregister(session.session_id)
    status, body = http("POST", base + "/call", {"name": "get_reservation", "arguments": AUTH})
    assert status == 404 and body["error"] == f"tool session {session.session_id!r} has ended: its call is over"
    assert "session" not in tools.db or tools.db["session"] == {}
    with pytest.raises(ToolEndpointError, match="answered 404: tool session"):
        RemoteExecutor(base).call("get_reservation", AUTH)
    assert http("GET", server.base_url("CAnext") + "/tools")[0] == 404  # the server goes on serving


class FlightArgs(ToolArgs):
    flight_number: str
    flight_date: str


def test_a_tool_that_raises_is_an_error_result_and_a_harness_bug_is_a_500_that_ends_the_call() -> None:
    server = tool_server()
    # a tool raising on a DB it did not expect (a KeyError) is a structured error for the agent (issue 15 point 4)
    fragile = ToolRegistry()

    @fragile.tool(FlightArgs, writes=False)
    def get_flight_status(db: dict[str, Any], args: FlightArgs) -> dict[str, Any]:
        """A status tool that assumes its table exists."""
        return {"journey": db["journeys"][args.flight_number]}

    odd = ToolSession("CAodd", ToolBox(ToolExecutor(fragile, {})))  # a DB with no tables
    # the executor itself refusing a tool's result (a reserved "status" key) is the harness's bug
    registry = ToolRegistry()

    @registry.tool(ToolArgs, writes=False)
    def broken(db: dict[str, Any], args: ToolArgs) -> dict[str, Any]:
        """A tool that breaks the executor's envelope."""
        return {"status": "mine"}

    buggy = ToolSession("CAcrash", ToolBox(ToolExecutor(registry, {})))
    server.register(odd)
    server.register(buggy)
    try:
        status, body = http(
            "POST", server.base_url("CAodd") + "/call", {"name": "get_flight_status", "arguments": STATUS}
        )
        assert status == 200 and body["error_type"] == "tool_exception" and "KeyError" in body["message"]
        assert [name for name, _, _ in odd.drain()] == ["get_flight_status"]  # recorded like any call
        status, body = http("POST", server.base_url("CAcrash") + "/call", {"name": "broken", "arguments": {}})
        assert status == 500 and body == {
            "error": "tool server error: RuntimeError: tool broken returned a reserved 'status' key"
        }
        with pytest.raises(ToolCrash, match="tool 'broken' crashed in the harness: RuntimeError"):
            buggy.drain()  # the caller session's next drain: the call ends as a failure with this reason
    finally:
        server.unregister("CAodd")
        server.unregister("CAcrash")


def test_two_sessions_at_once_stay_isolated() -> None:
    server = tool_server()
    dbs = [executor(), executor()]
    sessions = [ToolSession(f"CAiso{i}", ToolBox(db)) for i, db in enumerate(dbs)]
    for session in sessions:
        server.register(session)
    names = ["Okafor", "Nobody"]

    def agent(i: int) -> None:  # both agents call at the same time, over both protocols
        remote = RemoteExecutor(server.base_url(sessions[i].session_id))
        for _ in range(20):
            remote.call("get_reservation", {"confirmation_number": "M4TX6L", "last_name": names[i]})

    async def over_mcp(i: int) -> None:
        async with Client(server.mcp_url(sessions[i].session_id)) as client:
            for _ in range(5):
                await client.call_tool("get_flight_status", STATUS)

    async def mcp_both() -> None:
        await asyncio.gather(over_mcp(0), over_mcp(1))

    try:
        threads = [threading.Thread(target=agent, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        asyncio.run(mcp_both())
        for thread in threads:
            thread.join()
        assert dbs[0].db["session"]["last_name"] == "okafor"
        assert dbs[1].db["session"] == {}  # the other agent's mismatching name never authenticated it
        for i, session in enumerate(sessions):
            recorded = session.drain()
            assert len(recorded) == 25
            assert {a.get("last_name") for n, a, _ in recorded if n == "get_reservation"} == {names[i]}
    finally:
        for session in sessions:
            server.unregister(session.session_id)


# -- third-party-shaped agent servers over a real call ----------------------------------------------------------

RATE = 8000
FRAME = 160


def tone(ms: float) -> bytes:
    t = np.arange(int(RATE * ms / 1000)) / RATE
    return encode((0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), "mulaw")


async def speak(ws: ServerConnection, sid: str, ms: float) -> None:
    audio = tone(ms)
    for i in range(0, len(audio), FRAME):
        payload = base64.b64encode(audio[i : i + FRAME]).decode()
        await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
        await asyncio.sleep(0.02)


class ToolUsingAgent:
    """An agent server knowing nothing of evalkit but the contract: it finds its tools at
    ``customParameters.tool_endpoint`` (plain HTTP), authenticates the caller before its greeting and looks up the
    flight before its answer. ``agent_side``: it runs its 'tools' on its own copy of the scenario DB instead and
    posts the final DB back when the call stops (unless ``post`` is off)."""

    def __init__(self, agent_side: bool = False, post: bool = True, log: bool = False) -> None:
        self.agent_side = agent_side
        self.post = post
        self.log = log  # report its own tools' calls: one in an evalkit_tool_calls event, one by POST /tool_calls
        self.custom: dict[str, str] = {}

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return http("POST", self.custom["tool_endpoint"] + "/call", {"name": name, "arguments": arguments})[1]

    async def handler(self, ws: ServerConnection) -> None:
        sid, db = "", None
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                self.custom = message["start"]["customParameters"]
                if "tool_endpoint" not in self.custom:  # tools: none
                    pass
                elif self.agent_side:
                    _, db = await asyncio.to_thread(http, "GET", self.custom["tool_endpoint"] + "/scenario_db")
                    db["session"] = {"confirmation_number": "M4TX6L", "last_name": "okafor"}  # its own 'tool'
                    if self.log:
                        call = {"name": "get_reservation", "arguments": json.dumps(AUTH), "result": {"status": "ok"}}
                        await ws.send(json.dumps({"event": "evalkit_tool_calls", "calls": [call]}))
                else:
                    await asyncio.to_thread(self.call, "get_reservation", AUTH)
                await speak(ws, sid, 300)
            elif message["event"] == "user_speech_stop":
                if not self.agent_side and "tool_endpoint" in self.custom:
                    await asyncio.to_thread(self.call, "get_flight_status", STATUS)
                    await asyncio.to_thread(self.call, "get_disruption_info", DISRUPTION)
                await speak(ws, sid, 300)
            elif message["event"] == "stop" and self.agent_side and self.post:
                if self.log:  # the log before the final DB: the harness stops waiting once the DB is in
                    calls = {"calls": [{"function": {"name": "get_flight_status", "arguments": STATUS}}]}
                    self.log_answers = [
                        await asyncio.to_thread(http, "POST", self.custom["tool_endpoint"] + "/tool_calls", body)
                        for body in ({"calls": [{"arguments": {}}]}, calls)  # a malformed log first: a 400
                    ]
                await asyncio.to_thread(http, "POST", self.custom["tool_endpoint"] + "/final_db", db)


def call_agent(agent: ToolUsingAgent, **config: Any) -> tuple[CallOutcome, Conversation]:
    tools = executor()

    async def main() -> CallOutcome:
        async with serve(agent.handler, "127.0.0.1", 0) as server:
            wire = TwilioWsConfig(name="wire", url=url_of(server), take_turn_after_silence_ms=300.0, **config).build()
            clock = RealClock()
            settings = wire.call_settings(CallSettings(user_reaction_ms=100.0))
            context = AgentContext(SCENARIO.domain, SCENARIO.current_date_time, ToolBox(tools), SCENARIO.id)
            return await run_call(
                ScriptCaller(["hi there"]), wire.session(clock), ToneChannel(), context, clock, settings
            )

    outcome = asyncio.run(main())
    return outcome, conversation_record(SCENARIO, 0, 0, outcome, tools)


def test_a_third_party_agent_calls_the_tools_from_custom_parameters_and_they_are_recorded() -> None:
    agent = ToolUsingAgent()
    before = tool_server().active
    outcome, conversation = call_agent(agent)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert tool_server().active == before  # the call's session is gone with it
    custom = agent.custom
    assert set(custom) >= {"session_id", "tool_endpoint", "mcp_url"} and "scenario_db" not in custom
    assert custom["tool_endpoint"] == tool_server().base_url(custom["session_id"])
    assert custom["mcp_url"] == custom["tool_endpoint"] + "/mcp" and custom["tools"] == "harness"
    greeting, _user, reply, _bye = conversation.turns
    assert [c.name for c in greeting.tool_calls] == ["get_reservation"]  # in the turn in which it happened
    assert [c.name for c in reply.tool_calls] == ["get_flight_status", "get_disruption_info"]
    assert all(c.ok for c in conversation.tool_calls) and greeting.tool_calls[0].writes is False
    assert conversation.final_db["session"] == {"confirmation_number": "M4TX6L", "last_name": "okafor"}
    assert task_completion(conversation).passed is True  # AL-005's end state, reached over the wire
    assert http("GET", custom["tool_endpoint"] + "/tools")[0] == 404  # unregistered with the call


def test_an_agent_side_agent_posts_its_final_db_and_it_is_the_end_state() -> None:
    agent = ToolUsingAgent(agent_side=True)
    outcome, conversation = call_agent(agent, tools="agent_side")
    assert outcome.end_reason == "user_end_call", outcome.error
    assert agent.custom["tools"] == "agent_side" and conversation.tool_calls == []  # its tools are not seen
    assert conversation.final_db_missing is None
    assert task_completion(conversation).passed is True
    # it reported no tool-call log: its calls are unknown, so tool-call criteria are unscored, never 0
    criteria = {"tool_calls": {"required": [{"name": "get_reservation"}]}}
    verdict = success_tool_calls(conversation.model_copy(update={"success": criteria}))
    assert verdict.score is None and "reported no tool-call log" in verdict.details["reason"]


def test_an_agent_side_agent_reports_its_tool_call_log_and_tool_call_criteria_are_scored_from_it() -> None:
    """Issue 29: a wire agent running its own tools reports what it called (an ``evalkit_tool_calls`` event during
    the call, ``POST <tool_endpoint>/tool_calls`` after its ``stop``); success.tool_calls checks the log."""
    agent = ToolUsingAgent(agent_side=True, log=True)
    outcome, conversation = call_agent(agent, tools="agent_side")
    assert outcome.end_reason == "user_end_call", outcome.error
    assert conversation.tool_calls == []  # the harness executed none of them
    assert [(c.name, c.arguments) for c in conversation.agent_tool_calls or []] == [
        ("get_reservation", AUTH),
        ("get_flight_status", STATUS),
    ]
    (bad, _), (good, answer) = agent.log_answers
    assert bad == 400 and good == 200 and answer == {"status": "accepted", "calls": 1}
    criteria = {
        "required": [{"name": "get_reservation", "arguments": {"confirmation_number": "m4tx6l"}}],
        "forbidden": [{"name": "cancel_reservation"}],
    }
    scored = success_tool_calls(conversation.model_copy(update={"success": {"tool_calls": criteria}}))
    assert scored.passed is True and scored.details["reported"] == 2
    criteria["forbidden"] = [{"name": "get_flight_status", "arguments": {"flight_number": "SK418"}}]
    scored = success_tool_calls(conversation.model_copy(update={"success": {"tool_calls": criteria}}))
    assert scored.passed is False and scored.details["failures"][0]["made"][0]["name"] == "get_flight_status"
    record = json.loads(conversation.model_dump_json())
    assert len(record["agent_tool_calls"]) == 2 and "tool_calls_unseen" not in record  # in the record, for rescoring


def test_without_a_final_db_task_completion_is_unscored_with_the_reason_never_0() -> None:
    outcome, conversation = call_agent(
        ToolUsingAgent(agent_side=True, post=False), tools="agent_side", final_db_timeout_s=0.2
    )
    assert outcome.end_reason == "user_end_call", outcome.error
    verdict = task_completion(conversation)
    assert verdict.score is None and verdict.passed is None
    assert verdict.details["reason"].startswith("agent.tools=agent_side: the agent posted no final DB to http://")
    assert conversation.final_db_missing == verdict.details["reason"]  # in the record, for rescoring
    assert authentication_success(conversation).score is None  # the same DB's session: unscored too
    agent = ToolUsingAgent()
    _, served_none = call_agent(agent, tools="none")
    assert "tool_endpoint" not in agent.custom and "mcp_url" not in agent.custom
    assert task_completion(served_none).score is None
    assert "agent.tools=none" in task_completion(served_none).details["reason"]
