"""``python -m evalkit.scenarios check|new|import-eva|replay|text-run``: the name users know for the scenario tools,
which live a layer up in ``evalkit.scenario_tools`` (its ``__main__`` documents every command).

This module is only ever run, never imported, so it holds no import of the tools: ``runpy`` runs their ``__main__`` by
its name, as ``python -m evalkit.scenario_tools`` would. The scenario layer thus imports nothing above it (contract
``scenario-layers`` in pyproject.toml), and the command keeps its name.
"""

import runpy

if __name__ == "__main__":
    runpy.run_module("evalkit.scenario_tools", run_name="__main__", alter_sys=True)
