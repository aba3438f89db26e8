"""One pydantic model per config group. The composed config is validated once, before any work, so a typo or an
out-of-range value stops the cell with one message naming the key and the file it came from."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from perturbations import Chain, PerturbationError

SECRET_MARKERS = ("key", "token", "secret", "password")
# Settings that do not change what a cell computes: excluded from its identity.
NON_IDENTITY_KEYS = ("mlflow", "reuse", "twins", "progress")


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DomainConfig(_Group):
    name: Literal["airline"]
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
    max_user_turns: int = Field(default=30, ge=1, le=200)
    max_duration_s: float = Field(default=600.0, gt=0)
    user_reaction_ms: float = Field(default=400.0, ge=0)


class PersonaConfig(_Group):
    name: str
    description: str = ""
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="overrides the voice's speaking rate")
    pitch_shift: int = Field(default=0, ge=-50, le=50)


class VoiceConfig(_Group):
    name: str
    accent: str = "none"
    espeak_voice: str
    rate_wpm: int = Field(default=175, ge=80, le=450)
    pitch: int = Field(default=50, ge=0, le=99)


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
    data = config.model_dump(mode="json", exclude=set(NON_IDENTITY_KEYS))
    return _strip_secrets(data)


def cell_key(config: RunConfig) -> str:
    """The cell's identity: SHA-256 of its resolved config, secrets and bookkeeping settings excluded."""
    payload = json.dumps(identity_payload(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def twin_config(config: RunConfig) -> RunConfig:
    """The clean twin: the same cell with the channel perturbation removed."""
    return config.model_copy(update={"perturb": None})
