"""The ``packet_loss`` op: VoIP frames dropped by a random or Gilbert–Elliott process, then concealed.

EVA-Bench App. G lists "simulated packet loss" in its connection degradation stack without a rate; EVA's code
drops 20 ms frames. Hand-written with numpy: none of the kept libraries (audiomentations, librosa, scipy, PyAV,
soundfile) simulates packet loss or packet-loss concealment.

Loss models (one decision per frame of ``frame_ms``):
- ``random``: each frame is lost independently with probability ``loss_rate`` (Bernoulli).
- ``gilbert_elliott``: a two-state Markov chain, Good (G) and Bad (B), with the standard parameters
  p = P(G→B) and r = P(B→G) per frame; a frame is lost with probability ``loss_good`` (= 1−k) in G and
  ``loss_bad`` (= 1−h) in B (h, k: the usual probabilities of *correct* reception in B and G). Stationary
  state probabilities π_B = p/(p+r), π_G = r/(p+r), so the long-run loss rate is

      loss_rate = (r·loss_good + p·loss_bad) / (p + r)

  and the mean sojourn in B is 1/r frames (with loss_bad = 1, loss_good = 0 — the simple Gilbert model — that is
  the mean loss-burst length). Convenience mode: give ``loss_rate`` and ``mean_burst_frames`` instead of p and r;
  then r = 1/mean_burst_frames and p = r·(loss_rate − loss_good)/(loss_bad − loss_rate). The chain starts in its
  stationary distribution, so a clip's expected loss rate does not depend on its length.

Concealment of a lost frame:
- ``silence``: the lost samples are zeros, exactly (a receiver without PLC). No crossfade, so it can click.
- ``repeat``: the last received frame is played again (periodically, for a burst), G.711 Appendix I style:
  copies overlap-add with ``crossfade_ms`` linear crossfades, the first copy crossfades with the tail of the last
  received frame and the burst's synthetic signal crossfades into the first frame received after it. So the last
  ``crossfade_ms`` before a burst and the first after it are blended too (a receiver buffers that much).
- ``fade``: ``repeat`` under an exponential gain decay of ``fade_db_per_frame`` dB per frame from the burst start
  (smooth, no steps), i.e. it mutes long bursts as real PLC does.
A burst at the very start of a clip has nothing to repeat and is concealed with silence for every mode.

Effect entries: one ``packet_loss`` summary over the whole clip (frames, lost count, realised rate, the model's
parameters and the compact pattern ``bursts`` = [[start_frame, n_frames], ...]) followed by one
``packet_loss_burst`` entry per burst with its start/end, so the conversation timeline shows when audio vanished.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator
from pydantic.dataclasses import dataclass

from perturbations.audio import effect
from perturbations.registry import OP_CONFIG, Number, Op, register_op

DEFAULT_RANDOM_LOSS = 0.05  # EVA-style 5% when a random model is given no rate


def random_pattern(n_frames: int, loss_rate: float, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli frame losses (True = lost)."""
    return rng.random(n_frames) < loss_rate


def gilbert_elliott_pattern(
    n_frames: int, p: float, r: float, loss_good: float, loss_bad: float, rng: np.random.Generator
) -> np.ndarray:
    """Frame losses of a two-state Gilbert–Elliott chain started in its stationary distribution.

    Vectorised through the sojourn times: time spent in G is geometric with success p, in B geometric with r."""
    pi_bad = p / (p + r) if p + r > 0 else 0.0
    bad = np.zeros(n_frames, dtype=bool)
    state_bad = bool(rng.random() < pi_bad)
    pos = 0
    while pos < n_frames:
        leave = r if state_bad else p
        stay = n_frames - pos if leave <= 0.0 else int(rng.geometric(leave))
        if state_bad:
            bad[pos : pos + stay] = True
        pos += stay
        state_bad = not state_bad
    loss_prob = np.where(bad, loss_bad, loss_good)
    return rng.random(n_frames) < loss_prob


def bursts_of(lost: np.ndarray) -> list[tuple[int, int]]:
    """Runs of lost frames as (start_frame, n_frames)."""
    if not lost.any():
        return []
    edges = (np.flatnonzero(lost[1:] != lost[:-1]) + 1).tolist()  # where a run starts or ends
    if lost[0]:
        edges.insert(0, 0)
    if lost[-1]:
        edges.append(lost.shape[0])
    return [(a, b - a) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _periodic_overlap_add(frame: np.ndarray, length: int, xf: int) -> np.ndarray:
    """``length`` samples of ``frame`` repeated with hop len(frame)-xf, each copy faded in/out over ``xf``
    samples (complementary linear ramps), so consecutive copies join without a step. The first sample of the
    result is the first sample of a faded-in copy (to be overlapped with what precedes it)."""
    size = frame.shape[0]
    hop = size - xf
    copies = max(1, math.ceil(max(length - xf, 1) / hop))
    window = np.ones(size)
    if xf:
        ramp = (np.arange(xf) + 0.5) / xf
        window[:xf] = ramp
        window[size - xf :] = ramp[::-1]
    piece = frame * window
    out = np.zeros(hop * (copies - 1) + size)
    for c in range(copies):
        out[c * hop : c * hop + size] += piece
    if out.shape[0] < length:  # pragma: no cover - copies is chosen to cover length
        out = np.concatenate([out, np.zeros(length - out.shape[0])])
    return out[:length]


def conceal(
    audio: np.ndarray,
    lost: np.ndarray,
    frame: int,
    mode: str,
    crossfade: int,
    fade_db_per_frame: float,
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Apply the losses with ``mode`` concealment; returns (audio in ``audio``'s dtype, per-burst info).

    Only the bursts and their crossfades are computed, in float64 (float32 samples convert exactly), and written
    into a copy of the input: the same samples as concealing a float64 copy of the whole clip, without it."""
    n = audio.shape[0]
    x = audio
    out = audio.copy()
    xf = min(crossfade, frame // 2)
    ramp = (np.arange(xf) + 0.5) / xf if xf and mode != "silence" else np.zeros(0)  # silence: no crossfades
    infos: list[dict[str, Any]] = []
    for start_frame, count in bursts_of(lost):
        s = start_frame * frame
        e = min((start_frame + count) * frame, n)
        info: dict[str, Any] = {"start": s, "end": e, "start_frame": start_frame, "frames": count}
        if mode == "silence" or s < frame:
            out[s:e] = 0.0
            if mode != "silence":  # nothing received yet to repeat: silence, faded in on the next good frame
                info["concealment"] = "silence (no earlier frame)"
                k = min(xf, n - e)
                out[e : e + k] = x[e : e + k] * ramp[:k]
            infos.append(info)
            continue
        last = x[s - frame : s]
        synth = _periodic_overlap_add(last, (e - s) + 2 * xf, xf)  # covers [s - xf, e + xf)
        if mode == "fade":
            t = np.arange(-xf, e - s + xf) / frame
            synth *= 10.0 ** (-fade_db_per_frame * np.maximum(t, 0.0) / 20.0)
            info["gain_db_at_end"] = -fade_db_per_frame * (e - s) / frame
        # into the burst: the received tail fades out while the first copy (already faded in) comes up
        out[s - xf : s] = x[s - xf : s] * ramp[::-1] + synth[:xf]
        out[s:e] = synth[xf : xf + e - s]
        # out of the burst: the synthetic continuation fades out under the first received samples
        k = min(xf, n - e)
        out[e : e + k] = x[e : e + k] * ramp[:k] + synth[xf + e - s : xf + e - s + k] * ramp[::-1][:k]
        infos.append(info)
    return out, infos


@register_op("packet_loss")
@dataclass(config=OP_CONFIG)
class PacketLoss(Op):
    """Drop ``frame_ms`` frames by ``model`` and conceal them; see the module docstring for the models,
    the stationary loss-rate formula, the concealments and the effect entries.

    ``loss_rate``: random — the per-frame loss probability (None = 5%); Gilbert–Elliott — with
    ``mean_burst_frames``, the convenience alternative to ``p`` and ``r``."""

    frame_ms: Number = Field(default=20.0, ge=2.5, le=120.0)
    model: Literal["random", "gilbert_elliott"] = "random"
    loss_rate: Number | None = Field(default=None, ge=0.0, le=1.0)
    mean_burst_frames: Number | None = Field(default=None, ge=1.0, le=10000.0)
    p: Number | None = Field(default=None, ge=0.0, le=1.0)
    r: Number | None = Field(default=None, gt=0.0, le=1.0)
    loss_good: Number = Field(default=0.0, ge=0.0, le=1.0)
    loss_bad: Number = Field(default=1.0, ge=0.0, le=1.0)
    concealment: Literal["silence", "repeat", "fade"] = "repeat"
    fade_db_per_frame: Number = Field(default=6.0, ge=0.0, le=60.0)
    crossfade_ms: Number = Field(default=2.5, ge=0.0, le=20.0)

    @model_validator(mode="after")
    def _consistent_model(self) -> PacketLoss:
        if self.model == "random":
            if self.p is not None or self.r is not None or self.mean_burst_frames is not None:
                raise ValueError("p, r and mean_burst_frames apply to model gilbert_elliott only")
            return self
        has_pr = self.p is not None and self.r is not None
        has_convenience = self.loss_rate is not None and self.mean_burst_frames is not None
        if has_pr == has_convenience or (not has_pr and (self.p is not None or self.r is not None)):
            raise ValueError("gilbert_elliott needs either p and r, or loss_rate and mean_burst_frames (not both)")
        if has_convenience:
            lr = float(self.loss_rate)  # type: ignore[arg-type]
            if not self.loss_good <= lr < self.loss_bad:
                raise ValueError("loss_rate must lie in [loss_good, loss_bad) for the convenience mode")
            if self.ge_parameters()[0] > 1.0:
                raise ValueError("loss_rate and mean_burst_frames give p > 1; use a longer mean_burst_frames")
        return self

    def ge_parameters(self) -> tuple[float, float]:
        """(p, r) of the Gilbert–Elliott chain, from p/r or from (loss_rate, mean_burst_frames)."""
        if self.p is not None and self.r is not None:
            return float(self.p), float(self.r)
        r = 1.0 / float(self.mean_burst_frames)  # type: ignore[arg-type]
        lr = float(self.loss_rate)  # type: ignore[arg-type]
        return r * (lr - self.loss_good) / (self.loss_bad - lr), r

    def expected_loss_rate(self) -> float:
        if self.model == "random":
            return DEFAULT_RANDOM_LOSS if self.loss_rate is None else float(self.loss_rate)
        p, r = self.ge_parameters()
        return (r * self.loss_good + p * self.loss_bad) / (p + r)

    def pattern(self, n_frames: int, rng: np.random.Generator) -> np.ndarray:
        if self.model == "random":
            return random_pattern(n_frames, self.expected_loss_rate(), rng)
        p, r = self.ge_parameters()
        return gilbert_elliott_pattern(n_frames, p, r, self.loss_good, self.loss_bad, rng)

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        n = audio.shape[0]
        frame = max(1, round(sample_rate * self.frame_ms / 1000.0))
        n_frames = math.ceil(n / frame)
        lost = self.pattern(n_frames, rng)
        crossfade = round(sample_rate * self.crossfade_ms / 1000.0)
        out, infos = conceal(audio, lost, frame, self.concealment, crossfade, self.fade_db_per_frame)
        bursts = [[info["start_frame"], info["frames"]] for info in infos]
        n_lost = int(np.count_nonzero(lost))
        params: dict[str, Any] = {
            "model": self.model,
            "frame_ms": 1000.0 * frame / sample_rate,
            "frame_samples": frame,
            "frames": n_frames,
            "lost": n_lost,
            "realised_loss_rate": n_lost / n_frames,
            "expected_loss_rate": self.expected_loss_rate(),
            "concealment": self.concealment,
            "bursts": bursts,
            "mean_burst_frames": sum(b[1] for b in bursts) / len(bursts) if bursts else 0.0,
        }
        if self.model == "gilbert_elliott":
            p, r = self.ge_parameters()
            params.update(p=p, r=r, loss_good=self.loss_good, loss_bad=self.loss_bad)
        entries = [effect("packet_loss", n, sample_rate, params)]
        for info in infos:
            burst_params = {k: v for k, v in info.items() if k not in ("start", "end")}
            burst_params.setdefault("concealment", self.concealment)
            entries.append(effect("packet_loss_burst", n, sample_rate, burst_params, info["start"], info["end"]))
        return out.astype(np.float32, copy=False), entries
