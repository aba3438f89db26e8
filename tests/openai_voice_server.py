"""A real OpenAI-compatible voice-agent server on 127.0.0.1 for tests, offline (stdlib HTTP + evalkit's engines):

- ``POST /v1/audio/transcriptions`` (multipart ``file``, ``model``): Whisper tiny.en through evalkit.speech;
- ``POST /v1/audio/speech`` (``model``, ``input``, ``voice``, ``response_format`` wav|pcm, ``speed``): eSpeak NG, the
  ``voice`` an eSpeak voice name (``alloy``: en-gb), 185 words per minute times ``speed``;
- ``POST /v1/chat/completions`` (``messages``, ``tools``): a deterministic policy that emits REAL tool calls; or,
  for a request that offers the ``end_call`` tool (the LLM user simulator's, App. K), a deterministic caller; or, for
  the judge model (``judge_overrides()``), the verdicts of the validation gates (App. D.1, M.6/M.7): clean, unless
  told to fail the next ``judge_fail[gate]`` judgments of a gate.

The chat policy is evalkit's own local dialogue policy (``evalkit.agents.reference.dialogue.make_policy``) driven from
the request's history: every request rebuilds a fresh policy, greets, and replays each user message (text, or an
``input_audio`` part transcribed by Whisper) with a tool box that answers the policy's tool calls from the history's
``tool`` results, in order. When the policy asks for a tool the history has no result for yet, the server answers
that call as an OpenAI ``tool_calls`` message; when the last user turn completes, the policy's reply is the
assistant's text. So the agent under test must execute the calls through the harness and send the results back,
exactly as with a hosted model.

The caller policy (``simulator=llm``) is evalkit's scripted simulator driven from the request's history: the server
finds the scenario whose starting utterance and information lines the system prompt carries (the prompt holds the
goal in prose; the scripted simulator reads the same scenario's machine-readable plan), builds a fresh
``ScriptedSimulator`` (default persona), says its first utterance and replays every agent message (``user`` role)
through ``respond``; the history's own caller messages must be what that replay said (else a 500). The last reply is
the answer: its words as ``content`` and, when the scripted caller hangs up, a real ``end_call`` tool call beside them.
So the same scenario gives the LLM caller exactly the scripted caller's conversation.

Test hooks: ``models`` (a model the server does not know gets OpenAI's 404 ``model_not_found``), ``api_key`` (every
request must carry it as a Bearer token, else 401), ``fail_next[route]`` (statuses answered before serving, e.g.
[429]), ``fail_always[route]`` (a status answered forever), ``mangled[user_turn]`` (tool calls the first chat request
of that user turn answers with instead of the policy's: an unknown tool, arguments that are not JSON),
``tools_forever`` (a tool call every chat request answers with: a model stuck in its tool loop), ``hang_up_early``
(that many caller conversations, told apart by their ``seed``, hang up in the turn that gives their first answer:
App. D.1's premature ending), ``caller_seeds`` / ``caller_requests`` (the seed of every caller request; how many),
``caller_openings`` (the first message of each caller conversation: the agent's greeting).
Every request is counted per route with its server-side time. Chat answers report a deterministic token ``usage``
(a quarter of the request's message JSON in, of the answer's out); ``reported`` lists, per answered request, what
the server reported or measured (tokens, seconds of audio received and sent, characters to speak), so a test can
check evalkit's usage ledger against it.
"""

from __future__ import annotations

import base64
import email.parser
import hashlib
import io
import json
import re
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import soundfile as sf
import soxr
import yaml

from evalkit.agents.reference.dialogue import make_policy
from evalkit.domains import tool_registry
from evalkit.domains.scenarios import load_scenarios
from evalkit.scenarios import Scenario
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.speech import EspeakTTS, WhisperASR

ROUTES = {
    "/v1/audio/transcriptions": "transcriptions",
    "/v1/audio/speech": "speech",
    "/v1/chat/completions": "chat",
}
MANGLED_ID = "mangled_"  # tool-call ids the server made up on purpose: the replay skips them
STT_MODEL, CHAT_MODEL, TTS_MODEL = "whisper-tiny.en", "evalkit-policy", "espeak-ng"
CALLER_MODEL = "evalkit-caller"  # the caller policy answers any model the server knows; this one is for simulator=llm
JUDGE_MODEL = "evalkit-judge"  # answered with validation-gate verdicts (judge=openai_compatible)
# The judge prompts (evalkit/judges/prompts.yaml) by the first words of their system text
JUDGE_PROMPTS = {
    "You are an expert reviewer of simulated callers": "user_behavioral_fidelity",
    "You are an expert evaluator judging the fidelity of text-to-speech": "user_speech_fidelity",
}
CORRUPTIONS = (
    "extra_modifications",
    "premature_ending",
    "missing_information",
    "duplicate_modifications",
    "decision_tree_violation",
)
END_CALL = "end_call"
# The eSpeak voices the speech route speaks with, as a voice=openai_tts speaker table names them
CALLER_VOICES = "[{id: female, gender: female, voice: en-us+f3}, {id: male, gender: male, voice: en-us}]"


class NeedTool(BaseException):
    """A signal, not an error (BaseException, so no policy's ``except Exception`` can swallow it)."""

    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(name)
        self.name, self.arguments = name, arguments


class ReplayToolBox:
    """The policy's tool box: answers from the history's recorded results, asks for the first call it lacks."""

    def __init__(self, domain: str, recorded: list[tuple[str, dict[str, Any]]]) -> None:
        self.executor = SimpleNamespace(registry=tool_registry(domain))  # workflow policies look tools up here
        self._recorded = deque(recorded)

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        if not self._recorded:
            raise NeedTool(name, arguments)
        recorded_name, result = self._recorded.popleft()
        if recorded_name != name:
            raise RuntimeError(f"history out of step with the policy: it called {name}, the history {recorded_name}")
        return result

    @property
    def pending(self) -> int:
        return len(self._recorded)


@dataclass
class RouteStats:
    requests: int = 0
    seconds: float = 0.0


@dataclass
class VoiceServerState:
    domain: str = "airline"
    models: set[str] = field(default_factory=lambda: {STT_MODEL, CHAT_MODEL, TTS_MODEL, CALLER_MODEL, JUDGE_MODEL})
    api_key: str | None = None
    fail_next: dict[str, list[int]] = field(default_factory=dict)
    fail_always: dict[str, int] = field(default_factory=dict)
    mangled: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    tools_forever: tuple[str, str] | None = None  # every chat request answers this (name, arguments) tool call
    audio_parts: int = 0  # input_audio content parts received (a hybrid agent's caller turns, history included)
    stats: dict[str, RouteStats] = field(default_factory=lambda: defaultdict(RouteStats))
    statuses: list[tuple[str, int]] = field(default_factory=list)  # (route, status) of every answer, in order
    authorization: list[str | None] = field(default_factory=list)
    hang_up_early: int = 0  # caller conversations still to hang up prematurely
    early_seeds: set[Any] = field(default_factory=set)  # the seeds of the conversations chosen for it
    caller_seeds: list[Any] = field(default_factory=list)  # the seed of every caller request, in order
    caller_requests: int = 0
    caller_openings: list[str] = field(default_factory=list)  # the first message each caller conversation heard
    judge_fail: dict[str, int] = field(default_factory=dict)  # gate -> judgments still to fail
    judged: list[tuple[str, str]] = field(default_factory=list)  # (gate, the judge request's user message), in order
    reported: list[dict[str, Any]] = field(default_factory=list)  # per answered request: route, model, usage


class VoiceAgentServer:
    def __init__(self, domain: str = "airline", api_key: str | None = None, scenario_dir: Path | None = None) -> None:
        self.state = VoiceServerState(domain=domain, api_key=api_key)
        self._scenario_dir = scenario_dir  # a scenario folder (e.g. imported EVA-Bench records) instead of the domain's
        self._lock = threading.Lock()  # one request at a time: Whisper and the counters are shared
        self._asr = WhisperASR("bundled:tiny.en", "int8", 2, 1, 96)
        self._tts: dict[tuple[str, float], EspeakTTS] = {}
        # (user turn, sha256 of an input_audio part) -> its transcript: each caller turn is heard once (a repeated
        # clip in a later turn is heard again), the history and the tool rounds of a turn are not re-transcribed
        self._heard: dict[tuple[int, str], str] = {}
        self._scenarios: list[Scenario] | None = None  # the domain's scenarios, for the caller policy
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def overrides(self, agent: str = "cascade_openai", key_env: str | None = None) -> list[str]:
        """Hydra overrides pointing an agent kind at this server (fast retries for tests)."""
        key = key_env or "null"
        stages = ("stt", "llm", "tts") if agent == "cascade_openai" else ("llm", "tts")
        models = {"stt": STT_MODEL, "llm": CHAT_MODEL, "tts": TTS_MODEL}
        out = [f"agent={agent}"]
        for stage in stages:
            out += [f"agent.{stage}.base_url={self.base_url}", f"agent.{stage}.model={models[stage]}"]
            out += [f"agent.{stage}.api_key_env={key}"]
        return [*out, "agent.retry.backoff_base_s=0.01", "agent.retry.backoff_max_s=0.05"]

    def simulator_overrides(self, key_env: str | None = None) -> list[str]:
        """Hydra overrides for ``simulator=llm`` against this server's caller policy (fast retries for tests)."""
        return [
            "simulator=llm",
            f"simulator.base_url={self.base_url}",
            f"simulator.model={CALLER_MODEL}",
            f"simulator.api_key_env={key_env or 'null'}",
            "simulator.retry.backoff_base_s=0.01",
            "simulator.retry.backoff_max_s=0.05",
        ]

    def voice_overrides(self, key_env: str | None = None) -> list[str]:
        """Hydra overrides for ``voice=openai_tts`` against this server's speech route (eSpeak voices by gender)."""
        return [
            "voice=openai_tts",
            f"voice.base_url={self.base_url}",
            f"voice.model={TTS_MODEL}",
            f"voice.api_key_env={key_env or 'null'}",
            f"voice.speakers={CALLER_VOICES}",
            "voice.speed=0.9",  # 167 words per minute, about the neutral eSpeak caller's 165
            "voice.retry.backoff_base_s=0.01",
            "voice.retry.backoff_max_s=0.05",
        ]

    def judge_overrides(self) -> list[str]:
        """Hydra overrides for ``judge=openai_compatible`` against this server's validation-gate verdicts."""
        return [
            "judge=openai_compatible",
            f"judge.base_url={self.base_url}",
            f"judge.model={JUDGE_MODEL}",
            "judge.api_key_env=null",
            "judge.cache_dir=null",
            "judge.max_retries=0",
        ]

    def write_agent_option(self, conf_dir: Path, agent: str, name: str) -> None:
        """``<conf_dir>/agent/<name>.yaml``: the agent kind's option pointed at this server, the way a user writes
        an option for their own servers (``defaults: [cascade_openai]`` + the endpoints), for ``hydra.searchpath``."""
        option: dict[str, Any] = {"defaults": [agent, "_self_"], "name": name}
        for override in self.overrides(agent)[1:]:
            key, value = override.removeprefix("agent.").split("=", 1)
            stage, field_name = key.split(".")
            option.setdefault(stage, {})[field_name] = yaml.safe_load(value)
        (conf_dir / "agent").mkdir(parents=True, exist_ok=True)
        (conf_dir / "agent" / f"{name}.yaml").write_text(yaml.safe_dump(option, sort_keys=False))

    # -- the routes ----------------------------------------------------------------------------------------------
    def transcriptions(self, fields: dict[str, bytes]) -> tuple[int, str, bytes]:
        samples, rate = sf.read(io.BytesIO(fields["file"]), dtype="float32")
        model = fields.get("model", b"").decode()
        self.state.reported.append({"route": "transcriptions", "model": model, "audio_s_in": len(samples) / rate})
        return 200, "application/json", json.dumps({"text": self._asr.transcribe(samples, rate).text}).encode()

    def speech(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        voice, speed = body.get("voice", "alloy"), float(body.get("speed") or 1.0)  # speed: OpenAI's 0.25-4 factor
        espeak_voice = "en-gb" if voice == "alloy" else voice
        tts = self._tts.setdefault((voice, speed), EspeakTTS(espeak_voice, rate_wpm=round(185 * speed), pitch=40))
        samples, rate = tts.synthesize(str(body["input"]))
        said = {"route": "speech", "model": body["model"], "characters_in": len(str(body["input"]))}
        if body.get("response_format", "mp3") == "pcm":
            pcm = soxr.resample(samples, rate, 24_000)
            self.state.reported.append(said | {"audio_s_out": len(pcm) / 24_000})
            return 200, "audio/pcm", (np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes()
        buffer = io.BytesIO()
        sf.write(buffer, samples, rate, subtype="PCM_16", format="WAV")
        self.state.reported.append(said | {"audio_s_out": len(samples) / rate})
        return 200, "audio/wav", buffer.getvalue()

    def chat(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        offered = [t.get("function", {}).get("name") for t in body.get("tools") or []]
        if body["model"] == JUDGE_MODEL:
            message = self.judge_message(body["messages"])
        elif END_CALL in offered:
            message = self.caller_message(body)
        else:
            message = self.policy_message(body["messages"])
        payload = {
            "id": "chatcmpl-voice",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
            ],
            "usage": _usage(body["messages"], message),
        }
        tokens = payload["usage"]
        self.state.reported.append(
            {
                "route": "chat",
                "model": body["model"],
                "tokens_in": tokens["prompt_tokens"],
                "tokens_out": tokens["completion_tokens"],
            }
        )
        return 200, "application/json", json.dumps(payload).encode()

    # -- the caller ----------------------------------------------------------------------------------------------
    def _scenario_in(self, prompt: str) -> Scenario:
        """The one scenario of the server's domain whose starting utterance and information the prompt carries."""
        if self._scenarios is None:
            self._scenarios = load_scenarios(self.state.domain, folder=self._scenario_dir)
        found = [
            s
            for s in self._scenarios
            if f'"{s.user_goal.starting_utterance}"' in prompt
            and s.current_date_time in prompt
            and all(f"- {k}: {v}" in prompt for k, v in s.user_goal.information_required.items())
        ]
        if len(found) != 1:
            raise RuntimeError(f"the simulator prompt matches {len(found)} {self.state.domain} scenarios, not one")
        return found[0]

    def caller_message(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        state = self.state
        state.caller_requests += 1
        seed = body.get("seed")
        state.caller_seeds.append(seed)
        if len(messages) == 2:  # a new conversation: what the caller heard first (App. K: the agent's greeting)
            state.caller_openings.append(messages[1]["content"])
        if len(messages) == 2 and state.hang_up_early > 0:  # a new conversation, chosen to hang up early
            state.hang_up_early -= 1
            state.early_seeds.add(seed)
        caller = ScriptedSimulator(self._scenario_in(messages[0]["content"]), None, np.random.default_rng(0))
        heard = [m["content"] for m in messages[1:] if m["role"] == "user"]  # the agent: its greeting, then replies
        said = [m["content"] for m in messages[1:] if m["role"] == "assistant"]
        replies = [caller.first_utterance()]
        for text in heard[1:]:
            replies.append(caller.respond(text))
        replayed = [r.text for r in replies[:-1]]
        if replayed != said:
            raise RuntimeError(f"the history's caller turns {said!r} are not the replay's {replayed!r}")
        reply = replies[-1]
        end_call = reply.end_call or (seed in state.early_seeds and len(replies) == 2)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if end_call:  # App. K: the caller hangs up through its tool, its words being the goodbye
            function = {"name": END_CALL, "arguments": "{}"}
            message["tool_calls"] = [{"id": f"call_end_{len(messages)}", "type": "function", "function": function}]
        return message

    # -- the judge -----------------------------------------------------------------------------------------------
    def judge_message(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """A validation gate's verdict: clean (rating 1; every user turn rated 3), or, while ``judge_fail[gate]``
        lasts, failed (premature ending detected; the first user turn rated 1 for a wrong entity)."""
        system, user = messages[0]["content"], messages[-1]["content"]
        gate = next((g for start, g in JUDGE_PROMPTS.items() if system.startswith(start)), None)
        if gate is None:
            raise RuntimeError(f"not a validation-gate prompt: {system[:60]!r}")
        self.state.judged.append((gate, user))
        fail = self.state.judge_fail.get(gate, 0) > 0
        if fail:
            self.state.judge_fail[gate] -= 1
        if gate == "user_behavioral_fidelity":
            analysis = {
                name: {"analysis": "scripted verdict", "detected": fail and name == "premature_ending"}
                for name in CORRUPTIONS
            }
            verdict: dict[str, Any] = {"corruption_analysis": analysis, "rating": 0 if fail else 1}
        else:
            turns = [int(t) for t in re.findall(r"^turn_id (\d+):", user, re.MULTILINE)]
            verdict = {
                "turns": [
                    {
                        "turn_id": t,
                        "transcript": "",
                        "explanation": "scripted verdict",
                        "rating": 1 if fail and n == 0 else 3,
                    }
                    for n, t in enumerate(turns)
                ]
            }
        return {"role": "assistant", "content": json.dumps(verdict)}

    # -- the policy ----------------------------------------------------------------------------------------------
    def _user_text(self, content: Any, turn: int) -> str:
        if isinstance(content, str):
            return content
        texts = []
        for part in content:
            if part.get("type") == "text":
                texts.append(part["text"])
            elif part.get("type") == "input_audio":
                self.state.audio_parts += 1
                data = part["input_audio"]["data"]
                key = (turn, hashlib.sha256(data.encode()).hexdigest())
                if key not in self._heard:
                    samples, rate = sf.read(io.BytesIO(base64.b64decode(data)), dtype="float32")
                    self._heard[key] = self._asr.transcribe(samples, rate).text
                texts.append(self._heard[key])
        return " ".join(texts)

    def policy_message(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        turn = len(users)
        if turn == 1 and messages[-1]["role"] == "user":
            self._heard.clear()  # a new conversation: nothing of it has been heard yet
        forever = [self.state.tools_forever] if self.state.tools_forever else None
        if forever or (turn in self.state.mangled and messages[-1]["role"] == "user"):
            calls = forever or self.state.mangled[turn]
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"{MANGLED_ID}{len(messages)}_{n}",
                        "type": "function",
                        "function": {"name": name, "arguments": args},
                    }
                    for n, (name, args) in enumerate(calls)
                ],
            }
        when = re.search(r"^Today is (.+)\.$", messages[0]["content"], re.MULTILINE)
        assert when is not None, "no 'Today is ...' line in the system prompt"
        results = {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}
        recorded = [
            (call["function"]["name"], results[call["id"]])
            for m in messages
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or []
            if not call["id"].startswith(MANGLED_ID)
        ]
        tools = ReplayToolBox(self.state.domain, recorded)
        policy = make_policy(self.state.domain, tools, when[1])  # type: ignore[arg-type]
        policy.greet()
        for n, index in enumerate(users, start=1):
            try:
                reply = policy.step(self._user_text(messages[index]["content"], n))
            except NeedTool as need:
                if n != turn:
                    raise RuntimeError(f"user turn {n} needs a tool result the history lacks ({need.name})") from None
                call_id = f"call_{turn}_{len(recorded)}"
                function = {"name": need.name, "arguments": json.dumps(need.arguments, default=str)}
                return {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": call_id, "type": "function", "function": function}],
                }
        if tools.pending:
            raise RuntimeError(f"{tools.pending} recorded tool result(s) the policy never asked for")
        return {"role": "assistant", "content": reply.text}

    # -- HTTP ----------------------------------------------------------------------------------------------------
    def _serve(self, path: str, headers: Any, raw: bytes) -> tuple[int, str, bytes]:
        route = ROUTES.get(path.rstrip("/"))
        if route is None:
            return _error(404, f"no route {path}", "not_found")
        state = self.state
        state.authorization.append(headers.get("Authorization"))
        if state.api_key is not None and headers.get("Authorization") != f"Bearer {state.api_key}":
            return _error(401, "Incorrect API key provided.", "invalid_api_key")
        if state.fail_always.get(route):
            return _error(state.fail_always[route], f"scripted failure of {route}", "server_error")
        if state.fail_next.get(route):
            return _error(state.fail_next[route].pop(0), f"scripted failure of {route}", "rate_limit_exceeded")
        if route == "transcriptions":
            fields = _multipart(headers.get("Content-Type", ""), raw)
            model, handler = fields.get("model", b"").decode(), lambda: self.transcriptions(fields)
        else:
            body = json.loads(raw)
            model, handler = body.get("model", ""), lambda: getattr(self, route)(body)
        if model not in state.models:
            return _error(404, f"The model `{model}` does not exist.", "model_not_found")
        return handler()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with server._lock:
                    started = time.perf_counter()
                    try:
                        status, content_type, data = server._serve(self.path, self.headers, raw)
                    except Exception as exc:  # a broken test server must say why, not hang the agent
                        status, content_type, data = _error(500, f"{type(exc).__name__}: {exc}", "server_error")
                    route = ROUTES.get(self.path.rstrip("/"), self.path)
                    stats = server.state.stats[route]
                    stats.requests += 1
                    stats.seconds += time.perf_counter() - started
                    server.state.statuses.append((route, status))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def __enter__(self) -> VoiceAgentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _usage(messages: Any, message: dict[str, Any]) -> dict[str, int]:
    """A deterministic token count (a quarter of the JSON characters), so usage is never all zeros."""
    tokens_in, tokens_out = len(json.dumps(messages)) // 4, max(1, len(json.dumps(message)) // 4)
    return {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out}


def _error(status: int, message: str, code: str) -> tuple[int, str, bytes]:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return status, "application/json", json.dumps(body).encode()


def _multipart(content_type: str, raw: bytes) -> dict[str, bytes]:
    """The fields of a multipart/form-data body (the stdlib email parser; ``cgi`` is gone in Python 3.13)."""
    message = email.parser.BytesParser().parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    return {
        part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
        for part in message.get_payload()
    }
