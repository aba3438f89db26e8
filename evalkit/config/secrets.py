"""Where the secret rules used to live: a re-export of :mod:`evalkit.redaction`. They moved to the package's root so
the call loop, the wire adapters and tracking can redact without importing the config package (no import cycle)."""

from evalkit.redaction import (  # noqa: F401
    MIN_SECRET_CHARS,
    REDACTED,
    SECRET_NAME_MARKERS,
    SECRET_POINTER_KEYS,
    config_secret_problems,
    is_secret_name,
    name_words,
    redact,
    redact_text,
    secret_env_values,
    secret_key_problem,
    secret_override_problem,
    url_credentials_problem,
)
