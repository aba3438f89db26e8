"""Re-export of :mod:`evalkit.secrets` (its former home): the redaction rules live at the package's root so the call
loop, the wire adapters and tracking can redact without importing the config package (no import cycle)."""

from evalkit.secrets import (  # noqa: F401
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
