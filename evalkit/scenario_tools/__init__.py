"""The scenario tools: check, new, import-eva (EVA-Bench's records: eva_import, eva_record, eva_culture), replay,
text-run and the walk they share; ``python -m evalkit.scenarios`` (or ``python -m evalkit.scenario_tools``).

A package of their own, not a part of ``evalkit.scenarios``, because they stand on a higher layer: they run a
domain's tools, score by task completion (metrics) and play text dialogues, while domains and metrics import the
scenario schema and files from below. Kept in one package the two layers made backward arrows (scenarios ->
domains/metrics -> scenarios); split, every arrow points down, and ``[tool.importlinter]`` (contract
``scenario-layers``) fails on an import that points back.
"""
