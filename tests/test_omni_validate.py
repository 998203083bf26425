"""Each Omni validate rule has a mutation test: a real visual_qa row, exactly that rule broken, exactly its id fires.

Rows come from the real generator (tests/generated.py: planner, composer, espeak-ng, Pillow frames),
validated clean before use. The (scenario, seed) of each situation is asserted to still hold.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from PIL import Image

from pipeline.validate import validate_row
from schemas.trajectory import TrajectoryRow
from tests.generated import attrs

# seed 7: the first answer ("That's blue.") does not name its object; seed 0: "The bar is blue." does
UNNAMED_ANSWER = ("visual_qa", 7)
# seed 2: "It says saved." states a text its frame makes readable, and does not name the window. A fact
# moved later must not move the object's first showing: an appears fact moved past the question that
# names the object breaks omni_question_names_shown too
UNNAMED_TEXT_ANSWER = ("visual_qa", 2)
NAMED_ANSWER = ("visual_qa", 0)
# seed 3: "From here, the sign says open. Which means ..." is cut when a frame shows it saying closed
CHANGE_ROW = ("visual_change", 3)


def fired(row: TrajectoryRow) -> set[str]:
    return {v.rule for v in validate_row(row, expect_tokens=False, recompose=True)}


def fact_of(row: TrajectoryRow, turn_id: str):
    """The visual event an assistant turn states (its attrs name the turn in stated_by)."""
    for e in row.events:
        if e.kind == "visual" and turn_id in (attrs(e).get("stated_by") or []):
            return e
    raise AssertionError(f"{row.id}: no visual fact stated by {turn_id}")


def answer(row: TrajectoryRow, names_label: bool):
    """The first answer that does (or does not) name the object its fact is about."""
    for e in row.events:
        if e.kind == "assistant_turn":
            label = attrs(fact_of(row, e.id))["label"]
            if (label in e.text.lower()) == names_label:
                return e
    raise AssertionError(f"{row.id}: no answer that {'names' if names_label else 'does not name'} its object")


def set_attrs(e, **changes) -> None:
    e.attrs = json.dumps({**attrs(e), **changes}, sort_keys=True)


def move_fact(row: TrajectoryRow, fact, unit: int) -> None:
    """The fact's event (and the visual_event label derived from it) at another frame's unit."""
    old = attrs(fact)["unit"]
    fact.start_s = fact.end_s = unit * row.unit_s
    set_attrs(fact, unit=unit)
    still = {attrs(e)["unit"] for e in row.events if e.kind == "visual"}
    if old not in still:
        row.units[old].labels = [x for x in row.units[old].labels if x != "visual_event"]
    row.units[unit].labels = sorted({*row.units[unit].labels, "visual_event"})


def stale_answer(row: TrajectoryRow):
    """(the turn a change cut, the visual event of that change) of a visual_change row."""
    turn = next(e for e in row.events if e.kind == "assistant_turn" and attrs(e).get("cut_by"))
    change = next(e for e in row.events if e.id == attrs(turn)["cut_by"])
    return turn, change


def m_frame_per_unit(g):
    row = g.row(*UNNAMED_ANSWER)
    row.frames = row.frames[:-1]   # a frame short: the last unit has no input image
    return row, {"omni_frame_per_unit"}


def m_fact_after_frame(g):
    row = g.row(*UNNAMED_TEXT_ANSWER)
    turn = answer(row, names_label=False)
    fact = fact_of(row, turn.id)
    assert attrs(fact)["change"] == "text_readable"
    window = int(turn.start_s // row.unit_s)
    assert attrs(fact)["unit"] < window, "the fixture's answer no longer waits for its frame"
    move_fact(row, fact, window)   # the first frame showing it is the answer's own window's: too early
    return row, {"omni_fact_after_frame"}


def m_named_objects_shown(g):
    row = g.row(*NAMED_ANSWER)
    turn = answer(row, names_label=True)
    fact = fact_of(row, turn.id)
    assert attrs(fact)["change"] == "appears"
    set_attrs(fact, label="thing")   # the frames show no object of the label the answer says
    # (the user's question is still fine: omni_question_names_shown reads the scene the frames are drawn
    # from, which still draws the object; only the event's record changed)
    return row, {"omni_named_objects_shown"}


def m_change_cut_after_frame(g):
    row = g.row(*CHANGE_ROW)
    turn, change = stale_answer(row)
    cut_window = round(attrs(turn)["cut_s"] / row.unit_s)
    assert attrs(change)["unit"] == cut_window - 1, "the fixture's cut is no longer in the window after its frame"
    move_fact(row, change, cut_window)   # the change first shows in the cut's own window: cut before it was read
    return row, {"omni_change_cut_after_frame"}


OMNI_MUTATIONS: dict[str, Callable] = {
    "omni_frame_per_unit": m_frame_per_unit,
    "omni_fact_after_frame": m_fact_after_frame,
    "omni_named_objects_shown": m_named_objects_shown,
    "omni_change_cut_after_frame": m_change_cut_after_frame,
}


@pytest.mark.parametrize("rule_id", list(OMNI_MUTATIONS))
def test_breaking_one_omni_rule_fires_exactly_its_id(generated, rule_id):
    row, want = OMNI_MUTATIONS[rule_id](generated)
    got = fired(row)
    assert got == want, f"{rule_id}: fired {sorted(got)}, expected {sorted(want)}"


def test_a_frame_that_is_not_a_jpeg_fires_the_frame_rule(generated):
    row = generated.row(*UNNAMED_ANSWER)
    png = io.BytesIO()
    Image.open(io.BytesIO(row.frames[1])).save(png, format="PNG")
    row.frames[1] = png.getvalue()
    assert fired(row) == {"omni_frame_per_unit"}
    row.frames[1] = b"\xff\xd8 not an image"
    assert fired(row) == {"omni_frame_per_unit"}


def test_audio_only_rows_pass_the_omni_rules(generated):
    row = generated.situation("turn_taking")
    assert not row.frames
    assert not {v.rule for v in validate_row(row, expect_tokens=False) if v.rule.startswith("omni_")}
    row.frames = [b"\xff\xd8"]   # frames on a row make it Omni: then they must be one per unit
    assert "omni_frame_per_unit" in {v.rule for v in validate_row(row, expect_tokens=False)}


def test_a_proactive_visual_reply_before_its_frame_fires_the_fact_rule(generated):
    row = generated.row("visual_watch", 1)
    ann = next(e for e in row.events if e.kind == "assistant_turn" and attrs(e)["trigger"] == "visual")
    fact = fact_of(row, ann.id)
    move_fact(row, fact, int(ann.start_s // row.unit_s) + 1)   # the change shows only after the reply began
    assert fired(row) == {"omni_fact_after_frame"}


def test_a_repair_stating_the_new_fact_before_its_frame_fires_the_fact_rule(generated):
    """The repair starts after the cut, so a frame late enough to come after the repair's start comes
    after the cut too: both rules fire, and the fact rule names the repair."""
    row = generated.row(*CHANGE_ROW)
    _, change = stale_answer(row)
    repair = next(e for e in row.events if e.kind == "assistant_turn" and attrs(e)["trigger"] == "visual_change")
    assert repair.id in attrs(change)["stated_by"]
    move_fact(row, change, int(repair.start_s // row.unit_s))   # "the sign says closed" before a frame shows it
    bad = validate_row(row, expect_tokens=False)
    assert {v.rule for v in bad} == {"omni_fact_after_frame", "omni_change_cut_after_frame"}
    assert any(v.rule == "omni_fact_after_frame" and repair.id in v.message for v in bad)


def test_a_cut_no_visual_event_explains_fires_the_only_interruptions_rule(generated):
    row = generated.row(*CHANGE_ROW)
    turn, _ = stale_answer(row)
    set_attrs(turn, cut_by="o9.v9")   # a cause the row does not hold
    assert fired(row) == {"rule4_only_interruptions_cut"}
