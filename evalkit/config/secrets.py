"""Secrets never reach disk or logs: refused where they can be refused, redacted by value where they cannot.

A key name filter (``SECRET_MARKERS`` in :mod:`evalkit.config.schema`) only catches ``api_key: ...``; a key can also
hide in a URL's user-info (``http://user:key@host/v1``) or be pasted into any field. So:

- credentials in a URL are *refused* (not stripped): a URL with user-info would make ``requests`` send HTTP Basic
  auth and silently replace the Bearer key read from ``judge.api_key_env``; the one-line answer points at the
  environment variable to use instead;
- a key given as a config value (``+judge.api_key=...``) is refused on the command line, before Hydra writes
  ``.hydra/`` or ``multirun.yaml`` (:func:`secret_override_problem`, called by ``evalkit.__main__``);
- whatever still gets written (``config.yaml``, MLflow params, error messages) goes through :func:`redact`, which
  replaces URL user-info and every value read from a secret environment variable with ``***``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_NAME_MARKERS = ("key", "token", "secret", "password", "passwd", "credential")
# Config keys that name where a secret lives, not the secret itself.
SECRET_POINTER_KEYS = ("api_key_env",)
REDACTED = "***"
MIN_SECRET_CHARS = 6  # shorter env values ("1", "true") are not secrets, and redacting them would mangle text
# scheme://user[:password]@host — the user-info part of any URL, wherever it sits in a string.
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
_WHERE_TO_PUT_KEYS = (
    "put the key in an environment variable and name it with judge.api_key_env=VAR "
    "(for the tracking server: MLFLOW_TRACKING_USERNAME/MLFLOW_TRACKING_PASSWORD or $MLFLOW_TRACKING_URI)"
)


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered not in SECRET_POINTER_KEYS and any(m in lowered for m in SECRET_NAME_MARKERS)


def secret_env_values(extra_names: Iterable[str] = ()) -> list[str]:
    """Values of the environment variables that hold secrets (by name, plus the ones a config names), longest
    first so a secret that contains another is replaced whole."""
    names = {n for n in os.environ if is_secret_name(n)} | {n for n in extra_names if n}
    values = {os.environ[n] for n in names if len(os.environ.get(n, "")) >= MIN_SECRET_CHARS}
    return sorted(values, key=len, reverse=True)


def redact_text(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with URL user-info and every secret env value replaced by ``***``."""
    text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    for value in secret_env_values() if secrets is None else secrets:
        text = text.replace(value, REDACTED)
    return text


def redact(node: Any, secrets: Iterable[str] | None = None) -> Any:
    """A copy of a JSON-like tree with every string redacted by :func:`redact_text` (keys are kept)."""
    values = list(secret_env_values() if secrets is None else secrets)
    if isinstance(node, Mapping):
        return {k: redact(v, values) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [redact(v, values) for v in node]
    return redact_text(node, values) if isinstance(node, str) else node


def url_credentials_problem(key: str, value: str) -> str | None:
    """One line when ``value`` is a URL carrying user-info (the user-info itself is never echoed)."""
    if not _URL_USERINFO.search(value):
        return None
    return f"{key}: credentials in a URL are refused (they would be logged and sent as Basic auth); " + (
        _WHERE_TO_PUT_KEYS
    )


def config_secret_problems(node: Any, prefix: str = "") -> list[str]:
    """Credentials in a composed config: URL user-info in any string value, wherever it came from."""
    if isinstance(node, Mapping):
        return [p for k, v in node.items() for p in config_secret_problems(v, f"{prefix}.{k}" if prefix else str(k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in config_secret_problems(v, f"{prefix}[{i}]")]
    problem = url_credentials_problem(prefix, node) if isinstance(node, str) else None
    return [problem] if problem else []


def _split_override(arg: str) -> tuple[str, str] | None:
    if arg.startswith("-") or "=" not in arg:
        return None  # a flag (-m, --multirun, --config-dir ...) or a bare value
    key, _, value = arg.partition("=")
    return key.lstrip("+~"), value


def secret_override_problem(argv: Iterable[str]) -> str | None:
    """The first command-line override that would put a secret into ``.hydra/`` or ``multirun.yaml``, as one line
    that names the key (never the value); None when the command line is clean."""
    secrets = secret_env_values()
    for arg in argv:
        split = _split_override(arg)
        if split is None:
            continue
        key, value = split
        last = key.rsplit(".", 1)[-1]
        if is_secret_name(last):
            return (
                f"{key}: keys are never given in the config (Hydra would write them to .hydra/); " + _WHERE_TO_PUT_KEYS
            )
        problem = url_credentials_problem(key, value)
        if problem:
            return problem
        if any(s in value for s in secrets):
            return f"{key}: the value contains a secret read from the environment; " + _WHERE_TO_PUT_KEYS
    return None
