"""Issue 15 point 2: EVA-Bench's published records import faithfully, record by record: exact field names (a
dependent's or colleague's name never overwrites the caller's), every placeholder form, culture and romanized
overrides picked by an option, a summary with one line per failed record, the datasets found from a checkout or its
data folder. Fixtures: evalkit's own records in EVA-Bench's layout (tests/eva_fixtures.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalkit.domains.scenarios import scenario_dir
from evalkit.scenario_tools.__main__ import main
from evalkit.scenario_tools.check import check_file
from evalkit.scenario_tools.eva_import import ImportOptions, find_datasets, import_eva, map_answers
from evalkit.scenarios import load_scenario
from tests.eva_fixtures import AIRLINE_DB, EMPLOYEE, HR_DB, NPI, airline_record, hr_record, itsm_record, write_checkout

OURS = json.loads((scenario_dir("airline") / "AL-001.json").read_text())


def checkout(tmp_path: Path, **extra: list[tuple[Any, Any]]) -> Path:
    datasets = {
        "medical_hr": [(hr_record(), HR_DB)],
        "airline": [(airline_record(), AIRLINE_DB)],
        "itsm": [itsm_record()],
    }
    for domain, entries in extra.items():
        datasets[domain] = datasets.get(domain, []) + entries
    return write_checkout(tmp_path / "eva", datasets)


def imported(tmp_path: Path, *args: str) -> tuple[int, Path]:
    out = tmp_path / "out"
    return main(["import-eva", str(checkout(tmp_path)), "--out", str(out), *args]), out


def test_records_import_and_pass_the_checker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = imported(tmp_path)
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("imported 3, failed 0")
    hr = load_scenario(out / "medical_hr" / "9.1.json")  # EVA's medical_hr is evalkit's medical_hr (alias hr)
    assert (hr.domain, hr.source, hr.type, hr.workflow) == (
        "medical_hr",
        "eva_import",
        "multi_intent",
        "eva_double_intent",
    )
    assert hr.current_date_time == "2031-02-03 08:05 EST"  # the record's own date and time
    assert (hr.persona.name, hr.persona.gender, hr.persona.id) == ("Wilhelmina Quarrie", "female", "3")
    assert hr.persona.text == "You speak calmly and in full sentences."
    assert [r.text for r in hr.user_goal.decision_tree] == [
        "Give your NPI, facility code and PIN when the agent asks for them.",
        "Give your dependent's details exactly as listed in information_required.",
    ]
    assert [(c.name, c.arguments["npi"]) for c in hr.reference_calls] == [("verify_provider_auth", NPI)]
    assert hr.user_goal.scripted.followups == ["I also need to swap a shift with a colleague."]
    assert hr.user_goal.scripted.answers["extension_days"] == "60"
    assert hr.user_goal.scripted.answers["privilege_codes"] == "ACLS, BLS"
    for domain in ("medical_hr", "airline", "itsm"):
        assert [check_file(p, domain) for p in (out / domain).glob("*.json")] == [[]]


def test_a_dependents_or_colleagues_name_never_overwrites_the_callers(tmp_path: Path) -> None:
    _, out = imported(tmp_path)
    hr = load_scenario(out / "medical_hr" / "9.1.json")
    answers = hr.user_goal.scripted.answers
    assert (answers["first_name"], answers["last_name"]) == ("Wilhelmina", "Quarrie")
    assert (answers["dependent_first_name"], answers["dependent_last_name"]) == ("Ottilie", "Brandvold")
    assert (answers["employee_id"], answers["colleague_employee_id"]) == (EMPLOYEE, "EMP700002")
    assert (answers["date_of_birth"], answers["dependent_date_of_birth"]) == ("1980-01-02", "2019-05-06")
    assert hr.key_entities["first_name"] == "Wilhelmina" and hr.key_entities["employee_id"] == EMPLOYEE
    airline = load_scenario(out / "airline" / "8.1.1.json")
    answers = airline.user_goal.scripted.answers
    assert answers["last_name"] == "Achterberg" and answers["husbands_name"] == "Teodor Achterberg"
    assert answers["confirmation_number"] == "QX7PLM" and answers["phone_number"] == "+1-555-0100"
    assert answers["first_name"] == "Rosalind"  # the caller's own name, from the culture, though not listed
    assert answers["seat_preference"] == "aisle, then window" and airline.user_goal.scripted.max_fee == 95.0


def test_exact_names_and_no_overwriting() -> None:
    answers = map_answers(
        {
            "confirmation_number": "AAA111",
            "confirmation_code_if_eventually_provided": "BBB222",  # its short name is taken: keeps its own
            "Your last name": "Vance",
            "last_name_of_traveling_companion": "Okafor",
            "email_if_asked": "a@example.org",
        }
    )
    assert answers == {
        "confirmation_number": "AAA111",
        "confirmation_code_if_eventually_provided": "BBB222",
        "last_name": "Vance",
        "last_name_of_traveling_companion": "Okafor",
        "email": "a@example.org",
    }


def _strings(node: Any) -> str:
    return json.dumps(node, ensure_ascii=False)


@pytest.mark.parametrize(
    ("form", "domain", "record_id", "where", "value"),
    [
        (
            "<FIRST_NAME>",
            "medical_hr",
            "9.1",
            lambda s: s.scenario_db["employees"][EMPLOYEE]["first_name"],
            "Wilhelmina",
        ),
        ("<LAST_NAME>", "medical_hr", "9.1", lambda s: s.persona.name, "Wilhelmina Quarrie"),
        (
            "<FIRST_NAME_ROMANIZED>",
            "medical_hr",
            "9.1",
            lambda s: s.scenario_db["employees"][EMPLOYEE]["email"],
            "wilhelmina.quarrie@example.org",
        ),  # lower case, as EVA-Bench emits romanized names
        (
            "<LAST_NAME_ROMANIZED>",
            "airline",
            "8.1.1",
            lambda s: s.reference_calls[0].arguments["last_name"],
            "achterberg",
        ),
        (
            "<PHONE>",
            "airline",
            "8.1.1",
            lambda s: s.scenario_db["reservations"]["QX7PLM"]["passengers"][0]["phone"],
            "+1-555-0100",
        ),
        (
            "<COMPANION_FIRST_NAME>",
            "airline",
            "8.1.1",
            lambda s: s.user_goal.starting_utterance,
            "Hi, I need to change my flight to travel with Teodor.",
        ),
        (
            "<COMPANION_FIRST_NAME_ROMANIZED>",
            "airline",
            "8.1.1",
            lambda s: s.expected_scenario_db["reservations"]["QX7PLM"]["passengers"][0]["travel_companion"],
            "teodor",
        ),
        ("<LOC:Name>", "itsm", "501", lambda s: s.user_goal.information_required["building_name"], "Harbor Point"),
        ("<LOC:Name>", "itsm", "501", lambda s: s.user_goal.high_level_user_goal, "You need a desk at Harbor Point."),
    ],
)
def test_every_placeholder_form_is_filled(
    tmp_path: Path, form: str, domain: str, record_id: str, where: Any, value: str
) -> None:
    _, out = imported(tmp_path)
    scenario = load_scenario(out / domain / f"{record_id}.json")
    assert where(scenario) == value
    assert "<" not in _strings(scenario.model_dump())  # no placeholder left anywhere


def test_location_aliases_are_added_to_both_dbs(tmp_path: Path) -> None:
    _, out = imported(tmp_path, "--culture", "fr")
    scenario = load_scenario(out / "itsm" / "501.json")
    assert scenario.user_goal.starting_utterance == "Il me faut un bureau à pointe du port."
    for db in (scenario.scenario_db, scenario.expected_scenario_db):
        assert db["facilities"]["HP1"]["name_aliases"] == ["harbor point", "pointe du port"]


@pytest.mark.parametrize(
    ("options", "name", "email", "opening"),
    [
        (ImportOptions(), "Wilhelmina Quarrie", "wilhelmina.quarrie", "Hi, this is Wilhelmina."),
        (ImportOptions("fr"), "Solène Marchetti", "solene.marchetti", "Bonjour, c'est Solène."),
        (ImportOptions("hi"), "देविका राणावत", "devika.ranawat", "नमस्ते, मैं देविका हूँ।"),
        (ImportOptions("hi", "romanized"), "Devika Ranawat", "devika.ranawat", "नमस्ते, मैं Devika हूँ।"),
    ],
    ids=["en", "fr", "hi-native", "hi-romanized"],
)
def test_the_culture_option_picks_the_overrides(
    tmp_path: Path, options: ImportOptions, name: str, email: str, opening: str
) -> None:
    reports = import_eva(checkout(tmp_path), options, domains=["hr"])  # evalkit's former name still selects it
    (scenario,) = reports["medical_hr"].scenarios
    assert scenario.persona.name == name
    assert scenario.scenario_db["employees"][EMPLOYEE]["email"] == f"{email}@example.org"
    assert scenario.user_goal.starting_utterance.startswith(opening.rstrip("."))


def test_a_culture_the_record_lacks_is_a_record_error(tmp_path: Path) -> None:
    reports = import_eva(checkout(tmp_path), ImportOptions("ko"), domains=["medical_hr"])
    assert reports["medical_hr"].scenarios == []
    [(record_id, reason)] = reports["medical_hr"].failures
    assert record_id == "9.1" and "field culture_overrides.ko: missing" in reason


def _bad_records() -> list[tuple[Any, Any]]:
    malformed = hr_record("9.2")
    malformed["user_goal"]["decision_tree"].pop("negotiation_behavior")
    unknown_tool = hr_record("9.3")
    unknown_tool["ground_truth"]["expected_trace"]["trace"][2]["tool_name"] = "teleport_employee"
    wrong_layout = {k: v for k, v in HR_DB.items() if k != "providers"}
    placeholder = hr_record("9.6")
    placeholder["user_goal"]["information_required"]["npi"] = "<NPI_NUMBER>"
    wrong_type = hr_record("9.7")
    wrong_type["user_goal"]["decision_tree"]["must_have_criteria"] = "fast"
    return [
        (malformed, HR_DB),
        (unknown_tool, HR_DB),
        (hr_record("9.4"), wrong_layout),
        (hr_record("9.5"), None),  # no initial DB file
        (placeholder, HR_DB),
        (wrong_type, HR_DB),
        ("not a record", None),
        (hr_record("9.1"), HR_DB),  # a second record with the first one's id
    ]


def test_bad_records_are_reported_one_by_one_and_the_rest_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["import-eva", str(checkout(tmp_path, medical_hr=_bad_records())), "--out", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0].startswith("imported 3, failed 8")
    failures = dict(line.split(": ", 1) for line in lines[1:])
    expected = {
        "9.2": "field user_goal.decision_tree.negotiation_behavior: missing",
        "9.3": "field ground_truth.expected_trace.trace[2].tool_name: unknown tool 'teleport_employee'",
        "9.4": "field scenario_db.providers (medical_hr_scenarios/9.4.json): missing",
        "9.5": "no initial DB medical_hr_scenarios/9.5.json",
        "9.6": "field user_goal.information_required.npi: placeholder <NPI_NUMBER> has no value",
        "9.7": "field user_goal.decision_tree.must_have_criteria: expected list of texts",
        "medical_hr_dataset.json[7]": "the record must be a JSON object",
        "9.1": "field id: '9.1' is used by medical_hr_dataset.json[0] already",
    }
    assert set(failures) == set(expected)
    for record_id, fragment in expected.items():
        assert fragment in failures[record_id], failures[record_id]
        assert failures[record_id].startswith("medical_hr medical_hr_dataset.json[")
    assert sorted(p.name for p in (out / "medical_hr").glob("*.json")) == ["9.1.json"]
    assert (out / "airline" / "8.1.1.json").is_file() and (out / "itsm" / "501.json").is_file()


@pytest.mark.parametrize("where", ["checkout", "data folder", "dataset file"])
def test_the_datasets_are_found_from_a_checkout_or_its_data_folder(tmp_path: Path, where: str) -> None:
    root = checkout(tmp_path)
    path = {"checkout": root, "data folder": root / "data", "dataset file": root / "data" / "itsm_dataset.json"}[where]
    found = {d.eva_domain: d for d in find_datasets(path)}
    assert sorted(found) == (["itsm"] if where == "dataset file" else ["airline", "itsm", "medical_hr"])
    assert found["itsm"].db_dir == root / "data" / "itsm_scenarios"
    assert found["itsm"].aliases_dir == root / "data" / "itsm_aliases"


def test_a_folder_without_datasets_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import-eva", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no EVA-Bench dataset found" in capsys.readouterr().err


def test_domain_filter_takes_evas_or_evalkits_name(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    assert list(import_eva(root, domains=["medical_hr"])) == ["medical_hr"]
    assert list(import_eva(root, domains=["hr", "itsm"])) == ["itsm", "medical_hr"]  # hr: the alias


def test_generated_scenarios_without_a_reference_path_are_rejected(tmp_path: Path) -> None:
    raw = copy.deepcopy(OURS)
    raw["reference_calls"] = []
    path = tmp_path / "AL-001.json"
    path.write_text(json.dumps(raw))
    assert [p.check for p in check_file(path)] == ["reference_path"]
