"""Domains: each ``evalkit.domains.<name>`` package exposes ``REGISTRY`` (its tools) and a ``scenarios/`` folder."""

from __future__ import annotations

import importlib

from evalkit.domains.base import ToolRegistry


def tool_registry(domain: str) -> ToolRegistry:
    """The tool registry of a domain package, or ValueError naming the domain and what is missing."""
    try:
        module = importlib.import_module(f"evalkit.domains.{domain}")
    except ModuleNotFoundError as exc:
        raise ValueError(f"unknown domain {domain!r}: no package evalkit.domains.{domain}") from exc
    registry = getattr(module, "REGISTRY", None)
    if not isinstance(registry, ToolRegistry):
        raise ValueError(f"domain {domain!r}: evalkit.domains.{domain} defines no REGISTRY (a ToolRegistry)")
    return registry
