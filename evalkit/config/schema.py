"""One pydantic model per config group. The composed config is validated once, before any work, so a typo or an
out-of-range value stops the cell with one message naming the key and the file it came from."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.config import axes
from evalkit.config.behavior import BehaviorConfig
from evalkit.config.interrupt import InterruptConfig
from evalkit.config.variation import PersonaBoundsConfig, PersonaVariationConfig, bounds_errors, random_sources
from evalkit.judges.config import JudgeConfig
from evalkit.judges.registry import JUDGES, BaseJudgeConfig
from evalkit.kinds import kind_of
from evalkit.redaction import SECRET_NAME_MARKERS, name_words
from evalkit.simulator.registry import SIMULATORS, SimulatorConfig
from evalkit.speech.registry import VOICES, VoiceConfig
from perturbations import Chain, PerturbationError

# Words that make a config key secret-like (``api_key``, ``auth_token``, ``api_key_env``, ``Authorization``): whole
# words (evalkit.config.secrets.name_words), so ``max_new_tokens`` or ``max_tokens``, which change results, stay in
# the cell's identity. One list for refusing, redacting and leaving out of the identity.
SECRET_MARKERS = SECRET_NAME_MARKERS
# Settings that do not change what a cell computes: excluded from its identity.
# ``infra`` is how failures are retried: a retried conversation replays its seeds, so the results never depend on it.
# ``pricing`` and ``providers`` say what a cell cost and how fast requests may go, never what it computes.
NON_IDENTITY_KEYS = (
    "mlflow",
    "reuse",
    "twins",
    "progress",
    "workers",
    "concurrency",
    "infra",
    "pricing",
    "providers",
)
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
    name: str = Field(description="a registered domain (evalkit.domains.DOMAINS)")
    # A domain that is neither built in nor installed with an entry point (your own tools, e.g. examples/outage_line):
    # the module on sys.path that registers it, imported before the name is looked up, as ``agent.plugin`` is.
    # Left out of dumps when unset, so the built-in domains' cell keys are unchanged.
    plugin: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="module imported before the domain is looked up (a domain neither built in nor installed)",
    )
    scenarios: list[str] | None = Field(default=None, description="scenario ids to run; null = all")
    limit: int | None = Field(default=None, ge=1, description="run only the first N scenarios")
    scenario_dir: str | None = Field(
        default=None,
        description="a folder of scenario files to run instead of the domain's own (e.g. imported EVA-Bench records); "
        "stored as an absolute path, so the cell key names the folder",
    )

    @field_validator("scenarios", mode="before")
    @classmethod
    def _ids_as_text(cls, ids: Any) -> Any:
        # Imported EVA-Bench ids look like numbers ("12", "1.1"), which the command line parses as such: take the
        # text back (quote ids whose digits matter, e.g. domain.scenarios=['1.10']).
        if isinstance(ids, list):
            return [str(i) if isinstance(i, int | float) and not isinstance(i, bool) else i for i in ids]
        return ids

    @field_validator("scenarios")
    @classmethod
    def _some_ids(cls, ids: list[str] | None) -> list[str] | None:
        # [] used to fall through to "all" (a filter that drops everything ran 50 scenarios): null means all.
        if ids is not None and not ids:
            raise ValueError("an empty list selects no scenario: name ids, or leave it null for all")
        return ids

    @field_validator("scenario_dir")
    @classmethod
    def _absolute(cls, folder: str | None) -> str | None:
        # '' used to mean the domain's own folder without a word: an unset variable (${oc.env:X,''}) is a mistake.
        if folder is not None and not folder.strip():
            raise ValueError("is empty: give a folder of scenario files, or null for the domain's own")
        if folder is None:
            return None
        try:
            path = Path(folder).expanduser().resolve()
            path.is_dir()  # a name too long or a loop of links fails here, as one line, not in a cell
        except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: ~user unknown; ValueError: a NUL byte
            raise ValueError(f"cannot be used as a folder ({type(exc).__name__}: {str(exc)[:120]})") from None
        return str(path)

    @model_validator(mode="before")
    @classmethod
    def _import_plugin(cls, value: Any) -> Any:
        # before the fields: the name is only registered once the module's register_domain has run
        if isinstance(value, dict) and value.get("plugin"):
            try:
                importlib.import_module(str(value["plugin"]))
            except ImportError as exc:
                raise ValueError(f"plugin: cannot import plug-in module {value['plugin']!r}: {exc}") from None
        return value

    @field_validator("name")
    @classmethod
    def _registered(cls, name: str) -> str:
        from evalkit.domains import DOMAINS  # on use, as for metrics: importing the schema loads no domain

        if name not in DOMAINS:
            raise ValueError(f"unknown domain {name!r}; registered: {', '.join(DOMAINS.names())}")
        return name


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
    spelling: Literal["nato", "as_in", "letters"] = Field(
        default="nato",
        description="how the caller spells a code's letters once misheard or asked for the phonetic alphabet",
    )
    rate_wpm: int | None = Field(default=None, ge=80, le=450, description="overrides the voice's speaking rate")
    pitch_shift: int = Field(default=0, ge=-50, le=50)
    word_gap_ms: int = Field(default=0, ge=0, le=1000, description="eSpeak NG gap between words")
    pause_ms: int = Field(default=0, ge=0, le=5000, description="extra silence at each '...' of the caller's text")
    variation: PersonaVariationConfig = PersonaVariationConfig()  # what differs between trials (issue 17)
    bounds: PersonaBoundsConfig = PersonaBoundsConfig()  # the range the persona's caller stays in

    @property
    def is_behavioural(self) -> bool:
        """Any persona but the default one is a behavioural perturbation (EVA-Bench App. G.1)."""
        return axes.axis("persona").is_perturbed(self.name)


# The lowest rate evalkit runs a chain at: the open line between utterances on a live call
# (evalkit.call.line.FILL_RATE); the voices run at 22.05 kHz and up. A band edge must sit below its Nyquist, 8 kHz.
LOWEST_LINE_RATE = 16_000


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
            for op in Chain.from_specs(chain):  # an op that needs a rate (a band edge below Nyquist) checks it now
                getattr(op, "check_rate", lambda rate: None)(LOWEST_LINE_RATE)
        except PerturbationError as exc:
            raise ValueError(str(exc)) from exc
        return chain

    @property
    def is_clean(self) -> bool:
        return not self.chain

    def build(self) -> Chain:
        return Chain.from_specs(self.chain)


class ValidationConfig(_Group):
    """Simulation validation (EVA-Bench App. D.1): regenerate a conversation that fails a gate. Part of the cell's
    identity: a rerun changes which conversation is scored."""

    enabled: bool = True
    max_reruns: int = Field(
        default=2, ge=0, le=20, description="regenerations after the first attempt (EVA-Bench gives no limit)"
    )


class InfraConfig(_Group):
    """Infrastructure failures (the agent crashes, hangs, disconnects, sends silence or garbage audio): the
    conversation is re-run with the same seeds after ``backoff_s * 2**retry`` seconds, at most ``max_retries``
    times per conversation (validation regenerations share that budget and never regenerate an infrastructure
    failure: a dead agent is called ``max_retries + 1`` times), and counted (``infra_retries``,
    ``infra_failure_<reason>``). Still failing: unscored, and the cell ends FAILED so a later run computes it again.
    Not part of the cell's identity (a retry replays the same seeds)."""

    max_retries: int = Field(default=2, ge=0, le=20, description="re-runs of a conversation after an infra failure")
    backoff_s: float = Field(default=1.0, ge=0.0, le=600.0, description="first wait before a retry; doubles each time")
    agent_timeout_s: float | None = Field(
        default=None, gt=0.0, description="wall-clock limit per agent turn (null: none); a hung agent fails the call"
    )


class MlflowConfig(_Group):
    tracking_uri: str | None = Field(default=None, description="null: $MLFLOW_TRACKING_URI or ./mlflow.db")
    experiment: str = "evalkit"
    artifact_location: str | None = Field(default=None, description="null: ./mlartifacts beside the database")
    log_audio: bool = True
    log_traces: bool = Field(default=True, description="each conversation as an MLflow trace (trace/session views)")
    log_viewer: bool = Field(default=True, description="viewer.html: the cell's conversations beside the clean twin's")
    viewer_embed_mb: float = Field(
        default=40.0, ge=0.0, description="audio embedded in viewer.html (Ogg Vorbis), MB; past it lanes link the WAVs"
    )


class PricingConfig(_Group):
    """What a cell's metered usage costs (evalkit.pricing, docs/cost.md): the shipped table, or ``file``, amended
    by ``overrides`` (``{base_url, model, <rates>}`` each). Not part of the cell's identity."""

    file: str | None = Field(default=None, description="a pricing table YAML replacing the shipped one")
    overrides: list[dict[str, Any]] = Field(
        default_factory=list, description="models added or re-priced: {base_url, model, input_per_1m, ...}"
    )


class ProviderLimitConfig(_Group):
    base_url: str = Field(min_length=1, description="the provider's base URL, e.g. https://api.openai.com/v1")
    max_concurrency: int | None = Field(default=None, ge=1, le=1024, description="requests in flight at once")


class ProvidersConfig(_Group):
    """Limits of the OpenAI-compatible providers a run calls (evalkit.wire.openai_http.limits; docs/agents.md): a
    concurrency cap per base URL shared by every request of a process, the ``Retry-After`` of a 429 shared by all
    of them, and the credential preflight (one ``GET {base_url}/models`` per configured endpoint before the first
    cell). Not part of the cell's identity."""

    preflight: bool = Field(default=True, description="check every endpoint's key with GET /models first")
    preflight_timeout_s: float = Field(default=10.0, gt=0, le=300, description="per preflight request")
    max_concurrency: int | None = Field(
        default=None, ge=1, le=1024, description="cap per provider not listed in limits (null: none)"
    )
    limits: list[ProviderLimitConfig] = Field(default_factory=list, description="per base URL caps")

    def caps(self) -> dict[str, int | None]:
        return {limit.base_url.rstrip("/"): limit.max_concurrency for limit in self.limits}


class ModalityConfig(_Group):
    """MM-τ-p²'s modality axis: ``voice`` (the call's audio path) or ``text`` (the same call loop with a perfect
    text channel: no caller voice, perturbation, agent ASR or TTS), paired with its voice twin in the analysis."""

    name: Literal["voice", "text"] = Field(default="voice", description="voice | text (conf/modality/)")


class RunConfig(_Group):
    domain: DomainConfig
    # Plug-in groups: the option's `kind` picks the registered config class (evalkit.kinds).
    agent: kind_of(AGENTS, AgentConfig)  # type: ignore[valid-type]
    simulator: kind_of(SIMULATORS, SimulatorConfig)  # type: ignore[valid-type]
    voice: kind_of(VOICES, VoiceConfig)  # type: ignore[valid-type]
    persona: PersonaConfig  # after voice and simulator: its bounds are checked against their nominal values
    perturb: PerturbConfig | None = None
    seed: int = Field(ge=0)
    trials: int = Field(ge=1, le=100, description="k: trials per scenario")
    metrics: list[str]
    reuse: bool | Literal["any"] = Field(
        default=True,
        description="true: reuse a finished cell of the same config and code fingerprint; any: of any code; false: "
        "always run (docs/provenance.md)",
    )
    twins: bool = True
    progress: bool = True
    workers: int | Literal["auto"] = Field(
        default="auto",
        description="processes running a cell's conversations (1-256); auto: one per core for an in-process voice "
        "agent when each gets two conversations or more, else 1",
    )
    concurrency: int = Field(
        default=1,
        ge=1,
        le=256,
        description="real-time calls each process runs at once (wire agents; in-process agents run one at a time)",
    )

    mlflow: MlflowConfig = MlflowConfig()
    validation: ValidationConfig = ValidationConfig()
    infra: InfraConfig = InfraConfig()
    judge: kind_of(JUDGES, BaseJudgeConfig) = JudgeConfig()  # type: ignore[valid-type]
    modality: ModalityConfig = ModalityConfig()
    pricing: PricingConfig = PricingConfig()
    providers: ProvidersConfig = ProvidersConfig()
    interrupt: InterruptConfig | None = None  # IHBench's interruptions (+interrupt=<type>); None: never cut in
    behavior: BehaviorConfig | None = None  # caller behaviours (+behavior=<type>); None: none (the clean twin)

    @field_validator("workers", mode="before")
    @classmethod
    def _workers_auto_or_count(cls, value: Any) -> Any:
        # one message for both forms (the union's own errors would be two lines, one per member)
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 256):
            return value
        raise ValueError(f"workers is auto or a whole number from 1 to 256, got {value!r}")

    @field_validator("persona")
    @classmethod
    def _variation_inside_bounds(cls, persona: PersonaConfig, info: ValidationInfo) -> PersonaConfig:
        """A jitter that would take the caller outside the persona's bounds is one error, at ``persona`` (so it
        names the persona's file), listing the speakers and the nominal values it leaves them from."""
        if "voice" in info.data and "simulator" in info.data:
            errors = bounds_errors(persona, info.data["voice"], info.data["simulator"])
            if errors:
                raise ValueError("; ".join(errors))
        return persona

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
    def _text_modality_has_no_audio(self) -> RunConfig:
        # A text cell carries no audio: an accent or a perturbation would be silently ignored, so it is refused (the
        # modality gap is text against its voice twin; accents and noise are compared on the voice side).
        if self.modality.name != "text":
            return self
        if self.behavior is not None:  # its phrases are the caller's voice on the line: a text call has neither
            raise ValueError(f"modality=text has no caller voice, so +behavior={self.behavior.name} cannot apply")
        if self.perturb is not None or self.voice.accent != "none":
            what = f"+perturb={self.perturb.name}" if self.perturb is not None else f"voice={self.voice.name}"
            raise ValueError(
                f"modality=text has no audio, so {what} cannot apply: run the text cell with the clean channel and "
                "neutral voice (its voice twin is scheduled for you) and compare accents and noise on the voice side"
            )
        if not type(self.agent).TEXT_MODALITY:
            raise ValueError(
                f"agent={self.agent.name} (kind {self.agent.kind}) has no text path; modality=text runs agents that "
                "declare one (cascade_local: the same dialogue policy without ASR and TTS)"
            )
        return self

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

    def random_sources(self) -> list[str]:
        """What varies from one trial of a scenario to the next (evalkit.config.variation); none: one trial."""
        return random_sources(self)

    @property
    def trials_to_run(self) -> int:
        """k, or 1 when nothing in the cell is random (k copies of one deterministic conversation measure nothing
        pass^k could use: pass^k = pass@1 either way)."""
        return self.trials if self.random_sources() else 1


class ConfigError(ValueError):
    """A composed config that fails validation; the message names the key and its source file."""


def _override_keys(overrides: list[str]) -> list[str]:
    """The dotted keys a list of command-line overrides sets (``+agent.asr.model=x`` -> ``agent.asr.model``; a group
    choice ``agent=twilio_ws`` selects a file, so it is not a value)."""
    keys = []
    for override in overrides:
        key = override.lstrip("+~").split("=", 1)[0].strip()
        if "." in key:
            keys.append(key)
    return keys


def _source_file(key_path: tuple[Any, ...], choices: dict[str, str], overrides: list[str] | None = None) -> str:
    key = ".".join(str(p) for p in key_path)
    # set on the command line (the key itself, a dict/list above it, or a field inside it): that is where it came from
    if any(k == key or key.startswith(k + ".") or k.startswith(key + ".") for k in _override_keys(overrides or [])):
        return "the command line"
    group = str(key_path[0]) if key_path else ""
    if group in choices and choices[group] is not None:
        return f"conf/{group}/{choices[group]}.yaml"
    return "conf/config.yaml or the command line"


def validate_config(
    raw: dict[str, Any], choices: dict[str, str] | None = None, overrides: list[str] | None = None
) -> RunConfig:
    """Validate a resolved config dict. ``choices`` maps group -> selected option (Hydra's runtime choices);
    ``overrides``: the job's command-line overrides, so a bad value given there is reported as coming from there."""
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            key = ".".join(str(p) for p in loc)
            value = error.get("input")
            # (an unknown-kind message already quotes the value)
            shown = (
                f" (got {value!r})" if not isinstance(value, dict | list) and repr(value) not in error["msg"] else ""
            )
            lines.append(f"  {key}: {error['msg']}{shown}  [from {_source_file(loc, choices or {}, overrides or [])}]")
        raise ConfigError("invalid evalkit config:\n" + "\n".join(lines)) from None


def is_secret_key(name: str) -> bool:
    """A key named like a credential, or naming where one lives (``api_key_env``): one of its words is a secret
    marker. Such keys are left out of the cell's identity (a rotated key is the same cell)."""
    return any(word in SECRET_MARKERS for word in name_words(name))


def _strip_secrets(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_secrets(v) for k, v in node.items() if not is_secret_key(str(k))}
    if isinstance(node, list):
        return [_strip_secrets(v) for v in node]
    return node


def identity_payload(config: RunConfig) -> dict[str, Any]:
    """What defines a cell's results. ``judge=none`` (and a null ``domain.scenario_dir``) is left out entirely, so
    offline cells keep the keys they had before the judge group (the scenario folder option) existed; an enabled
    judge contributes only what can change a score (endpoint, model, sampling), not its cache folder or retry
    policy."""
    data = config.model_dump(mode="json", exclude=set(NON_IDENTITY_KEYS))
    if config.judge.enabled:
        data["judge"] = {k: v for k, v in data["judge"].items() if k not in NON_IDENTITY_JUDGE_KEYS}
        data["judge"]["prompt_hashes"] = _judge_prompt_hashes()  # an edited prompt is a different judge
    else:
        data.pop("judge", None)
    if config.domain.scenario_dir is None:  # the domain's own scenarios: cells keep the keys they had before
        data["domain"].pop("scenario_dir", None)
    if config.modality.name == "voice":  # likewise: voice cells keep the keys they had before the modality axis
        data.pop("modality", None)
    for group in ("agent", "simulator", "voice"):
        node = getattr(config, group)
        for path in getattr(type(node), "NON_IDENTITY_KEYS", ()):  # e.g. an HTTP endpoint's retry policy, its cache
            _drop(data[group], path.split("."))
        extras = getattr(node, "identity_extras", None)  # e.g. an LLM simulator's prompt version and hash
        if extras is not None:
            data[group] |= extras()
    return _strip_secrets(data)


def _drop(node: dict[str, Any], path: list[str]) -> None:
    if len(path) == 1:
        node.pop(path[0], None)
    elif isinstance(node.get(path[0]), dict):
        _drop(node[path[0]], path[1:])


def _judge_prompt_hashes() -> dict[str, str]:
    from evalkit.judges.prompts import PROMPTS  # the prompts live in code, not config: read them at hashing time

    return {name: prompt.prompt_hash[:16] for name, prompt in sorted(PROMPTS.items())}


def cell_key(config: RunConfig) -> str:
    """The cell's identity: SHA-256 of its resolved config, secrets and bookkeeping settings excluded."""
    return identity_key(identity_payload(config))


def identity_key(payload: dict[str, Any]) -> str:
    """The cell key of an :func:`identity_payload` (a plan computes the payload once and keeps both)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def twin_config(config: RunConfig) -> RunConfig:
    """The clean twin: same everything but the perturbation axes, which go back to their clean value.

    The rule is declared once in :mod:`evalkit.config.axes` (README, "How the clean twin is scheduled"):
    ``perturb`` is removed; an accent voice (name starting with ``accent_``) becomes ``neutral``; a behavioural
    persona (any persona but ``default``) becomes ``default``. EVA-Bench treats accent and persona as perturbations
    of the user simulator, so a delta is only meaningful against the neutral, default caller. A clean config is its
    own twin. The replacement groups are read from ``conf/`` exactly as Hydra composes them, so the twin's cell key
    equals the key of the job the sweeper schedules (``evalkit.cli.sweeper.twin_overrides``).
    """
    choices = {a.group or a.name: a.option(config) for a in axes.perturbation_axes()}
    update: dict[str, Any] = {}
    for group, option in axes.twin_choices(choices).items():
        clean = None if option is None else _clean_group(group, option)
        if group == "voice" and axes.remote_accent(choices[group] or "") and type(clean) is type(config.voice):
            clean = _same_engine(config.voice, clean)
        update[group] = clean
    return config.model_copy(update=update)


def _same_engine(perturbed: BaseModel, clean: BaseModel) -> BaseModel:
    """A remote accent's twin is its engine's neutral option with the perturbed cell's engine settings (a
    ``voice.base_url=...`` override is the engine's, so the twin keeps it, as the sweeper's rule does): only the
    accent keys come from the clean option."""
    fields = type(clean).model_fields
    return perturbed.model_copy(update={k: getattr(clean, k) for k in axes.ACCENT_KEYS if k in fields})


def _clean_group(group: str, option: str) -> BaseModel:
    # Validated with the field's own type (a model, or a kind looked up in its registry: the validator lives in the
    # field's metadata), as RunConfig would validate it.
    field = RunConfig.model_fields[group]
    annotation = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    return TypeAdapter(annotation).validate_python(_conf_group_option(group, option))


@functools.cache
def _conf_group_option(group: str, option: str) -> dict[str, Any]:
    from omegaconf import OmegaConf

    path = Path(__file__).resolve().parents[2] / "conf" / group / f"{option}.yaml"
    return OmegaConf.to_container(OmegaConf.load(path), resolve=True)  # type: ignore[return-value]
