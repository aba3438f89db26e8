"""Issue 30 point 4: provider limits shared by every call of a process, and the credential preflight. A real HTTP
server on 127.0.0.1 counts the requests in flight and stamps each arrival with its own clock; it answers 429 with
``Retry-After`` when told to, and ``GET /v1/models`` with 200 or 401 by the key."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from evalkit.config import preflight as pf
from evalkit.config.schema import validate_config
from evalkit.wire.openai_http import limits
from evalkit.wire.openai_http.retry import RetryPolicy, post_with_retries
from tests.openai_server import completion_body, free_port, send_json
from tests.test_config import composed

KEY = "sk-test-limits"


class CountingServer:
    """POST /v1/chat/completions answers after ``delay_s``; the first ``throttle`` requests get 429 with
    ``Retry-After: retry_after``. ``arrivals``: (server monotonic time, status) per request; ``peak``: the most
    requests in flight at once. GET /v1/models: 200 with the right Bearer key, else 401."""

    def __init__(self, delay_s: float = 0.0, throttle: int = 0, retry_after: str = "1") -> None:
        self.delay_s, self.throttle, self.retry_after = delay_s, throttle, retry_after
        self.arrivals: list[tuple[float, int]] = []
        self.gets: list[str | None] = []
        self.in_flight = self.peak = 0
        self.throttled = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                auth = self.headers.get("Authorization")
                server.gets.append(auth)
                ok = self.path.rstrip("/") == "/v1/models" and auth == f"Bearer {KEY}"
                self._send(200 if ok else 401, {"data": []} if ok else {"error": {"message": "bad key"}}, {})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with server._lock:
                    throttle = len(server.arrivals) < server.throttle
                    status = 429 if throttle else 200
                    server.arrivals.append((time.monotonic(), status))
                    server.in_flight += 1
                    server.peak = max(server.peak, server.in_flight)
                try:
                    if throttle:
                        self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": server.retry_after})
                        server.throttled.set()
                        return
                    time.sleep(server.delay_s)
                    self._send(200, completion_body("ok"), {})
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
                send_json(self, status, json.dumps(body), headers)

        return Handler

    def __enter__(self) -> CountingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(autouse=True)
def _no_caps_left() -> Iterator[None]:
    yield
    limits.configure(None, {})  # process-wide state: the next test starts uncapped


def _post(url: str) -> None:
    policy = RetryPolicy(max_retries=3, backoff_base_s=0.01, backoff_max_s=5.0)
    post_with_retries(url, what="test", policy=policy, timeout_s=30, headers={}, json={"messages": []})


def _all_at_once(url: str, n: int) -> None:
    threads = [threading.Thread(target=_post, args=(url,)) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)


def test_the_cap_of_a_provider_holds_across_concurrent_calls() -> None:
    with CountingServer(delay_s=0.15) as server:
        limits.configure(None, {server.base_url: 2})
        _all_at_once(server.base_url + "/chat/completions", 6)
        assert len(server.arrivals) == 6
        assert server.peak == 2  # never more than the cap in flight, and the cap is used
        assert limits.snapshot()[server.base_url] == {"cap": 2, "peak": 2.0}
    with CountingServer(delay_s=0.15) as uncapped:  # the same calls without a cap all go at once
        _all_at_once(uncapped.base_url + "/chat/completions", 4)
        assert uncapped.peak > 2


def test_a_retry_after_pauses_every_call_of_the_process_to_that_provider() -> None:
    """The first request gets 429 with Retry-After: 1; requests other threads send meanwhile wait for it too."""
    with CountingServer(throttle=1, retry_after="1") as server:
        url = server.base_url + "/chat/completions"
        first = threading.Thread(target=_post, args=(url,))
        first.start()
        assert server.throttled.wait(10)
        time.sleep(0.1)  # the 429 has reached the client: its cool-down is set
        _all_at_once(url, 3)
        first.join(timeout=30)
    (t429, status), *later = server.arrivals
    assert status == 429 and len(later) == 4 and all(s == 200 for _, s in later)
    waits = [t - t429 for t, _ in later]
    assert min(waits) >= 0.9, waits  # nobody sent before the server's second was over (generous bounds)
    assert max(waits) < 15.0, waits


def _judged_config(base_url: str, *extra: str) -> Any:
    return validate_config(
        composed(
            "judge=openai_compatible",
            f"judge.base_url={base_url}",
            "judge.model=m",
            "judge.api_key_env=EVALKIT_TEST_LIMITS_KEY",
            *extra,
        )
    )


def _with(config: Any, group: str, **values: Any) -> Any:
    return config.model_copy(update={group: getattr(config, group).model_copy(update=values)})


def test_the_credential_preflight_names_the_endpoint_and_the_status(monkeypatch) -> None:
    with CountingServer() as server:
        config = _judged_config(server.base_url)
        monkeypatch.setenv("EVALKIT_TEST_LIMITS_KEY", "sk-wrong")
        lines = pf.endpoint_problems(config)
        assert len(lines) == 1 and "judge.base_url" in lines[0] and server.base_url in lines[0]
        assert "HTTP 401" in lines[0] and "providers.preflight=false" in lines[0] and "sk-wrong" not in lines[0]
        monkeypatch.setenv("EVALKIT_TEST_LIMITS_KEY", KEY)
        assert pf.endpoint_problems(config) == []
        assert pf.endpoint_problems(config) == []  # asked once per key: a sweep's jobs share the answer
        assert pf.endpoint_problems(_with(config, "providers", preflight=False)) == []
        assert server.gets == ["Bearer sk-wrong", f"Bearer {KEY}"]  # skipped: no request
        assert server.arrivals == []  # the preflight sends no billed request
    down = f"http://127.0.0.1:{free_port()}/v1"
    lines = pf.endpoint_problems(_with(config, "judge", base_url=down))
    assert len(lines) == 1 and down in lines[0] and "unreachable" in lines[0]


@pytest.mark.slow  # one `python -m evalkit` start: the wiring, refused before any cell
def test_a_refused_key_stops_the_run_before_any_cell_in_one_line(tmp_path) -> None:
    from tests.test_preflight import assert_no_cell_started, assert_one_line_refusal, evalkit_cli

    with CountingServer() as server:
        judge = ("judge=openai_compatible", f"judge.base_url={server.base_url}", "judge.model=m")
        proc = evalkit_cli(
            tmp_path, *judge, "judge.api_key_env=EVALKIT_TEST_LIMITS_KEY", env={"EVALKIT_TEST_LIMITS_KEY": "sk-no"}
        )
        assert server.gets == ["Bearer sk-no"] and server.arrivals == []
    line = assert_one_line_refusal(proc, "judge.base_url", server.base_url, "HTTP 401")
    assert "sk-no" not in proc.stdout + proc.stderr and "providers.preflight=false" in line
    assert_no_cell_started(tmp_path)


def test_the_whole_preflight_probes_endpoints_only_for_a_config_whose_own_checks_pass(monkeypatch, tmp_path) -> None:
    """An unset key variable is one line, not a second one for the 401 the probe would get (no request is sent); a
    refused key is one line for an otherwise good config, and held back while a layer below has a problem (a bad
    pricing table): one bad input, one line."""
    monkeypatch.chdir(tmp_path)
    with CountingServer() as server:
        config = _judged_config(server.base_url, f"mlflow.tracking_uri=sqlite:///{tmp_path}/mlflow.db")
        monkeypatch.delenv("EVALKIT_TEST_LIMITS_KEY", raising=False)
        with pytest.raises(pf.ConfigError) as unset:
            pf.preflight(config, tmp_path)
        assert str(unset.value).splitlines() == [pf.judge_problems(config)[0]] and server.gets == []
        monkeypatch.setenv("EVALKIT_TEST_LIMITS_KEY", "sk-refused")
        with pytest.raises(pf.ConfigError) as priced:
            pf.preflight(_with(config, "pricing", file=str(tmp_path / "no_such_table.yaml")), tmp_path)
        assert len(lines := str(priced.value).splitlines()) == 1 and "no_such_table.yaml" in lines[0], lines
        with pytest.raises(pf.ConfigError) as refused:
            pf.preflight(_with(config, "pricing", file=None), tmp_path)
        assert len(lines := str(refused.value).splitlines()) == 1 and "HTTP 401" in lines[0], lines
        assert server.arrivals == []  # the probe sends no billed request
