"""Every validate rule has a mutation test: a real generated row, exactly that rule broken, exactly its id fires.

Rows come from the real generator (tests/generated.py, espeak-ng voices, validated clean before
use). Each mutation edits the stored row the way a generator bug would (a word moved, an attr
changed, a sound added to the assistant channel...), and the set of rule ids that fire is asserted
exactly. Where one edit cannot help breaking a second rule (a unit field is also derived from
events, so `labels_derived` fires with it), the expected set names both.
"""
from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest

from pipeline.io import decode_audio, encode_flac
from pipeline.validate import RULE_IDS, RULES, validate_row
from schemas.language import ENGLISH
from schemas.trajectory import TrajectoryRow
from tests.generated import FixtureRowInvalid, attrs, find_event, find_relay, find_truncated_turn


# An edit of the stored audio also makes it differ from what the row's own timeline description
# renders, so every audio mutation fires this rule beside the one it targets.
RERENDER = "timeline_renders_audio"


def fired(row: TrajectoryRow) -> set[str]:
    return {v.rule for v in validate_row(row, expect_tokens=False, recompose=True)}


def set_attrs(row: TrajectoryRow, event_id: str, **changes) -> None:
    for e in row.events:
        if e.id == event_id:
            e.attrs = json.dumps({**attrs(e), **changes}, sort_keys=True)
            return
    raise AssertionError(f"no event {event_id}")


def event(row: TrajectoryRow, event_id: str):
    return next(e for e in row.events if e.id == event_id)


def edit_audio(row: TrajectoryRow, channel: str, fn: Callable[[np.ndarray, int], None]) -> None:
    blob = getattr(row, channel)
    x, sr = decode_audio(blob.bytes)
    x = np.array(x, dtype=np.float32)
    fn(x, int(round(row.unit_s * sr)))
    blob.bytes = encode_flac(x, sr)


def first_turn(row: TrajectoryRow):
    return next(e for e in row.events if e.kind == "assistant_turn")


def user_before(row: TrajectoryRow, turn) -> object:
    return max((e for e in row.events if e.kind == "user_turn" and e.start_s < turn.start_s), key=lambda e: e.start_s)


def tone(x: np.ndarray, a: int, b: int, amp: float = 0.1) -> None:
    x[a:b] += amp * np.sin(2 * np.pi * 220 * np.arange(b - a) / 16000).astype(np.float32)


# ----------------------------------------------------------------------------- mutations, one per rule id

def m_audio_length(g):
    row = g.situation("turn_taking")
    row.duration_s += row.unit_s
    return row, {"audio_length"}


def m_unit_index(g):
    row = g.situation("turn_taking")
    row.units[0].index, row.units[1].index = 1, 0
    return row, {"unit_index", "labels_derived"}     # a unit's index is one of its derived fields


def m_rule1(g):
    row = g.situation("turn_taking")
    edit_audio(row, "assistant_audio", lambda x, U: tone(x, U // 4, U // 2))   # an assistant sound in window 0
    return row, {"rule1_silent_window0", RERENDER}


def m_listen_silent(g):
    row = g.situation("turn_taking")
    k = next(u.index for u in row.units if u.decision == "listen" and u.index >= 1 and u.index + 1 < len(row.units))
    edit_audio(row, "assistant_audio", lambda x, U: tone(x, (k + 1) * U + U // 4, (k + 1) * U + U // 2))
    return row, {"listen_silent", RERENDER}


def m_speak_active(g):
    row = g.situation("turn_taking")
    k = next(u.index for u in row.units if u.decision == "speak" and row.units[u.index + 1].decision == "speak")
    edit_audio(row, "assistant_audio", lambda x, U: x.__setitem__(slice((k + 1) * U, (k + 2) * U), 0.0))
    return row, {"speak_active", RERENDER}


def m_token_counts(g):
    row = g.situation("turn_taking")
    next(u for u in row.units if u.decision == "listen").speech_tokens = [7] * 25
    return row, {"token_counts"}


def m_labels_derived(g):
    row = g.situation("turn_taking")
    row.units[0].labels = sorted(row.units[0].labels + ["relay"])
    return row, {"labels_derived"}


def m_spoken_text_concat(g):
    row = g.situation("turn_taking")
    t = first_turn(row)
    t.text += " indeed"
    set_attrs(row, t.id, planned_text=attrs(t)["planned_text"] + " indeed")
    return row, {"spoken_text_concat"}


def m_voiced_plus_unspoken(g):
    row = g.situation("interruption_discard")
    t = find_truncated_turn(row)
    set_attrs(row, t.id, unspoken_text="words that were never planned")
    return row, {"voiced_plus_unspoken"}


def m_rule2(g):
    row = g.situation("turn_taking")
    u = user_before(row, first_turn(row))
    set_attrs(row, u.id, eot_s=5.0)        # the model could not yet know the user had finished
    return row, {"rule2_response_after_eot"}


def m_rule3(g):
    row = g.situation("interruption_discard")
    cut = find_event(row, "interruption")
    set_attrs(row, cut.id, cut_s=attrs(cut)["cut_s"] - 0.5)   # not at a window start, before the reaction window
    return row, {"rule3_interruption_cut"}


def m_rule4_only_interruptions_cut(g):
    row = g.situation("turn_taking")
    t = first_turn(row)
    cut = (int(t.end_s / row.unit_s) + 1) * row.unit_s
    set_attrs(row, t.id, interrupted=True, cut_s=cut, action="discard", truncated=[])
    return row, {"rule4_only_interruptions_cut", "labels_derived"}   # a cut turn derives a stop label, no turn_eos


def m_rule4_overlay(g):
    row = g.situation("backchannel")
    script = json.loads(row.script)
    turn = next(t for t in script["turns"] if t.get("overlays"))
    turn["text"] = "Well, " + turn["text"]   # the session without the backchannel says something else
    row.script = json.dumps(script)
    return row, {"rule4_overlay_keeps_output"}


def m_backend_after_delegate(g):
    row = g.situation("delegation")
    d = find_event(row, "delegate")
    set_attrs(row, d.id, latency_s=attrs(d)["latency_s"] + 10.0)
    return row, {"backend_after_delegate"}


def m_rule5(g):
    # a delegation whose result arrives after its acknowledgement started (a fast tool can answer before
    # an acknowledgement that a long request moved a unit later: schemas/decode_budget.py)
    for seed in range(1, 40):
        row = g.row("delegation", seed)
        b, _ = find_relay(row)
        ack = attrs(find_event(row, "delegate", task_id=attrs(b)["task_id"]))["turn"]
        if event(row, ack).start_s < b.start_s:
            break
    else:
        raise AssertionError("no delegation row in 39 seeds whose result arrives after its acknowledgement")
    set_attrs(row, b.id, relay_turn=ack)      # relayed by a turn that started before the result was readable
    return row, {"rule5_relay_after_ready"}


def m_rule6(g):
    row = g.situation("delegation")
    _, relay = find_relay(row)
    words = [w for w in row.words if w.event_id == relay.id]
    old, new = words[0].word, "987"
    words[0].word = new
    relay.text = relay.text.replace(old, new, 1)
    set_attrs(row, relay.id, planned_text=attrs(relay)["planned_text"].replace(old, new, 1))
    unit = row.units[int(round(words[0].start_s * 16000)) // 16000 - 1]
    unit.spoken_text = unit.spoken_text.replace(old, new, 1)
    return row, {"rule6_relay_facts_read"}    # a number the model has read nowhere


def continuation_of(row: TrajectoryRow) -> tuple[dict, dict, list[str], int]:
    """(script, its first continuation, that continuation's sentence elements, the element its text starts at)."""
    script = json.loads(row.script)
    turn = next(t for t in script["turns"] if t.get("continuation"))
    c = turn["continuation"]
    text = attrs(event(row, turn["id"]))["planned_text"]
    elements = ENGLISH.sentence_elements(c["sentences"])
    j = next(j for j in range(len(elements) + 1) if text == " ".join([c["prefix"], *elements[j:]]).strip())
    return script, c, elements, j


def m_rule7_continuation(g):
    row = g.situation("interruption_repair")
    script, c, elements, j = continuation_of(row)
    c["sentences"] = [*elements[:j], "This sentence was never heard.", *elements[j:]]   # now skipped silently
    row.script = json.dumps(script)
    return row, {"rule7_continuation_from_heard"}


def m_rule7_question(g):
    row = g.situation("assistant_question")
    q = next((e for e in row.events if e.kind == "assistant_turn" and e.text.rstrip().endswith("?")), None)
    assert q is not None, f"{row.id}: no assistant question: the fixture no longer has its situation"
    row.units[(int(round(q.end_s * 16000)) - 1) // 16000 - 1].turn_eos = False
    return row, {"rule7_question_ends_turn", "labels_derived"}    # turn_eos is derived from the turn too


def m_rule8(g):
    row = g.situation("interruption_repair")
    t = find_truncated_turn(row)
    tr = attrs(t)["truncated"][0]
    word = [w for w in row.words if w.event_id == t.id][tr["index"]]
    assert attrs(t)["cut_s"] >= word.end_s
    word.end_s = max(tr["planned_end_s"], attrs(t)["cut_s"] + 0.05)   # the cut word runs on past the cut
    return row, {"rule8_word_timings_true"}


def m_delegate_request(g):
    row = g.situation("delegation")
    d = find_event(row, "delegate")
    d.text += " <backend>"
    unit = next(u for u in row.units if u.delegate)
    unit.delegate += " <backend>"
    return row, {"delegate_request"}


def m_delegate_decode_budget(g):
    """The request written in the unit that starts its (speaking) turn, as before the decode budget:
    too long to decode there, and so also not where delegate_request wants a long request."""
    row = g.situation("delegation")
    d = find_event(row, "delegate")
    k = attrs(d)["unit"]
    assert row.units[k].decision == "listen" and row.units[k + 1].decision == "speak"
    set_attrs(row, d.id, unit=k + 1)
    row.units[k + 1].delegate, row.units[k + 1].task_id = row.units[k].delegate, row.units[k].task_id
    row.units[k + 1].labels = sorted({*row.units[k + 1].labels, "delegate"})
    row.units[k].delegate = row.units[k].task_id = None
    row.units[k].labels = [x for x in row.units[k].labels if x != "delegate"]
    return row, {"delegate_decode_budget", "delegate_request"}


def m_backend_plain(g):
    row = g.situation("delegation")
    b, _ = find_relay(row)
    b.text += " **done**"
    for u in row.units:
        for e in u.input_events:
            if e.task_id == attrs(b)["task_id"]:
                e.text += " **done**"
    return row, {"backend_plain"}


def m_task_outcome(g):
    row = g.situation("delegation")
    d = find_event(row, "delegate")
    set_attrs(row, d.id, outcome="cancelled")   # cancelled, yet its result is relayed and nothing cancels it
    return row, {"task_outcome"}


def m_no_clipping(g):
    row = g.situation("turn_taking")
    k = next(u.index for u in row.units if u.decision == "speak")
    edit_audio(row, "assistant_audio", lambda x, U: x.__setitem__((k + 1) * U + U // 2, 1.0))
    return row, {"no_clipping", RERENDER}


def m_snr_realised(g):
    row = g.situation("turn_taking")
    meta = json.loads(row.meta)
    noises = meta["timeline"]["mic"]["noises"]
    assert noises, "the fixture row has no noise draw"
    noises[0]["snr_db"] += 3.0   # the recorded draw, not the level it was mixed at
    row.meta = json.dumps(meta, sort_keys=True)
    return row, {"snr_realised"}


def m_text_lint(g):
    row = g.situation("turn_taking")
    script = json.loads(row.script)
    user = next(t for t in script["turns"] if t["role"] == "user")
    user["text"] += " Is the The Corner Shop open?"   # a name with its own article, after one
    row.script = json.dumps(script)
    return row, {"text_lint"}


def m_timeline_renders_audio(g):
    row = g.situation("turn_taking")
    meta = json.loads(row.meta)
    track = next(t for t in meta["timeline"]["tracks"] if t["stem"] == "assistant")
    track["offset"] += 1   # the description says one sample later than the audio holds it
    row.meta = json.dumps(meta, sort_keys=True)
    return row, {RERENDER}


def m_unit_one_turn(g):
    # the acknowledgement sounds one sample into the window where the relay starts: that output unit
    # would carry the acknowledgement's end and the relay's start
    # (a row whose acknowledgement is spoken before the relay: one that had read its result speaks the relay)
    for seed in range(1, 40):
        row = g.row("delegation", seed)
        _, relay = find_relay(row)
        before = [t for t in row.events if t.kind == "assistant_turn" and t.end_s <= relay.start_s]
        if before:
            break
    else:
        raise AssertionError("no delegation row in 39 seeds with an acknowledgement before its relay")
    ack = max(before, key=lambda t: t.end_s)
    ack.end_s = int(relay.start_s / row.unit_s) * row.unit_s + 1 / row.sample_rate
    assert ack.end_s <= relay.start_s
    return row, {"unit_one_turn", "labels_derived"}   # the acknowledgement's turn_eos unit moves with its end


def m_rule7_changed_fact(g):
    # a sentence the user heard before the cut now reads otherwise in the repair's sentences (the
    # correction changed it), while the repair still starts after it: the old fact is never corrected
    for seed in range(1, 30):
        row = g.row("interruption_repair", seed)
        script, c, elements, j = continuation_of(row)
        if j >= 1:
            break
    else:
        raise AssertionError("no repair in 29 seeds that starts after a sentence the user heard")
    c["sentences"] = [elements[0].replace(".", ", or so it seemed.", 1) if "." in elements[0]
                      else elements[0] + " Or so it seemed.", *elements[1:]]
    assert ENGLISH.sentence_elements(c["sentences"])[0] != elements[0]
    row.script = json.dumps(script)
    return row, {"rule7_changed_fact_resaid"}


def m_park_resumed_or_dropped(g):
    # the turn after a parked answer no longer says it picks it up or sets it aside
    row = g.situation("interruption_park")
    parked = next(e for e in row.events if e.kind == "assistant_turn" and attrs(e).get("action") == "park")
    after = next(e for e in row.events if e.kind == "assistant_turn" and parked.id in
                 (attrs(e).get("resumes"), attrs(e).get("drops")))
    set_attrs(row, after.id, resumes=None, drops=None)
    return row, {"park_resumed_or_dropped"}


def rederive_units(row: TrajectoryRow) -> None:
    """The unit fields as the generator derives them from the (edited) events and words."""
    from pipeline.units import slice_units
    from schemas.language import language
    row.units = slice_units(row.events, row.words, len(row.units), row.unit_s, row.sample_rate, None,
                            language(row.language))


def move_result(row: TrajectoryRow, backend, windows: int) -> None:
    """A backend result `windows` windows later (earlier if negative), its latency with it, units re-derived."""
    dt = windows * row.unit_s
    backend.start_s += dt
    backend.end_s += dt
    a = attrs(backend)
    d = find_event(row, "delegate", task_id=a["task_id"])
    for e in (backend, d):
        set_attrs(row, e.id, ready_s=attrs(e)["ready_s"] + dt, latency_s=attrs(e)["latency_s"] + dt)
    rederive_units(row)


def window(row: TrajectoryRow, t: float) -> int:
    return int(round(t * row.sample_rate)) // int(round(row.unit_s * row.sample_rate))


def ack_at_its_limit(g) -> tuple[TrajectoryRow, object, object]:
    """(row, acknowledgement, its task's backend) where the result is readable one unit after the
    acknowledgement's first unit: the acknowledgement was written a long request's unit ahead of it."""
    for seed in range(1, 40):
        row = g.row("delegation", seed)
        for d in (e for e in row.events if e.kind == "delegate"):
            a = attrs(d)
            ack = event(row, a["turn"])
            b = next((e for e in row.events if e.kind == "backend" and attrs(e)["task_id"] == a["task_id"]), None)
            long = a["unit"] == window(row, ack.start_s) - 2   # written in the listening unit before the turn
            if b is not None and long and attrs(ack)["trigger"] != "backend" \
                    and window(row, b.start_s) == window(row, ack.start_s):
                return row, ack, b
    raise AssertionError("no delegation row in 39 seeds whose result lands in its acknowledgement's first window")


def late_cancel(g, at_limit: bool, key: str = "cancels") -> tuple[TrajectoryRow, object, object]:
    """(row, call-off delegate, its target's backend) of a call-off written after the result was readable:
    a cancel (`key` "cancels") or the undo of a booking ("supersedes"); `at_limit`: the result lands in
    the window of the call-off's own unit."""
    for seed in range(0, 60):
        try:
            row = g.row("delegation_cancel", seed)
        except FixtureRowInvalid:   # a row another rule refuses is no fixture (its content is not this test's)
            continue
        c = next((e for e in row.events if e.kind == "delegate" and attrs(e).get(key)), None)
        b = c and next((e for e in row.events if e.kind == "backend" and attrs(e)["task_id"] == attrs(c)[key]),
                       None)
        if b is not None and (not at_limit or window(row, b.start_s) == attrs(c)["unit"]):
            assert attrs(c).get("after_result") is True
            return row, c, b
    raise AssertionError("no delegation_cancel row in 60 seeds whose cancel follows its result"
                         + (" in the same window" if at_limit else ""))


def m_ack_before_result(g):
    # the result one window earlier: in the window of the acknowledgement's first unit, which then has
    # read it ("crunching it now" over a result already in); latency and units move with it
    row, ack, b = ack_at_its_limit(g)
    move_result(row, b, -1)
    return row, {"ack_before_result"}


def m_cancel_after_result(g):
    # the cancel as the old generator wrote it: "the pending request", for a result its unit has read
    row, c, _ = late_cancel(g, at_limit=False)
    set_attrs(row, c.id, after_result=None)
    return row, {"cancel_after_result"}


def test_cancel_after_result_refuses_an_undo_written_as_if_the_booking_were_pending(generated):
    """The undo of a booking whose confirmation its unit has read, as the old generator wrote it ("in case
    it already went in"): no after-result variant."""
    row, c, _ = late_cancel(generated, at_limit=False, key="supersedes")
    assert fired(row) == set()
    set_attrs(row, c.id, after_result=None)
    assert fired(row) == {"cancel_after_result"}


def test_cancel_after_result_refuses_a_drop_one_window_before_the_result(generated):
    """The result one window later than the cancel's unit: asking to drop it is written before it is read
    (and a result arriving after its cancel breaks the task's outcome too)."""
    row, c, b = late_cancel(generated, at_limit=True)
    assert fired(row) == set()
    move_result(row, b, 1)
    assert fired(row) == {"cancel_after_result", "task_outcome"}


def test_ack_before_result_refuses_a_retry_line_over_the_retry_s_result(generated):
    """A retry's turn ("asking once more") relays only the failure it retries: with the retry's result
    moved into the window of its first unit, it is an acknowledgement over a result already in."""
    for seed in range(0, 60):
        row = generated.row("delegation_failure", seed)
        for d in (e for e in row.events if e.kind == "delegate" and attrs(e).get("retry_of")):
            a, turn = attrs(d), event(row, attrs(d)["turn"])
            b = next((e for e in row.events if e.kind == "backend" and attrs(e)["task_id"] == a["task_id"]), None)
            first = window(row, turn.start_s) - 1
            if (b is not None and attrs(turn).get("ref") == a["retry_of"] and a["unit"] == first - 1
                    and window(row, b.start_s) > first):
                assert fired(row) == set()
                move_result(row, b, first - window(row, b.start_s))
                assert fired(row) == {"ack_before_result"}
                return
    raise AssertionError("no delegation_failure row in 60 seeds with a retry line written a unit before it")


def test_ack_before_result_accepts_its_limit(generated):
    """The clean row at the limit (the result in the acknowledgement's first window) passes."""
    row, ack, b = ack_at_its_limit(generated)
    assert window(row, b.start_s) == window(row, ack.start_s)
    assert fired(row) == set()


MUTATIONS: dict[str, Callable] = {
    "audio_length": m_audio_length,
    "unit_index": m_unit_index,
    "rule1_silent_window0": m_rule1,
    "listen_silent": m_listen_silent,
    "speak_active": m_speak_active,
    "token_counts": m_token_counts,
    "labels_derived": m_labels_derived,
    "spoken_text_concat": m_spoken_text_concat,
    "voiced_plus_unspoken": m_voiced_plus_unspoken,
    "rule2_response_after_eot": m_rule2,
    "rule3_interruption_cut": m_rule3,
    "rule4_only_interruptions_cut": m_rule4_only_interruptions_cut,
    "rule4_overlay_keeps_output": m_rule4_overlay,
    "backend_after_delegate": m_backend_after_delegate,
    "rule5_relay_after_ready": m_rule5,
    "rule6_relay_facts_read": m_rule6,
    "rule7_continuation_from_heard": m_rule7_continuation,
    "rule7_question_ends_turn": m_rule7_question,
    "rule7_changed_fact_resaid": m_rule7_changed_fact,
    "park_resumed_or_dropped": m_park_resumed_or_dropped,
    "rule8_word_timings_true": m_rule8,
    "unit_one_turn": m_unit_one_turn,
    "delegate_request": m_delegate_request,
    "delegate_decode_budget": m_delegate_decode_budget,
    "backend_plain": m_backend_plain,
    "task_outcome": m_task_outcome,
    "ack_before_result": m_ack_before_result,
    "cancel_after_result": m_cancel_after_result,
    "no_clipping": m_no_clipping,
    "snr_realised": m_snr_realised,
    "timeline_renders_audio": m_timeline_renders_audio,
    "text_lint": m_text_lint,
}


def test_every_rule_has_a_mutation_test():
    from tests.test_omni_facts import FACT_RULES          # the Omni fact rules: a mutation test each there
    from tests.test_omni_validate import OMNI_MUTATIONS   # the Omni rules' mutations live there
    assert set(MUTATIONS) | set(OMNI_MUTATIONS) | set(FACT_RULES) == set(RULE_IDS)
    assert len(RULE_IDS) == len(set(RULE_IDS)) == len(RULES)


@pytest.mark.parametrize("rule_id", list(MUTATIONS))
def test_breaking_one_rule_fires_exactly_its_id(generated, rule_id):
    row, want = MUTATIONS[rule_id](generated)
    assert rule_id in want
    got = fired(row)
    assert got == want, f"{rule_id}: fired {sorted(got)}, expected {sorted(want)}"
    for v in validate_row(row, expect_tokens=False, recompose=True):
        assert f"[{v.rule}]" in str(v) and v.row_id == row.id


def test_rule7_a_question_before_a_timer_announcement_leaves_room_to_answer(generated):
    """The timer row's small-talk reply turned into a question: the announcement follows it unprompted a
    few seconds later with no user speech, so the user had no room to answer (§2 rule 7)."""
    row = generated.situation("timer_smalltalk")
    turns = [e for e in row.events if e.kind == "assistant_turn"]
    announce = next(e for e in turns if attrs(e)["trigger"] == "timer")
    reply = turns[turns.index(announce) - 1]
    assert attrs(reply)["trigger"] == "user" and not reply.text.rstrip().endswith("?"), \
        f"{row.id}: the fixture no longer has a small-talk reply before its announcement"
    assert announce.start_s - reply.end_s < 5.0
    assert fired(row) == set()
    reply.text = reply.text.rstrip().rstrip(".!") + "?"
    got = {v.rule: str(v) for v in validate_row(row, expect_tokens=False, recompose=True)}
    assert "rule7_question_ends_turn" in got and "to answer" in got["rule7_question_ends_turn"], got


# ----------------------------------------------------------------------------- more negatives (rules 1, 2, 3, 5)

def test_rule2_refuses_an_eot_below_200_ms(generated):
    row = generated.situation("turn_taking")
    set_attrs(row, user_before(row, first_turn(row)).id, eot_s=0.1)
    assert fired(row) == {"rule2_response_after_eot"}


def test_rule3_refuses_detect_outside_03_08(generated):
    row = generated.situation("interruption_discard")
    cut = find_event(row, "interruption")
    set_attrs(row, cut.id, detect_s=0.95)
    assert fired(row) == {"rule3_interruption_cut"}


def test_rule3_refuses_a_turn_sounding_past_its_cut(generated):
    row = generated.situation("interruption_discard")
    t = find_truncated_turn(row)
    t.end_s = attrs(t)["cut_s"] + 0.3
    # the audio and words still stop at the cut; only the event claims it sounds on
    assert "rule3_interruption_cut" in fired(row)


def test_listen_silent_excuses_only_the_fade_after_a_cut(generated):
    """The listening window a cut starts carries the cut's fade first (rule 3: the fade follows the
    cut); a sound after the fade's end is no fade and breaks listen_silent."""
    row = generated.situation("interruption_discard")
    t = find_truncated_turn(row)
    a = attrs(t)
    cut, fade = round(a["cut_s"] * 16000), round(a["fade_s"] * 16000)
    k = cut // 16000 - 1
    assert row.units[k].decision == "listen"
    asst, _ = decode_audio(row.assistant_audio.bytes)
    assert np.max(np.abs(asst[cut: cut + fade])) > 10 ** (-50 / 20)   # the fade itself is heard ...
    assert fired(row) == set()                                          # ... and allowed
    edit_audio(row, "assistant_audio", lambda x, U: tone(x, cut + fade + 80, cut + fade + 800))
    assert fired(row) == {"listen_silent", RERENDER}


def test_rule8_refuses_a_voiced_word_starting_at_the_cut(generated):
    """A word starting in the fade after the cut is unspoken (rule 3): recording it as voiced fires rule 8."""
    row = generated.situation("interruption_discard")
    t = find_truncated_turn(row)
    cut = attrs(t)["cut_s"]
    last = max((w for w in row.words if w.event_id == t.id), key=lambda w: w.start_s)
    last.start_s = last.end_s = cut
    assert fired(row) == {"rule8_word_timings_true", "labels_derived"}   # its unit's spoken_text derives from it


def test_rule5_refuses_a_relay_that_starts_while_the_user_speaks(generated):
    row = generated.situation("delegation")
    b, relay = find_relay(row)
    u = next(e for e in row.events if e.kind == "user_turn")
    u.start_s, u.end_s = relay.start_s - 0.2, relay.start_s + 0.2   # the user talks over the relay's start
    got = fired(row)
    assert "rule5_relay_after_ready" in got


def test_rule1_holds_on_every_fixture_family(generated):
    """The clean rows themselves: every rule passes (validated on creation too), window 0 is silent."""
    for name in ("turn_taking", "backchannel", "interruption_repair", "delegation", "proactive_timer"):
        row = generated.situation(name)
        assert validate_row(row, expect_tokens=False, recompose=True) == []
        assert row.units[0].decision == "listen"


def test_half_heard_word_is_not_heard_for_rule7(generated):
    """Rule 8's half-audible test feeds rule 7: making the cut word barely audible changes what was heard."""
    row = generated.situation("interruption_repair")
    t = find_truncated_turn(row)
    a = attrs(t)
    tr = a["truncated"][0]
    word = [w for w in row.words if w.event_id == t.id][tr["index"]]
    heard = (a["cut_s"] - word.start_s) / (tr["planned_end_s"] - word.start_s)   # the fade follows the cut
    assert 0 < heard <= 1
    from pipeline.validate import RowView, _heard_words
    n = _heard_words(RowView(row, False), t)
    assert n == (tr["index"] if heard < 0.5 else len([w for w in row.words if w.event_id == t.id]))
