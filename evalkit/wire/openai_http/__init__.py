"""OpenAI-compatible HTTP: the agent kinds ``cascade_openai`` (STT -> chat with tools -> TTS) and ``hybrid_openai``
(audio-in chat -> TTS), registered in ``config``; the caller's side, the simulator kind ``llm`` (``simulator``: a chat
model prompted with App. K, hanging up through ``end_call``) and the voice kind ``openai_tts`` (``voice``: the caller's
voices from a speech server); and their wire adapters: ``retry`` (the retry policy every OpenAI-compatible request of
evalkit shares, the judges' too), ``client`` (transcriptions, chat completions, speech), ``settings`` (an endpoint's
server, model, key variable and timeout; the retry settings), ``cache`` (the content-addressed on-disk answer cache of
the caller's side) and ``agent`` (the turn-based agents). Kept light: importing ``retry`` loads no agent, and the
caller's kinds import no agent (agents and simulators never import each other).
"""
