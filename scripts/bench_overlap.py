"""Does the reference agent talk through what a caller says over it, or yield (issue 31)? Its overlap policy
(``cascade_local``'s ``hear_overlap``) on phrases said in the run's caller voice, one class at a time.

Usage: python scripts/bench_overlap.py [--rates 150,175,200] [--verbose] [overrides...]
(e.g. ``voice=neutral`` for the eSpeak caller, ``agent.asr.model=bundled:base``)

Each phrase is synthesised by every speaker of the composed voice at each rate (no persona jitter), heard through the
agent's own ASR, and given to ``hear_overlap`` as an overlap 800 ms into its utterance, after a caller turn at the
voice's level (the aside rule's reference). Classes:

- ``backchannel`` / ``side_speech`` (0 dB and 12 dB down): the caller behaviours' phrase table (+behavior=);
- ``interruption``: the IHBench interjections the caller cuts in with (+interrupt=; ``filler``, which are
  acknowledgements, apart), templates filled with plausible values;
- ``held_out_ack`` / ``held_out_request``: acknowledgements and short requests in no caller table of evalkit's: the
  rule must carry over to words the scripted caller never says.

Reported per class: the share the agent yields to (a good agent: ~0 for acknowledgements and asides, ~1 for
interruptions and requests), with each miss (phrase, speaker, rate, what the ear heard). The in-call figures (the
effect timeline's selectivity) come from ``python -m evalkit +behavior=... -m``; this isolates the policy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT_ACK = ["mhm", "yep", "got it", "alright", "oh, okay", "uh-huh, yeah", "yes", "I understand", "cool"]
HELD_OUT_REQUEST = ["stop", "wait", "no", "hold on", "sorry?", "what?", "excuse me", "no, no, no", "wait, what?",
                    "hang on a second", "can you repeat that?"]  # fmt: skip
CALLER_TURN = "my confirmation code is W, K, 2, E, X, B"


def phrase_classes() -> dict[str, list[str]]:
    behaviours = yaml.safe_load((ROOT / "evalkit/simulator/behaviors.yaml").read_text())["en"]
    table = yaml.safe_load((ROOT / "evalkit/simulator/interjections.yaml").read_text())
    fill = {"heard": "a change fee", "previous": "W, K, 2, E, X, B", "field": "last name", "value": "Garcia"}
    interrupts = [t.format(**fill) for kind, ts in table.items() if kind != "filler" for t in ts]
    return {
        "backchannel": list(behaviours["backchannel"]),
        "ihbench_filler": list(table["filler"]),
        "held_out_ack": HELD_OUT_ACK,
        "side_speech_0db": list(behaviours["side_speech"]),
        "side_speech_12db": list(behaviours["side_speech"]),
        "interruption": interrupts,
        "held_out_request": HELD_OUT_REQUEST,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", default="150,175,200")
    parser.add_argument("--verbose", action="store_true")
    args, overrides = parser.parse_known_args(argv)
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from evalkit.agents.reference.barge_in import active_dbfs
    from evalkit.call.behaviors import attenuated
    from evalkit.config.schema import validate_config
    from evalkit.records import AudioClip

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=["persona.variation.enabled=false", *overrides])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)  # type: ignore[union-attr]
    config = validate_config(raw)
    agent = config.agent.build()
    voice = config.voice.build(config.persona)
    rates = [int(r) for r in args.rates.split(",")]
    print(f"agent {config.agent.kind}, caller voice {config.voice.name}, rates {rates} wpm")
    print(f"{'class':18} {'yields':>8}  misses / yields (phrase | speaker rate | heard)")
    for name, texts in phrase_classes().items():
        yielded, total, notes = 0, 0, []
        for speaker in voice.speakers:
            synthesize = speaker.at
            if synthesize is None:
                continue
            caller = synthesize(rates[0], speaker.pitch or 0)(CALLER_TURN)
            for rate in rates:
                say = synthesize(rate, speaker.pitch or 0)
                for text in texts:
                    samples, sample_rate = say(text)
                    clip = AudioClip(samples=np.asarray(samples, dtype=np.float32), sample_rate=sample_rate)
                    if name.endswith("12db"):
                        clip = attenuated(clip, 12.0)
                    agent._caller_dbfs = active_dbfs(*caller)  # as the caller's last turn set it
                    yields = not agent.hear_overlap(clip, 800.0)
                    yielded += yields
                    total += 1
                    if args.verbose or yields != name.endswith(("interruption", "request", "0db")):
                        heard = agent.asr.transcribe(clip.samples, clip.sample_rate).text
                        notes.append(f"{text!r} | {speaker.id} {rate} | {'yield' if yields else 'keep'} {heard!r}")
        print(f"{name:18} {yielded:>3}/{total:<4}")
        for note in notes:
            print(f"{'':24}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
