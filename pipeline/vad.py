"""Energy voice-activity detection on 10 ms frames with an adaptive noise floor.

Used by `duplexsynth stats` to find speech in the stored audio channels (not in the script).
Per frame: log energy. Noise floor: the running minimum of the 100 ms-smoothed power over a few
seconds (minimum statistics, Martin 2001), so it follows slowly changing noise and ignores speech,
which always has short breaks inside such a window. Speech level: a high percentile over the whole channel. A frame is speech
when it is `margin_db` above the floor and no more than `range_db` below the speech level, with
hysteresis (onset needs `margin_db`, continuation only `margin_db - hysteresis_db`); runs shorter
than `min_speech_s` are dropped. Silences are *not* bridged here: the dGSLM IPU rule (>= 0.2 s)
is applied in generators/intervals.py. Background talkers (babble) are speech to an energy VAD, so
`stats` subtracts the recorded babble before running it; `floor_percentile` > 0 (a low percentile
instead of the minimum) trades some sensitivity for fewer babble false alarms on raw channels.
"""
from __future__ import annotations

import numpy as np
from scipy import ndimage

FRAME_S = 0.01
FLOOR_DB = -120.0


def frame_energy_db(x: np.ndarray, sample_rate: int, frame_s: float = FRAME_S) -> np.ndarray:
    """Mean-square energy per non-overlapping frame, in dB (digital silence at FLOOR_DB)."""
    n = int(round(frame_s * sample_rate))
    m = len(x) // n
    if m == 0:
        return np.zeros(0)
    fr = x[: m * n].astype(np.float64).reshape(m, n)
    return np.maximum(10 * np.log10(np.mean(fr**2, axis=1) + 1e-30), FLOOR_DB)


def band_energy_db(x: np.ndarray, sample_rate: int, lo_hz: float = 150.0, hi_hz: float = 4000.0,
                   frame_s: float = FRAME_S) -> np.ndarray:
    """Per-frame energy (dB) of the speech band only: where speech energy is and most noise
    (hum, rumble, hiss) is not. An FFT per 10 ms frame (Hann window), bins in [lo_hz, hi_hz]."""
    n = int(round(frame_s * sample_rate))
    m = len(x) // n
    if m == 0:
        return np.zeros(0)
    fr = x[: m * n].astype(np.float64).reshape(m, n) * np.hanning(n)
    spec = np.abs(np.fft.rfft(fr, axis=1)) ** 2
    f = np.fft.rfftfreq(n, 1.0 / sample_rate)
    band = (f >= lo_hz) & (f <= min(hi_hz, 0.45 * sample_rate))
    return np.maximum(10 * np.log10(spec[:, band].sum(axis=1) / n + 1e-30), FLOOR_DB)


def vad_frames(x: np.ndarray, sample_rate: int, margin_db: float = 5.0, hysteresis_db: float = 3.0,
               range_db: float = 45.0, floor_window_s: float = 8.0, smooth_s: float = 0.1,
               floor_bias_db: float = 1.5, floor_percentile: float = 0.0, min_speech_s: float = 0.03) -> np.ndarray:
    """Boolean speech flag per 10 ms frame (energy of the speech band, see `band_energy_db`)."""
    e = band_energy_db(x, sample_rate)
    if len(e) == 0:
        return np.zeros(0, dtype=bool)
    # minimum statistics: the floor is the lowest 100 ms-smoothed power within +-floor_window_s/2
    smooth = max(1, int(round(smooth_s / FRAME_S)))
    p = ndimage.uniform_filter1d(10 ** (e / 10), size=smooth, mode="nearest")
    sm = np.maximum(10 * np.log10(p + 1e-30), FLOOR_DB)
    win = max(3, int(round(floor_window_s / FRAME_S)) | 1)
    if floor_percentile <= 0:
        floor = ndimage.minimum_filter1d(sm, size=win, mode="nearest")
    else:   # a low percentile: the level of non-stationary noise (babble) rather than its deepest dips
        floor = ndimage.percentile_filter(sm[::5], floor_percentile, size=max(3, win // 5 | 1), mode="nearest")
        floor = np.repeat(floor, 5)[: len(sm)]
    floor = ndimage.uniform_filter1d(floor, size=smooth * 5, mode="nearest") + floor_bias_db
    level = float(np.percentile(e, 98))
    abs_min = max(level - range_db, FLOOR_DB + 20)
    on = (e >= floor + margin_db) & (e >= abs_min)
    cont = (e >= floor + margin_db - hysteresis_db) & (e >= abs_min - hysteresis_db)
    # hysteresis: a continuation frame counts if it is connected to an onset frame
    lab, n = ndimage.label(cont)
    keep = np.zeros(n + 1, dtype=bool)
    keep[np.unique(lab[on])] = True
    keep[0] = False
    speech = keep[lab]
    # drop blips
    lab, n = ndimage.label(speech)
    if n:
        sizes = ndimage.sum(speech, lab, index=np.arange(1, n + 1))
        small = np.flatnonzero(sizes < max(1, round(min_speech_s / FRAME_S))) + 1
        speech[np.isin(lab, small)] = False
    return speech


def frames_to_intervals(flags: np.ndarray, frame_s: float = FRAME_S) -> list[tuple[float, float]]:
    """[(start_s, end_s)] of runs of True frames."""
    if len(flags) == 0:
        return []
    d = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [(round(a * frame_s, 4), round(b * frame_s, 4)) for a, b in zip(starts, ends)]


def speech_intervals(x: np.ndarray, sample_rate: int, **kw: float) -> list[tuple[float, float]]:
    """Speech intervals (seconds) of a channel."""
    return frames_to_intervals(vad_frames(x, sample_rate, **kw))
