"""Issue 29 points 1-2: scenario files for anyone's agent (YAML / JSONL) with success criteria of four kinds, each
scored on its own and all-must-pass overall; ``new`` / ``check`` on a folder; bad input named one line each by
``check`` and at config validation, nothing run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from mlflow.tracking import MlflowClient

from evalkit.cell import run_cell
from evalkit.config.schema import validate_config
from evalkit.domains.scenarios import load_scenarios
from evalkit.judges import JudgeConfig
from evalkit.judges.judge import Judge
from evalkit.judges.prompts import PROMPTS
from evalkit.metrics.registry import score_conversation
from evalkit.records import Conversation
from evalkit.scenario_tools.__main__ import main as scenario_tools_main
from evalkit.scenarios.file import (
    ScenarioFile,
    from_scenario,
    read_file,
    schema_json,
    to_scenario,
)
from evalkit.scenarios.store import load_path
from evalkit.text_dialogue import run_text_dialogue
from evalkit.tracking.store import resolve_target
from tests.openai_server import OpenAIStubServer, RecordedRequest, Reply
from tests.test_preflight import assert_no_cell_started, evalkit_cli
from tests.test_registries import compose_with

ROOT = Path(__file__).resolve().parent.parent
SUCCESS = ["success_db", "success_tool_calls", "success_transcript", "success_judge", "success_overall"]


def al001_file(**success: Any) -> dict[str, Any]:
    """evalkit's AL-001 (a same-day change to SK130) as a scenario file, converted by ``from_scenario``, with the
    given success criteria (facts quoted as {facts.<name>})."""
    data = from_scenario(load_scenarios("airline", ["AL-001"])[0])
    data["success"] = success
    return data


ALL_KINDS = {
    "db": {"reservations": {"WK2EXB": {"status": "changed", "bookings": [{"journey_id": "FL_SK130_20260618"}]}}},
    "tool_calls": {
        "required": [{"name": "rebook_flight", "arguments": {"confirmation_number": "{facts.confirmation_number}"}}],
        "forbidden": [{"name": "cancel_reservation"}],
    },
    "transcript": {"must_say": ["{facts.confirmation_number}", "SK130"], "must_not_say": ["refund"]},
    "judge": ["The agent quoted the change fee before rebooking.", "The agent named the new flight."],
}


@pytest.fixture(scope="module")
def al001_call() -> Conversation:
    """A real text-mode call: the embedded agent and the scripted caller play AL-001 read from a scenario file."""
    return run_text_dialogue(to_scenario(ScenarioFile.model_validate(al001_file(**ALL_KINDS))))


def rescored(conversation: Conversation, judge: Any = None, **success: Any) -> dict[str, Any]:
    """The success metrics of ``conversation`` under other criteria (as the file would carry them, facts resolved)."""
    criteria = to_scenario(ScenarioFile.model_validate(al001_file(**success))).success
    assert criteria is not None
    record = conversation.model_copy(update={"success": criteria.criteria()})
    return score_conversation(record, [], judge)


# -- each success kind on a real conversation --------------------------------------------------------------------


def test_every_kind_passes_on_the_call_that_met_its_goal(al001_call: Conversation) -> None:
    scores = score_conversation(al001_call, [])
    for name in ("success_db", "success_tool_calls", "success_transcript"):
        assert scores[name].passed is True and scores[name].details["failures"] == [], name
    # offline: the judged criteria are unscored with the reason, never 0; overall is then unscored too
    assert (
        scores["success_judge"].score is None and "no judge is configured" in scores["success_judge"].details["reason"]
    )
    assert scores["success_overall"].score is None and scores["success_overall"].details["unscored"] == ["judge"]
    # the code is spoken spelled out ("W K 2 E X B"): {facts.confirmation_number} matches it
    assert not any("WK2EXB" in t.intended_text for t in al001_call.turns if t.role == "assistant")


def test_db_kind_fails_on_a_value_the_final_db_does_not_hold(al001_call: Conversation) -> None:
    wrong = {"reservations": {"WK2EXB": {"status": "cancelled"}}}
    scores = rescored(al001_call, db=wrong)
    assert scores["success_db"].passed is False
    assert scores["success_db"].details["failures"] == [
        {"path": "reservations.WK2EXB.status", "expected": "cancelled", "actual": "changed"}
    ]
    stale = {"reservations": {"WK2EXB": {"bookings": [{"journey_id": "FL_SK530_20260618", "status": "confirmed"}]}}}
    assert rescored(al001_call, db=stale)["success_db"].passed is False  # the old booking is no longer confirmed
    assert scores["success_overall"].passed is False and scores["success_overall"].details["failed"] == ["db"]
    assert scores["success_transcript"].score is None  # not declared: unscored, never 0


def test_tool_call_kind_checks_required_arguments_and_forbidden_calls(al001_call: Conversation) -> None:
    wrong_args = {"required": [{"name": "rebook_flight", "arguments": {"new_journey_id": "FL_SK110_20260618"}}]}
    assert rescored(al001_call, tool_calls=wrong_args)["success_tool_calls"].passed is False
    forbidden = {"forbidden": [{"name": "assign_seat", "arguments": {"seat_preference": "WINDOW"}}]}
    value = rescored(al001_call, tool_calls=forbidden)["success_tool_calls"]
    assert value.passed is False and value.details["failures"][0]["made"][0]["name"] == "assign_seat"
    subset = {"required": [{"name": "assign_seat", "arguments": {"seat_preference": "window"}}]}
    assert rescored(al001_call, tool_calls=subset)["success_overall"].passed is True


def test_transcript_kind_reads_what_the_caller_heard_when_the_record_has_it(al001_call: Conversation) -> None:
    assert rescored(al001_call, transcript={"must_not_say": [r"\bSK130\b"]})["success_transcript"].passed is False
    assert rescored(al001_call, transcript={"must_say": ["standby"]})["success_transcript"].passed is False
    # the caller misheard the flight in every agent turn: the hearing is what counts
    heard = al001_call.model_copy(deep=True)
    for turn in heard.turns:
        if turn.role == "assistant":
            turn.heard_text = turn.intended_text.replace("S K 1 3 0", "S K 1 8 0")
    assert rescored(al001_call, transcript={"must_say": ["SK130"]})["success_transcript"].passed  # said spelled out
    value = rescored(heard, transcript={"must_say": ["SK130"]})["success_transcript"]
    assert value.passed is False and value.details["heard"] is True


def judge_policy(verdicts: list[bool]) -> Any:
    def answer(request: RecordedRequest) -> Reply:
        user = request.body["messages"][1]["content"]
        assert "## Criteria" in user and "SK130" in user  # the criteria and the call's transcript reach the judge
        rows = [{"criterion_id": i, "reason": f"turn {i} says so", "passed": v} for i, v in enumerate(verdicts, 1)]
        return Reply(content=json.dumps({"criteria": rows}))

    return answer


def judge_config(server: OpenAIStubServer, tmp_path: Path) -> JudgeConfig:
    return JudgeConfig(
        kind="openai_compatible",
        base_url=server.base_url,
        model="judge-model",
        api_key_env=None,
        cache_dir=str(tmp_path / "cache"),
        max_retries=0,
        timeout_s=10,
    )


def test_judge_kind_gives_each_criterion_a_verdict_and_reason_cached(al001_call: Conversation, tmp_path: Path) -> None:
    with OpenAIStubServer([judge_policy([True, False])]) as server:
        judge = Judge(judge_config(server, tmp_path))
        value = score_conversation(al001_call, [], judge)["success_judge"]
        again = score_conversation(al001_call, [], judge)["success_judge"]
        assert len(server.requests) == 1  # the second judgment came from the cache
    assert value.score == 0.5 and value.passed is False
    assert [c["passed"] for c in value.details["criteria"]] == [True, False]
    assert value.details["criteria"][1] == {
        "criterion": "The agent named the new flight.",
        "passed": False,
        "reason": "turn 2 says so",
    }
    assert value.details["prompt_hash"] == PROMPTS["success_judge"].prompt_hash and again.details["cached"] is True
    with OpenAIStubServer([judge_policy([True, True])]) as server:
        scores = score_conversation(al001_call, [], Judge(judge_config(server, tmp_path / "fresh")))
    assert scores["success_judge"].passed is True and scores["success_overall"].passed is True


# -- the file format ------------------------------------------------------------------------------------------


def test_the_exported_json_schema_is_current() -> None:
    assert (ROOT / "docs" / "scenario.schema.json").read_text() == schema_json(), (
        "regenerate: python -c 'from evalkit.scenarios.file import schema_json; "
        'open("docs/scenario.schema.json", "w").write(schema_json())\''
    )
    schema = json.loads(schema_json())
    assert set(schema["required"]) == {"id", "goal", "opening", "success"}
    assert set(schema["$defs"]["Success"]["properties"]) == {"db", "tool_calls", "transcript", "judge"}


def test_evalkits_own_scenarios_convert_to_files_and_back() -> None:
    for domain in ("airline", "itsm", "medical_hr"):
        for scenario in load_scenarios(domain):
            back = to_scenario(ScenarioFile.model_validate(from_scenario(scenario)))
            assert back.user_goal.scripted == scenario.user_goal.scripted, scenario.id
            assert (
                back.scenario_db == scenario.scenario_db and back.expected_scenario_db == scenario.expected_scenario_db
            )


def test_yaml_and_jsonl_files_read_with_facts_shorthand_and_spoken_forms(tmp_path: Path) -> None:
    entry = {
        "id": "j1",
        "goal": "Ask for the balance.",
        "opening": "Hi.",
        "facts": {"account": {"value": "12-34", "spoken": "one two three four", "aliases": ["account number"]}},
        "success": {"transcript": {"must_say": ["{facts.account}"]}},
    }
    path = tmp_path / "many.jsonl"
    path.write_text(json.dumps(entry) + "\n\n" + json.dumps(entry | {"id": "j2", "facts": {"account": 1234}}) + "\n")
    first, second = load_path(path)
    assert first.facts["account"].aliases == ["account number"] and second.facts["account"].value == "1234"
    pattern = first.success.transcript.must_say[0]  # value or spoken form, spelled out or not
    assert all(re.search(pattern, s, re.I) for s in ("12-34", "1 2 3 4", "one two, three four"))
    assert first.user_goal.scripted.answers == {"account": "one two three four"}  # the caller says the spoken form
    (tmp_path / "x.yaml").write_text(yaml.safe_dump(entry | {"id": "x", "limits": {"turns": 3, "seconds": 30}}))
    assert read_file(tmp_path / "x.yaml")[0].limits.turns == 3


# -- a folder through a real cell ------------------------------------------------------------------------------


def test_a_folder_of_yaml_scenarios_runs_through_a_real_cell(tmp_path: Path) -> None:
    """The embedded agent (cascade_local, text modality) and the scripted caller play two YAML scenarios on the
    airline's tools; every success kind is scored per conversation and logged to MLflow."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "rebook.yaml").write_text(yaml.safe_dump(al001_file(**ALL_KINDS) | {"id": "rebook"}))
    limited = al001_file(transcript={"must_say": ["SK130"]}) | {"id": "short", "limits": {"turns": 2}}
    (folder / "short.yaml").write_text(yaml.safe_dump(limited))
    raw = compose_with(
        None,
        "domain=airline",
        f"domain.scenario_dir={folder}",
        "modality=text",
        "trials=1",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
    )
    config = validate_config(raw, {"domain": "airline"})
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")
    assert result.n_conversations == 2
    full = json.loads((tmp_path / "cell" / "records" / "rebook_t0.json").read_text())
    scores = {n: m["score"] for n, m in full["metrics"].items()}
    assert scores["success_db"] == scores["success_tool_calls"] == scores["success_transcript"] == 1.0
    assert scores["success_judge"] is None and scores["success_overall"] is None  # judge=none: unscored, not 0
    short = json.loads((tmp_path / "cell" / "records" / "short_t0.json").read_text())
    assert sum(t["role"] == "user" for t in short["conversation"]["turns"]) <= 2  # the file's own turn limit
    assert short["metrics"]["success_transcript"]["score"] == 0.0 and short["metrics"]["success_overall"]["score"] == 0
    metrics = MlflowClient(target.tracking_uri).get_run(result.run_id).data.metrics
    assert any(name.startswith("success_transcript") for name in metrics), sorted(metrics)


# -- new / check / config validation ------------------------------------------------------------------------


def scenarios_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evalkit.scenarios", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_new_scaffolds_a_commented_scenario_that_check_accepts(tmp_path: Path, capsys) -> None:
    """The first ``new`` as a user runs it (the command's name and exit status; ``check``'s: the test below); the
    rest through the same ``main`` in process (each start of the command costs ~2-4 s)."""
    folder = tmp_path / "mine"
    made = scenarios_cli("new", str(folder))
    assert made.returncode == 0, made.stderr
    text = (folder / "scenario-1.yaml").read_text()
    assert "id: scenario-1 " in text and text.count("#") > 20  # commented
    assert scenario_tools_main(["new", str(folder)]) == 0 and (folder / "scenario-2.yaml").exists()
    assert scenario_tools_main(["new", str(folder), "--id", "scenario-1"]) == 2  # never overwrites
    capsys.readouterr()
    assert scenario_tools_main(["check", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "2 scenario files checked: no problems" in out, out
    assert ScenarioFile.model_validate(yaml.safe_load(text)).success.judge


BAD = {
    "kind.yaml": ("success: unknown success kind 'judgement'", {"success": {"judgement": ["x"]}}),
    "fact.yaml": (
        "success.transcript.must_say[0]: fact 'name' is not defined",
        {"success": {"transcript": {"must_say": ["{facts.name}"]}}},
    ),
    "regex.yaml": (
        "success.transcript.must_not_say[0]: regex does not compile",
        {"success": {"transcript": {"must_not_say": ["(a"]}}},
    ),
    "goal.yaml": ("goal: is empty", {"goal": "   "}),
    "twin.yaml": ("id: scenario id 'ok' is used by two files", {"id": "ok"}),
}


def bad_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir()
    base = {"id": "ok", "goal": "Ask.", "opening": "Hi.", "facts": {"ref": "A1"}, "success": {"judge": ["x"]}}
    (folder / "ok.yaml").write_text(yaml.safe_dump(base))
    for name, (_, change) in BAD.items():
        (folder / name).write_text(yaml.safe_dump(base | {"id": Path(name).stem} | change))
    return folder


def test_check_names_each_bad_input_in_one_line(tmp_path: Path) -> None:
    checked = scenarios_cli("check", str(bad_folder(tmp_path)))
    assert checked.returncode == 2 and "Traceback" not in checked.stderr
    lines = checked.stdout.splitlines()
    assert len(lines) == len(BAD) + 1 and lines[-1] == f"{len(BAD) + 1} scenario files checked: {len(BAD)} problems"
    for name, (fragment, _) in BAD.items():
        assert sum(name in line and fragment in line for line in lines) == 1, (name, lines)


def test_a_run_on_bad_scenario_files_names_each_problem_and_starts_nothing(tmp_path: Path) -> None:
    proc = evalkit_cli(tmp_path, "domain=custom", f"domain.scenario_dir={bad_folder(tmp_path)}")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # one stderr line per problem, nothing else (they used to share one line, joined by "; ")
    problems = proc.stderr.strip().splitlines()
    assert len(problems) == len(BAD) and all("domain.scenario_dir" in p and "; " not in p for p in problems), problems
    for name, (fragment, _) in BAD.items():
        assert any(name in p and fragment in p for p in problems), (name, proc.stderr)
    assert_no_cell_started(tmp_path)


def test_several_schema_problems_are_one_stderr_line_each() -> None:
    from evalkit.cli.entry import problem_lines
    from evalkit.config.schema import ConfigError

    raw = compose_with(None, "trials=0", "domain.limit=0", "concurrency=0")
    with pytest.raises(ConfigError) as info:
        validate_config(raw, {"domain": "airline_sample"}, ["trials=0", "domain.limit=0", "concurrency=0"])
    lines = problem_lines(info.value)
    assert all(line.startswith("invalid evalkit config: ") and "greater than or equal to 1" in line for line in lines)
    assert sorted(line.split(": ")[1] for line in lines) == ["concurrency", "domain.limit", "trials"]


def test_eva_bench_records_read_as_they_are_and_convert_to_files(tmp_path: Path) -> None:
    """An EVA-Bench import (runtime JSON) and scenario files share one folder; each import also converts."""
    from evalkit.domains.scenarios import folder_scenarios
    from evalkit.scenario_tools.__main__ import main as cli
    from tests.eva_fixtures import HR_DB, hr_record, write_checkout

    root = write_checkout(tmp_path / "eva", {"medical_hr": [(hr_record(), HR_DB)]})
    assert cli(["import-eva", str(root), "--out", str(tmp_path / "imported")]) == 0
    folder = tmp_path / "imported" / "medical_hr"
    (imported,) = folder_scenarios("medical_hr", folder)
    as_file = from_scenario(imported) | {"id": "as-file"}
    as_file["success"]["judge"] = ["The agent verified the caller before changing anything."]
    (folder / "as-file.yaml").write_text(yaml.safe_dump(as_file))
    both = {s.id: s for s in folder_scenarios("medical_hr", folder)}
    assert set(both) == {imported.id, "as-file"}
    assert both["as-file"].scenario_db == imported.scenario_db
    assert both["as-file"].user_goal.information_required == imported.user_goal.information_required


def test_facts_on_the_scenario_model_and_existing_files_unchanged() -> None:
    """``Scenario.facts``: name -> Fact(value, spoken, aliases), a bare value as shorthand; a scenario without facts
    (and the other file-only fields) writes exactly the JSON it was read from."""
    path = ROOT / "evalkit" / "domains" / "airline" / "scenarios" / "AL-001.json"
    scenario = load_path(path)[0]
    assert json.loads(scenario.model_dump_json()) == json.loads(path.read_text())
    with_facts = type(scenario).model_validate(json.loads(scenario.model_dump_json()) | {"facts": {"ref": "WK2EXB"}})
    assert with_facts.facts["ref"].value == "WK2EXB" and with_facts.facts["ref"].said == "WK2EXB"
    assert json.loads(with_facts.model_dump_json())["facts"] == {
        "ref": {"value": "WK2EXB", "spoken": None, "aliases": []}
    }


# -- a tool-call log an in-process agent reports (its own tools) ------------------------------------------------


class OwnToolsAgent:
    """An in-process agent whose back end is its own (the custom domain: no harness tools): it reports the calls it
    made there through ``context.tools.report`` (evalkit.tool_log)."""

    def start(self, context: Any) -> Any:
        from evalkit.agents.base import AgentReply

        self.tools = context.tools
        return AgentReply("Billing line. What do you need?", None)

    def respond(self, text: str) -> Any:
        from evalkit.agents.base import AgentReply

        self.tools.report([{"name": "refund", "arguments": {"invoice": "INV-7", "amount": 40}, "result": {"ok": 1}}])
        return AgentReply("Refunded. Goodbye.", None, end_call=True)


def test_an_in_process_agent_reports_its_own_tool_calls_and_they_are_scored() -> None:
    from evalkit.agents.base import ToolBox
    from evalkit.call import CallSettings, TextChannel
    from evalkit.call.conversation import run_text_conversation
    from evalkit.domains.base import ToolExecutor, ToolRegistry
    from evalkit.simulator.scripted.caller import ScriptedSimulator
    from evalkit.tool_log import ToolLogError

    entry = {
        "id": "refund",
        "goal": "Get invoice INV-7 refunded.",
        "opening": "Please refund invoice INV-7.",
        "success": {
            "tool_calls": {
                "required": [{"name": "refund", "arguments": {"invoice": "inv-7"}}],
                "forbidden": [{"name": "refund", "arguments": {"amount": 400}}],
            }
        },
    }
    scenario = to_scenario(ScenarioFile.model_validate(entry))
    conversation = run_text_conversation(
        scenario,
        OwnToolsAgent(),
        ScriptedSimulator(scenario, None, np.random.default_rng(0)),
        TextChannel(lambda t: t),
        ToolExecutor(ToolRegistry(), {}),
        CallSettings(max_user_turns=4, max_duration_s=float("inf")),
    )
    assert conversation.tool_calls == [] and [c.name for c in conversation.agent_tool_calls or []] == ["refund"]
    value = score_conversation(conversation, [])["success_tool_calls"]
    assert value.passed is True and value.details["reported"] == 1
    without = score_conversation(conversation.model_copy(update={"agent_tool_calls": None}), [])
    assert without["success_tool_calls"].passed is False  # no log: the required call was never made
    with pytest.raises(ToolLogError, match=r"calls\[0\]\.name: missing"):
        ToolBox(ToolExecutor(ToolRegistry(), {})).report([{"arguments": {}}])
