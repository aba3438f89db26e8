"""Issue 16 point 9: every malformed input is answered by one line on stderr, exit code 2, before any cell starts;
secrets never reach disk. The CLI cases run ``python -m evalkit`` for real: they fail fast, so they are cheap."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from evalkit.config import preflight as pf
from evalkit.config.schema import ConfigError, cell_key, validate_config
from evalkit.config.secrets import redact, redact_text, secret_override_problem
from evalkit.scenario_tools.__main__ import main as scenarios_cli
from tests.conftest import CONF_DIR, REPO

SECRET = "s3cr3t-Key-4242"


def evalkit_cli(tmp_path: Path, *overrides: str, cwd: Path | None = None, env: dict | None = None):
    """``python -m evalkit`` with every output (run dir, sweep dir, store) under ``tmp_path``."""
    args = [
        f"hydra.run.dir={tmp_path}/run",
        f"hydra.sweep.dir={tmp_path}/sweep",
        *([] if any(o.startswith("mlflow.tracking_uri=") for o in overrides) else [_store(tmp_path)]),
        *overrides,
    ]
    full_env = os.environ | {"PYTHONPATH": str(REPO)} | (env or {})
    full_env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run(
        [sys.executable, "-m", "evalkit", *args],
        cwd=cwd or tmp_path,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def preflight_refusal(tmp_path: Path, *overrides: str) -> list[str]:
    """What ``python -m evalkit`` refuses, in this process: the same composition and the same ``checked_plan`` its
    task runs before any cell, and the same one stderr line per problem (``problem_lines``). Each start of the CLI
    costs ~5 s; its wiring (exit 2, those lines on stderr, nothing started) is proven by the subprocess cases here.
    Nothing is written: the store would be created under ``tmp_path``, and the caller checks it was not."""
    from evalkit.cli.entry import problem_lines
    from evalkit.cli.preflight import checked_plan

    args = [*([] if any(o.startswith("mlflow.tracking_uri=") for o in overrides) else [_store(tmp_path)]), *overrides]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=args, return_hydra_config=True)
    with pytest.raises(ConfigError) as refused:
        checked_plan(cfg, dict(cfg.hydra.runtime.choices), args, tmp_path)
    lines = problem_lines(refused.value)
    assert lines and not any("Traceback" in line for line in lines), lines
    return lines


def _store(tmp_path: Path) -> str:
    return f"mlflow.tracking_uri=sqlite:///{tmp_path}/mlflow.db"


def assert_one_line_refusal(proc: subprocess.CompletedProcess, *named: str) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(lines) == 1, proc.stderr
    for name in named:
        assert name in lines[0]
    return lines[0]


def assert_no_cell_started(tmp_path: Path) -> None:
    """A started cell writes its config.yaml (outside .hydra/) and creates the MLflow store; a sweep its folder."""
    written = [p for p in tmp_path.rglob("config.yaml") if ".hydra" not in p.parts]
    assert written == []
    assert not (tmp_path / "sweep").exists()
    assert not (tmp_path / "mlflow.db").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the socket is: nobody listens there afterwards


CLI_CASES = {
    "unknown scenario id": (["domain.scenarios=[NOPE-1]"], ["'NOPE-1'", "the command line"]),
    "duplicated scenario id": (["domain.scenarios=[AL-001,AL-001]"], ["'AL-001'", "more than once"]),
    "missing asr model folder": (["agent.asr.model=/nonexistent/whisper"], ["agent.asr.model", "/nonexistent/whisper"]),
    "unset judge key env": (
        ["judge=openai_compatible", "judge.api_key_env=EVALKIT_TEST_UNSET_KEY"],
        ["judge.api_key_env", "EVALKIT_TEST_UNSET_KEY"],
    ),
    "agent url not a websocket": (["agent=twilio_ws", "agent.url=http://127.0.0.1:9"], ["agent.url", "ws://"]),
    "unset agent header env": (
        ["agent=twilio_ws", "+agent.headers_from_env={Authorization:EVALKIT_TEST_UNSET_TOKEN}"],
        ["agent.headers_from_env", "EVALKIT_TEST_UNSET_TOKEN"],
    ),
    "tool url not http": (["agent=twilio_ws", "agent.tool_public_url=ftp://x"], ["agent.tool_public_url"]),
    "noise_files without folder": (["+perturb=noise_files"], ["perturb.folder"]),
    "garbage tracking uri": (["mlflow.tracking_uri=garbage"], ["garbage", "not a tracking URI"]),
    "empty experiment name": (["mlflow.experiment=''"], ["mlflow.experiment"]),
    # (also a second line: the noise op the value feeds is refused too; one stderr line per problem)
    "snr out of range": (["+perturb=noise_cafe", "perturb.snr_db=500"], ["perturb.snr_db"]),
    "key as override": ([f"+judge.api_key={SECRET}"], ["judge.api_key", "api_key_env"]),
    "credentials in judge url": (
        ["judge=openai_compatible", f"judge.base_url=http://user:{SECRET}@127.0.0.1:9/v1"],
        ["judge.base_url", "api_key_env"],
    ),
}


# Refused before Hydra runs (a key on the command line): the CLI cases of test_a_key_on_the_command_line_never_...
BEFORE_HYDRA = ("key as override", "credentials in judge url")


@pytest.mark.parametrize("case", [c for c in CLI_CASES if c not in BEFORE_HYDRA])
def test_malformed_input_is_refused_by_the_preflight_in_one_line_each(tmp_path: Path, case: str) -> None:
    """Every case as the CLI's task refuses it (in process: ~0.5 s a case, not ~5 s a CLI start)."""
    overrides, named = CLI_CASES[case]
    lines = preflight_refusal(tmp_path, *overrides)
    if case == "snr out of range":  # the value, then the chain it feeds: two problems, a line each
        value, chain = lines
        assert "perturb.snr_db" in value and "perturb.chain" in chain, lines
    else:
        [line] = lines
        assert all(name in line for name in named), (named, line)
    assert not any(SECRET in line for line in lines)
    assert_no_cell_started(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["snr out of range", "unknown scenario id"])
def test_malformed_input_is_one_line_before_any_cell(tmp_path: Path, case: str) -> None:
    """The CLI's wiring for a preflight refusal (exit 2, one stderr line per problem, nothing started): every case
    is checked in process above, the ones refused before Hydra runs by the test below."""
    overrides, named = CLI_CASES[case]
    proc = evalkit_cli(tmp_path, *overrides)
    if case == "snr out of range":  # the value, then the chain it feeds: two problems, a line each
        value, chain = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and "perturb.snr_db" in value and "perturb.chain" in chain, proc.stderr
        line = value
    else:
        line = assert_one_line_refusal(proc, *named)
    assert SECRET not in line
    assert_no_cell_started(tmp_path)


@pytest.mark.parametrize("override", [f"+judge.api_key={SECRET}", f"judge.base_url=http://u:{SECRET}@h/v1"])
@pytest.mark.parametrize("multirun", [False, True])
def test_a_key_on_the_command_line_never_reaches_disk_or_stdout(tmp_path: Path, override: str, multirun: bool) -> None:
    proc = evalkit_cli(tmp_path, "judge=openai_compatible", override, *(["-m"] if multirun else []))
    assert_one_line_refusal(proc, "api_key_env", override.lstrip("+").split("=")[0])  # names the key given
    assert SECRET not in proc.stdout + proc.stderr
    assert_no_cell_started(tmp_path)
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path


def test_a_secret_env_value_pasted_into_an_override_is_refused_without_echo(tmp_path: Path) -> None:
    proc = evalkit_cli(tmp_path, f"judge.model=gpt-{SECRET}", env={"EVALKIT_TEST_API_KEY": SECRET})
    line = assert_one_line_refusal(proc, "judge.model", "secret")
    assert SECRET not in line


# The refusals below need Hydra and the whole runner imported (~3-5 s a ``python -m evalkit`` start): one process
# runs them all in turn, each as ``python -m evalkit`` does (runpy, its own argv, working directory and environment,
# its fd 1 and 2 captured), and the tests read their case. The refusals made before Hydra runs (the secrets above)
# keep a real ``python -m evalkit`` start each.
CLI_DRIVER = """
import contextlib, json, logging, os, runpy, sys, tempfile, time
out = {}

def logging_state():
    loggers = [logging.getLogger(n) for n in list(logging.Logger.manager.loggerDict)] + [logging.getLogger()]
    return [(lg, lg.level, list(lg.handlers), lg.propagate, lg.disabled) for lg in loggers]

def run(case):
    env, cwd, logs = dict(os.environ), os.getcwd(), logging_state()
    os.environ.update(case["env"])
    os.environ.pop("HYDRA_FULL_ERROR", None)
    os.chdir(case["cwd"])
    sys.argv = ["evalkit", *case["args"]]
    saved = [os.dup(1), os.dup(2)]
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(files[0].fileno(), 1), os.dup2(files[1].fileno(), 2)
    code, started = 0, time.monotonic()
    try:
        runpy.run_module("evalkit", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:
        import traceback
        traceback.print_exception(exc)
        code = 1
    finally:
        seconds = time.monotonic() - started
        sys.stdout.flush(), sys.stderr.flush()
        os.dup2(saved[0], 1), os.dup2(saved[1], 2)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for lg, level, handlers, propagate, disabled in logs:  # Hydra configures logging for each run
            for handler in [h for h in lg.handlers if h not in handlers]:
                handler.close()
            lg.setLevel(level); lg.handlers[:] = handlers; lg.propagate = propagate; lg.disabled = disabled
    stdout, stderr = [(f.seek(0), f.read().decode(errors="replace"))[1] for f in files]
    return {"returncode": code, "stdout": stdout, "stderr": stderr, "seconds": seconds}

for name, case in json.loads(sys.stdin.read()).items():
    out[name] = run(case)
print("\\n@@JSON@@" + json.dumps(out))
"""


def _setup_artifact_file(folder: Path) -> list[str]:
    (folder / "a_file").write_text("not a folder")
    return [f"mlflow.artifact_location={folder}/a_file/artifacts"]


def _setup_evil_yaml(folder: Path) -> list[str]:
    (folder / "conf" / "experiment").mkdir(parents=True)
    (folder / "conf" / "experiment" / "evil.yaml").write_text("seed: !!python/object:os.system\n  a: 1\n")
    return [f"hydra.searchpath=[file://{folder}/conf]", "+experiment=evil"]


# name -> (overrides, or a function that prepares the case's folder and returns them; the launch directory)
CLI_RUNS = {
    "unreachable server": (lambda d: [f"mlflow.tracking_uri=http://127.0.0.1:{_closed_port()}"], None),
    "sqlite in a missing folder": (lambda d: [f"mlflow.tracking_uri=sqlite:///{d}/typo/mlflow.db"], None),
    "unwritable artifact location": (_setup_artifact_file, None),
    # /proc refuses new files even to root (chmod cannot make a folder read-only for root).
    "read-only launch directory": (lambda d: [], Path("/proc")),
    "yaml python tag": (_setup_evil_yaml, None),
    "sweep with a bad job": (lambda d: ["+perturb=noise_cafe", "perturb.snr_db=500,15", "-m"], None),
    "sweep with two bad jobs": (lambda d: ["domain.scenarios=[AL-001],[NOPE-1],[NOPE-2]", "-m"], None),
    "sweep whose jobs fail alike": (
        lambda d: [f"mlflow.tracking_uri=http://127.0.0.1:{_closed_port()}", "+perturb=noise_cafe", "-m"], None),
}  # fmt: skip


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess, Path, float]]:
    """Each of CLI_RUNS as ``python -m evalkit`` answers it, in one process: (its exit code and output, its folder
    (the tmp_path of an ``evalkit_cli`` call), its seconds)."""
    cases, folders = {}, {}
    for name, (overrides, cwd) in CLI_RUNS.items():
        folder = folders[name] = tmp_path_factory.mktemp("cli")
        args = [f"hydra.run.dir={folder}/run", f"hydra.sweep.dir={folder}/sweep", *overrides(folder)]
        if not any(o.startswith("mlflow.tracking_uri=") for o in args):
            args.insert(2, _store(folder))
        cases[name] = {"args": args, "cwd": str(cwd or folder), "env": {"PYTHONPATH": str(REPO)}}
    proc = subprocess.run([sys.executable, "-c", CLI_DRIVER], input=json.dumps(cases), capture_output=True,
                          text=True, env=os.environ | {"PYTHONPATH": str(REPO)}, cwd=REPO, timeout=600)  # fmt: skip
    assert proc.returncode == 0 and "@@JSON@@" in proc.stdout, proc.stderr[-3000:]
    found = json.loads(proc.stdout.split("@@JSON@@")[-1])
    return {
        name: (subprocess.CompletedProcess(cases[name]["args"], r["returncode"], r["stdout"], r["stderr"]),
               folders[name], r["seconds"])
        for name, r in found.items()
    }  # fmt: skip


def test_unreachable_tracking_server_is_one_line_within_seconds(cli_runs) -> None:
    proc, _, seconds = cli_runs["unreachable server"]
    assert_one_line_refusal(proc, "cannot connect", "127.0.0.1")
    assert seconds < 60  # the refusal alone (its process start is shared here); MLflow's own retries took ~250 s


def test_sqlite_store_in_a_missing_folder_is_refused_not_created(cli_runs) -> None:
    proc, tmp_path, _ = cli_runs["sqlite in a missing folder"]
    missing = tmp_path / "typo" / "mlflow.db"
    assert_one_line_refusal(proc, str(missing.parent), "does not exist")
    assert not missing.parent.exists()


def test_unwritable_artifact_location_is_refused(cli_runs) -> None:
    proc, tmp_path, _ = cli_runs["unwritable artifact location"]
    assert_one_line_refusal(proc, "mlflow.artifact_location")
    assert_no_cell_started(tmp_path)


def test_read_only_launch_directory_is_refused(cli_runs) -> None:
    proc, _, _ = cli_runs["read-only launch directory"]
    assert_one_line_refusal(proc, "launch directory /proc")


def test_yaml_with_a_python_tag_is_one_line(cli_runs) -> None:
    proc, _, _ = cli_runs["yaml python tag"]
    assert_one_line_refusal(proc, "python/object", "evil.yaml")


def test_sweep_validates_every_job_before_the_first_starts(cli_runs) -> None:
    proc, tmp_path, _ = cli_runs["sweep with a bad job"]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # one line per problem of the bad job (the value, and the chain it feeds), none for the good one
    lines = proc.stderr.strip().splitlines()
    assert [line.split("]: ", 1)[1].split(":")[1].strip() for line in lines] == ["perturb.snr_db", "perturb.chain"]
    assert all(line.startswith("sweep not started") and "perturb.snr_db=500" in line for line in lines)
    assert not any("perturb.snr_db=15" in line for line in lines)
    assert_no_cell_started(tmp_path)  # no sweep folder, no store: no parent run left RUNNING


def test_sweep_reports_every_bad_job(cli_runs) -> None:
    proc, tmp_path, _ = cli_runs["sweep with two bad jobs"]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2 and "NOPE-1" in lines[0] and "NOPE-2" in lines[1]
    assert_no_cell_started(tmp_path)


def test_sweep_where_every_job_fails_the_same_way_is_one_line(cli_runs) -> None:
    proc, _, _ = cli_runs["sweep whose jobs fail alike"]
    assert_one_line_refusal(proc, "all 2 jobs", "cannot connect")


# -- function level ----------------------------------------------------------------------------------------------


def composed_config(*overrides: str):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=True)
    return validate_config(pf.to_container(cfg), dict(cfg.hydra.runtime.choices))


def test_valid_configs_pass_preflight_unchanged(tmp_path: Path) -> None:
    # a wire agent has no ASR of its own on the harness's side: nothing to check, no crash (was an AttributeError)
    for overrides in [(), ("+perturb=noise_cafe", "perturb.snr_db=5"), ("voice=accent_french",), ("agent=twilio_ws",)]:
        config = composed_config(*overrides, f"mlflow.tracking_uri=sqlite:///{tmp_path}/m.db")
        key = cell_key(config)
        pf.preflight(config, tmp_path)
        assert cell_key(config) == key
    assert not (tmp_path / "m.db").exists()  # checking a store does not create it


@pytest.fixture
def domains_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the airline domain's scenario folder that a test may break (real files, real loader)."""
    import dataclasses

    from evalkit.domains.domain import DOMAINS, get_domain

    airline = get_domain("airline")
    folder = tmp_path / "domains" / "airline" / "scenarios"
    folder.mkdir(parents=True)
    for name in ("AL-001.json", "AL-002.json"):
        shutil.copy(airline.scenario_dir / name, folder / name)
    # the domain object names its scenario folder: point the registered airline domain at the copy
    monkeypatch.setitem(DOMAINS._items, "airline", dataclasses.replace(airline, scenario_dir=folder))
    yield folder


def test_one_unreadable_scenario_file_is_named(domains_dir: Path, tmp_path: Path) -> None:
    (domains_dir / "AL-003.json").write_bytes(b"\x89PNG\x00\xff")
    config = composed_config(f"mlflow.tracking_uri=sqlite:///{tmp_path}/m.db")
    with pytest.raises(ConfigError) as info:
        pf.preflight(config, tmp_path)
    assert "AL-003.json" in str(info.value) and len(str(info.value).splitlines()) == 1


def test_scenario_whose_date_is_not_a_date_fails_check_and_preflight(domains_dir: Path, tmp_path: Path, capsys) -> None:
    path = domains_dir / "AL-002.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"current_date_time": "next tuesday"}))
    assert scenarios_cli(["check", str(path)]) == 1
    assert "next tuesday" in capsys.readouterr().out
    config = composed_config(f"mlflow.tracking_uri=sqlite:///{tmp_path}/m.db")
    with pytest.raises(ConfigError, match=r"AL-002\.json.*current_date_time"):
        pf.preflight(config, tmp_path)


@pytest.mark.parametrize(
    "content",
    [b"\x00\x01\xfe\xff binary", ("[" * 100_000 + "]" * 100_000).encode(), b"id: !!python/object:os.system {}"],
    ids=["binary", "100k-deep JSON", "YAML python tag"],
)
def test_scenarios_check_answers_malformed_files_in_one_line(tmp_path: Path, content: bytes, capsys) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert scenarios_cli(["check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "bad.json" in out[0] and "cannot read scenario JSON" in out[0]


def test_tracking_store_checks_at_function_level(tmp_path: Path) -> None:
    assert pf.store_problem(f"sqlite:///{tmp_path}/m.db") is None
    assert "does not exist" in pf.store_problem(f"sqlite:///{tmp_path}/nope/m.db")
    assert "not a tracking URI" in pf.store_problem("ftp://example.org/x")
    assert "cannot connect" in pf.store_problem(f"http://127.0.0.1:{_closed_port()}")
    assert pf.artifact_problem((tmp_path / "new" / "deeper").as_uri()) is None
    assert pf.artifact_problem("s3://bucket/prefix") is None


def test_redaction_is_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SECRET)
    tree = {"judge": {"base_url": f"http://me:{SECRET}@host/v1", "model": f"m-{SECRET}"}, "n": 3}
    assert redact(tree) == {"judge": {"base_url": "http://***@host/v1", "model": "m-***"}, "n": 3}
    assert redact_text("postgresql://u:pw@db/x") == "postgresql://***@db/x"


def test_clean_command_lines_pass_the_secret_check() -> None:
    assert secret_override_problem(["-m", "+perturb=noise_cafe", "judge.api_key_env=MY_KEY", "seed=1,2"]) is None
    assert "judge.api_key" in secret_override_problem(["++judge.api_key=x"])
