"""Prices of metered usage (``evalkit.usage``) in USD: a versioned table, per provider (base URL) and model.

The table shipped with the package (``evalkit/pricing.yaml``: list prices with a ``version`` and the ``date`` they
were read) is replaced by ``pricing.file`` and amended by ``pricing.overrides`` (conf/config.yaml). A model may be
priced per 1M tokens (text and audio, in and out), per audio minute (in and out) and per 1M characters sent to a
speech endpoint; a request's cost is the sum of the rates the model declares times what was metered.

Unpriced stays unpriced, never 0: a (base URL, model) missing from the table, a token-billed model whose answers
reported no usage, or audio tokens with no audio rate give no cost, with the reason. Components that run in this
process (``METERING = "local"``: the reference agent, eSpeak, faster-whisper, the scripted caller) send no request
and cost 0 USD by that declaration; their work is counted in audio seconds, not dollars. A component evalkit only
talks to (``"external"``: a WebSocket agent) spends what evalkit cannot see, so a cell with one has no total.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = [
    "DEFAULT_TABLE",
    "Cost",
    "ModelPrice",
    "PricingError",
    "PricingTable",
    "load_table",
    "price_rows",
]

DEFAULT_TABLE = Path(__file__).with_name("pricing.yaml")
Metering = Literal["local", "metered", "external"]


class PricingError(ValueError):
    """A pricing table that cannot be used (unreadable, malformed, a negative price): one line."""


RATE_FIELDS = (
    "input_per_1m",
    "output_per_1m",
    "audio_input_per_1m",
    "audio_output_per_1m",
    "audio_in_per_minute",
    "audio_out_per_minute",
    "characters_per_1m",
)
TOKEN_RATES = RATE_FIELDS[:4]


class ModelPrice(BaseModel):
    """USD rates of one model; only the rates the provider bills it by are set."""

    model_config = ConfigDict(extra="forbid")

    input_per_1m: float | None = Field(default=None, ge=0, description="text input tokens, per 1M")
    output_per_1m: float | None = Field(default=None, ge=0, description="text output tokens, per 1M")
    audio_input_per_1m: float | None = Field(default=None, ge=0, description="audio input tokens, per 1M")
    audio_output_per_1m: float | None = Field(default=None, ge=0, description="audio output tokens, per 1M")
    audio_in_per_minute: float | None = Field(default=None, ge=0, description="per minute of audio sent")
    audio_out_per_minute: float | None = Field(default=None, ge=0, description="per minute of audio received")
    characters_per_1m: float | None = Field(default=None, ge=0, description="per 1M characters sent to speech")

    @model_validator(mode="after")
    def _some_rate(self) -> ModelPrice:
        if all(getattr(self, name) is None for name in RATE_FIELDS):
            raise ValueError(f"a model needs at least one rate ({', '.join(RATE_FIELDS)})")
        return self

    @property
    def token_billed(self) -> bool:
        return any(getattr(self, name) is not None for name in TOKEN_RATES)


class Provider(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_urls: list[str] = Field(min_length=1)
    models: dict[str, ModelPrice]

    @field_validator("base_urls")
    @classmethod
    def _normalised(cls, urls: list[str]) -> list[str]:
        return [url.rstrip("/") for url in urls]


class PricingTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str = Field(min_length=1)
    date: str = Field(min_length=1, description="when the prices were read (YYYY-MM-DD)")
    currency: Literal["USD"] = "USD"
    source: str = ""
    providers: dict[str, Provider] = Field(default_factory=dict)

    @field_validator("version", "date", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if value is not None else value  # YAML reads 2026-11-01 as a date, 1 as an int

    def price(self, base_url: str, model: str) -> ModelPrice | None:
        base = base_url.rstrip("/")
        for provider in self.providers.values():
            if base in provider.base_urls and model in provider.models:
                return provider.models[model]
        return None

    def with_overrides(self, overrides: list[dict[str, Any]]) -> PricingTable:
        """The table with ``pricing.overrides`` entries (``{base_url, model, <rates>}``) added or replacing."""
        providers = {name: p.model_copy(deep=True) for name, p in self.providers.items()}
        for n, entry in enumerate(overrides):
            entry = dict(entry)
            base, model = str(entry.pop("base_url", "")).rstrip("/"), str(entry.pop("model", ""))
            if not base or not model:
                raise PricingError(f"pricing.overrides[{n}]: needs base_url and model, got {sorted(entry)}")
            price = _validated(ModelPrice, entry, f"pricing.overrides[{n}] ({model})")
            name = f"override:{base}"
            providers.setdefault(name, Provider(base_urls=[base], models={})).models[model] = price
        # an override wins: listed first, so price() finds it before the shipped entry of the same URL
        ordered = {k: v for k, v in providers.items() if k.startswith("override:")}
        ordered |= {k: v for k, v in providers.items() if not k.startswith("override:")}
        return self.model_copy(update={"providers": ordered})


def _validated(model: type[BaseModel], data: Any, where: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        got = f" (got {error['input']!r})" if "input" in error and not isinstance(error["input"], dict) else ""
        raise PricingError(f"{where}: {key + ': ' if key else ''}{error['msg']}{got}") from None


@functools.cache
def _read(path: str) -> PricingTable:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise PricingError(f"pricing table {path}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    except yaml.YAMLError as exc:
        raise PricingError(f"pricing table {path}: not YAML ({str(exc).splitlines()[0]})") from None
    return _validated(PricingTable, data, f"pricing table {path}")


def load_table(file: str | None = None, overrides: list[dict[str, Any]] | None = None) -> PricingTable:
    """The shipped table (or ``file``) with ``overrides``; :class:`PricingError` (one line) when unusable."""
    table = _read(str(Path(file).expanduser()) if file else str(DEFAULT_TABLE))
    return table.with_overrides(list(overrides or []))


@dataclass
class Cost:
    """The priced part of usage rows: ``total_usd`` None when something is unpriced (``unpriced`` says what)."""

    input_usd: float = 0.0
    output_usd: float = 0.0
    unpriced: list[str] = field(default_factory=list)

    @property
    def total_usd(self) -> float | None:
        return None if self.unpriced else self.input_usd + self.output_usd


def row_cost(row: dict[str, Any], price: ModelPrice | None) -> tuple[float, float] | str:
    """(input USD, output USD) of one usage row (``evalkit.usage.Ledger.rows``), or why it cannot be priced."""
    what = f"{row['component']} {row['model']!r} at {row['base_url']}"
    if price is None:
        return f"{what}: not in the pricing table (add it with pricing.overrides or pricing.file)"
    audio_in, audio_out = row.get("audio_tokens_in", 0), row.get("audio_tokens_out", 0)
    text_in, text_out = row.get("tokens_in", 0) - audio_in, row.get("tokens_out", 0) - audio_out
    if price.token_billed:
        if row.get("requests_without_usage", 0) and not (price.audio_in_per_minute or price.audio_out_per_minute):
            return f"{what}: {row['requests_without_usage']} answer(s) reported no token usage"
        if (audio_in and price.audio_input_per_1m is None) or (audio_out and price.audio_output_per_1m is None):
            return f"{what}: audio tokens reported, the table has no audio token rate"
    rate = {name: getattr(price, name) or 0.0 for name in RATE_FIELDS}
    billed_tokens = 1.0 if price.token_billed else 0.0  # a per-minute model's token counts are not its bill
    input_usd = billed_tokens * (text_in * rate["input_per_1m"] + audio_in * rate["audio_input_per_1m"]) / 1e6
    input_usd += row.get("audio_s_in", 0.0) / 60.0 * rate["audio_in_per_minute"]
    input_usd += row.get("characters_in", 0) * rate["characters_per_1m"] / 1e6
    output_usd = billed_tokens * (text_out * rate["output_per_1m"] + audio_out * rate["audio_output_per_1m"]) / 1e6
    output_usd += row.get("audio_s_out", 0.0) / 60.0 * rate["audio_out_per_minute"]
    return input_usd, output_usd


def price_rows(rows: list[dict[str, Any]], table: PricingTable) -> tuple[Cost, list[dict[str, Any]]]:
    """The cost of usage rows and the rows with their own ``cost_usd`` (None and ``unpriced`` when not priced)."""
    total = Cost()
    priced = []
    for row in rows:
        found = row_cost(row, table.price(row["base_url"], row["model"]))
        if isinstance(found, str):
            total.unpriced.append(found)
            priced.append(row | {"cost_usd": None, "unpriced": found})
            continue
        total.input_usd += found[0]
        total.output_usd += found[1]
        priced.append(row | {"cost_usd": found[0] + found[1], "input_usd": found[0], "output_usd": found[1]})
    return total, priced


def external_components(config: Any) -> list[str]:
    """The cell's components whose provider spend evalkit cannot see (``METERING = "external"``, the default of
    a kind that declares nothing): one line each, why the cell has no total cost."""
    out = []
    for group in ("agent", "simulator", "voice", "judge"):
        node = getattr(config, group, None)
        if node is None or (group == "judge" and not node.enabled):
            continue
        if getattr(type(node), "METERING", "external") == "external":
            out.append(f"{group}={node.name} (kind {node.kind}) is external: its provider usage is not visible here")
    return out


def local_components(config: Any) -> list[str]:
    """Components declared local (``METERING = "local"``): they cost 0 USD, their work is in audio seconds."""
    out = []
    for group in ("agent", "simulator", "voice"):
        node = getattr(config, group)
        if getattr(type(node), "METERING", "external") == "local":
            out.append(f"{group}={node.name} (kind {node.kind})")
    return out
