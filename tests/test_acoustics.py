"""Acoustics measured on rendered signals: realised SNR, FD-Bench recipe gains and filter responses."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from pipeline import acoustics as ac
from pipeline.mixer import apply_ops
from schemas.timeline import FD_BENCH_RECIPES
from schemas.vocab import EventKind

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
    y = apply_ops(imp, FD_BENCH_RECIPES[EventKind.OTHER_DIRECTED], SR)
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
    y = apply_ops(tone, FD_BENCH_RECIPES[EventKind.BACKGROUND_SPEECH], SR)
    # steady-state 500 Hz: -15 dB direct plus an echo at 100 ms, -10 dB (1/sqrt(10) amplitude) in phase (50 cycles)
    expected = 20 * np.log10(ac.db_to_amp(-15) * (1 + ac.db_to_amp(-10)))
    rms = np.sqrt(np.mean(y[SR // 2: SR] ** 2)) * np.sqrt(2)
    assert 20 * np.log10(rms) == pytest.approx(expected, abs=0.3)


def test_cut_and_fade_out_keeps_the_audio_before_the_cut_and_fades_after_it():
    x = np.ones(SR, np.float32) * 0.5
    y = ac.cut_and_fade_out(x, 8000, 480)
    assert len(y) == 8480 and np.array_equal(y[:8000], x[:8000])   # rule 3: unchanged up to the cut
    assert y[8000] == pytest.approx(0.5) and abs(y[-1]) < 1e-6 and y[8240] < 0.3
    assert np.all(np.diff(y[8000:]) <= 1e-9)
    assert len(ac.cut_and_fade_out(x, SR - 100, 480)) == SR   # a fade past the end keeps what there is


# ----------------------------------------------------------------------------- realism: the full mic

import json  # noqa: E402

import soundfile as sf  # noqa: E402

from pipeline import noises, rooms  # noqa: E402
from pipeline.io import decode_audio  # noqa: E402
from generators.registry import plan_trajectory  # noqa: E402
from pipeline.mixer import mic_scale  # noqa: E402
from pipeline.render import render_trajectory  # noqa: E402
from pipeline.scene import realised_snrs  # noqa: E402
from schemas.timeline import TimelineSpec  # noqa: E402
from pipeline.validate import validate_row  # noqa: E402
from schemas.config import AcousticsConfig, RunConfig  # noqa: E402
from tests.generated import FAST_VOICES  # noqa: E402

EVERYTHING = dict(noise_prob=1.0, babble_prob=1.0, hum_prob=1.0, reverb_prob=1.0, echo_prob=1.0, gain_prob=1.0)


def _render(espeak, seed=3, scenario="backchannel", **acoustics):
    cfg = RunConfig(acoustics=AcousticsConfig(**acoustics), voices=FAST_VOICES)
    row = render_trajectory(cfg=cfg, traj_id="t", script=plan_trajectory(cfg, scenario, seed), tts=espeak)
    user, sr = decode_audio(row.user_audio.bytes)
    asst, _ = decode_audio(row.assistant_audio.bytes)
    return row, user, asst, TimelineSpec.from_meta(json.loads(row.meta)).mic


@pytest.fixture(scope="module")
def noise_dir(tmp_path_factory):
    """A MUSAN/DNS-like folder: nested, mixed formats and rates, stereo."""
    root = tmp_path_factory.mktemp("noises")
    rng = np.random.default_rng(1)
    (root / "noise" / "free-sound").mkdir(parents=True)
    t = np.arange(3 * 8000) / 8000
    hvac = 0.2 * np.sin(2 * np.pi * 120 * t) + 0.05 * rng.standard_normal(len(t))
    sf.write(root / "noise" / "free-sound" / "hvac.wav", hvac, 8000)
    street = 0.1 * rng.standard_normal((5 * 22050, 2))
    sf.write(root / "noise" / "street.flac", street, 22050)
    (root / "README.txt").write_text("not audio")
    return root


@pytest.mark.parametrize("seed", [3, 8])
def test_every_component_realised_snr_within_half_db(espeak, noise_dir, seed):
    row, user, asst, scene = _render(espeak, seed=seed, noise_file_prob=1.0, noise_dir=noise_dir,
                                     reverb_kinds=("exp",), **EVERYTHING)
    assert [m.kind for m in scene.noises] == ["colour", "babble", "hum", "file"] and scene.echo and scene.room
    snrs = realised_snrs(user, row.events, scene, row.sample_rate, assistant=asst, tts=espeak)
    assert set(snrs) == {"noise", "noise.babble", "noise.hum", "noise.file"}
    for name, (drawn, realised) in snrs.items():
        assert abs(realised - drawn) < 0.5, (name, drawn, realised)
    assert validate_row(row, expect_tokens=False) == []
    file_noise = next(m for m in scene.noises if m.kind == "file")
    assert file_noise.path in ("noise/street.flac", "noise/free-sound/hvac.wav") and len(file_noise.sha256) == 16


def test_validation_catches_a_wrong_recorded_snr(espeak):
    row, *_ = _render(espeak, noise_prob=1.0, hum_prob=1.0)
    meta = json.loads(row.meta)
    assert meta["timeline"]["mic"]["noises"][1]["kind"] == "hum"
    meta["timeline"]["mic"]["noises"][1]["snr_db"] += 1.0
    bad = row.model_copy(update={"meta": json.dumps(meta)})
    assert [v.rule for v in validate_row(bad, expect_tokens=False)] == ["snr_realised"]


def test_noise_file_changed_after_rendering_is_reported(espeak, tmp_path):
    sf.write(tmp_path / "fan.wav", 0.1 * np.random.default_rng(0).standard_normal(16000), 16000)
    row, *_ = _render(espeak, noise_file_prob=1.0, noise_dir=tmp_path, noise_prob=0.0)
    rooms.load_audio.cache_clear()
    sf.write(tmp_path / "fan.wav", 0.1 * np.random.default_rng(1).standard_normal(16000), 16000)
    msgs = [v.message for v in validate_row(row, expect_tokens=False)]
    rooms.load_audio.cache_clear()
    assert any("changed since rendering" in m for m in msgs), msgs


def test_echo_delay_and_gain_recovered_by_cross_correlation(espeak):
    for seed in (2, 5, 11):
        row, user, asst, m = _render(espeak, seed=seed, noise_prob=0.0, echo_prob=1.0, echo_gain=(0.05, 0.2),
                                     gain_prob=1.0)
        echo = m.echo
        sr = row.sample_rate
        # normalised cross-correlation of the mic with the assistant channel, lags 0..600 ms
        n = 1 << int(np.ceil(np.log2(2 * len(user))))
        xc = np.fft.irfft(np.fft.rfft(user, n) * np.conj(np.fft.rfft(asst, n)), n)[: int(0.6 * sr)]
        lag = int(np.argmax(xc))
        coupling = xc[lag] / float(np.sum(asst.astype(np.float64) ** 2))
        assert abs(lag / sr - echo.delay_s) * 1000 <= 5.0
        expected_db = 20 * np.log10(echo.gain * mic_scale(m))
        assert abs(20 * np.log10(coupling) - expected_db) <= 1.0, (seed, coupling, expected_db)


def test_echo_through_the_room_keeps_its_direct_path(espeak):
    row, user, asst, m = _render(espeak, seed=4, noise_prob=0.0, echo_prob=1.0, reverb_prob=1.0,
                                 echo_gain=(0.1, 0.2), drr_db=(6.0, 12.0))
    assert m.echo.room.seed != m.room.seed and m.echo.room.rt60_s == m.room.rt60_s   # another position, same room
    sr = row.sample_rate
    n = 1 << int(np.ceil(np.log2(2 * len(user))))
    xc = np.fft.irfft(np.fft.rfft(user, n) * np.conj(np.fft.rfft(asst, n)), n)[: int(0.6 * sr)]
    lag = int(np.argmax(xc))
    assert abs(lag / sr - m.echo.delay_s) * 1000 <= 5.0
    coupling = xc[lag] / float(np.sum(asst.astype(np.float64) ** 2))
    assert abs(20 * np.log10(coupling / (m.echo.gain * mic_scale(m)))) <= 1.0


def test_no_sample_clips_at_the_loudest_settings(espeak):
    row, user, asst, m = _render(espeak, seed=6, user_gain_db=(15.0, 15.0), snr_db=(-6.0, -6.0),
                                 babble_prob=1.0, babble_snr_db=(0.0, 0.0), echo_prob=1.0, echo_gain=(0.2, 0.2),
                                 noise_prob=1.0)
    assert m.clip_guard_scale < 1.0
    assert float(np.max(np.abs(user))) <= 0.951 and float(np.max(np.abs(asst))) < 1.0
    assert validate_row(row, expect_tokens=False) == []


@pytest.mark.parametrize("rt60", [0.3, 0.6, 0.9])
def test_exp_rir_rt60_measured(rt60):
    h = rooms.exp_rir(seed=1, sample_rate=SR, rt60_s=rt60, drr_db=3.0)
    assert h[0] == 1.0
    assert rooms.schroeder_rt60(h[1:], SR) == pytest.approx(rt60, rel=0.1)
    tail_db = 10 * np.log10(np.sum(h[1:] ** 2))
    assert tail_db == pytest.approx(-3.0, abs=0.01)          # DRR as drawn


def _decay_rt60(y: np.ndarray, start: int, sr: int) -> float:
    """RT60 from the free decay of a signal after its source stops (interrupted-noise method)."""
    e = np.convolve(y[start:].astype(np.float64) ** 2, np.ones(160) / 160, mode="valid")[::80]
    db = 10 * np.log10(e / e[0] + 1e-20)
    i0, i1 = int(np.argmax(db <= -5)), int(np.argmax(db <= -25))
    t = np.arange(i0, i1) * 80 / sr
    return float(-60 / np.polyfit(t, db[i0:i1], 1)[0])


def test_reverb_tail_on_rendered_user_channel(espeak):
    row, user, asst, m = _render(espeak, seed=7, noise_prob=0.0, reverb_prob=1.0, rt60_s=(0.5, 0.8), drr_db=(0.0, 3.0))
    rt60 = m.room.rt60_s
    sr = row.sample_rate
    # the room's own decay, measured on a burst through the same regenerated RIR
    h = rooms.room_rir(m.room, sr)
    burst = np.zeros(3 * sr, np.float32)
    burst[: sr] = np.random.default_rng(0).standard_normal(sr).astype(np.float32)
    assert _decay_rt60(rooms.apply_rir(burst, h), sr, sr) == pytest.approx(rt60, rel=0.2)
    # and on the stored channel: after the user's last word the mic still rings, decaying at that rate
    last_user = max(w.end_s for w in row.words if w.role == "user")
    k = int(round(last_user * sr))
    tail = user[k: k + int(0.2 * sr)].astype(np.float64) / mic_scale(m)
    before = user[k - int(0.2 * sr): k].astype(np.float64) / mic_scale(m)
    assert 10 * np.log10(np.mean(tail ** 2) / np.mean(before ** 2)) > -25   # a tail, not digital silence
    assert np.mean(tail[-800:] ** 2) < np.mean(tail[:800] ** 2)            # that decays


def test_shoebox_room_rt60_in_range():
    pytest.importorskip("pyroomacoustics")
    h, info = rooms.shoebox_rir(seed=3, sample_rate=SR, rt60_s=0.4)
    assert h[0] == 1.0 and len(info["dims"]) == 3
    assert 0.25 < rooms.schroeder_rt60(h[1:], SR) < 0.7


def test_fd_bench_transfer_functions_on_noise():
    """Welch transfer-function estimates of the two recipes at the stated frequencies."""
    x = np.random.default_rng(3).standard_normal(20 * SR).astype(np.float32)

    def band_gain(y, f_lo, f_hi):
        f, pxy = signal.csd(x, y[: len(x)], fs=SR, nperseg=4096)
        _, pxx = signal.welch(x, fs=SR, nperseg=4096)
        sel = (f >= f_lo) & (f <= f_hi)
        return 20 * np.log10(np.mean(np.abs(pxy[sel] / pxx[sel])))

    bg = apply_ops(x, FD_BENCH_RECIPES[EventKind.BACKGROUND_SPEECH], SR)
    # -15 dB in the pass band, -3 dB more at the 3 kHz corner, far below above it
    assert band_gain(bg, 400, 600) == pytest.approx(-15.0, abs=1.0)
    assert band_gain(bg, 2950, 3050) == pytest.approx(-18.0, abs=1.0)
    assert band_gain(bg, 5000, 6000) < -45
    od = apply_ops(x, FD_BENCH_RECIPES[EventKind.OTHER_DIRECTED], SR)
    lo, hi = band_gain(od, 300, 700), band_gain(od, 6500, 7500)
    assert lo == pytest.approx(-8.0, abs=1.5)
    assert hi - lo == pytest.approx(-5.0, abs=1.0)          # the high shelf, measured on the output


def test_babble_bank_is_fixed_and_components_regenerate(espeak):
    bank = noises.babble_bank(espeak, SR)
    assert len(bank) == noises.BABBLE_BANK_TALKERS and all(len(b) >= noises.BABBLE_BANK_SECONDS * SR for b in bank)
    cfg = AcousticsConfig()
    m = noises.draw_noise("babble", np.random.default_rng(0), cfg, SR, cfg.babble_snr_db)
    a, b = noises.noise_signal(m, 5 * SR, SR, espeak), noises.noise_signal(m, 5 * SR, SR, espeak)
    assert np.array_equal(a, b) and np.sqrt(np.mean(a ** 2)) == pytest.approx(1.0)
    hum = noises.hum_signal(4, 3 * SR, SR, 50.0)
    spec = np.abs(np.fft.rfft(hum))
    assert np.argmax(spec) in (150, 450)    # 50 Hz or its 3rd harmonic dominates a 3 s window


def test_same_seed_same_bytes_with_every_component(espeak, noise_dir):
    kw = dict(noise_file_prob=1.0, noise_dir=noise_dir, **EVERYTHING)
    a, *_ = _render(espeak, seed=9, **kw)
    b, *_ = _render(espeak, seed=9, **kw)
    assert a.user_audio.bytes == b.user_audio.bytes and a.meta == b.meta


def test_default_config_renders_what_it_always_did(espeak):
    """No new component switched on: the user channel equals the original mixing code, sample for sample."""
    from generators.registry import plan_script
    from pipeline.compose import compose
    from pipeline.render import render_mic
    from pipeline.scene import snr_masks
    from schemas.timeline import Stem

    cfg = RunConfig(voices=FAST_VOICES)
    for seed in (1, 2, 3):
        tl = compose(plan_script("backchannel", seed, cfg.timing, voices=cfg.voices), espeak, SR, 1.0)
        got, scene, _ = render_mic(tl, cfg, np.random.default_rng([seed, 1]), tl.render_stem(Stem.ASSISTANT))
        assert scene.room is None and scene.echo is None and [x.kind for x in scene.noises] in ([], ["colour"])
        # the pre-realism implementation
        rng = np.random.default_rng([seed, 1])
        a = cfg.acoustics
        gain_db = float(round(rng.uniform(a.user_gain_db.lo, a.user_gain_db.hi), 3))
        own = tl.render_stem(Stem.USER)
        mix = own + tl.render_stem(Stem.OVERLAY)
        if rng.random() < a.noise_prob:
            color = str(a.noise_colors[int(rng.integers(len(a.noise_colors)))])
            snr = float(round(rng.uniform(a.snr_db.lo, a.snr_db.hi), 3))
            noise = ac.colored_noise(np.random.default_rng(int(rng.integers(2**31))), tl.n_samples, color, SR)
            g = ac.noise_gain_for_snr(own, noise, snr_masks(tl.events, tl.n_samples, SR)[0], snr)
            mix = mix + g * noise
        mix = mix * ac.db_to_amp(gain_db)
        peak = float(np.max(np.abs(mix)))
        if peak > 0.95:
            mix = mix * (0.95 / peak)
        assert np.array_equal(got, mix.astype(np.float32))
