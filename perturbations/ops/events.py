"""Time-varying realism: burst noise events, dynamic muffling and out-of-turn speech.

Each op reports one effect entry per event (sample-accurate start/end within the clip, what was applied), so a
failure can be traced to the horn or the side remark that caused it.

Where events come from. ``events`` and ``muffle`` are things that happen in the caller's world, on the call's
clock: they are a homogeneous Poisson process over ABSOLUTE call time (``call_onsets``), a pure function of
(``ClipContext.call_seed``, op stream, time). A clip sees the events whose sound overlaps it, including one that
began before the clip (its tail) or runs past its end (cut there, reported ``truncated``); events that fall in
the assistant's turns are simply never heard, which is what the agent would experience. Thinning a Poisson
process by a time window keeps its rate, so the rate on the user's audio is still ``rate_per_min``. Without a
call seed the process is drawn from the clip's rng (one independent "call" per clip). ``out_of_turn_speech``
is the caller's own speech to someone else inside a turn; where it goes depends on that turn's pauses, so it is
placed per clip from the clip's rng.

Levels. ``events`` and ``out_of_turn_speech`` set each inserted sound's level against the op input's speech
power (``perturbations.mixing.signal_power``, "active" by default): event SNR = 10 log10(P_speech / P_event),
P_event = the event's mean power over its own span (its whole sound, not the clip: a 300 ms horn at 5 dB is as
loud while it sounds as 5 dB stationary noise). On a clip without speech (the open line between utterances) events
are set against ``ClipContext.reference_power`` (the caller's speech level), as the noise beds are; without one a
silent clip stays silent. Out-of-turn level = 10 log10(P_insert / P_speech) (negative =
quieter). When the mix peaks above 0.999 the whole clip is scaled down (ratios kept) and the gain is reported
in the op's ``*_mix`` entry, as ``mix_at_snr`` does: outside the event spans the output is then exactly
``limiter_gain * input``; otherwise it is the input, bit for bit.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator
from pydantic.dataclasses import dataclass
from scipy import signal as sps

from perturbations.audio import ClipContext, effect
from perturbations.errors import PerturbationError
from perturbations.event_sounds import MAX_EVENT_S, available_event_sounds, synthesize_event
from perturbations.mixing import PEAK_LIMIT, active_mask, signal_power
from perturbations.registry import OP_CONFIG, Number, Op, register_op
from perturbations.speech_sources import available_speech_sources, synthesize_speech

BLOCK_S = 10.0  # the call-time Poisson process is drawn per 10 s block: any stretch costs O(its length)
EVENTS_TAG = 0xE7E27
MUFFLE_TAG = 0x3FF1E


def call_onsets(
    key: Sequence[int], rate_per_min: float, start_s: float, stop_s: float
) -> list[tuple[float, np.random.Generator]]:
    """Onsets in [start_s, stop_s) of a Poisson process (``rate_per_min``) on call time t >= 0, each with a
    Generator of its own for the event's parameters. Block b (times [b*BLOCK_S, (b+1)*BLOCK_S)) draws its count
    and times from ``default_rng([*key, b])`` and event j's Generator is ``default_rng([*key, b, j, 1])``, so
    the process is a pure function of ``key`` and any window of it can be drawn alone (turn order is irrelevant).
    """
    if rate_per_min <= 0.0 or stop_s <= start_s:
        return []
    onsets: list[tuple[float, np.random.Generator]] = []
    for block in range(max(0, math.floor(start_s / BLOCK_S)), math.floor(stop_s / BLOCK_S) + 1):
        block_rng = np.random.default_rng([*key, block])
        count = int(block_rng.poisson(rate_per_min * BLOCK_S / 60.0))
        times = block * BLOCK_S + block_rng.uniform(0.0, BLOCK_S, count)
        onsets.extend(
            (float(t), np.random.default_rng([*key, block, j, 1])) for j, t in enumerate(times) if start_s <= t < stop_s
        )
    onsets.sort(key=lambda item: item[0])
    return onsets


def _call_key(context: ClipContext, rng: np.random.Generator, tag: int, stream: str) -> tuple[list[int], str]:
    """(the Poisson process key, "call" or "clip"): the call seed when there is one, else one from the clip rng."""
    if context.call_seed is not None:
        seed, origin = context.call_seed, "call"
    else:
        seed, origin = int(rng.integers(0, 2**53)), "clip"
    return [seed, tag, zlib.crc32(stream.encode())], origin


def _clip_span(onset_s: float, length: int, offset_s: float, n: int, sample_rate: int) -> tuple[int, int, int]:
    """(start of the sound in clip samples, may be < 0; visible start; visible end)."""
    start = round((onset_s - offset_s) * sample_rate)
    return start, max(start, 0), min(start + length, n)


def _truncated(start: int, length: int, n: int) -> str | None:
    cut = [side for side, hit in (("start", start < 0), ("end", start + length > n)) if hit]
    return "+".join(cut) or None


def _db(ratio: float) -> float | None:
    return 10.0 * math.log10(ratio) if ratio > 0.0 and math.isfinite(ratio) else None


def _limit(mix: np.ndarray) -> tuple[np.ndarray, float]:
    """Scale the whole mix down to PEAK_LIMIT if it peaks above it (mix_at_snr's headroom rule)."""
    peak = float(np.max(np.abs(mix)))
    limiter = PEAK_LIMIT / peak if peak > PEAK_LIMIT else 1.0
    return (mix * limiter if limiter != 1.0 else mix).astype(np.float32), limiter


def _mix_params(limiter: float, out: np.ndarray) -> dict[str, Any]:
    return {
        "limited": limiter != 1.0,
        "limiter_gain_db": 20.0 * math.log10(limiter),
        "peak": float(np.max(np.abs(out))),
    }


def _check_order(value: float, info: ValidationInfo, low: str) -> float:
    if low in info.data and value < info.data[low]:
        raise ValueError(f"must be >= {low}")
    return value


def _plain_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """Tuples (how list fields are stored, so ops stay hashable) as lists in the spec dict."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in spec.items()}


SignalPowerMode = Literal["active", "whole"]


@register_op("events")
@dataclass(config=OP_CONFIG)
class Events(Op):
    """Burst noise events (``perturbations.event_sounds``) at a Poisson rate over call time, each at an SNR
    drawn uniformly from [snr_db_min, snr_db_max] (definition: module docstring).

    Entries: one "event" per event (type, span, SNR drawn and measured on the delivered samples, its call
    time, truncation) and one "events_mix" over the clip (count, speech level, seed, limiter).
    """

    types: tuple[str, ...] = Field(default=("horn", "door_slam", "dog_bark", "dish_crash"), min_length=1)
    rate_per_min: Number = Field(default=2.0, ge=0.0, le=120.0)
    snr_db_min: Number = Field(default=0.0, ge=-10.0, le=40.0)
    snr_db_max: Number = Field(default=15.0, ge=-10.0, le=40.0)
    signal_power: SignalPowerMode = "active"
    active_range_db: Number = Field(default=40.0, ge=10.0, le=80.0)

    @field_validator("types")
    @classmethod
    def _known_types(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(name not in available_event_sounds() for name in value):
            raise ValueError("unknown event type")
        return value

    @field_validator("snr_db_max")
    @classmethod
    def _ordered(cls, value: float, info: ValidationInfo) -> float:
        return _check_order(value, info, "snr_db_min")

    @classmethod
    def expected(cls, field: str) -> str | None:
        if field == "types":
            return "a non-empty list of event types from: " + ", ".join(available_event_sounds())
        if field == "snr_db_max":
            return "a number between -10 and 40 and >= snr_db_min"
        return None

    def to_dict(self) -> dict[str, Any]:
        return _plain_spec(super().to_dict())

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        return self.apply_in_context(audio, sample_rate, rng, ClipContext())

    def apply_in_context(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator, context: ClipContext
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        n = audio.shape[0]
        # Stream: the event types, not the levels, so a sweep over SNR ranges meets the same events.
        key, origin = _call_key(context, rng, EVENTS_TAG, "|".join(self.types))
        summary: dict[str, Any] = {
            "rate_per_min": self.rate_per_min,
            "types": list(self.types),
            "signal_power": self.signal_power,
            "seed": key[0],
            "seed_from": origin,
        }
        p_signal, _ = signal_power(audio, sample_rate, self.signal_power, self.active_range_db)
        if p_signal <= 0.0 and context.reference_power is not None:
            # the open line between utterances: a horn is as loud there as under the caller's speech (as the beds)
            p_signal = context.reference_power
            summary["signal_power"] = "reference"
        if p_signal <= 0.0:
            out = audio.copy()
            return out, [effect("events_mix", n, sample_rate, {**summary, "n_events": 0, "skipped": "silent input"})]
        offset_s = context.offset_ms / 1000.0
        mix = audio.astype(np.float64)
        placed: list[tuple[int, int, int, dict[str, Any], np.ndarray]] = []
        onsets = call_onsets(key, self.rate_per_min, offset_s - MAX_EVENT_S, offset_s + n / sample_rate)
        for onset_s, event_rng in onsets:
            kind = self.types[int(event_rng.integers(len(self.types)))]
            snr_db = self.snr_db_min + (self.snr_db_max - self.snr_db_min) * float(event_rng.random())
            sound = synthesize_event(kind, sample_rate, event_rng)
            start, lo, hi = _clip_span(onset_s, sound.shape[0], offset_s, n, sample_rate)
            if hi <= lo:
                continue
            p_event = float(np.mean(sound * sound))
            gain = math.sqrt(p_signal / (p_event * 10.0 ** (snr_db / 10.0)))
            part = gain * sound[lo - start : hi - start]
            mix[lo:hi] += part
            params = {
                "event_type": kind,
                "snr_db": snr_db,
                "gain_db": 20.0 * math.log10(gain),
                "call_time_ms": 1000.0 * onset_s,
                "duration_ms": 1000.0 * sound.shape[0] / sample_rate,
                "truncated": _truncated(start, sound.shape[0], n),
            }
            placed.append((lo, hi, start, params, part))
        out, limiter = _limit(mix)
        entries = []
        for lo, hi, _start, params, part in placed:
            # Realised SNR over the reported span: what was delivered (limiter included) vs the speech.
            delivered = limiter * part
            p_delivered = float(np.mean(delivered * delivered))  # 0 for a visible sliver of exact zeros
            params["snr_db_measured"] = _db(limiter * limiter * p_signal / p_delivered) if p_delivered else None
            entries.append(effect("event", n, sample_rate, params, start=lo, end=hi))
        summary.update(n_events=len(placed), signal_level_db=_db(p_signal), **_mix_params(limiter, out))
        return out, [*entries, effect("events_mix", n, sample_rate, summary)]


@register_op("muffle")
@dataclass(config=OP_CONFIG)
class Muffle(Op):
    """Dynamic muffling, as when a hand or a sleeve covers the phone: Poisson-placed segments (over call time)
    in which the audio is low-passed (zero-phase 4th-order Butterworth run forward and back, so ``cutoff_hz``
    is where the response is -6 dB; zero phase keeps the crossfade between dry and muffled coherent) and
    attenuated, with raised-cosine crossfades of ``fade_ms`` in and out (no clicks).

    Outside segments the output is the input, bit for bit. Inside, it is a crossfade of the input and the
    muffled signal, so its peak never exceeds the larger of the two; the muffled part is scaled below 0.999 if
    the filter's overshoot would take it above (reported ``limited``). One "muffle" entry per segment.
    """

    rate_per_min: Number = Field(default=2.0, ge=0.0, le=60.0)
    duration_s_min: Number = Field(default=0.4, ge=0.05, le=10.0)
    duration_s_max: Number = Field(default=2.0, ge=0.05, le=10.0)
    cutoff_hz_min: Number = Field(default=500.0, ge=100.0, le=8000.0)
    cutoff_hz_max: Number = Field(default=1500.0, ge=100.0, le=8000.0)
    attenuation_db_min: Number = Field(default=3.0, ge=0.0, le=40.0)
    attenuation_db_max: Number = Field(default=10.0, ge=0.0, le=40.0)
    fade_ms: Number = Field(default=20.0, ge=1.0, le=200.0)

    @field_validator("duration_s_max", "cutoff_hz_max", "attenuation_db_max")
    @classmethod
    def _ordered(cls, value: float, info: ValidationInfo) -> float:
        return _check_order(value, info, info.field_name.replace("_max", "_min"))  # type: ignore[union-attr]

    @classmethod
    def expected(cls, field: str) -> str | None:
        bounds = {"duration_s_max": "0.05 and 10", "cutoff_hz_max": "100 and 8000", "attenuation_db_max": "0 and 40"}
        if field in bounds:
            return f"a number between {bounds[field]} and >= {field.replace('_max', '_min')}"
        return None

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        return self.apply_in_context(audio, sample_rate, rng, ClipContext())

    def apply_in_context(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator, context: ClipContext
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        n = audio.shape[0]
        key, origin = _call_key(context, rng, MUFFLE_TAG, "muffle")
        offset_s = context.offset_ms / 1000.0
        out = audio.astype(np.float64)
        entries = []
        for onset_s, seg_rng in call_onsets(
            key, self.rate_per_min, offset_s - self.duration_s_max, offset_s + n / sample_rate
        ):
            duration = seg_rng.uniform(self.duration_s_min, self.duration_s_max)
            cutoff = seg_rng.uniform(self.cutoff_hz_min, self.cutoff_hz_max)
            attenuation = seg_rng.uniform(self.attenuation_db_min, self.attenuation_db_max)
            length = max(1, round(duration * sample_rate))
            start, lo, hi = _clip_span(onset_s, length, offset_s, n, sample_rate)
            if hi <= lo:
                continue
            cutoff_used = min(cutoff, 0.45 * sample_rate)
            limited = self._muffle(out, lo, hi, start, length, cutoff_used, attenuation, sample_rate)
            params = {
                "cutoff_hz": cutoff_used,
                "attenuation_db": attenuation,
                "fade_ms": self.fade_ms,
                "call_time_ms": 1000.0 * onset_s,
                "duration_ms": 1000.0 * length / sample_rate,
                "truncated": _truncated(start, length, n),
                "limited": limited,
                "seed": key[0],
                "seed_from": origin,
            }
            entries.append(effect("muffle", n, sample_rate, params, start=lo, end=hi))
        return out.astype(np.float32), entries

    def _muffle(
        self,
        out: np.ndarray,
        lo: int,
        hi: int,
        start: int,
        length: int,
        cutoff: float,
        attenuation_db: float,
        sample_rate: int,
    ) -> bool:
        """Crossfade ``out[lo:hi]`` (in place) into its muffled version; True if the muffled part was limited."""
        fade = max(1, min(round(self.fade_ms * sample_rate / 1000.0), length // 2))
        position = np.arange(lo, hi) - start  # sample index within the whole segment
        ramp_in = np.clip((position + 0.5) / fade, 0.0, 1.0)
        ramp_out = np.clip((length - position - 0.5) / fade, 0.0, 1.0)
        weight = np.sin(0.5 * np.pi * np.minimum(ramp_in, ramp_out)) ** 2  # raised cosine
        margin = round(0.02 * sample_rate)  # filter context beyond the visible part, against edge transients
        a, b = max(0, lo - margin), min(out.shape[0], hi + margin)
        sos = sps.butter(4, cutoff, fs=sample_rate, output="sos")
        wet = sps.sosfiltfilt(sos, out[a:b], padlen=min(3 * (2 * len(sos) + 1), b - a - 1))[lo - a : hi - a]
        wet *= 10.0 ** (-attenuation_db / 20.0)
        peak = float(np.max(np.abs(wet)))
        limited = peak > PEAK_LIMIT
        if limited:
            wet *= PEAK_LIMIT / peak
        out[lo:hi] += weight * (wet - out[lo:hi])
        return limited


DEFAULT_TICS = ("um", "uh", "hmm", "mm", "*cough*")
DEFAULT_REMARKS = (
    "hold on, honey, I'm on the phone",
    "just a second",
    "no, the other one",
    "can you turn that down",
    "I'll be right there",
    "sorry, one moment",
)


def _sound_token(text: str) -> str | None:
    """ "*cough*" -> "cough": a tic written between asterisks is an event sound, not speech."""
    return text[1:-1] if len(text) > 2 and text.startswith("*") and text.endswith("*") else None


@register_op("out_of_turn_speech")
@dataclass(config=OP_CONFIG)
class OutOfTurnSpeech(Op):
    """The caller speaks to someone else mid-turn: vocal tics ("um", "hmm", a cough) and side remarks ("hold
    on, honey, I'm on the phone"), per clip at ``tic_rate_per_min`` / ``remark_rate_per_min`` (Poisson), each
    at a level drawn from [level_db_min, level_db_max] re the speech (module docstring), rendered "away from
    the phone": low-passed at ``distance_lowpass_hz`` and given a room reverb (RT60 0.2-0.4 s, wet gain
    ``reverb_wet``).

    Speech comes from ``source`` (``perturbations.speech_sources``; checked when the op runs, since sources may
    be registered after configs are validated); "*name*" tics are event sounds (``*cough*``).
    ``placement="pauses"`` puts inserts only where the speech is inactive (20 ms frames more than
    ``active_range_db`` below the loudest) with 20 ms to spare on each side, dropping (and counting) those that
    fit no remaining pause; "overlap" places them anywhere, over speech too; "prefer_pauses" (the default)
    uses a pause when one fits and overlaps the speech otherwise (a turn of TTS speech rarely has pauses long
    enough for a side remark).
    Entries: one "out_of_turn_speech" per insert (kind, text, span, level) and one "out_of_turn_mix".
    """

    source: str = "babble"
    tic_rate_per_min: Number = Field(default=4.0, ge=0.0, le=120.0)
    remark_rate_per_min: Number = Field(default=1.0, ge=0.0, le=60.0)
    tics: tuple[str, ...] = DEFAULT_TICS
    remarks: tuple[str, ...] = DEFAULT_REMARKS
    level_db_min: Number = Field(default=-20.0, ge=-40.0, le=10.0)
    level_db_max: Number = Field(default=-8.0, ge=-40.0, le=10.0)
    placement: Literal["pauses", "prefer_pauses", "overlap"] = "prefer_pauses"
    distance_lowpass_hz: Number = Field(default=3000.0, ge=300.0, le=8000.0)
    reverb_wet: Number = Field(default=0.5, ge=0.0, le=2.0)
    signal_power: SignalPowerMode = "active"
    active_range_db: Number = Field(default=40.0, ge=10.0, le=80.0)

    @field_validator("tics")
    @classmethod
    def _known_sounds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any((token := _sound_token(t)) is not None and token not in available_event_sounds() for t in value):
            raise ValueError("unknown *sound*")
        return value

    @field_validator("level_db_max")
    @classmethod
    def _ordered(cls, value: float, info: ValidationInfo) -> float:
        return _check_order(value, info, "level_db_min")

    @classmethod
    def expected(cls, field: str) -> str | None:
        if field == "tics":
            return "a list of texts or *sound* tokens, sounds from: " + ", ".join(available_event_sounds())
        if field == "level_db_max":
            return "a number between -40 and 10 and >= level_db_min"
        return None

    def to_dict(self) -> dict[str, Any]:
        return _plain_spec(super().to_dict())

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        if self.source not in available_speech_sources():
            raise PerturbationError(
                f"perturb out_of_turn_speech: source {self.source!r} is not a registered speech source; "
                f"registered speech sources: {', '.join(available_speech_sources()) or '(none)'}"
            )
        n = audio.shape[0]
        duration_min = n / sample_rate / 60.0
        drafts = [("tic", t) for t in self._draw(self.tics, self.tic_rate_per_min * duration_min, rng)]
        drafts += [("remark", t) for t in self._draw(self.remarks, self.remark_rate_per_min * duration_min, rng)]
        order = rng.permutation(len(drafts))  # who gets first pick of the pauses
        summary: dict[str, Any] = {
            "source": self.source,
            "placement": self.placement,
            "signal_power": self.signal_power,
        }
        p_signal, _ = signal_power(audio, sample_rate, self.signal_power, self.active_range_db)
        if p_signal <= 0.0:
            summary.update(n_inserted=0, skipped="silent input")
            return audio.copy(), [effect("out_of_turn_mix", n, sample_rate, summary)]
        free = None if self.placement == "overlap" else ~active_mask(audio, sample_rate, self.active_range_db)
        guard = round(0.02 * sample_rate)
        mix = audio.astype(np.float64)
        placed: list[tuple[int, int, dict[str, Any], np.ndarray]] = []
        dropped = 0
        for i in order:
            kind, text = drafts[i]
            level_db = float(rng.uniform(self.level_db_min, self.level_db_max))
            sound = self._render(text, sample_rate, np.random.default_rng(int(rng.integers(0, 2**63))))
            start = self._place(sound.shape[0], n, free, guard, rng)
            in_pause = start is not None and free is not None
            if start is None and self.placement == "prefer_pauses":
                start = self._place(sound.shape[0], n, None, guard, rng)
            if start is None:
                dropped += 1
                continue
            end = min(n, start + sound.shape[0])
            gain = math.sqrt(p_signal * 10.0 ** (level_db / 10.0) / float(np.mean(sound * sound)))
            part = gain * sound[: end - start]
            mix[start:end] += part
            if free is not None:
                free[max(0, start - guard) : end + guard] = False
            params = {
                "kind": kind,
                "text": text,
                "source": "event_sounds" if _sound_token(text) else self.source,
                "level_db": level_db,
                "in_pause": in_pause,
                "truncated": _truncated(start, sound.shape[0], n),
            }
            placed.append((start, end, params, part))
        out, limiter = _limit(mix)
        entries = []
        for start, end, params, part in sorted(placed, key=lambda item: item[0]):
            params["level_db_measured"] = _db(float(np.mean(part * part)) / p_signal)
            entries.append(effect("out_of_turn_speech", n, sample_rate, params, start=start, end=end))
        summary.update(
            n_inserted=len(placed),
            n_dropped_no_pause=dropped,
            signal_level_db=_db(p_signal),
            **_mix_params(limiter, out),
        )
        return out, [*entries, effect("out_of_turn_mix", n, sample_rate, summary)]

    @staticmethod
    def _draw(texts: tuple[str, ...], expected_count: float, rng: np.random.Generator) -> list[str]:
        count = int(rng.poisson(expected_count)) if texts else 0
        return [texts[int(k)] for k in rng.integers(len(texts), size=count)] if count else []

    def _render(self, text: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
        """The insert as heard from the phone: speech (or a *sound*), low-passed, with a room tail, trimmed."""
        token = _sound_token(text)
        dry = (
            synthesize_event(token, sample_rate, rng)
            if token
            else synthesize_speech(self.source, text, sample_rate, rng)
        )
        cutoff = min(self.distance_lowpass_hz, 0.45 * sample_rate)
        dry = sps.sosfilt(sps.butter(2, cutoff, fs=sample_rate, output="sos"), dry)
        if self.reverb_wet > 0.0:
            rt60 = rng.uniform(0.2, 0.4)
            t = np.arange(max(1, round(rt60 * sample_rate))) / sample_rate
            response = rng.standard_normal(t.shape[0]) * np.exp(-6.9078 * t / rt60)
            response *= self.reverb_wet / np.sqrt(np.sum(response * response))
            wet = sps.oaconvolve(dry, response)
            wet[: dry.shape[0]] += dry
            dry = wet
        peak = float(np.max(np.abs(dry)))
        if not peak > 0.0:
            return np.zeros(1)
        loud = np.flatnonzero(np.abs(dry) >= peak * 1e-2)  # cut the tail at -40 dB: the span is the sound
        return dry[: loud[-1] + 1]

    @staticmethod
    def _place(length: int, n: int, free: np.ndarray | None, guard: int, rng: np.random.Generator) -> int | None:
        """A start sample: anywhere (overlap; a sound longer than the clip starts at 0 and is cut), or inside a
        free run that holds the sound plus ``guard`` each side (pauses), chosen in proportion to the slack."""
        if free is None:
            return int(rng.integers(0, max(1, n - length + 1)))
        padded = np.concatenate([[False], free, [False]])
        edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
        runs = edges.reshape(-1, 2)  # [begin, end) of each free run
        slack = (runs[:, 1] - runs[:, 0]) - (length + 2 * guard)
        fits = slack >= 0
        if not fits.any():
            return None
        weights = (slack[fits] + 1).astype(np.float64)
        run = runs[fits][int(rng.choice(weights.shape[0], p=weights / weights.sum()))]
        slack_run = (run[1] - run[0]) - (length + 2 * guard)
        return int(run[0] + guard + rng.integers(0, slack_run + 1))
