"""OpenAI-compatible HTTP: the agent kinds ``cascade_openai`` (STT -> chat with tools -> TTS) and ``hybrid_openai``
(audio-in chat -> TTS), registered in ``config``, and their wire adapters: ``retry`` (the retry policy every
OpenAI-compatible request of evalkit shares, the judges' too), ``client`` (transcriptions, chat completions, speech)
and ``agent`` (the turn-based agents). Kept light: importing ``retry`` loads no agent.
"""
