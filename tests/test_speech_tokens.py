"""S3 speech tokens through the real onnxruntime path, with a tiny random-weight model."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto  # noqa: E402

from pipeline.speech_tokens import (  # noqa: E402
    CODEBOOK_SIZE,
    S3SpeechTokenizer,
    _chunk_bounds,
    log_mel_128,
    num_tokens,
)
from tests.onnx_fixtures import build_tiny_s3_onnx, build_wrong_signature_onnx  # noqa: E402

SR = 16_000


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_s3_onnx(tmp_path_factory.mktemp("s3") / "speech_tokenizer_v2.onnx")


@pytest.fixture(scope="module")
def tok(model_path: Path) -> S3SpeechTokenizer:
    return S3SpeechTokenizer(model_path)


def speechy(seconds: float, seed: int = 0, sr: int = SR, noise: float = 0.3) -> np.ndarray:
    """A gliding tone plus noise under a slow random envelope: varied frames, like speech.

    With ``noise=0`` it is a pure function of time, so renderings at two rates are the same signal.
    """
    rng = np.random.default_rng(seed)
    n = int(round(seconds * sr))
    t = np.arange(n) / sr
    env = np.interp(t, np.linspace(0, seconds, max(2, int(seconds * 8))),
                    rng.uniform(0.0, 1.0, max(2, int(seconds * 8))))
    f0 = 120 + 80 * np.sin(2 * np.pi * 0.7 * t + rng.uniform(0, 6))
    tone = np.sin(2 * np.pi * np.cumsum(f0) / sr)
    return (0.3 * env * (tone + noise * rng.standard_normal(n))).astype(np.float32)


@pytest.mark.parametrize("seconds,expected", [(1.0, 25), (2.5, 63), (37.0, 925)])
def test_token_count_is_25_per_second(tok: S3SpeechTokenizer, seconds: float, expected: int) -> None:
    ids = tok.tokenize(speechy(seconds), SR)
    assert len(ids) == expected == num_tokens(int(seconds * SR))
    assert ids.dtype == np.int16
    assert ids.min() >= 0 and ids.max() < CODEBOOK_SIZE


def test_count_rule_half_up_and_odd_lengths(tok: S3SpeechTokenizer) -> None:
    assert [num_tokens(n) for n in (0, 319, 320, 639, 640, 960, 16000)] == [0, 0, 1, 1, 1, 2, 25]
    for n in (0, 100, 319, 320, 500, 641, 12345, 480_001):
        assert len(tok.tokenize(speechy(n / SR, seed=n), SR)) == num_tokens(n)


def test_long_audio_is_chunked_on_token_boundaries(tok: S3SpeechTokenizer) -> None:
    bounds = _chunk_bounds(37 * SR)
    assert len(bounds) == 2 and bounds[0][0] == 0 and bounds[-1][1] == 37 * SR
    assert all(e - s <= 30 * SR for s, e in bounds)
    assert all(s % 640 == 0 for s, _ in bounds)
    # A chunk is tokenized on its own: its ids equal those of that slice tokenized alone.
    x = speechy(37.0, seed=3)
    ids = tok.tokenize(x, SR)
    cut = bounds[1][0]
    assert np.array_equal(ids[cut // 640:], tok.tokenize(x[cut:], SR))


def test_deterministic_and_audio_dependent(model_path: Path, tok: S3SpeechTokenizer) -> None:
    a, b = speechy(3.0, seed=1), speechy(3.0, seed=2)
    ids_a = tok.tokenize(a, SR)
    assert np.array_equal(ids_a, tok.tokenize(a, SR))
    assert np.array_equal(ids_a, S3SpeechTokenizer(model_path, threads=4).tokenize(a, SR))
    ids_b = tok.tokenize(b, SR)
    assert (ids_a != ids_b).mean() > 0.5
    assert len(np.unique(ids_a)) > 5  # the tiny model is not collapsed onto one code


def test_wrong_signature_names_the_file(tmp_path: Path) -> None:
    bad = build_wrong_signature_onnx(tmp_path / "campplus.onnx")
    with pytest.raises(ValueError, match=r"campplus\.onnx.*not an S3 speech tokenizer.*\[B, 128, T\]"):
        S3SpeechTokenizer(bad)
    junk = tmp_path / "garbage.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="garbage.onnx"):
        S3SpeechTokenizer(junk)
    with pytest.raises(FileNotFoundError, match="missing.onnx"):
        S3SpeechTokenizer(tmp_path / "missing.onnx")


def test_int64_length_input_is_accepted(tmp_path: Path) -> None:
    p = build_tiny_s3_onnx(tmp_path / "speech_tokenizer_v3.onnx", length_dtype=TensorProto.INT64)
    assert len(S3SpeechTokenizer(p).tokenize(speechy(1.0), SR)) == 25


def test_pickle_round_trip(tok: S3SpeechTokenizer) -> None:
    x = speechy(2.0, seed=5)
    expected = tok.tokenize(x, SR)
    blob = pickle.dumps(tok)
    assert len(blob) < 10_000  # the session is not shipped, only the path
    clone = pickle.loads(blob)
    assert clone._session is None
    assert np.array_equal(clone.tokenize(x, SR), expected)


def test_24k_input_is_resampled(tok: S3SpeechTokenizer) -> None:
    x16 = speechy(2.0, seed=7, sr=16_000, noise=0.0)
    x24 = speechy(2.0, seed=7, sr=24_000, noise=0.0)  # the same signal, rendered at 24 kHz
    ids24 = tok.tokenize(x24, 24_000)
    assert len(ids24) == 50 and ids24.dtype == np.int16
    # Mostly the same codes as the native 16 kHz rendering (resampling error only) ...
    same = (ids24 == tok.tokenize(x16, SR)).mean()
    other = (ids24 == tok.tokenize(speechy(2.0, seed=8, noise=0.0), SR)).mean()
    assert same > 0.6 and same > other + 0.4
    # ... and not simply read as 16 kHz samples (that would give 75 tokens).
    assert len(tok.tokenize(x24, SR)) == 75


def test_int16_pcm_is_scaled(tok: S3SpeechTokenizer) -> None:
    x = speechy(1.0, seed=9)
    pcm = np.round(x * 32768).clip(-32768, 32767).astype(np.int16)
    assert (tok.tokenize(pcm, SR) == tok.tokenize(x, SR)).mean() > 0.9


def test_features_match_transformers_whisper_extractor() -> None:
    from transformers import WhisperFeatureExtractor

    x = speechy(2.3, seed=11)
    ours = log_mel_128(x)
    ref = WhisperFeatureExtractor(feature_size=128)(
        x, sampling_rate=SR, padding="do_not_pad", truncation=False, return_tensors="np"
    ).input_features[0]
    assert ours.shape == ref.shape == (128, len(x) // 160)
    assert np.abs(ours - ref).max() < 1e-4


def test_identity(tok: S3SpeechTokenizer, model_path: Path) -> None:
    ident = tok.identity()
    assert ident["file"] == "speech_tokenizer_v2.onnx"
    assert ident["version"] == "v2"
    assert ident["sha256"] == hashlib.sha256(model_path.read_bytes()).hexdigest()
    assert ident["tokens_per_second"] == 25 and ident["codebook_size"] == 6561


def test_rejects_multichannel(tok: S3SpeechTokenizer) -> None:
    with pytest.raises(ValueError, match="mono"):
        tok.tokenize(np.zeros((2, 16000), np.float32), SR)
