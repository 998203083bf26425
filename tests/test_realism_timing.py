"""Timing realism: distributions, overlapping user starts, the closed-loop controller, silent stretches."""
from __future__ import annotations

import json

import numpy as np
import pytest

from generators.timing import control, sampling
from generators.common import Planner
from generators.registry import plan_script, plan_trajectory, trajectory_seed
from schemas.language import ENGLISH
from pipeline.compose import compose
from pipeline.units import slice_units
from schemas.config import ConfigError, Dist, Range, TimingConfig, load_config, parse_config
from schemas.script import Script, ScriptTurn, VoiceSpec
from tests.generated import FAST_VOICES

SR = 16_000
V_USER, V_ASST = VoiceSpec(name="en-us"), VoiceSpec(name="en-us+f3")


def test_distributions_sample_what_they_say():
    rng = np.random.default_rng(0)
    ex = Dist(kind="exgauss", mu=-0.32, sigma=0.18, tau=0.2)
    x = np.array([sampling.sample(rng, ex) for _ in range(20000)])
    assert x.mean() == pytest.approx(-0.12, abs=0.01) and x.std() == pytest.approx(np.hypot(0.18, 0.2), abs=0.01)
    ln = Dist(kind="lognormal", mu=np.log(0.6), sigma=0.4, lo=0.25, hi=2.0)
    y = np.array([sampling.sample(rng, ln) for _ in range(20000)])
    assert y.min() >= 0.25 and y.max() <= 2.0 and np.median(y) == pytest.approx(0.6, rel=0.05)
    emp = Dist(kind="empirical", q=(-0.4, -0.1, 0.1, 0.3, 1.2))
    z = np.array([sampling.sample(rng, emp) for _ in range(20000)])
    assert np.quantile(z, [0.25, 0.5, 0.75]) == pytest.approx([-0.1, 0.1, 0.3], abs=0.02)
    # a plain Range draws exactly what planners always drew
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    assert sampling.sample(r1, Range(lo=0.15, hi=0.6)) == float(round(r2.uniform(0.15, 0.6), 4))


def test_config_takes_dists_and_refuses_unsafe_ones():
    cfg = parse_config({"timing": {"user_gap_s": {"kind": "exgauss", "mu": 0, "sigma": 0.2, "tau": 0.2,
                                                  "lo": -0.5, "hi": 2}, "pause_s": [0.3, 1.0]}})
    assert isinstance(cfg.timing.user_gap_s, Dist) and isinstance(cfg.timing.pause_s, Range)
    for bad, field in (({"eot_s": {"kind": "normal", "mu": 0.3, "sigma": 0.1, "lo": 0.1, "hi": 0.6}}, "timing.eot_s"),
                       ({"detect_s": [0.2, 0.8]}, "timing.detect_s"),
                       ({"user_gap_s": {"kind": "normal", "mu": 0.2, "sigma": 0.1}}, "timing.user_gap_s"),
                       ({"pause_s": {"kind": "normal", "mu": 0.5, "sigma": 0.3}}, "timing.pause_s")):
        with pytest.raises(ConfigError, match=field):
            parse_config({"timing": bad})


def test_default_planner_draws_are_unchanged():
    """Default configs draw exactly the values (and number of values) they drew before realism."""
    t = TimingConfig()
    a = Planner.create(np.random.default_rng(7), t)
    turn = a.user("hello there")
    r = np.random.default_rng(7)
    Planner.create(r, t)   # the same voice draws as `a`
    assert turn.gap_s == float(round(r.uniform(0.15, 0.6), 4)) and turn.eot_s == float(round(r.uniform(0.2, 0.6), 4))
    assert turn.attrs == {}


def _run(turns, tts, lead_in=0.5):
    tl = compose(Script(scenario="t", seed=0, lead_in_s=lead_in, tail_s=1.0, turns=tuple(turns)), tts, SR, 1.0)
    return tl, slice_units(tl.events, tl.words, tl.num_units, 1.0, SR, None, ENGLISH)


def _ev(tl, id):
    return next(e for e in tl.events if e.id == id)


@pytest.mark.parametrize("gap", [-0.2, -0.6, -3.0])
def test_overlapping_user_start_leaves_the_assistant_unchanged(tone_tts, gap):
    def script(g):
        return [ScriptTurn(id="u1", role="user", text="one two three", voice=V_USER, eot_s=0.3),
                ScriptTurn(id="a1", role="assistant", text="four five six seven eight nine", voice=V_ASST, lead_s=0.0),
                ScriptTurn(id="u2", role="user", text="ten eleven", voice=V_USER, gap_s=g, eot_s=0.3),
                ScriptTurn(id="a2", role="assistant", text="twelve", voice=V_ASST, lead_s=0.0)]
    tl, units = _run(script(gap), tone_tts, lead_in=0.85)
    a1, u2 = _ev(tl, "a1"), _ev(tl, "u2")
    end = int(round(a1.end_s * SR))
    allowed = control.max_start_overlap(end, SR, SR)
    assert allowed == pytest.approx((end - (end - 1) // SR * SR) / SR + 0.3 - 1e-3)
    assert u2.start_s == pytest.approx(a1.end_s + max(gap, -allowed), abs=1e-4)
    assert u2.start_s < a1.end_s
    # the first window the assistant could act in (rule 3, shortest detect_s) starts after its natural end
    react = (int(round(u2.start_s * SR)) + int(0.3 * SR)) // SR + 1
    assert react * SR >= end
    _, plain = _run(script(0.3), tone_tts, lead_in=0.85)
    last = int(a1.end_s)   # every output played up to the assistant's end (units < last) is as with no overlap
    assert [(u.decision, u.spoken_text, u.turn_eos) for u in units[:last]] == \
        [(u.decision, u.spoken_text, u.turn_eos) for u in plain[:last]]
    assert units[last - 1].turn_eos and units[last - 1].spoken_text == plain[last - 1].spoken_text
    assert tl.stats["user_gaps_s"][0] == pytest.approx(u2.start_s - a1.end_s, abs=1e-4)


def test_user_never_talks_over_their_own_backchannel(tone_tts):
    from schemas.script import Overlay
    text = "alpha beta, gamma delta, epsilon zeta."
    bc = Overlay(kind="backchannel", text="mm hmm", role="user", voice=V_USER, boundary=1, offset_s=0.3)
    turns = [ScriptTurn(id="u1", role="user", text="hi", voice=V_USER, eot_s=0.3),
             ScriptTurn(id="a1", role="assistant", text=text, voice=V_ASST, overlays=(bc,), lead_s=0.0),
             ScriptTurn(id="u2", role="user", text="next", voice=V_USER, gap_s=-0.3, eot_s=0.3)]
    tl, _ = _run(turns, tone_tts)
    b = next(e for e in tl.events if e.kind == "backchannel")
    assert _ev(tl, "u2").start_s >= b.end_s + 0.2 - 1e-6


def test_controller_pulls_sessions_to_their_targets(espeak):
    from pipeline.compose import realised_figures

    base = load_config(None, preset="natural")

    def errors(gain):
        timing = base.timing.model_copy(update={"controller_gain": gain})
        ctl = base.timing.model_copy(update={"controller_gain": 0.7})
        out = []
        for j in range(6):
            seed = trajectory_seed(3, j)
            tl = compose(plan_script("conversation", seed, timing, voices=FAST_VOICES), espeak, SR, 1.0)
            targets = json.loads(json.dumps(tl.stats.get("control_targets") or {}))
            f = realised_figures(tl)
            if not targets:   # uncontrolled: compare with the targets the controlled twin draws
                tl2 = compose(plan_script("conversation", seed, ctl, voices=FAST_VOICES), espeak, SR, 1.0)
                targets = tl2.stats["control_targets"]
            m = f["minutes"]
            out.append(abs(f["gap_s"] / m - targets["gap_per_min"]) / targets["gap_per_min"]
                       + abs(f["pause_s"] / m - targets["pause_per_min"]) / targets["pause_per_min"])
        return float(np.mean(out))

    assert errors(0.7) < 0.8 * errors(0.0)


def test_controlled_offset_picks_the_lagging_figure():
    spec = control.ControlSpec(gap_pm=4.0, overlap_pm=3.0, pause_pm=6.0, gain=1.0, gap_lo=-0.8, gap_hi=1.5,
                          pause_lo=0.2, pause_hi=2.5)
    behind_on_overlap = {"minutes": 1.0, "gap_s": 4.0, "overlap_s": 2.0, "pause_s": 6.0}
    behind_on_gap = {"minutes": 1.0, "gap_s": 3.2, "overlap_s": 3.0, "pause_s": 6.0}
    on_target = {"minutes": 1.0, "gap_s": 4.0, "overlap_s": 3.0, "pause_s": 6.0}
    assert control.controlled_offset(0.2, behind_on_overlap, spec, max_overlap=0.5) == -0.5
    assert control.controlled_offset(0.2, behind_on_gap, spec, max_overlap=0.5) == pytest.approx(0.8)
    assert control.controlled_offset(0.2, on_target, spec, max_overlap=0.5) == 0.0
    half = spec.__class__(**{**spec.__dict__, "gain": 0.5})
    assert control.controlled_offset(0.2, on_target, half, max_overlap=0.5) == pytest.approx(0.1)
    assert control.controlled_pause(0.5, {"minutes": 1.0, "pause_s": 5.0}, 0.1, spec) == pytest.approx(1.6)


def test_silent_stretches_are_long_silences_before_user_turns(espeak):
    from pipeline.render import render_trajectory
    from pipeline.validate import validate_row
    from schemas.config import RunConfig

    cfg = RunConfig(timing=TimingConfig(silence_prob=1.0, silence_s=Range(lo=8.0, hi=12.0)), voices=FAST_VOICES)
    row = render_trajectory(cfg=cfg, traj_id="t", script=plan_trajectory(cfg, "conversation", 4), tts=espeak)
    stretches = json.loads(row.meta)["timing"].get("silent_stretches_s", [])
    assert stretches and all(8.0 <= s <= 12.0 + 1e-6 for s in stretches)
    assert validate_row(row, expect_tokens=False) == []
    script = json.loads(row.script)
    assert all(t["attrs"].get("silent_stretch") == "1" for t in script["turns"][1:] if t["role"] == "user")
