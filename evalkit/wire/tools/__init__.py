"""Harness-owned tools for agents over a wire (issue 13 point 3, docs/architecture.md, decision 11).

Whatever the agent is, the scenario DB lives in evalkit: each call's tools are served by this process's tool server
(``server``: JSON HTTP in OpenAI's function-call shape and MCP over streamable HTTP, scoped by the call's session
id), executed on that conversation's DB and recorded as tool calls of the agent's turn (``session``), so task
completion stays a deterministic DB comparison for any agent. ``remote`` is the other end: a ToolExecutor
look-alike that reaches a call's tools over HTTP (evalkit's reference server gives it to its in-process agent).

Importing this package loads no web framework; ``server`` does (mcp, starlette, uvicorn).
"""
