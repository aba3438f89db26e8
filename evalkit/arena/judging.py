"""Arena and rubric verdicts through the judge plug-in's OpenAI-compatible client and its answer cache.

A verdict is cached by the hash of everything that decides it (prompt version and text, model, sampling, the two
transcripts in the order shown), so a re-run of the arena pays for no judgment twice, and changing the A/B order
asks again. A judge that answers invalid JSON is asked again (``invalid_output_retries``); after that the pair is
recorded as failed with the reason and left out of the statistics (never counted as a win). An endpoint that is down
raises: an arena without its judge is an infrastructure failure, not a result.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from evalkit.arena.pairs import Call, Pairing
from evalkit.arena.stats import Comparison
from evalkit.domains.scenarios import folder_scenarios
from evalkit.judges.judge import Judge
from evalkit.scenarios.store import ScenarioError

PROMPTS_FILE = Path(__file__).with_name("prompts.yaml")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    system: str
    user: str

    @property
    def prompt_hash(self) -> str:
        return hashlib.sha256(f"{self.version}\n{self.system}\n{self.user}".encode()).hexdigest()


@cache
def prompt(name: str) -> Prompt:
    texts = yaml.safe_load(PROMPTS_FILE.read_text(encoding="utf-8"))[name]
    return Prompt(name, texts["version"], texts["system"], texts["user"])


@cache
def _goals(domain: str, folder: str | None, plugin: str | None) -> dict[str, str]:
    """id -> the caller's goal, for every scenario of the cell's folder (``domain.scenario_dir``, else the domain's
    own), in any scenario format the run reads: runtime JSON (evalkit's own, EVA-Bench imports) and scenario files
    (YAML, JSONL; their ``goal``). A domain a plug-in module registers (``domain.plugin``) is imported first."""
    if plugin:
        importlib.import_module(plugin)
    return {s.id: s.user_goal.high_level_user_goal for s in folder_scenarios(domain, folder)}


def goal_of(domain: str, scenario_id: str, folder: str | None = None, plugin: str | None = None) -> str:
    """The caller's task from the cell's scenario files; a folder or domain that cannot be read here (moved, another
    machine's path, an unknown plug-in) gives a placeholder that says so: the calls are then judged on their own."""
    try:
        goals = _goals(domain, folder or None, plugin or None)
    except (ScenarioError, ValueError, OSError, ImportError):
        goals = {}
    return goals.get(scenario_id, "(not available: judge the calls on their own)")


@dataclass(frozen=True)
class Verdict:
    """One judged pair. ``winner``: the agent that won, None when the judgment failed (``failed`` says why)."""

    item: str
    first: str
    second: str
    first_run: str
    second_run: str
    winner: str | None
    reason: str
    order_seed: int
    judge: str
    cached: bool
    len_first: int
    len_second: int
    failed: str | None = None

    def comparison(self) -> Comparison | None:
        if self.winner is None:
            return None
        return Comparison(self.item, self.first, self.second, self.winner, self.len_first, self.len_second)


def _ask(judge: Judge, which: Prompt, fields: Mapping[str, str], parse: Any) -> tuple[Any, bool, str | None]:
    """(parsed answer, from the cache, failure reason), through ``Judge.ask`` (cache, retries, fail-fast)."""
    messages = [
        {"role": "system", "content": which.system},
        {"role": "user", "content": which.user.format(**fields)},
    ]

    def parse_text(text: str) -> tuple[Any, Any]:
        output = json.loads(text)
        return output, parse(output)

    asked = judge.ask(
        metric=which.name,
        version=which.version,
        prompt_hash=which.prompt_hash,
        messages=messages,
        inputs=fields,
        parse=parse_text,
        json_mode=True,
    )
    return asked.value, asked.cached, asked.failed


def _arena_answer(output: Any) -> tuple[str, str]:
    if not isinstance(output, dict) or output.get("winner") not in ("A", "B"):
        raise ValueError(f'expected {{"winner": "A" or "B", "reason": ...}}, got {str(output)[:200]}')
    return str(output["winner"]), str(output.get("reason", ""))


def judge_pair(judge: Judge, pairing: Pairing) -> Verdict:
    first, second = pairing.first, pairing.second
    fields = {
        "goal": goal_of(first.domain, first.scenario, first.scenario_dir, first.domain_plugin),
        "call_a": first.transcript,
        "call_b": second.transcript,
    }
    answer, cached, failed = _ask(judge, prompt("arena"), fields, _arena_answer)
    winner, reason = (None, "") if answer is None else ((first.agent if answer[0] == "A" else second.agent), answer[1])
    return Verdict(
        item=pairing.item,
        first=first.agent,
        second=second.agent,
        first_run=first.run_id,
        second_run=second.run_id,
        winner=winner,
        reason=reason,
        order_seed=pairing.order_seed,
        judge=judge.model,
        cached=cached,
        len_first=first.agent_words,
        len_second=second.agent_words,
        failed=failed,
    )


@dataclass(frozen=True)
class Rubric:
    """Binary criteria fixed before any response exists: loaded and hashed before a conversation is read."""

    version: str
    criteria: dict[str, str]  # id -> text; ids by MTalk-Bench's levels: s_* general, m_* dimension, d_* sample
    sha256: str

    @classmethod
    def load(cls, path: Path) -> Rubric:
        try:
            raw = path.read_bytes()
            data = yaml.safe_load(raw)
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"rubric {path}: cannot read it: {exc}") from None
        criteria = data.get("criteria") if isinstance(data, dict) else None
        if not isinstance(criteria, dict) or not criteria or not all(isinstance(v, str) for v in criteria.values()):
            raise ValueError(f"rubric {path}: needs `criteria:`, a mapping of criterion id -> text (at least one)")
        return cls(
            str(data.get("version", "1")), {str(k): v for k, v in criteria.items()}, hashlib.sha256(raw).hexdigest()
        )


@dataclass(frozen=True)
class RubricScore:
    agent: str
    item: str
    run_id: str
    criteria: dict[str, int] | None  # None: the judgment failed
    cached: bool
    failed: str | None = None


def judge_rubric(judge: Judge, rubric: Rubric, call: Call) -> RubricScore:
    def parse(output: Any) -> dict[str, int]:
        if not isinstance(output, dict) or set(output) != set(rubric.criteria):
            raise ValueError(f"expected exactly the criteria {sorted(rubric.criteria)}, got {str(output)[:200]}")
        if not all(v in (0, 1) for v in output.values()):
            raise ValueError("every criterion must be 0 or 1")
        return {k: int(v) for k, v in output.items()}

    fields = {
        "goal": goal_of(call.domain, call.scenario, call.scenario_dir, call.domain_plugin),
        "criteria": "\n".join(f"{k}: {v}" for k, v in rubric.criteria.items()),
        "call": call.transcript,
    }
    answer, cached, failed = _ask(judge, prompt("rubric"), fields, parse)
    return RubricScore(call.agent, call.item, call.run_id, answer, cached, failed)
