"""Tests for evalkit.speech with the real engines (eSpeak NG + bundled Whisper tiny.en), no mocks."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.speech import EspeakTTS, Transcript, WhisperASR, normalize_for_wer, wer
from evalkit.speech.asr import load_whisper_model, resample_to_16k
from evalkit.speech.tts import available_voices
from tests.conftest import REPO

SENTENCE = "I would like to change my flight to Boston please"
CODE_SENTENCE = "My confirmation code is W K 2 E X B"


def _duration(audio: np.ndarray, sample_rate: int) -> float:
    return audio.size / sample_rate


def _mix_white_noise(audio: np.ndarray, snr_db: float, seed: int) -> np.ndarray:
    """Add white noise at ``snr_db`` relative to the speech power (fixed seed for reproducibility)."""
    noise = np.random.default_rng(seed).standard_normal(audio.size).astype(np.float32)
    gain = np.sqrt(np.mean(audio**2) / (np.mean(noise**2) * 10 ** (snr_db / 10)))
    return (audio + gain * noise).astype(np.float32)


@pytest.fixture(scope="module")
def tts() -> EspeakTTS:
    return EspeakTTS("en-us")


@pytest.fixture(scope="module")
def asr() -> WhisperASR:
    return WhisperASR()


@pytest.fixture(scope="module")
def sentence_audio(tts: EspeakTTS) -> tuple[np.ndarray, int]:
    return tts.synthesize(SENTENCE)


@pytest.fixture(scope="module")
def clean_transcript(asr: WhisperASR, sentence_audio: tuple[np.ndarray, int]) -> Transcript:
    return asr.transcribe(*sentence_audio)


# --- TTS -----------------------------------------------------------------------------------------


def test_tts_produces_non_silent_float32_at_22050(sentence_audio: tuple[np.ndarray, int]) -> None:
    audio, sr = sentence_audio
    assert sr == 22050
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert 1.0 < _duration(audio, sr) < 6.0
    assert np.abs(audio).max() <= 1.0
    assert np.sqrt(np.mean(audio**2)) > 0.01


def test_tts_duration_scales_with_text_length(tts: EspeakTTS) -> None:
    short, sr = tts.synthesize("Hello.")
    long, _ = tts.synthesize("Hello. " + SENTENCE + ". " + SENTENCE)
    assert _duration(long, sr) > 3 * _duration(short, sr)


def test_tts_voices_differ(tts: EspeakTTS) -> None:
    english, sr = tts.synthesize(SENTENCE)
    french, sr_fr = EspeakTTS("fr").synthesize(SENTENCE)
    assert sr_fr == sr
    assert abs(english.size - french.size) > 0.05 * english.size  # French reads it very differently


def test_tts_rate_changes_duration() -> None:
    slow, sr = EspeakTTS(rate_wpm=120).synthesize(SENTENCE)
    fast, _ = EspeakTTS(rate_wpm=300).synthesize(SENTENCE)
    assert _duration(slow, sr) > 1.6 * _duration(fast, sr)


def test_tts_word_gap_lengthens_audio() -> None:
    plain, _ = EspeakTTS(word_gap_ms=0).synthesize(SENTENCE)
    gapped, _ = EspeakTTS(word_gap_ms=100).synthesize(SENTENCE)
    assert gapped.size > plain.size + 0.5 * 22050  # 9 gaps x 100 ms


def test_tts_instances_keep_their_own_settings() -> None:
    """The engine is process-global; interleaved instances must not leak voice/rate into each other."""
    fast, slow = EspeakTTS(rate_wpm=300), EspeakTTS(rate_wpm=120)
    alone = fast.synthesize(SENTENCE)[0].size
    slow.synthesize(SENTENCE)
    after = fast.synthesize(SENTENCE)[0].size
    assert abs(after - alone) < 0.05 * alone


def test_tts_threads_do_not_crash(tts: EspeakTTS) -> None:
    sizes: list[int] = []
    threads = [threading.Thread(target=lambda: sizes.append(tts.synthesize("Thread test")[0].size)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(sizes) == 4 and min(sizes) > 0


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_tts_empty_text_is_short_silence(tts: EspeakTTS, text: str) -> None:
    audio, sr = tts.synthesize(text)
    assert audio.dtype == np.float32
    assert 0 < audio.size <= sr and not audio.any()


def test_tts_handles_non_ascii(tts: EspeakTTS) -> None:
    audio, _ = tts.synthesize("Café crème à Zürich — 10 € ✈")
    assert audio.size > 0


def test_tts_unknown_voice_raises() -> None:
    with pytest.raises(ValueError, match="no-such-voice"):
        EspeakTTS("no-such-voice")


def test_available_voices_lists_english_and_french() -> None:
    voices = available_voices()
    assert {"en-us", "en-gb", "fr-fr"} <= set(voices)
    EspeakTTS("en-gb")  # a language code that espeak_SetVoiceByName alone does not accept


# --- ASR -----------------------------------------------------------------------------------------


def test_asr_round_trip_clean(clean_transcript: Transcript, sentence_audio: tuple[np.ndarray, int]) -> None:
    assert wer(SENTENCE, clean_transcript.text) < 0.5, clean_transcript.text
    assert clean_transcript.audio_s == pytest.approx(_duration(*sentence_audio))
    assert 0 < clean_transcript.compute_s < 10


def test_asr_spelled_code_returns_text(asr: WhisperASR, tts: EspeakTTS) -> None:
    transcript = asr.transcribe(*tts.synthesize(CODE_SENTENCE))
    assert transcript.text.strip()


def test_asr_noise_raises_wer(
    asr: WhisperASR, sentence_audio: tuple[np.ndarray, int], clean_transcript: Transcript
) -> None:
    audio, sr = sentence_audio
    noisy = asr.transcribe(_mix_white_noise(audio, snr_db=-5.0, seed=1234), sr)
    assert wer(SENTENCE, noisy.text) > wer(SENTENCE, clean_transcript.text), noisy.text
    assert noisy.compute_s < 3 * clean_transcript.compute_s + 1.0  # bounded decoding: no fallback blow-up


@pytest.mark.parametrize("n_samples", [0, 1, 1000])
def test_asr_very_short_audio_is_empty(asr: WhisperASR, n_samples: int) -> None:
    transcript = asr.transcribe(np.zeros(n_samples, dtype=np.float32), 22050)
    assert transcript == Transcript(text="", compute_s=transcript.compute_s, audio_s=n_samples / 22050)


def test_asr_model_is_cached(asr: WhisperASR) -> None:
    assert load_whisper_model("bundled:tiny.en", "int8", 2) is load_whisper_model("bundled:tiny.en", "int8", 2)


def test_asr_missing_model_folder_raises(tmp_path) -> None:
    missing = tmp_path / "no-model-here"
    with pytest.raises(FileNotFoundError, match="no-model-here") as err:
        WhisperASR(model=str(missing))
    assert "bundled:tiny.en" in str(err.value)


def test_resample_to_16k_keeps_duration() -> None:
    audio = np.sin(np.linspace(0, 2000, 22050)).astype(np.float32)
    out = resample_to_16k(audio, 22050)
    assert out.dtype == np.float32 and out.size == 16000


# --- text normalization ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # spelled codes: all forms agree
        ("W K 2 E X B", "w k 2 e x b"),
        ("WK2EXB", "w k 2 e x b"),
        ("w-k-2-e-x-b", "w k 2 e x b"),
        ("W.K.2.E.X.B.", "w k 2 e x b"),
        ("double u k two e x b", "w k 2 e x b"),
        ("Double-U K 2 E X B", "w k 2 e x b"),
        ("double five", "5 5"),
        ("flight two oh five", "flight 2 0 5"),
        ("Oh, two bags please", "oh 2 bags please"),
        # numbers: every number is a run of single digits
        ("twenty five", "2 5"),
        ("twenty-five", "2 5"),
        ("25", "2 5"),
        ("one two three four", "1 2 3 4"),
        ("1,234", "1 2 3 4"),
        ("one hundred and five", "1 0 5"),
        ("zero", "0"),
        ("March 3rd", "march 3 th"),
        ("march third", "march 3 th"),
        ("2.5", "2 point 5"),
        ("50%", "5 0 percent"),
        # money
        ("$75", "7 5 dollars"),
        ("75 dollars", "7 5 dollars"),
        ("seventy five dollars", "7 5 dollars"),
        ("$7.50", "7 dollars 5 0 cents"),
        ("seven dollars and fifty cents", "7 dollars 5 0 cents"),
        ("one dollar", "1 dollars"),
        # times
        ("1:00 PM", "1 pm"),
        ("one PM", "1 pm"),
        ("1 p.m.", "1 pm"),
        ("1pm", "1 pm"),
        ("one o'clock p.m.", "1 pm"),
        ("1:30", "1 3 0"),
        ("one thirty", "1 3 0"),
        # punctuation, case, apostrophes, whitespace
        ("Hello,   World!", "hello world"),
        ("I don't KNOW.", "i don't know"),
        ("'quoted' text", "quoted text"),
        ("It’s fine", "it's fine"),
        ("rock & roll", "rock and roll"),
        ("", ""),
        (" ... ", ""),
    ],
)
def test_normalize_for_wer(text: str, expected: str) -> None:
    assert normalize_for_wer(text) == expected


_VOCAB = [
    "one",
    "two",
    "twenty",
    "five",
    "hundred",
    "and",
    "oh",
    "double",
    "u",
    "$75",
    "1:00",
    "pm",
    "3rd",
    "third",
    "w",
    "k",
    "2",
    "WK2EXB",
    "dollars",
    "$7.50",
    "50%",
    "I'm",
    "-",
    ",",
    "zero",
    "thousand",
    "first",
    "triple",
    "a",
    "o'clock",
    "2.5",
    "1,200",
    "Boston",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_VOCAB), max_size=10), st.sampled_from([" ", "", "-"]))
def test_normalize_is_idempotent(words: list[str], sep: str) -> None:
    once = normalize_for_wer(sep.join(words))
    assert normalize_for_wer(once) == once
    assert once == once.strip() and "  " not in once


def test_wer_uses_normalized_text() -> None:
    assert wer("My code is WK2EXB.", "my code is w k two e x b") == 0.0
    assert wer("Change my flight to Boston", "change my flight to Austin") == pytest.approx(0.2)


def test_wer_empty_reference() -> None:
    assert wer("", "") == 0.0
    assert wer("  ...", "") == 0.0
    assert wer("", "hello") == 1.0
    assert wer("hello there", "") == 1.0


def test_espeak_is_a_speech_source_for_out_of_turn_speech() -> None:
    import evalkit.speech  # noqa: F401  (registers the "espeak" source)
    from perturbations import Chain, available_speech_sources

    assert "espeak" in available_speech_sources()
    speech = np.zeros(16000 * 20, dtype=np.float32)
    speech[::400] = 0.5  # sparse clicks: long pauses where a remark fits
    chain = Chain.from_specs(
        [{"op": "out_of_turn_speech", "source": "espeak", "tic_rate_per_min": 0, "remark_rate_per_min": 30}]
    )
    out, applied = chain(speech, 16000, np.random.default_rng(3))
    inserts = [e for e in applied if e["type"] == "out_of_turn_speech"]
    assert inserts, applied
    for entry in inserts:
        start, end = (round(entry[k] / 1000 * 16000) for k in ("start_ms", "end_ms"))
        assert np.abs(out[start:end] - speech[start:end]).max() > 1e-3  # real audio landed in the reported span


STEADY_SCRIPT = """
import hashlib, sys
from evalkit.speech.tts import EspeakTTS
EspeakTTS("es", 150).synthesize("Buenos dias, quisiera cambiar mi vuelo por favor.")
audio, _ = EspeakTTS(sys.argv[1], 165).synthesize("My confirmation code is W K 2 E X B.")
print(hashlib.sha256(audio.tobytes()).hexdigest())
"""


@pytest.mark.parametrize("voice", ["en-us", "en-us+f3", "hi+m3"])
def test_tts_output_does_not_depend_on_what_was_said_before(voice: str) -> None:
    tts = EspeakTTS(voice, 165)
    first = tts.synthesize("My confirmation code is W K 2 E X B.")[0]
    EspeakTTS("fr+f3", 150).synthesize("Bonjour, je voudrais changer mon vol, s'il vous plait.")
    again = tts.synthesize("My confirmation code is W K 2 E X B.")[0]
    assert np.array_equal(first, again)  # same process, different history
    other = subprocess.run(
        [sys.executable, "-c", STEADY_SCRIPT, voice], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert other.stdout.strip() == hashlib.sha256(first.tobytes()).hexdigest()  # another process, another history
