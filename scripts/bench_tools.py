"""Per-tool-call overhead of the harness's tool server (issue 13 point 3): the same read-only call (AL-005's
``get_flight_status``) in process, over the JSON HTTP endpoint (evalkit's RemoteExecutor: requests, kept-alive
connection, what the reference server's agent uses) and over MCP (the ``mcp`` SDK's client, one session).

    python scripts/bench_tools.py [--calls 300]

Prints the median and p90 per call and the overhead over the in-process call; both ends run in this process
(the server in its own thread), so on a 2-core machine client and server share the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from mcp import Client

from evalkit.agents.base import ToolBox
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.domains.scenarios import load_scenarios
from evalkit.wire.tools.remote import RemoteExecutor
from evalkit.wire.tools.server import tool_server
from evalkit.wire.tools.session import ToolSession

ARGS = {"flight_number": "SK418", "date": "2026-06-18"}


def timed(call: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


async def timed_mcp(url: str, n: int) -> list[float]:
    out = []
    async with Client(url) as client:
        await client.call_tool("get_flight_status", ARGS)  # warm-up
        for _ in range(n):
            t0 = time.perf_counter()
            await client.call_tool("get_flight_status", ARGS)
            out.append((time.perf_counter() - t0) * 1000.0)
    return out


def summary(name: str, ms: list[float], base: float | None = None) -> str:
    median = statistics.median(ms)
    p90 = statistics.quantiles(ms, n=10)[-1]
    extra = f"  (+{median - base:.3f} ms over in process)" if base is not None else ""
    return f"{name:<22} median {median:7.3f} ms  p90 {p90:7.3f} ms{extra}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    n = parser.parse_args().calls
    scenario = load_scenarios("airline", ["AL-005"])[0]
    local = ToolExecutor(tool_registry("airline"), scenario.scenario_db)
    server = tool_server()
    session = ToolSession("CAbench", ToolBox(ToolExecutor(tool_registry("airline"), scenario.scenario_db)))
    server.register(session)
    remote = RemoteExecutor(server.base_url(session.session_id))
    remote.call("get_flight_status", ARGS)  # warm-up: the connection
    in_process = timed(lambda: local.call("get_flight_status", ARGS), n)
    over_http = timed(lambda: remote.call("get_flight_status", ARGS), n)
    over_mcp = asyncio.run(timed_mcp(server.mcp_url(session.session_id), n))
    base = statistics.median(in_process)
    print(f"{n} calls of get_flight_status on AL-005's DB")
    print(summary("in process", in_process))
    print(summary("JSON HTTP (requests)", over_http, base))
    print(summary("MCP (mcp SDK client)", over_mcp, base))
    assert len(session.drain()) == 2 * n + 2


if __name__ == "__main__":
    main()
