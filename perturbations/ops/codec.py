"""The ``codec`` op: a lossy speech/audio codec round trip (encode + decode in memory), time-aligned.

EVA-Bench App. G's "connection degradation" starts with codec compression; the paper names no codec, EVA's code
uses a μ-law round trip. Telephone codecs run at 8 kHz (G.722 at 16 kHz, Opus at 48 kHz, MP3 at an MPEG rate that
allows the bitrate): a clip at another rate is resampled in and back out with libsoxr
(``perturbations.ops.channel.resample``: linear phase, delay removed, so it adds no shift), so the codec's band
limit is part of the effect, as on a real phone line; a clip already at the codec's rate is not resampled.

Backends (the fastest that works, measured on a 10 s 8 kHz clip, one thread; see the module's tests/report):
- numpy for G.711 μ-law/A-law (``perturbations.g711``): exact (bit-exact with the ITU-T G.191 reference), no
  codec delay, one table lookup per sample; the WAV round trip through libsndfile it replaces cost ~30x more;
- soundfile (libsndfile) for GSM 06.10 (WAV49, the only GSM encoder we have: PyAV's FFmpeg build decodes GSM but
  cannot encode it);
- PyAV for MP3 (libmp3lame: an exact CBR bitrate, which libsndfile's ``compression_level`` cannot give), Opus
  (libopus, ~2x faster than libsndfile's Ogg/Opus), AMR-NB (libopencore_amrnb), G.722 and G.726.

Alignment: codecs delay the signal (MP3 priming + decoder delay, AMR look-ahead, G.722 QMF filters). Rather than
hard-code per-version constants, the delay of each (codec, rate, bitrate) is *measured* once per process by a
cross-correlation on a fixed calibration signal and cached; the decoded stream is shifted by it and cut/padded to
exactly the input length. The shift applied is reported (``delay_compensated_samples`` at the codec rate). G.711
is memoryless (one code per sample), so its delay is 0 by construction and is not measured.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass as plain_dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import soundfile as sf
from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic.dataclasses import dataclass
from scipy import signal as sps

from perturbations import g711
from perturbations.audio import effect
from perturbations.ops.channel import resample
from perturbations.registry import OP_CONFIG, Number, Op, register_op

if TYPE_CHECKING:  # annotations only: PyAV is loaded when a PyAV codec first runs (see _av)
    import av

CodecName = Literal["g711_mulaw", "g711_alaw", "g722", "g726", "gsm", "mp3", "opus", "amr_nb"]
PEAK_LIMIT = 0.999

MP3_KBPS = (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 192, 224, 256, 320)
# MPEG-1 (32/44.1/48 kHz), MPEG-2 (16/22.05/24 kHz) and MPEG-2.5 (8/11.025/12 kHz) each allow a bitrate subset.
_MP3_RATES: tuple[tuple[int, frozenset[int]], ...] = (
    (48000, frozenset((32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320))),
    (44100, frozenset((32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320))),
    (32000, frozenset((32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320))),
    (24000, frozenset((8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160))),
    (22050, frozenset((8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160))),
    (16000, frozenset((8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160))),
    (12000, frozenset((8, 16, 24, 32, 40, 48, 56, 64))),
    (11025, frozenset((8, 16, 24, 32, 40, 48, 56, 64))),
    (8000, frozenset((8, 16, 24, 32, 40, 48, 56, 64))),
)
AMR_NB_KBPS = (4.75, 5.15, 5.9, 6.7, 7.4, 7.95, 10.2, 12.2)
G726_KBPS = (16, 24, 32, 40)
OPUS_KBPS_RANGE = (6.0, 510.0)


@plain_dataclass(frozen=True)
class CodecInfo:
    """Static facts about one codec: its rate (None = chosen per clip), bitrates and backend."""

    rate: int | None
    default_kbps: float
    allowed_kbps: tuple[float, ...] | None  # None: fixed bitrate (any other value is an error) or a range
    backend: Literal["numpy", "soundfile", "pyav"]


CODECS: dict[str, CodecInfo] = {
    "g711_mulaw": CodecInfo(8000, 64.0, (64.0,), "numpy"),
    "g711_alaw": CodecInfo(8000, 64.0, (64.0,), "numpy"),
    "g722": CodecInfo(16000, 64.0, (64.0,), "pyav"),  # FFmpeg's G.722 encoder has the 64 kbit/s mode only
    "g726": CodecInfo(8000, 32.0, tuple(float(k) for k in G726_KBPS), "pyav"),
    "gsm": CodecInfo(8000, 13.0, (13.0,), "soundfile"),  # GSM 06.10 full rate
    "mp3": CodecInfo(None, 32.0, tuple(float(k) for k in MP3_KBPS), "pyav"),
    "opus": CodecInfo(48000, 16.0, None, "pyav"),
    "amr_nb": CodecInfo(8000, 12.2, AMR_NB_KBPS, "pyav"),
}


def allowed_bitrates(codec: str) -> str:
    """Human-readable allowed ``bitrate_kbps`` values of ``codec``, for error messages and docs."""
    if codec == "opus":
        return f"any number from {OPUS_KBPS_RANGE[0]:g} to {OPUS_KBPS_RANGE[1]:g}"
    allowed = CODECS[codec].allowed_kbps or ()
    return "one of " + ", ".join(f"{k:g}" for k in allowed)


def check_bitrate(codec: str, kbps: float) -> None:
    if codec == "opus":
        ok = OPUS_KBPS_RANGE[0] <= kbps <= OPUS_KBPS_RANGE[1]
    else:
        ok = any(math.isclose(kbps, k) for k in CODECS[codec].allowed_kbps or ())
    if not ok:
        raise ValueError(f"{codec} allows bitrate_kbps {allowed_bitrates(codec)} (kbit/s)")


def mp3_rate(sample_rate: int, kbps: float) -> int:
    """The highest MPEG rate <= the clip's rate that allows ``kbps`` (else the lowest rate that does), so the
    codec, not our resampler, decides the band: LAME would resample too, but silently."""
    fits = [rate for rate, kbps_set in _MP3_RATES if round(kbps) in kbps_set]
    below = [rate for rate in fits if rate <= sample_rate]
    return max(below) if below else min(fits)


def codec_rate(codec: str, sample_rate: int, kbps: float) -> int:
    rate = CODECS[codec].rate
    return mp3_rate(sample_rate, kbps) if rate is None else rate


# ---- backends: float32 mono at the codec rate in, the decoder's raw float32 stream out (not aligned) ----------

_SOUNDFILE_FORMATS = {"gsm": ("WAV", "GSM610")}
_G711_LAWS: dict[str, g711.Law] = {"g711_mulaw": "mulaw", "g711_alaw": "alaw"}

# (encoder, decoder) names in FFmpeg; G.726 goes through a WAV container (see _g726_roundtrip)
_PYAV_CODECS: dict[str, tuple[str, str]] = {
    "g722": ("g722", "g722"),
    "mp3": ("libmp3lame", "mp3"),
    "opus": ("libopus", "opus"),
    "amr_nb": ("libopencore_amrnb", "amrnb"),
}


def _soundfile_roundtrip(codec: str, x: np.ndarray, rate: int) -> np.ndarray:
    container, subtype = _SOUNDFILE_FORMATS[codec]
    buffer = io.BytesIO()
    sf.write(buffer, x, rate, format=container, subtype=subtype)
    buffer.seek(0)
    decoded, _ = sf.read(buffer, dtype="float32")
    return decoded


@functools.cache
def _av() -> Any:
    """PyAV, imported on first use: its wheel bundles FFmpeg built with GPL-2.0 parts (libx264, libx265), so
    ``import perturbations`` (and every op that is not a PyAV codec) never loads it (docs/licences.md)."""
    import av

    return av


def _s16_frames(x: np.ndarray, rate: int, frame_size: int, fmt: str) -> Iterator[av.AudioFrame]:
    """16-bit PCM frames of exactly ``frame_size`` samples (the last one zero-padded), timestamped."""
    pcm = np.round(np.clip(x, -1.0, 1.0) * 32767.0).astype(np.int16)
    if pcm.shape[0] % frame_size:
        pcm = np.concatenate([pcm, np.zeros(frame_size - pcm.shape[0] % frame_size, np.int16)])
    for start in range(0, pcm.shape[0], frame_size):
        frame = _av().AudioFrame.from_ndarray(pcm[None, start : start + frame_size], format=fmt, layout="mono")
        frame.sample_rate = rate
        frame.pts = start
        yield frame


def _pyav_encoder(codec: str, rate: int, kbps: float) -> av.AudioCodecContext:
    enc_name, _ = _PYAV_CODECS[codec]
    enc = _av().CodecContext.create(enc_name, "w")
    enc.sample_rate = rate
    enc.layout = "mono"
    enc.format = "s16p" if codec == "mp3" else "s16"
    if codec != "g722":
        enc.bit_rate = round(kbps * 1000)
    if codec == "opus":
        enc.options = {"application": "voip"}
    enc.open()
    return enc


def _pyav_roundtrip(codec: str, x: np.ndarray, rate: int, kbps: float) -> np.ndarray:
    enc = _pyav_encoder(codec, rate, kbps)
    dec = _av().CodecContext.create(_PYAV_CODECS[codec][1], "r")
    dec.sample_rate = rate
    dec.layout = "mono"
    if enc.extradata:
        dec.extradata = enc.extradata
    chunks: list[np.ndarray] = []

    def drain(packets: list[av.Packet]) -> None:
        for packet in packets:
            chunks.extend(frame.to_ndarray().reshape(-1) for frame in dec.decode(packet))

    for frame in _s16_frames(x, rate, enc.frame_size or 1024, enc.format.name):  # frame_size 0: any size
        drain(enc.encode(frame))
    drain(enc.encode(None))
    chunks.extend(frame.to_ndarray().reshape(-1) for frame in dec.decode(None))
    if dec.sample_rate != rate:  # pragma: no cover - every decoder above decodes at the encoder's rate
        raise RuntimeError(f"{codec} decoded at {dec.sample_rate} Hz, expected {rate} Hz")
    if not chunks:
        return np.zeros(0, np.float32)
    out = np.concatenate(chunks)
    return (out.astype(np.float32) / 32768.0) if out.dtype == np.int16 else out.astype(np.float32)


def _g726_roundtrip(x: np.ndarray, rate: int, kbps: float) -> np.ndarray:
    """G.726 through an in-memory WAV: FFmpeg's G.726 *decoder* takes its bits/sample only from a container
    (a bare CodecContext cannot be given ``bits_per_coded_sample`` through PyAV), so mux and demux."""
    buffer = io.BytesIO()
    with _av().open(buffer, "w", format="wav") as container:
        stream = container.add_stream("g726", rate=rate, layout="mono")
        stream.codec_context.format = "s16"
        stream.codec_context.options = {"code_size": str(round(kbps * 1000 / rate))}  # bits per sample: 2..5
        for frame in _s16_frames(x, rate, 2048, "s16"):
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    buffer.seek(0)
    with _av().open(buffer, "r") as container:
        chunks = [frame.to_ndarray().reshape(-1) for frame in container.decode(audio=0)]
    return np.concatenate(chunks).astype(np.float32) / 32768.0 if chunks else np.zeros(0, np.float32)


def raw_roundtrip(codec: str, x: np.ndarray, rate: int, kbps: float) -> np.ndarray:
    """Encode and decode ``x`` (float32 at ``rate``) with the codec's backend; the stream is not aligned."""
    if codec in _G711_LAWS:
        return g711.roundtrip(x, _G711_LAWS[codec])
    if CODECS[codec].backend == "soundfile":
        return _soundfile_roundtrip(codec, x, rate)
    if codec == "g726":
        return _g726_roundtrip(x, rate, kbps)
    return _pyav_roundtrip(codec, x, rate, kbps)


_MAX_DELAY = 4096  # samples at the codec rate; MP3's ~1105 and Opus' 312 pre-skip are far below


@functools.lru_cache(maxsize=64)
def codec_delay(codec: str, rate: int, kbps: float) -> int:
    """The codec's end-to-end delay in samples at ``rate``, measured by cross-correlation (cached per process).

    Calibration signal: 1 s of 300-3400 Hz band-limited noise from a fixed local seed (deterministic, never the
    global RNG). Encoders are deterministic, so the measurement is too; tests check lag 0 after compensation.
    G.711 is memoryless: 0 without measuring."""
    if codec in _G711_LAWS:
        return 0
    n = rate
    sos = sps.butter(4, [300.0, min(3400.0, 0.45 * rate)], btype="bandpass", fs=rate, output="sos")
    probe = sps.sosfilt(sos, np.random.default_rng(20240611).standard_normal(n))
    probe = (0.25 * probe / np.max(np.abs(probe))).astype(np.float32)
    padded = np.concatenate([probe, np.zeros(_MAX_DELAY, np.float32)])
    decoded = raw_roundtrip(codec, padded, rate, kbps).astype(np.float64)
    lags = np.arange(0, _MAX_DELAY)
    corr = sps.correlate(decoded[: n + _MAX_DELAY], probe.astype(np.float64), mode="full", method="fft")
    # corr[k + n - 1] is the match of probe against decoded shifted by k samples
    return int(lags[np.argmax(corr[n - 1 : n - 1 + _MAX_DELAY])])


def _fit(x: np.ndarray, n: int) -> np.ndarray:
    """Exactly ``n`` samples: cut, or pad with zeros (the codec's tail beyond the decoded stream is silence)."""
    if x.shape[0] >= n:
        return x[:n]
    return np.concatenate([x, np.zeros(n - x.shape[0], x.dtype)])


def _snr_db(reference: np.ndarray, test: np.ndarray) -> float | None:
    """Waveform SNR of ``test`` against ``reference`` (float32 clips) in dB. float32 BLAS dots: ~7x cheaper than
    converting both clips to float64, and within ~1e-6 dB of the float64 figure (tests check 1e-3 dB)."""
    err = np.subtract(test, reference, dtype=np.float32)
    p_ref, p_err = float(np.dot(reference, reference)), float(np.dot(err, err))
    if p_ref <= 0.0:
        return None
    return 10.0 * math.log10(p_ref / p_err) if p_err > 0.0 else math.inf


def codec_roundtrip(
    audio: np.ndarray, sample_rate: int, codec: str, kbps: float, at_clip_rate: bool = False
) -> tuple[np.ndarray, dict[str, Any]]:
    """(aligned, same-length float32 output at ``sample_rate``, applied params); see the module docstring.
    ``at_clip_rate`` (G.711 only): code at the clip's own rate, no resampling (``Codec.at_clip_rate``)."""
    n = audio.shape[0]
    if at_clip_rate and codec not in _G711_LAWS:
        raise ValueError(f"at_clip_rate applies to the G.711 codecs only, not {codec}")
    rate = sample_rate if at_clip_rate else codec_rate(codec, sample_rate, kbps)
    over_full_scale = 0
    lo, hi = float(audio.min()), float(audio.max())  # two reductions instead of abs + compare + count
    if lo < -1.0 or hi > 1.0:
        over_full_scale = int(np.count_nonzero(np.abs(audio) > 1.0))
        audio_in = np.clip(audio, -1.0, 1.0)
    else:
        audio_in = audio
    x = resample(audio_in, sample_rate, rate)
    delay = codec_delay(codec, rate, kbps)
    if codec in _G711_LAWS:  # memoryless: nothing to flush, nothing to shift
        in_range = rate == sample_rate and lo >= -1.0 and hi < g711.IN_RANGE_MAX  # x is audio: its range is known
        decoded = g711.roundtrip(x, _G711_LAWS[codec], in_range)
    else:
        # Trailing zeros push the last real samples through the encoder's look-ahead/priming before the flush.
        padded = np.concatenate([x, np.zeros(delay + 1, np.float32)])
        decoded = _fit(raw_roundtrip(codec, padded, rate, kbps)[delay:], x.shape[0])
    out = _fit(resample(decoded, rate, sample_rate), n).astype(np.float32, copy=False)
    if codec in _G711_LAWS and rate == sample_rate:
        limiter = 1.0  # G.711 values only, all below PEAK_LIMIT (the largest is 32256/32768): nothing to measure
    else:
        peak = max(float(out.max()), -float(out.min()))
        limiter = PEAK_LIMIT / peak if peak > PEAK_LIMIT else 1.0
    if limiter != 1.0:
        out = (out * limiter).astype(np.float32)
    params = {
        "codec": codec,
        "bitrate_kbps": kbps,
        "codec_sample_rate": rate,
        "backend": CODECS[codec].backend,
        "delay_compensated_samples": delay,
        "delay_compensated_ms": 1000.0 * delay / rate,
        "snr_db": _snr_db(audio, out),  # waveform SNR of the decoded clip vs the input (None on silence)
        "limited": limiter != 1.0,
        "limiter_gain_db": 20.0 * math.log10(limiter),
        "input_samples_over_full_scale": over_full_scale,
    }
    if at_clip_rate:  # 8 bits per sample at the clip's rate
        params.update(at_clip_rate=True, bitrate_kbps=8.0 * rate / 1000.0)
    if params["snr_db"] == math.inf:
        params["snr_db"] = None
    return out, params


@register_op("codec")
@dataclass(config=OP_CONFIG)
class Codec(Op):
    """Round-trip the clip through ``codec`` at ``bitrate_kbps`` (None = the codec's default: G.711 64, G.722 64,
    G.726 32, GSM 13, MP3 32, Opus 16, AMR-NB 12.2). One effect entry over the whole clip with the codec, bitrate,
    codec sample rate, backend, the delay compensated, the decoded clip's SNR and any peak limiting.

    ``at_clip_rate`` (G.711 only; default false): apply the companding law at the clip's own rate instead of on an
    8 kHz leg, i.e. quantisation without the telephone band limit and without resampling, as EVA-Bench's code
    does to its 16 kHz user audio. Left out of the spec when false, so existing configs keep their identity."""

    draws: ClassVar[bool] = False

    codec: CodecName = "g711_mulaw"
    bitrate_kbps: Number | None = Field(default=None, gt=0.0)
    at_clip_rate: bool = False

    @model_validator(mode="after")
    def _clip_rate_for_g711_only(self) -> Codec:
        if self.at_clip_rate and self.codec not in _G711_LAWS:
            raise ValueError("at_clip_rate applies to the G.711 codecs only (g711_mulaw, g711_alaw)")
        return self

    def to_dict(self) -> dict[str, Any]:
        spec = super().to_dict()
        if not self.at_clip_rate:
            del spec["at_clip_rate"]
        return spec

    @field_validator("bitrate_kbps")
    @classmethod
    def _allowed_for_codec(cls, value: float | None, info: ValidationInfo) -> float | None:
        codec = info.data.get("codec")
        if value is not None and codec in CODECS:
            check_bitrate(codec, value)
        return value

    @property
    def kbps(self) -> float:
        return CODECS[self.codec].default_kbps if self.bitrate_kbps is None else float(self.bitrate_kbps)

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        out, params = codec_roundtrip(audio, sample_rate, self.codec, self.kbps, self.at_clip_rate)
        return out, [effect("codec", audio.shape[0], sample_rate, params)]
