"""Architecture checks (issue 12 point 6): docs/architecture.md's dependency rules, no import cycles, modules of
modest size.

The dependency rules are import-linter contracts in ``pyproject.toml`` (``[tool.importlinter]``); these tests run
them so that ``pytest`` enforces them. Every import counts, including those inside functions.
"""

from __future__ import annotations

import ast
import io
import logging
import os
import shutil
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

from tests.conftest import REPO

PACKAGES = ("evalkit", "perturbations", "hydra_plugins")

# --- Import graph ------------------------------------------------------------------------------------------------


def test_import_contracts_hold() -> None:
    """All contracts of pyproject.toml are kept (`lint-imports` prints which one broke and the offending imports)."""
    # lint-imports configures logging with disable_existing_loggers: every logger created so far (evalkit's too)
    # would stay silent for the rest of the session, and later tests that listen to them would hear nothing
    loggers = [logging.getLogger(name) for name in logging.root.manager.loggerDict]
    disabled = {logger.name: logger.disabled for logger in loggers}
    try:
        assert lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True, no_logo=True) == 0
    finally:
        for logger in loggers:
            logger.disabled = disabled[logger.name]


def _strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph is deep enough to make recursion fragile)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


# Module-level cycles that exist today, owned by other work; the test fails once one is gone so the entry is deleted.
KNOWN_MODULE_CYCLES: list[set[str]] = []  # none left; a new cycle fails the test


def test_no_module_import_cycles() -> None:
    """Module by module (the contracts check packages), no import cycle except the known ones listed above."""
    graph = grimp.build_graph("evalkit", "perturbations", cache_dir=None, exclude_type_checking_imports=True)
    cycles = _strongly_connected(graph)
    assert [c for c in cycles if c not in KNOWN_MODULE_CYCLES] == []
    assert [c for c in KNOWN_MODULE_CYCLES if c not in cycles] == [], "a known cycle is gone: delete its entry"


def test_strongly_connected_finds_cycles() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.d", "p.d")]:
        graph.add_import(importer=importer, imported=imported)
    assert _strongly_connected(graph) == [{"p.a", "p.b", "p.c"}]


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("perturbations/chain.py", "import evalkit.seeds", "perturbations imports nothing from evalkit"),
        ("evalkit/metrics/base.py", "import mlflow", "only evalkit.tracking imports mlflow"),
        ("evalkit/records.py", "import hydra", "the sweeper plug-in import hydra"),
        ("evalkit/speech/voices.py", "import requests", "websockets, mcp or an HTTP client"),
        ("evalkit/metrics/base.py", "import evalkit.speech.voices", "metrics never import agents"),
        ("evalkit/metrics/entities.py", "import evalkit.spoken", "metrics read spoken entities with their own"),
        ("evalkit/analysis/stats.py", "import evalkit.simulator.persona", "analysis never imports"),
        ("evalkit/domains/base.py", "import evalkit.agents.base", "domains never import agents"),
        ("evalkit/simulator/persona.py", "import evalkit.agents.base", "agents and simulators never"),
        # issue 28 point 4: the call loop building the scripted caller itself, the scorer using the agent's ear
        ("evalkit/call/conversation.py", "import evalkit.simulator.scripted.caller", "the harness never imports"),
        ("evalkit/cell/score.py", "import evalkit.agents.reference.hearing", "the harness never imports"),
        ("evalkit/textnorm.py", "import evalkit.spoken", "no import cycles"),
        # issue 32 point 3: the backward arrow the scenario split removed (the store finding a domain's folder)
        ("evalkit/scenarios/store.py", "import evalkit.domains.domain", "scenarios on two layers"),
        # ... and the other way: a domain reaching up into the scenario tools (check, replay, text-run)
        ("evalkit/domains/scenarios.py", "import evalkit.scenario_tools.check", "scenarios on two layers"),
    ],
)
def test_contracts_catch_violations(tmp_path: Path, module: str, line: str, broken: str) -> None:
    """A copy of the code with one forbidden import (inside a function: lazy imports count) breaks its contract."""
    for package in PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n\ndef _violation() -> None:\n    {line}\n")
    # A fresh interpreter, so the copy (not the already imported packages) is what import-linter scans.
    result = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    broken_section = " ".join(result.stdout.split("Broken contracts", 1)[1].split())  # undo the line wrapping
    assert broken in broken_section


# --- Module size -------------------------------------------------------------------------------------------------

MAX_LOGIC_LINES = 400

# Modules over the limit, each with today's count as a ceiling (they may only shrink). None left: every module of
# evalkit and perturbations is within the limit; an entry here is a debt to name, never a silent exception.
OVERSIZED: dict[str, int] = {}

_NOT_LOGIC = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def logic_lines(source: str) -> int:
    """Lines holding code: blank lines, comments and docstrings do not count; other string literals (prompts) do."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_LOGIC:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - _docstring_lines(ast.parse(source)))


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py"))


def test_logic_lines_counts_code_only() -> None:
    source = '''"""Module docstring.

spanning lines."""

# a comment
X = 1  # trailing comment


def f() -> str:
    """Docstring."""
    return """a prompt
kept in code"""
'''
    assert logic_lines(source) == 4


def test_modules_stay_small() -> None:
    """No module over ~400 lines of logic; data tables and prompts belong in data files beside the code."""
    counts = {str(p.relative_to(REPO)): logic_lines(p.read_text()) for p in _modules()}
    too_big = {name: n for name, n in counts.items() if n > OVERSIZED.get(name, MAX_LOGIC_LINES)}
    assert too_big == {}, f"over {MAX_LOGIC_LINES} lines of logic (or above their allow-list ceiling)"
    # Shrinking below a ceiling is fine (parallel work must not break on it); dropping under the limit ends the entry.
    small_enough = [name for name in OVERSIZED if counts.get(name, 0) <= MAX_LOGIC_LINES]
    assert small_enough == [], "under the limit now (or gone): delete these entries from OVERSIZED"


def test_data_files_are_package_data() -> None:
    """Data files beside the code (prompts, word tables, scenarios) are installed: package-data names each one."""
    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package in PACKAGES:
        root = REPO / package
        files = {p for p in root.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")}
        installed = {p for pattern in globs.get(package, []) for p in root.glob(pattern)}
        assert sorted(str(p.relative_to(REPO)) for p in files - installed) == []
