"""The ASR's content-addressed transcript cache (issue 17 point 4): a hit is the miss's Transcript, exactly; anything
that can change a transcript misses; corrupt entries are recomputed; an unusable folder is reported once and the
ASR runs without it; concurrent processes never read a half-written entry."""

from __future__ import annotations

import json
import logging
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from evalkit import usage
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.speech.transcript_cache import TranscriptCache

SENTENCE = "I would like to change my flight to Boston please"


@pytest.fixture(scope="module")
def clip() -> tuple[np.ndarray, int]:
    return EspeakTTS("en-us").synthesize(SENTENCE)


class _NoDecode:
    """Stands in for the model after the first decode: a cache hit must not decode."""

    def transcribe(self, *args: object, **kwargs: object) -> object:
        raise AssertionError("decoded although the transcript was cached")


def test_a_hit_returns_exactly_the_transcript_of_the_miss_without_decoding(tmp_path: Path, clip) -> None:
    asr = WhisperASR(cache_dir=tmp_path)
    miss = asr.transcribe(*clip)
    assert "flight" in miss.text.lower() and miss.compute_s > 0
    assert (asr.cache.hits, asr.cache.misses) == (0, 1)
    entries = list(tmp_path.glob("*/*.json"))
    assert len(entries) == 1 and not list(tmp_path.glob("*/.tmp-*"))

    again = WhisperASR(cache_dir=tmp_path)  # another instance (another cell, another process) on the same folder
    again._model = _NoDecode()
    with usage.job() as counts:  # what the cell logs as asr_cache_hits / asr_cache_lookups
        hit = again.transcribe(*clip)
    assert hit == miss  # text, compute_s (the decode's, so the simulated timeline is unchanged) and audio_s
    assert (again.cache.hits, again.cache.misses) == (1, 0)
    assert counts == {"asr_cache_hits": 1, "asr_cache_lookups": 1}


@pytest.mark.slow
def test_everything_that_changes_a_transcript_misses(tmp_path: Path, clip) -> None:
    audio, rate = clip
    asr = WhisperASR(cache_dir=tmp_path)
    asr.transcribe(audio, rate)
    nudged = audio.copy()
    nudged[len(nudged) // 2] += 1e-4
    asr.transcribe(nudged, rate)  # one sample differs
    asr.transcribe(audio.astype(np.float64), rate)  # the same samples in another dtype are converted first: a hit
    asr.transcribe(audio, rate, prompt="Boston")  # a decoding option
    asr.transcribe(audio, rate, hotwords="Boston")
    assert (asr.cache.hits, asr.cache.misses) == (1, 4)
    other = WhisperASR(cache_dir=tmp_path, max_new_tokens=48)  # an engine setting
    other.transcribe(audio, rate)
    assert (other.cache.hits, other.cache.misses) == (0, 1)
    sampled = WhisperASR(cache_dir=tmp_path, temperature=0.7, candidates=3)  # a drawn decode is keyed by its seed
    first = sampled.transcribe(audio, rate, seed=1)
    assert sampled.transcribe(audio, rate, seed=1) == first
    sampled.transcribe(audio, rate, seed=2)
    assert (sampled.cache.hits, sampled.cache.misses) == (1, 2)
    unseeded = WhisperASR(cache_dir=tmp_path, temperature=0.7)  # no seed: greedy, like the first decode above
    assert unseeded.transcribe(audio, rate).text == asr.transcribe(audio, rate).text


def test_a_corrupt_entry_is_recomputed_and_rewritten(tmp_path: Path, clip) -> None:
    asr = WhisperASR(cache_dir=tmp_path)
    good = asr.transcribe(*clip)
    (entry,) = tmp_path.glob("*/*.json")
    for garbage in (
        b"{not json",
        b"",
        json.dumps({"key": "0" * 64, "text": "x", "compute_s": 1, "audio_s": 1}).encode(),
    ):
        entry.write_bytes(garbage)
        again = WhisperASR(cache_dir=tmp_path)
        assert again.transcribe(*clip).text == good.text
        assert (again.cache.hits, again.cache.recomputed) == (0, 1)
        assert json.loads(entry.read_bytes())["text"] == good.text  # rewritten


def test_an_unusable_folder_runs_without_the_cache_and_says_so_once(tmp_path: Path, clip, caplog) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    caplog.set_level(logging.WARNING, logger="evalkit.speech.transcript_cache")
    first = WhisperASR(cache_dir=blocker / "transcripts")  # cannot be created (root ignores read-only modes)
    second = WhisperASR(cache_dir=blocker / "transcripts")
    assert not first.cache.enabled and not second.cache.enabled
    assert "flight" in first.transcribe(*clip).text.lower()
    lines = [r.getMessage() for r in caplog.records if "transcript cache" in r.getMessage()]
    assert len(lines) == 1 and "not writable" in lines[0] and "transcribing without it" in lines[0]


def test_a_write_that_fails_later_turns_the_cache_off_once(tmp_path: Path, monkeypatch, caplog) -> None:
    cache = TranscriptCache(tmp_path / "late", {"engine": "test"})
    assert cache.enabled
    caplog.set_level(logging.WARNING, logger="evalkit.speech.transcript_cache")

    def read_only(*args: object) -> None:
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr("evalkit.content_cache.os.replace", read_only)
    for i in range(3):
        cache.put(f"{i:064x}", {"text": "t", "compute_s": 0.1, "audio_s": 1.0})
    assert not cache.enabled and cache.get(f"{0:064x}") is None
    assert not list((tmp_path / "late").glob("*/.tmp-*"))  # the temporary file is removed
    assert sum("not writable" in r.getMessage() for r in caplog.records) == 1


def _writer(folder: str, worker: int, keys: int) -> int:
    cache = TranscriptCache(folder, {"engine": "test"})
    found = 0
    for round_ in range(3):
        for i in range(keys):
            key = f"{i:064x}"
            stored = cache.get(key)
            if stored is not None:
                assert stored["text"] == f"text {i}"  # never a half-written entry
                found += 1
            cache.put(key, {"text": f"text {i}", "compute_s": worker + round_ / 10, "audio_s": 1.0})
    return found


def test_parallel_processes_share_the_folder_safely(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(3) as pool:
        found = pool.starmap(_writer, [(str(tmp_path), w, 40) for w in range(3)])
    assert sum(found) > 0
    cache = TranscriptCache(tmp_path, {"engine": "test"})
    assert all(cache.get(f"{i:064x}")["text"] == f"text {i}" for i in range(40))
    assert not list(tmp_path.glob("*/.tmp-*"))


def test_the_cache_folder_is_not_part_of_the_cell_key() -> None:
    from evalkit.config.schema import cell_key, validate_config
    from tests.test_config import composed

    default = validate_config(composed())
    assert default.agent.asr.cache_dir == "~/.cache/evalkit/transcripts"
    moved = validate_config(composed("agent.asr.cache_dir=/tmp/elsewhere"))
    off = validate_config(composed("agent.asr.cache_dir=null"))
    assert cell_key(default) == cell_key(moved) == cell_key(off)
    assert cell_key(default) != cell_key(validate_config(composed("agent.asr.beam_size=2")))


def test_a_cached_turn_keeps_the_simulated_timeline(tmp_path: Path, clip) -> None:
    """cascade_local charges a turn the transcript's compute_s: a hit takes the decode's time, not the lookup's."""
    from evalkit.agents.base import AgentContext, ToolBox
    from evalkit.agents.reference.cascade_local import CascadeLocalAgent
    from evalkit.domains import tool_registry
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.scenarios import load_scenarios
    from evalkit.records import AudioClip

    scenario = load_scenarios("airline", ["AL-001"])[0]
    agents = []
    for _ in range(2):
        agent = CascadeLocalAgent(WhisperASR(cache_dir=tmp_path), EspeakTTS("en-gb"))
        tools = ToolBox(ToolExecutor(tool_registry("airline"), scenario.scenario_db))
        agent.start(AgentContext("airline", scenario.current_date_time, tools))
        agents.append(agent.respond(AudioClip(samples=clip[0], sample_rate=clip[1])))
    miss, hit = agents
    assert hit.asr_ms == miss.asr_ms > 0 and hit.heard_text == miss.heard_text
    assert hit.compute_ms >= hit.asr_ms and hit.llm_ms >= 0
