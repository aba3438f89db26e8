"""The line ops of a condition on one call: network delay both ways and the speakerphone echo (perturbations.ops.line).

Delay. The timeline a call records is the agent's. The caller hears the end of the agent's turn ``downlink`` late,
reacts, and its speech reaches the agent ``uplink`` later, so each caller utterance is placed ``uplink + downlink``
(each with its jitter, drawn per utterance) after where a perfect line would put it, and carries a ``line_delay``
effect saying so. The caller's opening line is delayed the same way (it waited on the same line for a greeting).

Echo. Each piece of agent audio the call receives is rendered through the echo path (one room per call, drawn from
the call's seed) and lands on the caller's line ``round trip + delay_ms`` after the piece started: mixed into what
the agent hears there, the caller's utterances and the open line between them alike, after the condition's clip
chain (the echo has its own loudspeaker band; it is not re-coded). A turn-based agent's turn is played whole when it
is recorded (as far as it was not cut), so its echo reaches the recorded line and any caller utterance that overlaps
it (an interjection over the agent's tail); a live stream plays chunk by chunk as it arrives, and the continuous
line mixes the echo into each frame as it sends it (its bed is rendered ahead, the echo cannot be). A caller
utterance is rendered when the caller starts it, so the echo of agent audio arriving while it is being said is not
in it. The round trip of the echo is one draw per call. The agent's turn records one ``speakerphone_echo`` effect:
where its echo lands, the level asked for and the level delivered (echo energy over the agent audio's energy). A
caller utterance whose mix with the echo would peak above 0.999 is scaled down as a whole (never clipped) and
carries an ``echo_limited`` effect.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from evalkit.records import AppliedEffect
from evalkit.seeds import rng_for
from perturbations.ops.line import ECHO_RATE, LineDelay, SpeakerphoneEcho

PEAK_LIMIT = 0.999
KEEP_MS = 10_000.0  # echo pieces that ended this long before the latest stretch mixed are dropped


class LineEffects:
    """The line ops of one call (``ops``: a chain's ``line_ops``); a call without any needs none of this."""

    def __init__(self, ops: tuple[Any, ...], cell_seed: int, keys: tuple[int | str, ...]) -> None:
        self.cell_seed = cell_seed
        self.keys = keys
        self.delay: LineDelay | None = next((op for op in ops if isinstance(op, LineDelay)), None)
        self.echo: SpeakerphoneEcho | None = next((op for op in ops if isinstance(op, SpeakerphoneEcho)), None)
        self._pieces: list[tuple[float, np.ndarray]] = []  # (start on the timeline, echo at ECHO_RATE)
        # a live call appends pieces on the event loop while the caller's next utterance is rendered in a thread
        self._lock = threading.Lock()
        self._energy = [0.0, 0.0]  # agent, echo: since the last turn's effect
        self._path: np.ndarray | None = None
        self._echo_trip = {"uplink_ms": 0.0, "downlink_ms": 0.0, "round_trip_ms": 0.0}
        if self.echo is not None:
            self._path = self.echo.path(rng_for(cell_seed, *keys, "echo_room"))
            if self.delay is not None:
                self._echo_trip = self.delay.draw(rng_for(cell_seed, *keys, "echo_delay"))

    def utterance_delay(self, index: int) -> dict[str, float] | None:
        """The delays of caller utterance ``index`` (None: no line_delay op)."""
        if self.delay is None:
            return None
        return self.delay.draw(rng_for(self.cell_seed, *self.keys, index, "line_delay"))

    @property
    def echo_lag_ms(self) -> float:
        """From the agent's audio to its echo on the caller's line."""
        return self._echo_trip["round_trip_ms"] + (self.echo.delay_ms if self.echo is not None else 0.0)

    def hear_agent(self, start_ms: float, samples: np.ndarray, sample_rate: int) -> None:
        """A piece of the agent's audio, starting at ``start_ms`` on the timeline, comes out of the loudspeaker."""
        if self.echo is None or self._path is None or len(samples) == 0:
            return
        rendered = self.echo.render(samples, sample_rate, self._path)
        with self._lock:
            self._pieces.append((start_ms + self.echo_lag_ms, rendered))
        x = np.asarray(samples, dtype=np.float64)
        self._energy[0] += float(np.dot(x, x)) / sample_rate
        self._energy[1] += float(np.dot(rendered, rendered)) / ECHO_RATE

    def turn_effect(self, turn: int, start_ms: float, end_ms: float) -> list[AppliedEffect]:
        """The echo of the agent's turn ``[start_ms, end_ms)`` as one effect entry (none without echo)."""
        if self.echo is None or self._energy[0] <= 0.0:
            return []
        agent, echo = self._energy
        self._energy = [0.0, 0.0]
        tail_ms = 1000.0 * (len(self._path) - 1) / ECHO_RATE if self._path is not None else 0.0
        params = {
            "level_db": self.echo.level_db,
            "level_db_delivered": 10.0 * math.log10(echo / agent) if echo > 0.0 else None,
            "lag_ms": self.echo_lag_ms,
            **self._echo_trip,
            "delay_ms": self.echo.delay_ms,
            "low_hz": self.echo.low_hz,
            "high_hz": self.echo.high_hz,
            "rt60_s": self.echo.rt60_s,
        }
        lag = self.echo_lag_ms
        return [
            AppliedEffect(
                type="speakerphone_echo",
                participant="user",
                turn=turn,
                start_ms=start_ms + lag,
                end_ms=end_ms + lag + tail_ms,
                params=params,
            )
        ]

    def mix(self, audio: np.ndarray, start_ms: float, sample_rate: int) -> tuple[np.ndarray, bool]:
        """``audio`` (on the timeline from ``start_ms``) with the echo that lands there; (float32, limited)."""
        if not self._pieces:
            return audio, False
        n = len(audio)
        end_ms = start_ms + 1000.0 * n / sample_rate
        with self._lock:
            self._pieces = [p for p in self._pieces if p[0] + 1000.0 * len(p[1]) / ECHO_RATE > start_ms - KEEP_MS]
            pieces = list(self._pieces)
        out: np.ndarray | None = None
        for piece_start, echo in pieces:
            piece_end = piece_start + 1000.0 * len(echo) / ECHO_RATE
            if piece_end <= start_ms or piece_start >= end_ms:
                continue
            # the echo is band-limited to a few kHz: linear interpolation onto the clip's rate loses nothing audible
            positions = (start_ms - piece_start) / 1000.0 * ECHO_RATE + np.arange(n) * (ECHO_RATE / sample_rate)
            inside = (positions >= 0.0) & (positions <= len(echo) - 1)
            if not inside.any():
                continue
            if out is None:
                out = np.asarray(audio, dtype=np.float64).copy()
            out[inside] += np.interp(positions[inside], np.arange(len(echo)), echo)
        if out is None:
            return audio, False
        peak = float(np.max(np.abs(out)))
        if peak > PEAK_LIMIT:
            out *= PEAK_LIMIT / peak
        return out.astype(np.float32), peak > PEAK_LIMIT
