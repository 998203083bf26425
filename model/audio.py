"""User-audio front end for the trainer: FLAC in, Whisper log-mel per unit out.

Whisper-medium takes 80-bin log-mel at 100 frames/s (n_fft 400, hop 160, 16 kHz). Each 1 s unit
becomes 100 frames -> 50 encoder positions -> 10 embeddings after 5x pooling.

Features are computed **per unit from that unit's samples only** (centred STFT with reflect padding
inside the unit, floor at the unit's own ``max - 8``), so unit k's features never depend on audio
the model has not heard yet (DESIGN §2 rule 6) -- the usual whole-clip Whisper recipe would leak
12.5 ms of the next unit into each frame and normalise by a future maximum.
"""
from __future__ import annotations

import io
from functools import lru_cache

import numpy as np
import torch

from schemas.protocol import MODEL_AUDIO_RATE as SAMPLE_RATE
from schemas.thresholds import DEFAULT_UNIT_S

N_FFT = 400
HOP = 160
FRAMES_PER_SECOND = SAMPLE_RATE // HOP     # 100


@lru_cache(maxsize=4)
def mel_filters(n_mels: int = 80) -> torch.Tensor:
    """Whisper's slaney mel filter bank, [n_mels, n_fft//2 + 1], float32."""
    from transformers.audio_utils import mel_filter_bank

    fb = mel_filter_bank(num_frequency_bins=N_FFT // 2 + 1, num_mel_filters=n_mels, min_frequency=0.0,
                         max_frequency=SAMPLE_RATE / 2, sampling_rate=SAMPLE_RATE, norm="slaney",
                         mel_scale="slaney")
    return torch.from_numpy(np.ascontiguousarray(fb.T, dtype=np.float32))


@lru_cache(maxsize=1)
def _window() -> torch.Tensor:
    return torch.hann_window(N_FFT)


def decode_audio(data: bytes) -> tuple[np.ndarray, int]:
    """Decode FLAC/WAV bytes to mono float32 and its sample rate."""
    import soundfile as sf

    x, sr = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    return x.mean(axis=1) if x.shape[1] > 1 else x[:, 0], int(sr)


def to_16k(x: np.ndarray, sr: int) -> np.ndarray:
    if sr == SAMPLE_RATE:
        return x
    import soxr

    return soxr.resample(x, sr, SAMPLE_RATE).astype(np.float32)


def encode_flac(x: np.ndarray, sr: int = SAMPLE_RATE) -> bytes:
    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, np.clip(x, -1.0, 1.0), sr, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


def unit_log_mel(wave: np.ndarray | torch.Tensor, num_units: int, unit_s: float = DEFAULT_UNIT_S,
                 n_mels: int = 80) -> torch.Tensor:
    """[num_units, n_mels, 100*unit_s] float32 log-mel, each unit from its own samples only."""
    spu = int(round(unit_s * SAMPLE_RATE))
    x = torch.as_tensor(wave, dtype=torch.float32)
    need = num_units * spu
    if x.numel() < need:
        x = torch.nn.functional.pad(x, (0, need - x.numel()))
    x = x[:need].reshape(num_units, spu)
    spec = torch.stft(x, N_FFT, HOP, window=_window(), center=True, pad_mode="reflect", return_complex=True)
    power = spec[..., : spu // HOP].abs().pow(2)                     # drop the frame past the unit end
    mel = torch.matmul(mel_filters(n_mels), power)                   # [U, n_mels, frames]
    log = mel.clamp_min(1e-10).log10()
    log = torch.maximum(log, log.amax(dim=(1, 2), keepdim=True) - 8.0)
    return (log + 4.0) / 4.0
