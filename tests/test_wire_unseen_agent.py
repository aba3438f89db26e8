"""The scripted caller over the wire (issue 29 point 3): an agent server written here, Twilio framing, tone audio and
an ``evalkit_transcript`` per turn in its own words, one turn stated only as a dialogue act. The caller answers it
from the scenario's facts, corrects its misread read-back and hangs up once the agent reports the task done."""

from __future__ import annotations

import asyncio
import json

import numpy as np
from websockets.asyncio.server import ServerConnection, serve

from evalkit.call import CallOutcome, CallSettings, run_call
from evalkit.call.clock import RealClock
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.wire.twilio_ws import TwilioWsConfig
from evalkit.wire.twilio_ws.server import url_of
from tests.test_call_loop import ToneChannel, context
from tests.test_scripted_unseen_agents import toy_scenario
from tests.test_twilio_ws import ToneAgentServer, tone_bytes

# what the agent says, turn by turn (it hears only tones: it does not need to understand, the caller does)
TURNS = [
    ("Thanks for calling Harbor Clinic.", []),
    ("Item one?", [{"act": "ask", "field": "booking_reference"}]),  # only the act says what it wants
    ("Got W K 2 E X C. Did I get that correctly?", []),
    ("Fixed, W K 2 E X B. Did I get that correctly?", []),
    ("All set, your appointment has been moved.", []),
    ("Goodbye.", []),
]


class ClinicServer(ToneAgentServer):
    async def handler(self, ws: ServerConnection) -> None:
        sid, turn = "", 0
        async for raw in ws:
            message = json.loads(raw)
            if message["event"] not in ("start", "user_speech_stop") or turn >= len(TURNS):
                continue
            sid = message["start"]["streamSid"] if message["event"] == "start" else sid
            text, acts = TURNS[turn]
            turn += 1
            event = {"event": "evalkit_transcript", "streamSid": sid, "text": text, "end_call": False, "acts": acts}
            await ws.send(json.dumps(event))
            await self.speak(ws, sid, tone_bytes(300))


def call(simulator: ScriptedSimulator) -> CallOutcome:
    async def main() -> CallOutcome:
        async with serve(ClinicServer().handler, "127.0.0.1", 0) as server:
            config = TwilioWsConfig(name="wire", url=url_of(server), take_turn_after_silence_ms=300.0)
            agent = config.build()
            clock = RealClock()
            settings = agent.call_settings(CallSettings(user_reaction_ms=100.0, max_user_turns=10))
            return await run_call(simulator, agent.session(clock), ToneChannel(), context(), clock, settings)

    return asyncio.run(main())


def test_the_scripted_caller_reaches_the_goal_with_an_agent_over_the_wire() -> None:
    scenario = toy_scenario("toy-wire", {"confirmation_number": "WK2EXB"}, "I'd like to move my appointment.")
    outcome = call(ScriptedSimulator(scenario, None, np.random.default_rng(0)))
    assert outcome.end_reason == "user_end_call", outcome.error
    said = [t.intended_text for t in outcome.turns if t.role == "user"]
    assert said == [
        "I'd like to move my appointment.",
        "It's W K 2 E X B.",  # asked by act alone: the act crossed the wire
        "No, the sixth one is Bravo.",
        "Yes, that's right.",
        "No, that's everything. Thanks, bye.",  # the agent reported the task done
    ], [(t.role, t.intended_text) for t in outcome.turns]
