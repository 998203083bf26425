"""Acoustics measured on rendered signals: realised SNR, FD-Bench recipe gains and filter responses."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from pipeline import acoustics as ac

SR = 16_000


def speech_like(rng, n):
    """Bursty, band-limited signal with silences: a stand-in for speech with a known active mask."""
    x = np.zeros(n, np.float32)
    mask = np.zeros(n, bool)
    t = 0
    while t < n - SR:
        dur = int(rng.uniform(0.3, 1.2) * SR)
        burst = ac.lowpass(rng.standard_normal(dur).astype(np.float32), SR, 3000.0) * 0.2
        x[t:t + dur] = burst * np.hanning(dur)
        mask[t:t + dur] = True
        t += dur + int(rng.uniform(0.3, 1.0) * SR)
    return x, mask


@pytest.mark.parametrize("color", ["white", "pink", "brown"])
@pytest.mark.parametrize("snr", [0.0, 10.0, 25.0])
def test_realised_snr_matches_the_draw(color, snr):
    rng = np.random.default_rng(7)
    s, mask = speech_like(rng, 20 * SR)
    noise = ac.colored_noise(rng, len(s), color, SR)
    g = ac.noise_gain_for_snr(s, noise, mask, snr)
    # exact from the stems: energy ratio 10**(snr/10), not amplitude ratio
    assert ac.snr_db(s, g * noise, mask) == pytest.approx(snr, abs=1e-6)
    # and estimated from the mix alone (what `stats` does with no stems) for steady noise at usual SNRs
    if color != "brown" and snr >= 10:
        est = ac.estimate_snr_db(s + g * noise, mask, ~mask)
        assert abs(est - snr) < 0.5


def test_snr_is_energy_not_amplitude():
    rng = np.random.default_rng(0)
    s = rng.standard_normal(SR).astype(np.float32)
    n = rng.standard_normal(SR).astype(np.float32)
    mask = np.ones(SR, bool)
    g = ac.noise_gain_for_snr(s, n, mask, 20.0)
    # 20 dB SNR means noise amplitude is 1/10 of the speech amplitude, power 1/100
    assert np.sqrt(np.mean((g * n) ** 2)) / np.sqrt(np.mean(s ** 2)) == pytest.approx(0.1, rel=1e-6)


def _gain_at(b, a, f):
    _, h = signal.freqz(b, a, worN=[f], fs=SR)
    return 20 * np.log10(abs(h[0]))


def test_other_directed_recipe_response():
    b, a = ac.high_shelf_coeffs(SR, 4000.0, -5.0)
    assert _gain_at(b, a, 100.0) == pytest.approx(0.0, abs=0.2)
    assert _gain_at(b, a, 7500.0) == pytest.approx(-5.0, abs=0.3)
    assert _gain_at(b, a, 4000.0) == pytest.approx(-2.5, abs=0.3)     # shelf midpoint
    imp = np.zeros(SR // 2, np.float32)
    imp[0] = 1.0
    y = ac.other_directed(imp, SR)
    direct = y[:40]
    # total direct-path gain at low frequency is -8 dB; reflections at 45 ms (-6 dB) and 120 ms (-12 dB)
    assert 20 * np.log10(abs(direct.sum())) == pytest.approx(-8.0, abs=0.3)
    for delay, rel in ((0.045, -6.0), (0.120, -12.0)):
        k = int(round(delay * SR))
        seg = y[k:k + 40].sum()
        assert 20 * np.log10(abs(seg)) - 20 * np.log10(abs(direct.sum())) == pytest.approx(rel, abs=0.3)


def test_background_recipe_response():
    sos = signal.butter(8, 3000.0, btype="low", fs=SR, output="sos")
    _, h = signal.sosfreqz(sos, worN=[500.0, 3000.0, 5000.0], fs=SR)
    db = 20 * np.log10(np.abs(h))
    assert db[0] == pytest.approx(0.0, abs=0.1) and db[1] == pytest.approx(-3.0, abs=0.2) and db[2] < -30
    tone = np.sin(2 * np.pi * 500 * np.arange(2 * SR) / SR).astype(np.float32)
    y = ac.background_speech(tone, SR)
    # steady-state 500 Hz: -15 dB direct plus an echo at 100 ms, -10 dB (1/sqrt(10) amplitude) in phase (50 cycles)
    expected = 20 * np.log10(ac.db_to_amp(-15) * (1 + ac.db_to_amp(-10)))
    rms = np.sqrt(np.mean(y[SR // 2: SR] ** 2)) * np.sqrt(2)
    assert 20 * np.log10(rms) == pytest.approx(expected, abs=0.3)


def test_fade_out_and_cut():
    x = np.ones(SR, np.float32) * 0.5
    y = ac.fade_out_and_cut(x, 8000, 480)
    assert len(y) == 8000 and y[7519] == pytest.approx(0.5) and abs(y[-1]) < 1e-6
    assert np.all(np.diff(y[-480:]) <= 1e-9)
