"""eSpeak against Piper as the caller's voice (issue 28.1), as the agent hears it: WER and entity accuracy by ear.

Usage: python scripts/bench_voice.py [--sentences 24] [--models bundled:tiny.en,bundled:base] [--threads 2]

The sentences are the scenarios' scripted answers that carry a value (a code, a number, a name, a date: the
entities a call turns on), round-robin over the domains (``scripts/bench_asr_window.py`` builds them); each is spoken
by the neutral eSpeak caller (en-us 165 wpm) and the Piper voice (en_US-joe-medium, noise off) and heard by each ASR
on the 30 s window and with ``short_window``. Printed: synthesis speed per voice (audio seconds per wall second),
then per (ear, window, voice) the corpus WER, the entities heard exactly (spaces ignored) and the ear's speed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_asr_window import run, scenario_sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=24)
    parser.add_argument("--models", default="bundled:tiny.en,bundled:base")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with_entity = [s for s in scenario_sentences(10 * args.sentences) if s.entity][: args.sentences]
    run(with_entity, args.models.split(","), args.threads)


if __name__ == "__main__":
    main()
