"""Domains: each ``evalkit.domains.<name>`` package registers one :class:`Domain` (tools, workflows, prompt texts,
scenario folder); ``get_domain(name)`` finds it."""

from __future__ import annotations

from evalkit.domains.base import ToolRegistry
from evalkit.domains.domain import DOMAINS, Domain, DomainTexts, get_domain, register_domain


def tool_registry(domain: str) -> ToolRegistry:
    """The tool registry of a registered domain (ValueError listing the registered domains when unknown)."""
    return get_domain(domain).tools


__all__ = ["DOMAINS", "Domain", "DomainTexts", "ToolRegistry", "get_domain", "register_domain", "tool_registry"]
