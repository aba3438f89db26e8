"""The arena end to end: two agents' real (text-mode) calls logged as cells in a real MLflow store, judged pairwise
by a real OpenAI-compatible server on 127.0.0.1 (a deterministic judge policy), then Elo / Bradley–Terry / win
rates, bias, agreement with a second judge, rubric scores, the report and the MLflow run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.arena.judging import Rubric
from evalkit.arena.pairs import ArenaError
from evalkit.arena.run import ArenaSettings, run_arena
from evalkit.cell.log import write_conversation
from evalkit.domains.scenarios import scenario_dir
from evalkit.judges.config import JudgeConfig
from evalkit.judges.judge import Judge
from evalkit.records import ConversationRecord
from evalkit.scenarios import load_scenario
from evalkit.text_dialogue import run_text_dialogue
from evalkit.tracking import CellRun, TrackingTarget, end_sweep, resolve_target, start_sweep
from tests.conftest import REPO
from tests.openai_server import OpenAIStubServer, RecordedRequest, Reply, reply_json

N_SCENARIOS = 8
EARS = {"sharp": lambda text: text, "dull": lambda text: re.sub(r"\d", "7", text)}  # dull mishears every digit


def log_agent_cells(target: TrackingTarget, tmp: Path, agents: dict) -> str:
    """One clean cell per agent over the same scenarios (text mode: real local-agent calls), under one sweep."""
    parent = start_sweep(target, tmp / "multirun", {"agent": ",".join(agents)}, [])
    paths = sorted(scenario_dir("airline").glob("*.json"))[:N_SCENARIOS]
    for agent, ear in agents.items():
        params = {
            "domain": "airline", "agent": agent, "architecture": "cascade", "simulator": "scripted",
            "voice": "neutral", "persona": "default", "perturb": "clean", "snr_db": "none", "trials": "1",
            "seed": "0", "scenarios": "first8",
        }  # fmt: skip
        out = tmp / agent
        for path in paths:
            record = ConversationRecord(conversation=run_text_dialogue(load_scenario(path), ear=ear), metrics={})
            write_conversation(out, record, {})
        tags = {"cell_key": f"key-{agent}", "twin_key": f"key-{agent}", "evalkit.kind": "cell"}
        with CellRun.open(target, f"airline|{agent}", tags, parent) as run:
            run.log_params(params)
            run.log_dir(out)
    end_sweep(target, parent)
    return parent


def caller_lines(call: str) -> int:
    return sum(line.startswith("Caller:") for line in call.splitlines())


def fewer_turns_judge(request: RecordedRequest) -> Reply:
    """The judge policy: the call where the caller needed fewer turns wins (A on a tie); rubric: s_1 = the call
    has at most 8 caller turns, s_2 = always met."""
    system, user = (m["content"] for m in request.body["messages"])
    if "binary criteria" in system:
        call = user.split("The call:\n", 1)[1]
        return reply_json({"s_1": int(caller_lines(call) <= 8), "s_2": 1})
    call_a, call_b = user.split("Call A:\n", 1)[1].split("\n\nCall B:\n", 1)
    return reply_json({"winner": "B" if caller_lines(call_b) < caller_lines(call_a) else "A", "reason": "fewer turns"})


def judge_for(server: OpenAIStubServer, cache: Path, model: str = "arena-judge") -> Judge:
    config = {"kind": "openai_compatible", "base_url": server.base_url, "model": model, "api_key_env": None}
    return Judge(JudgeConfig.model_validate(config | {"cache_dir": str(cache)}))


@pytest.fixture()
def store(tmp_path: Path) -> TrackingTarget:
    target = resolve_target(f"sqlite:///{tmp_path / 'mlflow.db'}", "evalkit", None, tmp_path)
    log_agent_cells(target, tmp_path, EARS)
    return target


def test_two_agents_judged_pairwise_with_ratings_bias_agreement_rubric_and_an_mlflow_run(store, tmp_path):
    rubric_file = tmp_path / "rubric.yaml"
    rubric_file.write_text("version: r1\ncriteria:\n  s_1: The call needs few turns.\n  s_2: The agent is polite.\n")
    with OpenAIStubServer([fewer_turns_judge]) as server, OpenAIStubServer([reply_json({"winner": "A"})]) as always_a:
        judge, second = judge_for(server, tmp_path / "cache"), judge_for(always_a, tmp_path / "cache2", "always-a")
        outcome = run_arena(
            store, tmp_path / "out", judge, ArenaSettings(seed=3), second_judge=second, rubric=Rubric.load(rubric_file)
        )
        arena_requests = len(server.requests)
        again = run_arena(store, tmp_path / "again", judge, ArenaSettings(seed=3), log_run=False)
        assert len(server.requests) == arena_requests  # every verdict from the cache on a rerun
        assert all(v.cached for v in again.verdicts) and [v.winner for v in again.verdicts] == [
            v.winner for v in outcome.verdicts
        ]

    verdicts = outcome.verdicts
    assert len(verdicts) == N_SCENARIOS and not outcome.failed
    assert {(v.first, v.second) for v in verdicts} == {("sharp", "dull"), ("dull", "sharp")}  # A/B order random
    # each verdict is the policy's answer on the calls as shown, mapped back to the agent
    prompts = [
        r.body["messages"][1]["content"] for r in server.requests if "Call A:" in r.body["messages"][1]["content"]
    ]
    for v, user in zip(verdicts, prompts, strict=True):
        call_a, call_b = user.split("Call A:\n", 1)[1].split("\n\nCall B:\n", 1)
        assert v.winner == (v.second if caller_lines(call_b) < caller_lines(call_a) else v.first)
    sharp_wins = sum(v.winner == "sharp" for v in verdicts)
    rating = {r.model: r for r in outcome.ratings}
    assert rating["sharp"].win_rate == pytest.approx(sharp_wins / N_SCENARIOS)
    assert (rating["sharp"].bradley_terry > rating["dull"].bradley_terry) == (sharp_wins > N_SCENARIOS / 2)
    assert rating["sharp"].elo + rating["dull"].elo == pytest.approx(2000.0)
    assert rating["sharp"].bt_ci_low <= rating["sharp"].bradley_terry <= rating["sharp"].bt_ci_high

    always_a = outcome.bias["always-a (second)"]["position"]
    assert always_a.rate == 1.0 and always_a.significant  # a judge that always picks A is caught
    assert outcome.agreement is not None and outcome.agreement.n == N_SCENARIOS
    first_wins = sum(v.winner == v.first for v in verdicts)
    assert outcome.agreement.raw == pytest.approx(first_wins / N_SCENARIOS)

    assert outcome.rubric is not None and len(outcome.rubric_scores) == 2 * N_SCENARIOS
    assert all(s.criteria is not None and s.criteria["s_2"] == 1 for s in outcome.rubric_scores)

    assert outcome.files["win_rates_png"].stat().st_size > 1000
    report = outcome.files["report"].read_text()
    for text in ("| sharp |", "## Win rates", "## Judge bias", "## Judge agreement", "## Rubric (version r1"):
        assert text in report
    run = MlflowClient(store.tracking_uri).get_run(outcome.run_id)
    assert run.data.tags["evalkit.arena"] == "true" and run.data.params["judge.model"] == "arena-judge"
    assert run.data.params["seed"] == "3" and run.data.params["rubric.sha256"] == outcome.rubric.sha256[:12]
    assert run.data.metrics["pairs"] == N_SCENARIOS


def test_the_order_is_seeded_and_an_invalid_answer_is_a_failed_judgment_not_a_win(store, tmp_path):
    answers = [Reply(content="not json"), Reply(content="still not json"), reply_json({"winner": "B"})]
    with OpenAIStubServer(answers) as server:
        outcome = run_arena(
            store, tmp_path / "o", judge_for(server, tmp_path / "c"), ArenaSettings(seed=5), log_run=False
        )
    assert len(outcome.failed) == 1 and "invalid after 2 attempt(s)" in outcome.failed[0].failed
    assert outcome.failed[0].winner is None and sum(r.comparisons for r in outcome.ratings) == 2 * (N_SCENARIOS - 1)
    with OpenAIStubServer([reply_json({"winner": "B"})]) as server:
        orders = [
            [(v.first, v.second) for v in run_arena(store, tmp_path / f"s{s}", judge_for(server, tmp_path / f"c{s}"),
                                                     ArenaSettings(seed=s), log_run=False).verdicts]
            for s in (5, 5, 6)
        ]  # fmt: skip
    assert orders[0] == orders[1] != orders[2]


def test_tf_win_rate_against_a_pinned_baseline_in_the_report(store, tmp_path):
    """``baseline=dull``: every agent's TF win rate over dull (IHBench), with the failed judgment left out."""
    answers = [Reply(content="not json"), Reply(content="still not json"), fewer_turns_judge]
    with OpenAIStubServer(answers) as server:
        settings = ArenaSettings(seed=5, baseline="dull")
        outcome = run_arena(store, tmp_path / "o", judge_for(server, tmp_path / "c"), settings, log_run=False)
    decided = [v for v in outcome.verdicts if v.winner is not None]
    assert len(decided) == N_SCENARIOS - 1
    tf = outcome.tf["sharp"]
    assert (tf.wins, tf.n, tf.undecided) == (sum(v.winner == "sharp" for v in decided), N_SCENARIOS - 1, 1)
    assert tf.rate == pytest.approx(tf.wins / tf.n) and outcome.tf["dull"].rate == 0.5
    report = outcome.files["report"].read_text()
    assert "Task-fulfilment win rate against the baseline dull" in report and f"| sharp | {tf.rate:.3f} |" in report
    assert "tf_win_rate.csv" in str(outcome.files["tf_win_rate_csv"])
    with OpenAIStubServer([reply_json({"winner": "B"})]) as server, pytest.raises(ArenaError, match="baseline"):
        run_arena(store, tmp_path / "x", judge_for(server, tmp_path / "d"), ArenaSettings(baseline="nobody"),
                  log_run=False)  # fmt: skip


@pytest.mark.slow
def test_one_agent_is_one_clear_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    target = resolve_target(f"sqlite:///{tmp_path / 'mlflow.db'}", "evalkit", None, tmp_path)
    log_agent_cells(target, tmp_path, {"sharp": EARS["sharp"]})
    with OpenAIStubServer([reply_json({"winner": "A"})]) as server:
        with pytest.raises(ArenaError, match="at least two agents in condition 'clean'; found sharp"):
            run_arena(target, tmp_path / "o", judge_for(server, tmp_path / "c"))
        run = subprocess.run(
            [sys.executable, "-m", "evalkit.arena", f"mlflow.tracking_uri={target.tracking_uri}",
             f"judge.base_url={server.base_url}", "judge.model=j", "judge.api_key_env=null",
             f"output_dir={tmp_path / 'cli'}"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "evalkit.arena: an arena needs cells of at least two agents in condition 'clean'; found sharp"
    ]
    bad = subprocess.run(
        [sys.executable, "-m", "evalkit.arena", f"mlflow.tracking_uri={target.tracking_uri}", "judge.model=j"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert not (REPO / "arena").exists() or not any((REPO / "arena").iterdir())  # nothing written in the repo
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "evalkit.arena: judge=openai_compatible needs base_url"
    ]
    assert json.dumps(run.stdout)  # nothing else printed matters


@pytest.mark.slow
def test_bad_settings_are_one_line_and_exit_2(tmp_path):
    """Issue 27 item 9, for the arena: counts and K that cannot work, an unknown key; before any judge is asked."""
    env = {k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "HYDRA_FULL_ERROR")}
    env["PYTHONPATH"] = str(REPO)
    cases = [
        ("permutations=-5", "evalkit.arena: permutations must be a whole number of at least 1, got -5"),
        ("elo_k=0", "evalkit.arena: elo_k must be a positive number, got 0.0"),
        ("bootstrap=2.5", "evalkit.arena: bootstrap must be a whole number, got 2.5"),
        ("nonsense=1", "evalkit.arena: config error: Could not override 'nonsense'.; To append to your config use "
         "+nonsense=1"),
    ]  # fmt: skip
    for override, line in cases:
        run = subprocess.run(
            [sys.executable, "-m", "evalkit.arena", f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
             "judge.base_url=http://127.0.0.1:9/v1", "judge.model=j", "judge.api_key_env=null",
             f"output_dir={tmp_path / 'out'}", override],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert (run.returncode, run.stderr.strip().splitlines()) == (2, [line]), run.stderr[-2000:]
    with pytest.raises(ValueError, match="elo_k must be a positive number"):
        ArenaSettings(elo_k=-4)


@pytest.mark.slow
def test_an_arena_between_two_agent_configs_after_a_real_sweep(tmp_path):
    """Issue 18's "done when": `python -m evalkit agent=cascade_local,<second config> -m` in audio, then
    `python -m evalkit.arena` against a judge server on 127.0.0.1, with its report and MLflow run."""
    from tests.test_preflight import evalkit_cli

    conf = tmp_path / "my_conf" / "agent"
    conf.mkdir(parents=True)
    # a second agent: the same cascade hearing with a wider beam and speaking faster
    (conf / "cascade_beam5.yaml").write_text(
        "defaults: [cascade_local, _self_]\nname: cascade_beam5\nasr: {beam_size: 5}\ntts: {rate_wpm: 230}\n"
    )
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    sweep = evalkit_cli(
        tmp_path, f"hydra.searchpath=[file://{tmp_path / 'my_conf'}]", "agent=cascade_local,cascade_beam5",
        "domain.scenarios=[AL-002,AL-005]", "trials=1", "progress=false", "metrics=[task_completion]",
        f"mlflow.tracking_uri={store}", "-m",
    )  # fmt: skip
    assert sweep.returncode == 0, sweep.stderr[-3000:]
    with OpenAIStubServer([fewer_turns_judge]) as server:
        arena = subprocess.run(
            [sys.executable, "-m", "evalkit.arena", f"mlflow.tracking_uri={store}", f"judge.base_url={server.base_url}",
             "judge.model=stub-judge", "judge.api_key_env=null", f"judge.cache_dir={tmp_path / 'cache'}",
             f"output_dir={tmp_path / 'arena'}", "bootstrap=200"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        judged = len(server.requests)
    assert arena.returncode == 0, arena.stderr[-3000:]
    assert judged == 2 and "2 pairs judged, 0 failed" in arena.stdout  # one pair per scenario
    report = (tmp_path / "arena" / "report.md").read_text()
    assert "| cascade_local |" in report and "| cascade_beam5 |" in report
    runs = MlflowClient(store).search_runs(
        [MlflowClient(store).get_experiment_by_name("evalkit").experiment_id], "tags.`evalkit.arena` = 'true'"
    )
    assert len(runs) == 1 and runs[0].data.metrics["pairs"] == 2


def test_the_callers_goal_comes_from_the_cells_scenario_files_in_any_format(tmp_path: Path) -> None:
    """Issue 29: goals were read as <domain folder>/<id>.json only, so a cell run on a folder of YAML scenario files
    (domain.scenario_dir) was judged with no goal. Now: the cell's folder (its cfg.domain.scenario_dir param), any
    format the run reads; the domain's own folder otherwise; a placeholder only when it cannot be read."""
    from evalkit.arena.judging import goal_of
    from evalkit.arena.pairs import _param

    folder = tmp_path / "mine"
    folder.mkdir()
    entry = {"id": "move-it", "goal": "Move the check-up to a morning.", "opening": "Hi.", "success": {"judge": ["x"]}}
    (folder / "move-it.yaml").write_text(json.dumps(entry))  # JSON is YAML
    assert goal_of("custom", "move-it", str(folder)) == "Move the check-up to a morning."
    assert goal_of("custom", "example").startswith("You have a check-up booked")  # the domain's own folder
    for missing in (goal_of("custom", "nope", str(folder)), goal_of("custom", "move-it", str(tmp_path / "gone"))):
        assert missing.startswith("(not available")
    assert goal_of("custom", "../../etc/passwd", str(folder)).startswith("(not available")  # ids build no path
    assert _param({"cfg.domain.scenario_dir": "None"}, "cfg.domain.scenario_dir") is None
    assert _param({"cfg.domain.scenario_dir": str(folder)}, "cfg.domain.scenario_dir") == str(folder)
