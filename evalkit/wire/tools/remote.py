"""A ToolExecutor look-alike that reaches one call's tools at the harness's tool endpoint over HTTP.

``ToolBox(RemoteExecutor(custom_parameters["tool_endpoint"]))`` is all an in-process agent needs to run behind a
wire (evalkit's reference server does this): what evalkit's agents use of their ToolBox is ``call`` (through
``executor.call``), ``drain`` and ``executor.registry`` (``name in registry``), and the registry comes from the
endpoint's tool list. There is no ``db``: the scenario DB is the harness's and never leaves it.

Synchronous (requests, one kept-alive connection per call's executor): agents call tools from the thread their
``respond`` runs in. A transport failure or an HTTP error (the session ended: 404) raises ``ToolEndpointError``;
a wrong call (unknown tool, bad arguments) is an ordinary error result, as with the local executor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import requests

TIMEOUT_S = 10.0


class ToolEndpointError(RuntimeError):
    """The tool endpoint could not be reached or refused the request (not the agent's tool error)."""


class RemoteRegistry:
    """The names and schemas of the served tools (what ``name in executor.registry`` needs)."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.schemas = {t["function"]["name"]: t["function"] for t in tools}

    def __contains__(self, name: object) -> bool:
        return name in self.schemas

    @property
    def names(self) -> list[str]:
        return sorted(self.schemas)


class RemoteExecutor:
    def __init__(self, endpoint: str, timeout_s: float = TIMEOUT_S) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.timeout_s = timeout_s
        self._http = requests.Session()
        self._registry: RemoteRegistry | None = None

    @property
    def registry(self) -> RemoteRegistry:
        if self._registry is None:  # fetched on first use, in the agent's thread
            self._registry = RemoteRegistry(self._request("GET", "/tools"))
        return self._registry

    def call(self, name: str, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        body = {"name": name, "arguments": dict(arguments) if isinstance(arguments, Mapping) else arguments}
        return self._request("POST", "/call", body)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        url = self.endpoint + path
        try:
            response = self._http.request(method, url, json=body, timeout=self.timeout_s)
        except requests.RequestException as exc:
            raise ToolEndpointError(f"tool endpoint {url} unreachable: {exc}") from None
        if response.status_code != 200:
            try:
                reason = response.json().get("error", response.text)
            except ValueError:
                reason = response.text
            raise ToolEndpointError(f"tool endpoint {url} answered {response.status_code}: {reason}")
        return response.json()
