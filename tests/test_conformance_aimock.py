"""Conformance of ``agent=openai_realtime`` against a Realtime server nobody here wrote (issue 26 point 6):
CopilotKit's aimock (npm ``@copilotkit/aimock``, MIT), a mock of OpenAI's APIs whose ``/v1/realtime`` WebSocket
speaks the GA Realtime event protocol from fixtures, offline on 127.0.0.1.

What aimock does and does not do (read from its ws-realtime handler): it answers ``session.update`` and
``response.create`` (the response's text comes from the first fixture that matches; one catch-all here), and
acknowledges ``input_audio_buffer.commit``; it ignores the caller's audio (no server VAD, no transcription of a
conversation session) and sends no audio (its Realtime responses are text). So this checks the protocol's framing
and turn flow, not hearing: the caller commits its own turns (``agent.turn_detection=none``); with the default
``server_vad`` nothing answers the caller's turn and the call is an infrastructure failure (AgentTimeout), which is
the right verdict for a server without server VAD.

``scripts/conformance_env.sh`` installs aimock (with npm) beside the pipecat venv; the module is skipped without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from evalkit.call import CallOutcome, CallSettings, RealClock, run_call
from evalkit.wire.openai_realtime import OpenAIRealtimeConfig
from tests.test_call_loop import ScriptCaller, ToneChannel
from tests.test_openai_realtime import airline_context

REPLY = "I can help with that. What is your booking reference?"


def aimock_cli() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "evalkit"
    base = Path(os.environ.get("EVALKIT_CONFORMANCE_DIR", cache))  # where scripts/conformance_env.sh installed it
    return base / "conformance-npm" / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js"


pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not aimock_cli().is_file(),
    reason="aimock is not installed: run scripts/conformance_env.sh (npm @copilotkit/aimock, needs node >= 20.15)",
)


# node starting aimock takes ~0.3 s on an idle machine; on a loaded 2-core machine it once said nothing for 30 s
READY_TIMEOUT_S = 120.0


@contextlib.contextmanager
def aimock_server(folder: Path) -> Iterator[str]:
    """aimock on a free port of 127.0.0.1 with one catch-all fixture; its Realtime URL."""
    fixtures = folder / "fixtures.json"
    fixtures.write_text(json.dumps({"fixtures": [{"match": {}, "response": {"content": REPLY}}]}))
    process = subprocess.Popen(
        ["node", str(aimock_cli()), "--port", "0", "--fixtures", str(fixtures)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=folder,
    )
    try:
        assert process.stdout is not None
        # A thread reads the lines: select() on the pipe misses a line already in the text wrapper's buffer
        # (aimock can write both of its start-up lines at once), and the thread keeps the pipe drained.
        lines: queue.Queue[str] = queue.Queue()
        stdout = process.stdout
        threading.Thread(target=lambda: [lines.put(each) for each in stdout], daemon=True).start()
        line, said = "", []
        deadline = time.monotonic() + READY_TIMEOUT_S
        while "listening on http://127.0.0.1:" not in line:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                line = ""
            said.append(line)
            assert line, f"aimock did not start in {READY_TIMEOUT_S:.0f} s (exit {process.poll()}): {''.join(said)!r}"
        yield "ws://" + line.split("http://", 1)[1].strip() + "/v1/realtime"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def dial(url: str, **config: object) -> Coroutine[Any, Any, CallOutcome]:
    agent = OpenAIRealtimeConfig(
        name="aimock", url=url, model="gpt-realtime", api_key_env=None, response_timeout_s=5.0, **config
    ).build()
    clock = RealClock()
    settings = agent.call_settings(CallSettings(user_reaction_ms=100.0))
    return run_call(ScriptCaller(["one two three"]), agent.session(clock), ToneChannel(), airline_context(), clock,
                    settings)  # fmt: skip


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CallOutcome]:
    """The module's two calls, each to an aimock of its own, made at the same time: each is real time (~8-9 s,
    nearly all of it waiting on the call's clock) and the tests only read their outcomes."""
    with (
        aimock_server(tmp_path_factory.mktemp("aimock")) as committed_url,
        aimock_server(tmp_path_factory.mktemp("aimock")) as vad_url,
    ):

        async def both() -> list[CallOutcome]:
            return await asyncio.gather(dial(committed_url, turn_detection="none"), dial(vad_url))

        committed, server_vad = asyncio.run(both())
    return {"caller commits": committed, "server_vad": server_vad}


def test_a_call_to_aimocks_realtime_server_with_caller_commits_completes(calls: dict[str, CallOutcome]) -> None:
    outcome = calls["caller commits"]
    assert outcome.end_reason == "user_end_call" and outcome.error is None, outcome.error
    assert [t.role for t in outcome.turns] == ["assistant", "user", "assistant", "user"]
    greeting, _caller, reply, _bye = outcome.turns
    # the greeting (response.create with instructions) and the answer to the committed turn: aimock's fixture text
    assert greeting.intended_text == REPLY and reply.intended_text == REPLY
    assert reply.start_ms >= outcome.turns[1].end_ms  # answered after the caller's turn, not before


def test_without_server_vad_the_callers_turn_is_never_answered_an_infrastructure_failure(
    calls: dict[str, CallOutcome],
) -> None:
    outcome = calls["server_vad"]  # turn_detection: server_vad, which aimock does not implement
    assert outcome.end_reason == "error" and "AgentTimeout" in str(outcome.error), outcome.error
    assert [t.role for t in outcome.turns] == ["assistant", "user"]  # the greeting came; the answer never did
