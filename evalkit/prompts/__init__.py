"""LLM-ready prompts: the agent system prompt of a domain (App. L structure) and the user-simulator prompt of a
scenario (App. K structure, ``simulator.yaml``). The text is ours; the sections and runtime variables follow the
paper."""

from evalkit.prompts.render import (
    domain_texts,
    render_agent_prompt,
    render_simulator_prompt,
    simulator_prompt_id,
    simulator_texts,
)

__all__ = ["domain_texts", "render_agent_prompt", "render_simulator_prompt", "simulator_prompt_id", "simulator_texts"]
