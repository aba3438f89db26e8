"""Benchmark the speech front-end: TTS speed, Whisper load time, ASR speed on clean vs 0 dB noisy speech.

Usage: python scripts/bench_speech.py [--snr-db 0] [--compare-defaults]

"x real time" = seconds of audio processed per second of wall time (higher is faster).
``--compare-defaults`` also decodes the noisy clips with faster-whisper's default settings
(temperature-fallback ladder, no token cap) to show what the bounded settings avoid.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

    from evalkit.speech import Transcript, WhisperASR

SENTENCES = [
    "I would like to change my flight to Boston please",
    "My confirmation code is W K 2 E X B",
    "Can you book me a window seat on the morning flight to Chicago",
    "I need to cancel my reservation for next Tuesday",
    "What is the baggage allowance for international flights",
    "Please transfer me to a human agent right now",
    "My flight was delayed by three hours and I missed my connection",
    "Is there a direct flight from Seattle to Denver on Friday",
    "I want a refund for the seventy five dollar seat upgrade",
    "Could you move me to the one PM departure instead",
    "My frequent flyer number is four seven two nine one eight",
    "I am traveling with a small dog in a carrier",
    "Do you have any aisle seats left in economy",
    "Please add a checked bag to my booking",
    "The gate agent told me to call this number",
    "Can I use my travel credit for this new ticket",
    "I need a wheelchair at the arrival gate",
    "How much does it cost to change the return date",
    "My last name is spelled S M I T H",
    "Thank you, that is all I needed today",
]


def mix_white_noise(audio: np.ndarray, snr_db: float, rng: np.random.Generator) -> np.ndarray:
    """Add white noise at ``snr_db`` relative to the clip's own power."""
    noise = rng.standard_normal(audio.size).astype(np.float32)
    gain = np.sqrt(np.mean(audio**2) / (np.mean(noise**2) * 10 ** (snr_db / 10)))
    return (audio + gain * noise).astype(np.float32)


def _import_speech() -> ModuleType:
    """Import evalkit.speech, adding the repo root to sys.path when run as a plain script."""
    try:
        import evalkit.speech as speech
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        import evalkit.speech as speech
    return speech


def _asr_pass(asr: WhisperASR, clips: list[tuple[np.ndarray, int]]) -> tuple[list[Transcript], float]:
    start = time.perf_counter()
    transcripts = [asr.transcribe(audio, sr) for audio, sr in clips]
    return transcripts, time.perf_counter() - start


def _report_asr(label: str, speech: ModuleType, transcripts: list[Transcript], wall_s: float) -> None:
    audio_s = sum(t.audio_s for t in transcripts)
    compute = [t.compute_s for t in transcripts]
    wers = [speech.wer(ref, t.text) for ref, t in zip(SENTENCES, transcripts, strict=True)]
    print(
        f"ASR {label:<18} {audio_s / wall_s:6.2f}x real time  (audio {audio_s:5.1f} s, wall {wall_s:5.2f} s, "
        f"per clip median {statistics.median(compute):.2f} s / max {max(compute):.2f} s, "
        f"mean WER {statistics.fmean(wers):.3f})"
    )


def _defaults_pass(model: WhisperModel, clips_16k: list[np.ndarray]) -> tuple[float, float]:
    """Decode with faster-whisper's out-of-the-box settings; returns (wall_s, audio_s)."""
    start = time.perf_counter()
    for audio in clips_16k:
        segments, _ = model.transcribe(audio, language="en", beam_size=1)
        for _ in segments:
            pass
    return time.perf_counter() - start, sum(a.size for a in clips_16k) / 16000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snr-db", type=float, default=0.0)
    parser.add_argument("--compare-defaults", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    speech = _import_speech()
    from evalkit.speech.asr import resample_to_16k

    tts = speech.EspeakTTS("en-us")
    tts.synthesize("warm up")
    start = time.perf_counter()
    clips = [tts.synthesize(s) for s in SENTENCES]
    tts_wall = time.perf_counter() - start
    tts_audio = sum(a.size / sr for a, sr in clips)
    print(
        f"TTS eSpeak NG en-us  {tts_audio / tts_wall:8.0f}x real time  ({len(clips)} sentences, "
        f"audio {tts_audio:.1f} s, wall {tts_wall * 1000:.1f} ms)"
    )

    start = time.perf_counter()
    asr = speech.WhisperASR(cpu_threads=args.threads)
    print(
        f"ASR model load (bundled tiny.en int8, {args.threads} threads, incl. warm-up decode): "
        f"{time.perf_counter() - start:.2f} s"
    )

    clean, clean_wall = _asr_pass(asr, clips)
    _report_asr("clean", speech, clean, clean_wall)
    rng = np.random.default_rng(0)
    noisy_clips = [(mix_white_noise(a, args.snr_db, rng), sr) for a, sr in clips]
    noisy, noisy_wall = _asr_pass(asr, noisy_clips)
    _report_asr(f"white noise {args.snr_db:g} dB", speech, noisy, noisy_wall)
    print(f"noisy/clean wall-time ratio: {noisy_wall / clean_wall:.2f}")

    if args.compare_defaults:
        model = speech.load_whisper_model("bundled:tiny.en", "int8", args.threads)
        wall, audio_s = _defaults_pass(model, [resample_to_16k(a, sr) for a, sr in noisy_clips])
        print(
            f"ASR faster-whisper DEFAULT settings, {args.snr_db:g} dB: {audio_s / wall:.2f}x real time "
            f"(wall {wall:.2f} s) for comparison"
        )


if __name__ == "__main__":
    main()
