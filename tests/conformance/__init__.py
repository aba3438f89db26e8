"""Conformance fixtures: voice agents built from third-party frameworks (issue 26 point 6)."""
