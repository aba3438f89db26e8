"""User simulators: produce what the caller says next. Scripted (offline, deterministic) by default."""
