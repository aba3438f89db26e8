"""Import EVA-Bench's published records (ServiceNow/eva ``data/<domain>_dataset.json`` + one initial DB per record in
``data/<domain>_scenarios/<id>.json``) into evalkit's Scenario schema, record by record.

``import_eva(path)`` finds the three datasets under an EVA checkout or its ``data`` folder (or takes one dataset
file), and returns every record's result: a Scenario, or the reason it failed (the record's field, then why). A bad
record never stops the others. EVA's domain names are evalkit's (``EVA_DOMAINS``).

Field mapping (EVA record -> Scenario), derived from all 213 published records:

- ``id`` -> ``id`` (as text); ``current_date_time`` -> ``current_date_time`` (the record's own, never replaced).
- ``user_goal.high_level_user_goal`` -> ``user_goal.high_level_user_goal``.
- ``user_goal.decision_tree.{must_have_criteria, nice_to_have_criteria, resolution_condition, failure_condition,
  escalation_behavior, edge_cases}`` -> the ``user_goal`` field of the same name.
- ``user_goal.decision_tree.negotiation_behavior[i]`` -> ``user_goal.decision_tree[i]`` = ``{id: i + 1, text}`` (a
  leading "3. " that repeats the number is dropped from the text).
- ``user_goal.information_required`` -> ``user_goal.information_required`` and ``user_goal.scripted.answers``, one
  field per key, by **exact** name (``field_name``): the key in snake case; a trailing condition ("_if_asked",
  "(if requested for contact)", ...) is dropped (the scripted caller only answers when asked anyway); the airline
  prose labels of the caller's identity map through ``FIELD_ALIASES`` (``Passenger last name`` -> ``last_name``).
  No substring match: ``dependent_first_name``, ``colleague_employee_id`` or ``Husband's name`` keep their own
  names. A name that is taken already keeps its full snake-case key. Values: text as is, numbers as text, a list of
  texts joined with ", " (an empty one: "none"), an ordered preference (``{first_choice, second_choice, ...}``) as
  "window, then aisle",
  any other structure as compact JSON.
- the caller's own ``first_name`` / ``last_name`` (from the culture overrides) are added to the answers when
  ``information_required`` does not list them: the caller always knows their name.
- ``user_config.{name, gender, user_persona_id, user_persona}`` -> ``persona.{name, gender, id, text}`` (gender
  woman/man -> female/male; the record's own persona, never replaced by evalkit's).
- ``starting_utterances[<culture>]`` (else ``user_goal.starting_utterance``) -> ``user_goal.starting_utterance``;
  ``first_speaker: agent`` (EVA-Bench's assistant greets first).
- ``scenario_context.category`` -> ``type`` (single_intent; double/triple/quadruple_intent -> multi_intent;
  adversarial(_intent), or an ``adversarial_vector`` / ``adversarial_tactic`` -> adversarial) and ``workflow``
  (``eva_<category>``, else ``eva_<first two parts of the id>``: never one of evalkit's workflow names).
- ``scenario_context.intents[1:]`` -> ``user_goal.scripted.followups`` ("I also need to <intent>."), the further
  tasks of a multi-intent record, said when the agent asks whether there is anything else; ``intents[0]`` ->
  ``user_goal.scripted.request`` ("I need to <intent>."), said when the agent asks again what the caller needs.
- ``user_goal.information_required`` maximum-cost keys (``MAX_FEE_FIELDS``) -> ``user_goal.scripted.max_fee``.
- ``ground_truth.expected_scenario_db`` -> ``expected_scenario_db``; ``data/<domain>_scenarios/<id>.json`` ->
  ``scenario_db`` (both checked against EVA-Bench's layout of the domain, ``eva_record.DB_LAYOUTS``).
- ``ground_truth.expected_trace.trace`` events of type ``tool_call`` -> ``reference_calls`` (``tool_name`` ->
  ``name``, ``params`` -> ``arguments``); a tool the domain does not have fails the record.
- ``expected_flow`` (airline only) -> ``expected_flow``.
- key entities -> ``key_entities``: the caller's first and last name (answers) and every other answer that is a
  single value (not a structure, not yes/no, at least 3 characters), each found as a whole value in the initial or
  expected DB:
  what the backend knows and the agent must hear right (EVA-Bench extracts them with a judge; this is a
  deterministic stand-in).
- placeholders and culture: ``culture_overrides`` and ``romanized_culture_overrides`` fill every placeholder of the
  record and both DBs for the chosen culture (``eva_culture``; ``ImportOptions.culture`` / ``names``).

Dropped, and why:
- ``scenario_context.premise``, ``user_priorities``, ``adversarial_vector`` / ``adversarial_tactic``,
  ``escalate_to_live_agent``, ``satisfiable``: the generator's notes on the scenario; the goal and
  decision tree already say what the caller wants and does (EVA-Bench's simulator does not read them either).
- ``seed_data``: the generator's input; its values are in ``information_required`` and the DB.
- ``subflow_in_depth``: empty in every published record.
- ``ground_truth.expected_trace`` utterances and tool responses: one reference conversation, not the scenario; the
  tool calls are kept (``reference_calls``), responses are EVA's outputs, which a replay compares by their effect on
  the DB.
- ``starting_utterances`` and overrides of the other cultures: one culture per import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.domains.airline.eva_choices import airline_choices
from evalkit.domains.scenarios import same_domain
from evalkit.safe_paths import SAFE_NAME_RULE, is_safe_name
from evalkit.scenario_tools.eva_culture import Culture, CultureError, Names, culture_for, load_aliases
from evalkit.scenario_tools.eva_record import GENDERS, check_layout, check_shape, get, ground_truth_calls
from evalkit.scenarios.schema import Scenario
from evalkit.scenarios.store import ScenarioError

EVA_DOMAINS = {"airline": "airline", "itsm": "itsm", "medical_hr": "medical_hr"}  # EVA-Bench's name -> evalkit's
FIELD_ALIASES = {  # snake-case EVA label -> the scripted caller's field (exact keys only)
    "booking_confirmation_number": "confirmation_number",
    "booking_confirmation_code": "confirmation_number",
    "confirmation_code": "confirmation_number",
    "your_confirmation_number": "confirmation_number",
    "passenger_first_name": "first_name",
    "passenger_last_name": "last_name",
    "your_last_name": "last_name",
    "desired_new_departure_date": "new_date",
    "fmla_leave_start_date": "leave_start_date",  # the FMLA case's dates (a record may also list PTO dates)
    "fmla_leave_end_date": "leave_end_date",
}
CONDITION = re.compile(r"(?:[\s_]+\(?|\s*\()if[\s_]+(?:asked|requested|eventually[\s_]+provided)\b[^)]*\)?\s*$", re.I)
MAX_FEE_FIELDS = {"maximum_total_rebooking_cost": 0.0, "max_total_additional_cost_usd": 0.0}
MAX_FEE_EXCLUSIVE = {"maximum_additional_cost_usd_exclusive": 0.01}  # "less than $X": the most is X - 1 cent
# Domain -> (initial DB, expected DB, ground-truth calls) -> the caller's choices towards the expected end state
# (``accept_option`` and yes/no ``answers``): issue 15 point 5.
SCRIPTED_CHOICES: dict[str, Callable[..., dict[str, Any]]] = {"airline": airline_choices}
TYPES = {"single_intent": "single_intent", "adversarial": "adversarial", "adversarial_intent": "adversarial"}
NUMBERING = re.compile(r"^\s*(\d+)\.\s+")


@dataclass(frozen=True)
class ImportOptions:
    """``culture``: EVA-Bench's language key whose overrides and opening line are used (en, fr, fr-CA, es, de, hi,
    ko); ``names``: ``native`` (EVA-Bench's runtime) or ``romanized`` (name placeholders in ASCII)."""

    culture: str = "en"
    names: Names = "native"


DEFAULT_OPTIONS = ImportOptions()


@dataclass(frozen=True)
class Dataset:
    eva_domain: str
    path: Path
    db_dir: Path
    aliases_dir: Path

    @property
    def domain(self) -> str:
        return EVA_DOMAINS[self.eva_domain]


@dataclass
class ImportReport:
    scenarios: list[Scenario] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (record id, reason)


def field_name(label: str) -> str:
    """EVA's ``information_required`` key -> the answer's field name (exact; see the module docstring)."""
    snake = re.sub(r"[^a-z0-9]+", "_", CONDITION.sub("", label).replace("'", "").replace("’", "").lower()).strip("_")
    return FIELD_ALIASES.get(snake, snake)


def _full_name(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.replace("'", "").replace("’", "").lower()).strip("_")


def answer_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value) or "none"  # an empty list: the caller has none to give
    if (
        isinstance(value, dict)
        and value
        and all(k.endswith("_choice") and isinstance(v, str) for k, v in value.items())
    ):
        return ", then ".join(value.values())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def map_answers(information: Mapping[str, Any]) -> dict[str, str]:
    """Exact field names; a label whose short name is taken keeps its full snake-case name (never overwrites)."""
    exact = {_full_name(label) for label in information}
    answers: dict[str, str] = {}
    for label, value in information.items():
        name = field_name(label)
        if name in answers or (name != _full_name(label) and name in exact):
            name = _full_name(label)
        answers[name] = answer_text(value)
    return answers


def _max_fee(information: Mapping[str, Any]) -> float | None:
    for label, value in information.items():
        key = _full_name(label)
        below = MAX_FEE_FIELDS.get(key, MAX_FEE_EXCLUSIVE.get(key))
        amount = re.search(r"\d+(?:\.\d+)?", str(value)) if below is not None else None
        if amount:
            return round(float(amount.group(0)) - below, 2)
    return None


def _type_and_workflow(record: Mapping[str, Any]) -> tuple[str, str]:
    context = record.get("scenario_context") or {}
    category = context.get("category")
    if isinstance(category, str) and category:
        kind = TYPES.get(category, "multi_intent" if category.endswith("_intent") else "single_intent")
        return kind, f"eva_{category}"
    adversarial = "adversarial_vector" in context or "adversarial_tactic" in context
    return ("adversarial" if adversarial else "single_intent"), f"eva_{'.'.join(str(record['id']).split('.')[:2])}"


def _intent_texts(intents: Any) -> list[str]:
    texts = [i.get("intent") for i in intents if isinstance(i, Mapping)] if isinstance(intents, list) else []
    return [f"{t[:1].lower()}{t[1:].rstrip('.')}" for t in texts if isinstance(t, str) and t]


def _followups(intents: Any) -> list[str]:
    return [f"I also need to {t}." for t in _intent_texts(intents)[1:]]


def _request(intents: Any) -> str | None:
    """The first intent in plain words: what the caller says when asked again what it needs (a multi-intent
    record's opening line often names no task: "I have a couple of HR things")."""
    texts = _intent_texts(intents)
    return f"I need to {texts[0]}." if texts else None


def _key_entities(answers: Mapping[str, str], dbs: list[Any]) -> dict[str, str]:
    known: set[str] = set()
    for db in dbs:
        _collect(db, known)
    entities = {k: answers[k] for k in ("first_name", "last_name") if answers.get(k, "").lower() in known}
    for name, value in answers.items():
        plain = not value.startswith(("{", "[")) and value.lower() not in ("yes", "no")
        if plain and len(value) >= 3 and value.lower() in known:
            entities.setdefault(name, value)
    return entities


def _collect(node: Any, into: set[str]) -> None:
    if isinstance(node, Mapping):
        for v in node.values():
            _collect(v, into)
    elif isinstance(node, list):
        for v in node:
            _collect(v, into)
    elif isinstance(node, str | int | float) and not isinstance(node, bool):
        into.add(str(node).lower())


def convert_record(
    record: Mapping[str, Any],
    scenario_db: Mapping[str, Any],
    domain: str,
    culture: Culture,
    calls: list[dict[str, Any]],
) -> dict[str, Any]:
    """One checked EVA record + its initial DB -> a dict in the Scenario layout (validate with ``Scenario``)."""
    language = culture.language
    utterances = record.get("starting_utterances") or {}
    if language in utterances:
        starting = culture.fill(utterances[language], f"starting_utterances.{language}")
    elif get(record, "user_goal.starting_utterance"):
        starting = culture.fill(get(record, "user_goal.starting_utterance"), "user_goal.starting_utterance")
    else:
        raise ScenarioError(f"field starting_utterances.{language}: missing (no opening line for the culture)")
    goal = culture.fill(record["user_goal"], "user_goal")
    tree, user = goal["decision_tree"], culture.fill(record["user_config"], "user_config")
    information = goal["information_required"]
    answered = map_answers(information)
    answers = dict(answered)
    for name in ("first_name", "last_name"):
        if name not in answers and name.upper() in culture.values:
            answers[name] = culture.values[name.upper()]
    intents = culture.fill(get(record, "scenario_context.intents") or [], "intents")
    db = culture.add_name_aliases(culture.fill(scenario_db, "scenario_db"))
    expected = culture.add_name_aliases(
        culture.fill(record["ground_truth"]["expected_scenario_db"], "ground_truth.expected_scenario_db")
    )
    kind, workflow = _type_and_workflow(record)
    choices = SCRIPTED_CHOICES[domain](db, expected, calls) if domain in SCRIPTED_CHOICES else {}
    for name, value in choices.get("answers", {}).items():
        answers.setdefault(name, value)  # the record's own fields first
    rules = [
        NUMBERING.sub("", t) if NUMBERING.match(t) and int(NUMBERING.match(t).group(1)) == i + 1 else t
        for i, t in enumerate(tree["negotiation_behavior"])
    ]
    return {
        "id": str(record["id"]),
        "domain": domain,
        "workflow": workflow,
        "type": kind,
        "current_date_time": record["current_date_time"],
        "persona": {
            "id": str(user.get("user_persona_id", "default")),
            "name": user["name"],
            "gender": GENDERS[str(user["gender"]).lower()],
            "text": user["user_persona"],
        },
        "user_goal": {
            "high_level_user_goal": goal["high_level_user_goal"],
            "must_have_criteria": tree["must_have_criteria"],
            "nice_to_have_criteria": tree.get("nice_to_have_criteria") or [],
            "starting_utterance": starting,
            "information_required": answered,
            "decision_tree": [{"id": i + 1, "text": t} for i, t in enumerate(rules)],
            "resolution_condition": tree["resolution_condition"],
            "failure_condition": tree["failure_condition"],
            "escalation_behavior": tree["escalation_behavior"],
            "edge_cases": tree.get("edge_cases") or [],
            "scripted": {
                "answers": answers,
                "max_fee": _max_fee(information),
                "accept_option": choices.get("accept_option"),
                "followups": _followups(intents),
                "request": _request(intents),
            },
        },
        "key_entities": _key_entities(answers, [db, expected]),
        "scenario_db": db,
        "reference_calls": [
            {"name": c["name"], "arguments": culture.fill(c["arguments"], "ground_truth.expected_trace")}
            | ({"response": culture.fill(c["response"], "ground_truth.expected_trace")} if c.get("response") else {})
            for c in calls
        ],
        "expected_scenario_db": expected,
        "expected_flow": record.get("expected_flow") if isinstance(record.get("expected_flow"), str) else "",
        "source": "eva_import",
        "first_speaker": "agent",  # EVA-Bench's assistant greets first (§2.1)
    }


def import_record(
    record: Any,
    scenario_db: Any,
    dataset: Dataset,
    options: ImportOptions = DEFAULT_OPTIONS,
    tools: Collection[str] | None = None,
    aliases: Mapping[str, Any] | None = None,
) -> Scenario:
    """Check and convert one record; ScenarioError says which field of the record is wrong and why."""
    check_shape(record)
    check_layout(scenario_db, dataset.eva_domain, "scenario_db", f"{dataset.db_dir.name}/{record['id']}.json")
    check_layout(
        record["ground_truth"]["expected_scenario_db"], dataset.eva_domain, "ground_truth.expected_scenario_db"
    )
    calls = ground_truth_calls(record, tools)
    try:
        culture = culture_for(record, options.culture, options.names, aliases)
        raw = convert_record(record, scenario_db, dataset.domain, culture, calls)
    except CultureError as exc:
        raise ScenarioError(str(exc)) from None
    try:
        return Scenario.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        raise ScenarioError(f"the converted scenario is invalid: {problems}") from None


# -- finding and reading EVA's files ------------------------------------------------------------------------------


def find_datasets(path: Path, domains: Collection[str] | None = None) -> list[Dataset]:
    """The datasets under an EVA checkout (``<path>/data``), its data folder, or one ``<domain>_dataset.json[l]``;
    ``domains`` (EVA's or evalkit's names) keeps some. ScenarioError when there is none."""
    if path.is_file():
        candidates = [path]
    else:
        folder = path / "data" if (path / "data").is_dir() and not _datasets_in(path) else path
        candidates = _datasets_in(folder)
    found = []
    for dataset in candidates:
        eva_domain = dataset.name.split("_dataset.")[0]
        if eva_domain not in EVA_DOMAINS:
            raise ScenarioError(f"{dataset}: not an EVA-Bench dataset (known: {', '.join(EVA_DOMAINS)})")
        if domains and eva_domain not in domains and not any(same_domain(EVA_DOMAINS[eva_domain], d) for d in domains):
            continue
        folder = dataset.parent
        found.append(Dataset(eva_domain, dataset, folder / f"{eva_domain}_scenarios", folder / f"{eva_domain}_aliases"))
    if not found:
        names = ", ".join(f"{d}_dataset.json" for d in EVA_DOMAINS)
        raise ScenarioError(f"{path}: no EVA-Bench dataset found (looked for {names} in it and in its data/ folder)")
    return found


def _datasets_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*_dataset.json*") if p.suffix in (".json", ".jsonl"))


def read_records(dataset: Path) -> list[tuple[str, Any]]:
    """(where, record) per record of a ``.json`` list or ``.jsonl`` file; a bad line is its own entry (an
    exception object in place of the record), so the other records still import."""
    text = dataset.read_text(encoding="utf-8")
    if dataset.suffix == ".jsonl":
        entries: list[tuple[str, Any]] = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    entries.append((f"{dataset.name}:{n}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    entries.append((f"{dataset.name}:{n}", ScenarioError(f"invalid JSON: {exc}")))
        return entries
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{dataset}: invalid JSON: {exc}") from None
    if not isinstance(records, list):
        raise ScenarioError(f"{dataset}: expected a JSON list of records, got {type(records).__name__}")
    return [(f"{dataset.name}[{i}]", r) for i, r in enumerate(records)]


def iter_dataset(
    dataset: Dataset, options: ImportOptions = DEFAULT_OPTIONS, tools: Collection[str] | None = None
) -> Iterator[tuple[str, Any, Scenario | ScenarioError]]:
    """(id, raw record, its Scenario or why it failed) per record, each on its own: one bad record stops nothing."""
    aliases = load_aliases(dataset.aliases_dir)
    seen: dict[str, str] = {}
    for where, record in read_records(dataset.path):
        rid = str(record.get("id")) if isinstance(record, Mapping) and "id" in record else where
        try:
            if isinstance(record, Exception):
                raise record
            check_shape(record)  # before its DB is looked for: a record without an id has none
            if rid in seen:
                raise ScenarioError(f"field id: {rid!r} is used by {seen[rid]} already")
            seen[rid] = where
            if not is_safe_name(rid):  # it names the DB file read here and the scenario file written
                raise ScenarioError(f"field id: {rid[:80]!r} is not usable: ids are {SAFE_NAME_RULE}")
            db_path = dataset.db_dir / f"{rid}.json"
            try:
                db = json.loads(db_path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise ScenarioError(f"no initial DB {dataset.db_dir.name}/{rid}.json") from None
            except (OSError, ValueError) as exc:
                raise ScenarioError(f"initial DB {dataset.db_dir.name}/{rid}.json unreadable: {exc}") from None
            yield rid, record, import_record(record, db, dataset, options, tools, aliases)
        except ScenarioError as exc:
            yield rid, record, ScenarioError(f"{dataset.eva_domain} {where}: {exc}")


def import_dataset(
    dataset: Dataset, options: ImportOptions = DEFAULT_OPTIONS, tools: Collection[str] | None = None
) -> ImportReport:
    """Every record of one dataset: a failure names the record and why, the rest import."""
    report = ImportReport()
    for rid, _, result in iter_dataset(dataset, options, tools):
        if isinstance(result, Scenario):
            report.scenarios.append(result)
        else:
            report.failures.append((rid, str(result)))
    return report


def import_eva(
    path: Path,
    options: ImportOptions = DEFAULT_OPTIONS,
    domains: Collection[str] | None = None,
    tools_of: Callable[[str], Collection[str]] | None = None,
) -> dict[str, ImportReport]:
    """evalkit domain -> its report, for every dataset found at ``path``; ``tools_of(domain)`` names the domain's
    tools for the ground-truth check (None: not checked)."""
    reports: dict[str, ImportReport] = {}
    for dataset in find_datasets(path, domains):
        tools = tools_of(dataset.domain) if tools_of else None
        reports[dataset.domain] = import_dataset(dataset, options, tools)
    return reports
