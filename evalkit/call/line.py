"""The caller's side of an open phone line: frames at the protocol's pace for as long as the call lasts.

A phone line never stops: a Twilio media stream carries a 20 ms frame every 20 ms, silence included, and a bot's VAD
ends the caller's turn by hearing that silence. So on a real clock ``CallerLine`` runs a task that sends a frame every
``frame_ms`` from the moment the call is open until it closes: the caller's utterance where one is on the line, and
between utterances what the channel says the line carries there (``fill``: digital silence on a clean line, the
condition's ambient bed under noise, with the channel's effects). Frames keep the protocol's size on a fixed grid
(an utterance's last frame may be short, and the fill frame after it is then short too, back on the grid); an
utterance is placed on the grid (``aligned``: its start moves to the next frame boundary, at most one frame
later), so the timeline the call records is the one the agent received; response latency is then the end of the
caller's speech to the agent's first audio, with no harness gap in it.

On a virtual clock (an in-process, turn-based agent) nothing runs in the background: before each utterance the
stretch of line since the previous one is rendered for the recording, and the agent is handed the line it would have
heard around the utterance. That is the *lead-in*: from the end of the agent's own previous audio (or the cut where
the caller interjected) to the caller's onset, at most ``LEAD_IN_MAX_MS`` (the caller's reaction time and any line
delay: a few hundred ms), then the utterance. No trail follows it: an in-process agent is told the end of the
caller's turn at the end of its speech (as a wire agent with speech events), so its answer, and the response latency
(end of the caller's speech to the agent's first audio), are timed from there, as before. The stretch under the
agent's turn and the lead-in are rendered as two pieces (two draws of the bed that meet where the agent's audio
ends), each seeded by the utterance's index rather than by where it falls on the timeline: that timeline carries the
agent's measured compute time (wall-clock, never the same twice), so a stretch seeded by its start would hand the
agent different noise on every run, and its transcripts would move with the machine's load
(tests/test_cell_workers.py, one worker process against two, fails that way and passes with the utterance's key).
The lead-in's length (reaction time and line delay, both drawn from the call's seed) and its noise are then the same
on every run. A silent line (a clean condition: digital zero) hands nothing: zeros carry nothing to hear, and a
clean cell's agent gets exactly the utterance it got before the line existed.

Either way what went out between utterances is kept (``gaps``), so ``user_heard.wav`` holds the continuous signal
the agent heard.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalkit.call import ticks
from evalkit.call.channel import UserSpeech, audio_frames
from evalkit.call.clock import Clock
from evalkit.call.events import AgentEvent, Frame
from evalkit.records import AudioClip

FILL_RATE = 16_000  # the open line is rendered at 16 kHz on a real clock (each session resamples to its wire rate)
FILL_BLOCK_MS = 1_000.0  # rendered a second at a time, off the event loop, one block ahead
SLACK_MS = 1.0  # float rounding on the frame grid
# virtual clock: the most of the open line handed to an in-process agent before an utterance (module docstring); the
# caller's reaction time and line delay are well under it, a caller-first opening's wait is cut to it
LEAD_IN_MAX_MS = 2_000.0

# (start_ms, duration_ms, rate[, seed key]) -> audio, effects; the key (virtual clock) replaces the start as the seed
Fill = Callable[..., tuple[np.ndarray, list[Any]]]


@dataclass
class _Gap:
    """A stretch of line between utterances as it went out: its start and the samples sent, in order."""

    start_ms: float
    rate: int
    pieces: list[np.ndarray] = field(default_factory=list)

    def clip(self) -> AudioClip | None:
        if not self.pieces:
            return None
        return AudioClip(samples=np.concatenate(self.pieces).astype(np.float32), sample_rate=self.rate)


@dataclass
class _Queued:
    speech: UserSpeech
    frames: deque[Frame]
    sent: asyncio.Future[None]


class CallerLine:
    """The open line of one call (module docstring). ``channel``: its ``fill`` renders the line between utterances
    and ``silent_line`` says that is digital silence; a channel without one sends nothing there on a virtual clock
    (e.g. text) and digital silence on a real one.
    ``frame_ms``: the protocol's frame (None: whole turns, no line)."""

    def __init__(self, clock: Clock, session: Any, channel: Any, frame_ms: float | None) -> None:
        self.clock = clock
        self.session = session
        self.channel = channel
        fill: Fill | None = getattr(channel, "fill", None)
        # a real-time session carries audio: a channel that cannot render the line (a test tone, a plain voice) still
        # gets digital silence between utterances, as every phone line has
        self.fill = fill if fill is not None or not clock.realtime else _silence
        self.silent = fill is None or bool(getattr(channel, "silent_line", False))
        self.frame_ms = frame_ms
        self.gaps: list[_Gap] = []
        self._queue: deque[_Queued] = deque()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self._block: tuple[float, np.ndarray] | None = None  # (start_ms, samples) of the fill being sent
        self._next_block: asyncio.Future[tuple[float, np.ndarray]] | None = None
        self._line_ms = 0.0  # virtual clock: how far the line has been sent
        self._t0 = 0.0  # real clock: the frame grid's origin
        self._in_gap = False  # real clock: the last frame sent was fill
        self._silence: dict[int, np.ndarray] = {}
        self._echo: Callable[[np.ndarray, float, int], np.ndarray] | None = None  # a live line's echo (open)

    @property
    def continuous(self) -> bool:
        """Frames go out all the time (a real clock with framed audio and a channel that can fill)."""
        return self.clock.realtime and self.fill is not None and self.frame_ms is not None

    async def open(self) -> None:
        """The call is connected: the line starts now (on a noisy line, with its first second of bed rendered, off
        the event loop, so that the first frame is not silence)."""
        if self.continuous and not self.silent:
            prepare = getattr(self.channel, "prepare_line", None)
            if prepare is not None:  # a no-op when the cell has warmed it already (evalkit.cell.run)
                await asyncio.to_thread(prepare, FILL_RATE)
            self._block = await self._render(self.clock.now_ms)
        # a live line's frames start on the loop's shared grid, so its wake-ups are shared with the other calls'
        self._line_ms = self._t0 = self.clock.now_ms + (ticks.start_delay_ms() if self.continuous else 0.0)
        live_echo = getattr(self.channel, "live_echo", None)
        if self.continuous and live_echo is not None:  # the bed is rendered ahead; the echo is mixed at send time
            self._echo = live_echo()
        if self.continuous:
            self._task = asyncio.create_task(self._pace(self._t0))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._next_block is not None:
            self._next_block.cancel()
        for queued in self._queue:
            queued.sent.cancel()

    def check(self) -> None:
        """Raise what stopped the line (the wire failed while a frame was sent)."""
        if self._failure is not None:
            raise self._failure

    # -- utterances --------------------------------------------------------------------------------------------

    def aligned(self, speech: UserSpeech) -> UserSpeech:
        """``speech`` moved to the line's next frame boundary (a continuous line; else as it is). The shift, under a
        frame, is kept with the turn (``variation.line_align_ms``): it lengthens the caller's reaction, not the
        agent's latency."""
        if not self.continuous or self.frame_ms is None:
            return speech
        slots = (speech.start_ms - self._t0 - SLACK_MS) / self.frame_ms
        start = self._t0 + max(0.0, float(np.ceil(slots))) * self.frame_ms
        if start <= speech.start_ms:
            return speech
        moved = speech.delayed(start - speech.start_ms)
        moved.variation = {**speech.variation, "line_align_ms": start - speech.start_ms}
        return moved

    def say(self, speech: UserSpeech) -> asyncio.Future[None]:
        """Put ``speech`` on a continuous line; the future is done once its last frame has gone out."""
        self.check()
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued(speech, deque(speech.frames(self.frame_ms)), sent))
        if not self.silent:  # the bed after it is rendered while it is said
            if self._next_block is not None:
                self._next_block.cancel()
            self._next_block = self._render(speech.end_ms)
        return sent

    async def speak(self, speech: UserSpeech) -> list[tuple[float, AgentEvent]]:
        """Say ``speech`` on the continuous line; returns the agent's events received meanwhile, with their times."""
        sent = self.say(speech)
        early: list[tuple[float, AgentEvent]] = []
        receiving = asyncio.ensure_future(self.session.receive())
        try:
            while not sent.done():
                await asyncio.wait({sent, receiving}, return_when=asyncio.FIRST_COMPLETED)
                if receiving.done():
                    early.append((self.clock.now_ms, receiving.result()))
                    receiving = asyncio.ensure_future(self.session.receive())
            sent.result()  # the wire failed while the utterance was sent: the call ends here
            await self.clock.advance_to(speech.end_ms)
            if receiving.done():
                early.append((self.clock.now_ms, receiving.result()))
        finally:
            if not receiving.done():
                receiving.cancel()
        return early

    def record_gap(self, speech: UserSpeech, turns: Sequence[Any]) -> AudioClip | None:
        """Virtual clock: the line from where it was left to ``speech``'s start, rendered for the recording; returns
        the lead-in the agent hears before ``speech`` (module docstring; None: nothing to hand). ``turns``: the call
        so far, ``speech``'s own turn last."""
        until_ms = speech.start_ms
        if self.fill is None or not speech.clips or until_ms <= self._line_ms:
            return None
        rate, index = rate_of(speech), len(turns) - 1
        agent_end = next((t.end_ms for t in reversed(turns[:-1]) if t.role == "assistant"), 0.0)
        lead_ms = lead_in_ms(self._line_ms, agent_end, until_ms)
        lead = None
        if until_ms - lead_ms > self._line_ms:  # under the agent's turn (and its latency): heard by nobody but kept
            self._render_gap(self._line_ms, until_ms - lead_ms, rate, (index, "under"))
        if lead_ms > 0.0:
            lead = self._render_gap(until_ms - lead_ms, until_ms, rate, (index, "lead_in"))
        self._line_ms = until_ms
        return None if self.silent else lead

    def _render_gap(self, start_ms: float, end_ms: float, rate: int, key: tuple[int | str, ...]) -> AudioClip:
        assert self.fill is not None
        audio, _effects = self.fill(start_ms, end_ms - start_ms, rate, key)
        gap = _Gap(start_ms, rate, [np.asarray(audio, dtype=np.float32)])
        self.gaps.append(gap)
        return gap.clip()  # type: ignore[return-value]

    def heard_frames(
        self, speech: UserSpeech, turns: Sequence[Any], frame_ms: float | None
    ) -> tuple[float, list[Frame]]:
        """Virtual clock (and a real one without a continuous line): the line up to ``speech`` recorded; what the
        agent is sent for it, from when: the lead-in (in-process agents on a noisy line), then the utterance."""
        lead = self.record_gap(speech, turns) if not self.clock.realtime else None
        self.sent_until(speech.end_ms)
        frames = speech.frames(frame_ms)
        if lead is None:
            return speech.start_ms, frames
        lead_frames = [
            dataclasses.replace(f, fill=True) for f in audio_frames(lead.samples, lead.sample_rate, frame_ms)
        ]
        return speech.start_ms - lead.duration_s * 1000.0, lead_frames + frames

    def sent_until(self, end_ms: float) -> None:
        """Virtual clock: the line has carried an utterance up to ``end_ms``."""
        self._line_ms = max(self._line_ms, end_ms)

    # -- the paced line (real clock) ---------------------------------------------------------------------------

    async def _pace(self, at_ms: float) -> None:
        try:
            while True:
                await ticks.until(self.clock, at_ms)
                frame = self._frame_at(at_ms)
                await self.session.send(frame)
                at_ms += frame.duration_ms
                if self._queue and not self._queue[0].frames:  # its last frame is out
                    done = self._queue.popleft()
                    if not done.sent.done():
                        done.sent.set_result(None)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the wire failed: the loop raises it at its next step
            self._failure = exc
            for queued in self._queue:
                if not queued.sent.done():
                    queued.sent.set_exception(exc)

    def _frame_at(self, at_ms: float) -> Frame:
        assert self.frame_ms is not None
        if self._queue:
            current = self._queue[0]
            start = current.speech.start_ms
            if at_ms + SLACK_MS >= start:  # its time has come (or it is late: it goes out now)
                self._block, self._in_gap = None, False
                return current.frames.popleft()
        return self._fill_frame(at_ms, self._to_grid(at_ms))

    def _to_grid(self, at_ms: float) -> float:
        """How long the fill frame from ``at_ms`` is: a whole frame on the grid; after an utterance whose last frame
        was short, what is left of that frame, so the stream is back on its grid at once and the caller's silence
        starts right where its speech ends (no padding that would hold back the agent's cue)."""
        assert self.frame_ms is not None
        k = np.floor((at_ms - self._t0) / self.frame_ms + 1e-6)
        return float(self._t0 + (k + 1) * self.frame_ms - at_ms)

    def _fill_frame(self, at_ms: float, length_ms: float) -> Frame:
        """The line's next ``length_ms`` when the caller is silent: from the rendered bed, rendered a block ahead."""
        assert self.fill is not None
        n = max(1, round(length_ms / 1000.0 * FILL_RATE))
        if not self._in_gap:
            self.gaps.append(_Gap(at_ms, FILL_RATE))
            self._in_gap = True
        samples = self._bed(at_ms, n)
        if self._echo is not None:  # the echo of agent audio that came after the bed was rendered: mixed as it goes
            samples = self._echo(samples, at_ms, FILL_RATE)
        self.gaps[-1].pieces.append(samples)
        return Frame(samples=samples, sample_rate=FILL_RATE, fill=True)

    def _bed(self, at_ms: float, n: int) -> np.ndarray:
        if self.silent:
            return self._zeros(n)  # a clean line: no rendering at all
        block = self._block
        if block is not None:
            offset = round((at_ms - block[0]) / 1000.0 * FILL_RATE)
            if offset >= 0 and offset + n <= block[1].size:
                self._prefetch(block, offset + n)
                return block[1][offset : offset + n]
        ready = self._next_block
        if ready is not None and ready.done() and not ready.cancelled() and ready.exception() is None:
            start, samples = ready.result()
            self._next_block = None
            offset = round((at_ms - start) / 1000.0 * FILL_RATE)
            if offset >= 0 and offset + n <= samples.size:
                self._block = (start, samples)
                self._prefetch(self._block, offset + n)
                return samples[offset : offset + n]
        if ready is None or ready.done():
            self._next_block = self._render(at_ms)
        return self._zeros(n)

    def _prefetch(self, block: tuple[float, np.ndarray], used: int) -> None:
        """Render the next block once half of this one is sent."""
        if self._next_block is None and used >= block[1].size // 2:
            self._next_block = self._render(block[0] + block[1].size / FILL_RATE * 1000.0)

    def _render(self, start_ms: float) -> asyncio.Future[tuple[float, np.ndarray]]:
        assert self.fill is not None
        fill = self.fill

        def render() -> tuple[float, np.ndarray]:
            audio, _effects = fill(start_ms, FILL_BLOCK_MS, FILL_RATE)
            return start_ms, np.asarray(audio, dtype=np.float32)

        future = asyncio.ensure_future(asyncio.to_thread(render))
        future.add_done_callback(lambda f: f.cancelled() or f.exception())  # a failed block: silence, not an error
        return future

    def _zeros(self, n: int) -> np.ndarray:
        silence = self._silence.get(n)
        if silence is None:
            silence = self._silence[n] = np.zeros(n, dtype=np.float32)
            # read-only: the same array goes out every silent frame, so a session may encode it once (twilio_ws)
            silence.flags.writeable = False
        return silence

    def gap_clips(self) -> list[tuple[float, AudioClip]]:
        """What went out between utterances, as clips on the call's timeline."""
        return [(gap.start_ms, clip) for gap in self.gaps if (clip := gap.clip()) is not None]


def _silence(start_ms: float, duration_ms: float, rate: int, key: Any = None) -> tuple[np.ndarray, list[Any]]:
    return np.zeros(max(1, round(duration_ms / 1000.0 * rate)), dtype=np.float32), []


def lead_in_ms(line_ms: float, agent_end_ms: float, onset_ms: float) -> float:
    """How much of the open line before an utterance starting at ``onset_ms`` an in-process agent hears: from the end
    of its own audio (``agent_end_ms``), never before the caller's previous utterance ended (``line_ms``), at most
    ``LEAD_IN_MAX_MS``; none when the caller starts while the agent is still talking (an interjection)."""
    start = max(line_ms, agent_end_ms, onset_ms - LEAD_IN_MAX_MS)
    return max(0.0, onset_ms - start)


def rate_of(speech: UserSpeech) -> int:
    """The rate of the caller's audio on this utterance (the line between utterances is rendered at it)."""
    clip = speech.clips.get("user_heard")
    return clip.sample_rate if clip is not None else FILL_RATE
