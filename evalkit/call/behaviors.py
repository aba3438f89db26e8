"""Caller behaviours (``+behavior=<type>``, docs/caller-behaviours.md): backchannels and side speech over the agent's
speech, fillers and self-corrections in the caller's own turns, side speech in the gap before a caller turn.

The harness side of them, for every agent kind, without touching the call loop: two thin wrappers share one seeded
``BehaviorPlanner``.

- ``BehaviorChannel`` wraps the caller's channel: ``say`` puts vocal tics into the text the caller's voice speaks
  (the turn's intended text stays what the caller means) and side speech in the gap before an utterance (which then
  starts after it); ``agent_turn_effects`` hands the loop the events of the agent turn just recorded, so they land
  in the effect timeline on that turn.
- ``BehaviorSession`` wraps the agent session. An in-process agent (a virtual clock) delivers each turn whole: the
  phrase is placed on its audio (inside a sentence-equivalent that is not the last: pauses of >= 250 ms split them)
  and the agent is asked through its optional ``hear_overlap(clip, at_ms) -> bool`` hook whether it keeps talking
  (agents without the hook keep talking); one that yields is cut where the phrase ends. A wire agent (a real clock)
  is listened to as its audio arrives, as ``evalkit.call.live.AudioCutPlanner`` does for interruptions: the event is
  drawn and its phrase synthesized at the turn's first voiced chunk, and the caller says it at the start of the
  first chunk after a sentence-equivalent has ended; the phrase is mixed into the line's frames as they go out, and
  whether the agent yielded is measured on its audio (its voice ended within ``yield_window_ms`` of the phrase's end).

Phrases are spoken in the caller's voice through the channel's own ``say`` (its voice, persona variation and line
delay); the clean voice is mixed onto the open line, which already carries the condition's bed (the bed is not
doubled under the phrase). What the line carried is kept (``clips``) for ``user_heard``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import soxr
import yaml

from evalkit.call.events import AgentSpeech, AgentTurnEnd, Frame
from evalkit.call.interrupt import delivered_at
from evalkit.call.live import SEGMENT_PAUSE_MS
from evalkit.records import AppliedEffect, AudioClip
from evalkit.simulator.corrections import wrong_value
from evalkit.speech.vad import frame_levels_db

PHRASES_FILE = Path(__file__).resolve().parent.parent / "simulator" / "behaviors.yaml"
VOICE_KEY = 100_000  # phrase n is said as caller utterance VOICE_KEY + n: its own seeds, never a turn's
GAP_PAUSE_MS = 300.0  # after side speech in the gap, the caller pauses this long before its turn
FRAME_MS = 20.0  # the audio is scanned for voice in 20 ms frames
VOICED_BELOW_PEAK_DB = 30.0  # a frame is voiced within this of the loudest frame (and above -60 dBFS)
# a spelled code ("W, K, 2, E" / "W K 2 E") or a token holding a digit ("1234", "14th"): a value a tic can correct
_SPELLED = re.compile(r"\b[A-Z0-9](?:,? [A-Z0-9]\b){2,}")
_DIGITS = re.compile(r"\b[\w-]*\d[\w-]*\b")


@cache
def phrases(language: str) -> dict[str, list[str]]:
    table = yaml.safe_load(PHRASES_FILE.read_text(encoding="utf-8"))
    if language not in table:
        raise ValueError(f"behavior.language {language!r} has no phrases; known: {sorted(table)}")
    return table[language]


def voiced_segments(samples: np.ndarray, rate: int) -> list[tuple[float, float]]:
    """(start_ms, end_ms) of the sentence-equivalents of a clip: voiced stretches split by pauses >= 250 ms."""
    level = frame_levels_db(samples, rate, FRAME_MS)
    if level.size == 0:
        return []
    voiced = level >= max(level.max() - VOICED_BELOW_PEAK_DB, -60.0)
    segments: list[tuple[float, float]] = []
    for i in np.flatnonzero(voiced):
        start, end = i * FRAME_MS, (i + 1) * FRAME_MS
        if segments and start - segments[-1][1] < SEGMENT_PAUSE_MS:
            segments[-1] = (segments[-1][0], end)
        else:
            segments.append((start, end))
    return segments


def voiced_spans(samples: np.ndarray, rate: int, floor_dbfs: float = -50.0) -> list[tuple[float, float]]:
    """(start_ms, end_ms) of the runs of 20 ms frames above ``floor_dbfs`` in a piece of a live stream (a piece has
    no loudest frame of the turn to measure against: a fixed floor, well above a line's silence)."""
    step = max(1, int(rate * FRAME_MS / 1000.0))
    n = -(-len(samples) // step)
    spans: list[tuple[float, float]] = []
    for i in range(n):
        frame = np.asarray(samples[i * step : (i + 1) * step], dtype=np.float64)
        if frame.size and 10.0 * np.log10(np.mean(frame**2) + 1e-12) >= floor_dbfs:
            start, end = i * FRAME_MS, min(len(samples) / rate * 1000.0, (i + 1) * FRAME_MS)
            spans[-1:] = [(spans[-1][0], end)] if spans and spans[-1][1] >= start else [*spans[-1:], (start, end)]
    return spans


def with_tic(text: str, rng: np.random.Generator, table: dict[str, list[str]]) -> tuple[str, dict[str, Any]] | None:
    """The caller's text with one vocal tic, and what it is (``phrase``, ``kind``, ``char``: where it starts in the
    spoken text). A value in the text (a spelled code, a number) is said wrong first and then right (the right value
    is said last: the intended final value); else a filler goes in at a word boundary. None: too short a turn."""
    words = list(re.finditer(r"\S+", text))
    if len(words) < 3:
        return None
    values = list(_SPELLED.finditer(text)) or list(_DIGITS.finditer(text))
    for match in values[::-1]:
        right = match.group(0)
        wrong = wrong_value(right)
        if wrong is None or wrong == right:
            continue
        said = str(rng.choice(table["correction"])).format(wrong=wrong, right=right)
        spoken = text[: match.start()] + said + text[match.end() :]
        return spoken, {"phrase": said, "kind": "self_correction", "wrong": wrong, "right": right,
                        "char": match.start(), "chars": len(said)}  # fmt: skip
    at = words[int(rng.integers(1, len(words) - 1))].start()  # before a word, never the first or after the last
    filler = str(rng.choice(table["fillers"]))
    spoken = f"{text[:at]}{filler}, {text[at:]}"
    return spoken, {"phrase": filler, "kind": "filler", "char": at, "chars": len(filler) + 1}


def caller_voice(channel: Any, text: str, key: int) -> AudioClip:
    """``text`` in the caller's voice, through the channel's own ``say`` (its clean voice where it keeps one, else
    the frames it would send). The channel's speech level (the bed's reference) is left as the caller's turns set it."""
    power = getattr(channel, "speech_power", None)
    speech = channel.say(text, key, 0.0)
    if power is not None:
        channel.speech_power = power
    clip = speech.clips.get("user_clean")
    if clip is not None:
        return AudioClip(samples=np.asarray(clip.samples, dtype=np.float32), sample_rate=clip.sample_rate)
    frames = [f for f in speech.frames(None) if f.samples is not None]
    if not frames:
        raise ValueError("+behavior needs an audio channel: the caller's voice says the phrases")
    return AudioClip(
        samples=np.concatenate([f.samples for f in frames]).astype(np.float32), sample_rate=frames[0].sample_rate
    )


def attenuated(clip: AudioClip, level_db: float) -> AudioClip:
    return AudioClip(
        samples=(clip.samples * 10.0 ** (-level_db / 20.0)).astype(np.float32), sample_rate=clip.sample_rate
    )


@dataclass
class _Mixing:
    """A phrase going out on a live line: mixed into the frames sent from ``onset_ms`` on."""

    kind: str
    phrase: str
    clip: AudioClip
    during: str
    onset_ms: float
    started_ms: float | None = None
    position: int = 0  # samples of the clip (at the frame's rate) sent so far
    resampled: dict[int, np.ndarray] | None = None

    def at_rate(self, rate: int) -> np.ndarray:
        self.resampled = self.resampled or {}
        if rate not in self.resampled:
            samples = self.clip.samples
            if self.clip.sample_rate != rate:
                samples = soxr.resample(samples, self.clip.sample_rate, rate, "HQ").astype(np.float32)
            self.resampled[rate] = samples
        return self.resampled[rate]

    @property
    def end_ms(self) -> float:
        return (self.started_ms or self.onset_ms) + self.clip.duration_s * 1000.0

    def into(self, frame: Frame, now_ms: float) -> Frame:
        samples = self.at_rate(frame.sample_rate)
        if self.started_ms is None:
            self.started_ms = now_ms
        piece = samples[self.position : self.position + len(frame.samples)]  # type: ignore[arg-type]
        self.position += len(piece)
        mixed = np.asarray(frame.samples, dtype=np.float32).copy()
        mixed[: len(piece)] += piece
        return replace(frame, samples=np.clip(mixed, -1.0, 1.0))

    @property
    def done(self) -> bool:
        return self.resampled is not None and self.position >= min(len(s) for s in self.resampled.values())


class BehaviorPlanner:
    """The behaviours of one call (``config``: a ``BehaviorConfig``; ``rng``: the call's own, from its seeds)."""

    def __init__(self, config: Any, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.table = phrases(config.language)
        self.count = 0
        self.clips: list[tuple[float, AudioClip]] = []  # what the line carried (start on the call clock, clip)
        self.pending: list[AppliedEffect] = []  # events of the agent turn under way (its index comes at recording)
        self.channel: Any = None

    # -- draws ---------------------------------------------------------------------------------------------------

    def _draw(self) -> bool:
        if self.count >= self.config.max_per_call:
            return False
        return bool(self.rng.random() < self.config.rate)

    def overlap_kind(self) -> str | None:
        """The behaviour said over an eligible agent turn, if one is drawn for it."""
        kind = self.config.type
        if kind == "vocal_tics" or (kind == "side_speech" and self.config.during == "gap") or not self._draw():
            return None
        if kind == "side_speech" and self.config.during == "any" and self.rng.random() < 0.5:
            return None  # this one goes to a gap (drawn there)
        return kind

    def phrase(self, kind: str) -> tuple[str, AudioClip]:
        """A phrase of ``kind`` in the caller's voice, at the behaviour's level."""
        text = str(self.rng.choice(self.table[kind]))
        clip = caller_voice(self.channel, text, VOICE_KEY + self.count)
        self.count += 1
        return text, attenuated(clip, self.config.level_db)

    def effect(self, behavior: str, start_ms: float, end_ms: float, turn: int, **params: Any) -> AppliedEffect:
        """The event on the effect timeline (its type: backchannel, vocal_tic or side_speech)."""
        kind = "vocal_tic" if behavior == "vocal_tics" else behavior
        return AppliedEffect(type=kind, participant="user", turn=turn, start_ms=start_ms, end_ms=end_ms, params=params)

    # -- over an in-process agent's whole turn ----------------------------------------------------------------

    def over_turn(self, speech: AgentSpeech, start_ms: float, session: Any) -> AgentSpeech:
        """A turn-based agent's whole turn starting at ``start_ms``: maybe a phrase over it (placed on its audio);
        the agent hears it (``hear_overlap``) and keeps talking, or yields and is cut where the phrase ends."""
        audio = speech.audio
        if audio is None or not audio.samples.size:
            return speech
        segments = voiced_segments(audio.samples, audio.sample_rate)
        if len(segments) < 2:
            return speech
        kind = self.overlap_kind()
        if kind is None:
            return speech
        seg_start, seg_end = segments[int(self.rng.integers(len(segments) - 1))]  # any but the last
        at = float(self.rng.uniform(seg_start + 0.2 * (seg_end - seg_start), seg_end - 0.1 * (seg_end - seg_start)))
        text, clip = self.phrase(kind)
        onset, end = start_ms + at, start_ms + at + clip.duration_s * 1000.0
        self.clips.append((onset, clip))
        hear = getattr(getattr(session, "agent", None), "hear_overlap", None)
        keeps = True if hear is None else bool(hear(self._on_line(clip, onset), at))
        params: dict[str, Any] = {"phrase": text, "during": "agent_speech", "yielded": not keeps,
                                  "level_db": self.config.level_db, "measured": "in_process"}  # fmt: skip
        if not keeps:  # it stops as the phrase ends: the rest of its turn is never said
            stop = min(len(audio.samples), int((at / 1000.0 + clip.duration_s) * audio.sample_rate))
            ms_per_char = audio.duration_s * 1000.0 / max(1, len(speech.text))
            delivered = delivered_at(speech.text, int((stop / audio.sample_rate * 1000.0) / ms_per_char))
            notify = getattr(session, "interrupted_at", None)
            if notify is not None:
                notify(delivered, speech.text[len(delivered) :].strip(), speech.text)
            params["agent_stop_ms"] = start_ms + stop / audio.sample_rate * 1000.0
            speech = replace(
                speech, text=delivered, audio=AudioClip(samples=audio.samples[:stop], sample_rate=audio.sample_rate)
            )
        self.pending.append(self.effect(kind, onset, end, -1, **params))
        return speech

    def _on_line(self, clip: AudioClip, onset_ms: float) -> AudioClip:
        """What the agent's microphone gets: the phrase over the line's bed there (a clean line: the phrase)."""
        fill = getattr(self.channel, "fill", None)
        if fill is None or getattr(self.channel, "silent_line", True):
            return clip
        bed, _effects = fill(onset_ms, clip.duration_s * 1000.0, clip.sample_rate)
        n = min(len(bed), len(clip.samples))
        mixed = clip.samples.copy()
        mixed[:n] += np.asarray(bed[:n], dtype=np.float32)
        return AudioClip(samples=mixed, sample_rate=clip.sample_rate)

    # -- the caller's own turns -------------------------------------------------------------------------------

    def say(self, channel: Any, text: str, index: int, start_ms: float) -> Any:
        """The caller's utterance, with a vocal tic or side speech before it when one is drawn."""
        kind = self.config.type
        gap = kind == "side_speech" and self.config.during != "agent_speech" and index > 0 and self._draw()
        if gap and (self.config.during == "gap" or self.rng.random() < 0.5):
            phrase, clip = self.phrase("side_speech")
            self.clips.append((start_ms, clip))
            end = start_ms + clip.duration_s * 1000.0
            self.live_gap = _Mixing("side_speech", phrase, clip, "gap", start_ms)  # a live line says it
            speech = channel.say(text, index, end + GAP_PAUSE_MS)
            speech.effects.append(self.effect("side_speech", start_ms, end, index, phrase=phrase, during="gap",
                                              yielded=None, level_db=self.config.level_db))  # fmt: skip
            return speech
        if kind != "vocal_tics" or not self._draw():
            return channel.say(text, index, start_ms)
        tic = with_tic(text, self.rng, self.table)
        if tic is None:
            return channel.say(text, index, start_ms)
        self.count += 1
        spoken, params = tic
        speech = channel.say(spoken, index, start_ms)
        per_char = (speech.end_ms - speech.start_ms) / max(1, len(spoken))
        start = speech.start_ms + params.pop("char") * per_char
        end = start + params.pop("chars") * per_char
        speech.effects.append(
            self.effect("vocal_tics", start, end, index, during="own_turn", yielded=None, spoken=spoken, **params)
        )
        return speech

    live_gap: _Mixing | None = None  # side speech in a gap, for a live line to say


class BehaviorChannel:
    """The caller's channel with the behaviours of ``planner`` (module docstring); everything else is the channel's."""

    def __init__(self, inner: Any, planner: BehaviorPlanner) -> None:
        self.inner = inner
        self.planner = planner
        planner.channel = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def say(self, text: str, index: int, start_ms: float) -> Any:
        return self.planner.say(self.inner, text, index, start_ms)

    def agent_turn_effects(self, turn: int, start_ms: float, end_ms: float) -> list[AppliedEffect]:
        inner = getattr(self.inner, "agent_turn_effects", None)
        effects = inner(turn, start_ms, end_ms) if inner is not None else []
        pending, self.planner.pending = self.planner.pending, []
        return [*effects, *(e.model_copy(update={"turn": turn}) for e in pending)]


class _LiveTurn:
    """One agent turn on a live stream, listened to for the moment to say the phrase (module docstring)."""

    def __init__(self) -> None:
        self.last_end_ms: float | None = None
        self.segments_ended = 0
        self.kind: str | None = None
        self.ready: asyncio.Future[tuple[str, AudioClip]] | None = None
        self.voice_end_ms = 0.0  # the end of the agent's last voiced audio so far (playback timeline)
        self.said: _Mixing | None = None  # the phrase said over this turn


class BehaviorSession:
    """The agent session, with the phrases of ``planner`` said over the agent's speech (module docstring)."""

    def __init__(self, inner: Any, planner: BehaviorPlanner, clock: Any) -> None:
        self.inner = inner
        self.planner = planner
        self.clock = clock
        self.turn: _LiveTurn | None = None
        self.mixing: _Mixing | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def open(self, context: Any) -> None:
        await self.inner.open(context)

    async def end_of_turn(self) -> None:
        await self.inner.end_of_turn()

    async def interrupt(self) -> None:
        await self.inner.interrupt()

    async def close(self) -> None:
        if self.turn is not None and self.turn.ready is not None:
            self.turn.ready.cancel()
        await self.inner.close()

    async def send(self, frame: Frame) -> None:
        """A frame of the caller's line: a phrase due now is mixed into it (a live line)."""
        gap = self.planner.live_gap
        if gap is not None and self.clock.realtime and self.mixing is None:
            self.mixing, self.planner.live_gap = gap, None
        mixing = self.mixing
        now = self.clock.now_ms
        if mixing is not None and frame.samples is not None and frame.sample_rate and now + 1.0 >= mixing.onset_ms:
            frame = mixing.into(frame, now)
            if mixing.done:
                self.mixing = None
        await self.inner.send(frame)

    async def receive(self) -> Any:
        event = await self.inner.receive()
        if not self.clock.realtime:
            if isinstance(event, AgentSpeech):
                return self.planner.over_turn(event, self.clock.now_ms, self.inner)
            return event
        if isinstance(event, AgentSpeech) and event.audio is not None and event.audio.samples.size:
            self._hear(self.clock.now_ms, event.audio)
        elif isinstance(event, AgentTurnEnd):
            self._turn_over()
        return event

    def _hear(self, at_ms: float, audio: AudioClip) -> None:
        """A chunk of the agent's audio arrived at ``at_ms``: it plays from then, or after what came before it (an
        agent that sends ahead of playback). Its voiced stretches, on the playback timeline, find the pauses."""
        turn = self.turn
        if turn is None:  # the turn's first audio: the event is drawn, its phrase synthesized while listening
            turn = self.turn = _LiveTurn()
            turn.kind = self.planner.overlap_kind()
            if turn.kind is not None:
                turn.ready = asyncio.ensure_future(asyncio.to_thread(self.planner.phrase, turn.kind))
        play = max(at_ms, turn.last_end_ms or at_ms)
        for start, end in voiced_spans(audio.samples, audio.sample_rate):
            if turn.voice_end_ms and play + start - turn.voice_end_ms >= SEGMENT_PAUSE_MS:
                turn.segments_ended += 1  # a sentence-equivalent ended: the phrase goes in as the next one starts
                ready = turn.ready
                if ready is not None and ready.done() and not ready.cancelled() and self.mixing is None:
                    text, clip = ready.result()
                    turn.ready = None
                    self.mixing = turn.said = _Mixing(turn.kind or "", text, clip, "agent_speech", play + start)
            turn.voice_end_ms = play + end
        turn.last_end_ms = play + audio.duration_s * 1000.0

    def _turn_over(self) -> None:
        """The agent's turn ended: a phrase said over it is recorded, with whether the agent stopped after it."""
        turn, self.turn = self.turn, None
        if turn is None:
            return
        if turn.ready is not None:
            turn.ready.cancel()
        mixing = turn.said
        if mixing is None:
            return
        if mixing.started_ms is None and mixing.onset_ms >= turn.voice_end_ms:  # due after its last audio: never said
            self.mixing = None if self.mixing is mixing else self.mixing
            return
        # an agent that sent its turn ahead of playback has ended it before the phrase is said: it is, at its onset
        start = mixing.started_ms or mixing.onset_ms
        self.planner.clips.append((start, mixing.clip))
        yielded = turn.voice_end_ms <= mixing.end_ms + self.planner.config.yield_window_ms
        self.planner.pending.append(
            self.planner.effect(
                mixing.kind, start, mixing.end_ms, -1, phrase=mixing.phrase, during="agent_speech",
                yielded=yielded, level_db=self.planner.config.level_db, measured="wire",
                agent_voice_end_ms=turn.voice_end_ms,
            )
        )  # fmt: skip
