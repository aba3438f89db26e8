"""Caller behaviours as a config group (``+behavior=<type>``; absent = none, the clean value).
Documented in docs/caller-behaviours.md.

- ``backchannel``: a short acknowledgement ("mm-hm", "okay") spoken over the agent, inside one of its
  sentence-equivalents that is not its last; ``rate``: the chance an eligible agent turn (two sentence-equivalents or
  more) gets one;
- ``vocal_tics``: a filler ("um") or a self-correction ("four five six, sorry, I mean four five seven": a wrong value,
  then the right one, which is the intended final value) inside the caller's own turn; ``rate``: the chance a caller
  turn gets one;
- ``side_speech``: a phrase to someone else in the room ("hang on, I'm on the phone"), ``level_db`` below the caller's
  speech, over the agent's speech or in the gap before the caller's next turn (``during``); ``rate``: the chance an
  eligible agent turn (over its speech) or a caller turn (in the gap before it) gets one.

The phrases are data (evalkit/simulator/behaviors.yaml, per ``language``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BehaviorType = Literal["backchannel", "vocal_tics", "side_speech"]


class BehaviorConfig(BaseModel):
    """``conf/behavior/<type>.yaml``."""

    model_config = ConfigDict(extra="forbid")

    name: str  # the option's display name (the `behavior` param)
    type: BehaviorType = Field(description="backchannel | vocal_tics | side_speech: what the caller does")
    rate: float = Field(ge=0.0, le=1.0, description="chance an eligible turn gets the behaviour (per turn, seeded)")
    level_db: float = Field(
        default=0.0, ge=0.0, le=60.0, description="dB below the caller's own speech the phrase is spoken at"
    )
    during: Literal["agent_speech", "gap", "any"] = Field(
        default="agent_speech",
        description="side_speech: over the agent's speech, in the gap before the caller's turn, or either (drawn)",
    )
    yield_window_ms: float = Field(
        default=500.0,
        gt=0.0,
        le=5000.0,
        description="the agent yielded if its speech stopped this soon after the phrase",
    )
    max_per_call: int = Field(default=20, ge=1, le=200, description="at most this many events in one call")
    language: str = Field(default="en", description="the phrase list (evalkit/simulator/behaviors.yaml)")
