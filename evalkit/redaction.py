"""Secrets never reach disk or logs: refused where they can be refused, redacted by value where they cannot.

A key, header or variable is secret-like when one of its whole words is a marker (:data:`SECRET_NAME_MARKERS`:
``api_key``, ``Authorization``, ``authToken``; not ``max_new_tokens``); a secret can also hide in a URL's user-info
(``http://user:key@host/v1``), its query (``ws://host/ws?token=...``) or be pasted into any field. So:

- credentials in a URL are *refused* (not stripped): a URL with user-info would make ``requests`` send HTTP Basic
  auth and silently replace the Bearer key read from ``judge.api_key_env``, and a URL is logged, tagged and recorded;
  the one-line answer points at the environment variable to use instead (``*.api_key_env``,
  ``agent.headers_from_env``);
- a secret given as a config value (``+judge.api_key=...``, ``+agent.headers.Authorization=...``) is refused on the
  command line, before Hydra writes ``.hydra/`` or ``multirun.yaml`` (:func:`secret_override_problem`, called by
  ``evalkit.__main__``), and in a composed config (a YAML option) by the preflight callback Hydra calls before it
  writes anything (:func:`config_secret_problems`);
- whatever still gets written (``config.yaml``, MLflow params and traces, error messages, failure tags) goes through
  :func:`redact`, which replaces URL user-info, secret query values, ``Bearer`` credentials and every value read from
  a secret environment variable with ``***``, in time linear in the text.

At the package's root (not in ``evalkit.config``) so the call loop, the wire adapters and tracking redact without an
import cycle (named ``redaction``, not ``secrets``, so it never shadows the standard library's module); its former
home ``evalkit.config.secrets`` re-exports it.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

# Whole words of a key, header or variable name that make it secret-like (``api_key``, ``X-Auth-Token``,
# ``Authorization``, ``MLFLOW_TRACKING_PASSWORD``, ``apiKey``). Whole words only: ``max_new_tokens`` or
# ``judge.max_tokens`` are settings, and ``nokey`` is no key.
SECRET_NAME_MARKERS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "credential",
        "credentials",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "signature",
        "sig",
    }
)
# Config keys that name where a secret lives, not the secret itself.
SECRET_POINTER_KEYS = ("api_key_env", "headers_from_env")
REDACTED = "***"
MIN_SECRET_CHARS = 6  # shorter env values ("1", "true") are not secrets, and redacting them would mangle text
# Every pattern below starts with a literal or a one-character class and has no nested repetition, so a scan is
# linear in the text: an agent's tool argument of several MB is redacted in milliseconds. (The former
# ``[A-Za-z][A-Za-z0-9+.-]*://`` retried its scheme run from every letter: 40,000 letters took ~4 s.)
_SCHEME_SEP = re.compile(r"://(?P<userinfo>[^/@\s]+)@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
# name=value in a URL's query (``?token=...``, ``&sig=...``) whose name holds a marker (checked as a whole word by
# :func:`is_secret_name` on each match); the name runs are bounded, so a text of a million ``a=b&`` stays linear.
_QUERY_PARAM = re.compile(
    r"(?P<lead>[?&;])(?P<name>[A-Za-z0-9_.\-]{0,32}?(?:"
    + "|".join(sorted(SECRET_NAME_MARKERS, key=len, reverse=True))
    + r")[A-Za-z0-9_.\-]{0,32})=(?P<value>[^&#\s\"']*)",
    re.IGNORECASE,
)
# ``Authorization: Bearer abc...`` pasted into a message or a log line.
_BEARER = re.compile(r"(?P<lead>\b(?:Bearer|Basic|Token)[ \t]+)(?P<value>[A-Za-z0-9._~+/=-]{6,})")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_WHERE_TO_PUT_KEYS = (
    "put the key in an environment variable and name it with judge.api_key_env=VAR "
    "(for the tracking server: MLFLOW_TRACKING_USERNAME/MLFLOW_TRACKING_PASSWORD or $MLFLOW_TRACKING_URI)"
)
_WHERE_TO_PUT_HEADERS = (
    "name an environment variable that holds it: +agent.headers_from_env.Authorization=VAR "
    "(the value is read when dialling, never written)"
)


def name_words(name: str) -> list[str]:
    """The lower-case words of a key name: split at every non-alphanumeric and at camelCase humps."""
    return [w.lower() for w in _WORD_SPLIT.split(name) if w]


@functools.lru_cache(maxsize=4096)  # a redacted text may hold a million query parameters of a few names
def is_secret_name(name: str) -> bool:
    """A name whose words include a secret marker (``api_key``, ``Authorization``, ``authToken``); pointer keys
    (``api_key_env``: the name of a variable) are not secrets."""
    return name.lower() not in SECRET_POINTER_KEYS and any(w in SECRET_NAME_MARKERS for w in name_words(name))


def secret_env_values(extra_names: Iterable[str] = ()) -> list[str]:
    """Values of the environment variables that hold secrets (by name, plus the ones a config names), longest
    first so a secret that contains another is replaced whole."""
    names = {n for n in os.environ if is_secret_name(n)} | {n for n in extra_names if n}
    values = {os.environ[n] for n in names if len(os.environ.get(n, "")) >= MIN_SECRET_CHARS}
    return sorted(values, key=len, reverse=True)


def _userinfo_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the user-info of every ``scheme://user[:password]@`` in ``text``, in one linear pass: each
    ``://`` is found by a literal search, its scheme checked by walking back over scheme characters (a walk that
    stops at the previous ``:``, so no character is walked twice)."""
    spans = []
    for match in _SCHEME_SEP.finditer(text):
        start = match.start()
        begin = start
        while begin > 0 and text[begin - 1] in _SCHEME_CHARS:
            begin -= 1
        if any(c.isalpha() for c in text[begin:start]):  # a scheme starts with a letter: "1://x@y" is none
            spans.append(match.span("userinfo"))
    return spans


def _redact_userinfo(text: str) -> str:
    spans = _userinfo_spans(text) if "://" in text else []
    if not spans:
        return text
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], REDACTED]
        last = end
    return "".join(parts) + text[last:]


def _redact_query(match: re.Match[str]) -> str:
    if not match["value"] or not is_secret_name(match["name"]):
        return match[0]
    return match["lead"] + match["name"] + "=" + REDACTED


def redact_text(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with URL user-info, the values of secret-named URL query parameters (``?token=...``), ``Bearer ...``
    credentials and every secret env value replaced by ``***``. Linear in ``len(text)``."""
    text = _redact_userinfo(text)
    if "=" in text:
        text = _QUERY_PARAM.sub(_redact_query, text)
    text = _BEARER.sub(lambda m: f"{m['lead']}{REDACTED}", text)
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


def _hint(key: str) -> str:
    """Where the secret goes instead: an agent's credential is a header read from an environment variable
    (agent.headers_from_env); any other key is named by its ``api_key_env``."""
    parts = key.split(".")
    dialled = parts[0] == "agent" and parts[-1] in ("url", "path")
    return _WHERE_TO_PUT_HEADERS if "headers" in parts or dialled else _WHERE_TO_PUT_KEYS


def _under_pointer(key: str) -> bool:
    """``agent.headers_from_env.Authorization``: the value is the name of a variable, not a secret."""
    return any(part in SECRET_POINTER_KEYS for part in key.replace("[", ".").split("."))


def secret_key_problem(key: str) -> str | None:
    """One line when ``key`` (a dotted config path) names a secret given as a value."""
    if _under_pointer(key) or not is_secret_name(key.rsplit(".", 1)[-1]):
        return None
    return f"{key}: secrets are never given in the config (Hydra would write them to .hydra/); " + _hint(key)


def url_credentials_problem(key: str, value: str) -> str | None:
    """One line when ``value`` holds a URL carrying user-info or a secret-named query parameter (``?token=``), or a
    ``Bearer ...`` credential; the secret itself is never echoed."""
    if "://" in value and _userinfo_spans(value):
        return f"{key}: credentials in a URL are refused (they would be logged and sent as Basic auth); " + _hint(key)
    if "://" in value and any(is_secret_name(m["name"]) and m["value"] for m in _QUERY_PARAM.finditer(value)):
        return (
            f"{key}: a credential in a URL's query string is refused (the URL is logged, tagged and recorded); "
            + _WHERE_TO_PUT_HEADERS
        )
    if _BEARER.search(value):
        return f"{key}: a credential (Bearer/Basic/Token ...) is refused in the config; " + _WHERE_TO_PUT_HEADERS
    return None


def config_secret_problems(node: Any, prefix: str = "") -> list[str]:
    """Credentials in a composed config, wherever they came from (a YAML option, the command line): a value under a
    secret-named key (``agent.headers.Authorization``, ``judge.api_key``), URL user-info, a secret query
    parameter or a ``Bearer`` credential in any string value."""
    if isinstance(node, Mapping):
        problems = []
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            problem = secret_key_problem(key) if v not in (None, "", {}, []) else None
            problems += [problem] if problem else config_secret_problems(v, key)
        return problems
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in config_secret_problems(v, f"{prefix}[{i}]")]
    if isinstance(node, str) and _under_pointer(prefix):
        problem = pointer_problem(prefix, node)
    else:
        problem = url_credentials_problem(prefix, node) if isinstance(node, str) else None
    return [problem] if problem else []


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def pointer_problem(key: str, value: str) -> str | None:
    """``*.api_key_env`` and ``agent.headers_from_env.*`` name a variable; a value that is no variable name is most
    likely the key itself pasted in (and would be echoed by "$... is not set"): refused, never quoted."""
    if not value or _ENV_NAME.fullmatch(value):
        return None
    return (
        f"{key}: names the environment variable that holds the secret, but the value given is not a variable name "
        "(letters, digits, '_'); export the secret and give the variable's name"
    )


# ``{Authorization: 'Bearer x'}`` given as one override's value: the dict's keys are config keys too.
_DICT_KEY = re.compile(r"[{,]\s*['\"]?(?P<name>[A-Za-z0-9_.\-]{1,128})['\"]?\s*:")


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
        problem = secret_key_problem(key) or next(
            (p for m in _DICT_KEY.finditer(value) if (p := secret_key_problem(f"{key}.{m['name']}"))), None
        )
        if _under_pointer(key) and "{" not in value:  # (a dict is checked once composed, before Hydra writes)
            parts = (p.strip().strip("'\"") for p in value.split(","))  # a sweep: A,B
            problem = problem or next((p for part in parts if (p := pointer_problem(key, part))), None)
        problem = problem or url_credentials_problem(key, value)
        if problem:
            return problem
        if any(s in value for s in secrets):
            return f"{key}: the value contains a secret read from the environment; " + _WHERE_TO_PUT_KEYS
    return None
