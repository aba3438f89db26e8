"""The harness's tool server: one per process, on 127.0.0.1 (a free port), in a daemon thread with its own event
loop, so it outlives the ``asyncio.run`` of each conversation and serves every call of the process at once.

A call registers a ``ToolSession`` under its session id and unregisters it when it ends. Endpoints, under
``http://127.0.0.1:<port>/sessions/<session_id>``:

- ``GET  /tools``: the tools as the agent receives them, ``[{"type": "function", "function": {name, description,
  parameters}}]``.
- ``POST /call``: ``{"name": ..., "arguments": {...} or "<JSON text>"}`` (OpenAI's ``{"function": {...}}`` tool
  call is taken too) -> the executor's result, ``{"status": "success", ...}`` or ``{"status": "error",
  "error_type", "message"}``. A wrong argument or an unknown tool is such an error result (HTTP 200): the agent's
  behaviour, recorded and scored.
- ``/mcp``: the same tools over MCP (streamable HTTP): ``tools/list``, ``tools/call`` (result as JSON text and as
  ``structuredContent``; ``isError`` when the executor answered an error).
- ``tools: agent_side`` only: ``GET /scenario_db`` (the scenario's initial DB) and ``POST /final_db`` (the body is
  the agent's final DB, a JSON object; it replaces the harness's copy as the conversation's end state).
- ``POST /tool_calls``: ``{"calls": [{name, arguments, result}, ...]}``, the tool-call log of tools the agent ran
  on its own side (evalkit.tool_log); each post adds its calls; a malformed log is a 400 naming the entry.

An unknown or ended session id: 404 with ``{"error": ...}``; a body that is not JSON, not an object or has no
``name``: 400; a request the session's mode does not serve: 409.

The MCP side is the ``mcp`` SDK's low-level ``Server`` behind its ``StreamableHTTPSessionManager`` (stateless,
JSON responses). Written by hand because the SDK lacks it: scoping one MCP endpoint per session id (the id comes
from the URL path; handlers read it from the request the SDK hands them) and the 404 for an unknown id before the
SDK sees the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import mcp.types as mt
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server as McpServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from evalkit.tool_log import ToolLogError
from evalkit.wire.tools.session import ModeError, SessionEnded, ToolSession

log = logging.getLogger("evalkit.tools")
HOST = "127.0.0.1"
ENDED_KEPT = 4096  # ended session ids remembered for a clearer 404 ("has ended" rather than "unknown")
START_TIMEOUT_S = 10.0


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ToolServer:
    """The sessions of this process's calls and the HTTP server that serves them (``start`` once)."""

    def __init__(self, host: str = HOST, port: int = 0, public_url: str | None = None) -> None:
        self.host = host  # the address it binds; 0.0.0.0 for an agent on another machine
        self.port = port  # 0: a free port
        # what the agent is told (e.g. a tunnel's https URL, or http://<this host's LAN address>:<port>); None: the
        # bound address itself
        self.public_url = public_url.rstrip("/") if public_url else None
        self.pid = os.getpid()
        self._sessions: dict[str, ToolSession] = {}
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- sessions ------------------------------------------------------------------------------------------

    def register(self, session: ToolSession) -> None:
        with self._lock:
            if session.session_id in self._sessions:
                raise ValueError(f"tool session {session.session_id!r} is already registered")
            self._sessions[session.session_id] = session
            self._ended.pop(session.session_id, None)

    def unregister(self, session_id: str) -> ToolSession | None:
        """The call has ended: its session refuses every later request (404)."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
            self._ended[session_id] = None
            while len(self._ended) > ENDED_KEPT:
                self._ended.popitem(last=False)
        if session is not None:
            session.end()
        return session

    def session(self, session_id: str) -> ToolSession:
        with self._lock:
            session = self._sessions.get(session_id)
            ended = session_id in self._ended
        if session is not None:
            return session
        if ended:
            raise SessionEnded(f"tool session {session_id!r} has ended: its call is over")
        raise SessionEnded(f"unknown tool session {session_id!r}: no call of this harness has that session id")

    @property
    def active(self) -> int:
        """Sessions registered now (calls in progress)."""
        with self._lock:
            return len(self._sessions)

    def base_url(self, session_id: str) -> str:
        root = self.public_url or f"http://{self.host}:{self.port}"
        return f"{root}/sessions/{session_id}"

    def settings(self) -> tuple[str, int, str | None]:
        return self.host, self.port, self.public_url

    def mcp_url(self, session_id: str) -> str:
        return self.base_url(session_id) + "/mcp"

    # -- lifecycle -----------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without it
        # Nagle holds the response body (written after its headers) for the client's delayed ACK: 40 ms a call
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app(), log_config=None, access_log=False, log_level="warning", timeout_keep_alive=120
        )
        server = uvicorn.Server(config)
        # its own event loop in its own thread: it outlives each conversation's asyncio.run
        self._thread = threading.Thread(
            target=lambda: asyncio.run(server.serve(sockets=[sock])), name="evalkit-tool-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the tool server did not start on {self.host}:{self.port}")
            time.sleep(0.005)

    # -- the app -------------------------------------------------------------------------------------------

    def _app(self) -> Starlette:
        mcp_server: McpServer[Any] = McpServer(
            "evalkit-tools", on_list_tools=self._mcp_list, on_call_tool=self._mcp_call
        )
        local = [f"{self.host}:*", "localhost:*", "127.0.0.1:*"]
        if self.public_url:  # MCP's DNS-rebinding guard must accept the Host header the agent will send
            local.append(urlsplit(self.public_url).netloc)
        manager = StreamableHTTPSessionManager(
            mcp_server,
            json_response=True,
            stateless=True,
            security_settings=TransportSecuritySettings(
                allowed_hosts=local, allowed_origins=[f"http://{h}" for h in local]
            ),
        )

        @contextlib.asynccontextmanager
        async def lifespan(_: Starlette) -> AsyncIterator[None]:
            async with manager.run():
                yield

        routes = [
            Route("/sessions/{sid}/tools", self._json(self._list), methods=["GET"]),
            Route("/sessions/{sid}/call", self._json(self._call), methods=["POST"]),
            Route("/sessions/{sid}/scenario_db", self._json(self._scenario_db), methods=["GET"]),
            Route("/sessions/{sid}/final_db", self._json(self._final_db), methods=["POST"]),
            Route("/sessions/{sid}/tool_calls", self._json(self._tool_calls), methods=["POST"]),
            Route("/sessions/{sid}/mcp", _ScopedMcp(self, manager), methods=["GET", "POST", "DELETE"]),
        ]
        return Starlette(routes=routes, lifespan=lifespan)

    def _json(
        self, handler: Callable[[ToolSession, Request], Awaitable[Any]]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                session = self.session(request.path_params["sid"])
                return JSONResponse(await handler(session, request))
            except SessionEnded as exc:
                return JSONResponse({"error": str(exc)}, status_code=404)
            except ModeError as exc:
                return JSONResponse({"error": str(exc)}, status_code=409)
            except HttpError as exc:
                return JSONResponse({"error": str(exc)}, status_code=exc.status)
            except Exception as exc:  # a harness bug (a tool that crashed): the agent gets a clear 500
                log.exception("tool server: %s %s failed", request.method, request.url.path)
                return JSONResponse({"error": f"tool server error: {type(exc).__name__}: {exc}"}, status_code=500)

        return endpoint

    async def _list(self, session: ToolSession, _: Request) -> Any:
        return session.tools

    async def _call(self, session: ToolSession, request: Request) -> Any:
        name, arguments = function_call(await json_body(request))
        return session.call(name, arguments)

    async def _scenario_db(self, session: ToolSession, _: Request) -> Any:
        return session.scenario_db()

    async def _final_db(self, session: ToolSession, request: Request) -> Any:
        db = await json_body(request)
        if not isinstance(db, dict):
            raise HttpError(400, f"the final DB must be a JSON object, got {type(db).__name__}")
        session.post_final_db(db)
        return {"status": "accepted"}

    async def _tool_calls(self, session: ToolSession, request: Request) -> Any:
        body = await json_body(request)
        try:
            count = session.report_calls(body.get("calls") if isinstance(body, dict) else body)
        except ToolLogError as exc:
            raise HttpError(400, f"tool-call log: {exc}") from None
        return {"status": "accepted", "calls": count}

    # MCP handlers: the session comes from the URL path of the request the SDK hands over
    def _mcp_session(self, ctx: ServerRequestContext[Any]) -> ToolSession:
        request = ctx.request
        if not isinstance(request, Request):
            raise ValueError("evalkit's tools are served over streamable HTTP only")
        return self.session(request.path_params["sid"])

    async def _mcp_list(
        self, ctx: ServerRequestContext[Any], _: mt.PaginatedRequestParams | None
    ) -> mt.ListToolsResult:
        session = self._mcp_session(ctx)
        tools = [
            mt.Tool(name=f["name"], description=f["description"], input_schema=f["parameters"])
            for f in (t["function"] for t in session.tools)
        ]
        return mt.ListToolsResult(tools=tools)

    async def _mcp_call(self, ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> mt.CallToolResult:
        result = self._mcp_session(ctx).call(params.name, params.arguments if params.arguments is not None else {})
        return mt.CallToolResult(
            content=[mt.TextContent(type="text", text=json.dumps(result))],
            structured_content=result,
            is_error=result.get("status") != "success",
        )


class _ScopedMcp:
    """The SDK's streamable-HTTP app behind a session check: an unknown or ended session id is a 404 with a clear
    message before the SDK sees the request."""

    def __init__(self, server: ToolServer, manager: StreamableHTTPSessionManager) -> None:
        self.server = server
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            self.server.session(scope["path_params"]["sid"])
        except SessionEnded as exc:
            await JSONResponse({"error": str(exc)}, status_code=404)(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


async def json_body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HttpError(400, f"the request body is not JSON: {exc}") from None


def function_call(body: Any) -> tuple[str, Any]:
    """(name, arguments) of ``{"name", "arguments"}`` or OpenAI's ``{"function": {"name", "arguments"}}``."""
    if not isinstance(body, dict):
        raise HttpError(400, 'the body must be a JSON object {"name": <tool>, "arguments": {...}}')
    call = body["function"] if isinstance(body.get("function"), dict) else body
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise HttpError(400, 'the body names no tool: "name" must be a non-empty string')
    arguments = call.get("arguments")
    return name, {} if arguments is None else arguments


_server: ToolServer | None = None
_server_lock = threading.Lock()


def tool_server(host: str = HOST, port: int = 0, public_url: str | None = None) -> ToolServer:
    """This process's tool server, started on first use (again in a forked child: threads do not survive a fork).
    Every call of a process shares it, so every call must ask for the same address."""
    global _server
    with _server_lock:
        if _server is None or _server.pid != os.getpid() or not _server.alive:
            server = ToolServer(host, port, public_url)
            server.start()
            _server = server
        wanted = (host, port or _server.port, public_url.rstrip("/") if public_url else None)
        if wanted != _server.settings():
            raise RuntimeError(
                f"the tool server of this process serves {_server.settings()}; a call asked for {wanted} "
                "(agent.tool_host, agent.tool_port, agent.tool_public_url must be the same for every call)"
            )
        return _server
