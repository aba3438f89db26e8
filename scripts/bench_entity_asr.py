"""Entity capture on the caller's side (issue 17.2): how often the agent's ASR gets a spelled entity exactly, per way
of spelling it (the caller) and per ASR option (the agent), and at what speed.

Usage: python scripts/bench_entity_asr.py [--codes 10] [--names 10] [--styles letters,commas,...] [--options ...]
       python scripts/bench_entity_asr.py --hr 8 [--seed 21]   # medical_hr's IDs, spelled with or without pauses
       ... [--voice piper]   # the caller voices: eSpeak's neutral pair (default) or the natural default (Piper)

Clips are eSpeak's neutral caller voices (en-us male 165 wpm pitch 50, en-us+f3 pitch 55), or with ``--voice piper``
the natural default caller voice (its male and female speakers), saying a random
six-character code (seeded) or a surname, spelled one of the ways in ``STYLES``; the ASR is the default Whisper
tiny.en int8, greedy, uncached. An entity counts when the agent's own parser (``parse_code`` / ``parse_spelled_word``)
returns exactly it. ASR options (``OPTIONS``): none; a format-only ``initial_prompt`` (no values of the clip); the
NATO alphabet as ``hotwords``; ``n_best``: the beam's five best transcripts and the first of the asked form (six
characters; a name: any letters), as the local agent does with ``agent.alternatives=5``. "x rt" = audio seconds per
wall second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalkit.agents.reference.hearing import choose_hypothesis
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.spoken import LETTER_TO_NATO, nato_code, parse_code, parse_spelled_word, spell_code, spell_with_alphabet

NAMES = ["BROOKS", "HADDAD", "MBEKI", "NGUYEN", "GARCIA", "PATEL", "OKAFOR", "KOWALSKI", "DELGADO", "TANAKA"]
NATO_WORDS = " ".join(LETTER_TO_NATO.values())
ALPHABETS = ("nato", "as_in", "letters")  # persona.spelling
STYLES: dict[str, Callable[[str], str]] = {
    "letters": lambda v: f"It's {spell_code(v)}.",  # the scripted caller's first spelling
    "commas": lambda v: f"It's {', '.join(v)}.",  # its second
    "pauses": lambda v: "It's... " + "... ".join(v) + "...",  # slowly, letter by letter
    "nato": lambda v: f"It's {nato_code(v)}.",
    "nato_pauses": lambda v: "It's... " + "... ".join(nato_code(c) for c in v) + "...",
}
OPTIONS: dict[str, dict[str, object]] = {
    "none": {},
    "format_prompt": {"prompt": "The code is Q, 7, T, P, 4, Z."},
    "nato_hotwords": {"hotwords": NATO_WORDS},
    "n_best": {"alternatives": 5},
}


def caller_voices(name: str) -> list[Callable[[str], tuple[np.ndarray, int]]]:
    """The two caller voices a clip is said in: eSpeak's neutral pair, or the natural default
    (``conf/voice/piper.yaml``: the Piper voice at 175 wpm, its own pitch and the female speaker's shift)."""
    if name == "espeak":
        return [EspeakTTS("en-us", 165, 50).synthesize, EspeakTTS("en-us+f3", 165, 55).synthesize]
    from evalkit.speech.piper import semitones
    from evalkit.speech.piper_tts import PiperTTS

    return [PiperTTS("en_US-joe-medium", 175, semitones(pitch), reference_wpm=175).synthesize for pitch in (50, 58)]


def hr_ids(count: int, seed: int, voice: str = "espeak") -> None:
    """``--hr``: medical_hr's long IDs (employee ID ``EMP`` + 6 digits, ten-digit NPI, facility code ``ABC-12D``),
    random (seeded) in the tools' formats, spelled by the caller without pauses ("E M P 4 1 7 ...", its first
    attempt before issue 17.2) or with a pause after each character ("E, M, P, 4, ..."), and a code with letters of
    its own also in each ``persona.spelling`` (its re-ask); heard as the agent hears
    the slot (``hear_slot``: the format's fixed letters put back, digit homophones) from the best transcript and
    from the n best (the first of the slot's form)."""
    from datetime import date

    from evalkit.agents.reference.slot_hearing import hear_slot
    from evalkit.agents.reference.workflow_hearing import _slot_form, spells_letters
    from evalkit.domains.hr.workflows.steps import EMPLOYEE_ID, FACILITY, NPI

    rng = np.random.default_rng(seed)
    digits, letters = list("0123456789"), list("ABCDEFGHJKLMNPRSTUVWXYZ")

    def pick(pool: list[str], n: int) -> str:
        return "".join(rng.choice(pool, n))

    kinds = {
        "employee ID": (EMPLOYEE_ID, lambda: "EMP" + pick(digits, 6)),
        "NPI": (NPI, lambda: pick(list("12"), 1) + pick(digits, 9)),
        "facility": (FACILITY, lambda: f"{pick(letters, 3)}-{pick(digits, 2)}{pick(letters, 1)}"),
    }
    voices = caller_voices(voice)
    asr = WhisperASR(cache_dir=None)
    today = date(2026, 7, 20)
    print(f"{'entity':12} {'caller spells':18} {'best':>7} {'n-best':>7} {'x rt':>6}")
    for kind, (slot, make) in kinds.items():
        values = [make() for _ in range(count)]
        fits = _slot_form(slot, today)
        styles: list[tuple[str, Callable[[str], str], str | None]] = [
            ("no pauses", spell_code, None),
            ("pauses", partial(spell_with_alphabet, spelling="letters"), None),
        ]
        if spells_letters(slot):  # asked again with the phonetic alphabet (the agent gives its ASR no prompt)
            styles += [(way, partial(spell_with_alphabet, spelling=way), None) for way in ALPHABETS]
        for style, say, prompt in styles:
            best = nbest = 0
            audio_s, started = 0.0, time.perf_counter()
            for value in values:
                for voice in voices:
                    samples, rate = voice(f"It's {say(value)}.")
                    heard = asr.transcribe(samples, rate, alternatives=5, prompt=prompt)
                    audio_s += heard.audio_s
                    best += hear_slot(slot, heard.text, today) == value
                    nbest += hear_slot(slot, choose_hypothesis(heard.alternatives, fits), today) == value
            wall = time.perf_counter() - started
            n = 2 * len(values)
            print(f"{kind:12} {style:18} {best:>3}/{n:<3} {nbest:>3}/{n:<3} {audio_s / wall:6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--codes", type=int, default=10)
    parser.add_argument("--names", type=int, default=10)
    parser.add_argument("--styles", default="letters,commas,pauses,nato_pauses")
    parser.add_argument("--options", default=",".join(OPTIONS))
    parser.add_argument("--hr", type=int, default=0, help="instead: N random medical_hr IDs of each kind")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument(
        "--voice", choices=("espeak", "piper"), default="espeak", help="the caller voices (default: espeak)"
    )
    args = parser.parse_args()
    if args.hr:
        hr_ids(args.hr, args.seed, args.voice)
        return
    rng = np.random.default_rng(1)
    alphabet = list("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    entities = {
        "code": ["".join(rng.choice(alphabet, 6)) for _ in range(args.codes)],
        "name": NAMES[: args.names],
    }
    parsers = {"code": lambda t: parse_code(t, 6), "name": parse_spelled_word}
    forms = {"code": lambda t: len(parse_code(t, 6) or "") == 6, "name": lambda t: parse_spelled_word(t) is not None}
    voices = caller_voices(args.voice)
    asr = WhisperASR(cache_dir=None)
    print(f"{'entity':6} {'caller spells':13} {'ASR option':14} {'exact':>7} {'x rt':>6}")
    for kind, values in entities.items():
        for style in args.styles.split(","):
            clips = [(v, voice(STYLES[style](v))) for v in values for voice in voices]
            for option in args.options.split(","):
                exact, audio_s, started = 0, 0.0, time.perf_counter()
                for value, (samples, rate) in clips:
                    heard = asr.transcribe(samples, rate, **OPTIONS[option])  # type: ignore[arg-type]
                    audio_s += heard.audio_s
                    text = choose_hypothesis(heard.alternatives, forms[kind]) if heard.alternatives else heard.text
                    exact += parsers[kind](text) == value
                wall = time.perf_counter() - started
                print(f"{kind:6} {style:13} {option:14} {exact:>3}/{len(clips):<3} {audio_s / wall:6.1f}", flush=True)


if __name__ == "__main__":
    main()
