"""The simulator kind ``llm`` (``conf/simulator/llm.yaml``): the caller is an OpenAI-compatible chat model prompted
with the App. K structure (``evalkit/prompts/simulator.yaml``), filled with the scenario's goal, decision tree and
information and the persona's text. It plays the same part as the scripted caller (``first_utterance()``,
``respond(agent_text)``, each returning ``.text`` and ``.end_call``; ``hear_greeting(text)`` before them), so its
words go through the cell's voice and perturbation chain like any caller's, and the validation gates (App. D.1)
judge its conversations the same way.

- **Messages**: the prompt as the system message; the agent's words as ``user`` messages, the caller's own as
  ``assistant`` messages. The first request carries the agent's greeting (App. K: the conversation starts with it;
  the call loop hands it over through ``hear_greeting``), or a fixed cue when the agent greeted with no words.
- **Ending the call** (App. K, App. D "End conversation" system tool): the model gets one tool, ``end_call``; an answer
  that calls it ends the call, its words being the goodbye (a fixed goodbye when it has none). Words alone never end
  a call, whatever they say. Any other tool it calls is ignored. An answer with neither words nor end_call is the
  server's failure (``EndpointAnswerInvalid``): the call is an infrastructure failure, never the agent's.
- **Timing**: a persona's per-trial reaction-time jitter (``persona.variation``) applies as for the scripted caller;
  its wording variation does not (the model words its own turns).
- **Sampling**: ``temperature``, ``top_p`` and ``max_length`` (sent as ``max_tokens``) from the config (null: not
  sent); the seed of every request of a conversation derives from the conversation's own seeded stream, i.e. from
  (cell seed, scenario, trial, attempt): a regenerated conversation (App. D.1) gets a new seed, an infrastructure
  retry the same one. The seed is recorded per conversation (``Conversation.simulator_seed``) and the settings are
  logged as params.
- **Cache**: every answer is kept under the hash of its request plus the seed (``cache.py``): a rerun asks the server
  nothing it has asked before, so with the same seed it replays the same conversation even where the server is not
  deterministic. Requests, cache hits and HTTP retries are counted (``evalkit.usage``; cell metrics
  ``simulator_requests``, ``simulator_cache_hits``, ``simulator_http_retries``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from evalkit import usage
from evalkit.simulator.registry import SIMULATORS, SimulatorConfig
from evalkit.wire.openai_http.settings import EndpointSettings, RetrySettings

if TYPE_CHECKING:
    import numpy as np

    from evalkit.scenarios import Scenario
    from evalkit.simulator.persona import PersonaSpec
    from evalkit.wire.openai_http.cache import ResponseCache
    from evalkit.wire.openai_http.client import Endpoint

__all__ = ["CallerUtterance", "LlmSimulator", "LlmSimulatorConfig"]

log = logging.getLogger("evalkit")

CHAT_PATH = "/chat/completions"
SEED_BOUND = 2**31 - 1  # seeds servers accept as a signed 32-bit integer (vLLM, Ollama, OpenAI)
COUNTERS = ("simulator_requests", "simulator_cache_hits", "simulator_http_retries")


@SIMULATORS.register("llm")
class LlmSimulatorConfig(SimulatorConfig, EndpointSettings):
    METERING: ClassVar[str] = "metered"  # every request goes through evalkit's clients (evalkit.usage)
    """An OpenAI-compatible chat model as the caller. ``base_url``, ``model``, ``api_key_env``, ``timeout_s`` as for
    every endpoint (``settings.py``); the call limits (``max_user_turns``, ...) as for every simulator."""

    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = ("retry", "timeout_s", "cache_dir")

    kind: Literal["llm"] = "llm"
    temperature: float | None = Field(default=0.7, ge=0, le=2, description="null: not sent (the server's default)")
    top_p: float | None = Field(default=1.0, gt=0, le=1, description="null: not sent")
    # named max_length, not max_tokens: config keys holding "token" are dropped from a cell's identity as secrets
    max_length: int | None = Field(default=200, ge=1, description="sent as max_tokens; null: not sent")
    send_seed: bool = Field(default=True, description="send each conversation's derived seed (false: server refuses)")
    cache_dir: str | None = Field(default=".evalkit_cache/simulator", description="null: no cache")
    retry: RetrySettings = RetrySettings()

    def build(self, scenario: Scenario, persona: PersonaSpec | None, rng: np.random.Generator) -> LlmSimulator:
        from evalkit.prompts import render_simulator_prompt, simulator_texts
        from evalkit.wire.openai_http.cache import open_cache

        texts = simulator_texts()
        # A behavioural persona's prompt replaces the scenario's own persona text (App. G.2); the default persona
        # keeps the scenario's (App. J), as conf/persona/default.yaml says.
        persona_text = persona.prompt if persona is not None and persona.name != "default" else None
        seed = int(rng.integers(0, SEED_BOUND))
        jitter = persona.reaction_jitter_ms if persona is not None else 0.0
        return LlmSimulator(
            endpoint=self.endpoint("simulator", self.retry.policy()),
            cache=open_cache(self.cache_dir, "simulator cache"),
            system_prompt=render_simulator_prompt(scenario, persona_text),
            sampling=self.sampling(),
            seed=seed,
            send_seed=self.send_seed,
            texts=texts,
            reaction_jitter_ms=jitter,
            timing=rng.spawn(1)[0] if jitter > 0 else None,
        )

    def sampling(self) -> dict[str, Any]:
        """The sampling fields of every request (those set)."""
        sampling = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_length}
        return {k: v for k, v in sampling.items() if v is not None}

    def params(self) -> dict[str, str]:
        from evalkit.prompts import simulator_prompt_id

        return {
            "simulator_model": self.model,
            "simulator_base_url": self.base_url,
            "simulator_temperature": str(self.temperature),
            "simulator_top_p": str(self.top_p),
            "simulator_max_tokens": str(self.max_length),
            "simulator_seed": "per conversation from (seed, scenario, trial, attempt)"
            + ("" if self.send_seed else ", not sent"),
            "simulator_prompt": simulator_prompt_id(),
        }

    def random_sources(self) -> list[str]:
        """Always random: a sampled model differs per trial (a seed per trial), and even a greedy one is only as
        deterministic as its server; so k trials are never cut to one (issue 17)."""
        sampling = "greedy" if self.temperature == 0 else f"temperature {self.temperature}"
        return [f"LLM caller {self.model!r} ({sampling}, a seed per trial)"]

    def identity_extras(self) -> dict[str, str]:
        """An edited prompt is a different simulator: its version and hash are part of the cell's identity."""
        from evalkit.prompts import simulator_prompt_id

        return {"prompt": simulator_prompt_id()}


@dataclass
class CallerUtterance:
    text: str
    end_call: bool = False
    reaction_jitter_ms: float | None = None  # a persona's drawn offset from the reaction time (None: not varied)


class LlmSimulator:
    """One conversation's caller: the chat history so far, the seed, and the endpoint and cache it asks."""

    def __init__(
        self,
        endpoint: Endpoint,
        cache: ResponseCache,
        system_prompt: str,
        sampling: dict[str, Any],
        seed: int,
        send_seed: bool,
        texts: dict[str, Any],
        reaction_jitter_ms: float = 0.0,
        timing: np.random.Generator | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.cache = cache
        self.sampling = sampling
        self.sampling_seed = seed  # read by the call's record (evalkit.call.conversation)
        self.send_seed = send_seed
        self.texts = texts
        # A persona's reaction-time jitter (issue 17), drawn from a stream of its own: the words are the model's,
        # the timing is the persona's, as for the scripted caller.
        self.reaction_jitter_ms = reaction_jitter_ms
        self.timing = timing
        tool = texts["end_call"]
        self.tools = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool["description"],
                    "parameters": {"type": "object", "properties": {}},
                },
            }
        ]
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
        self.greeting = ""
        for name in COUNTERS:
            usage.count(name, 0)

    def hear_greeting(self, text: str) -> None:
        self.greeting = text.strip()

    def first_utterance(self) -> CallerUtterance:
        return self._ask(self.greeting or self.texts["opening_cue"])

    def respond(self, agent_text: str) -> CallerUtterance:
        return self._ask(agent_text.strip() or self.texts["silence_cue"])

    def _ask(self, heard: str) -> CallerUtterance:
        self.messages.append({"role": "user", "content": heard})
        message = self._complete()
        utterance = self._utterance(message)
        self.messages.append({"role": "assistant", "content": utterance.text})
        if self.timing is not None:
            jitter = self.reaction_jitter_ms
            utterance.reaction_jitter_ms = float(self.timing.uniform(-jitter, jitter))
        return utterance

    def _complete(self) -> dict[str, Any]:
        """The answer to the history so far: from the cache, else from the server (then cached)."""
        from evalkit.wire.openai_http.cache import request_key
        from evalkit.wire.openai_http.client import chat

        body: dict[str, Any] = {"messages": self.messages, "tools": self.tools, **self.sampling}
        if self.send_seed:
            body["seed"] = self.sampling_seed
        url = self.endpoint.url(CHAT_PATH)
        key = request_key({"url": url, "model": self.endpoint.model, "body": body, "seed": self.sampling_seed})
        cached = self.cache.get(key)
        if cached is not None:
            try:
                usage.count("simulator_cache_hits")
                return dict(json.loads(cached))
            except (ValueError, TypeError):
                log.warning("simulator cache entry %s is not JSON: asking the server again", key[:12])
        message, retries = chat(self.endpoint, body)
        usage.count("simulator_requests")
        usage.count("simulator_http_retries", retries)
        self._utterance(message)  # an answer that is no utterance raises here, before it is cached
        self.cache.put(key, json.dumps(message, sort_keys=True).encode("utf-8"))
        return message

    def _utterance(self, message: dict[str, Any]) -> CallerUtterance:
        """The caller's words and whether it called end_call (App. K: the call ends only through the tool)."""
        text = _text(message.get("content"))
        calls = message.get("tool_calls") or []
        names = [str((call.get("function") or {}).get("name")) for call in calls if isinstance(call, dict)]
        ends = self.texts["end_call"]["name"] in names
        if ends:
            return CallerUtterance(text or self.texts["goodbye"], end_call=True)
        if not text:
            raise self.endpoint.invalid_bytes(
                CHAT_PATH, "neither words nor an end_call tool call", json.dumps(message).encode("utf-8")
            )
        return CallerUtterance(text)


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list (some servers send one)."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return " ".join(p.strip() for p in parts if p.strip())
    return ""
