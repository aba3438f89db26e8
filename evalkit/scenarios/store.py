"""Scenario files on disk: one JSON file per scenario in the registered domain's folder (``Domain.scenario_dir``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import ValidationError

from evalkit.domains.domain import DOMAINS, get_domain
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios.schema import Scenario


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the file, the field and the reason."""


def scenario_dir(domain: str) -> Path:
    try:
        path = get_domain(domain).scenario_dir
    except UnknownPluginError as exc:
        raise ScenarioError(f"unknown domain {domain!r}; known domains: {exc.options}") from None
    if not path.is_dir():
        raise ScenarioError(f"domain {domain!r}: no scenario folder {path}")
    return path


def load_scenario(path: Path) -> Scenario:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: JSONDecodeError and UnicodeDecodeError (a binary file)
        raise ScenarioError(f"{path}: cannot read scenario JSON: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # nesting deeper than the interpreter's stack: no scenario is shaped like that
        raise ScenarioError(f"{path}: cannot read scenario JSON: nested too deeply") from None
    try:
        return Scenario.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}".replace("\n", " ") for e in exc.errors()[:5]
        )
        raise ScenarioError(f"{path}: invalid scenario: {problems}") from None


def same_domain(a: str, b: str) -> bool:
    """Names of one domain (a renamed domain's former name is an alias: ``hr`` is ``medical_hr``)."""
    return a == b or DOMAINS.canonical(a) == DOMAINS.canonical(b)


def scenario_folder(domain: str, folder: str | Path | None = None) -> Path:
    """The folder a run reads: ``folder`` (``domain.scenario_dir``: any folder of scenario files, e.g. an EVA-Bench
    import) or the registered domain's own."""
    if folder is None:
        return scenario_dir(domain)
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ScenarioError(f"domain {domain!r}: scenario folder {path} does not exist")
    return path


def unique_ids(files: list[Path], scenarios: list[Scenario]) -> None:
    """One id, one file: two files with one id would make the later one silently replace the other."""
    seen: dict[str, Path] = {}
    for file, scenario in zip(files, scenarios, strict=True):
        if scenario.id in seen:
            raise ScenarioError(
                f"scenario id {scenario.id!r} is used by two files: {seen[scenario.id]} and {file} (ids must be "
                "unique in a folder: rename one)"
            )
        seen[scenario.id] = file


def read_folder(path: Path) -> list[Scenario]:
    """Every scenario file of a folder, sorted by file name, ids unique."""
    files = sorted(path.glob("*.json"))
    scenarios = [load_scenario(p) for p in files]
    unique_ids(files, scenarios)
    return scenarios


def folder_scenarios(domain: str, folder: str | Path | None = None) -> list[Scenario]:
    """Every scenario file of the folder, sorted by file name; one that is for another domain is an error (its
    tools would not be the run's)."""
    path = scenario_folder(domain, folder)
    files = sorted(path.glob("*.json"))
    if not files:
        raise ScenarioError(f"domain {domain!r}: scenario folder {path} holds no scenario files (*.json)")
    scenarios = [load_scenario(p) for p in files]
    unique_ids(files, scenarios)
    for file, scenario in zip(files, scenarios, strict=True):
        if not same_domain(scenario.domain, domain):
            raise ScenarioError(f"{file}: a scenario of domain {scenario.domain!r}, but the run's domain is {domain!r}")
    return scenarios


def load_scenarios(
    domain: str, ids: list[str] | None = None, limit: int | None = None, folder: str | Path | None = None
) -> list[Scenario]:
    """Scenarios of a domain sorted by id (from ``folder`` when given); ``ids`` selects a subset (unknown ids are an
    error). With ``ids``, only their files are read (fresh objects every call): which file holds which id is read
    once per process while the folder's files stay the same (every cell of a sweep plans its scenarios)."""
    if not ids:
        scenarios = folder_scenarios(domain, folder) if folder is not None else read_folder(scenario_dir(domain))
        return scenarios[:limit] if limit else scenarios
    path = scenario_folder(domain, folder)
    files = sorted(path.glob("*.json"))
    signature = tuple((f.name, *_stamp(f)) for f in files)
    by_id = _files_by_id(domain, path, folder is not None, signature)
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise ScenarioError(f"domain {domain!r} has no scenarios {missing}; known: {sorted(by_id)}")
    scenarios = [load_scenario(by_id[i]) for i in ids]
    return scenarios[:limit] if limit else scenarios


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=64)
def _files_by_id(
    domain: str, path: Path, own_folder: bool, signature: tuple[tuple[str, int, int], ...]
) -> dict[str, Path]:
    """Scenario id -> file of a folder whose files have ``signature`` (names, mtimes, sizes): a changed, added or
    removed file makes a new signature, so the index is never stale. Reading them all raises what a full load
    raises (an unreadable file, a scenario of another domain in a ``domain.scenario_dir`` folder)."""
    files = [path / name for name, *_ in signature]
    read = folder_scenarios(domain, path) if own_folder else [load_scenario(p) for p in files]
    unique_ids(files, read)
    return {s.id: path / name for s, (name, *_) in zip(read, signature, strict=True)}
