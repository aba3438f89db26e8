"""G.711 in numpy (``perturbations.g711``) is bit-exact with the ITU-T reference (G.191 STL ``g711.c``).

The reference below is a sample-by-sample transcription of the STL's four loops (16-bit ``short`` arithmetic: ``~``
is the one's complement, ``>>`` an arithmetic shift, as in C on two's-complement machines); the vectorised code is
checked against it on every 16-bit input and every 8-bit code, and the codec op's G.711 path against both.
"""

from __future__ import annotations

import numpy as np
import pytest

from perturbations import Chain, g711
from perturbations.ops.codec import codec_roundtrip

ALL_PCM = np.arange(-32768, 32768, dtype=np.int32)
ALL_CODES = np.arange(256, dtype=np.int32)


def ref_alaw_compress(x: int) -> int:
    ix = (~x) >> 4 if x < 0 else x >> 4
    if ix > 15:
        iexp = 1
        while ix > 16 + 15:
            ix >>= 1
            iexp += 1
        ix -= 16
        ix += iexp << 4
    if x >= 0:
        ix |= 0x0080
    return ix ^ 0x0055


def ref_alaw_expand(code: int) -> int:
    ix = (code ^ 0x0055) & 0x007F
    iexp = ix >> 4
    mant = ix & 0x000F
    if iexp > 0:
        mant = mant + 16
    mant = (mant << 4) + 0x0008
    if iexp > 1:
        mant = mant << (iexp - 1)
    return mant if code > 127 else -mant


def ref_ulaw_compress(x: int) -> int:
    absno = ((~x) >> 2) + 33 if x < 0 else (x >> 2) + 33
    absno = min(absno, 0x1FFF)
    i = absno >> 6
    segno = 1
    while i != 0:
        segno += 1
        i >>= 1
    high_nibble = 0x0008 - segno
    low_nibble = 0x000F - ((absno >> segno) & 0x000F)
    code = (high_nibble << 4) | low_nibble
    if x >= 0:
        code |= 0x0080
    return code


def ref_ulaw_expand(code: int) -> int:
    sign = -1 if code < 0x0080 else 1
    mantissa = ~code
    exponent = (mantissa >> 4) & 0x0007
    segment = exponent + 1
    mantissa &= 0x000F
    step = 4 << segment
    return sign * ((0x0080 << exponent) + step * mantissa + step // 2 - 4 * 33)


@pytest.mark.parametrize(
    ("compress", "reference"), [(g711.ulaw_compress, ref_ulaw_compress), (g711.alaw_compress, ref_alaw_compress)]
)
def test_compress_matches_the_reference_on_every_16_bit_value(compress, reference) -> None:
    expected = np.array([reference(int(x)) for x in ALL_PCM], dtype=np.int32)
    assert expected.min() >= 0 and expected.max() <= 255
    got = compress(ALL_PCM)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got.astype(np.int32), expected)


@pytest.mark.parametrize(
    ("expand", "reference"), [(g711.ulaw_expand, ref_ulaw_expand), (g711.alaw_expand, ref_alaw_expand)]
)
def test_expand_matches_the_reference_on_every_code(expand, reference) -> None:
    expected = np.array([reference(int(c)) for c in ALL_CODES], dtype=np.int32)
    got = expand(ALL_CODES)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got.astype(np.int32), expected)


def test_known_codes() -> None:
    """Code words of G.711's tables: zero, the smallest negative value and the two ends of the range."""
    pcm = np.array([0, -1, 32767, -32768])
    assert g711.ulaw_compress(pcm).tolist() == [0xFF, 0x7F, 0x80, 0x00]
    assert g711.alaw_compress(pcm).tolist() == [0xD5, 0x55, 0xAA, 0x2A]
    assert g711.ulaw_expand(np.array([0x80, 0x00, 0xFF, 0x7F])).tolist() == [32124, -32124, 0, 0]
    assert g711.alaw_expand(np.array([0xAA, 0x2A, 0xD5, 0x55])).tolist() == [32256, -32256, 8, -8]


@pytest.mark.parametrize("law", ["mulaw", "alaw"])
def test_roundtrip_table_is_expand_of_compress(law: str) -> None:
    compress, expand = (ref_ulaw_compress, ref_ulaw_expand) if law == "mulaw" else (ref_alaw_compress, ref_alaw_expand)
    expected = np.array([expand(compress(int(x))) for x in ALL_PCM], dtype=np.float64) / 32768.0
    np.testing.assert_array_equal(g711.roundtrip_table(law).astype(np.float64), expected)
    # the float path: every 16-bit value, given as a float, lands on its own table entry
    np.testing.assert_array_equal(g711.roundtrip((ALL_PCM / 32768.0).astype(np.float32), law), expected)
    codes = g711.encode((ALL_PCM / 32768.0).astype(np.float32), law)
    np.testing.assert_array_equal(g711.decode(codes, law).astype(np.float64), expected)


def test_float_to_pcm_rounds_and_clips() -> None:
    x = np.array([0.0, 0.4 / 32768, 0.6 / 32768, -0.6 / 32768, 1.0, 1.5, -1.0, -2.0], dtype=np.float32)
    assert g711.to_pcm16(x).tolist() == [0, 0, 1, -1, 32767, 32767, -32768, -32768]


@pytest.mark.parametrize(("codec", "law"), [("g711_mulaw", "mulaw"), ("g711_alaw", "alaw")])
def test_codec_op_at_8khz_is_the_law_itself(codec: str, law: str) -> None:
    """At the codec's own rate nothing is resampled: the op's output is the G.711 round trip, sample for sample,
    with no delay and no peak limiting needed (the law's largest value is below full scale)."""
    x = (0.5 * np.sin(np.arange(8000) * 0.37)).astype(np.float32)
    out, params = codec_roundtrip(x, 8000, codec, 64.0)
    np.testing.assert_array_equal(out, g711.roundtrip(x, law))
    assert params["backend"] == "numpy" and params["delay_compensated_samples"] == 0
    assert params["codec_sample_rate"] == 8000 and not params["limited"]
    chained, entries = Chain.from_specs([{"op": "codec", "codec": codec}])(x, 8000, np.random.default_rng(0))
    np.testing.assert_array_equal(chained, out)
    assert entries[0]["params"]["backend"] == "numpy"


@pytest.mark.parametrize(("codec", "law"), [("g711_mulaw", "mulaw"), ("g711_alaw", "alaw")])
def test_g711_op_stays_close_to_libsndfile(codec: str, law: str) -> None:
    """The previous backend (libsndfile's WAV ULAW/ALAW) differs only by its float scaling (x 32767 in, / 32768
    out) and, for μ-law, Sun's rounding of negative values: a few samples land on the adjacent G.711 level."""
    import io

    import soundfile as sf

    rng = np.random.default_rng(3)
    x = (0.3 * rng.standard_normal(8000)).clip(-1, 1).astype(np.float32)
    buffer = io.BytesIO()
    sf.write(buffer, x, 8000, format="WAV", subtype="ULAW" if codec == "g711_mulaw" else "ALAW")
    buffer.seek(0)
    theirs, _ = sf.read(buffer, dtype="float32")
    ours, _ = codec_roundtrip(x, 8000, codec, 64.0)
    levels = np.unique(g711.roundtrip_table(law))
    rank_ours, rank_theirs = np.searchsorted(levels, ours), np.searchsorted(levels, theirs)
    assert np.array_equal(levels[rank_ours], ours) and np.array_equal(levels[rank_theirs], theirs)
    assert np.abs(rank_ours - rank_theirs).max() == 1  # adjacent levels at most
    assert (rank_ours != rank_theirs).mean() < 0.1


@pytest.mark.parametrize("rate", [16000, 22050])
def test_at_clip_rate_compands_without_resampling(rate: int) -> None:
    """``at_clip_rate``: EVA-Bench's μ-law on the clip as it is: the law sample for sample at the clip's rate."""
    x = (0.4 * np.sin(np.arange(rate) * 0.05)).astype(np.float32)
    chain = Chain.from_specs([{"op": "codec", "codec": "g711_alaw", "at_clip_rate": True}])
    out, entries = chain(x, rate, np.random.default_rng(0))
    np.testing.assert_array_equal(out, g711.roundtrip(x, "alaw"))
    params = entries[0]["params"]
    assert params["codec_sample_rate"] == rate and params["at_clip_rate"] is True
    assert params["bitrate_kbps"] == 8 * rate / 1000
    assert chain.to_specs()[0]["at_clip_rate"] is True
    # off (the default): the spec is what it was before the field existed, so configs keep their cell keys
    assert "at_clip_rate" not in Chain.from_specs([{"op": "codec", "codec": "g711_alaw"}]).to_specs()[0]


def test_at_clip_rate_is_for_g711_only() -> None:
    from perturbations import PerturbationError

    with pytest.raises(PerturbationError, match=r"at_clip_rate applies to the G\.711 codecs only"):
        Chain.from_specs([{"op": "codec", "codec": "mp3", "at_clip_rate": True}])


def test_in_range_skips_only_a_clip_that_changes_nothing() -> None:
    """The codec op passes in_range when the clip's min/max lie in [-1, IN_RANGE_MAX): same PCM as with the clip."""
    top = np.float32(g711.IN_RANGE_MAX)
    edge = np.nextafter(top, np.float32(0)) if top >= g711.IN_RANGE_MAX else top
    grid = (np.arange(-32768, 32767) / 32768.0).astype(np.float32)
    x = np.concatenate([grid, grid + np.float32(0.5 / 32768), [np.float32(-1.0), edge]]).astype(np.float32)
    x = x[(x >= -1.0) & (x < g711.IN_RANGE_MAX)]
    np.testing.assert_array_equal(g711.to_pcm16(x, in_range=True), g711.to_pcm16(x))
    assert g711.to_pcm16(x, in_range=True).max() == 32767
