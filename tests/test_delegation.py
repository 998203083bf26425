"""Delegation outcomes on composed timelines (exact timings with ToneTTS), checked by the validator rules."""
from __future__ import annotations

import json

import pytest

from schemas.language import ENGLISH
from pipeline.compose import ScheduleError, compose
from pipeline.render import render_trajectory
from pipeline.units import slice_units
from pipeline.validate import validate_row
from schemas.config import RunConfig
from schemas.script import Delegation, Script, ScriptTurn, VoiceSpec

SR = 16_000
TASK_RULES = ("backend_after_delegate", "delegate_request", "backend_plain", "task_outcome")
VU, VA = VoiceSpec(name="en-us"), VoiceSpec(name="en-us+f3")


def u(id, text, **kw):
    return ScriptTurn(id=id, role="user", text=text, voice=VU, gap_s=0.3, eot_s=0.3, **kw)


def a(id, text, **kw):
    return ScriptTurn(id=id, role="assistant", text=text, voice=VA, lead_s=0.1, **kw)


def task(tid, latency, outcome="relayed", status="ok", **kw):
    return Delegation(task_id=tid, tool="lookup", request=f"look up {tid}", latency_s=latency, result=f"result of {tid}",
                      status=status, outcome=outcome, **kw)


def run(turns, tts):
    script = Script(scenario="delegation", seed=0, lead_in_s=0.5, tail_s=1.0, turns=tuple(turns))
    tl = compose(script, tts, SR, 1.0)
    units = slice_units(tl.events, tl.words, tl.num_units, 1.0, SR, None, ENGLISH)
    row = render_trajectory(cfg=RunConfig(seed=0, num=1, sample_rate=SR), traj_id="row", script=script, tts=tts)
    violations = [(v.rule, v.message) for v in validate_row(row, rules=TASK_RULES)]
    return tl, units, violations


def ev(tl, id):
    return next((e for e in tl.events if e.id == id), None)


def test_out_of_order_results_are_relayed_in_order_of_readiness(tone_tts):
    turns = [u("u1", "first thing please"), a("a1", "on it", delegate=task("t1", 9.0)),
             u("u2", "and second thing"), a("a2", "sure", delegate=task("t2", 1.5)),
             a("r1", "first result here", trigger="backend", ref="t1"),
             a("r2", "second result here", trigger="backend", ref="t2")]
    tl, units, violations = run(turns, tone_tts)
    assert violations == []
    b1, b2 = ev(tl, "t1.backend"), ev(tl, "t2.backend")
    assert b2.start_s < b1.start_s                                  # t2 finished first
    assert ev(tl, "r2").start_s < ev(tl, "r1").start_s              # and was relayed first
    for b, r in ((b1, "r1"), (b2, "r2")):
        assert int(ev(tl, r).start_s) >= int(b.start_s) + 1


def test_result_ready_while_user_talks_waits(tone_tts):
    turns = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 1.2)),
             u("u2", " ".join(["chatting"] * 14)), a("r1", "here it is", trigger="backend", ref="t1")]
    tl, _, violations = run(turns, tone_tts)
    assert violations == []
    b, u2, r1 = ev(tl, "t1.backend"), ev(tl, "u2"), ev(tl, "r1")
    assert u2.start_s < b.start_s < u2.end_s
    assert r1.start_s >= u2.end_s + 0.3


def test_ready_result_is_relayed_at_the_first_pause_before_the_next_user_turn(tone_tts):
    long_gap = u("u2", "by the way", ).model_copy(update={"gap_s": 4.0})
    turns = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 0.5)), long_gap, a("a2", "nice"),
             a("r1", "here it is", trigger="backend", ref="t1")]
    tl, _, violations = run(turns, tone_tts)
    assert violations == []
    assert ev(tl, "r1").start_s < ev(tl, "u2").start_s               # pulled forward: the floor was free


@pytest.mark.parametrize("latency, raced", [(0.9, True), (8.0, False)])
def test_cancel_racing_a_result(tone_tts, latency, raced):
    # a1 starts at 2.1 (issued 2.0); the user says "never mind" from ~2.95; cancel issued at the next reply
    turns = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", latency, outcome="cancelled")),
             u("u2", "never mind that"),
             a("a2", "okay cancelled", delegate=Delegation(task_id="c1", tool="cancel", request="Cancel task t1.",
                                                           latency_s=0.2, outcome=None, cancels="t1"))]
    tl, units, violations = run(turns, tone_tts)
    assert violations == []
    d = json.loads(ev(tl, "t1.delegate").attrs)
    assert d["outcome"] == "cancelled" and d["cancelled_by"] == "c1"
    backend = ev(tl, "t1.backend")
    if raced:   # the result arrived before the cancel went out: it is readable, and never relayed
        assert backend is not None and backend.start_s < ev(tl, "c1.delegate").start_s
        assert json.loads(backend.attrs)["outcome"] == "cancelled"
        assert any(i.kind == "backend" for x in units for i in x.input_events)
    else:       # cancelled in time: the harness never delivers it
        assert backend is None
        assert not any(i.kind == "backend" for x in units for i in x.input_events)
    assert "result of t1" not in " ".join(x.spoken_text for x in units)


def test_relaying_a_cancelled_task_is_refused(tone_tts):
    turns = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 8.0, outcome="cancelled")),
             u("u2", "never mind"),
             a("a2", "ok", delegate=Delegation(task_id="c1", tool="cancel", request="Cancel t1.", latency_s=0.2,
                                               outcome=None, cancels="t1")),
             a("r1", "here it is anyway", trigger="backend", ref="t1")]
    with pytest.raises(ScheduleError):
        run(turns, tone_tts)


def test_revision_supersedes_the_old_task(tone_tts):
    turns = [u("u1", "book friday"), a("a1", "booking", delegate=task("t1", 6.0, outcome="superseded")),
             u("u2", "make it thursday"), a("a2", "thursday then", delegate=task("t2", 1.0, outcome="revised", supersedes="t1")),
             a("r2", "booked thursday", trigger="backend", ref="t2")]
    tl, _, violations = run(turns, tone_tts)
    assert violations == []
    old = json.loads(ev(tl, "t1.backend").attrs)
    assert old["outcome"] == "superseded" and old["superseded_by"] == "t2" and "relay_turn" not in old
    assert json.loads(ev(tl, "t2.backend").attrs)["relay_turn"] == "r2"


def test_retry_then_relay_and_fallback(tone_tts):
    retry = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 2.0, outcome="retried", status="error")),
             a("a2", "trying again", trigger="backend", ref="t1", delegate=task("t2", 1.0, retry_of="t1")),
             a("r2", "got it", trigger="backend", ref="t2")]
    tl, _, violations = run(retry, tone_tts)
    assert violations == []
    assert json.loads(ev(tl, "t2.delegate").attrs)["retry_of"] == "t1"
    assert int(ev(tl, "a2").start_s) >= int(ev(tl, "t1.backend").start_s) + 1
    fallback = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 3.0, outcome="fallback", status="timeout")),
                a("f1", "sorry it timed out", trigger="backend", ref="t1")]
    _, _, violations = run(fallback, tone_tts)
    assert violations == []


def test_validator_flags_broken_outcomes(tone_tts):
    turns = [u("u1", "check it"), a("a1", "checking", delegate=task("t1", 2.0, outcome="fallback", status="ok")),
             a("r1", "here", trigger="backend", ref="t1")]
    _, _, violations = run(turns, tone_tts)
    assert any("fallback" in msg for _, msg in violations)
