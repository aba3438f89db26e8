"""eSpeak NG text-to-speech through ctypes.

eSpeak NG is tiny, deterministic and ~1000x faster than real time, which makes it a good
"reference speaker" for robustness sweeps: what we measure is the agent's hearing, not the TTS.

The eSpeak NG C API is process-global (one output mode, one current voice, one synth callback),
so this module initializes the library exactly once per process and serializes every
synthesize call behind a lock, re-applying the instance's voice/rate/pitch each time.  That lets
several ``EspeakTTS`` instances with different settings coexist in one process.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soxr

from evalkit.speech.spelled_letters import say_spelled_letters
from perturbations import register_speech_source

__all__ = ["EspeakTTS", "available_voices", "text_to_phonemes"]

# --- constants from speak_lib.h ------------------------------------------------------------------
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_ESPEAK_CHARS_UTF8 = 1
_ESPEAK_PHONEMES = 0x100  # espeakPHONEMES: honour [[...]] phoneme mnemonics instead of reading them as text
_PHONEME_MNEMONICS = 0  # espeak_TextToPhonemes phonememode: eSpeak's own ASCII mnemonics (not IPA)
_PHONEME_IPA = 2  # espeak_TextToPhonemes phonememode bit 1: IPA as UTF-8 (what Piper voices are trained on)
_POS_CHARACTER = 1
_EE_OK = 0
_ESPEAK_RATE = 1
_ESPEAK_PITCH = 3
_ESPEAK_WORDGAP = 7
_EMPTY_TEXT_SILENCE_S = 0.1


class _EspeakEvent(ctypes.Structure):
    """``espeak_EVENT``; only needed so the callback signature is right, fields are unused."""

    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", ctypes.c_void_p),  # union { int number; const char *name; }
    ]


class _EspeakVoice(ctypes.Structure):
    """``espeak_VOICE`` as returned by ``espeak_ListVoices``."""

    _fields_ = [
        ("name", ctypes.c_char_p),
        ("languages", ctypes.c_char_p),
        ("identifier", ctypes.c_char_p),
        ("gender", ctypes.c_ubyte),
        ("age", ctypes.c_ubyte),
        ("variant", ctypes.c_ubyte),
        ("xx1", ctypes.c_ubyte),
        ("score", ctypes.c_int),
        ("spare", ctypes.c_void_p),
    ]


_SYNTH_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_EspeakEvent)
)


@dataclass
class _Engine:
    """The single per-process eSpeak NG handle plus the buffer its callback appends to."""

    lib: ctypes.CDLL
    sample_rate: int
    callback: object  # keep the CFUNCTYPE object alive for the lifetime of the process
    chunks: list[np.ndarray]


_LOCK = threading.RLock()
_ENGINE: _Engine | None = None


def _bind_signatures(lib: ctypes.CDLL) -> None:
    """Declare argtypes/restypes so ctypes does not guess (size_t and pointers matter on 64-bit)."""
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_SetSynthCallback.argtypes = [_SYNTH_CALLBACK]
    lib.espeak_SetSynthCallback.restype = None
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetVoiceByName.restype = ctypes.c_int
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_SetParameter.restype = ctypes.c_int
    lib.espeak_Synth.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_uint,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_uint,
        ctypes.POINTER(ctypes.c_uint),
        ctypes.c_void_p,
    ]
    lib.espeak_Synth.restype = ctypes.c_int
    lib.espeak_Synchronize.argtypes = []
    lib.espeak_Synchronize.restype = ctypes.c_int
    lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
    lib.espeak_ng_SetRandSeed.restype = None
    lib.espeak_ListVoices.argtypes = [ctypes.c_void_p]
    lib.espeak_ListVoices.restype = ctypes.POINTER(ctypes.POINTER(_EspeakVoice))
    lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
    lib.espeak_TextToPhonemes.restype = ctypes.c_char_p


STEADY_VARIANT = "evalkit_steady"
# eSpeak NG carries state from one utterance to the next in process-wide statics (wavegen.c: the pitch-flutter
# table index, the cycle counter of the roughness modulation) and draws breath noise from its own PRNG, so the same
# text gave different samples depending on what was spoken before (measured: lengths ±0.05 %, sample differences up
# to 0.8 of full scale). Variants that switch flutter and roughness off, plus a PRNG reseed per call, make every
# utterance a pure function of (voice, rate, pitch, text): tested bit-identical. The echo is kept: it decays to
# exact zero in the trailing silence, and removing it made Whisper's WER on accented female voices much worse.
STEADY_LINES = "\nflutter 0\nroughness 8\n"


def steady_data_dir(original: Path) -> Path:
    """A per-user copy of eSpeak NG's data folder (symlinks, except the small variants folder) in which every
    voice variant is made steady (flutter and roughness off) and ``evalkit_steady`` is the plain steady variant
    (used when a voice names no variant). Variants are edited in place, not duplicated: eSpeak lists at most 349
    voices. Built once (under $XDG_CACHE_HOME or ~/.cache), atomically; the wheel's own folder is never modified."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "evalkit"
    target = cache / f"espeak-ng-data-{hashlib.sha256(str(original).encode()).hexdigest()[:12]}-v3"
    if (target / "voices" / "!v" / STEADY_VARIANT).is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache, prefix="espeak-staging-"))
    for entry in original.iterdir():
        if entry.name != "voices":
            (staging / entry.name).symlink_to(entry)
    (staging / "voices").mkdir()
    for entry in (original / "voices").iterdir():
        if entry.name != "!v":
            (staging / "voices" / entry.name).symlink_to(entry)
    variants = staging / "voices" / "!v"
    shutil.copytree(original / "voices" / "!v", variants)
    for variant in variants.iterdir():
        variant.write_text(variant.read_text(encoding="utf-8", errors="replace") + STEADY_LINES, encoding="utf-8")
    (variants / STEADY_VARIANT).write_text(f"name {STEADY_VARIANT}{STEADY_LINES}", encoding="utf-8")
    try:
        staging.rename(target)
    except OSError:  # another process built it first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _engine() -> _Engine:
    """Load and initialize libespeak-ng once per process (caller must hold ``_LOCK``)."""
    global _ENGINE
    if _ENGINE is not None:
        return _ENGINE
    import espeakng_loader

    lib = ctypes.CDLL(espeakng_loader.get_library_path())
    _bind_signatures(lib)
    data_path = str(steady_data_dir(Path(espeakng_loader.get_data_path()))).encode("utf-8")
    sample_rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path, 0)
    if sample_rate <= 0:
        raise RuntimeError(f"espeak_Initialize failed (returned {sample_rate}); data path {data_path!r}")
    chunks: list[np.ndarray] = []

    def _on_audio(wav: ctypes._Pointer, num_samples: int, _events: ctypes._Pointer) -> int:
        if num_samples > 0 and wav:
            chunks.append(np.ctypeslib.as_array(wav, shape=(num_samples,)).copy())
        return 0  # 0 = continue synthesis

    callback = _SYNTH_CALLBACK(_on_audio)
    lib.espeak_SetSynthCallback(callback)
    _ENGINE = _Engine(lib=lib, sample_rate=sample_rate, callback=callback, chunks=chunks)
    return _ENGINE


def _voice_table(lib: ctypes.CDLL) -> dict[str, str]:
    """Map lowercase aliases (language code, identifier, file basename) -> voice identifier.

    ``espeak_SetVoiceByName`` only matches voice names and file basenames, so ``"en-us"`` works
    (file ``gmw/en-US``) but ``"en-gb"`` does not (file ``gmw/en``).  Resolving language codes
    through this table makes every code eSpeak advertises usable.  Only the first entry of
    ``languages`` is read: in 1.52 the rest of that buffer is not reliably terminated.
    """
    voices = lib.espeak_ListVoices(None)
    table: dict[str, str] = {}
    i = 0
    while voices[i]:
        voice = voices[i].contents
        i += 1
        if not voice.identifier:
            continue
        ident = voice.identifier.decode("utf-8", "replace")
        aliases = [ident, ident.rsplit("/", 1)[-1]]
        if voice.languages:
            aliases.append(voice.languages[1:].decode("utf-8", "replace"))
        for alias in aliases:
            table.setdefault(alias.lower(), ident)
    return table


def available_voices() -> list[str]:
    """Voice names ``EspeakTTS`` accepts: language codes (``"en-us"``, ``"fr-fr"``) and identifiers.

    A ``+variant`` suffix (e.g. ``"en-us+f3"``) may be appended to any of them.
    """
    with _LOCK:
        return sorted(_voice_table(_engine().lib))


def _set_voice(lib: ctypes.CDLL, voice: str) -> bool:
    """Select ``voice`` (optionally ``name+variant``) in the global engine, in its steady form (see
    ``steady_data_dir``); False if unknown."""
    if not voice.strip():
        return False
    base, _, variant = voice.partition("+")
    steady = f"+{variant.strip() or STEADY_VARIANT}"  # every variant of the steady data folder is steady
    if lib.espeak_SetVoiceByName(f"{base.strip()}{steady}".encode()) == _EE_OK:
        return True
    ident = _voice_table(lib).get(base.strip().lower())
    if ident is None:
        return False
    return lib.espeak_SetVoiceByName(f"{ident}{steady}".encode()) == _EE_OK


def text_to_phonemes(text: str, voice: str = "en-us", ipa: bool = False) -> list[str]:
    """``text`` as eSpeak phoneme mnemonics of ``voice``'s language, one string per clause (``ipa``: in IPA).

    This is the first half of an accent: the English pronunciation, which a phoneme map then rewrites into
    another language's sounds (see ``evalkit.speech.accents``); in IPA, the input of a Piper voice
    (``evalkit.speech.piper``).
    """
    clauses: list[str] = []
    text = say_spelled_letters(text)  # the text front end: a spelled "A" is the letter, not the article
    with _LOCK:
        lib = _engine().lib
        if not _set_voice(lib, voice):
            raise ValueError(f"unknown eSpeak NG voice {voice!r}")
        buf = ctypes.create_string_buffer(text.encode("utf-8") + b"\0")
        pointer = ctypes.c_void_p(ctypes.addressof(buf))
        while pointer.value:  # eSpeak advances the pointer clause by clause and sets it to NULL at the end
            out = lib.espeak_TextToPhonemes(
                ctypes.byref(pointer), _ESPEAK_CHARS_UTF8, _PHONEME_IPA if ipa else _PHONEME_MNEMONICS
            )
            if out:
                clause = out.decode("utf-8", "replace").strip()
                if clause:
                    clauses.append(clause)
    return clauses


def _pcm16_to_float(chunks: list[np.ndarray]) -> np.ndarray:
    """Concatenate int16 callback chunks into float32 in [-1, 1)."""
    if not chunks:
        return np.zeros(0, dtype=np.float32)
    return (np.concatenate(chunks).astype(np.float32) / 32768.0).astype(np.float32, copy=False)


class EspeakTTS:
    """eSpeak NG from the espeakng-loader wheel, driven through ctypes.

    Uses ``libespeak-ng.so`` + ``espeak-ng-data`` from ``espeakng_loader``.  Instances are cheap;
    the engine is shared and every call re-applies this instance's settings under a lock.
    """

    def __init__(self, voice: str = "en-us", rate_wpm: int = 175, pitch: int = 50, word_gap_ms: int = 0) -> None:
        self.voice = voice
        self.rate_wpm = int(rate_wpm)
        self.pitch = int(pitch)
        self.word_gap_ms = int(word_gap_ms)
        with _LOCK:
            self.sample_rate = _engine().sample_rate
            self._apply_settings()  # fail fast on an unknown voice

    def _apply_settings(self) -> None:
        """Push voice/rate/pitch/word-gap into the global engine (caller holds ``_LOCK``)."""
        lib = _engine().lib
        if not _set_voice(lib, self.voice):
            raise ValueError(
                f"unknown eSpeak NG voice {self.voice!r}; use a language code such as 'en-us', 'en-gb', "
                "'fr' (see evalkit.speech.tts.available_voices())"
            )
        # Parameters are reset by SetVoiceByName, so they must be set after it.
        for param, value in (
            (_ESPEAK_RATE, self.rate_wpm),
            (_ESPEAK_PITCH, self.pitch),
            (_ESPEAK_WORDGAP, self.word_gap_ms // 10),
        ):
            lib.espeak_SetParameter(param, value, 0)

    def synthesize(self, text: str, phonemes: bool = False) -> tuple[np.ndarray, int]:
        """Speak ``text``; returns (float32 mono samples in [-1, 1], sample_rate=22050).

        With ``phonemes=True`` the text may contain ``[[...]]`` phoneme mnemonics, pronounced with this
        voice's phoneme table (how accents are made). Empty/whitespace-only text yields 0.1 s of silence
        rather than an error, so callers that render arbitrary agent turns never crash on an empty turn.
        """
        text = (text or "").strip()
        if not phonemes:  # the text front end (phonemes come from text_to_phonemes, which applied it)
            text = say_spelled_letters(text)
        flags = _ESPEAK_CHARS_UTF8 | (_ESPEAK_PHONEMES if phonemes else 0)
        with _LOCK:
            engine = _engine()
            if not text:
                return np.zeros(int(_EMPTY_TEXT_SILENCE_S * engine.sample_rate), dtype=np.float32), engine.sample_rate
            self._apply_settings()
            engine.lib.espeak_ng_SetRandSeed(0)  # breath noise: same draws on every call (see STEADY_LINES)
            encoded = text.encode("utf-8") + b"\0"
            buf = ctypes.create_string_buffer(encoded, len(encoded))
            engine.chunks.clear()
            err = engine.lib.espeak_Synth(buf, len(encoded), 0, _POS_CHARACTER, 0, flags, None, None)
            engine.lib.espeak_Synchronize()
            audio = _pcm16_to_float(engine.chunks)
            engine.chunks.clear()
        if err != _EE_OK:
            raise RuntimeError(f"espeak_Synth failed with error {err} for text {text[:60]!r}")
        if audio.size == 0:  # e.g. text of only punctuation
            audio = np.zeros(int(_EMPTY_TEXT_SILENCE_S * engine.sample_rate), dtype=np.float32)
        return audio, engine.sample_rate

    def __repr__(self) -> str:
        return (
            f"EspeakTTS(voice={self.voice!r}, rate_wpm={self.rate_wpm}, pitch={self.pitch}, "
            f"word_gap_ms={self.word_gap_ms})"
        )


def espeak_speech_source(text: str, sample_rate: int, rng: np.random.Generator) -> np.ndarray:
    """The "espeak" source of ``perturbations``' ``out_of_turn_speech`` op: a side remark or tic said by another
    US-English eSpeak voice (pitch drawn from ``rng``), resampled to the clip's rate."""
    tts = EspeakTTS("en-us", rate_wpm=175, pitch=int(rng.integers(30, 70)))
    audio, rate = tts.synthesize(text)
    return soxr.resample(audio, rate, sample_rate, quality="HQ") if rate != sample_rate else audio


# Registered on import: evalkit builds a cell's components through this package, before any chain runs.
register_speech_source("espeak", espeak_speech_source)
