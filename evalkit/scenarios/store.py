"""Scenario files on disk, read by path: runtime JSON (one scenario per file) and scenario files for anyone's agent
(YAML, one per file, or JSONL: ``evalkit.scenarios.file``). Nothing here knows a domain: finding a registered
domain's folder by its name is ``evalkit.domains.scenarios`` (a layer above, beside the domain registry)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from evalkit.scenarios.file import FILE_SUFFIXES, FileError, file_problems, read_file, to_scenario
from evalkit.scenarios.schema import Scenario

SCENARIO_SUFFIXES = (".json", *FILE_SUFFIXES)


class ScenarioError(ValueError):
    """Scenarios that cannot be used: one line per problem, each naming the file, the field and the reason.
    ``option``: the run option the problems are in, for a caller that reports against the config (``domain.name``:
    the domain or its folder; ``domain.scenario_dir``: a folder the run names; ``domain.scenarios``: the ids it
    picks); None: the files of a registered domain's own folder, or no run option."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


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
