"""Persistent judge-answer cache: re-analysis and re-scoring never pay for the same judgment twice.

One SQLite file in WAL mode, one short-lived connection per operation: that is safe across the threads and the
processes of a Hydra sweep (SQLite serialises writers; WAL lets readers proceed), with nothing to clean up.
Only schema-valid judge outputs are stored, with the model / prompt version / prompt hash that produced them;
never request headers or keys. Failed judgments are not cached, so the next run tries again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

DB_NAME = "judgments.sqlite"


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: equal inputs give byte-equal text whatever the dict order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def cache_key(
    *, metric: str, prompt_version: str, prompt_hash: str, model: str, params: dict[str, Any], inputs: dict[str, Any]
) -> str:
    """sha256 of everything that determines a judgment: prompt (version and text hash), model, sampling, inputs.

    The prompt hash is included besides the version so an edited template that forgot its version bump still
    misses the cache instead of returning stale answers.
    """
    material = {
        "metric": metric,
        "prompt_version": prompt_version,
        "prompt_hash": prompt_hash,
        "model": model,
        "params": params,
        "inputs": inputs,
    }
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


class JudgeCache:
    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(
                "CREATE TABLE IF NOT EXISTS judgments ("
                " key TEXT PRIMARY KEY, metric TEXT NOT NULL, model TEXT NOT NULL, prompt_version TEXT NOT NULL,"
                " prompt_hash TEXT NOT NULL, output TEXT NOT NULL, created_at REAL NOT NULL)"
            )
        # Closing the context manager only commits; close explicitly so no file handle lingers.
        con.close()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60.0)

    def get(self, key: str) -> dict[str, Any] | None:
        con = self._connect()
        try:
            row = con.execute("SELECT output FROM judgments WHERE key = ?", (key,)).fetchone()
        finally:
            con.close()
        return json.loads(row[0]) if row else None

    def put(self, key: str, *, metric: str, model: str, prompt_version: str, prompt_hash: str, output: Any) -> None:
        con = self._connect()
        try:
            with con:
                con.execute(
                    "INSERT OR REPLACE INTO judgments VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, metric, model, prompt_version, prompt_hash, canonical_json(output), time.time()),
                )
        finally:
            con.close()

    def __len__(self) -> int:
        con = self._connect()
        try:
            return int(con.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])
        finally:
            con.close()
