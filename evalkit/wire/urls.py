"""URL checks shared by the wire agent configs (one rule, one message, for every kind that dials or serves)."""

from __future__ import annotations

from urllib.parse import urlsplit

from evalkit.redaction import redact_text


def checked_url(url: str, schemes: tuple[str, ...]) -> str:
    """``url`` if its scheme is one of ``schemes`` and it names a host; else ValueError (a config error)."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018  (a port that is not a number raises here, not when dialling)
        has_host = bool(parts.hostname)  # ws://:8765/ws has a netloc but no host
    except ValueError:
        has_host = False
    if parts.scheme not in schemes or not has_host:
        wanted = " or ".join(f"{s}://" for s in schemes)
        raise ValueError(f"must be a {wanted} URL with a host (and a numeric port), got {redact_text(url)!r}")
    return url
