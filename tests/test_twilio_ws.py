"""The ``twilio_ws`` wire agent (issue 13): G.711 μ-law, a call to a third-party-shaped agent server over a real
WebSocket on 127.0.0.1 with the call loop on a real clock, the wire faults as infrastructure failures, and evalkit's
reference server (robust to bad frames)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosedError

from evalkit.call import CallOutcome, CallSettings, RealClock, run_call
from evalkit.cell import plan_cell, run_cell_conversations
from evalkit.config.schema import validate_config
from evalkit.domains import tool_registry
from evalkit.domains.base import ToolExecutor
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.codec import decode, encode, mulaw_decode, mulaw_encode, resample
from evalkit.wire.twilio_ws.server import ReferenceServer, url_of
from tests.conftest import REPO
from tests.test_call_loop import EchoAgent, ScriptCaller, ToneChannel, context
from tests.test_config import composed

ROOT = Path(__file__).resolve().parent.parent

RATE = 8000
FRAME = 160  # 20 ms of μ-law at 8 kHz
FRAME_MS = 20.0


def test_mulaw_is_bit_exact_with_the_g711_reference() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        audioop = pytest.importorskip("audioop")  # gone in 3.13: the reference this codec replaces
    pcm = np.arange(-32768, 32768, dtype=np.int16)
    assert mulaw_encode(pcm / 32768.0) == audioop.lin2ulaw(pcm.tobytes(), 2)
    codes = bytes(range(256))
    expected = np.frombuffer(audioop.ulaw2lin(codes, 2), dtype=np.int16) / 32768.0
    assert np.array_equal(mulaw_decode(codes), expected.astype(np.float32))


def test_mulaw_of_float32_frames_is_the_float64_code() -> None:
    # the per-frame path works in float32: every 16-bit value, the half-steps between them (rounding to even) and
    # values beyond full scale (clipped) give the codes the float64 path gives
    pcm = np.arange(-32768 * 2, 32768 * 2 + 1) / 2.0
    x = np.concatenate([pcm / 32768.0, [1.5, -1.5, 3.0, -3.0]])
    assert mulaw_encode(x.astype(np.float32)) == mulaw_encode(x.astype(np.float32).astype(np.float64))
    assert mulaw_encode(x[:1000].tolist()) == mulaw_encode(x[:1000])  # a plain list is still taken


def test_a_callers_media_text_is_what_the_json_encoder_writes() -> None:
    from evalkit.wire.twilio_ws import protocol

    payload = encode(np.linspace(-0.5, 0.5, FRAME, dtype=np.float32), "mulaw")
    b64 = base64.b64encode(payload).decode("ascii")
    for seq, chunk, ts in ((3, 1, 0), (1234567, 99999, 86_400_000)):
        expected = protocol.dumps(protocol.media("MZ" + "0f" * 16, payload, seq, chunk, ts))
        assert protocol.caller_media_json("MZ" + "0f" * 16, b64, seq, chunk, ts) == expected
        assert json.loads(expected)["media"]["payload"] == b64


def test_a_read_only_silence_frame_is_encoded_once_and_a_writable_frame_every_time() -> None:
    from evalkit.call.events import Frame
    from evalkit.wire.twilio_ws.client import TwilioCallerSession

    session = TwilioCallerSession(TwilioWsConfig(name="t", url="ws://127.0.0.1:1"), RealClock())
    silence = np.zeros(320, dtype=np.float32)
    silence.flags.writeable = False
    first = session._payload(Frame(samples=silence, sample_rate=16_000, fill=True))
    assert session._payload(Frame(samples=silence, sample_rate=16_000, fill=True)) is first  # not re-encoded
    assert base64.b64decode(first) == b"\xff" * FRAME  # G.711 silence at the wire rate
    loud = np.full(320, 0.5, dtype=np.float32)  # writable: may change between frames, never cached
    before = session._payload(Frame(samples=loud, sample_rate=16_000))
    loud[:] = -0.5
    assert session._payload(Frame(samples=loud, sample_rate=16_000)) != before
    assert session._payload(Frame(samples=silence, sample_rate=16_000, fill=True)) is first


def test_mulaw_round_trip_keeps_speech_within_its_quantisation_step() -> None:
    t = np.arange(RATE) / RATE
    x = (0.3 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)
    y = decode(encode(x, "mulaw"), "mulaw")
    assert len(encode(x[:FRAME], "mulaw")) == FRAME  # one byte per sample: 20 ms = 160 bytes
    assert np.max(np.abs(y - x)) < 0.3 * 2**-5  # μ-law keeps ~5 bits of relative precision
    assert mulaw_encode(np.zeros(1)) == b"\xff"  # G.711 silence
    assert np.allclose(decode(encode(x, "pcm16"), "pcm16"), x, atol=1 / 32768)


def test_a_20ms_frame_stays_20ms_at_the_wire_rate() -> None:
    for rate in (16_000, 22_050, 24_000):
        assert resample(np.zeros(rate // 50, dtype=np.float32), rate, RATE).size == FRAME


# -- a third-party-shaped agent server -----------------------------------------------------------------------


def tone_bytes(ms: float, amplitude: float = 0.2) -> bytes:
    t = np.arange(int(RATE * ms / 1000)) / RATE
    return encode((amplitude * np.sin(2 * np.pi * 440 * t)).astype(np.float32), "mulaw")


class ToneAgentServer:
    """Written as an agent server would be (EVA-Bench's contract, Twilio framing), knowing nothing of evalkit:
    greets with a tone, answers each ``user_speech_stop`` with tone, a 200 ms pause, tone, paced at 20 ms; keeps
    everything it receives, and when it sent each frame of each utterance (``sent``)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.sent: list[list[float]] = []  # per utterance: when each frame went out (seconds, perf_counter)

    async def speak(self, ws: ServerConnection, sid: str, audio: bytes) -> None:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        sent: list[float] = []
        self.sent.append(sent)
        for n, i in enumerate(range(0, len(audio), FRAME)):  # paced on a schedule, as the contract asks
            await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
            payload = base64.b64encode(audio[i : i + FRAME]).decode()
            await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
            sent.append(time.perf_counter())
        await ws.send(json.dumps({"event": "mark", "streamSid": sid, "mark": {"name": "said"}}))

    def played_ms(self, utterance: int) -> float:
        """How long the utterance takes to hear in real time as it was actually sent: each 20 ms frame plays once it
        has been sent and the one before has played. On an idle machine that is its audio's length; on a loaded one
        the server's own pacing slips (the event loop it shares with the caller runs late) and the turn the caller
        records is rightly that much longer: the quantity to compare a turn's length with, not the audio's length."""
        sent = self.sent[utterance]
        end = sent[0]
        for at in sent:
            end = max(at, end) + FRAME_MS / 1000.0
        return (end - sent[0]) * 1000.0

    async def handler(self, ws: ServerConnection) -> None:
        sid = ""
        async for raw in ws:
            message = json.loads(raw)
            self.received.append(message)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                await self.speak(ws, sid, tone_bytes(400))
            elif message["event"] == "user_speech_stop":
                await self.speak(ws, sid, tone_bytes(300) + encode(np.zeros(1600), "mulaw") + tone_bytes(300))

    def events(self, name: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m["event"] == name]


Handler = Callable[[ServerConnection], Awaitable[None]]


def call_through(handler: Handler, lines: list[str], **config: Any) -> CallOutcome:
    """One call of the loop on a real clock through a twilio_ws session to a server running ``handler``."""

    async def main() -> CallOutcome:
        async with serve(handler, "127.0.0.1", 0) as server:
            return await dial(url_of(server), lines, **config)

    return asyncio.run(main())


async def dial(url: str, lines: list[str], **config: Any) -> CallOutcome:
    config.setdefault("transcribe_agent", "never")  # tones: nothing to hear (tests/test_wire_hearing.py hears words)
    agent = TwilioWsConfig(name="wire", url=url, take_turn_after_silence_ms=300.0, **config).build()
    clock = RealClock()
    settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
    ctx = context()
    ctx.scenario_id = "AL-TEST"
    return await run_call(ScriptCaller(lines), agent.session(clock), ToneChannel(), ctx, clock, settings)


def test_a_call_to_a_third_party_agent_server_records_both_sides_on_the_call_clock() -> None:
    server = ToneAgentServer()
    outcome = call_through(server.handler, ["one two three"])
    assert outcome.end_reason == "user_end_call", outcome.error
    assert [t.role for t in outcome.turns] == ["assistant", "user", "assistant", "user"]
    greeting, user, reply, _bye = outcome.turns
    assert 0.0 < greeting.start_ms < 300.0  # the agent speaks first, as soon as the call is up
    # the turns last as long as their audio took to play as the server sent it (its own record: on a loaded machine
    # its 20 ms pacing slips), which is its length (400 ms; 800 ms for the reply) give or take that slip
    assert greeting.end_ms - greeting.start_ms == pytest.approx(server.played_ms(0), abs=60.0)
    # the caller reacts (100 ms) once it has decided the agent is done: 300 ms of silence after its audio (a busy
    # machine wakes the caller late, never early: the margin above is the wider one; taking the turn a window or a
    # reaction late would still fail)
    assert greeting.end_ms + 400.0 - 40.0 <= user.start_ms <= greeting.end_ms + 400.0 + 80.0
    assert user.end_ms - user.start_ms == pytest.approx(300.0, abs=1.0)  # three words of tone
    assert user.end_ms < reply.start_ms < user.end_ms + 300.0
    # one turn across the 200 ms pause (shorter than take_turn_after_silence_ms): on the timeline, not in the clip
    assert reply.end_ms - reply.start_ms == pytest.approx(server.played_ms(1), abs=80.0)
    assert len(outcome.audio.clips[(2, "assistant")].samples) == pytest.approx(0.6 * RATE, abs=2 * FRAME)
    # what the agent server saw: Twilio's caller messages in order, 20 ms μ-law frames, EVA's speech events
    kinds = [m["event"] for m in server.received if m["event"] not in ("media", "mark")]
    assert kinds == ["connected", "start", "user_speech_start", "user_speech_stop", "stop"]
    start = server.events("start")[0]["start"]
    assert start["mediaFormat"] == {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}
    assert start["customParameters"]["scenario_id"] == "AL-TEST" and start["customParameters"]["session_id"]
    # a continuous line (issue 26): a 20 ms frame every 20 ms from the start to the hang-up, silence between the
    # caller's words; its speech is the 15 frames between its speech events
    media = server.events("media")
    assert all(len(base64.b64decode(m["media"]["payload"])) == FRAME for m in media)
    assert [int(m["media"]["chunk"]) for m in media] == list(range(1, len(media) + 1))
    stamps = [int(m["media"]["timestamp"]) for m in media]
    assert stamps == sorted(stamps) and stamps[-1] - stamps[0] == pytest.approx(20 * (len(media) - 1), abs=40)
    assert stamps[-1] >= user.end_ms - 40  # the line stayed open through the agent's reply
    first, last = (server.received.index(server.events(e)[0]) for e in ("user_speech_start", "user_speech_stop"))
    spoken = [m for m in server.received[first:last] if m["event"] == "media"]
    assert len(spoken) == 15
    assert stamps[[m["media"]["chunk"] for m in media].index(spoken[0]["media"]["chunk"])] == pytest.approx(
        user.start_ms, abs=60
    )  # the timeline's start of the caller's turn is when its first frame went out (the stamps keep the 20 ms grid;
    # a loaded machine sends a frame late by up to a few frames: 41 ms measured at load average 10)
    silence = [m for m in media if m not in spoken]
    assert silence and all(set(base64.b64decode(m["media"]["payload"])) == {0xFF} for m in silence)  # G.711 zero
    assert [m["mark"]["name"] for m in server.events("mark")] == ["said", "said"]  # echoed once played


def test_a_refused_connection_is_an_infrastructure_failure_with_its_reason() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    outcome = asyncio.run(dial(f"ws://127.0.0.1:{port}", ["hi"]))
    assert outcome.end_reason == "error" and outcome.turns == []
    assert outcome.error.startswith("WireError: could not connect to ws://127.0.0.1:")


async def malformed(ws: ServerConnection) -> None:
    async for raw in ws:
        if json.loads(raw)["event"] == "start":
            await ws.send("{not json")


async def hangs_up_abruptly(ws: ServerConnection) -> None:
    async for raw in ws:
        if json.loads(raw)["event"] == "start":
            ws.transport.abort()  # no closing handshake: a dropped call


async def silent(ws: ServerConnection) -> None:
    async for _ in ws:
        pass


@pytest.mark.parametrize(
    ("handler", "reason"),
    [
        (malformed, "WireError: the agent sent malformed JSON"),
        (hangs_up_abruptly, "WireError: the agent disconnected mid-call"),
        (
            silent,  # one line naming the waits tried: the greeting wait, then the answer to the caller's line
            "AgentTimeout: the agent never spoke: no greeting within greeting_wait_s=3 s, then the agent sent "
            "nothing for 0.5 s",
        ),
    ],
)
def test_wire_faults_end_the_call_as_an_error_with_a_reason(handler: Handler, reason: str) -> None:
    outcome = call_through(handler, ["hi"], response_timeout_s=0.5)
    assert outcome.end_reason == "error"
    assert outcome.error is not None and outcome.error.startswith(reason), outcome.error


def test_auth_headers_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    config = TwilioWsConfig(name="wire", headers={"X-Client": "evalkit"}, headers_from_env={"Authorization": "TOK"})
    with pytest.raises(RuntimeError, match="TOK"):
        config.resolved_headers()
    monkeypatch.setenv("TOK", "Bearer s3cret")
    assert config.resolved_headers() == {"X-Client": "evalkit", "Authorization": "Bearer s3cret"}
    assert "s3cret" not in config.model_dump_json()


# -- evalkit's reference server -----------------------------------------------------------------------------


def test_the_reference_server_survives_bad_frames_and_serves_the_next_call() -> None:
    reference = ReferenceServer(lambda: EchoAgent(reply_ms=400.0), port=0, max_message_bytes=64 * 1024)

    async def main() -> tuple[CallOutcome, list[str]]:
        stop = asyncio.Event()
        urls: list[str] = []
        serving = asyncio.create_task(reference.serve_until(stop, urls.append))
        while not urls:
            await asyncio.sleep(0.01)
        async with connect(urls[0]) as ws:  # garbage, then a real start: the call goes on
            await ws.send("{not json")
            await ws.send(b"\x00\x01binary")
            await ws.send(json.dumps({"event": "start", "start": {"streamSid": "MZ1", "customParameters": {}}}))
            seen = [json.loads(await ws.recv())["event"] for _ in range(3)]
        async with connect(urls[0], max_size=None) as ws:  # an oversize frame closes that call only
            await ws.send("x" * (128 * 1024))
            with pytest.raises(ConnectionClosedError, match="1009"):  # message too big
                await asyncio.wait_for(ws.recv(), 2.0)
        outcome = await dial(urls[0], ["one two"])
        stop.set()
        await serving
        return outcome, seen

    outcome, seen = asyncio.run(main())
    assert seen == ["evalkit_transcript", "media", "media"]  # no tool endpoint: the agent runs without tools
    assert outcome.end_reason == "user_end_call", outcome.error
    assert [t.role for t in outcome.turns] == ["assistant", "user", "assistant", "user"]
    assert outcome.turns[2].intended_text == "you said 1600 samples"  # 200 ms of caller audio at 8 kHz
    assert outcome.turns[1].heard_text == "1600 samples"
    assert reference.calls == 3


def test_the_reference_server_takes_the_turn_by_silence_without_speech_events() -> None:
    reference = ReferenceServer(lambda: EchoAgent(reply_ms=300.0), port=0, take_turn_after_silence_ms=300.0)
    outcome = serve_and_dial(reference, ["one two three"], speech_events=False)
    assert outcome.end_reason == "user_end_call", outcome.error
    assert outcome.turns[1].heard_text == "2400 samples"  # the whole turn, cut by 300 ms without media


# -- the reference server with the embedded cascade, a real scenario through the cell ------------------------


@pytest.fixture(scope="module")
def served_cascade() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m evalkit.serve agent=cascade_local`` on a free port; its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit.serve", "--port", "0", "agent=cascade_local"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("evalkit.serve: agent cascade_local on ws://127.0.0.1:"), line
    yield process, line.split(" on ")[1].strip()
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_a_scenario_through_the_wire_to_the_served_cascade(
    served_cascade: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    process, url = served_cascade
    config = validate_config(
        composed(
            "agent=twilio_ws",
            f"agent.url={url}",
            "domain.scenarios=[AL-005]",
            "trials=1",
            "progress=false",
            "metrics=[task_completion]",
            # The decision tree's own words at the voice's own rate (issue 17 made trials vary): this checks the
            # wire, and with a varied caller whether the lookup succeeds is up to what Whisper hears of the name.
            "persona.variation.enabled=false",
        )
    )
    [record] = run_cell_conversations(plan_cell(config), tmp_path, log_audio=False)
    conversation = record.conversation
    assert conversation.end_reason in ("agent_end_call", "user_end_call"), conversation.error
    users = [t for t in conversation.turns if t.role == "user" and t.heard_text is not None]
    agents = [t for t in conversation.turns if t.role == "assistant"]
    assert users and all(t.heard_text for t in users)  # the served agent's ASR, reported over the wire
    assert all(a.intended_text for a in agents)
    calls = [c for t in agents for c in t.tool_calls]
    # made at the harness's tool endpoint and recorded by the harness, whatever Whisper heard over μ-law: a lookup with
    # a misheard name is a recorded failure (an error result for the agent), not a lost call
    assert calls and calls[0].name == "get_reservation"
    assert all(c.ok or "error" in json.dumps(c.result).lower() for c in calls)
    # the harness's DB is exactly what the recorded calls did to it, and task completion is scored on it
    replayed = ToolExecutor(tool_registry("airline"), conversation.initial_db)
    assert [replayed.call(c.name, c.arguments) for c in calls] == [c.result for c in calls]
    assert replayed.db == conversation.final_db
    assert record.metrics["task_completion"].score is not None
    starts = [t.start_ms for t in conversation.turns]
    assert starts == sorted(starts)  # one real-clock timeline
    # SIGTERM: the server closes its calls and exits cleanly
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 0 and "stopped after 1 call(s)" in out


def burst_then(after_s: float, then: str | None) -> Handler:
    """An agent that answers with 2 s of audio sent at once (faster than real time), then ``then`` after_s later."""

    async def handler(ws: ServerConnection) -> None:
        sid = ""
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] == "start":
                sid = message["start"]["streamSid"]
                await ToneAgentServer().speak(ws, sid, tone_bytes(200))
            elif message["event"] == "user_speech_stop":
                audio = tone_bytes(2000)
                for i in range(0, len(audio), FRAME):
                    payload = base64.b64encode(audio[i : i + FRAME]).decode()
                    await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
                if then is not None:
                    await asyncio.sleep(after_s)
                    await ws.send(json.dumps({"event": then, "streamSid": sid}))

    return handler


def test_audio_sent_in_a_burst_plays_in_real_time_and_clear_drops_the_unplayed_rest() -> None:
    # Bounds on the real clock hold on a loaded 2-core machine: a late timer only lengthens a span, so each lower
    # bound is tight (a burst is never played faster than real time) and each upper bound generous.
    whole = call_through(burst_then(0.0, None), ["hi"])
    assert 1990.0 <= whole.turns[2].end_ms - whole.turns[2].start_ms <= 2600.0
    assert len(whole.audio.clips[(2, "assistant")].samples) == pytest.approx(2.0 * RATE, abs=0.03 * RATE)
    cleared = call_through(burst_then(0.5, "clear"), ["hi"])
    assert cleared.end_reason == "user_end_call", cleared.error
    reply = cleared.turns[2]
    assert 450.0 <= reply.end_ms - reply.start_ms <= 1100.0  # only what played before the clear, not the 2 s sent
    assert len(cleared.audio.clips[(2, "assistant")].samples) < 1.2 * RATE


def test_the_caller_barges_in_on_a_wire_agent() -> None:
    async def main() -> CallOutcome:
        async with serve(burst_then(0.0, None), "127.0.0.1", 0) as server:
            agent = TwilioWsConfig(
                name="wire", url=url_of(server), take_turn_after_silence_ms=300.0, transcribe_agent="never"
            ).build()
            clock = RealClock()
            settings = agent.call_settings(CallSettings(user_reaction_ms=100.0, barge_in_after_ms=400.0))
            return await run_call(ScriptCaller(["hi"]), agent.session(clock), ToneChannel(), context(), clock, settings)

    outcome = asyncio.run(main())
    assert outcome.end_reason == "user_end_call", outcome.error
    reply = outcome.turns[2]
    assert 390.0 <= reply.end_ms - reply.start_ms <= 900.0  # cut at 400 ms; a loaded machine's timer is only late
    assert [e.type for e in reply.effects] == ["barge_in"]


def test_serve_refuses_to_serve_a_wire_agent(capsys: pytest.CaptureFixture[str]) -> None:
    from evalkit.serve import main

    assert main(["--port", "0", "agent=twilio_ws"]) == 2
    assert "serves in-process agents" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--port", "70000"], "evalkit.serve: --port must be 0-65535 (0: a free port), got 70000"),
        (["--port", "0", "--take-turn-after-silence-ms", "-5"],
         "evalkit.serve: --take-turn-after-silence-ms must be positive, got -5"),
        (["--port", "0", "agent=nope"], "config error: In 'config': Could not find 'agent/nope'; Available options in "
         "'agent': cascade_local, cascade_openai, hybrid_openai, openai_realtime, twilio_ws"),
        (["--port", "0", "agent.nope=1"],
         "config error: Could not override 'agent.nope'.; To append to your config use +agent.nope=1"),
    ],
)  # fmt: skip
def test_serve_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture[str], args: list[str], line: str) -> None:
    """Issue 27 item 9: these were tracebacks (an OverflowError from bind, Hydra's composition errors)."""
    from evalkit.serve import main

    assert main(args) == 2
    assert capsys.readouterr().err.strip().splitlines() == [line]


@pytest.mark.slow
def test_serve_on_a_busy_port_is_one_line_and_exit_1() -> None:
    """A port another process holds: one line naming it, exit 1 (the input was fine; the machine said no)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.run([sys.executable, "-m", "evalkit.serve", "--port", str(port)], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"evalkit.serve: cannot listen on 127.0.0.1:{port}: ") and "address already in use" in line


@contextlib.asynccontextmanager
async def running(reference: ReferenceServer) -> AsyncIterator[str]:
    """The reference server serving on a free port for the block; its ws:// URL."""
    stop = asyncio.Event()
    urls: list[str] = []
    serving = asyncio.create_task(reference.serve_until(stop, urls.append))
    while not urls:
        await asyncio.sleep(0.01)
    try:
        yield urls[0]
    finally:
        stop.set()
        await serving


def serve_and_dial(reference: ReferenceServer, lines: list[str], **config: Any) -> CallOutcome:
    async def main() -> CallOutcome:
        async with running(reference) as url:
            return await dial(url, lines, **config)

    return asyncio.run(main())


def test_the_reference_server_speaks_the_callers_declared_format() -> None:
    """``agent.encoding=pcm16 agent.sample_rate=16000``: the served agent hears 16 kHz linear PCM, and answers in it."""
    outcome = serve_and_dial(
        ReferenceServer(lambda: EchoAgent(reply_ms=300.0), port=0), ["one two"], encoding="pcm16", sample_rate=16000
    )
    assert outcome.end_reason == "user_end_call", outcome.error
    assert outcome.turns[1].heard_text == "3200 samples"  # 200 ms at 16 kHz, not 8 kHz μ-law
    assert outcome.audio.clips[(2, "assistant")].sample_rate == 16000


def test_a_call_in_a_format_the_server_does_not_speak_ends_with_the_reason() -> None:
    reference = ReferenceServer(lambda: EchoAgent(reply_ms=300.0), port=0)

    async def main() -> str:
        async with running(reference) as url:
            async with connect(url) as ws:
                ogg = {"encoding": "audio/ogg", "sampleRate": 8000, "channels": 1}
                start = {"streamSid": "MZ1", "mediaFormat": ogg}
                await ws.send(json.dumps({"event": "start", "start": start}))
                with pytest.raises(ConnectionClosedError) as closed:
                    await asyncio.wait_for(ws.recv(), 5.0)
            outcome = await dial(url, ["one"])  # the server goes on serving
        assert outcome.end_reason == "user_end_call", outcome.error
        return str(closed.value)

    assert "unsupported audio encoding 'audio/ogg'" in asyncio.run(main())


def test_a_barge_in_delivers_what_the_agent_said_without_audio_before_its_turn_ends() -> None:
    """The agent reported its words (a transcript event) and the caller cut in before any more audio: the words
    belong to this turn, so they come out before the turn's end, not after it in the next turn."""
    from evalkit.call.events import AgentSpeech, AgentTurnEnd
    from evalkit.wire.twilio_ws.client import TwilioCallerSession

    config = TwilioWsConfig(name="wire", transcribe_agent="never", tools="none")
    session = TwilioCallerSession(config, RealClock())
    session._voiced, session._text = True, "let me check that"  # mid-turn: audio played, words reported

    async def main() -> list[object]:
        await session.interrupt()
        return [await session.receive(), await session.receive()]

    said, ended = asyncio.run(main())
    assert isinstance(said, AgentSpeech) and said.text == "let me check that"
    assert isinstance(ended, AgentTurnEnd)


def test_resampling_by_a_whole_factor_is_the_interpolation_s_values() -> None:
    """codec.resample takes every k-th sample when the rates divide (16 -> 8 kHz, every line frame): the same values
    and length as the linear interpolation it replaces, odd lengths included."""
    import numpy as np

    from evalkit.wire.twilio_ws.codec import _resample_grid, resample

    rng = np.random.default_rng(3)
    for size in (1, 3, 5, 159, 320, 321):
        for rates in ((16_000, 8_000), (24_000, 8_000), (48_000, 16_000)):
            samples = rng.standard_normal(size).astype(np.float32)
            positions, grid = _resample_grid(size, *rates)
            assert np.array_equal(resample(samples, *rates), np.interp(positions, grid, samples).astype(np.float32))
