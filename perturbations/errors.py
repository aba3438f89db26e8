"""The one exception the library raises for bad specs and bad audio."""

from __future__ import annotations


class PerturbationError(ValueError):
    """A spec or input that cannot be applied; the message names the op, its chain index and the field."""
