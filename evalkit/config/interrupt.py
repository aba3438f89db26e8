"""IHBench's interruptions as a config group (``+interrupt=<type>``; absent = no interruption, the clean value).

Six types (IHBench §3 / App.), each with the overlap range IHBench samples from: the caller starts talking right
after a word of the agent's utterance (a word boundary, never in the agent's last sentence) and the two voices
overlap for ``overlap_s`` before the agent is expected to yield.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

InterruptType = Literal["pushback", "impatient", "normal", "topic_switch", "filler", "correction"]

# IHBench: overlap 0.15-1.20 s in general, filler 0.15-0.50 s, impatient and correction 0.40-1.20 s.
IHBENCH_OVERLAP_S: dict[str, tuple[float, float]] = {
    "pushback": (0.15, 1.20),
    "impatient": (0.40, 1.20),
    "normal": (0.15, 1.20),
    "topic_switch": (0.15, 1.20),
    "filler": (0.15, 0.50),
    "correction": (0.40, 1.20),
}
# IHBench: 428 interruption points over 45 conversations of 30.1 messages on average, i.e. about half of them the
# assistant's: 428 / (45 x 30.1 / 2) = 0.63 of the agent's turns are interrupted.
IHBENCH_SHARE_OF_AGENT_TURNS = 0.63


class InterruptConfig(BaseModel):
    """``conf/interrupt/<type>.yaml``."""

    model_config = ConfigDict(extra="forbid")

    name: str  # the option's display name (the `interrupt` param)
    type: InterruptType  # IHBench's interruption type: what the caller says when it cuts in and how the agent recovers
    overlap_s: tuple[float, float] = Field(description="the overlap is drawn uniformly from this range (seconds)")
    probability: float = Field(
        default=IHBENCH_SHARE_OF_AGENT_TURNS, ge=0.0, le=1.0, description="chance an eligible agent turn is cut"
    )
    max_per_call: int = Field(default=20, ge=1, le=200, description="at most this many interruptions in one call")

    @model_validator(mode="after")
    def _overlap_inside_ihbench(self) -> InterruptConfig:
        low, high = self.overlap_s
        lo_ih, hi_ih = IHBENCH_OVERLAP_S[self.type]
        if not (lo_ih <= low <= high <= hi_ih):
            raise ValueError(
                f"overlap_s {list(self.overlap_s)} is outside IHBench's range for {self.type} interruptions "
                f"[{lo_ih}, {hi_ih}] s (a range inside it, low <= high)"
            )
        return self
