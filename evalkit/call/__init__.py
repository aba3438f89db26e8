"""A conversation is a call: two parties exchange audio (or text) frames on a clock, with turn boundaries,
barge-in and hang-up as events (docs/architecture.md, decision 10). One loop serves every agent and channel:

- ``clock``: virtual (faster than real time) or real;
- ``events``: caller frames, agent speech chunks and turn ends;
- ``session``: the agent's side (``AgentSession``) and the adapter for in-process turn-based agents;
- ``channel``: how the caller's words reach the agent (voice + perturbation chain, or text);
- ``loop``: the loop itself; ``conversation``: a scenario's call as a ``Conversation`` record; ``tracks``: audio.
"""

from evalkit.call.agent_turn import tool_call_records
from evalkit.call.channel import AudioChannel, TextChannel, UserSpeech
from evalkit.call.clock import Clock, RealClock, VirtualClock
from evalkit.call.conversation import (
    attempt_keys,
    conversation_record,
    run_conversation,
    run_text_call,
    run_text_conversation,
)
from evalkit.call.events import AgentEvent, AgentSpeech, AgentTurnEnd, Frame
from evalkit.call.loop import CallOutcome, CallSettings, ConversationAudio, run_call
from evalkit.call.session import AgentSession, TurnBasedSession
from evalkit.call.tracks import render_tracks

__all__ = [
    "AgentEvent",
    "AgentSession",
    "AgentSpeech",
    "AgentTurnEnd",
    "AudioChannel",
    "CallOutcome",
    "CallSettings",
    "Clock",
    "ConversationAudio",
    "Frame",
    "RealClock",
    "TextChannel",
    "TurnBasedSession",
    "UserSpeech",
    "VirtualClock",
    "attempt_keys",
    "conversation_record",
    "render_tracks",
    "run_call",
    "run_conversation",
    "run_text_call",
    "run_text_conversation",
    "tool_call_records",
]
