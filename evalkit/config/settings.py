"""A cell's resolved settings: what the stages below the plan read of the config, as typed values resolved once per
cell (:func:`resolve_settings`, called by :func:`evalkit.cell.plan.plan_cell`). The cost, limits and tracking code
of a running cell take these values, not the config: each is read (a pricing table from disk, the tracking store the
preflight found) once per job."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evalkit.config.schema import RunConfig
from evalkit.pricing import PricingTable, external_components, load_table, local_components
from evalkit.speech.cores import conversation_workers

if TYPE_CHECKING:
    from evalkit.tracking import TrackingTarget


@dataclass(frozen=True)
class CellSettings:
    """A cell's settings, resolved (the clean twin's shares the pricing table and the store)."""

    pricing: PricingTable  # the shipped table (or ``pricing.file``) with ``pricing.overrides``
    external: tuple[str, ...]  # components whose provider spend is not visible here: why a cell has no total cost
    local: tuple[str, ...]  # components declared local (``METERING = "local"``): 0 USD, their work in audio seconds
    voice: bool  # a voice call: the audio it sent and received is counted (a text call has none)
    max_concurrency: int | None  # ``providers.max_concurrency``: requests in flight per provider
    caps: dict[str, int | None] = field(default_factory=dict)  # ``providers.limits``: base URL -> cap
    target: TrackingTarget | None = None  # the store the cells log to, as the preflight found it (None: not checked)
    workers: int = 1  # worker processes for the cell's conversations (``workers``, ``auto`` resolved for this process)


def resolve_settings(
    config: RunConfig, pricing: PricingTable | None = None, target: TrackingTarget | None = None, conversations: int = 1
) -> CellSettings:
    """The config's settings for the stages below the plan (``pricing``: the table the preflight read; else read
    here; ``conversations``: how many the cell runs, which ``workers=auto`` sizes its processes by)."""
    voice, realtime = config.modality.name != "text", getattr(config.agent, "realtime", False)
    return CellSettings(
        voice=voice,
        max_concurrency=config.providers.max_concurrency,
        caps=config.providers.caps(),
        workers=conversation_workers(config.workers, conversations, voice, realtime),
        external=tuple(external_components(config)),
        local=tuple(local_components(config)),
        pricing=pricing if pricing is not None else load_table(config.pricing.file, config.pricing.overrides),
        target=target,
    )
