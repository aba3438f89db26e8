"""Which code produced a result: the code fingerprint (part of a cell's identity) and the git provenance of a run.

The fingerprint is the package version plus a SHA-256 over the sources that can change a cell's results: every
``.py`` file and data file (yaml, json, md, txt, csv) of the ``evalkit`` and ``perturbations`` packages, by path
relative to the package and content, except what only reads, drives or logs results (:data:`EXCLUDED`). Computed
once per process (~11 MB of files, tens of ms) and cached; the same files give the same fingerprint on any machine
(sorted paths, bytes only: no mtimes, no absolute paths). docs/provenance.md explains how reuse uses it.

Git provenance (EVA-Bench records git state with every run): the commit of the checkout the code runs from and
whether it has uncommitted changes; absent (not "unknown") when the code is not in a git checkout, e.g. installed
from a wheel.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import perturbations

# Files whose bytes count: code and the data beside it (judge prompts, spoken-text tables, scenarios).
SOURCE_SUFFIXES = frozenset({".py", ".yaml", ".yml", ".json", ".md", ".txt", ".csv"})
# Left out, relative to the evalkit package: they start, read, compare or log cells but never change what a cell
# computes. The CLI verbs (sweep driver, exit status), the analysis and arena (read finished records), MLflow
# tracking (stores what was computed), re-scoring (writes runs of its own, each tagged with its metric versions),
# and every ``__main__`` entry point. Everything else, including the agents, simulators, speech, domains, metrics,
# judges and perturbations, is in.
EXCLUDED = ("cli/", "analysis/", "arena/", "tracking/", "analyze.py", "rescore.py")
FINGERPRINT_CHARS = 16
FINGERPRINT_TAG = "evalkit.fingerprint"
PACKAGE_DIR = Path(__file__).resolve().parent


def source_files(root: Path, excluded: tuple[str, ...] = ()) -> list[tuple[str, Path]]:
    """(posix path relative to ``root``, file) for every counted file under ``root``, sorted by path; paths that
    start with one of ``excluded`` are left out."""
    files = []
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        skipped = "__pycache__" in path.parts or path.name == "__main__.py" or relative.startswith(excluded)
        if path.suffix in SOURCE_SUFFIXES and not skipped and path.is_file():
            files.append((relative, path))
    return sorted(files)


def sources_digest(roots: dict[str, tuple[Path, tuple[str, ...]]]) -> str:
    """SHA-256 over (package name, relative path, length, bytes) of each counted file: a renamed, moved, added or
    removed file changes it as an edit does."""
    digest = hashlib.sha256()
    for name, (root, excluded) in sorted(roots.items()):
        for relative, path in source_files(root, excluded):
            data = path.read_bytes()
            digest.update(f"{name}/{relative}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def package_version() -> str:
    try:
        return version("evalkit")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"


@functools.cache  # the sources do not change under a running process; hashing them once costs tens of ms
def code_fingerprint() -> str:
    """``<version>+<16 hex of the sources' digest>``, e.g. ``0.1.0+3f2a…``: part of every cell's identity."""
    roots = {
        "evalkit": (PACKAGE_DIR, EXCLUDED),
        "perturbations": (Path(perturbations.__file__).resolve().parent, ()),  # a library: all of it counts
    }
    return f"{package_version()}+{sources_digest(roots)[:FINGERPRINT_CHARS]}"


def git_state(directory: Path) -> dict[str, str]:
    """``evalkit.git_commit`` and ``evalkit.git_dirty`` ("true"/"false": uncommitted changes to tracked files) of
    the checkout ``directory`` is in; empty outside a git checkout or without git. A package installed into a
    virtualenv that happens to sit inside some other repository is not that repository's code: the directory's
    ``__init__.py`` must be tracked by the checkout."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=directory, capture_output=True, text=True, timeout=10, check=True)
        return done.stdout.strip()

    try:
        git("ls-files", "--error-unmatch", "__init__.py")
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"evalkit.git_commit": commit, "evalkit.git_dirty": str(bool(dirty)).lower()}


@functools.cache  # two git calls: once per process
def git_provenance() -> dict[str, str]:
    """:func:`git_state` of the checkout evalkit runs from."""
    return git_state(PACKAGE_DIR)


def provenance_tags() -> dict[str, str]:
    """What every evalkit MLflow run records about the code: version, fingerprint and git state (when known)."""
    return {"evalkit.version": package_version(), FINGERPRINT_TAG: code_fingerprint(), **git_provenance()}
