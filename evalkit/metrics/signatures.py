"""Metric signatures: each built-in metric's version and a hash of the code that computes its scores.

``tests/metric_signatures.json`` records ``{name: {"version": v, "hash": h}}``; ``tests/test_metric_signatures.py``
fails when a metric's code changed but its recorded version did not (bump ``Metric(version=...)``), and
``python scripts/update_metric_signatures.py`` writes the file (docs/provenance.md "Metric versions").

A metric's code is the module that defines its scoring function plus every module of ``evalkit.metrics`` it
imports, transitively (the plug-in machinery, ``registry``, and the cell aggregation, ``aggregate``, excepted), and
the text helpers scores depend on (``evalkit.textnorm``, ``evalkit.spoken`` with its word tables). Comments,
docstrings, blank lines and trailing spaces are left out of the hash: rewording them is no reason for a new version.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from collections.abc import Iterable
from pathlib import Path

from evalkit.metrics.base import Metric

# Modules outside evalkit.metrics whose code decides scores (word normalisation for WER, spoken numbers and codes).
TEXT_HELPERS = frozenset({"evalkit.textnorm", "evalkit.spoken"})
# Inside evalkit.metrics but not part of any metric's scoring: the registry (plug-in loading; the order and
# isolation of scoring are tested on their own), the cell aggregation (pass@k over scores) and this module.
NOT_SCORING = frozenset(
    {"evalkit.metrics", "evalkit.metrics.registry", "evalkit.metrics.aggregate", "evalkit.metrics.signatures"}
)
DATA_FILES = {"evalkit.spoken": ("spoken.yaml",)}  # data a module reads from beside itself
Signatures = dict[str, dict[str, int | str]]  # metric name -> {"version": int, "hash": str}


def normalized_source(text: str) -> str:
    """``text`` without comments, docstrings, blank lines or trailing spaces (same on every Python version: only
    the tokenizer's comment positions and the parser's statement lines are used)."""
    drop_lines: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if docstring and isinstance(first.value.value, str):
                drop_lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines = text.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:  # a comment runs to the end of its line
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    kept = [line.rstrip() for number, line in enumerate(lines, 1) if number not in drop_lines]
    return "\n".join(line for line in kept if line)


EVALKIT_DIR = Path(__file__).resolve().parent.parent


def _module_file(name: str) -> Path | None:
    """The source file of evalkit module ``name``, None when ``name`` is no module (e.g. ``pkg.module.function``)."""
    parts = name.split(".")[1:]
    for candidate in (EVALKIT_DIR.joinpath(*parts).with_suffix(".py"), EVALKIT_DIR.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return None


def _source_file(name: str) -> Path:
    path = _module_file(name)
    if path is None:
        raise ValueError(f"metric signature: no source file for module {name}")
    return path


def _counted(name: str) -> bool:
    return name in TEXT_HELPERS or (name.startswith("evalkit.metrics.") and name not in NOT_SCORING)


def _imports(tree: ast.AST) -> set[str]:
    """Modules an AST imports (``from x import y`` also names ``x.y``, which may be a module)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def scoring_modules(module: str) -> list[str]:
    """``module`` and the counted modules it imports, transitively; sorted."""
    seen: set[str] = set()
    queue = [module]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse(_source_file(name).read_text(encoding="utf-8"))
        queue.extend(m for m in _imports(tree) if _counted(m) and _module_file(m) is not None)
    return sorted(seen)


def signature(modules: Iterable[str]) -> str:
    """SHA-256 (first 16 hex) of the modules' normalized sources and their data files' bytes."""
    digest = hashlib.sha256()
    for name in sorted(modules):
        path = _source_file(name)
        digest.update(f"{name}\0{normalized_source(path.read_text(encoding='utf-8'))}\0".encode())
        for data in DATA_FILES.get(name, ()):
            digest.update(f"{data}\0".encode() + path.with_name(data).read_bytes())
    return digest.hexdigest()[:16]


def metric_signature(metric: Metric) -> dict[str, int | str]:
    """``{"version": ..., "hash": ...}`` of a metric (its scoring function's module and what that imports)."""
    return {"version": metric.version, "hash": signature(scoring_modules(metric.fn.__module__))}


def builtin_signatures() -> Signatures:
    """Every built-in metric's signature, by name (third-party metrics keep their own)."""
    from evalkit.metrics.registry import METRICS  # at call time: the registry imports every module of this package

    METRICS.load()
    metrics = {name: METRICS[name] for name in sorted(METRICS)}
    return {n: metric_signature(m) for n, m in metrics.items() if m.fn.__module__.startswith("evalkit.metrics.")}


def signature_problems(
    recorded: dict[str, dict[str, int | str]], current: dict[str, dict[str, int | str]]
) -> list[str]:
    """Why ``recorded`` (the file) and ``current`` (the code) disagree; one line each, empty when they agree."""
    problems = []
    for name in sorted(set(recorded) | set(current)):
        old, new = recorded.get(name), current.get(name)
        if old is None:
            problems.append(f"{name}: new metric, no recorded signature")
        elif new is None:
            problems.append(f"{name}: recorded but no longer a built-in metric")
        elif old["hash"] != new["hash"] and old["version"] == new["version"]:
            problems.append(
                f"{name}: its code changed but its version is still {new['version']}: bump Metric(version=...) if "
                f"its scores can change (or accept it as a refactor with --accept {name})"
            )
        elif old != new:
            problems.append(f"{name}: version {old['version']} -> {new['version']}: record the new signature")
    return problems
