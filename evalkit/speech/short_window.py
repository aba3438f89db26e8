"""A short-window Whisper decode for short utterances (``short_window`` ASR option, issue 28).

faster-whisper pads every clip to Whisper's 30 s window, so a 2 s utterance costs the encoder as much as 30 s of
speech. Here the clip is padded with ``PAD_S`` seconds of silence and the log-mel features of just that are encoded
(CTranslate2's Whisper encoder takes fewer than 3000 frames), and the generated tokens are capped by the clip's
duration. Whisper was trained on 30 s windows; with too little trailing silence it does not find the end and loops
(measured: 1 s of padding gave WER 141 % on tiny.en), so a decode that looks like a loop — it reached the token cap,
says more than ``MAX_TOKENS_PER_S`` tokens a second, or repeats an n-gram — is thrown away and the clip is decoded
again on the 30 s window (``WhisperASR`` counts those: ``short_window_fallbacks``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "MAX_SHORT_S",
    "PADDING",
    "PAD_S",
    "WINDOW_S",
    "ShortDecode",
    "decode_short",
    "looks_looped",
    "token_cap",
    "window_features",
]

# seconds of silence after the clip. 1 s loops (WER 141 %); 5 s finds the end but writes numbers and codes its own way
# more often (tiny.en on Piper, 44 clips: WER 6.4 % on 30 s, 9.9 % at 5 s, 9.2 % at 8 s, 8.7 % at 12 s; entities
# 83 % / 87 % / 87 % / 87 %): 12 s is within a couple of points of the 30 s window at 2-3x its speed
PAD_S = 12.0
WINDOW_S = 30.0  # Whisper's window: the encoder takes at most 3000 feature frames
MAX_SHORT_S = WINDOW_S - PAD_S  # longer clips take the 30 s window (the clip and its padding must fit in it)
MAX_TOKENS_PER_S = 8.0  # fast speech is ~4 tokens/s; a spelled code ~1 per character at ~3 characters/s
TOKENS_BASE = 12  # a very short clip still gets room for a sentence of a few short words
# how the clip is padded to its window (window_features): with silence, or as faster-whisper pads its 30 s window
Padding = Literal["silence", "features"]
PADDING: Padding = "silence"


def token_cap(duration_s: float, max_new_tokens: int) -> int:
    """The most tokens a clip of ``duration_s`` may produce: ``TOKENS_BASE`` plus ``MAX_TOKENS_PER_S`` a second."""
    return max(1, min(max_new_tokens, TOKENS_BASE + math.ceil(MAX_TOKENS_PER_S * duration_s)))


def looks_looped(tokens: list[int], duration_s: float, cap: int, ngram: int = 3, repeats: int = 3) -> bool:
    """A decode that hit its cap, ends with a block of tokens said twice, or repeats one ``ngram`` of tokens
    ``repeats`` times or more (Whisper's hallucination loop: "Yes. Yes.", "W K 2 W K 2 W K 2")."""
    if len(tokens) >= cap or len(tokens) > TOKENS_BASE + MAX_TOKENS_PER_S * duration_s:
        return True
    for block in range(2, len(tokens) // 2 + 1):  # the decode ends by saying its last words again ("Yes. Yes.")
        if tokens[-block:] == tokens[-2 * block : -block]:
            return True
    counts: dict[tuple[int, ...], int] = {}
    for i in range(len(tokens) - ngram + 1):
        gram = tuple(tokens[i : i + ngram])
        counts[gram] = counts.get(gram, 0) + 1
        if counts[gram] >= repeats:
            return True
    return False


def window_features(extractor: Any, pcm16k: np.ndarray, padding: Padding = PADDING) -> np.ndarray:
    """The log-mel frames the encoder gets for ``pcm16k`` (16 kHz, whatever rate the clip came at: the padding is
    counted in 16 kHz samples and 10 ms frames): the clip's frames and ``PAD_S`` of padding, at most the 30 s
    window's 3000.

    ``"silence"`` (the default) pads the waveform with digital zeros, as Whisper's own front end pads its 30 s window:
    the padding is the spectrogram's floor (its loudest bin - 8 in log10). ``"features"`` pads as faster-whisper's
    30 s decode does (``pad_or_trim``: the clip's frames, then frames of 0.0). Measured on 40 sentences x 2 voices,
    clean and over an 8 kHz mu-law line (docs/measurements.md, "Short window on line audio"): silence is as close to
    the 30 s window as features with greedy decoding and closer with the agent's beam of 5, so it stays."""
    pad_frames = int(PAD_S * 100)
    if padding == "features":
        clip = extractor(pcm16k)[:, :-1]  # faster-whisper's content frames (its last frame is its own padding)
        frames = min(clip.shape[1] + pad_frames, int(WINDOW_S * 100))
        return np.pad(clip[:, :frames], ((0, 0), (0, frames - min(clip.shape[1], frames))))
    padded = np.concatenate([pcm16k, np.zeros(int(PAD_S * 16000), dtype=np.float32)])
    # the last frame covers the feature extractor's own padding
    return extractor(padded)[:, :-1][:, : int(WINDOW_S * 100)]


@dataclass(frozen=True)
class ShortDecode:
    """The hypotheses' token ids (best first, end token excluded), their texts and whether the best looped."""

    tokens: list[list[int]]
    texts: list[str]
    looped: bool


def decode_short(
    model: Any,
    pcm16k: np.ndarray,
    *,
    beam_size: int,
    max_new_tokens: int,
    n_best: int = 1,
    prompt: str | None = None,
    hotwords: str | None = None,
    language: str = "en",
    cap: int | None = None,
    padding: Padding = PADDING,
) -> ShortDecode:
    """Decode ``pcm16k`` (16 kHz mono float32) on a window of its length plus ``PAD_S``: faster-whisper's prompt,
    suppressed tokens and generation, without its 30 s padding. ``cap`` overrides ``token_cap`` (tests force a
    loop with it); ``padding``: see ``window_features`` (scripts/bench_asr_window.py compares both)."""
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    duration_s = pcm16k.size / 16000.0
    features = window_features(model.feature_extractor, pcm16k, padding)
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language)
    previous = tokenizer.encode(" " + prompt.strip()) if prompt else []
    prompt_ids = model.get_prompt(tokenizer, previous, without_timestamps=True, hotwords=hotwords)
    limit = cap if cap is not None else token_cap(duration_s, max_new_tokens)
    encoded = model.encode(features)
    result = model.model.generate(
        encoded,
        [prompt_ids],
        beam_size=max(beam_size, n_best),
        num_hypotheses=n_best,
        patience=1.0,
        length_penalty=1.0,
        max_length=len(prompt_ids) + limit,
        return_scores=True,
        suppress_blank=True,
        suppress_tokens=get_suppressed_tokens(tokenizer, [-1]),
    )[0]
    eot = tokenizer.eot
    hypotheses = [[t for t in ids if t < eot] for ids in result.sequences_ids]
    texts = [tokenizer.decode(ids).strip() for ids in hypotheses]
    # CTranslate2's max_length counts some of the prompt and the end token: a decode stopped by the cap comes back
    # one or two tokens short of it (measured), so "reached the cap" is within two tokens of it
    return ShortDecode(hypotheses, texts, looks_looped(hypotheses[0], duration_s, max(1, limit - 2)))
