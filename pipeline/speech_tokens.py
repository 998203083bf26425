"""S3 speech tokens (25 Hz, codebook 6561) through the official CosyVoice 2/3 ONNX tokenizer.

The assistant channel of every unit carries ``25 * unit_s`` of these tokens (DESIGN.md section 2);
this module turns audio into them with the exact front end CosyVoice uses, so the ids match what
its flow-matching decoder expects:

- audio at 16 kHz (resampled with soxr when needed);
- Whisper log-mel, 128 bins, n_fft 400, hop 160 (100 frames/s), ``log10(clamp(mel, 1e-10))``,
  floor at ``max - 8``, then ``(x + 4) / 4``, and the last STFT frame dropped, so ``T = n // 160``.
  Computed with transformers' public numpy ``spectrogram`` and ``WhisperFeatureExtractor``'s
  128-bin mel filters, i.e. the extractor's numpy path without its 30 s padding. We do not call the
  extractor itself: in transformers 5.x ``__call__`` switches to a torch STFT whenever torch is
  importable, which differs by ~1e-5 and could flip an argmax between machines.
- the ONNX model takes ``feats`` float32 ``[1, 128, T]`` and ``feats_length`` int ``[1]`` (= T) and
  returns ids ``[1, N]`` with ``N = ceil(T / 4)``. CosyVoice refuses clips over 30 s, so longer
  audio is cut into <= 30 s chunks whose boundaries fall on multiples of 0.04 s (one token).

No Ray import here: the object pickles without its session and rebuilds it lazily in a worker.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.io import sha256_file
from schemas.errors import UsageError
from schemas.protocol import SPEECH_CODEBOOK, SPEECH_TOKENS_PER_SECOND

SAMPLE_RATE = 16_000
HOP = 160                                   # samples per mel frame (100 frames/s)
TOKENS_PER_SECOND = SPEECH_TOKENS_PER_SECOND   # S3 rate and codebook (3^8): schemas/protocol.py
CODEBOOK_SIZE = SPEECH_CODEBOOK
N_MELS = 128
SAMPLES_PER_TOKEN = SAMPLE_RATE // TOKENS_PER_SECOND   # 640 samples = 0.04 s
MAX_CHUNK_S = 30                            # CosyVoice's limit for one tokenizer call
MAX_CHUNK_SAMPLES = MAX_CHUNK_S * SAMPLE_RATE          # 480000, a multiple of 640

_FLOAT_TYPES = {"tensor(float)"}
_INT_TYPES = {"tensor(int32)": np.int32, "tensor(int64)": np.int64}


def num_tokens(num_samples_16k: int) -> int:
    """Token count for ``num_samples_16k`` samples at 16 kHz: ``n / 640`` rounded half up.

    Half up (not Python's banker's ``round``) so the count is monotone and matches the model's own
    ``ceil(T/4)`` at the half-token point; exact integer arithmetic, no float error.
    """
    return (int(num_samples_16k) * TOKENS_PER_SECOND + SAMPLE_RATE // 2) // SAMPLE_RATE


@lru_cache(maxsize=1)
def _mel_filters() -> np.ndarray:
    from transformers import WhisperFeatureExtractor

    return np.asarray(WhisperFeatureExtractor(feature_size=N_MELS).mel_filters, dtype=np.float32)


def log_mel_128(audio_16k: np.ndarray) -> np.ndarray:
    """Whisper 128-bin log-mel ``[128, len // 160]`` (float32), as CosyVoice feeds the tokenizer."""
    from transformers.audio_utils import spectrogram, window_function

    log_spec = spectrogram(
        np.asarray(audio_16k, dtype=np.float32),
        window_function(400, "hann"),
        frame_length=400,
        hop_length=HOP,
        power=2.0,
        mel_filters=_mel_filters(),
        mel_floor=1e-10,
        log_mel="log10",
    )[:, :-1]
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).astype(np.float32)


def _chunk_bounds(n: int) -> list[tuple[int, int]]:
    """Split ``n`` samples into equal-ish chunks of <= 30 s, every cut on a 640-sample boundary.

    Equal sizes (not 30 s + remainder) avoid a tiny last chunk with little context.
    """
    if n <= 0:
        return []
    count = math.ceil(n / MAX_CHUNK_SAMPLES)
    size = math.ceil(math.ceil(n / count) / SAMPLES_PER_TOKEN) * SAMPLES_PER_TOKEN
    return [(s, min(s + size, n)) for s in range(0, n, size)]


class S3SpeechTokenizer:
    """Audio -> S3 speech token ids (int16, 25 Hz) with an official ``speech_tokenizer_v{2,3}.onnx``.

    The session is opened (and its signature checked) at construction so a wrong file fails on the
    driver, not in a worker; it is not pickled, and is reopened on first use after unpickling.
    """

    tokens_per_second: int = TOKENS_PER_SECOND
    codebook_size: int = CODEBOOK_SIZE
    sample_rate: int = SAMPLE_RATE

    def __init__(self, onnx_path: str | Path, threads: int = 1) -> None:
        self.onnx_path = Path(onnx_path)
        self.threads = int(threads)
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        if not self.onnx_path.is_file():
            raise FileNotFoundError(f"S3 speech tokenizer ONNX file not found: {self.onnx_path}")
        self._sha256: str | None = None
        self._session: Any = None
        self._feats_name = self._len_name = ""
        self._len_dtype: type = np.int32
        self._out_name = ""
        self._ensure_session()

    # -- pickling: ship the path, not the session ------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_session"] = None
        return state

    # -- session ---------------------------------------------------------------------------------
    def _ensure_session(self) -> Any:
        if self._session is None:
            import onnxruntime as ort

            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            opts.use_deterministic_compute = True
            opts.log_severity_level = 3
            try:
                sess = ort.InferenceSession(str(self.onnx_path), sess_options=opts,
                                            providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own exception types
                raise ValueError(f"{self.onnx_path}: cannot be loaded as an ONNX model: {exc}") from exc
            self._check_signature(sess)
            self._session = sess
        return self._session

    def _check_signature(self, sess: Any) -> None:
        """Find the feature and length inputs by type and shape, not by position, or fail clearly."""
        ins, outs = sess.get_inputs(), sess.get_outputs()
        feats = [a for a in ins if a.type in _FLOAT_TYPES and len(a.shape) == 3
                 and (a.shape[1] == N_MELS or not isinstance(a.shape[1], int))]  # 128 or symbolic
        lens = [a for a in ins if a.type in _INT_TYPES and len(a.shape) == 1]
        int_outs = [o for o in outs if o.type in _INT_TYPES]
        if len(ins) != 2 or len(feats) != 1 or len(lens) != 1 or not int_outs:
            found_in = ", ".join(f"{a.name}: {a.type} {a.shape}" for a in ins) or "none"
            found_out = ", ".join(f"{o.name}: {o.type} {o.shape}" for o in outs) or "none"
            raise ValueError(
                f"{self.onnx_path}: not an S3 speech tokenizer (speech_tokenizer_v2/v3.onnx). "
                f"Expected 2 inputs, log-mel float32 [B, {N_MELS}, T] and length int32/int64 [B], "
                f"and an integer token output [B, N]; found inputs ({found_in}), outputs ({found_out})."
            )
        self._feats_name, self._len_name = feats[0].name, lens[0].name
        self._len_dtype = _INT_TYPES[lens[0].type]
        self._out_name = int_outs[0].name

    # -- public ----------------------------------------------------------------------------------
    def tokenize(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        """Token ids (int16, in ``[0, 6561)``) for mono ``audio``; exactly ``num_tokens(len_16k)`` of them.

        The model itself returns ``ceil(T/4)`` ids per chunk, which can differ from the target by
        one at a partial last token; the rule is: trim the extra id, or repeat the last id.
        """
        x = np.asarray(audio)
        if x.ndim != 1:
            raise ValueError(f"audio must be mono 1-D, got shape {x.shape}")
        if np.issubdtype(x.dtype, np.integer):
            x = x.astype(np.float32) / float(np.iinfo(x.dtype).max + 1)
        x = x.astype(np.float32, copy=False)
        if sample_rate != SAMPLE_RATE:
            import soxr

            x = soxr.resample(x, int(sample_rate), SAMPLE_RATE, quality="HQ").astype(np.float32)
        pieces = [self._tokenize_chunk(x[s:e]) for s, e in _chunk_bounds(len(x)) if e > s]
        out = np.concatenate(pieces) if pieces else np.zeros(0, np.int16)
        assert len(out) == num_tokens(len(x))
        return out

    def _tokenize_chunk(self, x: np.ndarray) -> np.ndarray:
        want = num_tokens(len(x))
        if want == 0:
            return np.zeros(0, np.int16)
        if len(x) < SAMPLES_PER_TOKEN:  # only a whole input under 0.04 s: give the model 4 frames
            x = np.pad(x, (0, SAMPLES_PER_TOKEN - len(x)))
        feats = log_mel_128(x)[None]  # [1, 128, T]
        sess = self._ensure_session()
        raw = sess.run([self._out_name], {
            self._feats_name: feats,
            self._len_name: np.array([feats.shape[2]], dtype=self._len_dtype),
        })[0]
        ids = np.asarray(raw).reshape(-1)
        if abs(len(ids) - want) > 1:
            raise ValueError(
                f"{self.onnx_path}: model returned {len(ids)} tokens for {feats.shape[2]} mel frames; "
                f"expected ~{want} ({TOKENS_PER_SECOND} Hz, 4x downsampling). Is this a 50 Hz v1 tokenizer?")
        if len(ids) and (ids.min() < 0 or ids.max() >= CODEBOOK_SIZE):
            raise ValueError(f"{self.onnx_path}: token id out of [0, {CODEBOOK_SIZE}): "
                             f"{int(ids.min())}..{int(ids.max())}")
        if len(ids) >= want:
            ids = ids[:want]
        else:
            ids = np.concatenate([ids, np.full(want - len(ids), ids[-1] if len(ids) else 0)])
        return ids.astype(np.int16)

    def identity(self) -> dict[str, Any]:
        """What a manifest records so a dataset names the exact tokenizer that made its tokens."""
        if self._sha256 is None:
            self._sha256 = sha256_file(self.onnx_path)
        return tokenizer_identity(self.onnx_path, self._sha256)


class TokenizerModelError(UsageError, ValueError):
    """The configured tokenizer file is not a usable S3 speech tokenizer; the message names it."""


def check_onnx_model(path: str | Path) -> None:
    """Refuse a file that is not an S3 tokenizer ONNX, before any worker starts.

    Opens the session (a file that is not ONNX fails here), checks the signature (inputs: log-mel
    float32 [B, 128, T] and an integer length; an integer token output), and tokenizes 1 s of
    silence, which must give 25 ids in [0, 6561) (a 50 Hz v1 tokenizer gives 50).
    """
    def first_line(err: BaseException) -> str:
        return next((ln.strip() for ln in str(err).splitlines() if ln.strip()), type(err).__name__)

    try:
        tok = S3SpeechTokenizer(path)
    except FileNotFoundError as err:
        raise TokenizerModelError(str(err)) from None
    except (OSError, ValueError) as err:
        msg = first_line(err)
        raise TokenizerModelError(msg if str(path) in msg else f"{path}: {msg}") from None
    try:
        tok.tokenize(np.zeros(SAMPLE_RATE, dtype=np.float32), SAMPLE_RATE)
    except Exception as err:  # noqa: BLE001 - onnxruntime raises its own types; any failure refuses the file
        msg = first_line(err)
        raise TokenizerModelError(msg if str(path) in msg else
                                  f"{path}: fails on 1 s of silence ({type(err).__name__}: {msg})") from None


def tokenizer_identity(onnx_path: str | Path, sha256: str | None = None) -> dict[str, Any]:
    """Identity of a tokenizer file without opening an ONNX session (the driver only writes manifests)."""
    path = Path(onnx_path)
    m = re.search(r"v(\d+)", path.name)
    return {
        "file": path.name,
        "sha256": sha256 or sha256_file(path),
        "version": f"v{m.group(1)}" if m else "unknown",
        "tokens_per_second": TOKENS_PER_SECOND,
        "codebook_size": CODEBOOK_SIZE,
        "features": "whisper-logmel-128 (16 kHz, hop 160)",
    }
