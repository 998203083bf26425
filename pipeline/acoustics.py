"""User-channel acoustics: noise, SNR mixing, the filters of the Full-Duplex-Bench v1.5 recipes, fades.

The recipes themselves are data (schemas/timeline.FD_BENCH_RECIPES); pipeline/mixer applies them.

Filters use scipy.signal: it is already a dependency of the stack, deterministic, and exposes the
exact biquad / FIR designs the FD-Bench recipes describe, so their responses can be tested.
"""
from __future__ import annotations

import numpy as np
from scipy import signal

from schemas.thresholds import SPEECH_FLOOR_AMP


def db_to_amp(db: float) -> float:
    return float(10 ** (db / 20))


def colored_noise(rng: np.random.Generator, n: int, color: str, sample_rate: int) -> np.ndarray:
    """Stationary noise with a 1/f^alpha power spectrum, unit RMS (white 0, pink 1, brown 2).

    Shaped in the frequency domain with a 50 Hz floor, so brown noise stays stationary (a random
    walk would not be, and SNR over a window would drift).
    """
    alpha = {"white": 0.0, "pink": 1.0, "brown": 2.0}[color]
    white = rng.standard_normal(n)
    if alpha == 0.0:
        x = white
    else:
        spec = np.fft.rfft(white)
        f = np.fft.rfftfreq(n, 1.0 / sample_rate)
        spec *= 1.0 / np.maximum(f, 50.0) ** (alpha / 2)
        x = np.fft.irfft(spec, n)
    x = x - x.mean()
    return (x / (np.sqrt(np.mean(x**2)) + 1e-12)).astype(np.float32)


def mask_from_intervals(intervals: list[tuple[int, int]], n: int) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    for a, b in intervals:
        m[max(0, a): max(0, min(n, b))] = True
    return m


def noise_gain_for_snr(speech: np.ndarray, noise: np.ndarray, mask: np.ndarray, snr_db: float) -> float:
    """Amplitude gain for `noise` so that energy(speech)/energy(gain*noise) over `mask` is snr_db.

    Energy ratio: 10**(snr/10) on power, hence sqrt for the amplitude (the factor-of-two trap).
    """
    es = float(np.sum(speech[mask].astype(np.float64) ** 2))
    en = float(np.sum(noise[mask].astype(np.float64) ** 2))
    if es <= 0 or en <= 0:
        raise ValueError("cannot set an SNR over a mask with no speech or no noise energy")
    return float(np.sqrt(es / (en * 10 ** (snr_db / 10))))


def snr_db(speech: np.ndarray, noise: np.ndarray, mask: np.ndarray) -> float:
    es = float(np.sum(speech[mask].astype(np.float64) ** 2))
    en = float(np.sum(noise[mask].astype(np.float64) ** 2))
    return float(10 * np.log10(es / en))


def estimate_snr_db(mix: np.ndarray, speech_mask: np.ndarray, noise_mask: np.ndarray) -> float:
    """Realised SNR from a mix alone: noise power from noise-only samples, speech = excess power.

    Valid when the noise is stationary and uncorrelated with speech, as ours is by construction.
    """
    x = mix.astype(np.float64)
    pn = float(np.mean(x[noise_mask] ** 2))
    e_mix = float(np.sum(x[speech_mask] ** 2))
    e_noise = pn * int(speech_mask.sum())
    return float(10 * np.log10(max(e_mix - e_noise, 1e-20) / max(e_noise, 1e-20)))


def high_shelf(x: np.ndarray, sample_rate: int, freq: float, gain_db: float, q: float = 0.707) -> np.ndarray:
    """RBJ-cookbook high-shelf biquad (the 'high-shelf -5 dB above 4 kHz' of FD-Bench)."""
    b, a = high_shelf_coeffs(sample_rate, freq, gain_db, q)
    return signal.lfilter(b, a, x).astype(np.float32)


def high_shelf_coeffs(sample_rate: int, freq: float, gain_db: float, q: float = 0.707) -> tuple[np.ndarray, np.ndarray]:
    A = 10 ** (gain_db / 40)
    w0 = 2 * np.pi * freq / sample_rate
    alpha = np.sin(w0) / (2 * q)
    cw = np.cos(w0)
    b = np.array([A * ((A + 1) + (A - 1) * cw + 2 * np.sqrt(A) * alpha),
                  -2 * A * ((A - 1) + (A + 1) * cw),
                  A * ((A + 1) + (A - 1) * cw - 2 * np.sqrt(A) * alpha)])
    a = np.array([(A + 1) - (A - 1) * cw + 2 * np.sqrt(A) * alpha,
                  2 * ((A - 1) - (A + 1) * cw),
                  (A + 1) - (A - 1) * cw - 2 * np.sqrt(A) * alpha])
    return b / a[0], a / a[0]


def lowpass(x: np.ndarray, sample_rate: int, cutoff: float, order: int = 8) -> np.ndarray:
    sos = signal.butter(order, cutoff, btype="low", fs=sample_rate, output="sos")
    return signal.sosfilt(sos, x).astype(np.float32)


def add_reflections(x: np.ndarray, sample_rate: int, taps: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Direct path plus discrete delayed copies: taps are (delay_s, gain_db). Output grows by the max delay."""
    n_extra = int(round(max(d for d, _ in taps) * sample_rate))
    out = np.zeros(len(x) + n_extra, dtype=np.float64)
    out[: len(x)] += x
    for delay, g in taps:
        k = int(round(delay * sample_rate))
        out[k: k + len(x)] += db_to_amp(g) * x
    return out.astype(np.float32)


def cut_and_fade_out(x: np.ndarray, cut: int, fade: int) -> np.ndarray:
    """x[:cut] unchanged, then x[cut:cut + fade] under a raised-cosine fade to zero, nothing after
    (an interruption cut, DESIGN §2 rule 3). The fade follows the cut so that the samples before
    it are those of the uncut audio: they were written before the interruption was heard."""
    y = x[:cut + fade].astype(np.float32).copy()
    fade = min(fade, len(y) - min(cut, len(y)))
    if fade > 0:
        y[cut:cut + fade] *= (0.5 * (1 + np.cos(np.linspace(0, np.pi, fade)))).astype(np.float32)
    return y


def last_active_sample(x: np.ndarray) -> int:
    """Index one past the last sample at or above the activity threshold (0 if none)."""
    idx = np.flatnonzero(np.abs(x) >= SPEECH_FLOOR_AMP)
    return int(idx[-1]) + 1 if len(idx) else 0


def window_peak_dbfs(x: np.ndarray, start: int, end: int) -> float:
    seg = np.abs(x[start:end])
    peak = float(seg.max()) if len(seg) else 0.0
    return float(20 * np.log10(max(peak, 1e-10)))
