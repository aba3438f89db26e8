"""A cell's conversations in worker processes (``workers=N``) give exactly the records of one process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalkit.cell import plan_cell, run_cell_conversations
from evalkit.cell.run import _POOLS, shutdown_worker_pools
from evalkit.config.schema import cell_key, validate_config
from tests.test_config import composed
from tests.test_launch_equivalence import _compare_module

_strip = _compare_module()._strip  # the record checker's own rule for timing fields (scripts/compare_records.py)


def _records(tmp_path: Path, workers: int, *overrides: str) -> list[dict]:
    config = validate_config(
        composed(
            "domain.scenarios=[AL-005]",
            "trials=2",
            "progress=false",
            "metrics=[task_completion,user_wer]",
            "+perturb=noise_cafe",
            f"workers={workers}",
            *overrides,
        )
    )
    out = tmp_path / "-".join((f"w{workers}", *overrides))
    records = run_cell_conversations(plan_cell(config), out, log_audio=False)
    return [_strip(r.model_dump(mode="json")) for r in records]


def test_workers_is_not_part_of_the_cell_identity() -> None:
    base = validate_config(composed())
    assert cell_key(base) == cell_key(validate_config(composed("workers=2")))


def _pool_pids() -> set[int]:
    return {pid for pool in _POOLS.values() for pid in pool._processes}  # the pool's live worker processes


@pytest.mark.slow
def test_two_workers_give_the_records_of_one_and_the_next_cell_reuses_their_pool(tmp_path: Path) -> None:
    """Two workers give the records of one process, in plan order whatever finished first. Workers outlive their
    cell (starting them and loading Whisper cost more than a small cell's conversations): a second cell with another
    config runs in the same processes, with its own runner, and its records are those of one process too. (One test:
    each cell here costs ~20 s, and the first cell's pool is what the second must reuse.)"""
    shutdown_worker_pools()
    try:
        _records(tmp_path, 2, "seed=3")
        first = _pool_pids()
        assert len(first) == 2
        two = _records(tmp_path, 2, "seed=4", "perturb.snr_db=5")
        assert _pool_pids() == first  # the same worker processes served the second cell
        assert [(r["conversation"]["scenario_id"], r["conversation"]["trial"]) for r in two] == [
            ("AL-005", 0),
            ("AL-005", 1),
        ]
        assert two == _records(tmp_path, 1, "seed=4", "perturb.snr_db=5")
        assert any(t["heard_text"] for r in two for t in r["conversation"]["turns"])  # the agent really listened
    finally:
        shutdown_worker_pools()
    assert not _POOLS


@pytest.mark.slow
def test_pool_workers_exit_when_their_parent_is_killed(tmp_path: Path) -> None:
    """kill -9 of a sweep cannot shut its pool down: the idle workers must not wait on their queue for good."""
    script = (
        "import os, sys, time\n"
        "from evalkit.cell.run import worker_pool\n"
        "pool = worker_pool(2, 2)\n"
        "futures = [pool.submit(time.sleep, 1.0) for _ in range(2)]\n"  # both workers start
        "[f.result() for f in futures]\n"
        "print(' '.join(str(p) for p in pool._processes), flush=True)\n"
        "time.sleep(600)\n"
    )
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        assert parent.stdout is not None
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_auto_workers_start_a_process_per_core_only_where_a_voice_cell_pays_for_their_start(monkeypatch) -> None:
    from evalkit.speech import cores

    monkeypatch.setattr(cores, "usable_cores", lambda: 4)  # the count os.sched_getaffinity would give on 4 cores
    monkeypatch.setenv("EVALKIT_PROCESS_SHARE", "1")  # restored after the test, with what set_process_share writes
    pick = cores.conversation_workers
    assert pick(3, 100, voice=True, realtime=False) == 3  # a number is taken as given
    assert pick("auto", 14, voice=True, realtime=False) == 4  # the README main job's cell: 7 scenarios x 2 trials
    assert pick("auto", 5, voice=True, realtime=False) == 2  # two conversations or more per worker
    assert pick("auto", 1, voice=True, realtime=False) == 1
    assert pick("auto", 100, voice=False, realtime=False) == 1  # text: a worker's start costs more than its calls
    assert pick("auto", 100, voice=True, realtime=True) == 1  # real time: concurrency overlaps the calls
    cores.set_process_share(2)  # two launcher jobs share the cores: each cell gets half
    assert pick("auto", 14, voice=True, realtime=False) == 2


def test_the_plan_resolves_auto_workers_once_for_the_cell_and_its_twin(monkeypatch) -> None:
    from evalkit.config.settings import resolve_settings
    from evalkit.pricing import load_table
    from evalkit.speech import cores

    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    monkeypatch.setenv("EVALKIT_PROCESS_SHARE", "1")
    voice = validate_config(composed("+perturb=burst_noise"))
    table = load_table()
    assert resolve_settings(voice, table, conversations=14).workers == 4  # the run stage takes this number
    assert resolve_settings(voice, table, conversations=3).workers == 1  # two conversations or more per worker
    assert resolve_settings(validate_config(composed("workers=3")), table, conversations=1).workers == 3
    plan = plan_cell(validate_config(composed("+perturb=burst_noise", "domain.scenarios=[AL-001,AL-002]", "trials=2")))
    assert plan.twin is not None
    for cell in (plan, plan.twin):  # each sized by its own conversations (a clean twin may run one trial each)
        expected = cores.conversation_workers("auto", len(cell.scenarios) * cell.trials, voice=True, realtime=False)
        assert cell.settings.workers == expected
    assert plan.settings.workers == 2  # 2 scenarios x 2 trials


def test_workers_accepts_auto_or_a_count_and_refuses_anything_else() -> None:
    assert validate_config(composed()).workers == "auto"
    assert validate_config(composed("workers=3")).workers == 3
    for bad in ("workers=0", "workers=257", "workers=many"):
        with pytest.raises(Exception, match="workers"):
            validate_config(composed(bad))
