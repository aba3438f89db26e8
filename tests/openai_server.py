"""A real, scriptable OpenAI-compatible chat-completions server on 127.0.0.1 for tests (stdlib only).

    with OpenAIStubServer([reply_json({...}), Reply(status=500)]) as server:
        ... base_url=server.base_url ...
        assert len(server.requests) == 2

Each POST to /v1/chat/completions consumes the next scripted `Reply` (the last one repeats once the script runs
out; a callable in the script answers every request it is used for from the request, e.g. a judge policy);
every request is recorded (path, headers, parsed JSON body) so tests can count calls and inspect what was
sent. A `Reply` whose ``content`` is a str is wrapped in the OpenAI chat-completion envelope; ``raw`` sends a body
verbatim (to test broken envelopes).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


def completion_body(content: str, model: str = "stub-judge") -> dict[str, Any]:
    """The OpenAI chat-completions response envelope around one assistant message."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def reply_json(obj: Any) -> Reply:
    return Reply(content=json.dumps(obj))


def free_port() -> int:
    """A port nothing listens on right now (for the 'server down' case)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


Responder = Callable[[RecordedRequest], Reply]  # a reply that depends on the request (a judge policy)


class OpenAIStubServer:
    def __init__(self, script: list[Reply | Responder]) -> None:
        if not script:
            raise ValueError("script needs at least one Reply")
        self.script = list(script)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            index = min(len(self.requests) - 1, len(self.script) - 1)
            reply = self.script[index]
        return reply(request) if callable(reply) else reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length).decode("utf-8")
                try:
                    body: Any = json.loads(raw)
                except json.JSONDecodeError:
                    body = raw
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}), {})
                    return
                reply = server._next_reply(RecordedRequest(self.path, dict(self.headers.items()), body))
                if reply.delay_s:
                    threading.Event().wait(reply.delay_s)
                if reply.raw is not None:
                    payload = reply.raw
                elif reply.content is not None:
                    model = body.get("model", "stub") if isinstance(body, dict) else "stub"
                    payload = json.dumps(completion_body(reply.content, model=model))
                else:
                    payload = json.dumps({"error": {"message": f"scripted status {reply.status}"}})
                self._send(reply.status, payload, reply.headers)

            def _send(self, status: int, payload: str, headers: dict[str, str]) -> None:
                send_json(self, status, payload, headers)

        return Handler

    def __enter__(self) -> OpenAIStubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: str, headers: dict[str, str]) -> None:
    """One JSON answer with its status and extra headers (the test servers' shared reply)."""
    data = payload.encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)
