"""Agent speech fidelity on real agent turns (issue 17.3): does the listener hear the entities the agent meant, with
the agent's TTS fed the text as it is or its ``speakable`` form (evalkit.spoken.speakable)?

Usage: python scripts/bench_agent_speech.py <cell folder with records/> [--turns 40]

Takes the distinct assistant turns that speak an entity from the cell's records, synthesises each with the local
agent's voice (eSpeak en-gb, 185 wpm, pitch 40), transcribes it as the cell's listener does (Whisper tiny.en, greedy,
prompted with the intended text) and rates it as ``speech_fidelity_proxy`` does (every entity intact: 1). Teeth: for
the turns that spell a code, the same TTS input with one character of the code substituted must be rated 0
(detection). Prints hit rate (correct audio rated 1) and detection rate per TTS input form.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalkit.metrics.entities import contains, spoken_entities, tokens
from evalkit.metrics.speech_fidelity import assistant_asr_prompt, undot_clock_times
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.spoken import speakable

SPELLED = re.compile(r"\b[A-Z0-9](?: [A-Z0-9]){3,}\b")


def rating(asr: WhisperASR, tts: EspeakTTS, intended: str, spoken: str) -> int:
    samples, rate = tts.synthesize(spoken)
    heard = asr.transcribe(samples, rate, **assistant_asr_prompt(intended)).text
    found = tokens(undot_clock_times(heard))
    return int(all(contains(found, e) for e in spoken_entities(intended)))


def corrupt(text: str, rng: random.Random) -> str | None:
    """The text with one character of its first spelled code substituted (None: it spells no code)."""
    match = SPELLED.search(text)
    if match is None:
        return None
    chars = match.group(0).split()
    i = rng.randrange(len(chars))
    pool = "0123456789" if chars[i].isdigit() else "ABCDEFGHJKLMNPRSTUVWXYZ"
    chars[i] = rng.choice(pool.replace(chars[i], ""))
    return text[: match.start()] + " ".join(chars) + text[match.end() :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cell", type=Path)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    texts: list[str] = []
    for path in sorted((args.cell / "records").glob("*.json")):
        for turn in json.loads(path.read_text())["conversation"]["turns"]:
            text = turn["intended_text"]
            if turn["role"] == "assistant" and spoken_entities(text) and text not in texts:
                texts.append(text)
    texts = texts[: args.turns]
    asr, tts, rng = WhisperASR(cache_dir=None), EspeakTTS("en-gb", 185, 40), random.Random(7)
    corrupted = [(t, c) for t in texts if (c := corrupt(t, rng)) is not None]
    print(f"{len(texts)} agent turns with entities, {len(corrupted)} of them spell a code")
    for name, form in (("as written", lambda t: t), ("speakable", speakable)):
        started = time.perf_counter()
        hits = sum(rating(asr, tts, t, form(t)) for t in texts)
        caught = sum(1 - rating(asr, tts, t, form(c)) for t, c in corrupted)
        wall = time.perf_counter() - started
        print(f"{name:10}  hit {hits}/{len(texts)}  detection {caught}/{len(corrupted)}  ({wall:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
