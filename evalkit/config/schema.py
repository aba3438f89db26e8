"""One pydantic model per config group. The composed config is validated once, before any work, so a typo or an
out-of-range value stops the cell with one message naming the key and the file it came from."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evalkit.judges.config import JudgeConfig
from perturbations import Chain, PerturbationError

SECRET_MARKERS = ("key", "token", "secret", "password")
# Settings that do not change what a cell computes: excluded from its identity.
NON_IDENTITY_KEYS = ("mlflow", "reuse", "twins", "progress")
# Judge settings that change how a judgment is fetched, never what it says (the cache answers the same request).
NON_IDENTITY_JUDGE_KEYS = (
    "cache_dir",
    "timeout_s",
    "max_retries",
    "backoff_base_s",
    "backoff_max_s",
    "jitter",
    "seed",
    "invalid_output_retries",
)


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DomainConfig(_Group):
    name: Literal["airline", "hr", "itsm"]
    scenarios: list[str] | None = Field(default=None, description="scenario ids to run; null = all")
    limit: int | None = Field(default=None, ge=1, description="run only the first N scenarios")


class AsrConfig(_Group):
    model: str = "bundled:tiny.en"
    compute_type: Literal["int8", "int8_float32", "float32", "float16", "int16"] = "int8"
    cpu_threads: int = Field(default=2, ge=1, le=64)
    beam_size: int = Field(default=1, ge=1, le=10)
    max_new_tokens: int = Field(default=96, ge=8, le=440)


class TtsConfig(_Group):
    engine: Literal["espeak"] = "espeak"
    voice: str = "en-us"
    rate_wpm: int = Field(default=175, ge=80, le=450)
    pitch: int = Field(default=50, ge=0, le=99)


class AgentConfig(_Group):
    name: Literal["cascade_local"]
    architecture: Literal["cascade", "hybrid", "s2s"] = "cascade"
    asr: AsrConfig = AsrConfig()
    tts: TtsConfig = TtsConfig()


class SimulatorConfig(_Group):
    name: Literal["scripted"]
    max_user_turns: int = Field(default=80, ge=1, le=200)
    max_duration_s: float = Field(default=600.0, gt=0)
    user_reaction_ms: float = Field(default=400.0, ge=0)


class PersonaBehaviourConfig(_Group):
    """What the scripted caller does differently (App. G.2); every draw uses the conversation's seeded rng."""

    terse: bool = Field(default=False, description="drop pleasantries (please, thank you)")
    caps: float = Field(default=0.0, ge=0.0, le=1.0, description="P(a turn stresses a word in CAPS)")
    frustration: bool = Field(default=False, description="complain when the agent re-asks or makes no progress")
    pauses: bool = Field(default=False, description="ellipses between phrases; codes spelled char... by... char")
    ask_repeat: float = Field(default=0.0, ge=0.0, le=1.0, description="P(ask the agent to repeat an offer)")
    max_repeat_requests: int = Field(default=2, ge=0, le=10)
    disfluency: float = Field(default=0.0, ge=0.0, le=1.0, description="P(um..., let me find that... in a turn)")
    self_correct: float = Field(default=0.0, ge=0.0, le=1.0, description="P(a code is first said wrong, then fixed)")


class PersonaConfig(_Group):
    name: str
    description: str = ""
    level: Literal["none", "easy", "hard"] = Field(
        default="none", description="MM-tau-p2 persona level: domain familiarity of the caller"
    )
    prompt: str | None = Field(default=None, description="the {user_persona} text for LLM simulators (App. K)")
    behaviour: PersonaBehaviourConfig = PersonaBehaviourConfig()
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="overrides the voice's speaking rate")
    pitch_shift: int = Field(default=0, ge=-50, le=50)
    word_gap_ms: int = Field(default=0, ge=0, le=1000, description="eSpeak NG gap between words")
    pause_ms: int = Field(default=0, ge=0, le=5000, description="extra silence at each '...' of the caller's text")

    @property
    def is_behavioural(self) -> bool:
        """Any persona but the default one is a behavioural perturbation (EVA-Bench App. G.1)."""
        return self.name != "default"


class SpeakerConfig(_Group):
    id: str
    gender: Literal["female", "male"] | None = Field(default=None, description="null: speaks for any caller")
    espeak_voice: str = Field(description="eSpeak NG voice, optionally +variant (en-us+f3)")
    pitch: int = Field(default=50, ge=0, le=99)
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="null: the voice's rate_wpm")


class VoiceConfig(_Group):
    name: str
    accent: Literal["none", "french", "indian", "spanish", "chinese"] = "none"
    method: Literal["text", "phonemes"] = Field(
        default="text", description="text: eSpeak reads the English text; phonemes: evalkit.speech.accents map"
    )
    rate_wpm: int = Field(default=175, ge=80, le=450)
    speakers: list[SpeakerConfig] = Field(min_length=1)
    assignment: Literal["gender", "hash"] = Field(
        default="gender", description="gender: the scenario persona's gender picks the speaker; hash: scenario id"
    )

    @model_validator(mode="before")
    @classmethod
    def _single_voice_shorthand(cls, data: Any) -> Any:
        # `espeak_voice: en-us` (+ `pitch`) is the one-speaker form older configs and scripts use.
        if isinstance(data, dict) and "espeak_voice" in data and "speakers" not in data:
            data = dict(data)
            speaker = {"id": "default", "espeak_voice": data.pop("espeak_voice")}
            if "pitch" in data:
                speaker["pitch"] = data.pop("pitch")
            data["speakers"] = [speaker]
        return data

    @model_validator(mode="after")
    def _accent_needs_its_method(self) -> VoiceConfig:
        if self.accent != "none" and self.method != "phonemes":
            raise ValueError(f"accent {self.accent!r} is built by phoneme mapping: set method: phonemes")
        if self.accent == "none" and self.method != "text":
            raise ValueError("method: phonemes needs an accent (french, indian, spanish or chinese)")
        if len({s.id for s in self.speakers}) != len(self.speakers):
            raise ValueError("speaker ids must be unique")
        return self


class PerturbConfig(BaseModel):
    # Extra top-level keys (snr_db, bitrate, ...) are allowed: they are the knobs the chain interpolates.
    model_config = ConfigDict(extra="allow")

    name: str
    snr_db: float | None = Field(default=None, ge=-5.0, le=40.0)
    chain: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator("chain")
    @classmethod
    def _chain_builds(cls, chain: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            Chain.from_specs(chain)
        except PerturbationError as exc:
            raise ValueError(str(exc)) from exc
        return chain

    @property
    def is_clean(self) -> bool:
        return not self.chain


class ValidationConfig(_Group):
    """Simulation validation (EVA-Bench App. D.1): regenerate a conversation that fails a gate. Part of the cell's
    identity: a rerun changes which conversation is scored."""

    enabled: bool = True
    max_reruns: int = Field(
        default=2, ge=0, le=20, description="regenerations after the first attempt (EVA-Bench gives no limit)"
    )


class MlflowConfig(_Group):
    tracking_uri: str | None = Field(default=None, description="null: $MLFLOW_TRACKING_URI or ./mlflow.db")
    experiment: str = "evalkit"
    artifact_location: str | None = Field(default=None, description="null: ./mlartifacts beside the database")
    log_audio: bool = True


class RunConfig(_Group):
    domain: DomainConfig
    agent: AgentConfig
    simulator: SimulatorConfig
    persona: PersonaConfig
    voice: VoiceConfig
    perturb: PerturbConfig | None = None
    seed: int = Field(ge=0)
    trials: int = Field(ge=1, le=100, description="k: trials per scenario")
    metrics: list[str]
    reuse: bool = True
    twins: bool = True
    progress: bool = True
    mlflow: MlflowConfig = MlflowConfig()
    validation: ValidationConfig = ValidationConfig()
    judge: JudgeConfig = JudgeConfig()

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, names: list[str]) -> list[str]:
        from evalkit.metrics.registry import METRICS

        unknown = [n for n in names if n not in METRICS]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}; available: {sorted(METRICS)}")
        if not names:
            raise ValueError("at least one metric is required")
        return names

    @model_validator(mode="after")
    def _accent_excludes_behavioural_persona(self) -> RunConfig:
        # EVA-Bench App. G.1: accents are mutually exclusive with behavioural personas (both set the voice), and
        # a delta is only attributable to one factor when the other is at its default.
        if self.voice.accent != "none" and self.persona.is_behavioural:
            raise ValueError(
                f"voice={self.voice.name} (accent {self.voice.accent!r}) cannot be combined with "
                f"persona={self.persona.name}: accent voices exclude behavioural personas (EVA-Bench App. G.1); "
                "use persona=default with an accent voice, or voice=neutral with a behavioural persona "
                "(persona.level=easy|hard is allowed with any voice)"
            )
        return self

    @model_validator(mode="after")
    def _clean_is_none(self) -> RunConfig:
        # `+perturb=clean` and no perturb group are the same condition, so they share one cell identity.
        if self.perturb is not None and self.perturb.is_clean:
            self.perturb = None
        return self

    @property
    def condition(self) -> str:
        return self.perturb.name if self.perturb else "clean"


class ConfigError(ValueError):
    """A composed config that fails validation; the message names the key and its source file."""


def _source_file(key_path: tuple[Any, ...], choices: dict[str, str]) -> str:
    group = str(key_path[0]) if key_path else ""
    if group in choices and choices[group] is not None:
        return f"conf/{group}/{choices[group]}.yaml"
    return "conf/config.yaml or the command line"


def validate_config(raw: dict[str, Any], choices: dict[str, str] | None = None) -> RunConfig:
    """Validate a resolved config dict. ``choices`` maps group -> selected option (Hydra's runtime choices)."""
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            key = ".".join(str(p) for p in loc)
            value = error.get("input")
            shown = f" (got {value!r})" if not isinstance(value, dict | list) else ""
            lines.append(f"  {key}: {error['msg']}{shown}  [from {_source_file(loc, choices or {})}]")
        raise ConfigError("invalid evalkit config:\n" + "\n".join(lines)) from None


def _strip_secrets(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_secrets(v) for k, v in node.items() if not any(m in str(k).lower() for m in SECRET_MARKERS)}
    if isinstance(node, list):
        return [_strip_secrets(v) for v in node]
    return node


def identity_payload(config: RunConfig) -> dict[str, Any]:
    """What defines a cell's results. ``judge=none`` is left out entirely, so offline cells keep the keys they had
    before the judge group existed; an enabled judge contributes only what can change a score (endpoint, model,
    sampling), not its cache folder or retry policy."""
    data = config.model_dump(mode="json", exclude=set(NON_IDENTITY_KEYS))
    if config.judge.enabled:
        data["judge"] = {k: v for k, v in data["judge"].items() if k not in NON_IDENTITY_JUDGE_KEYS}
        data["judge"]["prompt_hashes"] = _judge_prompt_hashes()  # an edited prompt is a different judge
    else:
        data.pop("judge", None)
    return _strip_secrets(data)


def _judge_prompt_hashes() -> dict[str, str]:
    from evalkit.judges.prompts import PROMPTS  # the prompts live in code, not config: read them at hashing time

    return {name: prompt.prompt_hash[:16] for name, prompt in sorted(PROMPTS.items())}


def cell_key(config: RunConfig) -> str:
    """The cell's identity: SHA-256 of its resolved config, secrets and bookkeeping settings excluded."""
    payload = json.dumps(identity_payload(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


ACCENT_VOICE_PREFIX = "accent_"  # conf/voice/accent_*.yaml: an accent is a perturbation axis (EVA-Bench App. G)
TWIN_VOICE = "neutral"
TWIN_PERSONA = "default"


def twin_config(config: RunConfig) -> RunConfig:
    """The clean twin: same everything but the perturbation axes, which go back to their clean value.

    The rule (README, "How the clean twin is scheduled"): ``perturb`` is removed; an accent voice (name starting
    with ``accent_``) becomes ``neutral``; a behavioural persona (any persona but ``default``) becomes ``default``.
    EVA-Bench treats accent and persona as perturbations of the user simulator, so a delta is only meaningful
    against the neutral, default caller. A clean config is its own twin. The replacement groups are read from
    ``conf/`` exactly as Hydra composes them, so the twin's cell key equals the key of the job the sweeper
    schedules (``evalkit.cli.sweeper.twin_overrides``).
    """
    update: dict[str, Any] = {"perturb": None}
    if config.voice.name.startswith(ACCENT_VOICE_PREFIX):
        update["voice"] = VoiceConfig.model_validate(_conf_group_option("voice", TWIN_VOICE))
    if config.persona.name != TWIN_PERSONA:
        update["persona"] = PersonaConfig.model_validate(_conf_group_option("persona", TWIN_PERSONA))
    return config.model_copy(update=update)


@functools.cache
def _conf_group_option(group: str, option: str) -> dict[str, Any]:
    from omegaconf import OmegaConf

    path = Path(__file__).resolve().parents[2] / "conf" / group / f"{option}.yaml"
    return OmegaConf.to_container(OmegaConf.load(path), resolve=True)  # type: ignore[return-value]
