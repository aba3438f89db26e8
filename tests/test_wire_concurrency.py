"""``concurrency=N`` (issue 13 point 5): a cell's real-time calls run at once in one process without changing a
result — same seeds, same audio sent (``audio_sha256``), same records apart from timing fields — through evalkit's
reference server; in-process agents ignore it; ``workers`` × ``concurrency`` compose."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalkit.cell import plan_cell, run_cell_conversations
from evalkit.cell.run import run_conversations
from evalkit.config.schema import ConfigError, cell_key, validate_config
from evalkit.wire.twilio_ws.server import ReferenceServer
from tests.test_call_loop import EchoAgent
from tests.test_config import composed
from tests.test_launch_equivalence import _compare_module

ROOT = Path(__file__).resolve().parent.parent
_strip = _compare_module()._strip  # the record checker's own rule for timing fields (scripts/compare_records.py)
SCENARIOS = "[AL-001,AL-002,AL-003]"


@pytest.fixture(scope="module")
def served_cascade() -> Iterator[str]:
    """``python -m evalkit.serve agent=cascade_local`` on a free port; its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit.serve", "--port", "0", "agent=cascade_local"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("evalkit.serve: agent cascade_local on ws://127.0.0.1:"), line
    yield line.split(" on ")[1].strip()
    process.terminate()
    process.wait(timeout=30)


def wire_cell(url: str, *overrides: str) -> list[str]:
    """A short wire cell: three scenarios, one caller turn each (a truncated call is a call all the same)."""
    return [
        "agent=twilio_ws",
        f"agent.url={url}",
        "agent.take_turn_after_silence_ms=500",
        f"domain.scenarios={SCENARIOS}",
        "trials=1",
        "progress=false",
        "metrics=[task_completion]",
        "validation.enabled=false",
        "simulator.max_user_turns=1",
        "+perturb=noise_cafe",
        *overrides,
    ]


def records(tmp_path: Path, overrides: list[str], name: str) -> tuple[list[dict], float]:
    config = validate_config(composed(*overrides))
    start = time.perf_counter()
    out = run_cell_conversations(plan_cell(config), tmp_path / name, log_audio=False)
    return [r.model_dump(mode="json") for r in out], time.perf_counter() - start


@pytest.fixture(scope="module")
def echo_server() -> Iterator[str]:
    """evalkit's reference server in a thread of this process, serving a cheap in-process agent (a tone and
    'you said N samples'): the wire, the caller and the cell are real, only the agent's brain is not."""
    reference = ReferenceServer(lambda: EchoAgent(reply_ms=400.0), port=0)
    urls: list[str] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    thread = threading.Thread(target=loop.run_until_complete, args=(reference.serve_until(stop, urls.append),))
    thread.start()
    while not urls:
        time.sleep(0.01)
    yield urls[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(timeout=30)
    loop.close()


@pytest.fixture(scope="module")
def one_at_a_time(echo_server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], float]:
    return records(tmp_path_factory.mktemp("c1"), wire_cell(echo_server, "concurrency=1"), "c1")


@pytest.mark.slow
def test_concurrent_wire_calls_give_the_records_of_one_at_a_time(
    echo_server: str, one_at_a_time: tuple[list[dict], float], tmp_path: Path
) -> None:
    """The fast check (~20 s): 3 calls at once vs one at a time through the reference server."""
    one, one_s = one_at_a_time
    three, three_s = records(tmp_path, wire_cell(echo_server, "concurrency=3"), "c3")
    assert [r["conversation"]["scenario_id"] for r in three] == ["AL-001", "AL-002", "AL-003"]  # plan order
    for record in one + three:
        assert record["conversation"]["end_reason"] == "max_turns", record["conversation"]["error"]
    assert [_strip(r) for r in one] == [_strip(r) for r in three]
    turns = [t for r in three for t in r["conversation"]["turns"]]
    assert all(t["audio_sha256"].get("user_heard") for t in turns if t["role"] == "user")  # what was sent
    assert all(t["audio_sha256"].get("assistant") for t in turns if t["role"] == "assistant")  # what was heard
    assert three_s < 0.75 * one_s, (one_s, three_s)  # the calls overlapped


@pytest.mark.slow
def test_workers_and_concurrency_compose(
    echo_server: str, one_at_a_time: tuple[list[dict], float], tmp_path: Path
) -> None:
    """2 processes × 2 calls: each worker takes 2 consecutive jobs at a time; results in plan order, unchanged."""
    both, _ = records(tmp_path, wire_cell(echo_server, "workers=2", "concurrency=2"), "w2c2")
    assert [_strip(r) for r in both] == [_strip(r) for r in one_at_a_time[0]]


@pytest.mark.slow
def test_three_concurrent_calls_to_the_served_cascade_give_the_records_of_one_at_a_time(
    served_cascade: str, tmp_path: Path
) -> None:
    """The same with ``python -m evalkit.serve agent=cascade_local`` (~60 s: Whisper and eSpeak on the server)."""
    one, one_s = records(tmp_path, wire_cell(served_cascade, "concurrency=1"), "c1")
    three, three_s = records(tmp_path, wire_cell(served_cascade, "concurrency=3"), "c3")
    assert [r["conversation"]["scenario_id"] for r in three] == ["AL-001", "AL-002", "AL-003"]  # plan order
    for record in one + three:
        assert record["conversation"]["end_reason"] == "max_turns", record["conversation"]["error"]
    assert [_strip(r) for r in one] == [_strip(r) for r in three]
    sent = [t["audio_sha256"] for r in three for t in r["conversation"]["turns"] if t["role"] == "user"]
    assert sent and all(s.get("user_heard") for s in sent[:-1])  # the audio sent is among what is compared
    assert any(t["intended_text"] for r in three for t in r["conversation"]["turns"] if t["role"] == "assistant")
    print(f"concurrency 1: {one_s:.1f} s, concurrency 3: {three_s:.1f} s")
    assert three_s < 0.75 * one_s, (one_s, three_s)  # the calls overlapped


def test_concurrency_is_a_setting_not_part_of_the_cell_identity() -> None:
    base = validate_config(composed("agent=twilio_ws"))
    assert cell_key(base) == cell_key(validate_config(composed("agent=twilio_ws", "concurrency=8")))
    with pytest.raises(ConfigError, match="concurrency"):
        validate_config(composed("concurrency=0"))


def test_an_in_process_agent_runs_one_conversation_at_a_time() -> None:
    overrides = ("domain.scenarios=[AL-005]", "trials=2", "progress=false", "concurrency=4")
    overrides += ("simulator.max_user_turns=1",)
    config = validate_config(composed(*overrides))
    said: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("evalkit")  # its own handler: another test's logging set-up (Hydra's) may have
    level, disabled = logger.level, logger.disabled  # disabled it or stopped it propagating to caplog's
    logger.setLevel(logging.INFO)
    logger.disabled = False
    muted = logging.root.manager.disable
    logging.disable(logging.NOTSET)
    logger.addHandler(handler)
    try:
        results = list(run_conversations(plan_cell(config), workers=1, concurrency=4))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.disabled = disabled
        logging.disable(muted)
    assert [(r.scenario.id, r.trial) for r in results] == [("AL-005", 0), ("AL-005", 1)]
    assert any("in-process agent" in s for s in said), said
