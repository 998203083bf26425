"""DESIGN §2 rules on composed timelines, with exact word timings (ToneTTS) and real espeak."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.acoustics import window_peak_dbfs
from schemas.language import ENGLISH
from pipeline.compose import compose
from pipeline.units import slice_units
from schemas.script import (Continuation, Delegation, Interruption, Overlay, Script, ScriptTurn, Timer,
                            VoiceSpec)
from schemas.trajectory import Event

SR = 16_000
V_USER, V_ASST = VoiceSpec(name="en-us"), VoiceSpec(name="en-us+f3")
LONG = ("It will be sunny and twenty degrees in Paris. Expect a light breeze in the afternoon, "
        "and clouds later. Take sunglasses, and maybe a light jacket for the evening.")


def user(id: str, text: str, **kw) -> ScriptTurn:
    return ScriptTurn(id=id, role="user", text=text, voice=V_USER, **kw)


def asst(id: str, text: str, **kw) -> ScriptTurn:
    return ScriptTurn(id=id, role="assistant", text=text, voice=V_ASST, **kw)


def run(turns, tts, lead_in=0.5, unit_s=1.0):
    tl = compose(Script(scenario="t", seed=0, lead_in_s=lead_in, tail_s=1.0, turns=tuple(turns)), tts, SR, unit_s)
    units = slice_units(tl.events, tl.words, tl.num_units, unit_s, SR, None, ENGLISH)
    return tl, units


def ev(tl, id):
    return next(e for e in tl.events if e.id == id)


@pytest.mark.parametrize("eot, first_window", [(0.3, 3), (0.2999, 2)])
def test_rule2_reply_waits_for_end_of_turn_detection(tone_tts, eot, first_window):
    # 3 tone words = 0.85 s; lead-in 0.85 s, so the user ends at exactly 1.70 s.
    tl, units = run([user("u1", "one two three", eot_s=max(eot, 0.2) if eot >= 0.2 else 0.2),
                     asst("a1", "four five", lead_s=0.0)], tone_tts, lead_in=0.85)
    assert ev(tl, "u1").end_s == pytest.approx(1.70)
    # end + eot = 2.0 exactly lies in window 2 -> reply in window 3; 1.9999 lies in window 1 -> window 2.
    tl2, units2 = run([user("u1", "one two three", eot_s=0.3), asst("a1", "four five", lead_s=0.0)], tone_tts,
                      lead_in=0.85 - (0.3 - eot))
    a1 = ev(tl2, "a1")
    assert int(round(a1.start_s * SR)) // SR == first_window
    assert a1.start_s == pytest.approx(first_window * 1.0)
    assert [u.decision for u in units2[: first_window - 1]] == ["listen"] * (first_window - 1)
    assert units2[first_window - 1].decision == "speak"
    assert "respond" in units2[first_window - 1].labels


def test_rule1_window0_silent_even_for_a_first_assistant_turn(tone_tts):
    tl, units = run([asst("a1", "hello there friend", lead_s=0.0)], tone_tts, lead_in=0.0)
    assert ev(tl, "a1").start_s >= 1.0
    audio = tl.render_stem("assistant")
    assert window_peak_dbfs(audio, 0, SR) < -50


def _asst_attrs() -> str:
    """The attrs compose writes for an assistant turn (schemas.attrs), so the event is a real one."""
    from schemas.attrs import AssistantTurnAttrs, dump_attrs
    return dump_attrs(AssistantTurnAttrs(trigger="user", voice=V_ASST, planned_text="x", interrupted=False,
                                         unspoken_text=""))


def test_turn_eos_on_exact_boundary():
    # An assistant turn over [3.0, 5.0): windows 3 and 4 speak, 5 is silent; turn_eos on unit 3.
    events = [Event(id="a", kind="assistant_turn", role="assistant", start_s=3.0, end_s=5.0,
                    attrs=_asst_attrs())]
    units = slice_units(events, [], 8, 1.0, SR, None, ENGLISH)
    assert [u.decision for u in units] == ["listen", "listen", "speak", "speak", "listen", "listen", "listen", "listen"]
    assert [u.index for u in units if u.turn_eos] == [3]
    # One sample later the turn sounds in window 5 too, and turn_eos moves to unit 4.
    events[0] = events[0].model_copy(update={"end_s": 5.0 + 1 / SR})
    units = slice_units(events, [], 8, 1.0, SR, None, ENGLISH)
    assert units[4].decision == "speak" and [u.index for u in units if u.turn_eos] == [4]


def test_speech_tokens_follow_decisions():
    events = [Event(id="a", kind="assistant_turn", role="assistant", start_s=2.5, end_s=4.2,
                    attrs=_asst_attrs())]
    tokens = np.arange(6 * 25) % 6561
    units = slice_units(events, [], 6, 1.0, SR, tokens, ENGLISH)
    assert [len(u.speech_tokens) for u in units] == [0, 25, 25, 25, 0, 0]
    assert units[1].speech_tokens == list(range(50, 75))   # unit 1 carries window 2's tokens


@pytest.mark.parametrize("detect", [0.3, 0.55, 0.8])
def test_rule3_interruption_cut_at_reaction_window(tone_tts, detect):
    text = " ".join(f"w{i}." if i % 4 == 3 else f"w{i}" for i in range(24))
    it = Interruption(action="discard", text="wait stop", at_fraction=0.3, detect_s=detect, fade_s=0.03, eot_s=0.3)
    tl, units = run([user("u1", "hi there", eot_s=0.3), asst("a1", text, interruption=it),
                     asst("a2", "okay stopping")], tone_tts)
    cut_ev, turn = ev(tl, "a1.interruption"), ev(tl, "a1")
    a = json.loads(turn.attrs)
    react_window = int((round(cut_ev.start_s * SR) + round(detect * SR)) // SR) + 1
    assert a["cut_s"] == pytest.approx(react_window * 1.0)
    assert turn.end_s <= a["cut_s"]
    audio = tl.render_stem("assistant")
    next_start = int(round(ev(tl, "a2").start_s * SR))
    fade_end = react_window * SR + round(0.03 * SR)
    assert np.max(np.abs(audio[react_window * SR: fade_end])) > 0.0       # the fade follows the cut
    assert np.max(np.abs(audio[fade_end: next_start])) == 0.0             # silent from the fade's end
    assert units[react_window - 1].decision == "listen"
    assert "stop_discard" in units[react_window - 1].labels
    spoken = " ".join(u.spoken_text for u in units).split()
    unspoken = a["unspoken_text"].split()
    assert unspoken and not set(unspoken) & set(spoken)
    assert turn.text.split() + unspoken == text.split()
    eos_units = [u.index for u in units if u.turn_eos]
    assert (int(round(turn.end_s * SR)) - 1) // SR - 1 not in eos_units   # no turn_eos for the cut turn
    # the reply to the cut-in obeys rule 2 relative to the cut-in's end
    assert ev(tl, "a2").start_s >= ((round(cut_ev.end_s * SR) + round(0.3 * SR)) // SR + 1) * 1.0


def test_fade_after_cut_leaves_earlier_windows_as_without_the_interruption(tone_tts):
    """Rule 3, causally: window R (the reaction window) is played by unit R-1, the first unit whose
    input holds the detection point, so the fade lies there; everything before the cut is the audio
    and output of the same session without the interruption."""
    text = " ".join(["word"] * 30)
    it = Interruption(action="discard", text="stop", at_fraction=0.4, detect_s=0.5, fade_s=0.05, eot_s=0.3)
    tl, units = run([user("u1", "hi", eot_s=0.3), asst("a1", text, interruption=it)], tone_tts)
    bare, bare_units = run([user("u1", "hi", eot_s=0.3), asst("a1", text)], tone_tts)
    cut = round(json.loads(ev(tl, "a1").attrs)["cut_s"] * SR)
    R = cut // SR
    audio, uncut = tl.render_stem("assistant"), bare.render_stem("assistant")
    assert cut == R * SR and np.array_equal(audio[:cut], uncut[:cut])   # unchanged up to the cut
    fade = audio[cut: cut + int(0.05 * SR)]
    peaks = [float(x.max()) for x in np.array_split(np.abs(fade), 4)]   # the envelope falls through the fade
    assert peaks[0] > 0 and peaks[-1] < peaks[0] * 0.5
    assert window_peak_dbfs(audio, cut + int(0.05 * SR), (R + 1) * SR) < -50.0
    def out(us):
        return [(u.decision, u.spoken_text, u.speech_tokens, u.turn_eos, u.delegate) for u in us]
    assert out(units[:R - 1]) == out(bare_units[:R - 1])   # the outputs written before the detection
    assert units[R - 1].decision == "listen" and not units[R - 1].spoken_text   # the fade is no speech
    assert bare_units[R - 1].decision == "speak"


def test_repair_regenerates_only_the_unspoken_part(espeak):
    it = Interruption(action="repair", text="Actually, I meant Lyon.", at_fraction=0.3, detect_s=0.5, fade_s=0.03,
                      eot_s=0.3)
    sentences = ("It will be sunny in Lyon.", "Expect a light breeze in the afternoon, and clouds later.",
                 "Take sunglasses, and maybe a light jacket for the evening.")
    tl, units = run([user("u1", "What's the weather in Paris tomorrow?", eot_s=0.4),
                     asst("a1", LONG, interruption=it),
                     asst("a2", "", continuation=Continuation(of_turn="a1", prefix="Got it, Lyon.", sentences=sentences))],
                    espeak)
    a1 = ev(tl, "a1")
    voiced = a1.text.split()
    complete = sum(w.endswith(".") for w in voiced)
    # the user heard "sunny ... in Paris", which the correction changed: the repair says sentence 0 again
    # as it now stands; the two unchanged sentences are regenerated only where they were not heard
    assert complete >= 1
    assert ev(tl, "a2").text == " ".join(["Got it, Lyon.", *sentences])


def test_repair_after_unchanged_heard_sentences_regenerates_only_the_unspoken_part(espeak):
    it = Interruption(action="repair", text="Actually, I meant the evening.", at_fraction=0.55, detect_s=0.5,
                      fade_s=0.03, eot_s=0.3)
    sentences = ("It will be sunny and twenty degrees in Paris.", "Expect a light breeze in the afternoon, and clouds later.",
                 "Take sunglasses, and maybe a warm coat for the evening.")
    tl, _ = run([user("u1", "What's the weather in Paris tomorrow?", eot_s=0.4),
                 asst("a1", LONG, interruption=it),
                 asst("a2", "", continuation=Continuation(of_turn="a1", prefix="Got it.", sentences=sentences))],
                espeak)
    complete = sum(w.endswith(".") for w in ev(tl, "a1").text.split())
    assert 1 <= complete < 3   # the cut falls after a sentence the correction left as it was
    assert ev(tl, "a2").text == " ".join(["Got it.", *sentences[complete:]])


def test_backchannel_clean_twin(espeak):
    base = [user("u1", "Tell me about the weather in Paris.", eot_s=0.4)]
    plain = asst("a1", LONG)
    with_bc = plain.model_copy(update={"overlays": (
        Overlay(kind="backchannel", text="mm-hmm", role="user", voice=V_USER, boundary=0, offset_s=-0.3),
        Overlay(kind="other_directed", text="Honey, the door.", role="user", voice=V_USER, boundary=2, offset_s=0.0),
        Overlay(kind="background_speech", text="And now the news.", role="background", voice=V_USER, boundary=3,
                offset_s=0.1))})
    tl0, u0 = run(base + [plain], espeak)
    tl1, u1 = run(base + [with_bc], espeak)
    assert [(u.decision, u.spoken_text, u.turn_eos) for u in u0] == [(u.decision, u.spoken_text, u.turn_eos) for u in u1]
    assert np.array_equal(tl0.render_stem("assistant"), tl1.render_stem("assistant"))
    assert not np.array_equal(tl0.render_stem("user"), tl1.render_stem("user"))
    kinds = {e.kind for e in tl1.events}
    assert {"backchannel", "other_directed", "background_speech"} <= kinds
    assert any("backchannel" in u.labels for u in u1)
    # the backchannel sits near a phrase boundary of the assistant's speech
    bc = next(e for e in tl1.events if e.kind == "backchannel")
    assert abs(bc.start_s - json.loads(bc.attrs)["boundary_s"]) < 1.5


def test_rule5_relay_waits_for_result_and_for_the_user(tone_tts):
    d = Delegation(task_id="t1", tool="weather", request="weather in Oslo", latency_s=1.2, result="Oslo rain 5")
    turns = [user("u1", "check oslo", eot_s=0.3), asst("a1", "checking now", delegate=d),
             user("u2", " ".join(["talk"] * 12), eot_s=0.4),   # the result is ready while the user talks
             asst("a2", "nice chat"), asst("a3", "oslo has rain", trigger="backend", ref="t1")]
    tl, units = run(turns, tone_tts)
    a1, dl, be, u2, a3 = (ev(tl, i) for i in ("a1", "t1.delegate", "t1.backend", "u2", "a3"))
    assert dl.start_s == pytest.approx(int(a1.start_s))                 # issued at the unit that starts a1
    assert units[int(a1.start_s) - 1].delegate == "weather in Oslo"
    assert be.start_s == pytest.approx(dl.start_s + 1.2)
    assert u2.start_s < be.start_s < u2.end_s                           # ready while the user speaks
    assert a3.start_s >= ev(tl, "a2").end_s                             # never mid-sentence
    assert int(a3.start_s) >= int(be.start_s) + 1
    k = int(round(be.start_s * SR)) // SR
    assert [i.kind for i in units[k].input_events] == ["backend"] and "backend_result" in units[k].labels
    assert json.loads(be.attrs)["outcome"] == "relayed"
    assert "weather in Oslo" not in " ".join(u.spoken_text for u in units)


def test_proactive_timer_speaks_after_it_fires(tone_tts):
    turns = [user("u1", "set a timer", eot_s=0.3), asst("a1", "timer set", timer=Timer(timer_id="tm", seconds=4.5, label="tea")),
             asst("a2", "your tea is ready", trigger="timer", ref="tm")]
    tl, units = run(turns, tone_tts)
    fire = ev(tl, "tm").start_s
    assert fire == pytest.approx(int(ev(tl, "a1").start_s) + 4.5)
    a2 = ev(tl, "a2")
    assert int(a2.start_s) == int(fire) + 1
    assert "proactive" in units[int(a2.start_s) - 1].labels
    assert "timer_fired" in units[int(fire)].labels


def test_pause_inside_user_turn_does_not_trigger_reply(tone_tts):
    from schemas.script import Pause
    turns = [user("u1", "book a table for", eot_s=0.3, pause=Pause(after_word=3, dur_s=1.5, filler="um")),
             asst("a1", "sure thing")]
    tl, units = run(turns, tone_tts)
    pause, u1, a1 = ev(tl, "u1.pause"), ev(tl, "u1"), ev(tl, "a1")
    assert pause.end_s - pause.start_s == pytest.approx(1.5)
    assert a1.start_s > u1.end_s > pause.end_s
    for k in range(int(pause.start_s) - 1, int(pause.end_s)):   # outputs played during the pause
        assert units[k].decision == "listen"
    assert any("hesitation_pause" in u.labels for u in units)
