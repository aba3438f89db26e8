"""A small real process for the tracking tests: it opens MLflow runs on a store as a sweep's job would.

python -m tests.tracking_worker hang <store_dir> <experiment> <cell_key>
    start a sweep and open a cell run for <cell_key>, print "ready <sweep id> <cell run id>", then sleep
    (the test kills it with SIGKILL mid-cell)
python -m tests.tracking_worker half <store_dir> <experiment> <cell_key>
    like hang, but log one record artifact into the cell run first (a run killed half-way through its artifacts)
python -m tests.tracking_worker cells <store_dir> <experiment> <start_at> <work_s> <key>...
    wait until the epoch time <start_at> (so two workers start together), start a sweep, then for each key run
    the cell (a claimed run that "works" <work_s> seconds) or reuse it; print one JSON line of what it did
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from evalkit.tracking import (
    CellClaimed,
    CellRun,
    end_sweep,
    find_finished_cell,
    resolve_target,
    start_sweep,
    wait_for_run,
)


def _hang(store: Path, experiment: str, key: str) -> None:
    target = resolve_target(None, experiment, None, store)
    sweep = start_sweep(target, store / "multirun" / "hang", {}, [])
    with CellRun.open(target, key, {"cell_key": key, "evalkit.kind": "cell"}, sweep, claim=True) as run:
        print("ready", sweep, run.run_id, flush=True)
        time.sleep(600)


def _half(store: Path, experiment: str, key: str) -> None:
    target = resolve_target(None, experiment, None, store)
    with CellRun.open(target, key, {"cell_key": key, "evalkit.kind": "cell"}, None, claim=True) as run:
        folder = store / "half" / "records"
        folder.mkdir(parents=True)
        (folder / "AL-005_t0.json").write_text("{}")
        run.log_dir(folder.parent)
        print("ready", "-", run.run_id, flush=True)
        time.sleep(600)


def _cell(target: object, key: str, parent: str, work_s: float) -> str:
    """Run or reuse one cell the way evalkit.cell.run_cell does (find, claim, wait on a holder)."""
    while True:
        previous = find_finished_cell(target, key)  # type: ignore[arg-type]
        if previous is not None:
            return f"reused {previous}"
        try:
            with CellRun.open(target, key, {"cell_key": key, "evalkit.kind": "cell"}, parent, claim=True) as run:  # type: ignore[arg-type]
                time.sleep(work_s)
                run.log_metrics({"work": 1.0})
            return f"ran {run.run_id}"
        except CellClaimed as claimed:
            wait_for_run(target, claimed.holder, poll_s=0.2)  # type: ignore[arg-type]


def _cells(store: Path, experiment: str, start_at: float, work_s: float, keys: list[str]) -> None:
    time.sleep(max(0.0, start_at - time.time()))
    target = resolve_target(None, experiment, None, store)
    sweep = start_sweep(target, store / "multirun" / f"w{time.time_ns()}", {}, [])
    done = {key: _cell(target, key, sweep, work_s) for key in keys}
    end_sweep(target, sweep)
    print(json.dumps({"sweep": sweep, "cells": done}), flush=True)


if __name__ == "__main__":
    mode, store_dir, experiment, *rest = sys.argv[1:]
    if mode == "hang":
        _hang(Path(store_dir), experiment, rest[0])
    elif mode == "half":
        _half(Path(store_dir), experiment, rest[0])
    else:
        _cells(Path(store_dir), experiment, float(rest[0]), float(rest[1]), rest[2:])
