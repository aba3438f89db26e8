"""Decoder threads per process (issue 16 point 8): ``cpu_threads: auto`` gives each process decoding at once its
share of the usable cores, and the thread count changes no transcript, no cell key and no cache key."""

from __future__ import annotations

import numpy as np
import pytest
from omegaconf import OmegaConf

from evalkit.cli.run import launcher_parallelism
from evalkit.config.schema import cell_key, validate_config
from evalkit.speech import EspeakTTS, WhisperASR
from evalkit.speech.asr import engine_identity
from evalkit.speech.cores import decoder_threads, process_share, set_process_share, usable_cores
from tests.test_config import composed


@pytest.fixture
def share(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("EVALKIT_PROCESS_SHARE", raising=False)
    return set_process_share


def test_auto_is_the_usable_cores_divided_among_the_processes(share, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evalkit.speech.cores.usable_cores", lambda: 8)
    assert (process_share(), decoder_threads("auto")) == (1, 8)
    share(2)
    assert (process_share(), decoder_threads("auto")) == (2, 4)
    share(3)
    assert decoder_threads("auto") == 2  # 8 // 3: never more threads than cores
    share(16)
    assert decoder_threads("auto") == 1  # at least one
    assert decoder_threads(5) == 5  # a number is taken as given


def test_a_garbled_share_in_the_environment_counts_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALKIT_PROCESS_SHARE", "two")
    assert process_share() == 1


def test_usable_cores_follow_the_affinity_mask() -> None:
    import os

    assert usable_cores() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("launcher", "jobs"),
    [({"n_jobs": 2}, 2), ({"n_jobs": 1}, 1), ({"n_jobs": 0}, 1), ({"_target_": "basic"}, 1), (None, 1)],
)
def test_the_launchers_parallelism(launcher: dict | None, jobs: int) -> None:
    assert launcher_parallelism(None if launcher is None else OmegaConf.create(launcher)) == jobs


def test_negative_n_jobs_read_as_joblib_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evalkit.cli.run.usable_cores", lambda: 8)
    assert launcher_parallelism(OmegaConf.create({"n_jobs": -1})) == 8
    assert launcher_parallelism(OmegaConf.create({"n_jobs": -2})) == 7
    assert launcher_parallelism(OmegaConf.create({"n_jobs": -20})) == 1


def test_the_thread_count_is_part_of_no_key() -> None:
    auto = validate_config(composed())
    assert auto.agent.asr.cpu_threads == "auto"
    assert cell_key(auto) == cell_key(validate_config(composed("agent.asr.cpu_threads=1")))
    assert "cpu_threads" not in engine_identity("bundled:tiny.en", "int8")


def test_a_thread_count_out_of_range_is_a_config_error() -> None:
    from evalkit.config.schema import ConfigError

    with pytest.raises(ConfigError, match="cpu_threads"):
        validate_config(composed("agent.asr.cpu_threads=0"))
    with pytest.raises(ConfigError, match="cpu_threads"):
        validate_config(composed("agent.asr.cpu_threads=many"))


@pytest.mark.slow
def test_one_and_two_threads_hear_the_same() -> None:
    """Why the thread count may stay out of the keys: clean and noisy caller speech with codes and names decodes to
    the same text with 1 and 2 threads (83 clips of the main job measured the same; here 4 kept for speed)."""
    tts = EspeakTTS("en-gb")
    rng = np.random.default_rng(7)
    clips = []
    for text in ("My confirmation code is W K 2 E X B.", "It's Ferreira, F E R R E I R A.",
                 "Can you move me to an earlier flight today?", "The flight number is UA 1 2 3 4."):  # fmt: skip
        audio, rate = tts.synthesize(text)
        noisy = audio + rng.normal(0, 0.3 * float(np.std(audio)), audio.size).astype(np.float32)
        clips += [(audio, rate), (noisy, rate)]
    one, two = WhisperASR(cpu_threads=1), WhisperASR(cpu_threads=2)
    heard = [(one.transcribe(a, r).text, two.transcribe(a, r).text) for a, r in clips]
    assert all(a == b for a, b in heard), heard
    assert any("move me to" in a for a, _ in heard)  # the decoder really ran


class _CountingLoader:
    """Stands in for Hydra's config loader: composing is what is counted (a real compose takes ~0.15-0.35 s)."""

    def __init__(self) -> None:
        self.composed: list[tuple[str, ...]] = []

    def load_sweep_config(self, master, overrides: list[str]):
        self.composed.append(tuple(overrides))
        job = OmegaConf.create({"seed": int(overrides[0].split("=")[1]), "hydra": {"job": {"id": None}}})
        OmegaConf.copy_cache(from_config=master, to_config=job)  # as Hydra's loader does
        return job


def test_a_sweep_composes_each_job_once_and_every_caller_gets_its_own_copy() -> None:
    from evalkit.cli.preflight import memoize_sweep_configs

    loader = _CountingLoader()
    memoize_sweep_configs(loader)
    memoize_sweep_configs(loader)  # idempotent: the callback may run twice in one process (tests, notebooks)
    master = OmegaConf.create({"sweep_dir": "multirun/${evalkit.unique:}"})
    checked = loader.load_sweep_config(master, ["seed=1"])  # the preflight, before the master's folder resolves
    folder = master.sweep_dir  # the launcher resolves the sweep folder on the master (cached: use_cache=True)
    validated, launched = (loader.load_sweep_config(master, ["seed=1"]) for _ in range(2))
    assert loader.composed == [("seed=1",)]
    launched.hydra.job.id = 7  # the launcher writes into its copy ...
    assert validated.hydra.job.id is None and checked.hydra.job.id is None  # ... and nobody else sees it
    # every job carries the master's resolver cache as it is when the job is handed out: one sweep folder for all
    probe = OmegaConf.merge(launched, {"sweep_dir": "multirun/${evalkit.unique:}"})
    assert probe.sweep_dir == folder
    loader.load_sweep_config(master, ["seed=2"])
    assert loader.composed == [("seed=1",), ("seed=2",)]


@pytest.mark.slow
def test_one_ear_hears_a_clip_the_same_from_concurrent_calls() -> None:
    """A served agent's calls share one Whisper model from several threads (evalkit.serve, concurrency=N): the
    short-window decode with its n best gives each of them what a call alone gets (the served cascade's records must
    not depend on how many calls are under way)."""
    from concurrent.futures import ThreadPoolExecutor

    audio, rate = EspeakTTS("en-gb").synthesize("My confirmation code is W K 2 E X B.")
    noisy = audio + np.random.default_rng(3).normal(0, 0.3 * float(np.std(audio)), audio.size).astype(np.float32)
    ear = WhisperASR(cpu_threads=2, short_window=True, cache_dir=None)

    def heard(_: int) -> tuple[str, tuple[str, ...]]:
        transcript = ear.transcribe(noisy, rate, alternatives=5)
        return transcript.text, transcript.alternatives

    alone = heard(0)
    with ThreadPoolExecutor(3) as pool:
        together = set(pool.map(heard, range(3)))
    assert together == {alone} and ear.short_decodes == 4 and alone[0]
