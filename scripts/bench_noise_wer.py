"""How much each noise environment hurts the default ASR, and how fast each generator is, in one run.

Synthesises a few caller sentences with eSpeak NG (the neutral voice's two speakers, as the user simulator
does), mixes every noise environment in with the ``noise`` op at 15 and 5 dB SNR (active speech level, as the
conf/perturb/noise_*.yaml files do), transcribes with the default cascade's Whisper settings
(conf/agent/cascade_local.yaml) and prints word-weighted WER per environment next to clean; then each
environment's generator throughput in x real time (5 s clips at 16 and 22.05 kHz, single call at a time, loops
cached) and the one-off cost of synthesising one loop (cold), plus the ``noise_files`` op's throughput on a
small temporary folder.

Usage: python scripts/bench_noise_wer.py [--snr 15 5] [--sentences 8] [--environments cafe airport ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable from a checkout

from evalkit.speech import EspeakTTS, WhisperASR, normalize_for_wer, wer
from perturbations import Chain, available_environments, generate

REPO = Path(__file__).resolve().parents[1]
SENTENCES = [
    "I would like to change my flight to Boston please",
    "My confirmation code is W K 2 E X B",
    "Can you book me a window seat on the morning flight to Chicago",
    "I need to cancel my reservation for next Tuesday",
    "My flight was delayed by three hours and I missed my connection",
    "My frequent flyer number is four seven two nine one eight",
    "Please add a checked bag to my booking",
    "My last name is spelled S M I T H",
    "Is there a direct flight from Seattle to Denver on Friday",
    "How much does it cost to change the return date",
]
SECONDS = 5.0


def speakers() -> list[EspeakTTS]:
    voice = yaml.safe_load((REPO / "conf/voice/neutral.yaml").read_text())
    return [EspeakTTS(voice=s["espeak_voice"], rate_wpm=voice["rate_wpm"], pitch=s["pitch"]) for s in voice["speakers"]]


def asr() -> WhisperASR:
    settings = yaml.safe_load((REPO / "conf/agent/cascade_local.yaml").read_text())["asr"]
    return WhisperASR(**settings)


def corpus_wer(model: WhisperASR, clips: list[tuple[np.ndarray, int]], refs: list[str]) -> float:
    """Word-weighted WER: total errors over total reference words."""
    errors = words = 0.0
    for (audio, rate), ref in zip(clips, refs, strict=True):
        n = len(normalize_for_wer(ref).split())
        errors += wer(ref, model.transcribe(audio, rate).text) * n
        words += n
    return errors / words


def noisy(clips: list[tuple[np.ndarray, int]], environment: str, snr_db: float) -> list[tuple[np.ndarray, int]]:
    chain = Chain.from_specs([{"op": "noise", "environment": environment, "snr_db": snr_db}])
    # The same seed per sentence in every condition: conditions differ only by environment and SNR.
    return [(chain(audio, rate, np.random.default_rng(i))[0], rate) for i, (audio, rate) in enumerate(clips)]


def x_real_time(run: Callable[[int], object], calls: int = 50, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for i in range(calls):
            run(i)
        best = min(best, time.perf_counter() - started)
    return calls * SECONDS / best


def generator_speed(environment: str, rate: int) -> float:
    n = round(SECONDS * rate)
    for seed in range(16):  # warm every loop at this rate
        generate(environment, n, rate, np.random.default_rng(seed))
    return x_real_time(lambda i: generate(environment, n, rate, np.random.default_rng(i)))


def cold_loop_seconds(environment: str, rate: int) -> float | None:
    """Wall time to synthesise one loop from scratch (None for generators without loops, e.g. white)."""
    module = sys.modules.get(f"perturbations.environments.{environment}")
    bank = getattr(getattr(module, environment, None), "bank", None)
    if bank is None:
        return None
    bank.cache_clear()
    started = time.perf_counter()
    bank(rate, 0)
    return time.perf_counter() - started


def noise_files_speed(rate: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        rng = np.random.default_rng(0)
        for i in range(4):
            sf.write(Path(folder) / f"n{i}.wav", 0.1 * rng.standard_normal((44100 * 4, 2)), 44100)
        chain = Chain.from_specs([{"op": "noise_files", "folder": folder, "snr_db": 15.0}])
        speech = (0.2 * np.sin(np.arange(round(SECONDS * rate)) * 0.05)).astype(np.float32)
        for seed in range(16):
            chain(speech, rate, np.random.default_rng(seed))
        return x_real_time(lambda i: chain(speech, rate, np.random.default_rng(i)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snr", type=float, nargs="+", default=[15.0, 5.0])
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--environments", nargs="+", default=available_environments())
    args = parser.parse_args()

    voices = speakers()
    refs = SENTENCES[: args.sentences]
    clips = [voices[i % len(voices)].synthesize(text) for i, text in enumerate(refs)]
    audio_s = sum(a.shape[0] / r for a, r in clips)
    model = asr()
    print(f"{len(refs)} sentences, {audio_s:.1f} s of eSpeak speech; ASR {model!r}")
    clean = corpus_wer(model, clips, refs)

    header = f"{'environment':<14}{'clean':>8}" + "".join(f"{f'{s:g} dB':>9}" for s in args.snr)
    header += f"{'gen x RT 16k':>14}{'gen x RT 22k':>14}{'loop synth 22k':>16}"
    print(header)
    for environment in args.environments:
        wers = [corpus_wer(model, noisy(clips, environment, snr), refs) for snr in args.snr]
        speeds = [generator_speed(environment, rate) for rate in (16000, 22050)]
        cold = cold_loop_seconds(environment, 22050)
        cold_text = f"{cold:.2f} s" if cold is not None else "-"
        print(
            f"{environment:<14}{clean:>8.3f}"
            + "".join(f"{w:>9.3f}" for w in wers)
            + "".join(f"{s:>13,.0f}x" for s in speeds)
            + f"{cold_text:>16}",
            flush=True,
        )
    print(
        "noise_files op (15 dB, 4 stereo 44.1 kHz WAVs, decoded+resampled once): "
        + ", ".join(f"{noise_files_speed(rate):,.0f}x real time at {rate} Hz" for rate in (16000, 22050))
    )


if __name__ == "__main__":
    main()
