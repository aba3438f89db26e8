"""A call's audio as tracks: each turn's clips laid on the call's timeline, one channel per speaker (as EVA-Bench
records them), plus the mix a listener on the line hears."""

from __future__ import annotations

import numpy as np
import soxr

from evalkit.call.loop import ConversationAudio
from evalkit.records import Conversation


def render_tracks(conversation: Conversation, audio: ConversationAudio, sample_rate: int) -> dict[str, np.ndarray]:
    total = int(np.ceil((conversation.turns[-1].end_ms if conversation.turns else 0) / 1000.0 * sample_rate)) + 1
    tracks = {kind: np.zeros(total, dtype=np.float32) for kind in ("user_clean", "user_heard", "assistant")}
    for turn in conversation.turns:
        offset = int(turn.start_ms / 1000.0 * sample_rate)
        for kind in tracks:
            clip = audio.clips.get((turn.index, kind))
            if clip is None:
                continue
            samples = clip.samples
            if clip.sample_rate != sample_rate:
                # soxr directly (what librosa.resample runs by default, same samples): importing librosa costs
                # ~2 s per process, paid by every sweep worker for nothing else
                samples = soxr.resample(samples, clip.sample_rate, sample_rate, "HQ")
            end = min(total, offset + len(samples))
            tracks[kind][offset:end] += samples[: end - offset]
    tracks["mixed"] = np.clip(tracks["user_heard"] + tracks["assistant"], -1.0, 1.0)
    return tracks
