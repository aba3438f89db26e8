"""Agents over a wire (docs/architecture.md, decisions 10-12): agent kinds whose agent runs elsewhere and is reached
through a protocol it already speaks, each kind in one sub-package together with its wire adapters (client and,
where evalkit serves its own agents over the protocol, the server).

They live beside ``evalkit.agents`` and ``evalkit.call`` rather than inside ``evalkit.agents`` because a wire agent
*is* a call-loop session (it produces ``evalkit.call`` events) while ``evalkit.call`` imports ``evalkit.agents``:
inside ``evalkit.agents`` it would close a package import cycle. The kinds still register in ``AGENTS``.

``tools`` is what every kind shares: the harness's tool server, which serves each call's tools (JSON HTTP and MCP,
scoped by the call's session id) on the conversation's DB, so the harness owns the tools whatever the agent is.
"""
