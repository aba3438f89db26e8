"""A registered domain's scenarios, found by the domain's name: its folder (``Domain.scenario_dir``) or a
``domain.scenario_dir`` folder of anyone's scenario files, read through ``evalkit.scenarios.store``.

This sits in ``evalkit.domains`` rather than in ``evalkit.scenarios`` because it looks domains up in their registry:
the scenario layer (schema, file format, reading files by path) stays below the domains, which import its schema.
"""

from __future__ import annotations

import functools
from pathlib import Path

from evalkit.domains.domain import DOMAINS, get_domain
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios.schema import Scenario
from evalkit.scenarios.store import (
    SCENARIO_SUFFIXES,
    ScenarioError,
    load_path,
    read_paths,
    scenario_paths,
    unique_ids,
)


def scenario_dir(domain: str) -> Path:
    try:
        path = get_domain(domain).scenario_dir
    except UnknownPluginError as exc:
        raise ScenarioError(f"unknown domain {domain!r}; known domains: {exc.options}") from None
    if not path.is_dir():
        raise ScenarioError(f"domain {domain!r}: no scenario folder {path}")
    return path


def same_domain(a: str, b: str) -> bool:
    """Names of one domain (a renamed domain's former name is an alias: ``hr`` is ``medical_hr``)."""
    return DOMAINS.same(a, b)


def scenario_folder(domain: str, folder: str | Path | None = None) -> Path:
    """The folder a run reads: ``folder`` (``domain.scenario_dir``: any folder of scenario files, e.g. an EVA-Bench
    import) or the registered domain's own."""
    if folder is None:
        return scenario_dir(domain)
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ScenarioError(f"domain {domain!r}: scenario folder {path} does not exist")
    return path


def folder_scenarios(domain: str, folder: str | Path | None = None) -> list[Scenario]:
    """Every scenario file of the folder, sorted by file name; one that is for another domain is an error (its
    tools would not be the run's)."""
    path = scenario_folder(domain, folder)
    files = scenario_paths(path)
    if not files:
        raise ScenarioError(
            f"domain {domain!r}: scenario folder {path} holds no scenario files ({', '.join(SCENARIO_SUFFIXES)})"
        )
    owners, scenarios = read_paths(files)
    unique_ids(owners, scenarios)
    for file, scenario in zip(owners, scenarios, strict=True):
        if not DOMAINS.same(scenario.domain, domain):  # the registry's aliases: read below the scenario files
            raise ScenarioError(f"{file}: a scenario of domain {scenario.domain!r}, but the run's domain is {domain!r}")
    return scenarios


def load_scenarios(
    domain: str, ids: list[str] | None = None, limit: int | None = None, folder: str | Path | None = None
) -> list[Scenario]:
    """Scenarios of a domain sorted by id (from ``folder`` when given); ``ids`` selects a subset (unknown ids are an
    error). With ``ids``, only their files are read (fresh objects every call): which file holds which id is read
    once per process while the folder's files stay the same (every cell of a sweep plans its scenarios)."""
    path = scenario_folder(domain, folder)
    if not ids:
        scenarios = folder_scenarios(domain, path)  # a registered domain's own folder is checked as any other
        return scenarios[:limit] if limit else scenarios
    files = scenario_paths(path)
    signature = tuple((f.name, *_stamp(f)) for f in files)
    by_id = _files_by_id(domain, path, folder is not None, signature)
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise ScenarioError(f"domain {domain!r} has no scenarios {missing}; known: {sorted(by_id)}")
    scenarios = [next(s for s in load_path(by_id[i]) if s.id == i) for i in ids]
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
    if own_folder:
        folder_scenarios(domain, path)  # raises what a full load raises
    owners, read = read_paths(files)
    unique_ids(owners, read)
    return {s.id: owner for s, owner in zip(read, owners, strict=True)}
