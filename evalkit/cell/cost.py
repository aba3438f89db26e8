"""Usage and cost of a cell (docs/cost.md): each conversation's metered usage priced into its record, the cell's
sums as metrics (``usage_*``, ``cost_usd``), and the per-provider breakdown as ``usage.json`` beside the records.

Pure functions over the ledger rows (``evalkit.usage.Ledger.rows``) and the plan's resolved settings (the pricing
table, what is metered where: ``evalkit.config.settings.CellSettings``); the cell calls them as each conversation is
scored and once at its end.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from evalkit.config.settings import CellSettings
from evalkit.pricing import PricingTable, price_rows
from evalkit.records import Conversation, ConversationRecord, ConversationUsage
from evalkit.usage import Ledger, Usage

log = logging.getLogger("evalkit")

USAGE_FILE = "usage.json"
COUNTS = tuple(f for f in Usage.__dataclass_fields__ if f != "requests_without_usage")


def call_audio(conversation: Conversation) -> tuple[float, float]:
    """(seconds the agent was sent, seconds it answered with): the lengths of the user and assistant turns."""
    sent = sum((t.end_ms - t.start_ms) / 1000.0 for t in conversation.turns if t.role == "user")
    received = sum((t.end_ms - t.start_ms) / 1000.0 for t in conversation.turns if t.role == "assistant")
    return sent, received


def conversation_usage(
    rows: list[dict[str, Any]], conversation: Conversation, table: PricingTable, external: list[str], voice: bool
) -> ConversationUsage:
    """One conversation's usage, priced: its total is None when a row is unpriced or a component is external."""
    sent, received = call_audio(conversation) if voice else (0.0, 0.0)
    merged = Ledger()  # one row per (component, base URL, model): the call's and its judgments' requests together
    merged.merge(rows)
    cost, priced = price_rows(merged.rows(), table)
    unpriced = cost.unpriced + external
    return ConversationUsage(
        providers=priced,
        audio_s_sent=sent,
        audio_s_received=received,
        cost_usd=None if unpriced else cost.input_usd + cost.output_usd,
        unpriced=unpriced,
    )


def with_usage(record: ConversationRecord, rows: list[dict[str, Any]], settings: CellSettings) -> ConversationRecord:
    """The record with its usage (``rows``: the conversation's and its judgments' ledger rows)."""
    external = list(settings.external)
    usage = conversation_usage(rows, record.conversation, settings.pricing, external, settings.voice)
    return record.model_copy(update={"usage": usage})


def cell_usage(records: list[ConversationRecord], settings: CellSettings) -> dict[str, Any]:
    """The cell's ``usage.json``: the table's version, per (component, base URL, model) the summed counts and
    cost, the total (null when unpriced, with every reason) and what is declared local or external."""
    ledger = Ledger()
    for record in records:
        if record.usage is not None:
            ledger.merge(record.usage.providers)
    table = settings.pricing
    cost, priced = price_rows(ledger.rows(), table)
    external = list(settings.external)
    unpriced = list(dict.fromkeys(cost.unpriced + external))
    return {
        "pricing": {"version": table.version, "date": table.date, "currency": table.currency, "source": table.source},
        "conversations": len(records),
        "providers": priced,
        "audio_s_sent": sum(r.usage.audio_s_sent for r in records if r.usage),
        "audio_s_received": sum(r.usage.audio_s_received for r in records if r.usage),
        "cost_usd": None if unpriced else cost.input_usd + cost.output_usd,
        "unpriced": unpriced,
        "local": list(settings.local),
        "external": external,
    }


def usage_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """The cell's usage metrics: ``usage_<count>`` summed over every provider row, the call's audio both ways,
    and ``cost_usd`` / ``cost_usd_per_conversation`` only when everything is priced (absent, never 0, else)."""
    rows = summary["providers"]
    out = {f"usage_{name}": float(sum(row.get(name, 0) for row in rows)) for name in COUNTS}
    out["usage_audio_s_sent"] = float(summary["audio_s_sent"])
    out["usage_audio_s_received"] = float(summary["audio_s_received"])
    if summary["cost_usd"] is not None:
        out["cost_usd"] = float(summary["cost_usd"])
        if summary["conversations"]:
            out["cost_usd_per_conversation"] = out["cost_usd"] / summary["conversations"]
    return out


def write_usage(out_dir: Path, summary: dict[str, Any], cell: str) -> dict[str, float]:
    """Write ``usage.json`` and say once why the cell has no cost; the metrics to log."""
    (out_dir / USAGE_FILE).write_text(json.dumps(summary, indent=1))
    if summary["unpriced"]:
        log.warning("cell %s: cost_usd not logged (unpriced, never 0): %s", cell, "; ".join(summary["unpriced"]))
    return usage_metrics(summary)
