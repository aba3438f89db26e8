"""Issue 14 point 4 (and the caller's part of 5): ``voice=openai_tts``, the caller speaking through an
OpenAI-compatible speech endpoint (tests/openai_voice_server.py's ``/v1/audio/speech``: eSpeak NG voices by name),
with a speaker per accent x gender x persona from the config and an on-disk audio cache; and a planted key for the
caller's endpoints that never reaches anything a sweep writes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from evalkit.config.schema import ConfigError, RunConfig, cell_key, validate_config
from evalkit.config.variation import jittered_rate
from evalkit.domains.scenarios import load_scenarios
from evalkit.textnorm import wer
from evalkit.wire.openai_http.voice import OpenAITtsVoiceConfig
from tests.openai_voice_server import TTS_MODEL, VoiceAgentServer
from tests.test_config import composed
from tests.test_llm_simulator import _compare_module, run_at
from tests.test_preflight import assert_no_cell_started, evalkit_cli, preflight_refusal

SCENARIO = "AL-002"  # a short airline call the scripted caller and cascade_local complete


def voice_config(tmp_path: Path, server: VoiceAgentServer, *extra: str, store: str = "mlflow.db") -> RunConfig:
    raw = composed(
        *server.voice_overrides(),
        "+experiment=smoke",
        f"domain.scenarios=[{SCENARIO}]",
        "trials=1",
        "progress=false",
        "infra.max_retries=0",
        "validation.enabled=false",
        "metrics=[task_completion,tool_call_validity,user_wer]",
        f"mlflow.tracking_uri=sqlite:///{tmp_path / store}",
        f"voice.cache_dir={tmp_path / 'tts_cache'}",
        "mlflow.log_audio=false",
        *extra,
    )
    return validate_config(raw)


@pytest.mark.slow
def test_the_caller_speaks_through_the_speech_endpoint_and_a_rerun_hits_the_audio_cache(tmp_path: Path, capsys) -> None:
    with VoiceAgentServer() as server:
        first = run_at(tmp_path / "first", voice_config(tmp_path, server, store="first.db"))
        spoken = server.state.stats["speech"].requests
        second = run_at(tmp_path / "second", voice_config(tmp_path, server, store="second.db"))
        assert server.state.stats["speech"].requests == spoken  # the rerun asked the server for no audio
    conversation = first.record["conversation"]
    # the call ran to its end on the endpoint's speech, and the agent heard it as words. Whether it also completes
    # the task hangs on how Whisper tiny.en hears this eSpeak voice (en-us+f3): its "Yep, that's right." is "Yep,
    # next slide." at some of the persona's jittered rates in the 30 s and the short window alike (docs/
    # measurements.md, "Short window on line audio"): a property of that speech pair, not of the endpoint
    assert conversation["error"] is None and conversation["end_reason"] in ("user_end_call", "agent_end_call")
    user_turns = [t for t in conversation["turns"] if t["role"] == "user"]
    said = [t["intended_text"] for t in user_turns]  # the goodbye too
    assert wer(said[0], user_turns[0]["heard_text"]) <= 0.2  # the opening line, heard through the agent's ear
    assert first.record["metrics"]["user_wer"]["score"] <= 0.5  # speech, not noise, over the whole call
    # one request per distinct (line, drawn rate): the persona's rate jitter sends a repeated line at its own speed
    # (a key of its own); the same line at the same rate is the cache's
    assert spoken == len({(t["intended_text"], t["variation"]["rate_wpm"]) for t in user_turns})
    metrics = first.stored.data.metrics
    assert metrics["voice_requests"] == spoken and metrics["voice_cache_hits"] == len(said) - spoken
    assert metrics["voice_http_retries"] == 0.0
    params = first.stored.data.params
    assert params["voice"] == "openai_tts" and params["voice_model"] == TTS_MODEL
    assert params["voice_speakers"] == "female=en-us+f3,male=en-us"
    again = second.stored.data.metrics
    assert again["voice_requests"] == 0.0 and again["voice_cache_hits"] == len(said)
    assert _compare_module().main([first.uri, second.uri]) == 0, (
        capsys.readouterr().out
    )  # the same audio, byte for byte


def test_a_speech_429_is_retried_and_counted(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        server.state.fail_next = {"speech": [429]}
        ran = run_at(tmp_path, voice_config(tmp_path, server, "simulator.max_user_turns=1"))
        statuses = server.state.statuses
    assert statuses[:2] == [("speech", 429), ("speech", 200)]
    assert ran.stored.data.metrics["voice_http_retries"] == 1.0 and ran.record["conversation"]["error"] is None


def test_a_missing_key_env_is_one_preflight_line(tmp_path: Path) -> None:
    [line] = preflight_refusal(tmp_path, "voice=openai_tts", "voice.api_key_env=EVALKIT_TEST_UNSET_TTS_KEY")
    assert "voice.api_key_env" in line and "$EVALKIT_TEST_UNSET_TTS_KEY is not set" in line
    assert "voice=openai_tts" in line
    assert_no_cell_started(tmp_path)


# -- which voice speaks -----------------------------------------------------------------------------------------------


def option(**extra: object) -> OpenAITtsVoiceConfig:
    speakers = [
        {"id": "f", "gender": "female", "voice": "nova"},
        {"id": "m", "gender": "male", "voice": "onyx"},
        {"id": "old_f", "gender": "female", "voice": "sage", "persona": "elderly_slow"},
    ]
    base = {"name": "t", "base_url": "http://127.0.0.1:9/v1", "model": "tts", "api_key_env": None, "cache_dir": None}
    return OpenAITtsVoiceConfig(**(base | {"speakers": speakers} | extra))


def persona(name: str = "default", rate_wpm: int | None = None, pause_ms: int = 0) -> SimpleNamespace:
    return SimpleNamespace(name=name, rate_wpm=rate_wpm, pause_ms=pause_ms)


def test_the_speaker_follows_the_scenario_personas_gender_and_the_behavioural_persona() -> None:
    scenarios = load_scenarios("airline")
    female = next(s for s in scenarios if s.persona.gender == "female")
    male = next(s for s in scenarios if s.persona.gender == "male")
    config = option()
    voice = config.build(persona())
    assert [s.id for s in voice.speakers] == ["f", "m"]
    assert voice.for_scenario(female).speaker.id == "f" and voice.for_scenario(male).speaker.id == "m"
    assert config.nominal_prosody(persona()) == {"f": (165, None), "m": (165, None)}  # a rate to jitter, no pitch
    elderly = config.build(persona("elderly_slow", rate_wpm=115, pause_ms=350))
    assert [s.id for s in elderly.speakers] == ["old_f"]  # the persona's own rows, whatever the gender
    assert config.speed_for(config.speakers[2], persona("elderly_slow", rate_wpm=115)) == round(115 / 165, 3)
    assert config.speed_for(config.speakers[0], persona()) is None


def test_the_personas_rate_jitter_is_a_seeded_speed_per_trial_and_a_rerun_is_identical(tmp_path: Path) -> None:
    """Issue 17's per-trial speaking-rate jitter on a remote voice: each utterance's rate is drawn from the turn's
    rng around the speaker's nominal rate and sent as ``speed`` (a cache key of its own); no pitch is drawn."""
    scenario = load_scenarios("airline")[0]
    line = "My confirmation code is X Y Z one two three."
    with VoiceAgentServer() as server:
        run = validate_config(composed(*server.voice_overrides(), f"voice.cache_dir={tmp_path / 'tts'}"))
        assert run.persona.variation.rate_jitter_pct > 0 and run.persona.variation.pitch_jitter > 0
        voice = run.voice.build(run.persona).for_scenario(scenario)

        def trial(seed: int) -> tuple[np.ndarray, dict[str, float]]:
            audio, _, drawn = voice.vary(line, np.random.default_rng(seed))
            return audio, drawn

        (one, drawn_one), (two, drawn_two) = trial(1), trial(2)
        asked = server.state.stats["speech"].requests
        again, drawn_again = trial(1)
        assert server.state.stats["speech"].requests == asked  # the rerun's speed hit the cache
    nominal = run.voice.nominal_prosody(run.persona)[voice.speaker.id][0]
    low, high = jittered_rate(nominal, run.persona.variation.rate_jitter_pct)
    assert set(drawn_one) == {"rate_wpm"} and low <= drawn_one["rate_wpm"] <= high  # a rate, no pitch
    assert drawn_one != drawn_two and asked == 2 and len(one) != len(two)  # two trials, two speeds, two clips
    assert drawn_again == drawn_one and np.array_equal(again, one)  # the same seed sounds the same


def test_a_remote_voices_rate_jitter_is_checked_against_the_personas_bounds() -> None:
    with pytest.raises(ConfigError, match=r"variation.rate_jitter_pct=6 leaves the persona's bounds.rate_wpm"):
        validate_config(composed("voice=openai_tts", "voice.speed=2.0"), {"persona": "default"})


def test_an_option_needs_a_pool_for_the_default_persona_and_unique_ids() -> None:
    with pytest.raises(ValueError, match="at least one speaker must have no persona"):
        option(speakers=[{"id": "a", "voice": "nova", "persona": "elderly_slow"}])
    with pytest.raises(ValueError, match="speaker ids must be unique"):
        option(speakers=[{"id": "a", "voice": "nova"}, {"id": "a", "voice": "onyx"}])


def _silences(samples: np.ndarray, at_least: float) -> list[int]:
    """Lengths of the runs of exact zeros at least ``at_least`` samples long."""
    padded = np.concatenate([[1.0], samples, [1.0]]) != 0
    edges = np.flatnonzero(np.diff(padded.astype(int)))
    return [int(b - a) for a, b in zip(edges[::2], edges[1::2], strict=True) if b - a >= at_least]


def test_pauses_are_silences_and_empty_text_asks_nothing(tmp_path: Path) -> None:
    with VoiceAgentServer() as server:
        config = option(base_url=server.base_url, model=TTS_MODEL, speakers=[{"id": "a", "voice": "en-us"}])
        plain = config.build(persona())
        paused = config.build(persona("forgetful_disorganized", pause_ms=500))
        one, rate = plain("Um... let me see... yes.")
        two, _ = paused("Um... let me see... yes.")
        silence, _ = plain("  ")
        requests = server.state.stats["speech"].requests
    assert len(_silences(two, rate * 0.5)) == 2 and not _silences(one, rate * 0.5)  # a 500 ms pause at each "..."
    assert requests == 4 and not silence.any()  # the whole line, then its three pieces; no request for no words
    assert np.isfinite(one).all() and abs(one).max() > 0.1


def test_a_cached_remote_voice_adds_no_randomness_and_an_uncached_one_does() -> None:
    quiet = ("persona.variation.enabled=false", "trials=3", "voice=openai_tts")
    assert validate_config(composed(*quiet)).random_sources() == []
    uncached = validate_config(composed(*quiet, "voice.cache_dir=null"))
    assert uncached.trials_to_run == 3 and uncached.random_sources()[0].startswith("voice: remote speech")


def test_the_cell_key_holds_model_and_speakers_but_not_plumbing() -> None:
    base = cell_key(validate_config(composed("voice=openai_tts")))
    plumbing = ("voice.retry.max_retries=9", "voice.timeout_s=5", "voice.cache_dir=/elsewhere", "voice.api_key_env=X")
    assert cell_key(validate_config(composed("voice=openai_tts", *plumbing))) == base
    for changed in ("voice.model=tts-1", "voice.speakers=[{id: a, voice: alloy}]", "voice.speed=1.1"):
        assert cell_key(validate_config(composed("voice=openai_tts", changed))) != base, changed


# -- secrets ----------------------------------------------------------------------------------------------------------

PLANTED = "sk-planted-Caller-Key-19f2ab"


@pytest.mark.slow
def test_a_planted_caller_key_is_sent_but_never_written_anywhere_by_a_sweep(tmp_path: Path) -> None:
    """``simulator=llm`` and ``voice=openai_tts`` keyed by one variable: every request carries it; the sweep's
    folders, ``.hydra/``, the MLflow store and artifacts, and both caches hold no trace of it."""
    with VoiceAgentServer(api_key=PLANTED) as server:
        proc = evalkit_cli(
            tmp_path,
            *server.simulator_overrides(key_env="EVALKIT_TEST_CALLER_KEY"),
            *server.voice_overrides(key_env="EVALKIT_TEST_CALLER_KEY"),
            "+experiment=smoke",
            f"domain.scenarios=[{SCENARIO}]",
            "trials=1",
            "simulator.max_user_turns=3",
            "validation.enabled=false",
            "metrics=[task_completion,tool_call_validity]",
            "-m",
            env={"EVALKIT_TEST_CALLER_KEY": PLANTED},
        )
        seen = set(server.state.authorization)
        routes = {route for route, _ in server.state.statuses}
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert seen == {f"Bearer {PLANTED}"} and routes == {"chat", "speech"}  # every request carried the key
    assert PLANTED not in proc.stdout + proc.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "mlflow.db" for p in written) and any(".hydra" in p.parts for p in written)
    assert any("records" in p.parts for p in written) and any(".evalkit_cache" in p.parts for p in written)
    for path in written:
        assert PLANTED.encode() not in path.read_bytes(), path


# -- the clean twin of a remote accent ---------------------------------------------------------------------------------


def test_a_remote_accents_clean_twin_is_the_same_engines_neutral_voice_not_espeak() -> None:
    """conf/voice/openai_tts_accent_french.yaml: an accent condition whose twin is voice=openai_tts with the cell's
    engine overrides, by the sweeper's override rule, by ``twin_config`` (the same cell key) and by the analysis."""
    from evalkit.cli.sweeper import is_perturbed, twin_overrides
    from evalkit.config import axes
    from evalkit.config.schema import twin_config

    url, accent_option = "voice.base_url=http://127.0.0.1:5/v1", "openai_tts_accent_french"
    job = [f"voice={accent_option}", url, "voice.speakers=[{id: a, voice: alloy}]", "seed=3"]
    assert is_perturbed(job) and twin_overrides(job) == ["voice=openai_tts", url, "seed=3"]
    assert twin_overrides(["voice=accent_french", "voice.rate_wpm=150"]) == ["voice=neutral"]  # eSpeak: unchanged
    accented = validate_config(composed(*job[:2]))
    assert accented.voice.accent == "french" and accented.voice.speakers[0].instructions
    twin = twin_config(accented)
    assert (twin.voice.kind, twin.voice.name, twin.voice.accent) == ("openai_tts", "openai_tts", "none")
    assert twin.voice.base_url == "http://127.0.0.1:5/v1" and not any(s.instructions for s in twin.voice.speakers[:2])
    assert cell_key(twin) == cell_key(validate_config(composed("voice=openai_tts", url)))  # the job scheduled
    assert twin_config(twin) == twin  # the neutral remote voice is clean
    assert axes.clean_signature({"voice": "openai_tts_accent_french"})["voice"] == "openai_tts"
    assert axes.twin_choices({"voice": "openai_tts_accent_french"}) == {"voice": "openai_tts"}
    assert not axes.axis("voice").is_perturbed("openai_tts")
    conf = Path(__file__).resolve().parents[1] / "conf" / "voice"
    engine, accent = (yaml.safe_load((conf / f"{n}.yaml").read_text()) for n in ("openai_tts", accent_option))
    assert {k for k in engine if engine[k] != accent[k]} == set(axes.ACCENT_KEYS)  # so both twin rules agree
