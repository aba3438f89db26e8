"""What a run will do before it runs (``python -m evalkit.plan <overrides> [-m]``, docs/cost.md): its cells, their
conversations (scenarios × trials actually run), an estimated wall time and an estimated cost.

- **Wall time** comes from stored past runs in the tracking store the run would use (the same cell, else cells of
  the same agent and domain, else of the same agent): their measured wall seconds per conversation. A cell with no
  such run has no estimate (never a guess): run one small cell first (``domain.limit=1 trials=1``).
- **Cost** comes from the pricing table and an a-priori usage profile per conversation (:data:`PROFILE`): so many
  caller turns, each with the requests a component of that kind sends. A model missing from the table, or an
  external component, leaves the cell (and the total) unpriced; local components cost 0 USD.

Pure functions over validated configs; the command composes the configs (``__main__``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.pricing import PricingTable, external_components, price_rows
from evalkit.speech.cores import conversation_workers
from evalkit.usage import Ledger, Usage

__all__ = ["PROFILE", "CellEstimate", "WallEstimate", "cell_estimate", "profile_usage", "wall_estimate"]

# The a-priori conversation, per caller turn (replace these by a stored run's usage.json for a measured figure):
# IHBench counts 30.1 messages per conversation (≈ 15 caller turns); a caller turn is ≈ 4 s of speech, an agent
# turn ≈ 6 s and 100 characters; an agent's chat request carries its ≈ 2,000-token prompt and tools plus the history
# so far; audio is ≈ 10 tokens per second in and 20 out (OpenAI's audio models).
PROFILE: dict[str, float] = {
    "caller_turns": 15,
    "caller_turn_s": 4.0,
    "agent_turn_s": 6.0,
    "agent_turn_chars": 100,
    "caller_turn_chars": 60,
    "chat_requests_per_turn": 1.5,
    "agent_prompt_tokens": 2000,
    "history_tokens_per_turn": 60,
    "agent_reply_tokens": 40,
    "caller_prompt_tokens": 1200,
    "caller_reply_tokens": 25,
    "audio_tokens_in_per_s": 10,
    "audio_tokens_out_per_s": 20,
    "judge_prompt_tokens": 3000,
    "judge_reply_tokens": 300,
}


def _history_tokens(turns: float, prompt: float, per_turn: float) -> float:
    """Tokens sent over a conversation whose every request resends the prompt and the history so far."""
    return turns * prompt + per_turn * turns * (turns + 1) / 2


def _agent_usage(agent: Any, p: dict[str, float]) -> list[tuple[str, str, str, Usage]]:
    turns = p["caller_turns"]
    kind = agent.kind
    out: list[tuple[str, str, str, Usage]] = []
    if kind in ("cascade_openai", "hybrid_openai"):
        requests = turns * p["chat_requests_per_turn"]
        tokens_in = _history_tokens(requests, p["agent_prompt_tokens"], p["history_tokens_per_turn"])
        audio_in = 0.0
        if kind == "cascade_openai":
            audio_s = turns * p["caller_turn_s"]  # billed per minute, or in audio tokens (and the words out)
            audio_tokens = int(audio_s * p["audio_tokens_in_per_s"])
            stt = Usage(
                requests=int(turns),
                audio_s_in=audio_s,
                tokens_in=audio_tokens,
                audio_tokens_in=audio_tokens,
                tokens_out=int(turns * p["caller_reply_tokens"]),
            )
            out.append(("agent.stt", agent.stt.base_url, agent.stt.model, stt))
        else:  # every request resends the caller's audio so far
            audio_in = p["audio_tokens_in_per_s"] * p["caller_turn_s"] * turns * (turns + 1) / 2
        llm = Usage(
            requests=int(requests),
            tokens_in=int(tokens_in + audio_in),
            audio_tokens_in=int(audio_in),
            tokens_out=int(requests * p["agent_reply_tokens"]),
        )
        out.append(("agent.llm", agent.llm.base_url, agent.llm.model, llm))
        tts = Usage(
            requests=int(turns + 1),
            characters_in=int((turns + 1) * p["agent_turn_chars"]),
            audio_s_out=(turns + 1) * p["agent_turn_s"],
        )
        out.append(("agent.tts", agent.tts.base_url, agent.tts.model, tts))
    elif kind == "openai_realtime":
        audio_in = p["audio_tokens_in_per_s"] * p["caller_turn_s"] * turns * (turns + 1) / 2
        audio_out = p["audio_tokens_out_per_s"] * p["agent_turn_s"] * (turns + 1)
        s2s = Usage(
            requests=int(turns + 1),
            tokens_in=int(_history_tokens(turns + 1, p["agent_prompt_tokens"], 0) + audio_in),
            audio_tokens_in=int(audio_in),
            tokens_out=int(audio_out),
            audio_tokens_out=int(audio_out),
            audio_s_in=turns * p["caller_turn_s"],
            audio_s_out=(turns + 1) * p["agent_turn_s"],
        )
        out.append(("agent", agent.url, agent.model or "", s2s))
    return out


def profile_usage(config: Any, p: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """The a-priori usage rows of one conversation of the cell (metered components only: local ones send nothing,
    external ones are unpriced anyway)."""
    p = p or PROFILE
    turns = p["caller_turns"]
    rows = _agent_usage(config.agent, p)
    if config.simulator.kind == "llm":
        s = config.simulator
        tokens_in = _history_tokens(turns, p["caller_prompt_tokens"], p["history_tokens_per_turn"])
        usage = Usage(requests=int(turns), tokens_in=int(tokens_in), tokens_out=int(turns * p["caller_reply_tokens"]))
        rows.append(("simulator", s.base_url, s.model, usage))
    if config.voice.kind == "openai_tts" and config.modality.name != "text":
        v = config.voice
        usage = Usage(
            requests=int(turns),
            characters_in=int(turns * p["caller_turn_chars"]),
            audio_s_out=turns * p["caller_turn_s"],
        )
        rows.append(("voice", v.base_url, v.model, usage))
    if config.judge.enabled:
        judged = max(1, len(config.metrics))  # at most one judgment per metric and conversation
        usage = Usage(
            requests=judged,
            tokens_in=int(judged * p["judge_prompt_tokens"]),
            tokens_out=int(judged * p["judge_reply_tokens"]),
        )
        rows.append(("judge", config.judge.base_url or "", config.judge.model or "", usage))
    ledger = Ledger()
    for component, base_url, model, usage in rows:
        ledger.add((component, base_url.rstrip("/"), model), usage)
    return ledger.rows()


@dataclass
class WallEstimate:
    seconds_per_conversation: float | None
    source: str


def wall_estimate(cell_key: str, agent: str, domain: str, stored: list[Any]) -> WallEstimate:
    """Measured wall seconds per conversation from stored finished cells (``evalkit.tracking.past.StoredCell``):
    the same cell, else the same agent and domain, else the same agent; the mean over what matched."""
    for label, match in (
        ("stored runs of this cell", lambda c: c.cell_key == cell_key),
        (f"stored runs of agent {agent} on {domain}", lambda c: c.agent == agent and c.domain == domain),
        (f"stored runs of agent {agent}", lambda c: c.agent == agent),
    ):
        found = [c for c in stored if match(c)]
        if found:
            per = sum(c.wall_s for c in found) / sum(c.conversations for c in found)
            return WallEstimate(per, f"{label} ({len(found)} cell(s), {per:.1f} s per conversation)")
    return WallEstimate(None, f"no stored run of agent {agent}: run one small cell first (domain.limit=1 trials=1)")


@dataclass
class CellEstimate:
    name: str
    key: str
    conversations: int
    wall: WallEstimate
    cost_usd: float | None
    unpriced: list[str] = field(default_factory=list)

    @property
    def wall_s(self) -> float | None:
        per = self.wall.seconds_per_conversation
        return None if per is None else per * self.conversations


def cell_estimate(
    name: str, key: str, config: Any, conversations: int, table: PricingTable, stored: list[Any]
) -> CellEstimate:
    cost, _ = price_rows(profile_usage(config), table)
    unpriced = cost.unpriced + external_components(config)
    total = None if unpriced else (cost.input_usd + cost.output_usd) * conversations
    wall = wall_estimate(key, config.agent.name, config.domain.name, stored)
    realtime = getattr(config.agent, "realtime", False)
    workers = conversation_workers(config.workers, conversations, config.modality.name != "text", realtime)
    if wall.seconds_per_conversation is not None and workers > 1:  # conversations side by side
        per = wall.seconds_per_conversation / workers
        wall = WallEstimate(per, f"{wall.source} / workers={workers}")
    return CellEstimate(name, key, conversations, wall, total, unpriced)


def summary_lines(cells: list[CellEstimate], table: PricingTable) -> list[str]:
    """The plan as printed: one line per cell, then the totals (an unknown part keeps a total unknown)."""
    lines = []
    for cell in cells:
        wall = f"~{_duration(cell.wall_s)}" if cell.wall_s is not None else "wall time unknown"
        cost = f"~${cell.cost_usd:.4f}" if cell.cost_usd is not None else "unpriced"
        cost = "$0 (local components only)" if cell.cost_usd == 0.0 else cost
        lines.append(f"  {cell.name}  {cell.conversations} conversation(s)  {wall}  {cost}")
    n = sum(c.conversations for c in cells)
    walls = [c.wall_s for c in cells]
    costs = [c.cost_usd for c in cells]
    lines.append(f"cells: {len(cells)}, conversations: {n}")
    if all(w is not None for w in walls):
        total_s = sum(w for w in walls if w is not None)
        lines.append(f"estimated wall time: ~{_duration(total_s)} (cells one after another)")
    else:
        lines.append("estimated wall time: unknown for some cells")
    for source in dict.fromkeys(c.wall.source for c in cells):
        lines.append(f"  wall time from {source}")
    if all(c is not None for c in costs):
        total = sum(c for c in costs if c is not None)
        shown = "$0 (local components only)" if total == 0.0 else f"~${total:.4f}"
        lines.append(f"estimated cost: {shown} (pricing table {table.version} of {table.date}, a-priori profile)")
    else:
        lines.append("estimated cost: unpriced (never 0):")
        lines.extend(f"  {reason}" for reason in dict.fromkeys(r for c in cells for r in c.unpriced))
    return lines


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
