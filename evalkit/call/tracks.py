"""A call's audio as tracks: each turn's clips laid on the call's timeline, one channel per speaker (as EVA-Bench
records them), plus the mix a listener on the line hears. ``user_heard`` also holds what the caller's line carried
between utterances (silence, or the condition's ambient bed: evalkit.call.line), so it is the signal the agent got."""

from __future__ import annotations

import numpy as np
import soxr

from evalkit.call.loop import ConversationAudio
from evalkit.records import AudioClip, Conversation


def render_tracks(conversation: Conversation, audio: ConversationAudio, sample_rate: int) -> dict[str, np.ndarray]:
    total = int(np.ceil((conversation.turns[-1].end_ms if conversation.turns else 0) / 1000.0 * sample_rate)) + 1
    tracks = {kind: np.zeros(total, dtype=np.float32) for kind in ("user_clean", "user_heard", "assistant")}
    for turn in conversation.turns:
        for kind in tracks:
            clip = audio.clips.get((turn.index, kind))
            if clip is not None:
                _lay(tracks[kind], clip, turn.start_ms, sample_rate)
    for start_ms, clip in audio.line:
        _lay(tracks["user_heard"], clip, start_ms, sample_rate)
    tracks["mixed"] = np.clip(tracks["user_heard"] + tracks["assistant"], -1.0, 1.0)
    return tracks


def _lay(track: np.ndarray, clip: AudioClip, start_ms: float, sample_rate: int) -> None:
    """Add ``clip`` into ``track`` from ``start_ms`` (what runs past the track's end is left out)."""
    offset = int(start_ms / 1000.0 * sample_rate)
    samples = clip.samples
    if clip.sample_rate != sample_rate:
        # soxr directly (what librosa.resample runs by default, same samples): importing librosa costs ~2 s per
        # process, paid by every sweep worker for nothing else
        samples = soxr.resample(samples, clip.sample_rate, sample_rate, "HQ")
    end = min(track.size, offset + len(samples))
    if end > offset:
        track[offset:end] += samples[: end - offset]
