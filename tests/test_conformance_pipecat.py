"""Conformance against implementations nobody here wrote (issue 26 point 6): real calls from evalkit's caller to
phone bots built from pipecat (tests/conformance/bots.py: pipecat's FastAPI WebSocket transport, its
``TwilioFrameSerializer``, its bundled Silero VAD, its turn strategies, pipeline and runner), each started for real
in its own process on 127.0.0.1. The bots send no evalkit event: the caller hears them through its own ASR and
finds their turns by silence (``agent.speech_events=false``, as for any plain Twilio server).

What must hold, whoever wrote the agent:

- a bot that waits for the caller to speak first is called all the same (the caller opens after waiting for a
  greeting that does not come), and a bot that greets is heard first;
- every call completes with no infrastructure failure, with one agent turn per caller utterance;
- the response latency in the records (end of the caller's speech -> the bot's first audio) is the bot's own: a
  bot that answers as soon as its VAD says the caller stopped (Silero's default 0.2 s stop) answers in ~0.5 s,
  which it can only do if the caller's line carries audio after the caller's words (a real phone line does);
- a caller's barge-in (IHBench ``impatient``) reaches the bot as an interruption (pipecat's own interruption
  handling: it stops and sends ``clear``) and is recorded by evalkit as a yield.

pipecat is not a dependency of evalkit: ``scripts/conformance_env.sh`` installs it in a virtualenv of its own (its
pins conflict with evalkit's, see pyproject's ``conformance`` extra). The module is skipped when no interpreter
with pipecat is found.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import itertools
import json
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.client import connect

from evalkit.call import CallOutcome, CallSettings, RealClock, run_call
from evalkit.call.channel import AudioChannel
from evalkit.call.interrupt import Interrupter
from evalkit.config.interrupt import IHBENCH_OVERLAP_S, InterruptConfig
from evalkit.speech.registry import ASR_ENGINES
from evalkit.speech.tts import EspeakTTS
from evalkit.wire.twilio_ws import TwilioWsConfig, protocol
from evalkit.wire.twilio_ws.codec import encode, resample
from tests.test_call_loop import ScriptCaller, context

ROOT = Path(__file__).resolve().parent.parent
RATE = 8000  # the bots' Twilio line: 8 kHz μ-law
READY_TIMEOUT_S = 120.0  # importing pipecat and onnxruntime on a loaded 2-core machine
# The caller's lines: one sentence each, no comma, so that no pause inside a line is as long as the bots' VAD stop
# (0.2 s; eSpeak pauses ~0.3 s between sentences and ~0.18 s at a comma): a bot that answers at its VAD stop then
# answers once per line. Longer turns with pauses are the bot's business (its turn strategy), not evalkit's.
LINES = [
    "I need to change my flight to Boston please.",
    "My last name is Johnson and the flight is tomorrow morning.",
]
# The bots' own latency: Silero says "stopped" ~0.45 s after the last word (its 0.2 s stop_secs counted once its
# speech probability has decayed, in 32 ms windows), TTS and output add ~0.05 s: 0.47-0.76 s measured on this 2-core
# machine by a plain Twilio client streaming speech then silence (no evalkit), 0.44-0.89 s in the bot's own log under
# evalkit's calls (load average up to 9). When no audio comes after the words, pipecat forces the stop after 1 s
# (VADProcessor's audio_idle_timeout; the bot logs ``vad_forced_stop``), or never (a VAD caught mid-stop: the user
# turn then times out after 5 s). So the sharp checks are that no stop was forced, that the bot never ended a turn
# before its own configured stop time (it logs pipecat's default: 0.2 s in pipecat 1.14), and evalkit's own part
# of each latency on the way back (the bot's first audio -> evalkit's stamp of it); the end-to-end latency gets a
# bound that holds on a loaded machine (the 0.6 s target is measured by scripts/bench_conformance.py on an idle
# machine: median 0.406 s). Why not the 0.6 s end to end here: nearly all of the latency is the bot's
# (caller's end -> its turn end: Silero's stop after its probability decays, then Smart Turn v3 on the CPU; 0.34-0.52
# s at load 5, up to ~0.9 s at load 9), which grows with the machine's load and is not evalkit's; the median was
# 0.47 s at load 5 (issue 26's run: stages 0.34-0.52 / 0.014-0.045 / 0.000-0.079 s).
LATENCY_LIMIT_S = 1.2  # median, evalkit's records end to end: measured 0.47-0.90 s (medians of 4 turns)
HEARING_LIMIT_S = 0.15  # median, the bot starting to speak -> evalkit stamping its first audio: measured 0-79 ms


def _venv_python() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "evalkit"
    base = Path(os.environ.get("EVALKIT_CONFORMANCE_DIR", cache))  # where scripts/conformance_env.sh installed it
    return base / "conformance-venv" / "bin" / "python"


def pipecat_python() -> str | None:
    """The interpreter that runs the bots: $EVALKIT_CONFORMANCE_PYTHON, the venv scripts/conformance_env.sh makes,
    or this one if it has pipecat."""
    configured = os.environ.get("EVALKIT_CONFORMANCE_PYTHON")
    candidates = [configured] if configured else [str(_venv_python())]
    if importlib.util.find_spec("pipecat") is not None:
        candidates.append(sys.executable)
    for python in candidates:
        if python and Path(python).is_file():
            probe = [python, "-c", "import pipecat.serializers.twilio, pipecat.transports.websocket.fastapi"]
            if subprocess.run(probe, capture_output=True, timeout=120).returncode == 0:
                return python
    return None


PYTHON = pipecat_python()
pytestmark = pytest.mark.skipif(
    PYTHON is None,
    reason="pipecat is not installed: run scripts/conformance_env.sh (pipecat-ai[websocket,silero] in a venv of its "
    "own) or set EVALKIT_CONFORMANCE_PYTHON to an interpreter that has it",
)


@dataclass
class BotCall:
    outcome: CallOutcome
    events: list[dict[str, Any]]  # what the bot saw (tests/conformance/bots.py EventLog)
    wall_t0: float  # the call clock's 0 on the wall clock the bot logs with (same machine)

    def turns(self, role: str) -> list[Any]:
        return [t for t in self.outcome.turns if t.role == role]

    def seen(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == event]


@contextlib.contextmanager
def bot(kind: str, folder: Path) -> Iterator[tuple[str, Path]]:
    """A pipecat bot in its own process on a free port of 127.0.0.1; stopped (SIGTERM) after."""
    log = folder / f"{kind}.jsonl"
    process = subprocess.Popen(
        [str(PYTHON), "-m", "tests.conformance.bots", "--kind", kind, "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=folder,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], READY_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("ready ws://127.0.0.1:"), f"the {kind} bot did not start: {line!r}"
        yield line.split()[1], log
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def caller_voice() -> AudioChannel:
    """The caller's speech as a cell makes it (eSpeak NG, the neutral voice's rate), on a clean line."""
    tts = EspeakTTS(voice="en-us", rate_wpm=165, pitch=50)
    return AudioChannel(tts.synthesize, lambda audio, rate, rng, ctx: (audio, []), cell_seed=0, keys=("conformance",))


def impatient() -> Interrupter:
    """IHBench's impatient caller (``+interrupt=impatient``), cutting into the first reply it can."""
    config = InterruptConfig(
        name="impatient", type="impatient", overlap_s=IHBENCH_OVERLAP_S["impatient"], probability=1.0, max_per_call=1
    )
    return Interrupter(config, np.random.default_rng(0))


@functools.cache
def listener() -> Any:
    """The caller's listener ASR (the default engine, as a cell's), loaded once for the module's calls."""
    return ASR_ENGINES.get("faster_whisper")().build()


def call_bot(kind: str, bots: tuple[str, Path], interrupter: Interrupter | None = None) -> BotCall:
    """One call to the ``kind`` bot of the module's bot process; what the bot saw of this call (its tag)."""
    listener()  # loaded before the call: its first turn is not late by the model's load
    url, log = bots
    agent = TwilioWsConfig(
        name=f"pipecat_{kind}", url=f"{url}/{kind}/{kind}", speech_events=False, tools="none", response_timeout_s=10.0
    ).build()
    agent.listener = listener
    clock, wall_t0 = RealClock(), time.time()
    settings = agent.call_settings(CallSettings())
    call = run_call(ScriptCaller(list(LINES)), agent.session(clock), caller_voice(), context(), clock, settings,
                    interrupter)  # fmt: skip
    outcome = asyncio.run(call)
    return BotCall(outcome, call_events(log, kind, until="call_ended"), wall_t0)


def call_events(log: Path, call: str, until: str, timeout_s: float = 10.0) -> list[dict[str, Any]]:
    """The bot's events of one call (its tag), once ``until`` is among them: the bot logs the end of a call after
    the caller has hung up, and the process serves on."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = log.read_text().splitlines() if log.exists() else []
        events = [e for e in map(json.loads, lines) if e.get("call") == call]
        if any(e["event"] == until for e in events) or time.monotonic() > deadline:
            return events
        time.sleep(0.05)


def latencies_s(outcome: CallOutcome) -> list[float]:
    """End of each caller utterance -> the first audio of the agent turn after it, from the records."""
    turns = outcome.turns
    return [
        (b.start_ms - a.end_ms) / 1000.0
        for a, b in itertools.pairwise(turns)
        if a.role == "user" and b.role == "assistant"
    ]


def vad_stops_s(call: BotCall) -> list[float]:
    """For each caller utterance sent to the bot: its end (records) -> the bot's VAD saying the caller stopped (the
    bot's log, same machine's wall clock). Under 1 s only if the bot heard silence after the words: with no audio
    pipecat forces the stop after 1 s (VADProcessor's audio_idle_timeout)."""
    stops = [e["t"] for e in call.seen("user_stopped")]
    sent = [t for t in call.outcome.turns if t.role == "user"][: len(LINES)]
    delays = []
    for turn in sent:
        end = call.wall_t0 + turn.end_ms / 1000.0
        after = [t for t in stops if t > end - 0.2]
        delays.append(after[0] - end if after else float("inf"))
    return delays


def stages_s(call: BotCall) -> list[tuple[float, float, float]]:
    """Each response latency in three parts, from evalkit's records and the bot's own log (same machine's wall
    clock): (caller's end -> the bot ends the user's turn: its VAD, its turn model, and evalkit's sending of the
    last frames; the bot ends it -> it starts speaking: its TTS and output; it starts speaking -> evalkit stamps the
    turn's first audio: the socket and evalkit's receiving). The three add up to the latency in the records."""
    stopped = [e["t"] for e in call.seen("user_stopped")]
    started = [e["t"] for e in call.seen("bot_started")]
    parts = []
    for user, reply in itertools.pairwise(call.outcome.turns):
        if user.role != "user" or reply.role != "assistant":
            continue
        end, heard = call.wall_t0 + user.end_ms / 1000.0, call.wall_t0 + reply.start_ms / 1000.0
        stop = next((t for t in stopped if t > end - 0.2), float("inf"))
        start = next((t for t in started if t >= stop), float("inf"))
        parts.append((stop - end, start - stop, heard - start))
    return parts


def report(name: str, call: BotCall) -> str:
    rows = [f"{t.role[0]} {t.start_ms:7.0f}-{t.end_ms:7.0f} {t.intended_text[:50]!r}" for t in call.outcome.turns]
    lat = ", ".join(f"{x:.2f}" for x in latencies_s(call.outcome))
    head = f"{name}: end={call.outcome.end_reason} error={call.outcome.error} latencies_s=[{lat}]"
    return f"{head} interruptions={call.outcome.interruptions}\n" + "\n".join(rows)


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One bot process for the module's calls (importing pipecat and onnxruntime costs ~10 s a process); each call
    picks its bot by its URL and is told apart in the log by its tag."""
    with bot("waits", tmp_path_factory.mktemp("bots")) as (url, log):
        yield url, log


@pytest.fixture(scope="module")
def waits(bots: tuple[str, Path]) -> BotCall:
    return call_bot("waits", bots)


@pytest.fixture(scope="module")
def greets(bots: tuple[str, Path]) -> BotCall:
    return call_bot("greets", bots)


@pytest.fixture(scope="module")
def yields(bots: tuple[str, Path]) -> BotCall:
    return call_bot("yields", bots, impatient())


def check_one_agent_turn_per_caller_utterance(call: BotCall, greeted: bool) -> None:
    outcome = call.outcome
    assert outcome.end_reason == "user_end_call" and outcome.error is None, report("call", call)
    roles = [t.role for t in outcome.turns]
    opening = ["assistant"] if greeted else []
    # each line said to the bot gets one reply; the goodbye (the last user turn) is never sent
    assert roles == [*opening, *["user", "assistant"] * len(LINES), "user"], report("call", call)
    # the bot saw the same: one user turn per line, one reply each (and its greeting)
    assert len(call.seen("user_stopped")) == len(LINES), call.events
    assert len(call.seen("reply")) == len(LINES) + len(opening), call.events
    # the caller heard the bot through its own ASR: no text came over the wire
    replies = call.turns("assistant")
    assert all(t.text_source == "caller_asr" and t.intended_text.strip() for t in replies), report("call", call)


def test_a_pipecat_bot_that_waits_for_the_caller_is_called(waits: BotCall) -> None:
    """The bot says nothing until it hears the caller: the caller opens the call (after waiting for a greeting)."""
    print(report("waits", waits))
    check_one_agent_turn_per_caller_utterance(waits, greeted=False)
    first_reply = waits.seen("reply")[0]["t"]
    assert waits.seen("user_stopped")[0]["t"] <= first_reply  # the bot spoke only after the caller


def test_a_pipecat_bot_that_greets_is_heard_first_then_answered(greets: BotCall) -> None:
    print(report("greets", greets))
    check_one_agent_turn_per_caller_utterance(greets, greeted=True)
    greeting = greets.outcome.turns[0]
    assert greeting.role == "assistant" and greeting.start_ms < 1500.0  # it speaks as soon as the call is up
    heard = set(re.findall(r"[a-z]+", greeting.intended_text.lower()))
    assert heard & {"calling", "help", "airlines", "skyline", "today"}, greeting.intended_text  # what it said


def test_a_pipecat_bot_answers_within_its_vad_stop_time(greets: BotCall, waits: BotCall) -> None:
    """Its VAD needs silence after the caller's words to say the caller stopped: evalkit's line must carry audio
    between utterances, as a phone line does. Without it Silero never hears the silence and pipecat forces the stop
    after 1 s without audio (VADProcessor's audio_idle_timeout): the latency measured would be evalkit's, not the
    bot's."""
    both = {"greets": latencies_s(greets.outcome), "waits": latencies_s(waits.outcome)}
    stops = {"greets": vad_stops_s(greets), "waits": vad_stops_s(waits)}
    lat = [x for values in both.values() for x in values]
    print(f"latencies s: { {k: [round(x, 3) for x in v] for k, v in both.items()} } median {statistics.median(lat)}")
    print(f"bot VAD stops s after the caller's end: { {k: [round(x, 3) for x in v] for k, v in stops.items()} }")
    details = report("greets", greets) + "\n" + report("waits", waits)
    assert [len(v) for v in both.values()] == [len(LINES)] * 2, details
    # the bot heard the caller stop: its VAD heard silence after the words, no stop was forced by a quiet line
    assert not greets.seen("vad_forced_stop") and not waits.seen("vad_forced_stop"), (stops, details)
    assert max(x for v in stops.values() for x in v) < 2.0, (stops, details)  # nor left to the 5 s user-turn timeout
    parts = stages_s(greets) + stages_s(waits)
    print("stages s (caller end -> bot ends the turn, -> bot speaks, -> evalkit hears):", [
        tuple(round(x, 3) for x in p) for p in parts])  # fmt: skip
    # evalkit's own part on the way back, sharp: from the bot starting to speak to evalkit's stamp of its first audio
    assert statistics.median(p[2] for p in parts) < HEARING_LIMIT_S, (parts, details)
    assert max(p[2] for p in parts) < 2 * HEARING_LIMIT_S, (parts, details)
    # the bot ended no turn before its own configured VAD stop time after the caller's last frame: it heard the
    # silence on the line (pipecat's default, as the bot logs it)
    [stop_secs] = {e["stop_secs"] for e in greets.seen("vad") + waits.seen("vad")}
    assert min(p[0] for p in parts) > stop_secs, (stop_secs, parts, details)
    assert statistics.median(lat) < LATENCY_LIMIT_S, details
    assert max(lat) < 2.0, details
    assert min(lat) > stop_secs, details  # never before its VAD heard its stop time of silence


@pytest.mark.slow  # a third call (~35 s)
def test_a_caller_barge_in_is_an_interruption_for_pipecat_and_a_yield_for_evalkit(yields: BotCall) -> None:
    """IHBench ``impatient``: the caller cuts into the bot's first reply. pipecat's VAD turn start interrupts the
    bot (its TTS and output stop, Twilio's ``clear`` goes out); evalkit measures the bot falling silent."""
    print(report("yields", yields))
    outcome = yields.outcome
    assert outcome.end_reason == "user_end_call" and outcome.error is None, report("yields", yields)
    cuts = [(i, e) for i, t in enumerate(outcome.turns) for e in t.effects if e.type == "interruption"]
    assert len(cuts) == 1, report("yields", yields)
    [(i, effect)] = cuts
    print(f"yields: caller onset -> bot silence {effect.params['yield_ms']:.0f} ms")
    assert effect.params["measured"] == "wire" and effect.params["yielded"] is True, effect.params
    assert outcome.turns[i].role == "assistant" and outcome.turns[i + 1].role == "user"
    # the bot saw the caller start while it was talking and was interrupted then
    assert [e for e in yields.seen("interrupted") if e["bot_speaking"]], yields.events
    # pipecat needs 0.2 s of the caller's speech to start its turn (VAD start_secs), then stops its output
    assert 0.0 <= effect.params["yield_ms"] < 1200.0, effect.params


@pytest.mark.slow  # a fourth call (~10 s): the control of the fixture, not of evalkit
def test_the_bot_logs_a_forced_stop_for_a_line_that_goes_quiet_and_none_for_one_that_carries_silence(
    bots: tuple[str, Path],
) -> None:
    """The control for the latency test's sharp check, with a plain Twilio client (no evalkit call loop): after a
    line of speech, a line that sends nothing leaves pipecat's VAD to force the stop after 1 s; one that sends
    silence frames lets it hear the caller stop."""
    speech = encode(resample(*EspeakTTS(voice="en-us", rate_wpm=165, pitch=50).synthesize(LINES[0]), RATE), "mulaw")
    silence = encode(np.zeros(RATE, dtype=np.float32), "mulaw")  # 1 s

    async def client(url: str) -> None:
        async with connect(url) as ws:
            await ws.send(json.dumps(protocol.connected()))
            await ws.send(json.dumps(protocol.start(1, "MZ1", "CA1", {}, "audio/x-mulaw", RATE)))
            await stream(ws, speech)
            await asyncio.sleep(1.6)  # a quiet line: nothing at all
            await stream(ws, speech + silence)  # a line that carries silence after the words
            await asyncio.sleep(0.3)

    async def stream(ws: Any, audio: bytes) -> None:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for n, i in enumerate(range(0, len(audio), 160)):
            await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
            await ws.send(json.dumps(protocol.media("MZ1", audio[i : i + 160], n + 2, n + 1, n * 20)))

    url, log = bots
    asyncio.run(client(f"{url}/waits/control"))
    events = call_events(log, "control", until="call_ended")
    kinds = [e["event"] for e in events if e["event"] in ("user_started", "user_stopped", "vad_forced_stop")]
    # the first turn's stop was forced (logged just before the stop it causes), the second one's heard
    assert kinds == ["user_started", "vad_forced_stop", "user_stopped", "user_started", "user_stopped"], events
