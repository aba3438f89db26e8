"""Issue 15 point 3: any scenario folder runs (``domain=<d> domain.scenario_dir=<folder>``) through the same cell
pipeline, with the records' own dates, times and personas; a folder that does not exist or holds no valid scenario
is one config error. And the scripted caller, given a scenario whose workflow evalkit does not know (an imported
EVA-Bench record), answers identity and entity questions from its structured fields instead of going mute."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from mlflow.tracking import MlflowClient

from evalkit.agents.base import AgentReply
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.cell import run_cell
from evalkit.config import preflight as pf
from evalkit.config.schema import ConfigError, identity_payload, validate_config
from evalkit.plugins import Registry
from evalkit.records import AudioClip
from evalkit.scenario_tools.__main__ import main as scenarios_cli
from evalkit.scenarios import load_scenario
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.simulator.scripted.field_answers import FieldAnswers
from evalkit.speech import EspeakTTS
from evalkit.text_dialogue import run_text_dialogue
from evalkit.tracking.store import resolve_target
from tests.eva_fixtures import AIRLINE_DB, EMPLOYEE, HR_DB, airline_record, hr_record, write_checkout
from tests.test_preflight import preflight_refusal
from tests.test_registries import agents_restored, compose_with  # noqa: F401  (a fixture)

QUESTION = "What is your full name?"


class DateEchoAgent:
    """Says the date and time it was given, then asks the caller's name (answered from the persona)."""

    def __init__(self) -> None:
        self.tts = EspeakTTS("en-us")

    def _say(self, text: str) -> AgentReply:
        samples, rate = self.tts.synthesize(text)
        return AgentReply(text=text, audio=AudioClip(samples=samples, sample_rate=rate))

    def start(self, context: object) -> AgentReply:
        return self._say(f"It is {context.current_date_time}. {QUESTION}")

    def respond(self, user_audio: object) -> AgentReply:
        return self._say(QUESTION)


class DateEchoConfig(AgentConfig):
    kind: Literal["date_echo"] = "date_echo"

    def build(self) -> DateEchoAgent:
        return DateEchoAgent()


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    """evalkit's fixtures in EVA-Bench's layout, imported: ``<out>/hr``, ``<out>/airline``."""
    root = write_checkout(
        tmp_path / "eva", {"medical_hr": [(hr_record(), HR_DB)], "airline": [(airline_record(), AIRLINE_DB)]}
    )
    assert scenarios_cli(["import-eva", str(root), "--out", str(tmp_path / "imported")]) == 0
    return tmp_path / "imported"


def test_a_scenario_folder_runs_a_cell_with_its_own_dates_and_personas(
    tmp_path: Path,
    imported: Path,
    agents_restored: Registry,  # noqa: F811
) -> None:
    AGENTS.register("date_echo")(DateEchoConfig)
    conf = tmp_path / "conf" / "agent"
    conf.mkdir(parents=True)
    (conf / "date_echo.yaml").write_text("kind: date_echo\nname: date_echo\n")
    raw = compose_with(
        tmp_path / "conf",
        "agent=date_echo",
        "domain=hr",
        f"domain.scenario_dir={imported / 'medical_hr'}",
        "trials=1",
        "simulator.max_user_turns=2",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
        "mlflow.log_audio=false",
    )
    config = validate_config(raw, {"agent": "date_echo", "domain": "hr"})
    assert config.domain.scenario_dir == str((imported / "medical_hr").resolve())
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")

    assert result.n_conversations == 1
    record = json.loads((tmp_path / "cell" / "records" / "9.1_t0.json").read_text())
    turns = record["conversation"]["turns"]
    assert turns[0]["intended_text"].startswith("It is 2031-02-03 08:05 EST.")  # the record's own date and time
    users = [t["intended_text"] for t in turns if t["role"] == "user"]
    assert users[0] == "Hi, this is Wilhelmina. I need to add my daughter to my benefits."
    assert "Wilhelmina Quarrie" in users[1]  # the record's persona answers, not evalkit's
    assert record["conversation"]["initial_db"]["employees"][EMPLOYEE]["first_name"] == "Wilhelmina"
    params = MlflowClient(target.tracking_uri).get_run(result.run_id).data.params
    assert params["cfg.domain.scenario_dir"] == str((imported / "medical_hr").resolve())
    # the folder is part of the cell's identity; without one, cells keep the keys they had before the option
    assert identity_payload(config)["domain"]["scenario_dir"] == config.domain.scenario_dir
    assert "scenario_dir" not in identity_payload(validate_config(compose_with(None)))["domain"]


def test_a_missing_scenario_folder_is_one_line_before_any_cell(tmp_path: Path) -> None:
    [line] = preflight_refusal(tmp_path, "domain=hr", f"domain.scenario_dir={tmp_path / 'nowhere'}")
    assert "domain.scenario_dir" in line and str(tmp_path / "nowhere") in line and "does not exist" in line


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        (lambda folder: None, "holds no scenario files"),
        (lambda folder: (folder / "x.json").write_text("{not json"), "x.json: cannot read scenario JSON"),
        (lambda folder: (folder / "x.json").write_text('{"id": "x"}'), "x.json: invalid scenario"),
    ],
    ids=["empty", "unreadable", "not a scenario"],
)
def test_a_folder_without_valid_scenarios_is_one_config_error(tmp_path: Path, setup: object, fragment: str) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    setup(folder)
    config = validate_config(compose_with(None, "domain=hr", f"domain.scenario_dir={folder}"))
    with pytest.raises(ConfigError) as info:
        pf.preflight(config, tmp_path)
    assert str(info.value).startswith("domain.scenario_dir: ") and fragment in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_a_folder_of_another_domain_is_refused(tmp_path: Path, imported: Path) -> None:
    config = validate_config(compose_with(None, "domain=itsm", f"domain.scenario_dir={imported / 'medical_hr'}"))
    with pytest.raises(ConfigError, match=r"domain.scenario_dir: .*9\.1\.json: a scenario of domain 'medical_hr'"):
        pf.preflight(config, tmp_path)


def test_numeric_ids_of_a_folder_select_scenarios(tmp_path: Path, imported: Path) -> None:
    # EVA-Bench ids look like numbers ("9.1", "12"): the command line's number is taken back as the id
    raw = compose_with(
        None,
        "domain=hr",
        f"domain.scenario_dir={imported / 'medical_hr'}",
        "domain.scenarios=[9.1]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path}/m.db",
    )
    config = validate_config(raw)
    assert config.domain.scenarios == ["9.1"]
    pf.preflight(config, tmp_path)


# -- the scripted caller on a workflow evalkit does not know -------------------------------------------------------


def test_the_caller_answers_identity_and_entity_questions_from_the_records_fields(imported: Path) -> None:
    scenario = load_scenario(imported / "medical_hr" / "9.1.json")
    caller = ScriptedSimulator(scenario)
    assert caller.fallback is not None
    assert caller.first_utterance().text == "Hi, this is Wilhelmina. I need to add my daughter to my benefits."
    # the domain's employee-ID slot says how, as for its own scenarios
    assert caller.respond("Could I have your employee ID, please?").text == "It's E M P 7 0 0 0 0 1."
    assert caller.respond("And the dependent's last name?").text == "Brandvold."  # not the caller's own
    assert caller.respond("What is your last name?").text == "Quarrie."
    assert "Wilhelmina Quarrie" in caller.respond("May I have your full name?").text
    both = caller.respond("Please give me your NPI and your facility code.").text
    assert both.startswith("It's 1 2 3 4") and "K Q F - 2 2 B" in both  # a dashed code is spelled, dash and all
    assert (
        caller.respond("Is there anything else I can help with?").text
        == "I also need to swap a shift with a colleague."
    )
    # asked again what it needs, the caller names its first task (the record's first intent), not the vague opening
    assert scenario.user_goal.scripted.request and scenario.user_goal.scripted.request.startswith("I need to ")
    assert caller.respond("What do you need help with?").text == scenario.user_goal.scripted.request
    # an opening that announced several requests: asked for the first one, the caller names it
    first = caller.respond("Sure, I can help with those. What's the first one?").text
    assert first == scenario.user_goal.scripted.request
    assert caller.respond("Is there anything else I can help with?").end_call  # no further request: the closing


def test_a_records_fmla_dates_answer_the_leave_questions_not_its_pto_dates(tmp_path: Path) -> None:
    """EVA-Bench's ``fmla_leave_start_date`` is the leave slot's date: a record that also lists PTO dates must not
    answer "What is the leave start date?" with the PTO start (the generic label "start date" inside it)."""
    record = hr_record()
    record["user_goal"]["information_required"] |= {
        "fmla_leave_start_date": "2031-03-09",
        "fmla_leave_end_date": "2031-04-20",
        "pto_start_date": "2031-03-03",
        "pto_end_date": "2031-03-05",
    }
    root = write_checkout(tmp_path / "eva", {"medical_hr": [(record, HR_DB)]})
    assert scenarios_cli(["import-eva", str(root), "--out", str(tmp_path / "imported")]) == 0
    caller = ScriptedSimulator(load_scenario(tmp_path / "imported" / "medical_hr" / "9.1.json"))
    assert caller.respond("Thank you. What is the leave start date?").text == "March 9th, 2031."  # spoken form
    assert caller.respond("And the leave end date?").text == "April 20th, 2031."
    assert caller.respond("What is the start date of your time off?").text == "March 3rd, 2031."


def test_an_imported_record_runs_in_text_mode_without_crashing(imported: Path) -> None:
    for path in (imported / "medical_hr" / "9.1.json", imported / "airline" / "8.1.1.json"):
        conversation = run_text_dialogue(load_scenario(path))
        assert conversation.end_reason in ("agent_end_call", "user_end_call", "max_turns"), conversation.error
        assert len(conversation.user_turns) >= 2


def test_evalkits_own_scenarios_keep_their_script() -> None:
    from evalkit.domains.scenarios import scenario_dir

    for domain, name in (("hr", "HR-001.json"), ("airline", "AL-001.json")):
        scenario = load_scenario(scenario_dir(domain) / name)
        assert ScriptedSimulator(scenario).fallback is None
        assert FieldAnswers.for_scenario(scenario, None) is None


def test_selected_scenarios_are_read_fresh_and_a_changed_folder_is_seen(tmp_path: Path) -> None:
    """Every cell plans its scenarios: with ids, only their files are read (which file holds which id is read once
    per folder state), each call returns new objects, and an edited, added or removed file is seen at once."""
    from evalkit.domains.scenarios import load_scenarios, scenario_dir
    from evalkit.scenarios.store import ScenarioError

    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in ("AL-001.json", "AL-005.json"):
        (folder / name).write_text((scenario_dir("airline") / name).read_text())
    first = load_scenarios("airline", ["AL-005"], folder=folder)
    first[0].user_goal.high_level_user_goal = "mutated by a caller"
    again = load_scenarios("airline", ["AL-005", "AL-001"], folder=folder)
    assert [s.id for s in again] == ["AL-005", "AL-001"] and again[0] is not first[0]
    assert again[0].user_goal.high_level_user_goal != "mutated by a caller"

    raw = json.loads((folder / "AL-005.json").read_text())
    raw["user_goal"]["high_level_user_goal"] = "an edited goal, one byte longer or shorter than before."
    (folder / "AL-005.json").write_text(json.dumps(raw))
    assert load_scenarios("airline", ["AL-005"], folder=folder)[0].user_goal.high_level_user_goal == (
        "an edited goal, one byte longer or shorter than before."
    )
    raw["id"] = "AL-099"
    (folder / "renamed.json").write_text(json.dumps(raw))
    assert load_scenarios("airline", ["AL-099"], folder=folder)[0].id == "AL-099"
    (folder / "AL-001.json").unlink()
    with pytest.raises(ScenarioError, match=r"unknown scenario id .AL-001."):
        load_scenarios("airline", ["AL-001"], folder=folder)
    (folder / "broken.json").write_text("{")
    with pytest.raises(ScenarioError, match=r"broken\.json"):
        load_scenarios("airline", ["AL-005"], folder=folder)


def test_a_slot_a_workflow_copies_under_a_record_field_s_name_is_answered_from_that_field(imported: Path) -> None:
    """An airport nearby asked for when the booked route is full is the record's ``new_destination`` (the workflow
    copies it there): the caller gives it, however the agent words the question."""
    from evalkit.domains.workflow import Ask, Compute, Slot, Workflow

    question = "Is there another airport nearby you could fly into?"
    nearby = Slot("nearby_airport", "text", question, label="airport nearby")
    steps = (Ask(nearby), Compute("new_destination", "$nearby_airport"))
    workflows = {"moving": Workflow("moving", "move a flight", ("move",), steps)}
    record = load_scenario(imported / "airline" / "8.1.1.json")
    plan = record.user_goal.scripted.model_copy(update={"answers": {"new_destination": "LGB"}})
    record = record.model_copy(update={"user_goal": record.user_goal.model_copy(update={"scripted": plan})})
    answers = FieldAnswers.for_scenario(record, workflows)
    assert answers is not None and answers.fields["nearby_airport"] == "LGB"
    assert answers.asked("Is there another airport nearby you could fly into instead?") == ["nearby_airport"]
    caller = ScriptedSimulator(record, workflows=workflows)
    assert "LGB" in caller.respond("Sorry, no open flights. Is there another airport nearby you could fly into?").text
    without = FieldAnswers.for_scenario(record, {"moving": Workflow("moving", "move a flight", ("move",), steps[:1])})
    assert without is not None and "nearby_airport" not in without.fields  # no copy declared: nothing made up
