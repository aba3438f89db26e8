"""Which recorded tool calls wrote to the DB or were irreversible: read from the record's flags (copied from the
domain's ToolSpec when the call was made). Records written before the flags existed carry None; for those the
domain's current declaration stands in, so old runs rescore as before.
"""

from __future__ import annotations

from evalkit.domains import get_domain
from evalkit.domains.base import ToolRegistry
from evalkit.plugins import UnknownPluginError
from evalkit.records import ToolCall


def _declared(domain: str) -> ToolRegistry | None:
    try:
        return get_domain(domain).tools
    except UnknownPluginError:  # a record of a domain not installed here: only its own flags count
        return None


def declared_irreversible(domain: str) -> frozenset[str]:
    """The irreversible tools a domain declares (empty for a domain that declares none or is not installed)."""
    tools = _declared(domain)
    return frozenset(tools.irreversible_tools) if tools is not None else frozenset()


def is_irreversible(call: ToolCall, domain: str) -> bool:
    if call.irreversible is not None:
        return call.irreversible
    return call.name in declared_irreversible(domain)


def is_write(call: ToolCall, domain: str) -> bool:
    """A tool nobody declared counts as a write: a fabricated value reaching it is treated as the worse case."""
    if call.writes is not None:
        return call.writes
    tools = _declared(domain)
    return tools[call.name].writes if tools is not None and call.name in tools else True
