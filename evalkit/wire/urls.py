"""URL checks shared by the wire agent configs (one rule, one message, for every kind that dials or serves)."""

from __future__ import annotations

from urllib.parse import urlsplit


def checked_url(url: str, schemes: tuple[str, ...]) -> str:
    """``url`` if its scheme is one of ``schemes`` and it names a host; else ValueError (a config error)."""
    parts = urlsplit(url)
    if parts.scheme not in schemes or not parts.netloc:
        wanted = " or ".join(f"{s}://" for s in schemes)
        raise ValueError(f"must be a {wanted} URL with a host, got {url!r}")
    return url
