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
)


def scenario_dir(domain: str) -> Path:
    try:
        path = get_domain(domain).scenario_dir
    except UnknownPluginError as exc:
        raise ScenarioError(f"unknown domain {domain!r}; known domains: {exc.options}", "domain.name") from None
    if not path.is_dir():
        raise ScenarioError(f"domain {domain!r}: no scenario folder {path}", "domain.name")
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
        raise ScenarioError(f"domain {domain!r}: scenario folder {path} does not exist", FOLDER_OPTION)
    return path


FOLDER_OPTION = "domain.scenario_dir"  # a folder the run names (None: the registered domain's own)


def folder_scenarios(domain: str, folder: str | Path | None = None) -> list[Scenario]:
    """Every scenario file of the folder, sorted by file name; one that is for another domain is an error (its
    tools would not be the run's)."""
    return _read_folder(domain, scenario_folder(domain, folder), None if folder is None else FOLDER_OPTION)[1]


def _read_folder(domain: str, path: Path, option: str | None) -> tuple[list[Path], list[Scenario]]:
    """(file of each scenario, scenarios) of a folder, read once; every problem of its files is one line of one
    :class:`ScenarioError` (unreadable or invalid files, ids used twice, scenarios of another domain)."""
    files = scenario_paths(path)
    if not files:
        raise ScenarioError(
            f"domain {domain!r}: scenario folder {path} holds no scenario files ({', '.join(SCENARIO_SUFFIXES)})",
            option,
        )
    try:
        owners, scenarios = read_paths(files)
    except ScenarioError as exc:
        raise ScenarioError(str(exc), option) from None
    foreign = [
        f"{file}: a scenario of domain {scenario.domain!r}, but the run's domain is {domain!r}"
        for file, scenario in zip(owners, scenarios, strict=True)
        if not DOMAINS.same(scenario.domain, domain)  # the registry's aliases: read below the scenario files
    ]
    if foreign:
        raise ScenarioError("\n".join(foreign), option)
    return owners, scenarios


def load_scenarios(
    domain: str, ids: list[str] | None = None, limit: int | None = None, folder: str | Path | None = None
) -> list[Scenario]:
    """Scenarios of a domain sorted by id (from ``folder`` when given); ``ids`` selects a subset. Whatever is wrong
    is one :class:`ScenarioError` naming every problem, one line each, with the run option it is in (``option``):
    the folder, each bad file, each unknown id. With ``ids``, only their files are read (fresh objects every call):
    which file holds which id is read once per process while the folder's files stay the same (every cell of a
    sweep plans its scenarios)."""
    path = scenario_folder(domain, folder)
    option = None if folder is None else FOLDER_OPTION
    if not ids:
        scenarios = _read_folder(domain, path, option)[1]  # a registered domain's own folder is checked as any other
        return scenarios[:limit] if limit else scenarios
    signature = tuple((f.name, *_stamp(f)) for f in scenario_paths(path))
    by_id = _files_by_id(domain, path, option, signature)
    missing = [i for i in dict.fromkeys(ids) if i not in by_id]
    if missing:
        where = f"domain {domain!r}" + (f" folder {path}" if option else "")
        known = sorted(by_id)
        lines = [
            f"unknown scenario id {i!r} in {where}; {len(known)} known, e.g. {', '.join(known[:3])}" for i in missing
        ]
        raise ScenarioError("\n".join(lines), "domain.scenarios")
    scenarios = [next(s for s in load_path(by_id[i]) if s.id == i) for i in ids]
    return scenarios[:limit] if limit else scenarios


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=64)
def _files_by_id(
    domain: str, path: Path, option: str | None, signature: tuple[tuple[str, int, int], ...]
) -> dict[str, Path]:
    """Scenario id -> file of a folder whose files have ``signature`` (names, mtimes, sizes): a changed, added or
    removed file makes a new signature, so the index is never stale. Reading them all raises what a full load
    raises."""
    owners, read = _read_folder(domain, path, option)
    return {s.id: owner for s, owner in zip(read, owners, strict=True)}
