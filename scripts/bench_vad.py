"""Which VAD should a live call's caller use to decide that the agent has finished (issue 13 point 2)?

Usage: python scripts/bench_vad.py [--turns 12] [--snr 99,20,15,10,5] [--take-turn-ms 800]

Agent turns as a telephone caller hears them: eSpeak NG (the embedded agent's voice: en-gb, 185 wpm) speaking two
sentences with a 300 ms pause between them and 1.5 s of trailing silence, resampled to 8 kHz, café noise mixed
over the whole turn (silences included: the agent's line is noisy) at each SNR (99 = no noise), then G.711 μ-law
encoded and decoded. Each detector runs on the 20 ms frames as the twilio_ws caller does; the turn ends once it has
heard ``take-turn-ms`` of non-speech after its last speech frame. Reported per VAD and SNR:

- ``end err ms``: median (and max) of (the last speech frame's end as detected) - (the true end of the speech):
  how much of the trailing silence the detector took for speech (late) or how much speech it missed (< 0);
- ``early``: turns ended before the speech did (a pause or a quiet stretch taken for the end);
- ``never``: turns whose end was never detected within the 1.5 s of trailing silence (noise taken for speech);
- ``speech recall`` / ``silence recall``: frame accuracy against the clean signal's speech frames;
- ``CPU µs/s``: CPU time per second of audio (one call; ×N for N concurrent calls), and ``x RT``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np

from evalkit.speech.tts import EspeakTTS
from evalkit.speech.vad import frame_vad, level_dbfs
from evalkit.wire.twilio_ws.codec import decode, encode, resample
from perturbations import Chain

RATE = 8000
FRAME = 160  # 20 ms
LINES = [
    ("I can help with that.", "Could you give me your confirmation code and last name?"),
    ("Thank you, I found your reservation.", "Your flight to Boston leaves at nine forty five tomorrow morning."),
    ("The change fee is seventy five dollars.", "Would you like me to go ahead with the change?"),
    ("Your new seat is fourteen C, an aisle seat.", "Is there anything else I can help you with today?"),
    ("I'm sorry, that flight is full.", "The next available departure is at one fifteen in the afternoon."),
    ("Your confirmation code is W K 2 E X B.", "You will receive an email with the details shortly."),
]


def agent_turn(tts: EspeakTTS, first: str, second: str) -> tuple[np.ndarray, float]:
    """(8 kHz clean turn, true end of speech in ms)."""

    def say(text: str) -> np.ndarray:
        audio, rate = tts.synthesize(text)
        return resample(audio, rate, RATE)

    lead, pause, tail = (np.zeros(int(RATE * s), dtype=np.float32) for s in (0.2, 0.3, 1.5))
    turn = np.concatenate([lead, say(first), pause, say(second), tail])
    voiced = [i for i in range(0, turn.size - FRAME + 1, FRAME) if level_dbfs(turn[i : i + FRAME]) > -55.0]
    return turn, (voiced[-1] + FRAME) / RATE * 1000.0


def on_the_line(clean: np.ndarray, snr_db: float, seed: int) -> np.ndarray:
    noisy = clean
    if snr_db < 90:
        chain = Chain.from_specs([{"op": "noise", "environment": "cafe", "snr_db": snr_db, "signal_power": "active"}])
        noisy, _ = chain(clean, RATE, np.random.default_rng(seed))
    return decode(encode(np.clip(noisy, -1, 1), "mulaw"), "mulaw")


class WebrtcVad:
    """WebRTC's GMM VAD (``webrtcvad-wheels``, MIT): measured here, not adopted in evalkit (see evalkit.speech.vad).
    ``mode`` 3 is the most eager to call noise non-speech; it takes 20 ms frames at 8 kHz as they are."""

    def __init__(self, mode: int = 3) -> None:
        import webrtcvad  # pip install webrtcvad-wheels

        self._vad = webrtcvad.Vad(mode)

    def is_speech(self, samples: np.ndarray, sample_rate: int) -> bool:
        pcm = np.clip(np.round(samples * 32768.0), -32768, 32767).astype("<i2").tobytes()
        return self._vad.is_speech(pcm, sample_rate)


def run_vad(kind: str, audio: np.ndarray, take_turn_ms: float) -> tuple[list[bool], float | None, float]:
    """(per-frame decisions, detected end of speech in ms or None when the turn never ended, CPU seconds)."""
    vad = WebrtcVad() if kind == "webrtc" else frame_vad(kind)  # type: ignore[arg-type]
    decisions: list[bool] = []
    voice_end: float | None = None
    ended: float | None = None
    cpu = time.process_time()
    for i in range(0, audio.size - FRAME + 1, FRAME):
        speech = vad.is_speech(audio[i : i + FRAME], RATE)
        decisions.append(speech)
        t_end = (i + FRAME) / RATE * 1000.0
        if speech:
            voice_end = t_end
        elif ended is None and voice_end is not None and t_end - voice_end >= take_turn_ms:
            ended = voice_end
    return decisions, ended, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--snr", default="99,20,15,10,5")
    parser.add_argument("--take-turn-ms", type=float, default=800.0)
    parser.add_argument("--kinds", default="rms,webrtc,silero")
    args = parser.parse_args()
    tts = EspeakTTS(voice="en-gb", rate_wpm=185, pitch=40)
    turns = [agent_turn(tts, *LINES[i % len(LINES)]) for i in range(args.turns)]
    audio_s = sum(t.size for t, _ in turns) / RATE
    print(f"{len(turns)} agent turns, {audio_s:.1f} s of audio per SNR; turn taken after {args.take_turn_ms:g} ms")
    header = "VAD     SNR  end err ms (median/max)  early  never  speech recall  silence recall   CPU µs/s     x RT"
    print(header)
    print("-" * len(header))
    kinds = args.kinds.split(",")
    if "webrtc" in kinds and importlib.util.find_spec("webrtcvad") is None:
        print("webrtc skipped: pip install webrtcvad-wheels (measured here only, not an evalkit dependency)")
        kinds.remove("webrtc")
    for kind in kinds:
        for snr in (float(s) for s in args.snr.split(",")):
            errors: list[float] = []
            early = never = 0
            hits = speech_frames = rejects = silence_frames = 0
            cpu = 0.0
            for n, (clean, true_end) in enumerate(turns):
                decisions, ended, spent = run_vad(kind, on_the_line(clean, snr, seed=n), args.take_turn_ms)
                cpu += spent
                truth = [level_dbfs(clean[i : i + FRAME]) > -55.0 for i in range(0, clean.size - FRAME + 1, FRAME)]
                hits += sum(d and t for d, t in zip(decisions, truth, strict=True))
                speech_frames += sum(truth)
                rejects += sum(not d and not t for d, t in zip(decisions, truth, strict=True))
                silence_frames += len(truth) - sum(truth)
                if ended is None:
                    never += 1
                    continue
                errors.append(ended - true_end)
                early += ended < true_end - 100.0  # a decision more than 100 ms before the speech ended
            err = f"{statistics.median(errors):+7.0f} / {max(errors, key=abs):+6.0f}" if errors else "      -"
            snr_label = "clean" if snr >= 90 else f"{snr:g} dB"
            print(
                f"{kind:<7} {snr_label:>5}  {err:>22}  {early:>5}  {never:>5}  {hits / speech_frames:>13.3f}"
                f"  {rejects / max(1, silence_frames):>14.3f}  {cpu / audio_s * 1e6:>9.0f}"
                f"  {audio_s / max(cpu, 1e-9):>7.0f}"
            )


if __name__ == "__main__":
    main()
