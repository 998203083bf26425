"""`duplexsynth stats` building blocks: dGSLM interval figures, floor transitions, the energy VAD."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from pipeline import acoustics as ac
from pipeline import noises
from generators.intervals import backchannel_like, dialogue_figures, ipus_from_segments, transitions
from pipeline.stats import RowStats, aggregate, format_table
from pipeline.vad import FRAME_S, speech_intervals, vad_frames
from schemas.script import VoiceSpec

SR = 16_000


def test_dgslm_figures_on_hand_made_intervals():
    # A speaks 0-2 (with a 0.1 s dip that is not an IPU boundary), pauses 0.5 s, speaks 2.5-4;
    # B starts in overlap at 3.6 and speaks to 6; A backchannels 4.5-4.8 inside B's talk;
    # after 0.4 s of silence A speaks 6.4-8.
    segs = {"A": [(0.0, 1.0), (1.1, 2.0), (2.5, 4.0), (4.5, 4.8), (6.4, 8.0)], "B": [(3.6, 6.0)]}
    ipus = ipus_from_segments(segs)
    assert ipus["A"] == [(0.0, 2.0), (2.5, 4.0), (4.5, 4.8), (6.4, 8.0)]
    f = dialogue_figures(ipus)
    assert f["minutes"] == pytest.approx(8.0 / 60)
    assert f["ipu_s"] == pytest.approx(2.0 + 1.5 + 0.3 + 1.6 + 2.4)
    assert f["overlap_s"] == pytest.approx(0.4 + 0.3)
    assert f["pause_s"] == pytest.approx(0.5)          # A's 2.0-2.5 silence
    assert f["gap_s"] == pytest.approx(0.4)            # B ends 6.0, A starts 6.4
    assert backchannel_like(ipus) == {("A", 4.5, 4.8)}
    tr = transitions(ipus)
    assert [(t["from"], t["to"], round(t["fto_s"], 3)) for t in tr] == [("A", "B", -0.4), ("B", "A", 0.4)]


def test_pause_needs_no_other_speech_between():
    f = dialogue_figures({"A": [(0.0, 1.0), (2.0, 3.0)], "B": [(1.3, 1.6)]})
    assert f["pause_s"] == 0.0 and f["gap_s"] == pytest.approx(0.3 + 0.4)


def _espeak_scene(espeak, rng, seconds=30):
    texts = ["Hello there, how are you doing today?", "I would like to book a table for two people.",
             "Okay thanks.", "What's the weather like in Paris tomorrow, and should I take an umbrella?"]
    x = np.zeros(seconds * SR)
    truth = np.zeros(int(seconds / FRAME_S), bool)
    t, i = 0.5, 0
    while t < seconds - 4:
        s = espeak.synthesize(texts[i % 4], VoiceSpec(name="en-us"), SR)
        i += 1
        a = int(t * SR)
        x[a:a + len(s.audio)] += s.audio
        for w in s.words:
            truth[int((t + w.start_s) / FRAME_S): int(np.ceil((t + w.end_s) / FRAME_S))] = True
        t += len(s.audio) / SR + rng.uniform(0.3, 2.0)
    return x, truth


def _bridge(flags):
    """IPU-level frames: silences shorter than 0.2 s bridged."""
    f = flags.copy()
    lab, n = ndimage.label(~f)
    for k in range(1, n + 1):
        idx = np.flatnonzero(lab == k)
        if len(idx) < 20 and idx[0] > 0 and idx[-1] < len(f) - 1:
            f[idx] = True
    return f


@pytest.mark.parametrize("noise, snr, min_acc", [(None, None, 0.995), ("pink", 20, 0.98), ("white", 10, 0.94),
                                                 ("brown", 10, 0.97), ("hum", 15, 0.98), ("pink", 5, 0.88)])
def test_vad_finds_known_speech_in_noise(espeak, noise, snr, min_acc):
    rng = np.random.default_rng(0)
    x, truth = _espeak_scene(espeak, rng)
    if noise is not None:
        n = len(x)
        if noise == "hum":
            nz = noises.hum_signal(3, n, SR, 50.0)
        else:
            nz = ac.colored_noise(rng, n, noise, SR)
        x = x + ac.noise_gain_for_snr(x, nz, np.abs(x) > 1e-3, snr) * nz
    flags = _bridge(vad_frames(x, SR))
    ref = _bridge(truth)
    m = min(len(flags), len(ref))
    acc = float(np.mean(flags[:m] == ref[:m]))
    assert acc >= min_acc, acc
    if noise is None:   # clean: every IPU found, boundaries within 30 ms
        got = speech_intervals(x, SR)
        ipu = ipus_from_segments({"s": got})["s"]
        want = ipus_from_segments({"s": [(a * FRAME_S, b * FRAME_S) for a, b in _runs(ref)]})["s"]
        assert len(ipu) == len(want)
        for (a, b), (c, d) in zip(ipu, want):
            assert abs(a - c) <= 0.03 and abs(b - d) <= 0.03


def _runs(f):
    d = np.diff(np.concatenate([[0], f.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1)))


def test_aggregate_and_table_flag_figures_outside_the_band():
    def row(scale):
        fig = {"minutes": 1.0, "ipu_s": 52.0 * scale, "pause_s": 6.0, "gap_s": 4.3, "overlap_s": 3.4}
        return RowStats(id="x", scenario="conversation", figures=fig,
                        transitions=[{"from": "user", "to": "assistant", "fto_s": 0.8, "at": 1.0}],
                        backchannels=5, interruptions={"discard": 1}, speak_units=30, units=60,
                        snr={"noise": (10.0, 10.01)})
    agg = aggregate([row(1.0), row(1.0)])
    assert all(r["within"] for r in agg["reference"].values())
    assert agg["backchannels_per_min"] == 5 and agg["interruptions"] == {"discard": 2}
    assert agg["response_latency_s"]["p50"] == pytest.approx(0.8)
    assert agg["per_scenario"]["conversation"]["speak_share"] == 0.5
    bad = aggregate([row(1.5)])
    assert not bad["reference"]["ipu_s"]["within"]
    text = format_table(bad)
    assert "IPU (s)" in text and "NO" in text and "Fisher" in text and "realised SNR" in text
