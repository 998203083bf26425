"""The scenario registry, the data-driven overlay families, the one ex-Gaussian sampler, the unit clock.

Overlay checks run on real planned scripts (generators/registry.plan_script) and, for the event
stream, on those scripts composed with espeak-ng (pipeline/compose).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from generators.common import Planner
from generators.registry import PLANNERS, plan_script
from generators.scenarios import overlay
from generators.timing import sampling
from pipeline.compose import compose
from schemas.config import SCENARIOS, Dist, TimingConfig, parse_config
from schemas.language import ENGLISH
from schemas.windows import (last_window_at, last_window_of, next_window, unit_samples, units_covering,
                             window_at, window_of, window_start)
from tests.generated import FAST_VOICES

FAMILIES = {"backchannel": overlay.BACKCHANNEL, "other_directed": overlay.OTHER_DIRECTED,
            "background_speech": overlay.BACKGROUND_SPEECH}
SEEDS = range(150)


# --- registry -------------------------------------------------------------------------------------

def test_registry_covers_exactly_the_config_scenarios():
    assert set(PLANNERS) == set(SCENARIOS) and len(PLANNERS) == len(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_family_plans_through_the_registry(scenario):
    s = plan_script(scenario, 7, TimingConfig())
    assert s.scenario == scenario and s.turns
    assert plan_script(scenario, 7, TimingConfig()) == s   # a function of the seed alone


def test_unknown_scenario_is_refused():
    with pytest.raises(ValueError, match="unknown scenario 'nope'"):
        plan_script("nope", 1, TimingConfig())


def test_no_module_exists_only_for_a_lookup():
    """Every planner module is named by the registry, and no module is left that nothing names."""
    pkg = Path(overlay.__file__).parent
    modules = {p.stem for p in pkg.glob("*.py") if p.stem != "__init__"}
    used = {getattr(fn, "func", fn).__module__.rsplit(".", 1)[-1] for fn in PLANNERS.values()}
    assert modules == used


# --- overlay families -----------------------------------------------------------------------------

def _overlays(scenario: str, timing: TimingConfig) -> list[tuple]:
    """(overlay, script) for every overlay of the scenario's planned scripts over SEEDS."""
    out = []
    for seed in SEEDS:
        s = plan_script(scenario, seed, timing)
        out += [(ov, s) for t in s.turns for ov in t.overlays]
    return out


@pytest.mark.parametrize("scenario", sorted(FAMILIES))
def test_overlay_family_plans_its_kind_role_voice_and_count(scenario):
    fam = FAMILIES[scenario]
    counts = set()
    for seed in SEEDS:
        s = plan_script(scenario, seed, TimingConfig())
        user, answer = s.turns
        assert user.role == "user" and answer.role == "assistant" and not user.overlays
        bounds = ENGLISH.phrase_boundaries(answer.text)
        assert 1 <= len(answer.overlays) <= min(fam.max_lines, len(bounds))
        counts.add(len(answer.overlays))
        assert len({ov.boundary for ov in answer.overlays}) == len(answer.overlays)   # distinct boundaries
        for ov in answer.overlays:
            assert (ov.kind, ov.role) == (fam.kind, fam.role)
            assert ov.voice != answer.voice
            assert (ov.voice == user.voice) == (fam.role == "user")
    assert counts == set(range(1, fam.max_lines + 1))


def test_backchannel_onsets_follow_the_configured_ex_gaussian():
    for mu, sigma, tau in ((-0.32, 0.18, 0.20), (0.4, 0.05, 0.1)):
        timing = parse_config({"timing": {"backchannel_onset": [mu, sigma, tau]}}).timing
        offsets = np.array([ov.offset_s for ov, _ in _overlays("backchannel", timing)])
        assert len(offsets) > 250
        se = np.sqrt(sigma ** 2 + tau ** 2) / np.sqrt(len(offsets))
        assert abs(offsets.mean() - (mu + tau)) < 5 * se, (mu, sigma, tau, offsets.mean())


@pytest.mark.parametrize("scenario", ["other_directed", "background_speech"])
def test_other_overlay_onsets_are_uniform_near_the_phrase_end(scenario):
    r = overlay.NEAR_PHRASE_END
    offsets = np.array([ov.offset_s for ov, _ in _overlays(scenario, TimingConfig())])
    assert len(offsets) > 150
    assert offsets.min() >= r.lo and offsets.max() <= r.hi
    assert abs(offsets.mean() - (r.lo + r.hi) / 2) < 5 * (r.hi - r.lo) / np.sqrt(12 * len(offsets))


@pytest.mark.parametrize("scenario", sorted(FAMILIES))
def test_composed_overlay_events_keep_kind_role_voice_and_onset(espeak, scenario):
    """The event the composer writes is the planned overlay: its kind, role, voice and offset from the boundary."""
    fam, sr = FAMILIES[scenario], 16000
    timing = parse_config({"timing": {"backchannel_onset": [0.1, 0.02, 0.05]}}).timing   # after the phrase end
    exact = total = 0
    for seed in range(4):
        script = plan_script(scenario, seed, timing, voices=FAST_VOICES)
        planned = script.turns[1].overlays
        tl = compose(script, espeak, sr, 1.0)
        turn = next(e for e in tl.events if e.kind == "assistant_turn")
        evs = sorted((e for e in tl.events if e.kind == fam.kind), key=lambda e: e.id)
        assert len(evs) == len(planned)
        by_text = {ov.text: ov for ov in planned}
        for e in evs:
            a = json.loads(e.attrs)
            ov = by_text[e.text]
            assert e.role == fam.role and a["voice"] == ov.voice.model_dump()
            assert turn.start_s <= e.start_s < turn.end_s   # over the answer
            total += 1
            exact += abs((e.start_s - a["boundary_s"]) - ov.offset_s) <= 2 / sr
    assert total >= 4 and exact >= 0.75 * total   # the rest were clipped into the turn


# --- the one ex-Gaussian sampler ------------------------------------------------------------------

def test_exgauss_matches_its_closed_form_mean_and_variance():
    mu, sigma, tau, n = -0.32, 0.18, 0.20, 20_000
    rng = np.random.default_rng(11)
    x = np.array([sampling.exgauss(rng, mu, sigma, tau) for _ in range(n)])
    sd = np.sqrt(sigma ** 2 + tau ** 2)
    assert abs(x.mean() - (mu + tau)) < 5 * sd / np.sqrt(n)
    assert abs(x.var() / sd ** 2 - 1) < 0.05


def test_exgauss_draw_order_per_caller():
    """A Dist skips the exponential draw at tau = 0; the backchannel onset always draws it (bytes unchanged)."""
    one, two = np.random.default_rng(3), np.random.default_rng(3)
    one.normal(0.1, 0.2)
    two.normal(0.1, 0.2), two.exponential(0.0)
    skip, keep = np.random.default_rng(3), np.random.default_rng(3)
    sampling.exgauss(skip, 0.1, 0.2, 0.0, skip_zero_tau=True)
    sampling.exgauss(keep, 0.1, 0.2, 0.0)
    assert skip.random() == one.random() and keep.random() == two.random()
    d = Dist(kind="exgauss", mu=0.1, sigma=0.2, tau=0.3)
    assert sampling.sample(np.random.default_rng(5), d) == round(sampling.exgauss(np.random.default_rng(5), 0.1, 0.2, 0.3), 4)
    timing = parse_config({"timing": {"backchannel_onset": [0.1, 0.2, 0.0]}}).timing
    p = Planner.create(np.random.default_rng(9), timing)
    ref = Planner.create(np.random.default_rng(9), timing)
    assert p.exgauss() == round(sampling.exgauss(ref.rng, 0.1, 0.2, 0.0), 4)
    assert p.rng.random() == ref.rng.random()


# --- the unit clock -------------------------------------------------------------------------------

@pytest.mark.parametrize("unit_s", [0.48, 1.0])
@pytest.mark.parametrize("sr", [16000, 22050, 24000, 44100])
def test_window_boundaries_are_exact(unit_s, sr):
    U = unit_samples(unit_s, sr)
    assert U == round(unit_s * sr)
    for k in range(300):
        t = k * unit_s                      # t = k*u, with whatever float error the product has
        acc = sum([unit_s] * k)             # the same time reached by adding u k times
        assert window_at(t, unit_s, sr) == window_at(acc, unit_s, sr) == k
        assert window_of(window_start(k, U), U) == k and window_start(k, U) == k * U
        assert units_covering(k * U, U) == k and units_covering(k * U + 1, U) == k + 1
        assert next_window(k * U, U) == k + 1
        if k:
            assert window_at(t - 1 / sr, unit_s, sr) == k - 1       # one sample below the boundary
            assert last_window_at(t, unit_s, sr) == k - 1           # a span ending at k*u lies before window k
            assert last_window_of(window_start(k, U), U) == k - 1
            assert next_window(k * U - 1, U) == k
        assert last_window_at(t + 1 / sr, unit_s, sr) == k


def test_float_error_near_a_boundary_rounds_to_the_sample():
    assert 11 * 0.48 * 16000 < 84480   # the product falls just short of the boundary sample...
    assert window_at(11 * 0.48, 0.48, 16000) == 11   # ...and still lies in window 11
    assert window_at(0.1 + 0.2, 0.3, 16000) == 1 and window_at(3 * 0.1, 0.1, 16000) == 3
    assert units_covering(0, 7680) == 0
