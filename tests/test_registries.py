"""Plug-in kinds (issue 12, point 1): agents, simulators, TTS engines and caller voices, ASR engines and judges
register by kind; every conf option names its kind and validates as that kind's config class, which builds the
component. A newcomer's agent kind is one module + one YAML file (a real cell runs with it), a third-party package
registers through an entry point, and bad kinds fail at validation with one line naming group, value, options and
file. Real components only: eSpeak NG, Whisper tiny.en, a real SQLite MLflow store, a real dist-info folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hydra import compose, initialize_config_dir
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from evalkit.agents.reference.cascade_local import CascadeLocalAgent, CascadeLocalConfig
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.cell import build_components, run_cell
from evalkit.cell.build import listener_asr
from evalkit.config.schema import ConfigError, cell_key, validate_config
from evalkit.domains.scenarios import load_scenarios
from evalkit.judges.config import JudgeConfig
from evalkit.judges.registry import JUDGES, BaseJudgeConfig
from evalkit.kinds import validate_kind
from evalkit.plugins import PluginError, Registry
from evalkit.simulator.registry import SIMULATORS, SimulatorConfig, default_simulator
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.speech.cores import decoder_threads
from evalkit.speech.registry import ASR_ENGINES, TTS_ENGINES, VOICES, VoiceConfig
from evalkit.speech.voices import UserVoice
from evalkit.tracking.store import resolve_target
from perturbations import Chain
from tests.conftest import CONF_DIR, REPO
from tests.test_config import composed

SENTENCE = "This is the toy agent. How can I help?"

# Exactly what a newcomer writes: one module ...
TOY_AGENT = f'''
"""A toy agent kind: answers every turn with one fixed sentence."""

from typing import Literal

from evalkit.agents.base import AgentReply
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.records import AudioClip
from evalkit.speech import EspeakTTS


class ToyAgent:
    def __init__(self, sentence: str) -> None:
        self.sentence = sentence
        self.tts = EspeakTTS("en-us")

    def _say(self) -> AgentReply:
        samples, rate = self.tts.synthesize(self.sentence)
        return AgentReply(text=self.sentence, audio=AudioClip(samples=samples, sample_rate=rate))

    def start(self, context):
        return self._say()

    def respond(self, user_audio):
        return self._say()


@AGENTS.register("toy")
class ToyAgentConfig(AgentConfig):
    kind: Literal["toy"] = "toy"
    sentence: str = "{SENTENCE}"

    def build(self) -> ToyAgent:
        return ToyAgent(self.sentence)
'''
# ... and one YAML file (`plugin:` names the module, which is neither built in nor installed).
TOY_YAML = """
kind: toy
name: toy_agent
plugin: toy_agent
"""

# Every built-in plug-in group: (group, registry, base class, the built-in kinds).
GROUPS = [
    (
        "agent",
        AGENTS,
        AgentConfig,
        ["cascade_local", "cascade_openai", "hybrid_openai", "openai_realtime", "twilio_ws"],
    ),
    ("simulator", SIMULATORS, SimulatorConfig, ["llm", "scripted"]),
    ("voice", VOICES, VoiceConfig, ["espeak", "openai_tts", "piper"]),
    ("judge", JUDGES, BaseJudgeConfig, ["none", "openai_compatible"]),
]


@pytest.fixture
def agents_restored(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """The agent registry as it is now, restored after the test (a toy kind must not leak into other tests)."""
    AGENTS.load()
    monkeypatch.setattr(AGENTS, "_items", dict(AGENTS._items))
    monkeypatch.setattr(AGENTS, "_origins", dict(AGENTS._origins))
    return AGENTS


def compose_with(searchpath: Path | None, *overrides: str) -> dict[str, Any]:
    extra = [f"hydra.searchpath=[file://{searchpath}]"] if searchpath else []
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*extra, *overrides])
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return raw


@pytest.mark.parametrize(("group", "registry", "base", "kinds"), GROUPS, ids=[g[0] for g in GROUPS])
def test_every_conf_option_names_a_registered_kind(group: str, registry: Registry, base: type, kinds: list) -> None:
    assert registry.names() == kinds
    for path in sorted((CONF_DIR / group).glob("*.yaml")):
        raw = yaml.safe_load(path.read_text())
        config = validate_kind(registry, base, raw)
        assert type(config) is registry.get(raw["kind"]) and config.name == raw["name"], path


def test_the_demo_agent_and_caller_are_plug_ins_in_their_own_folders() -> None:
    """Issue 28 point 4: ``agent=cascade_local`` and ``simulator=scripted`` keep their names, are registered from
    evalkit.agents.reference and evalkit.simulator.scripted (the harness imports neither: an import contract), and a
    call given no simulator config finds the scripted kind by name."""
    assert AGENTS.origin("cascade_local") == "evalkit.agents.reference.cascade_local"
    assert SIMULATORS.origin("scripted") == "evalkit.simulator.scripted.config"
    default = default_simulator()
    assert type(default) is SIMULATORS.get("scripted") and default.name == "scripted"
    assert type(default.build(load_scenarios("airline", ["AL-001"])[0], None, np.random.default_rng(0))).__module__ == (
        "evalkit.simulator.scripted.caller"
    )


def test_nested_engines_dispatch_through_their_registries() -> None:
    config = validate_config(composed())
    assert isinstance(config.agent, CascadeLocalConfig)
    assert type(config.agent.asr) is ASR_ENGINES.get("faster_whisper")
    assert type(config.agent.tts) is TTS_ENGINES.get("piper")  # the default agent voice (issue 28)
    espeak = validate_config(composed("agent.tts.kind=espeak")).agent.tts  # its null voice/rate/pitch: eSpeak's own
    assert type(espeak) is TTS_ENGINES.get("espeak") and (espeak.voice, espeak.rate_wpm) == ("en-us", 175)
    dumped = config.model_dump(mode="json")
    # the chosen classes' own fields are saved and hashed, not only the base's
    assert dumped["agent"]["asr"] == {**yaml.safe_load((CONF_DIR / "agent" / "cascade_local.yaml").read_text())["asr"]}
    assert "plugin" not in dumped["agent"] and dumped["voice"]["speakers"]
    assert cell_key(config) != cell_key(validate_config(composed("agent.asr.beam_size=2")))


BAD_KINDS = [
    (
        "agent",
        ("agent",),
        "agent.kind: unknown agent 'foo'; registered: cascade_local, cascade_openai, hybrid_openai, openai_realtime, "
        "twilio_ws  [from conf/agent/foo.yaml]",
    ),
    (
        "simulator",
        ("simulator",),
        "simulator.kind: unknown simulator 'foo'; registered: llm, scripted  [from conf/simulator/foo.yaml]",
    ),
    (
        "voice",
        ("voice",),
        "voice.kind: unknown voice 'foo'; registered: espeak, openai_tts, piper  [from conf/voice/foo.yaml]",
    ),
    (
        "judge",
        ("judge",),
        "judge.kind: unknown judge 'foo'; registered: none, openai_compatible  [from conf/judge/foo.yaml]",
    ),
    (
        "agent",
        ("agent", "asr"),
        "agent.asr.kind: unknown ASR engine 'foo'; registered: faster_whisper  [from conf/agent/foo.yaml]",
    ),
    (
        "agent",
        ("agent", "tts"),
        "agent.tts.kind: unknown TTS engine 'foo'; registered: espeak, piper  [from conf/agent/foo.yaml]",
    ),
]


@pytest.mark.parametrize(("group", "where", "line"), BAD_KINDS, ids=[".".join(b[1]) for b in BAD_KINDS])
def test_an_unknown_kind_is_one_line_naming_group_value_options_and_file(group: str, where: tuple, line: str) -> None:
    raw = composed()
    node = raw
    for key in where:
        node = node[key]
    node["kind"] = "foo"
    with pytest.raises(ConfigError) as info:
        validate_config(raw, {group: "foo"})
    assert str(info.value).splitlines() == ["invalid evalkit config:", f"  {line}"]


def test_a_missing_kind_or_plugin_module_is_named() -> None:
    raw = composed()
    del raw["voice"]["kind"]
    with pytest.raises(ConfigError, match=r"voice\.kind: missing: a voice config names its kind; registered: espeak"):
        validate_config(raw, {"voice": "neutral"})
    raw = composed()
    raw["agent"]["plugin"] = "no_such_plugin_module"
    with pytest.raises(ConfigError, match=r"agent\.plugin: cannot import plug-in module 'no_such_plugin_module'"):
        validate_config(raw)


def test_errors_inside_a_kind_keep_their_key_path() -> None:
    with pytest.raises(ConfigError, match=r"agent\.tts\.rate_wpm: .*\(got 5\)  \[from conf/agent/cascade_local"):
        validate_config(composed("agent.tts.rate_wpm=5"), {"agent": "cascade_local"})


DUPLICATES = [(AGENTS, "cascade_local"), (SIMULATORS, "scripted"), (TTS_ENGINES, "espeak"), (VOICES, "espeak")]
DUPLICATES += [(ASR_ENGINES, "faster_whisper"), (JUDGES, "none")]


@pytest.mark.parametrize(("registry", "name"), DUPLICATES, ids=[f"{r.kind}:{n}" for r, n in DUPLICATES])
def test_a_second_plugin_with_a_builtin_name_fails_naming_both_modules(registry: Registry, name: str) -> None:
    module = types.ModuleType("third_party_plugin")
    cls = type("Clash", (), {"__module__": module.__name__})
    sys.modules[module.__name__] = module
    try:
        with pytest.raises(PluginError, match=f"{registry.origin(name)} and third_party_plugin"):
            registry.register(name)(cls)
    finally:
        del sys.modules[module.__name__]
    assert registry.get(name) is not cls


def test_configs_build_the_same_engines_the_cell_used_to_wire_by_hand() -> None:
    # the eSpeak agent voice: its engine shows the voice, rate and pitch it was built with (Piper's is a cached
    # synthesis function, tests/test_piper.py)
    config = validate_config(composed("+perturb=noise_cafe", "agent.tts.kind=espeak", "agent.tts.voice=en-gb"))
    built = build_components(config, hears_agent_audio=True)
    agent, user_tts, chain = built.agent, built.user_tts, built.chain
    assert built.listener is agent.asr  # the agent's own ASR hears its audio: no second model load
    assert isinstance(agent, CascadeLocalAgent) and isinstance(user_tts, UserVoice)
    asr, tts = config.agent.asr, config.agent.tts
    assert isinstance(agent.asr, WhisperASR) and isinstance(agent.tts, EspeakTTS)
    assert (agent.asr.model_name, agent.asr.compute_type, agent.asr.cpu_threads) == (
        asr.model,
        asr.compute_type,
        decoder_threads("auto"),  # the usable cores of this (sequential) process
    )
    assert (agent.asr.beam_size, agent.asr.max_new_tokens) == (asr.beam_size, asr.max_new_tokens)
    assert (agent.tts.voice, agent.tts.rate_wpm, agent.tts.pitch) == (tts.voice, tts.rate_wpm, tts.pitch)
    assert user_tts.persona is config.persona and len(user_tts.speakers) == len(config.voice.speakers)
    assert chain.to_specs() == Chain.from_specs(config.perturb.chain).to_specs()
    assert listener_asr(config, agent) is agent.asr  # the agent's own ASR: no second model


def test_a_toy_agent_kind_is_one_module_and_one_yaml_and_runs_a_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agents_restored: Registry
) -> None:
    plugins, conf = tmp_path / "plugins", tmp_path / "conf" / "agent"
    plugins.mkdir()
    conf.mkdir(parents=True)
    (plugins / "toy_agent.py").write_text(TOY_AGENT)
    (conf / "toy.yaml").write_text(TOY_YAML)
    monkeypatch.syspath_prepend(str(plugins))
    monkeypatch.delitem(sys.modules, "toy_agent", raising=False)

    raw = compose_with(
        tmp_path / "conf",
        "agent=toy",
        "+experiment=smoke",
        "domain.scenarios=[AL-001]",
        "simulator.max_user_turns=3",
        "validation.enabled=false",
        "progress=false",
        "metrics=[task_completion,response_latency]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
        "mlflow.log_audio=false",
    )
    config = validate_config(raw, {"agent": "toy"})
    assert AGENTS.origin("toy") == "toy_agent"
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    result = run_cell(config, target, tmp_path / "cell")

    assert not result.reused and result.n_conversations == 1
    record = json.loads(next((tmp_path / "cell" / "records").glob("*.json")).read_text())
    replies = [t["intended_text"] for t in record["conversation"]["turns"] if t["role"] == "assistant"]
    assert len(replies) >= 2 and set(replies) == {SENTENCE}
    params = MlflowClient(target.tracking_uri).get_run(result.run_id).data.params
    assert params["agent"] == "toy_agent" and params["cfg.agent.kind"] == "toy"
    # an agent without an ASR of its own gets the default listener engine for agent-audio metrics
    assert isinstance(listener_asr(config, config.agent.build()), WhisperASR)


def _fake_distribution(site: Path) -> None:
    """An installed distribution as pip leaves it: the package plus a dist-info folder with its entry points."""
    (site / "toy_pkg").mkdir(parents=True)
    (site / "toy_pkg" / "__init__.py").write_text("")
    (site / "toy_pkg" / "toy_agent.py").write_text(TOY_AGENT)
    info = site / "toy_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[evalkit.agents]\ntoy = toy_pkg.toy_agent\n")


def test_an_installed_distribution_registers_an_agent_through_its_entry_point(tmp_path: Path) -> None:
    _fake_distribution(tmp_path / "site")
    # A fresh interpreter, as a user's run would be: importlib.metadata finds the dist-info on sys.path.
    script = textwrap.dedent(
        """
        from evalkit.agents.registry import AGENTS, AgentConfig
        from evalkit.kinds import validate_kind

        config = validate_kind(AGENTS, AgentConfig, {"kind": "toy", "name": "toy"})
        print(AGENTS.names(), AGENTS.origin("toy"), type(config).__name__, config.sentence)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    kinds = ["cascade_local", "cascade_openai", "hybrid_openai", "openai_realtime", "toy", "twilio_ws"]
    assert done.stdout.strip() == f"{kinds} toy_pkg.toy_agent ToyAgentConfig {SENTENCE}"


def test_judge_config_kinds_build_none_offline() -> None:
    assert JudgeConfig().build() is None and JudgeConfig().name == "none"
    remote = JudgeConfig(kind="openai_compatible", base_url="http://127.0.0.1:9/v1", model="m", api_key_env=None)
    assert remote.enabled and remote.name == "openai_compatible"
