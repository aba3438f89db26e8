"""The failure every wire adapter raises when its connection fails: an infrastructure failure, not the agent's."""

from __future__ import annotations


class WireError(RuntimeError):
    """The call's connection failed; the message says how (an infrastructure failure, not the agent's)."""
