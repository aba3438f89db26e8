"""The agent kinds: ``conf/agent/<option>.yaml`` names one (``kind: cascade_local``) and the config class registered
under that kind validates the option and builds the agent.

Adding a kind is one module + one YAML file::

    from evalkit.agents.registry import AGENTS, AgentConfig

    @AGENTS.register("my_agent")
    class MyAgentConfig(AgentConfig):
        kind: Literal["my_agent"] = "my_agent"
        greeting: str = "Hello"

        def build(self) -> Agent:
            return MyAgent(self.greeting)

A third-party package declares the module in the entry-point group ``evalkit.agents`` instead of being imported
here (docs/architecture.md, "Plug-ins").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from evalkit.kinds import KindConfig
from evalkit.plugins import Registry

if TYPE_CHECKING:
    from evalkit.agents.base import Agent

__all__ = ["AGENTS", "AgentConfig"]


class AgentConfig(KindConfig):
    """What every agent option has: its kind, its display name (run names, the ``agent`` param) and its
    architecture (the judge prompts treat cascade, hybrid and speech-to-speech agents differently)."""

    name: str  # display name: run names and the `agent` param (the analysis and the arena tell agents apart by it)
    # what the agent is: cascade (ASR -> LLM -> TTS), hybrid (audio-in LLM -> TTS) or s2s; the judge prompts differ
    architecture: Literal["cascade", "hybrid", "s2s"] = "cascade"
    # a wire agent that streams in real time (its calls run on a real clock, several at once with ``concurrency``);
    # False: an in-process turn-based agent on a virtual clock, one conversation at a time
    realtime: ClassVar[bool] = False
    # Dotted keys of this kind that change how a result is fetched, never what it is (retry policy, timeouts): left
    # out of the cell's identity, so tuning them reuses finished cells.
    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ()
    # The kind has a text path (``text_agent``): it can run modality=text cells (MM-τ-p²'s modality gap)
    TEXT_MODALITY: ClassVar[bool] = False

    def build(self) -> Agent:
        """A fresh agent for one cell (it is started once per conversation)."""
        raise NotImplementedError(f"agent kind {self.kind!r} does not implement build()")

    def text_agent(self) -> Any:
        """The same agent behind a text channel (text in, text out, same tools), for modality=text."""
        raise NotImplementedError(f"agent kind {self.kind!r} has no text path")

    def preflight_problems(self) -> list[str]:
        """What is wrong with this agent's environment (a missing env var, ...), one line each, checked before any
        cell starts; a kind overrides it. Not validation: the config itself is valid."""
        return []

    def params(self) -> dict[str, str]:
        """MLflow params beyond the agent axis's ``agent`` and ``architecture`` (evalkit.config.axes): for
        model-backed kinds the model ids (``agent_llm_model`` ...), so cells can be compared by them."""
        return {}


AGENTS: Registry[type[AgentConfig]] = Registry(
    "agent",
    "evalkit.agents",
    # Found by name like any plug-in: evalkit.agents.reference is the demo agent (agent=cascade_local), which the
    # harness never imports; evalkit.wire.*: wire agent kinds, outside this package (call-loop sessions, evalkit.wire)
    builtin_modules=(
        "evalkit.agents.reference.cascade_local",
        "evalkit.wire.twilio_ws",
        "evalkit.wire.openai_http.config",
        "evalkit.wire.openai_realtime",
    ),
)
