"""Line ops: what the phone line does to the call rather than to one clip of the caller's speech.

``line_delay``: one-way network delay in each direction plus jitter. A jitter buffer absorbs the packet-to-packet
variation of a VoIP stream and turns it into a delay that changes from one talkspurt to the next, so jitter is drawn
once per utterance (each direction: uniform in [0, jitter_ms] on top of its fixed delay). Packets that come too
late for the buffer are lost packets: the ``packet_loss`` op models those.

``speakerphone_echo``: the caller is on a speakerphone with poor echo cancellation. The agent's speech comes out of
the phone's loudspeaker, the room carries it to the microphone, and a residual copy goes back to the agent on the
caller's line: delayed, band-limited by the small loudspeaker, reverberant, attenuated by ``level_db``.

Neither can act on a lone clip (``Op.line``: the chain skips them); a harness that runs a call applies them. The
library gives the pure parts: ``LineDelay.draw`` (one utterance's delays) and ``SpeakerphoneEcho.render`` (the
echo of a piece of agent audio); evalkit's ``AudioChannel`` places them on the call's timeline (docs/perturbations.md).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from pydantic import Field, model_validator
from pydantic.dataclasses import dataclass
from scipy import signal as sps

from perturbations.mixing import signal_power
from perturbations.ops.channel import resample, synthetic_rir
from perturbations.registry import OP_CONFIG, Number, Op, register_op

ECHO_RATE = 16_000  # the echo is rendered at 16 kHz: its loudspeaker band ends far below 8 kHz


class _LineOp(Op):
    line: ClassVar[bool] = True

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """On a lone clip a line op does nothing (there is no call to delay, no agent to echo)."""
        return audio.copy(), []


@register_op("line_delay")
@dataclass(config=OP_CONFIG)
class LineDelay(_LineOp):
    """``uplink_ms``: caller -> agent one-way delay; ``downlink_ms``: agent -> caller; ``jitter_ms``: each direction
    gets an extra uniform [0, jitter_ms] per utterance. The caller hears the agent ``downlink`` late, reacts, and its
    speech reaches the agent ``uplink`` later: on the agent's timeline the caller's turn starts the round trip later
    than it would on a perfect line."""

    uplink_ms: Number = Field(default=100.0, ge=0.0, le=2000.0)
    downlink_ms: Number = Field(default=100.0, ge=0.0, le=2000.0)
    jitter_ms: Number = Field(default=20.0, ge=0.0, le=1000.0)

    def draw(self, rng: np.random.Generator) -> dict[str, float]:
        """One utterance's delays (ms): uplink, downlink and their sum, the round trip it adds."""
        up = self.uplink_ms + self.jitter_ms * float(rng.random())
        down = self.downlink_ms + self.jitter_ms * float(rng.random())
        return {"uplink_ms": up, "downlink_ms": down, "round_trip_ms": up + down}


@register_op("speakerphone_echo")
@dataclass(config=OP_CONFIG)
class SpeakerphoneEcho(_LineOp):
    """The echo path: the loudspeaker's band (a 2nd-order Butterworth band-pass ``low_hz``-``high_hz``), the room
    (``perturbations.ops.channel.synthetic_rir`` with ``rt60_s`` and ``drr_db``, normalised to unit energy), then
    the gain ``level_db`` (the echo return loss, negative). ``delay_ms``: the acoustic path and the phone's buffers,
    added to the line's round trip. The path is linear and time-invariant, so the echo of a turn is the sum of the
    echoes of its pieces (a live stream's chunks); the room response is a pure function of the call's seed."""

    level_db: Number = Field(default=-20.0, ge=-60.0, le=0.0)
    delay_ms: Number = Field(default=30.0, ge=0.0, le=500.0)
    low_hz: Number = Field(default=300.0, ge=0.0, le=4000.0)
    high_hz: Number = Field(default=3400.0, gt=0.0, le=7900.0)
    rt60_s: Number = Field(default=0.3, ge=0.05, le=2.0)
    drr_db: Number = Field(default=6.0, ge=-20.0, le=30.0)

    @model_validator(mode="after")
    def _ordered(self) -> SpeakerphoneEcho:
        if self.low_hz >= self.high_hz:
            raise ValueError("low_hz must be below high_hz")
        return self

    def path(self, rng: np.random.Generator) -> np.ndarray:
        """The echo path's impulse response at ECHO_RATE (a call draws it once: one room per call)."""
        room = synthetic_rir(ECHO_RATE, self.rt60_s, self.drr_db, rng)
        room /= math.sqrt(float(np.sum(room * room)))
        low = self.low_hz if self.low_hz > 0.0 else None
        edges = [low, self.high_hz] if low is not None else self.high_hz
        sos = sps.butter(2, edges, "bandpass" if low is not None else "lowpass", fs=ECHO_RATE, output="sos")
        # the band-pass's own ring (~tens of ms) is kept: the response is filtered with room for its tail
        speaker = sps.sosfilt(sos, np.concatenate([room, np.zeros(ECHO_RATE // 10)]))
        return 10.0 ** (self.level_db / 20.0) * speaker

    def render(self, audio: np.ndarray, sample_rate: int, path: np.ndarray) -> np.ndarray:
        """The echo of ``audio`` (any rate) at ECHO_RATE, its tail included (longer than the input); it starts at
        the input's start: the caller of this function adds the delays."""
        x = np.asarray(audio, dtype=np.float64)
        if sample_rate != ECHO_RATE:
            x = resample(x, sample_rate, ECHO_RATE)
        return sps.oaconvolve(x, path).astype(np.float32)

    @staticmethod
    def measured_level_db(agent: np.ndarray, agent_rate: int, echo: np.ndarray) -> float | None:
        """10 log10(P_echo / P_agent), active powers (``perturbations.mixing``): what the agent gets back."""
        p_agent, _ = signal_power(np.asarray(agent, dtype=np.float32), agent_rate)
        p_echo, _ = signal_power(np.asarray(echo, dtype=np.float32), ECHO_RATE)
        return 10.0 * math.log10(p_echo / p_agent) if p_agent > 0.0 and p_echo > 0.0 else None
