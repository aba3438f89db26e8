"""Agents under test. All implement :class:`evalkit.agents.base.Agent`; they reach tools only via the ToolBox."""
