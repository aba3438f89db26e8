"""Audio on a Twilio-style media stream: G.711 μ-law (the default, 8 kHz mono) or 16-bit linear PCM, and the
resampling between the call's audio and the wire's rate. numpy only: ``audioop`` is deprecated (gone in 3.13)."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import numpy as np

Encoding = Literal["mulaw", "pcm16"]
MIME = {"mulaw": "audio/x-mulaw", "pcm16": "audio/x-l16"}
_BIAS = 0x84  # G.711 decoding bias (132)
_BIAS14 = 0x21  # the same bias on the 14-bit scale the encoder works on (Sun's g711.c, as audioop did)
_CLIP14 = 8159


def _mulaw_of_pcm16(pcm16: np.ndarray) -> np.ndarray:
    """G.711 μ-law codes of 16-bit samples (Sun's g711.c arithmetic), as uint8."""
    pcm = pcm16.astype(np.int32) >> 2
    mask = np.where(pcm < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(pcm), _CLIP14) + _BIAS14
    segment = np.maximum(np.floor(np.log2(magnitude)).astype(np.int32) - 5, 0)  # 0x21..0x3F is segment 0
    code = np.where(segment > 7, 0x7F, (segment << 4) | ((magnitude >> (segment + 1)) & 0x0F))  # > 7: clipped
    return (code ^ mask).astype(np.uint8)


def _mulaw_to_float(codes: np.ndarray) -> np.ndarray:
    code = ~codes.astype(np.int32) & 0xFF
    exponent = (code >> 4) & 0x07
    magnitude = (((code & 0x0F) << 3) + _BIAS) << exponent
    pcm = np.where(code & 0x80, _BIAS - magnitude, magnitude - _BIAS)
    return (pcm / 32768.0).astype(np.float32)


# Every 16-bit sample's code and every code's sample, computed once: a frame is then one table lookup (~4x faster
# than the arithmetic per 20 ms frame, which matters with many calls on one event loop).
_ENCODE = _mulaw_of_pcm16(np.arange(-32768, 32768))
_DECODE = _mulaw_to_float(np.arange(256))


def mulaw_encode(samples: np.ndarray) -> bytes:
    """Float samples in [-1, 1] -> G.711 μ-law bytes (one per sample); bit-exact with ``audioop.lin2ulaw``."""
    audio = np.asarray(samples)
    # float32 (every frame of a call): scaling by 2**15 is exact in float32 and the rounding then gives the same
    # integers as in float64, in half the memory traffic and one buffer reused by every step
    scaled = audio * np.float32(32768.0) if audio.dtype == np.float32 else audio.astype(np.float64) * 32768.0
    np.rint(scaled, out=scaled)
    np.clip(scaled, -32768, 32767, out=scaled)
    scaled += 32768
    return _ENCODE[scaled.astype(np.int32)].tobytes()


def mulaw_decode(data: bytes) -> np.ndarray:
    """G.711 μ-law bytes -> float32 samples in [-1, 1]."""
    return _DECODE[np.frombuffer(data, dtype=np.uint8)]


def encode(samples: np.ndarray, encoding: Encoding) -> bytes:
    if encoding == "mulaw":
        return mulaw_encode(samples)
    return np.clip(np.round(np.asarray(samples) * 32768.0), -32768, 32767).astype("<i2").tobytes()


def decode(data: bytes, encoding: Encoding) -> np.ndarray:
    if encoding == "mulaw":
        return mulaw_decode(data)
    return (np.frombuffer(data, dtype="<i2") / 32768.0).astype(np.float32)


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Linear interpolation: enough for speech on a telephone channel (its energy is below 4 kHz), and it keeps
    a 20 ms frame exactly 20 ms at any pair of rates. No anti-aliasing filter: a known simplification."""
    samples = np.asarray(samples, dtype=np.float32)
    if from_rate == to_rate or samples.size == 0:
        return samples
    if from_rate % to_rate == 0:  # e.g. 16 kHz -> 8 kHz, every frame: the output positions are input samples, so
        # the interpolation is a stride (the same values, ~30x cheaper per frame)
        return samples[:: from_rate // to_rate][: max(1, round(samples.size * to_rate / from_rate))]
    positions, grid = _resample_grid(samples.size, from_rate, to_rate)
    return np.interp(positions, grid, samples).astype(np.float32)


@lru_cache(maxsize=64)
def _resample_grid(size: int, from_rate: int, to_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """The output positions and the input grid of ``resample``: the same few frame sizes come 50 times a second per
    call, so they are built once (read-only: shared by every call)."""
    n_out = max(1, round(size * to_rate / from_rate))
    positions, grid = np.arange(n_out) * (from_rate / to_rate), np.arange(size)
    positions.flags.writeable = grid.flags.writeable = False
    return positions, grid
