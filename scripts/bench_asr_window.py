"""The short-window decode against Whisper's 30 s window (issue 28.2), on caller sentences from the scenarios.

Usage: python scripts/bench_asr_window.py [--sentences 40] [--models bundled:tiny.en] [--threads 2] [--line]
       [--padding silence,features] [--alternatives 1]

Sentences: each scenario's opening line and its scripted answers said as a caller says them ("My confirmation number
is W K 2 E X B."), taken round-robin over the domains (deterministic). Each is spoken by the neutral eSpeak caller
(en-us, 165 wpm, pitch 50) and by the Piper voice (en_US-joe-medium at its natural rate, noise off): 2 x sentences
clips. Each ASR (greedy, int8, uncached) decodes every clip on the 30 s window and with ``short_window``. Printed per
(model, window, voice): corpus WER (evalkit.textnorm.normalize_for_wer), entity accuracy (the answer's value found in
the transcript, spaces ignored), audio seconds per compute second ("x rt"), and for the short window the loops caught
(decodes thrown away and redone on the 30 s window).

``--line``: every clip is also sent down a phone line (conf/perturb/phone_line.yaml: 300-3400 Hz band, an 8 kHz
leg, G.711 mu-law) and handed to the ASR at 8 kHz, as a telephony agent receives it (the ASR resamples to 16 kHz):
rows with voice ``<voice>@8k``. ``--padding``: the short window's padding variants to compare
(evalkit.speech.short_window.window_features). ``--alternatives N``: decode the n best, as the reference agent does
for an answer of a known form (beam N; the best is scored).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import jiwer
import numpy as np
import soxr
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalkit.speech.asr import WhisperASR  # noqa: E402
from evalkit.speech.piper_tts import PiperTTS  # noqa: E402
from evalkit.speech.tts import EspeakTTS  # noqa: E402
from evalkit.textnorm import normalize_for_wer  # noqa: E402
from perturbations.chain import Chain  # noqa: E402

LINE_RATE = 8_000

CODE = re.compile(r"^(?=.*\d)[A-Z0-9-]{4,}$|^[A-Z]{5,}\d*$")


@dataclass(frozen=True)
class Sentence:
    text: str
    entity: str | None  # the value the sentence carries, as written in the scenario


def spoken_value(value: str) -> str:
    """A code or number as a caller reads it: character by character ("W K 2 E X B", "1 4 0 6 ...")."""
    if CODE.match(value) or (value.isdigit() and len(value) > 4):
        return " ".join(c for c in value if c != "-")
    return value


def scenario_sentences(count: int) -> list[Sentence]:
    """``count`` sentences, round-robin over the domains' scenarios: the opening line, then each scripted answer."""
    per_domain: dict[str, list[Sentence]] = {}
    for path in sorted(glob.glob(str(ROOT / "evalkit/domains/*/scenarios/*.json"))):
        scenario = json.loads(Path(path).read_text(encoding="utf-8"))
        goal = scenario["user_goal"]
        found = per_domain.setdefault(scenario["domain"], [])
        found.append(Sentence(goal["starting_utterance"], None))
        answers = (goal.get("scripted") or {}).get("answers") or {}
        for field, value in answers.items():
            if isinstance(value, str) and len(value.split()) >= 3:  # a free-text answer: said as it is written
                found.append(Sentence(value, None))
            elif isinstance(value, str) and value.strip():
                said = value if " " in value.strip() and not CODE.match(value) else spoken_value(value)
                found.append(Sentence(f"My {field.replace('_', ' ')} is {said}.", value))
    chosen: list[Sentence] = []
    queues = [list(v) for _, v in sorted(per_domain.items())]
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


def entity_heard(entity: str, transcript: str) -> bool:
    squash = lambda s: normalize_for_wer(s).replace(" ", "")  # noqa: E731
    return bool(squash(entity)) and squash(entity) in squash(transcript)


def voices() -> dict[str, object]:
    return {"espeak": EspeakTTS("en-us", rate_wpm=165, pitch=50), "piper": PiperTTS("en_US-joe-medium")}


def synthesise(sentences: list[Sentence]) -> tuple[dict[str, list[tuple[np.ndarray, int]]], dict[str, float]]:
    """Clips per voice, and each voice's synthesis speed (audio seconds per wall second)."""
    clips: dict[str, list[tuple[np.ndarray, int]]] = {}
    speed: dict[str, float] = {}
    for name, tts in voices().items():
        start, audio_s = time.perf_counter(), 0.0
        clips[name] = [tts.synthesize(s.text) for s in sentences]  # type: ignore[attr-defined]
        audio_s = sum(len(a) / r for a, r in clips[name])
        speed[name] = audio_s / (time.perf_counter() - start)
    return clips, speed


def on_the_line(clips: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, int]]:
    """Each clip through the phone_line condition, delivered at 8 kHz (the chain keeps the clip's rate; its band
    ends at 3.4 kHz, so taking it to 8 kHz loses nothing). Seeded per clip: the same clips on every run."""
    chain = Chain.from_specs(yaml.safe_load((ROOT / "conf/perturb/phone_line.yaml").read_text())["chain"])
    out = []
    for i, (audio, rate) in enumerate(clips):
        degraded, _ = chain(audio, rate, np.random.default_rng(i))
        out.append((soxr.resample(degraded, rate, LINE_RATE).astype(np.float32), LINE_RATE))
    return out


@dataclass
class Score:
    wer: float
    entities: float
    entity_n: int
    xrt: float
    loops: int
    short: int


def score(
    asr: WhisperASR, sentences: list[Sentence], clips: list[tuple[np.ndarray, int]], alternatives: int = 1
) -> Score:
    refs, hyps, hits, ents, compute, audio = [], [], 0, 0, 0.0, 0.0
    before = (asr.short_fallbacks, asr.short_decodes)
    for sentence, (audio_clip, rate) in zip(sentences, clips, strict=True):
        result = asr.transcribe(audio_clip, rate, alternatives=alternatives)
        compute += result.compute_s
        audio += result.audio_s
        refs.append(normalize_for_wer(sentence.text))
        hyps.append(normalize_for_wer(result.text) or "<empty>")
        if sentence.entity:
            ents += 1
            hits += entity_heard(sentence.entity, result.text)
    return Score(
        jiwer.wer(refs, hyps),
        hits / ents if ents else 0.0,
        ents,
        audio / compute,
        asr.short_fallbacks - before[0],
        asr.short_decodes - before[1],
    )


def run(
    sentences: list[Sentence],
    models: list[str],
    threads: int,
    line: bool = False,
    paddings: tuple[str, ...] = ("silence",),
    alternatives: int = 1,
) -> None:
    clips, speed = synthesise(sentences)
    if line:
        clips |= {f"{name}@8k": on_the_line(voice_clips) for name, voice_clips in list(clips.items())}
    print(f"{len(sentences)} sentences x {len(clips)} voices = {len(sentences) * len(clips)} clips")
    for name, value in speed.items():
        print(f"synthesis {name}: {value:.1f}x real time")
    print(f"{'ASR':<16} {'window':<16} {'voice':<10} {'WER':>6} {'entities':>9} {'x rt':>6} {'loops':>6}")
    windows = [("30s", False, "silence")] + [(f"short/{p}", True, p) for p in paddings]
    for model in models:
        for window, short, padding in windows:
            asr = WhisperASR(model, cpu_threads=threads, short_window=short)
            asr.short_padding = padding  # type: ignore[assignment]
            for name, voice_clips in clips.items():
                s = score(asr, sentences, voice_clips, alternatives)
                loops = f"{s.loops}/{s.short}" if short else "-"
                print(
                    f"{model.removeprefix('bundled:'):<16} {window:<16} {name:<10} {s.wer:6.1%} "
                    f"{s.entities:8.0%}  {s.xrt:6.1f} {loops:>6}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=40)
    parser.add_argument("--models", default="bundled:tiny.en")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--line", action="store_true", help="also the clips over a phone line, at 8 kHz")
    parser.add_argument("--padding", default="silence", help="short-window paddings: silence,features")
    parser.add_argument("--alternatives", type=int, default=1, help="n-best decode (beam n), the best scored")
    args = parser.parse_args()
    paddings = tuple(args.padding.split(","))
    if not set(paddings) <= {"features", "silence"}:
        sys.exit(f"bench_asr_window: --padding takes features and/or silence, got {args.padding!r}")
    sentences = scenario_sentences(args.sentences)
    run(sentences, args.models.split(","), args.threads, args.line, paddings, args.alternatives)


if __name__ == "__main__":
    main()
