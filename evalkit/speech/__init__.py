"""Speech front-end for evalkit: eSpeak NG synthesis, offline Whisper recognition, WER normalization."""

from evalkit.speech.asr import Transcript, WhisperASR, load_whisper_model
from evalkit.speech.tts import EspeakTTS, available_voices
from evalkit.textnorm import normalize_for_wer, wer  # text only: lives outside the engine package

__all__ = [
    "EspeakTTS",
    "Transcript",
    "WhisperASR",
    "available_voices",
    "load_whisper_model",
    "normalize_for_wer",
    "wer",
]
