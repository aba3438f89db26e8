"""Issue 26 points 1-2: the caller's line is continuous (a frame every 20 ms all call long, silence or the
condition's ambient bed between utterances) and either side may speak first (``first_speaker``, ``greeting_wait_s``).

The agent servers here are written as a phone bot would be, knowing nothing of evalkit: ``VadBot`` finds the
caller's turns by the level of the frames it receives (no timers, no speech events), so it answers only if the line
keeps carrying frames after the caller stops, and never greets unless asked to."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError
from websockets.asyncio.server import ServerConnection, serve

from evalkit.agents.base import AgentReply
from evalkit.call import CallOutcome, CallSettings, RealClock, TurnBasedSession, VirtualClock, render_tracks, run_call
from evalkit.call.channel import AudioChannel
from evalkit.call.conversation import opening
from evalkit.domains.scenarios import load_scenarios
from evalkit.records import AudioClip, Conversation
from evalkit.speech.vad import level_dbfs
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.codec import decode, encode
from evalkit.wire.twilio_ws.server import url_of
from perturbations import Chain
from perturbations.mixing import signal_power
from tests.test_call_loop import RATE, EchoAgent, ScriptCaller, ToneChannel, context, tone
from tests.test_preflight import assert_no_cell_started, preflight_refusal

FRAME = 160  # 20 ms of μ-law at 8 kHz
CAFE_15DB = [{"op": "noise", "environment": "cafe", "snr_db": 15.0}]


class VadBot:
    """A Twilio-stream bot that waits for the caller (``greets`` False), takes a frame above ``speech_dbfs`` for
    speech and the caller's turn as over after ``stop_ms`` of received frames below it, then answers with a 300 ms
    tone. It keeps the level of every frame it received and the frame counts at which it decided."""

    def __init__(self, greets: bool = False, stop_ms: float = 200.0, speech_dbfs: float = -33.0) -> None:
        self.greets = greets
        self.stop_frames = round(stop_ms / 20.0)
        self.speech_dbfs = speech_dbfs
        self.levels: list[float] = []  # dBFS of each received media frame, in order
        self.decided_at: list[int] = []  # the received frame count when a caller turn was taken as over

    async def speak(self, ws: ServerConnection, sid: str, ms: float) -> None:
        audio = encode(tone(ms), "mulaw")
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for n, i in enumerate(range(0, len(audio), FRAME)):
            await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
            payload = base64.b64encode(audio[i : i + FRAME]).decode()
            await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))

    async def handler(self, ws: ServerConnection) -> None:
        sid, voiced, quiet, replies = "", False, 0, set()
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                if self.greets:
                    replies.add(asyncio.create_task(self.speak(ws, sid, 400.0)))
            elif message["event"] == "media":
                level = level_dbfs(decode(base64.b64decode(message["media"]["payload"]), "mulaw"))
                self.levels.append(level)
                if level >= self.speech_dbfs:
                    voiced, quiet = True, 0
                elif voiced:
                    quiet += 1
                    if quiet >= self.stop_frames:  # the caller stopped: answer at once
                        voiced, quiet = False, 0
                        self.decided_at.append(len(self.levels))
                        replies.add(asyncio.create_task(self.speak(ws, sid, 300.0)))


async def _dial(handler: Any, lines: list[str], channel: Any = None, **config: Any) -> CallOutcome:
    async with serve(handler, "127.0.0.1", 0) as server:
        options = {"transcribe_agent": "never", "speech_events": False, "take_turn_after_silence_ms": 300.0, **config}
        agent = TwilioWsConfig(name="bot", url=url_of(server), **options).build()
        clock = RealClock()
        settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
        caller = ScriptCaller(lines)
        return await run_call(caller, agent.session(clock), channel or ToneChannel(), context(), clock, settings)


def dial(handler: Any, lines: list[str], channel: Any = None, **config: Any) -> CallOutcome:
    return asyncio.run(_dial(handler, lines, channel, **config))


def tone_voice(text: str) -> tuple[np.ndarray, int]:
    return tone(100.0 * len(text.split())), RATE


def noisy_channel(specs: list[dict[str, Any]]) -> AudioChannel:
    return AudioChannel(tone_voice, Chain.from_specs(specs), cell_seed=7, keys=("AL-TEST", 0))


# -- who speaks first -----------------------------------------------------------------------------------------------


def test_a_bot_that_waits_for_the_caller_gets_the_callers_line_after_the_greeting_wait() -> None:
    bot = VadBot(greets=False)
    outcome = dial(bot.handler, ["one two three", "four five"], greeting_wait_s=0.6)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert [t.role for t in outcome.turns] == ["user", "assistant", "user", "assistant", "user"]
    first = outcome.turns[0]
    assert first.start_ms >= 600.0  # it waited for a greeting that never came ...
    assert first.start_ms < 600.0 + 300.0  # ... then opened at once (a frame of grid, a loaded machine's slack)
    assert len(bot.decided_at) == 2  # one agent turn per caller utterance


def test_the_bot_hears_the_caller_stop_on_the_continuous_line_so_latency_is_the_bots_own() -> None:
    """The bot decides on the frames it receives: without silence frames after the caller's speech it would never
    answer. Response latency is its 200 ms stop time plus the wire, not a harness gap."""
    bot = VadBot(greets=False, stop_ms=200.0)
    outcome = dial(bot.handler, ["one two three", "four five"], greeting_wait_s=0.3)
    assert outcome.end_reason == "user_end_call", outcome.error
    users = [t for t in outcome.turns if t.role == "user"][:2]
    replies = [t for t in outcome.turns if t.role == "assistant"]
    latencies = [r.start_ms - u.end_ms for u, r in zip(users, replies, strict=True)]
    assert all(180.0 <= latency < 500.0 for latency in latencies), latencies
    # the bot took each turn after exactly 10 quiet frames past the caller's last voiced one
    voiced = [i for i, level in enumerate(bot.levels) if level >= bot.speech_dbfs]
    assert bot.decided_at[0] - (max(i for i in voiced if i < bot.decided_at[0]) + 1) == 10


def test_caller_first_opens_after_its_reaction_without_waiting() -> None:
    bot = VadBot(greets=False)
    outcome = dial(bot.handler, ["one two"], first_speaker="caller", greeting_wait_s=5.0)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert outcome.turns[0].role == "user" and outcome.turns[0].start_ms < 400.0  # 100 ms reaction, not 5 s


def test_a_greeting_bot_is_waited_for_under_auto() -> None:
    bot = VadBot(greets=True)
    outcome = dial(bot.handler, ["one two"], greeting_wait_s=2.0)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert [t.role for t in outcome.turns][:2] == ["assistant", "user"]
    assert outcome.turns[0].start_ms < 1000.0


def test_agent_first_on_a_bot_that_never_greets_fails_with_one_line_naming_the_wait() -> None:
    outcome = dial(VadBot(greets=False).handler, ["hi"], first_speaker="agent", response_timeout_s=0.5)
    assert outcome.end_reason == "error" and outcome.turns == []
    assert outcome.error == (
        "AgentTimeout: no greeting: the agent sent nothing for 0.5 s after the call was connected (first_speaker=agent)"
    )


def test_greeting_wait_must_be_a_few_seconds() -> None:
    for bad in (-1.0, 0.0, 3600.0):
        with pytest.raises(ValidationError, match="greeting_wait_s"):
            TwilioWsConfig(name="x", greeting_wait_s=bad)


def test_a_negative_greeting_wait_is_one_config_line(tmp_path: Path) -> None:
    [line] = preflight_refusal(tmp_path, "agent=twilio_ws", "agent.greeting_wait_s=-2")
    assert "greeting_wait_s" in line
    assert_no_cell_started(tmp_path)


def test_the_scenario_says_who_opens_where_the_agent_option_is_auto() -> None:
    scenario = load_scenarios("airline", ["AL-001"])[0]
    assert scenario.first_speaker is None and "first_speaker" not in scenario.model_dump()  # files stay as written
    caller_story = scenario.model_copy(update={"first_speaker": "caller"})
    assert opening(CallSettings(), caller_story).first_speaker == "caller"
    assert opening(CallSettings(first_speaker="agent"), caller_story).first_speaker == "agent"  # the option wins
    assert opening(CallSettings(), scenario).first_speaker == "auto"


def test_an_in_process_agent_lets_a_caller_first_scenario_open() -> None:
    agent, clock = EchoAgent(reply_ms=500.0), VirtualClock()
    settings = CallSettings(first_speaker="caller", user_reaction_ms=200.0)
    session = TurnBasedSession(agent, clock, greets=False)
    outcome = asyncio.run(run_call(ScriptCaller(["one two"]), session, ToneChannel(), context(), clock, settings))
    assert [t.role for t in outcome.turns] == ["user", "assistant", "user"]
    assert outcome.turns[0].start_ms == 200.0 and outcome.turns[1].intended_text == "you said 1600 samples"


# -- the ambient bed between utterances -----------------------------------------------------------------------------


def test_a_noisy_line_carries_the_bed_between_utterances_at_the_conditions_level() -> None:
    bot = VadBot(greets=True, speech_dbfs=-30.0)
    channel = noisy_channel(CAFE_15DB)
    outcome = dial(bot.handler, ["one two three", "four five"], channel=channel, greeting_wait_s=2.0)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert outcome.audio.line, "nothing recorded between utterances"
    # the frames the bot received carried sound: no digital silence on a café line (a bed block not rendered in
    # time on a loaded machine goes out as silence: a few frames at most)
    assert np.mean(np.isinf(bot.levels)) < 0.05
    # between utterances the bed sits at the condition's SNR below the caller's speech (μ-law, 8 kHz: ±2 dB)
    speech, _ = signal_power(tone(300.0), RATE)
    gaps = np.concatenate([clip.samples for _, clip in outcome.audio.line])
    snr = 10.0 * np.log10(speech / float(np.mean(np.square(gaps, dtype=np.float64))))
    assert snr == pytest.approx(15.0, abs=2.0)


@pytest.mark.slow  # two live calls, ~8 s
def test_a_live_line_sends_the_bots_own_echo_back_after_the_round_trip() -> None:
    """Issue 31 pt 3: a speakerphone on a live call. The bot's 300 ms answers come back to it on the caller's line
    (the echo mixed into the frames as they are sent), below its speech threshold; a line without the echo is digital
    silence between the caller's utterances."""
    echo = [{"op": "speakerphone_echo", "level_db": -20.0, "delay_ms": 40.0}]
    heard, outcomes = {}, {}
    for name, specs in (("echo", echo), ("none", [])):
        bot = VadBot(greets=False)
        outcome = dial(bot.handler, ["one two three", "four five"], channel=noisy_channel(specs), greeting_wait_s=0.6)
        assert outcome.end_reason == "user_end_call", outcome.error
        heard[name], outcomes[name] = np.asarray(bot.levels), outcome
    # the tone is -23 dBFS; its echo -20 dB lower (-43, less the loudspeaker band and mu-law): quiet, not silent
    assert np.count_nonzero((heard["echo"] > -60.0) & (heard["echo"] < -35.0)) >= 10  # two answers + room tail
    assert np.count_nonzero((heard["none"] > -60.0) & (heard["none"] < -35.0)) == 0
    for name, expected in (("echo", 2), ("none", 0)):
        turns = [t for t in outcomes[name].turns if t.role == "assistant"]
        echoes = [e for t in turns for e in t.effects if e.type == "speakerphone_echo"]
        assert len(echoes) == expected and all(e.params["lag_ms"] == 40.0 for e in echoes)


def _user_heard(outcome: CallOutcome) -> np.ndarray:
    record = Conversation(
        scenario_id="AL-TEST", domain="toy", trial=0, seed=0, turns=outcome.turns, end_reason="user_end_call",
        initial_db={}, final_db={}, expected_db={},
    )  # fmt: skip
    return render_tracks(record, outcome.audio, RATE)["user_heard"]


class ListeningAgent(EchoAgent):
    """An echo agent that keeps what it was handed, answering after ``compute_ms`` of (measured) compute."""

    def __init__(self, compute_ms: float = 50.0) -> None:
        super().__init__(reply_ms=1000.0)
        self.compute_ms = compute_ms
        self.clips: list[np.ndarray] = []

    def _reply(self, text: str) -> AgentReply:
        reply = super()._reply(text)
        reply.compute_ms = self.compute_ms
        return reply

    def respond(self, clip: AudioClip) -> AgentReply:
        self.clips.append(clip.samples.copy())
        return super().respond(clip)


def _in_process(specs: list[dict[str, Any]], compute_ms: float = 50.0) -> tuple[ListeningAgent, CallOutcome]:
    agent, clock = ListeningAgent(compute_ms), VirtualClock()
    caller = ScriptCaller(["one two three", "four five"])
    session = TurnBasedSession(agent, clock)
    outcome = asyncio.run(
        run_call(caller, session, noisy_channel(specs), context(), clock, CallSettings(user_reaction_ms=400.0))
    )
    assert outcome.end_reason == "user_end_call", outcome.error
    return agent, outcome


def test_an_in_process_agent_hears_the_bed_from_its_own_audio_to_the_callers_onset() -> None:
    agent, outcome = _in_process(CAFE_15DB)
    # each utterance (3 and 2 words of 100 ms) comes after the caller's 400 ms reaction to the agent's audio: the
    # agent is handed that stretch of the line first (evalkit.call.line: the lead-in)
    lead = int(0.4 * RATE)
    assert agent.heard == [lead + 2400, lead + 1600]
    heard = _user_heard(outcome)
    users = [t for t in outcome.turns if t.role == "user"]
    for clip, turn in zip(agent.clips, users, strict=False):
        onset = round(turn.start_ms / 1000.0 * RATE)
        assert np.all(clip[:lead] != 0.0)  # the café bed, not digital zero
        # what the agent got before the utterance is what the recording holds there, and the same chain made it:
        # the bed at the condition's SNR against the caller's speech (a tone at -23 dBFS; μ-law free, ±1.5 dB)
        assert np.allclose(clip[:lead], heard[onset - lead : onset], atol=1e-6)
    speech, _ = signal_power(tone(300.0), RATE)
    snr = 10.0 * np.log10(speech / float(np.mean(np.square(agent.clips[1][:lead], dtype=np.float64))))
    assert snr == pytest.approx(15.0, abs=1.5)
    # the response latency is still the end of the caller's speech to the agent's first audio: its compute time
    for user, reply in zip(users, [t for t in outcome.turns if t.role == "assistant"][1:], strict=False):
        assert reply.start_ms - user.end_ms == pytest.approx(50.0)
    frames = heard[: heard.size // 800 * 800].reshape(-1, 800)  # 100 ms frames over the whole call
    assert np.mean(np.all(frames == 0.0, axis=1)) == 0.0  # no stretch of the call is digital silence


def test_what_an_in_process_agent_hears_does_not_move_with_its_compute_time() -> None:
    """The timeline carries the agent's measured (wall-clock) compute time; the line it is handed is seeded by the
    utterance, so a slower machine hands it the same audio."""
    fast, fast_call = _in_process(CAFE_15DB, compute_ms=50.0)
    slow, slow_call = _in_process(CAFE_15DB, compute_ms=137.3)
    assert fast_call.turns[2].start_ms != slow_call.turns[2].start_ms
    assert len(fast.clips) == len(slow.clips) == 2
    assert all(np.array_equal(a, b) for a, b in zip(fast.clips, slow.clips, strict=True))


def test_a_clean_line_is_digital_silence_between_utterances() -> None:
    agent, outcome = _in_process([])
    assert outcome.audio.line and all(not clip.samples.any() for _, clip in outcome.audio.line)
    assert agent.heard == [2400, 1600]  # zeros carry nothing to hear: a clean cell's agent gets its utterances only


def test_lines_waiting_for_one_grid_point_share_one_wake_up_and_none_wakes_early() -> None:
    """evalkit.call.ticks: calls on one event loop whose frames are due at the same point of the shared grid are woken
    by one timer (one entry, all their waiters); a line cancelled meanwhile does not cancel the others; a time off the
    grid (an utterance's short last frame) waits on a timer of its own. Nobody is woken before its time."""
    from evalkit.call import ticks

    async def main() -> None:
        clocks = [RealClock() for _ in range(6)]
        loop = asyncio.get_running_loop()
        ahead_ms = ticks.start_delay_ms() + 4 * ticks.GRID_MS  # a grid point 20-25 ms from now
        due = [c.now_ms + ahead_ms for c in clocks]
        waits = [asyncio.create_task(ticks.until(c, at)) for c, at in zip(clocks, due, strict=True)]
        off_grid = clocks[0].now_ms + ahead_ms + ticks.GRID_MS / 2
        lone = asyncio.create_task(ticks.until(clocks[0], off_grid))
        await asyncio.sleep(0)
        waiting = ticks._waiting[loop]
        assert [len(w) for w in waiting.values()] == [6]  # one grid point, every line on it; the off-grid one apart
        waits[0].cancel()
        await asyncio.gather(*waits[1:])
        assert all(c.now_ms >= at - 0.1 for c, at in zip(clocks[1:], due[1:], strict=True))
        assert waiting == {}  # the point was served and forgotten
        await lone
        assert clocks[0].now_ms >= off_grid - 0.1

    asyncio.run(main())
