"""Northvale Power's outage line: an example use case for evalkit that is not EVA-Bench's (examples/outage_line).

``outage_line.backend`` registers the domain (the line's own tools and DB layout, run by the harness);
``outage_line.agent`` registers the agent kind ``outage_line`` (its own wording and dialogue). Both are plug-in
modules named by ``plugin:`` in ``conf/domain/outage_line.yaml`` and ``conf/agent/outage_line.yaml``.
"""
