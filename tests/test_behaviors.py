"""Caller behaviours (``+behavior=backchannel|vocal_tics|side_speech``): seeded, in the caller's voice, on the effect
timeline with their kind and times; over an in-process agent (which may hear them through ``hear_overlap``) and a
wire agent (measured on its audio). Real calls through the loop: tone voices here, eSpeak and Whisper in the slow
ones (the reference agent, a cell)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.server import serve

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.call import CallOutcome, CallSettings, RealClock, TurnBasedSession, VirtualClock, run_call
from evalkit.call.behaviors import BehaviorChannel, BehaviorPlanner, BehaviorSession, voiced_segments, with_tic
from evalkit.call.channel import UserSpeech, audio_frames
from evalkit.config.behavior import BehaviorConfig
from evalkit.config.schema import ConfigError
from evalkit.records import AudioClip
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.server import url_of
from tests.test_axes import composed
from tests.test_call_loop import RATE, ScriptCaller, context, tone

ROOT = Path(__file__).resolve().parent.parent
SENTENCE_MS, PAUSE_MS = 1500.0, 400.0
KINDS = ("backchannel", "vocal_tic", "side_speech")


class LoudToneChannel:
    """Every utterance (and every phrase) is a tone as long as its words (150 ms each) at 0.2 full scale."""

    def say(self, text: str, index: int, start_ms: float) -> UserSpeech:
        samples = (2.0 * tone(150.0 * len(text.split()), 300.0)).astype(np.float32)
        return UserSpeech(
            start_ms=start_ms,
            end_ms=start_ms + len(samples) / RATE * 1000.0,
            frames=lambda frame_ms: audio_frames(samples, RATE, frame_ms),
        )


class TwoSentenceAgent:
    """Answers every turn with two sentence-equivalents of tone (a pause between them); ``hear_overlap`` (when
    ``decides`` is given) says whether it keeps talking, and records what it was asked."""

    def __init__(self, decides: bool | None = None) -> None:
        self.heard: list[tuple[float, float]] = []  # (at_ms, clip ms) of each overlap it heard
        if decides is not None:
            self.hear_overlap = self._hear(decides)

    def _hear(self, decides: bool) -> Any:
        def hear(clip: AudioClip, at_ms: float) -> bool:
            self.heard.append((at_ms, clip.duration_s * 1000.0))
            return decides

        return hear

    def _reply(self) -> AgentReply:
        audio = np.concatenate(
            [tone(SENTENCE_MS), np.zeros(int(RATE * PAUSE_MS / 1000), np.float32), tone(SENTENCE_MS)]
        )
        text = "Let me look that up for you now. What else can I do?"
        return AgentReply(text=text, audio=AudioClip(samples=audio, sample_rate=RATE), compute_ms=50.0)

    def start(self, ctx: AgentContext) -> AgentReply:
        return self._reply()

    def respond(self, clip: AudioClip) -> AgentReply:
        return self._reply()


def config(kind: str, **overrides: Any) -> BehaviorConfig:
    return BehaviorConfig(**{"name": kind, "type": kind, "rate": 1.0, **overrides})


def in_process_call(behavior: BehaviorConfig, agent: Any, seed: int = 0) -> tuple[CallOutcome, BehaviorPlanner]:
    planner = BehaviorPlanner(behavior, np.random.default_rng(seed))
    clock = VirtualClock()
    channel = BehaviorChannel(LoudToneChannel(), planner)
    session = BehaviorSession(TurnBasedSession(agent, clock), planner, clock)
    caller = ScriptCaller(["my code is W, K, 2, E, X, B please", "it was on the 14th of March"])
    outcome = asyncio.run(run_call(caller, session, channel, context(), clock, CallSettings()))
    outcome.audio.line += planner.clips  # as run_conversation does
    return outcome, planner


def events(outcome: CallOutcome) -> list[Any]:
    return [e for t in outcome.turns for e in t.effects if e.type in KINDS]


def line_energy(outcome: CallOutcome, start_ms: float, end_ms: float) -> float:
    """The caller line's mean power over a window (what user_heard holds between utterances)."""
    total = np.zeros(int(RATE * (outcome.turns[-1].end_ms + 2000) / 1000), np.float32)
    for at, clip in outcome.audio.line:
        i = int(at / 1000 * RATE)
        total[i : i + len(clip.samples)] += clip.samples[: max(0, len(total) - i)]
    window = total[int(start_ms / 1000 * RATE) : int(end_ms / 1000 * RATE)]
    return float(np.mean(window.astype(np.float64) ** 2)) if window.size else 0.0


def test_backchannels_are_seeded_timed_inside_a_sentence_not_the_last_and_audible() -> None:
    outcome, planner = in_process_call(config("backchannel"), TwoSentenceAgent())
    again, _ = in_process_call(config("backchannel"), TwoSentenceAgent())
    other, _ = in_process_call(config("backchannel"), TwoSentenceAgent(), seed=1)
    found = events(outcome)
    assert len(found) == 3  # rate 1: every agent turn (greeting and two replies)
    assert [(e.start_ms, e.params["phrase"]) for e in found] == [
        (e.start_ms, e.params["phrase"]) for e in events(again)
    ]
    assert [e.start_ms for e in found] != [e.start_ms for e in events(other)]  # the call's seeds decide
    for e in found:
        turn = outcome.turns[e.turn]
        assert turn.role == "assistant" and e.type == "backchannel" and e.participant == "user"
        # inside the first sentence-equivalent (never the last), in the caller's voice for the phrase's length
        assert turn.start_ms < e.start_ms < turn.start_ms + SENTENCE_MS
        assert e.end_ms - e.start_ms == pytest.approx(150.0 * len(e.params["phrase"].split()), abs=1.0)
        assert e.params["during"] == "agent_speech" and e.params["yielded"] is False  # no hook: it keeps talking
        assert turn.end_ms == pytest.approx(turn.start_ms + 2 * SENTENCE_MS + PAUSE_MS)
        # audible on the caller's line at its time, silence just before it
        assert line_energy(outcome, e.start_ms, e.end_ms) > 1e-3 > line_energy(outcome, e.start_ms - 100, e.start_ms)
    assert planner.count == 3


def test_an_agent_that_hears_the_overlap_keeps_talking_or_yields_where_it_ends() -> None:
    keeps = TwoSentenceAgent(decides=True)
    outcome, _ = in_process_call(config("backchannel"), keeps)
    assert keeps.heard and all(e.params["yielded"] is False for e in events(outcome))
    yields = TwoSentenceAgent(decides=False)
    outcome, _ = in_process_call(config("backchannel"), yields)
    for e in events(outcome):
        turn = outcome.turns[e.turn]
        assert e.params["yielded"] is True and turn.end_ms == pytest.approx(e.end_ms, abs=1.0)
        assert turn.end_ms == pytest.approx(e.params["agent_stop_ms"], abs=1.0)
        assert "What else" not in turn.intended_text  # the rest was never said
    assert [round(at) for at, _ in yields.heard] == [
        round(e.start_ms - outcome.turns[e.turn].start_ms) for e in events(outcome)
    ]


def test_side_speech_is_quieter_by_level_db_over_the_agent_and_in_gaps() -> None:
    outcome, planner = in_process_call(config("side_speech", level_db=12.0, during="any"), TwoSentenceAgent(), seed=0)
    found = events(outcome)
    assert {e.params["during"] for e in found} == {"agent_speech", "gap"}, [e.params for e in found]
    caller_power = float(np.mean((2.0 * tone(150.0, 300.0)).astype(np.float64) ** 2))
    for (at, clip), e in zip(
        sorted(planner.clips, key=lambda c: c[0]), sorted(found, key=lambda e: e.start_ms), strict=True
    ):
        assert at == pytest.approx(e.start_ms)
        below = 10 * np.log10(caller_power / float(np.mean(clip.samples.astype(np.float64) ** 2)))
        assert below == pytest.approx(12.0, abs=0.2)
        if e.params["during"] == "gap":  # before the caller's turn, which starts after it
            turn = outcome.turns[e.turn]
            assert turn.role == "user" and e.params["yielded"] is None and e.end_ms < turn.start_ms
        else:
            assert outcome.turns[e.turn].role == "assistant" and e.params["yielded"] is False


def test_vocal_tics_say_the_wrong_value_then_the_right_one_and_keep_the_intended_text() -> None:
    table = {"fillers": ["um"], "correction": ["{wrong}, sorry, I mean {right}"]}
    rng = np.random.default_rng(0)
    spoken, tic = with_tic("My code is W, K, 2, E, X, B please", rng, table)
    assert spoken == "My code is W, K, 3, E, X, B, sorry, I mean W, K, 2, E, X, B please"
    assert tic["kind"] == "self_correction" and (tic["wrong"], tic["right"]) == ("W, K, 3, E, X, B", "W, K, 2, E, X, B")
    spoken, tic = with_tic("it was on the 14th of March", rng, table)
    assert spoken.rindex("14th") > spoken.index("15th")  # the right value is said last: the intended final value
    spoken, tic = with_tic("yes that is right", rng, table)
    assert tic["kind"] == "filler" and "um, " in spoken and not spoken.startswith("um")
    outcome, _ = in_process_call(config("vocal_tics"), TwoSentenceAgent())
    tics = events(outcome)
    assert len(tics) == 2
    for e in tics:
        turn = outcome.turns[e.turn]
        assert turn.role == "user" and e.type == "vocal_tic" and e.params["during"] == "own_turn"
        assert e.params["yielded"] is None and turn.start_ms <= e.start_ms < e.end_ms <= turn.end_ms
        assert e.params["right"] in turn.intended_text and e.params["wrong"] not in turn.intended_text
        assert (
            e.params["spoken"]
            .rstrip(" .")
            .endswith(turn.intended_text.split(e.params["right"])[1].strip() or e.params["right"])
        )
        # the caller said the longer text: its turn lasts as long as the spoken words
        assert turn.end_ms - turn.start_ms == pytest.approx(150.0 * len(e.params["spoken"].split()), abs=1.0)


def test_a_rate_outside_0_1_or_a_negative_level_is_one_error_line() -> None:
    assert composed("+behavior=backchannel").behavior.type == "backchannel"
    for override, field in (("behavior.rate=1.5", "behavior.rate"), ("behavior.level_db=-3", "behavior.level_db")):
        with pytest.raises(ConfigError) as error:
            composed("+behavior=side_speech", override)
        problems = [line for line in str(error.value).splitlines()[1:] if line.strip()]
        assert len(problems) == 1 and problems[0].strip().startswith(field), str(error.value)


def test_voiced_segments_split_at_pauses_of_a_quarter_second() -> None:
    gap = np.zeros(int(RATE * 0.3), np.float32)
    short = np.zeros(int(RATE * 0.1), np.float32)
    clip = np.concatenate([tone(500), short, tone(500), gap, tone(500)])
    segments = voiced_segments(clip, RATE)
    assert len(segments) == 2 and segments[0][1] == pytest.approx(1100, abs=20)


# -- the reference agent's overlap policy (evalkit.agents.reference.overlap): duration and content of what it heard


@pytest.mark.parametrize(
    ("heard", "voiced", "keeps"),
    [
        ("", 900.0, True),  # nothing intelligible
        ("Okay.", 400.0, True),  # acknowledgements
        ("I see.", 500.0, True),
        ("Okay, okay, yeah, sure, right.", 1600.0, True),  # long, but only acknowledgement words
        ("your", 260.0, True),  # brief and asks for nothing: a sound it cannot place is talked through
        ("and the MHCM.", 760.0, True),
        ("Wait.", 200.0, False),  # a stop or hold request, however short
        ("Stop!", 400.0, False),
        ("Hold on.", 500.0, False),
        ("No.", 300.0, False),  # a negation or repair
        ("Sorry?", 380.0, False),
        ("What?", 240.0, False),  # a question: an opening question word or a question mark
        ("Is it refundable", 900.0, False),
        ("Right?", 300.0, False),
        ("I know, let's move on.", 1800.0, False),  # as long as a turn: a turn, whatever it says
        ("and the MHCM.", 1200.0, False),
        ("Noted, thanks.", 700.0, True),  # "no" is a whole word: "noted", "I know" are not negations
        ("I know.", 400.0, True),
    ],
)
def test_the_reference_agent_yields_to_a_request_or_a_turn_and_talks_through_brief_overlaps(
    heard: str, voiced: float, keeps: bool
) -> None:
    from evalkit.agents.reference.overlap import Overlap, keeps_talking

    assert keeps_talking(Overlap(heard, voiced, -20.0, -20.0)) is keeps


def test_an_aside_well_below_the_callers_level_is_talked_through_whatever_it_says() -> None:
    from evalkit.agents.reference.overlap import ASIDE_BELOW_CALLER_DB, Overlap, keeps_talking

    aside = "Hang on, I'm on the phone."
    assert keeps_talking(Overlap(aside, 1500.0, -32.0, -20.0)) is True  # 12 dB down: to someone in the room
    assert keeps_talking(Overlap(aside, 1500.0, -20.0 - ASIDE_BELOW_CALLER_DB + 1.0, -20.0)) is False
    assert keeps_talking(Overlap(aside, 1500.0, -32.0, None)) is False  # no caller turn heard yet: no reference


def test_voiced_ms_spans_the_speech_not_its_silence_or_the_bed_under_it() -> None:
    from evalkit.agents.reference.overlap import voiced_ms

    silence = np.zeros(int(RATE * 0.3), np.float32)
    assert voiced_ms(np.concatenate([silence, tone(400), silence]), RATE) == pytest.approx(400.0, abs=40.0)
    # a pause inside counts (one utterance), a noise bed 17 dB under the speech does not
    speech = np.concatenate([silence, tone(300), silence, tone(300), silence])
    bed = 0.01 * np.random.default_rng(0).standard_normal(len(speech)).astype(np.float32)
    assert voiced_ms(speech + bed, RATE) == pytest.approx(900.0, abs=60.0)
    assert voiced_ms(np.zeros(RATE, np.float32), RATE) == 0.0


# -- over the wire: a phone bot that sends no transcript --------------------------------------------------------


async def behavior_call_to_wire_bot(handler: Any, planner: BehaviorPlanner, lines: list[str]) -> CallOutcome:
    """A scripted caller saying ``lines`` with ``planner``'s behaviour, on a real clock, to a transcript-less Twilio
    bot (``handler``) served on 127.0.0.1 that waits for the caller to speak first."""
    async with serve(handler, "127.0.0.1", 0) as server:
        agent = TwilioWsConfig(
            name="bot", url=url_of(server), take_turn_after_silence_ms=600.0, transcribe_agent="never",
            speech_events=False, first_speaker="caller", tools="none",
        ).build()  # fmt: skip
        clock = RealClock()
        settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
        session = BehaviorSession(agent.session(clock), planner, clock)
        channel = BehaviorChannel(LoudToneChannel(), planner)
        return await run_call(ScriptCaller(lines), session, channel, context(), clock, settings)


@pytest.mark.slow
@pytest.mark.parametrize("yields", [True, False])
def test_a_backchannel_reaches_a_transcript_less_wire_agent_and_is_recorded(yields: bool) -> None:
    from tests.test_wire_interrupt import SentenceBot, reply_ms

    bot = SentenceBot(sentences=3, yields=yields)
    planner = BehaviorPlanner(config("backchannel"), np.random.default_rng(0))

    outcome = asyncio.run(behavior_call_to_wire_bot(bot.handler, planner, ["one two three"]))
    assert outcome.end_reason == "user_end_call", outcome.error
    [effect] = events(outcome)
    agent = outcome.turns[effect.turn]
    assert agent.role == "assistant" and effect.type == "backchannel" and effect.params["measured"] == "wire"
    assert bot.heard_over_it == 1  # the bot's own VAD heard the caller over its speech
    # after its first sentence-equivalent, while it talked
    assert agent.start_ms + reply_ms(1) < effect.start_ms < agent.start_ms + reply_ms(3)
    # measured on its audio: it fell silent right after the phrase (yielded), or talked to the end of its reply
    assert effect.params["yielded"] is yields
    voice_end = effect.params["agent_voice_end_ms"]
    assert voice_end < effect.end_ms + 500.0 if yields else voice_end > agent.start_ms + reply_ms(3) - 100.0
    assert planner.clips == [(effect.start_ms, planner.clips[0][1])]


def stretches(levels: list[float], floor_dbfs: float = -45.0) -> list[tuple[int, int, float]]:
    """(first frame, frames, median level) of each run of 20 ms frames at or above ``floor_dbfs``."""
    runs: list[tuple[int, int, float]] = []
    start = None
    for i, level in enumerate([*levels, -120.0]):
        if level >= floor_dbfs and start is None:
            start = i
        elif level < floor_dbfs and start is not None:
            runs.append((start, i - start, float(np.median(levels[start:i]))))
            start = None
    return runs


@pytest.mark.slow
def test_side_speech_in_a_gap_reaches_a_wire_agent_before_the_callers_turn_and_is_recorded() -> None:
    """Side speech said in the gap before a caller turn goes out on the line to a real WebSocket agent: the bot
    receives it (12 dB under the caller's turns, as long as the phrase), then the 300 ms pause, then the turn; the
    effect timeline has it on that turn."""
    import base64
    import json

    from evalkit.speech.vad import level_dbfs
    from evalkit.wire.twilio_ws.codec import decode
    from tests.test_wire_interrupt import SentenceBot

    class ListeningBot(SentenceBot):
        """Keeps the level of every frame it receives (20 ms each, in order); a caller's turn ends after 600 ms
        below the level, so an aside, its pause and the turn are one stretch of input to it."""

        def __init__(self) -> None:
            super().__init__(sentences=1)
            self.levels: list[float] = []

        async def handler(self, ws: Any) -> None:
            sid, voiced, quiet, speaking = "", False, 0, None
            async for raw in ws:
                message = json.loads(raw)
                if message["event"] == "start":
                    sid = message["start"]["streamSid"]
                elif message["event"] == "media":
                    level = level_dbfs(decode(base64.b64decode(message["media"]["payload"]), "mulaw"))
                    self.levels.append(level)
                    if level >= -45.0:
                        voiced, quiet = True, 0
                    elif voiced and (quiet := quiet + 1) >= 30:
                        voiced, quiet = False, 0
                        speaking = asyncio.create_task(self.answer(ws, sid, speaking))

    bot = ListeningBot()
    behavior = config("side_speech", during="gap", level_db=12.0, max_per_call=1)
    planner = BehaviorPlanner(behavior, np.random.default_rng(0))

    outcome = asyncio.run(behavior_call_to_wire_bot(bot.handler, planner, ["one two three", "four five six"]))
    assert outcome.end_reason == "user_end_call", outcome.error
    [effect] = events(outcome)
    turn = outcome.turns[effect.turn]
    assert effect.type == "side_speech" and effect.params["during"] == "gap" and effect.params["yielded"] is None
    assert turn.role == "user" and turn.intended_text == "four five six"
    assert turn.start_ms - effect.end_ms == pytest.approx(300.0, abs=1.0)  # the caller pauses, then speaks
    phrase_ms = 150.0 * len(effect.params["phrase"].split())
    assert effect.end_ms - effect.start_ms == pytest.approx(phrase_ms, abs=1.0)
    # what the bot received, on its stream's timeline: the caller's first turn, the aside, the pause, the turn
    heard = stretches(bot.levels)
    caller_level = heard[0][2]
    asides = [i for i, (_, _, level) in enumerate(heard) if level < caller_level - 6.0]
    assert len(asides) == 1, heard
    start, frames, level = heard[asides[0]]
    assert level == pytest.approx(caller_level - 12.0, abs=2.0)
    assert frames * 20.0 == pytest.approx(phrase_ms, abs=60.0)
    after, after_frames, after_level = heard[asides[0] + 1]  # the caller's turn, at its own level
    assert (after - start - frames) * 20.0 == pytest.approx(300.0, abs=60.0)
    assert after_level == pytest.approx(caller_level, abs=1.0)
    assert after_frames * 20.0 == pytest.approx(turn.end_ms - turn.start_ms, abs=60.0)


class TwoSentenceRealtimeAgent:
    """For the Realtime test server: every turn is two sentence-equivalents of tone at 24 kHz."""

    def _reply(self, text: str) -> AgentReply:
        rate = 24_000
        pause = np.zeros(int(rate * PAUSE_MS / 1000), np.float32)
        audio = np.concatenate([_tone_at(SENTENCE_MS, rate), pause, _tone_at(SENTENCE_MS, rate)])
        return AgentReply(text=text, audio=AudioClip(samples=audio, sample_rate=rate))

    def start(self, ctx: AgentContext) -> AgentReply:
        return self._reply("Hello there. How can I help?")

    def respond(self, heard: Any) -> AgentReply:
        return self._reply("Let me check that. What else?")


def _tone_at(ms: float, rate: int) -> np.ndarray:
    t = np.arange(int(rate * ms / 1000.0)) / rate
    return (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


@pytest.mark.slow
def test_a_backchannel_over_a_realtime_agent_that_sends_ahead_of_playback_is_placed_on_its_playback() -> None:
    """The Realtime test server sends each reply at once (no pacing): the phrase is placed where the audio plays,
    after the first sentence-equivalent; the server's VAD hears it and cuts the response (this agent yields)."""
    from evalkit.wire.openai_realtime import OpenAIRealtimeConfig
    from tests.realtime_server import MODEL, RealtimeTestServer
    from tests.test_openai_realtime import airline_context

    planner = BehaviorPlanner(config("backchannel"), np.random.default_rng(0))
    with RealtimeTestServer(make_agent=lambda heard: TwoSentenceRealtimeAgent(), audio_pace=0.0) as server:
        agent = OpenAIRealtimeConfig(name="realtime", url=server.url, model=MODEL, api_key_env=None).build()
        clock = RealClock()
        settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
        session = BehaviorSession(agent.session(clock), planner, clock)
        channel = BehaviorChannel(LoudToneChannel(), planner)
        call = run_call(ScriptCaller(["one two three"]), session, channel, airline_context(), clock, settings)
        outcome = asyncio.run(call)
    assert outcome.end_reason == "user_end_call", outcome.error
    found = events(outcome)
    assert found and all(e.params["measured"] == "wire" for e in found)
    for e in found:
        turn = outcome.turns[e.turn]
        second = turn.start_ms + SENTENCE_MS + PAUSE_MS  # where its second sentence-equivalent starts playing
        assert turn.role == "assistant" and second - 60.0 <= e.start_ms <= second + 200.0
        assert e.params["yielded"] is True and turn.end_ms < turn.start_ms + 2 * SENTENCE_MS + PAUSE_MS - 500.0


@pytest.mark.slow
def test_the_reference_agent_keeps_talking_through_backchannels_and_yields_to_an_interruption() -> None:
    from evalkit.agents.reference.barge_in import active_dbfs
    from evalkit.call import run_conversation
    from evalkit.call.behaviors import attenuated
    from evalkit.call.tracks import render_tracks
    from evalkit.cell.build import build_components
    from evalkit.domains import tool_registry
    from evalkit.domains.scenarios import scenario_dir
    from evalkit.scenarios import load_scenario

    config_ = composed("persona.variation.enabled=false", "+behavior=backchannel", "behavior.rate=1.0")
    built = build_components(config_, hears_agent_audio=False)
    agent, voice, chain = built.agent, built.user_tts, built.chain
    scenario = load_scenario(scenario_dir("airline") / "AL-001.json")
    conversation, audio = run_conversation(
        scenario, 0, config_.seed, agent, tool_registry("airline"), voice, chain, behavior=config_.behavior
    )
    found = [e for t in conversation.turns for e in t.effects if e.type == "backchannel"]
    assert conversation.error is None and len(found) >= 3
    # It talks through brief overlaps that ask for nothing (agents.reference.overlap), including the one-word clips
    # its ear mishears ("sure" as "your", "mm-hm" as "and the MHCM": brief, no request in them).
    kept = [e for e in found if e.params["yielded"] is False]
    assert kept == found, [(e.params["phrase"], e.params["yielded"]) for e in found]
    tracks = render_tracks(conversation, audio, 16_000)
    for e in found:  # each backchannel is on what the agent's line carried, at its time
        window = tracks["user_heard"][int(e.start_ms * 16) : int(e.end_ms * 16)]
        assert float(np.mean(window.astype(np.float64) ** 2)) > 1e-5
    # the same agent and caller voice: a real interruption said into the phone at the caller's level makes it
    # yield; an acknowledgement, or an aside well below the caller's level, does not
    samples, rate = voice("my confirmation code is W, K, 2, E, X, B")
    agent._caller_dbfs = active_dbfs(samples, rate)  # as a caller turn it heard sets it
    said = {text: AudioClip(samples=voice(text)[0], sample_rate=voice(text)[1]) for text in ("uh-huh", "okay",
            "wait, that is not what I asked for", "hang on, I'm on the phone")}  # fmt: skip
    assert agent.hear_overlap(said["uh-huh"], 800.0) is True and agent.hear_overlap(said["okay"], 800.0) is True
    assert agent.hear_overlap(said["wait, that is not what I asked for"], 800.0) is False
    aside = said["hang on, I'm on the phone"]
    assert agent.hear_overlap(aside, 800.0) is False  # at the caller's level it is said to the agent
    assert agent.hear_overlap(attenuated(aside, 12.0), 800.0) is True  # 12 dB down: to someone in the room


def reference_call(phrase: str) -> tuple[CallOutcome, list[Any]]:
    """One in-process call of the reference agent (its own ASR and TTS), the caller's Piper voice saying ``phrase``
    over each agent turn of two sentence-equivalents or more (rate 1; the phrase table narrowed to it)."""
    from evalkit.call.channel import AudioChannel
    from evalkit.call.session import TurnBasedSession
    from evalkit.cell.build import build_components
    from evalkit.domains import tool_registry
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.scenarios import scenario_dir
    from evalkit.scenarios import load_scenario

    built = composed("persona.variation.enabled=false", "+behavior=backchannel", "behavior.rate=1.0")
    parts = build_components(built, hears_agent_audio=False)
    agent, voice, chain = parts.agent, parts.user_tts, parts.chain
    scenario = load_scenario(scenario_dir("airline") / "AL-001.json")
    planner = BehaviorPlanner(built.behavior, np.random.default_rng(0))
    planner.table = {"backchannel": [phrase]}
    clock = VirtualClock()
    channel = BehaviorChannel(AudioChannel(voice.for_scenario(scenario), chain, 0, (scenario.id, 0)), planner)
    session = BehaviorSession(TurnBasedSession(agent, clock), planner, clock)
    tools = ToolBox(ToolExecutor(tool_registry("airline"), scenario.scenario_db))
    ctx = AgentContext(scenario.domain, scenario.current_date_time, tools, scenario_id=scenario.id, seed=0)
    caller = ScriptCaller(["Hi, I need to change my flight, please."])
    outcome = asyncio.run(run_call(caller, session, channel, ctx, clock, CallSettings()))
    assert outcome.error is None, outcome.error
    return outcome, events(outcome)


@pytest.mark.slow
def test_in_a_call_the_reference_agent_talks_through_a_backchannel_and_yields_to_an_interruption() -> None:
    """The same call twice, through the harness: "mm-hm" (which Whisper tiny.en hears as a few words it cannot
    place) is talked through; the caller's interjection of a real interruption (+interrupt=normal's) cuts the turn
    where it ends."""
    from evalkit.simulator.interjections import phrases as interjections

    outcome, found = reference_call("mm-hm")
    assert found and all(e.params["yielded"] is False and e.params["measured"] == "in_process" for e in found)
    for e in found:  # its turn went on to its end, past the phrase
        assert outcome.turns[e.turn].end_ms > e.end_ms + 500.0
    question = interjections()["normal"][1]  # "Wait, one second, will I get an email about this?"
    outcome, found = reference_call(question)
    assert found and all(e.params["yielded"] is True for e in found)
    for e in found:  # cut where the interjection ended: the rest of its turn never said
        turn = outcome.turns[e.turn]
        assert turn.end_ms == pytest.approx(e.end_ms, abs=1.0) == pytest.approx(e.params["agent_stop_ms"], abs=1.0)


@pytest.mark.slow
def test_the_cli_refuses_a_behaviour_rate_outside_0_1_in_one_line(tmp_path: Path) -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "evalkit", "+experiment=smoke", "+behavior=backchannel", "behavior.rate=2"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert bad.returncode != 0
    lines = [line for line in bad.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "behavior.rate" in lines[0], bad.stderr
