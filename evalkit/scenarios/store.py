"""Scenario files on disk: one JSON file per scenario in the registered domain's folder (``Domain.scenario_dir``),
and in any folder (``domain.scenario_dir``) also scenario files for anyone's agent: YAML, one per file, or JSONL
(``evalkit.scenarios.file``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import ValidationError

from evalkit.domains.domain import DOMAINS, get_domain
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios.file import FILE_SUFFIXES, FileError, file_problems, read_file, to_scenario
from evalkit.scenarios.schema import Scenario

SCENARIO_SUFFIXES = (".json", *FILE_SUFFIXES)


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


def scenario_paths(folder: Path) -> list[Path]:
    """The scenario files of a folder, sorted by name: runtime JSON (``*.json``) and scenario files (YAML, JSONL)."""
    return sorted(p for p in folder.iterdir() if p.suffix in SCENARIO_SUFFIXES and p.is_file())


def load_path(path: Path) -> list[Scenario]:
    """Every scenario of one file: a runtime JSON scenario, a YAML scenario file or a JSONL file of them."""
    if path.suffix == ".json":
        return [load_scenario(path)]
    try:
        return [to_scenario(f) for f in read_file(path)]
    except FileError as exc:
        raise ScenarioError(str(exc)) from None
    except ValidationError as exc:  # the runtime record refused what the file model let through (e.g. its date)
        first = exc.errors()[0]
        raise ScenarioError(f"{path}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def read_paths(files: list[Path]) -> tuple[list[Path], list[Scenario]]:
    """(file of each scenario, scenarios) of ``files``, ids unique. Every problem is named in one ScenarioError, one
    line each: each of a scenario file's (YAML, JSONL: ``file_problems``), a runtime JSON file's first, and every
    id used twice among the files that read."""
    problems: list[str] = []
    owners: list[Path] = []
    scenarios: list[Scenario] = []
    for f in files:
        lines = file_problems(f) if f.suffix in FILE_SUFFIXES else []
        if lines:
            problems += lines
            continue
        try:
            read = load_path(f)
        except ScenarioError as exc:
            problems.append(str(exc).splitlines()[0])
            continue
        owners += [f] * len(read)
        scenarios += read
    problems += duplicate_ids(owners, scenarios)
    if problems:
        raise ScenarioError("\n".join(problems))
    return owners, scenarios


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


def duplicate_ids(files: list[Path], scenarios: list[Scenario]) -> list[str]:
    """One line per id used twice (``files[i]`` holds ``scenarios[i]``): the later one would silently replace the
    other."""
    seen: dict[str, Path] = {}
    lines = []
    for file, scenario in zip(files, scenarios, strict=True):
        if scenario.id in seen:
            twice = "twice in" if seen[scenario.id] == file else "by two files:"
            where = str(file) if seen[scenario.id] == file else f"{seen[scenario.id]} and {file}"
            lines.append(
                f"{file}: id: scenario id {scenario.id!r} is used {twice} {where} (ids must be unique in a folder: "
                "rename one)"
            )
        seen[scenario.id] = file
    return lines


def unique_ids(files: list[Path], scenarios: list[Scenario]) -> None:
    """One id, one scenario: every id used twice is one line of the error."""
    lines = duplicate_ids(files, scenarios)
    if lines:
        raise ScenarioError("\n".join(lines))


def read_folder(path: Path) -> list[Scenario]:
    """Every scenario file of a folder, sorted by file name, ids unique."""
    owners, scenarios = read_paths(scenario_paths(path))
    unique_ids(owners, scenarios)
    return scenarios


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
