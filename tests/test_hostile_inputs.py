"""Issue 27: nothing lost, nobody in. Hostile or careless input — a scenario file, a noise file, an override, a
YAML option, an agent on the wire — is refused with one line or survived with a recorded reason; it never hangs a
cell, writes outside the run folder, or puts a secret on disk or in a log.

The CLI cases run ``python -m evalkit`` for real (they stop before any cell, so they are cheap); the rest call the
functions the CLI calls."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import soundfile as sf
from hydra import compose, initialize_config_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf

from evalkit.cli.preflight import one_line
from evalkit.config import preflight as pf
from evalkit.config.preflight import Source, preflight, to_container
from evalkit.config.schema import ConfigError, cell_key, identity_payload, validate_config
from evalkit.config.secrets import (
    config_secret_problems,
    is_secret_name,
    redact,
    redact_text,
    secret_override_problem,
)
from evalkit.domains.scenarios import folder_scenarios, load_scenarios
from evalkit.safe_paths import UnsafePathError, inside
from evalkit.scenarios.store import ScenarioError
from evalkit.wire.twilio_ws.codec import encode
from perturbations import Chain, PerturbationError
from tests.conftest import CONF_DIR, REPO
from tests.test_config import composed
from tests.test_preflight import assert_no_cell_started, assert_one_line_refusal, evalkit_cli, preflight_refusal

SECRET = "s3cr3t-Hostile-9731"
AIRLINE = REPO / "evalkit" / "domains" / "airline" / "scenarios"


def nowhere_on_disk(root: Path, secret: str = SECRET) -> None:
    for path in root.rglob("*"):
        assert not path.is_file() or secret.encode() not in path.read_bytes(), path


# -- 1. redaction is linear ------------------------------------------------------------------------------------

# Shapes that made the old user-info pattern retry its scheme run from every letter, plus the new patterns' worst
# cases (a million query parameters, a million "://"). 10 MB each.
HOSTILE_TEXTS = {
    "letters": "'x' * 10_000_000",
    "one url, a huge path": "'http://' + 'x' * 10_000_000",
    "a million schemes": "'ab://' * 2_000_000",
    "a million query parameters": "'a=b&' * 2_500_000",
    "a run of scheme characters and colons": "('ab' * 10 + ':') * 500_000",
    "json tool argument": "json.dumps({'confirmation_number': 'Q' * 10_000_000})",
}


def test_redaction_takes_linear_time_on_a_10_mb_tool_argument() -> None:
    """The old pattern took 3.7 s on 40,000 letters (quadratic: a 10 MB argument would take days); each 10 MB text
    must take < 5 s of CPU time here (about 0.2-1.5 s). CPU time, not wall time: a machine busy with other work
    stretches the wall clock, not the work done. Measured in a child process, so the old code fails by timing out
    instead of hanging the suite."""
    script = (
        "import json, time\nfrom evalkit.config.secrets import redact_text\nworst = 0.0\n"
        + "".join(
            f"t = {expr}\nt0 = time.process_time()\nredact_text(t, [])\nworst = max(worst, time.process_time() - t0)\n"
            for expr in HOSTILE_TEXTS.values()
        )
        + "print(worst)\n"
    )
    env = os.environ | {"PYTHONPATH": str(REPO)}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=True
        )
    except subprocess.TimeoutExpired:
        pytest.fail("redacting six 10 MB texts took more than 120 s: redaction is not linear")
    assert float(proc.stdout) < 5.0, proc.stdout


def test_redaction_still_hides_every_form_of_credential() -> None:
    assert redact_text("postgresql://u:pw@db/x", []) == "postgresql://***@db/x"
    assert redact_text("1://x@y", []) == "1://x@y"  # no scheme: not a URL
    assert redact_text(f"ws://h:9/ws?token={SECRET}&lang=en", []) == "ws://h:9/ws?token=***&lang=en"
    assert redact_text(f"https://h/x?X-Amz-Signature={SECRET}#f", []) == "https://h/x?X-Amz-Signature=***#f"
    assert redact_text(f"Authorization: Bearer {SECRET}", []) == "Authorization: Bearer ***"
    kept = "http://h/v1?max_tokens=100&model=m"  # settings in a query are not secrets
    assert redact_text(kept, []) == kept
    assert redact({"a": [f"see http://me:{SECRET}@h/ and ?api_key={SECRET}"]}, []) == {
        "a": ["see http://***@h/ and ?api_key=***"]
    }


# -- 6. secret names are whole words ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["api_key", "apiKey", "APIKEY", "auth_token", "client-secret", "Authorization", "X-Api-Key", "MY_PASSWORD",
     "credentials", "Cookie", "access.token"],
)  # fmt: skip
def test_secret_like_names_are_secret(name: str) -> None:
    assert is_secret_name(name)
    assert secret_override_problem([f"+judge.{name}=x"]) is not None


@pytest.mark.parametrize(
    "override",
    ["agent.asr.max_new_tokens=100", "judge.max_tokens=1000", "nokey=1", "+persona.monkey=1", "keyboard=2",
     "judge.api_key_env=MY_KEY", "+agent.headers_from_env.Authorization=VAR", "+agent.headers={X-Client: evalkit}",
     "+agent.headers_from_env={Authorization: VAR}", "agent.url=ws://127.0.0.1:9/ws?lang=en"],
)  # fmt: skip
def test_settings_named_like_secrets_are_settings(override: str) -> None:
    """``max_new_tokens`` holds the word "tokens", not "token": it is a setting (it changes results)."""
    assert secret_override_problem([override]) is None


def test_a_token_limit_reaches_the_validator_not_the_secret_check(tmp_path: Path) -> None:
    """``agent.asr.max_new_tokens=100`` used to exit 2 with "keys are never given in the config": the CLI's check of
    its arguments before Hydra, then its preflight, in process (the CLI's wiring: tests/test_preflight.py)."""
    overrides = (
        "agent.asr.max_new_tokens=100",
        "judge=openai_compatible",
        "judge.api_key_env=null",
        "judge.max_tokens=1000",
        "domain.scenarios=[NOPE]",
    )
    assert secret_override_problem(list(overrides)) is None
    [line] = preflight_refusal(tmp_path, *overrides)
    assert "NOPE" in line and "never given" not in line


# -- 5. secrets in headers and URLs ----------------------------------------------------------------------------

SECRET_OVERRIDES = {
    "header on the command line": ["agent=twilio_ws", f"+agent.headers.Authorization='Bearer {SECRET}'"],
    "header dict on the command line": ["agent=twilio_ws", f"+agent.headers={{Authorization: 'Bearer {SECRET}'}}"],
    "token in the agent url": ["agent=twilio_ws", f"agent.url='ws://127.0.0.1:9/ws?token={SECRET}'"],
    "user-info in the agent url": ["agent=twilio_ws", f"agent.url=ws://me:{SECRET}@127.0.0.1:9/ws"],
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(SECRET_OVERRIDES))
def test_a_secret_on_the_command_line_is_refused_and_written_nowhere(tmp_path: Path, case: str) -> None:
    proc = evalkit_cli(tmp_path, *SECRET_OVERRIDES[case])
    line = assert_one_line_refusal(proc, "headers_from_env")
    assert SECRET not in line + proc.stdout
    nowhere_on_disk(tmp_path)
    assert_no_cell_started(tmp_path)


LEAKY_OPTIONS = {
    # group, option file text, the key the refusal names
    "judge": ("defaults:\n  - openai_compatible\n  - _self_\nname: leaky\nbase_url: http://me:{s}@127.0.0.1:9/v1\n",
              "judge.base_url"),
    "agent": ("defaults:\n  - twilio_ws\n  - _self_\nname: leaky\nheaders: {{Authorization: Bearer {s}}}\n",
              "agent.headers.Authorization"),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("group", list(LEAKY_OPTIONS))
@pytest.mark.parametrize("multirun", [False, True])
def test_a_secret_in_a_yaml_option_is_refused_before_hydra_writes_it(
    tmp_path: Path, group: str, multirun: bool
) -> None:
    """Hydra writes ``.hydra/config.yaml`` (and ``multirun.yaml``) before the task runs: the check runs in the
    callback Hydra calls after composing and before writing."""
    text, key = LEAKY_OPTIONS[group]
    conf = tmp_path / "extra" / group
    conf.mkdir(parents=True)
    (conf / "leaky.yaml").write_text(text.format(s=SECRET))
    out = tmp_path / "out"
    out.mkdir()
    proc = evalkit_cli(
        out, f"{group}=leaky", f"hydra.searchpath=[file://{tmp_path / 'extra'}]", *(["-m"] if multirun else [])
    )
    line = assert_one_line_refusal(proc, key)
    assert SECRET not in line + proc.stdout
    nowhere_on_disk(out)
    assert not list(out.rglob("*.yaml")), list(out.rglob("*"))


def test_headers_are_left_out_of_the_identity_and_refused_in_any_config() -> None:
    raw = composed("agent=twilio_ws")
    raw["agent"]["headers"] = {"Authorization": f"Bearer {SECRET}", "X-Client": "evalkit"}
    assert [p.split(":")[0] for p in config_secret_problems(raw)] == ["agent.headers.Authorization"]
    config = validate_config(raw)
    assert SECRET not in json.dumps(identity_payload(config))
    raw["agent"]["headers"] = {"X-Client": "evalkit"}
    raw["agent"]["headers_from_env"] = {"Authorization": "MY_AGENT_TOKEN"}  # a variable's name: allowed
    assert config_secret_problems(raw) == []
    assert cell_key(validate_config(raw))


def test_a_key_pasted_where_a_variable_name_belongs_is_refused_unquoted() -> None:
    """``judge.api_key_env`` and ``agent.headers_from_env.*`` name variables: a pasted key would be echoed by the
    "$... is not set" line (and written to .hydra/), so a value that is no variable name is refused, unquoted."""
    for override in (f"judge.api_key_env=sk-{SECRET}", f"+agent.headers_from_env.Authorization='Bearer {SECRET}'"):
        problem = secret_override_problem([override])
        assert problem is not None and "not a variable name" in problem and SECRET not in problem
    assert secret_override_problem(["judge.api_key_env=MY_KEY,OTHER_KEY", "judge.api_key_env=null"]) is None
    raw = composed("agent=twilio_ws")
    raw["agent"]["headers_from_env"] = {"Authorization": f"Bearer {SECRET}"}
    [problem] = config_secret_problems(raw)
    assert problem.startswith("agent.headers_from_env.Authorization:") and SECRET not in problem


# -- 2 and 7. scenario files: ids are safe names, unique in a folder ---------------------------------------------


def scenario_folder(tmp_path: Path, **edits: Any) -> Path:
    """A folder with AL-001 and AL-005, AL-005's file edited: ``id``, ``starting_utterance`` (in the goal)."""
    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    shutil.copy(AIRLINE / "AL-001.json", folder / "AL-001.json")
    data = json.loads((AIRLINE / "AL-005.json").read_text())
    if "id" in edits:
        data["id"] = edits["id"]
    if "starting_utterance" in edits:
        data["user_goal"]["starting_utterance"] = edits["starting_utterance"]
    (folder / "AL-005.json").write_text(json.dumps(data))
    return folder


def preflight_line(folder: Path, *overrides: str) -> str:
    config = validate_config(composed(f"domain.scenario_dir={folder}", *overrides))
    with pytest.raises(ConfigError) as caught:
        preflight(config, folder.parent, Source("the command line"))
    lines = str(caught.value).splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("scenario_id", "named"),
    [("../../../../../../../../somewhere/AL-001", "not usable"), ("", "not usable"), ("AL 001", "not usable"),
     (".hidden", "not usable"), ("AL-001", "used by two files")],
)  # fmt: skip
def test_unusable_or_repeated_scenario_ids_are_one_line_naming_the_file(
    tmp_path: Path, scenario_id: str, named: str
) -> None:
    folder = scenario_folder(tmp_path, id=scenario_id)
    line = preflight_line(folder)
    assert named in line and "AL-005.json" in line
    with pytest.raises(ScenarioError, match=named):
        folder_scenarios("airline", folder)


def test_a_blank_opening_line_is_refused(tmp_path: Path) -> None:
    line = preflight_line(scenario_folder(tmp_path, starting_utterance="  "))
    assert "starting_utterance" in line and "AL-005.json" in line


def test_repeated_ids_are_refused_when_ids_are_picked_too(tmp_path: Path) -> None:
    folder = scenario_folder(tmp_path, id="AL-001")
    with pytest.raises(ScenarioError, match="used by two files"):
        load_scenarios("airline", ["AL-001"], folder=folder)


def test_a_path_built_from_an_id_never_leaves_its_folder(tmp_path: Path) -> None:
    """The second lock, where the cell's writer joins the id into a path (a record can reach it without passing
    the scenario schema). Today's writer put ``<id>_t0.json`` wherever the id pointed."""
    from evalkit.cell.log import write_conversation
    from evalkit.records import Conversation, ConversationRecord

    for name in ("../x", "..", "a/b", "", "/etc/passwd"):
        with pytest.raises(UnsafePathError):
            inside(tmp_path / "records", name)
    assert inside(tmp_path, "AL-001_t0.json") == tmp_path / "AL-001_t0.json"
    cell = tmp_path / "a" / "b" / "cell"
    conversation = Conversation(
        scenario_id="../../../escape",
        domain="airline",
        trial=0,
        seed=0,
        turns=[],
        end_reason="user_end_call",
        initial_db={},
        final_db={},
        expected_db={},
    )
    with pytest.raises(UnsafePathError):
        write_conversation(cell, ConversationRecord(conversation=conversation, metrics={}), {"user": np.zeros(8)})
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


# -- 3. noise files are checked when the chain is built --------------------------------------------------------


def _stereo_cancelling(n: int) -> np.ndarray:
    x = 0.2 * np.random.default_rng(1).standard_normal(n)
    return np.stack([x, -x], axis=1)


BAD_NOISE = {
    # name: (samples, subtype, what the line says)
    "all zero": (lambda: np.zeros(16000), "PCM_16", "silent"),
    "dc only": (lambda: np.full(16000, 0.25), "PCM_16", "constant offset"),
    "one sample": (lambda: np.array([0.5]), "PCM_16", "too short"),
    "nan": (lambda: np.where(np.arange(16000) == 9000, np.nan, 0.1 * np.sin(np.arange(16000))), "FLOAT", "NaN"),
    "inf": (lambda: np.where(np.arange(16000) == 3, np.inf, 0.1 * np.sin(np.arange(16000))), "FLOAT", "NaN or inf"),
    "stereo that cancels": (lambda: _stereo_cancelling(16000), "PCM_16", "cancel"),
}


@pytest.mark.parametrize("case", list(BAD_NOISE))
def test_an_unusable_noise_file_is_one_line_at_config_time(tmp_path: Path, case: str) -> None:
    make, subtype, reason = BAD_NOISE[case]
    folder = tmp_path / "noise"
    folder.mkdir()
    sf.write(folder / "good.wav", 0.1 * np.random.default_rng(0).standard_normal(16000), 16000)
    sf.write(folder / "bad.wav", make(), 16000, subtype=subtype)
    with pytest.raises(PerturbationError, match=reason):
        Chain.from_specs([{"op": "noise_files", "folder": str(folder)}])
    raw = composed("+perturb=noise_files", f"perturb.folder={folder}")
    with pytest.raises(ConfigError) as caught:
        validate_config(raw)
    problem = [line for line in str(caught.value).splitlines()[1:] if "bad.wav" in line]
    assert len(problem) == 1 and reason in problem[0]


def test_real_noise_still_passes_the_check(tmp_path: Path) -> None:
    """Quiet but real (-60 dBFS) noise, a short 20 ms burst and a stereo file with correlated channels pass."""
    rng = np.random.default_rng(2)
    sf.write(tmp_path / "quiet.wav", 0.001 * rng.standard_normal(8000), 8000)
    sf.write(tmp_path / "burst.wav", 0.3 * rng.standard_normal(320), 16000)
    left = 0.1 * rng.standard_normal(16000)
    sf.write(tmp_path / "stereo.flac", np.stack([left, 0.5 * left + 0.05 * rng.standard_normal(16000)], 1), 16000)
    chain = Chain.from_specs([{"op": "noise_files", "folder": str(tmp_path)}])
    assert len(chain.ops[0].files) == 3
    for seed in range(6):
        speech = 0.1 * np.sin(np.arange(16000) / 5.0).astype(np.float32)
        out, [entry] = chain(speech, 16000, np.random.default_rng(seed))
        assert np.isfinite(out).all() and abs(entry["params"]["snr_db_measured"] - 15.0) < 1e-3


# -- 10. settings that silently did something else -------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "key"),
    [("domain.scenarios=[]", "domain.scenarios"), ("domain.scenario_dir=''", "domain.scenario_dir"),
     ("agent.url=ws://:8765/ws", "agent.url"), ("agent.url=ws://h:port/ws", "agent.url")],
)  # fmt: skip
def test_values_that_meant_something_else_are_refused_naming_the_command_line(override: str, key: str) -> None:
    overrides = ["agent=twilio_ws", override] if key == "agent.url" else [override]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=overrides, return_hydra_config=True)
    with pytest.raises(ConfigError) as caught:
        validate_config(to_container(cfg), dict(cfg.hydra.runtime.choices), overrides)
    [line] = str(caught.value).splitlines()[1:]
    assert line.strip().startswith(key) and line.endswith("[from the command line]"), line


def test_a_bad_value_in_an_option_file_still_names_the_file() -> None:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["+perturb=noise_cafe"], return_hydra_config=True)
    raw = to_container(cfg)
    raw["perturb"]["snr_db"] = 500  # as if the file said so
    with pytest.raises(ConfigError, match=r"perturb.snr_db: .*\[from conf/perturb/noise_cafe.yaml\]"):
        validate_config(raw, dict(cfg.hydra.runtime.choices), ["+perturb=noise_cafe", "seed=3"])


def test_the_readme_header_form_composes_and_keeps_the_value_out() -> None:
    # the README and the manual it links (docs/agents.md documents the wire agents' headers)
    readme = "\n".join(p.read_text() for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])
    form = "+agent.headers_from_env.Authorization=MY_ENV_VAR"
    assert form in readme and "agent.headers_from_env={Authorization" not in readme
    config = validate_config(composed("agent=twilio_ws", form))
    assert config.agent.headers_from_env == {"Authorization": "MY_ENV_VAR"}


# -- property: any value for a numeric or string field is accepted or one line, never a traceback ---------------


def _leaves(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif node is None or (isinstance(node, int | float | str) and not isinstance(node, bool)):
        yield prefix, node  # None: an optional number or text (domain.scenario_dir, domain.limit, ...)


def _composed_base(*overrides: str) -> dict[str, Any]:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, "+perturb=noise_cafe", "judge=openai_compatible"])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return raw  # type: ignore[return-value]


# The in-process agent (its ASR model folder) and the wire agent (URLs, headers, timeouts).
BASES = {"cascade_local": _composed_base(), "twilio_ws": _composed_base("agent=twilio_ws")}
FIELDS = sorted(
    (name, k)
    for name, base in BASES.items()
    for k, _ in _leaves(base)
    if not k.startswith(("perturb.chain", "metrics"))
)
HOSTILE_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "../../etc",
            "ws://:1/",
            "http://u:p@h/",
            "nan",
            "-1",
            "1e309",
            "\x00",
            "a\x00b",
            "☃" * 5,
            "~no_such_user_xyz/x",
            "x" * 300,
            "/" + "d/" * 3000,
            "/dev/null",
            "ws://[::1",
            "http://h:99999/",
        ]
    ),
    st.none(),
    st.lists(st.integers(), max_size=3),
)


def _set(raw: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    node = raw
    *parents, last = key.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    return raw


def scenario_lines(config: Any) -> list[str]:
    """The preflight's scenario check: the loader's problems, one line each (it names every one itself)."""
    domain = config.domain
    try:
        load_scenarios(domain.name, domain.scenarios, domain.limit, domain.scenario_dir)
    except ScenarioError as exc:
        return str(exc).splitlines()
    return []


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), value=HOSTILE_VALUES)
def test_any_value_for_a_config_field_is_accepted_or_one_line(field: tuple[str, str], value: Any) -> None:
    """What the CLI does with a composed config (evalkit.cli.preflight.checked_config: validate, then preflight;
    the tracking store is checked on the file system, never dialled): a value is accepted, or refused as ConfigError
    that ``one_line`` prints as one line — any other exception would be a traceback on the user's terminal."""
    base, key = field
    raw = _set(json.loads(json.dumps(BASES[base])), key, value)
    try:
        config = validate_config(raw, {}, [f"{key}=x"])
        problems = pf.config_secret_problems(config.model_dump(mode="json"))
        problems += scenario_lines(config)
        problems += pf.asr_problems(config) + config.agent.preflight_problems() + pf.key_env_problems(config)
        problems += pf.judge_problems(config)
        if key.startswith("mlflow.") and "://" not in str(value).replace("sqlite://", "").replace("file://", ""):
            problems += pf.tracking_problems(config, Path(tempfile.gettempdir()))
        if problems:
            raise ConfigError("\n".join(problems))
    except ConfigError as exc:
        line = one_line(exc)
        assert line and "\n" not in line and "Traceback" not in line
        return
    cell_key(config)
    redact(config.model_dump(mode="json"))


# -- a hostile agent on the wire -------------------------------------------------------------------------------

TONE = (0.3 * np.sin(2 * np.pi * 440 * np.arange(160) / 8000)).astype(np.float32)
HUGE_ARGUMENT_CHARS = 4_000_000


def _media(sid: str, payload: bytes | str) -> str:
    text = payload if isinstance(payload, str) else base64.b64encode(payload).decode()
    return json.dumps({"event": "media", "streamSid": sid, "media": {"payload": text}})


async def _paced(ws: Any, sid: str, frame: bytes, seconds: float | None) -> None:
    """20 ms frames on a real-time schedule, for ``seconds`` (None: until the caller hangs up)."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    n = 0
    while seconds is None or n * 0.02 < seconds:
        await asyncio.sleep(max(0.0, t0 + n * 0.02 - loop.time()))
        await ws.send(_media(sid, frame))
        n += 1


def _post(url: str, body: dict[str, Any]) -> int:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


class HostileAgent:
    """A Twilio media-stream agent that misbehaves in one way per call (picked by the scenario id the ``start``
    message carries), written as a third party would: it knows nothing of evalkit but the wire contract."""

    BEHAVIOUR: ClassVar[dict[str, str]] = {
        "AL-001": "huge_tool_arguments",
        "AL-002": "oversize_frame",
        "AL-003": "flood_of_events",
        "AL-004": "invalid_base64",
        "AL-005": "endless_silence",
        "AL-006": "endless_monologue",
    }

    def __init__(self) -> None:
        self.tool_endpoints: list[str] = []
        self.tool_status: int | None = None

    async def handler(self, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                message = json.loads(raw)
                if message["event"] == "start":
                    start = message["start"]
                    custom = start["customParameters"]
                    self.tool_endpoints.append(custom["tool_endpoint"])
                    behaviour = self.BEHAVIOUR[custom["scenario_id"]]
                    await getattr(self, behaviour)(ws, start["streamSid"], custom)

    async def huge_tool_arguments(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        arguments = {"confirmation_number": "Q" * HUGE_ARGUMENT_CHARS, "last_name": "x"}
        body = {"name": "get_reservation", "arguments": arguments}
        self.tool_status = await asyncio.to_thread(_post, custom["tool_endpoint"] + "/call", body)
        await _paced(ws, sid, encode(TONE, "mulaw"), 0.2)  # says something, then never again
        await ws.wait_closed()

    async def oversize_frame(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        await ws.send(_media(sid, b"\xff" * 3_000_000))  # 4 MB of base64: over agent.max_message_bytes
        await ws.wait_closed()

    async def flood_of_events(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        for i in range(10_000):
            await ws.send(json.dumps({"event": "mark", "streamSid": sid, "mark": {"name": f"m{i}"}}))
            await ws.send(json.dumps({"event": f"x-unknown-{i}", "streamSid": sid, "junk": [i] * 10}))
            if i % 100 == 0:  # this test's server runs every hostile call on one loop: let the others send too
                await asyncio.sleep(0)
        await ws.wait_closed()

    async def invalid_base64(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        await ws.send(_media(sid, "!!not*base64!!"))
        await ws.wait_closed()

    async def endless_silence(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        await _paced(ws, sid, encode(np.zeros(160, np.float32), "mulaw"), None)

    async def endless_monologue(self, ws: Any, sid: str, custom: dict[str, str]) -> None:
        await _paced(ws, sid, encode(TONE, "mulaw"), None)


@pytest.fixture
def hostile_agent() -> Iterator[tuple[HostileAgent, str]]:
    """The hostile agent on 127.0.0.1 in a thread with its own event loop (the cell runs its own)."""
    from websockets.asyncio.server import serve

    agent = HostileAgent()
    loop = asyncio.new_event_loop()
    ready: list[str] = []
    stop = asyncio.Event()

    async def main() -> None:
        async with serve(agent.handler, "127.0.0.1", 0, max_size=None, close_timeout=1) as server:
            host, port = server.sockets[0].getsockname()[:2]
            ready.append(f"ws://{host}:{port}")
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not ready and time.monotonic() < deadline:
        time.sleep(0.01)
    yield agent, ready[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(timeout=10)


EXPECTED_REASONS = {
    "AL-001": "AgentTimeout: the agent sent nothing for 3.0 s",  # silence after its one turn (a 4 MB tool call)
    "AL-002": "WireError: the agent disconnected mid-call",  # 1009: message too big
    # a flood of non-audio events is no greeting, nor an answer (issue 26: the caller opens after greeting_wait_s)
    "AL-003": "AgentTimeout: the agent never spoke: no greeting within greeting_wait_s=0.5 s, then the agent sent "
    "nothing",
    "AL-004": "WireError: the agent sent a malformed media frame",
    "AL-005": "AgentTimeout: the agent never spoke: no greeting within greeting_wait_s=0.5 s, then the agent sent "
    "nothing",
    "AL-006": "AgentTimeout: the agent's turn was still going at the call's max duration",
}


@pytest.mark.slow
def test_a_hostile_agent_fails_each_call_with_a_reason_and_leaves_nothing_running(
    hostile_agent: tuple[HostileAgent, str], tmp_path: Path
) -> None:
    """Six misbehaving calls at once through a real cell (MLflow, traces, records): each ends as an
    infrastructure failure with its reason, the 4 MB tool argument is recorded and traced (redaction is linear:
    the old one would spend hours on it), the cell ends FAILED, no run stays RUNNING and every call's tools are
    unregistered. Short timeouts keep the wall time to seconds."""
    from mlflow.tracking import MlflowClient

    from evalkit.cell import run_cell
    from evalkit.tracking.store import FAILURE_TAG, resolve_target

    agent, url = hostile_agent
    config = validate_config(
        composed(
            "agent=twilio_ws",
            f"agent.url={url}",
            f"domain.scenarios=[{','.join(HostileAgent.BEHAVIOUR)}]",
            "trials=1",
            "concurrency=6",
            "progress=false",
            "metrics=[task_completion]",
            "validation.enabled=false",
            "persona.variation.enabled=false",
            "infra.max_retries=0",
            "agent.response_timeout_s=3",
            "agent.greeting_wait_s=0.5",
            "agent.max_duration_s=12",  # AL-001 times out (~6 s) well before it, on a busy machine too
            "agent.take_turn_after_silence_ms=300",
            "agent.transcribe_agent=never",
            "mlflow.log_audio=false",
            f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
        )
    )
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    started = time.monotonic()
    result = run_cell(config, target, tmp_path / "cell")
    elapsed = time.monotonic() - started
    records = {
        r["conversation"]["scenario_id"]: r["conversation"]
        for r in (json.loads(p.read_text()) for p in (tmp_path / "cell" / "records").glob("*.json"))
    }
    assert set(records) == set(EXPECTED_REASONS)
    for scenario, reason in EXPECTED_REASONS.items():
        conversation = records[scenario]
        assert conversation["end_reason"] == "error", (scenario, conversation["error"])
        assert conversation["error"].startswith(reason), (scenario, conversation["error"])
        assert conversation["infra_failures"] and conversation["infra_failures"][-1].startswith(reason)
    # the huge call was served (HTTP 200, an error result for the agent) and recorded whole
    assert agent.tool_status == 200
    [call] = [c for t in records["AL-001"]["turns"] for c in t.get("tool_calls", [])]
    assert len(call["arguments"]["confirmation_number"]) == HUGE_ARGUMENT_CHARS
    client = MlflowClient(target.tracking_uri)
    run = client.get_run(result.run_id)
    assert run.info.status == "FAILED" and run.data.tags[FAILURE_TAG].startswith("infrastructure: 6 conversation")
    experiment = client.get_experiment_by_name(config.mlflow.experiment)
    assert [r.info.status for r in client.search_runs([experiment.experiment_id])] == ["FAILED"]
    assert len(client.search_traces(locations=[experiment.experiment_id])) == 6
    for endpoint in agent.tool_endpoints:  # every call's tool session ended with it
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(endpoint + "/tools", timeout=5)
        assert gone.value.code == 404
    assert elapsed < 120, elapsed  # ~10-20 s: six calls of at most agent.max_duration_s in parallel, plus logging
