"""Visual variants of the audio families, and how stats counts cuts a frame made.

visual_interruption is interruption_repair about the scene: the user cuts in to say which object they
meant, and the repair answers about that one, no earlier than the window after the frame showing it.
visual_delegation is delegation about the scene: the assistant reads a flight code off a ticket the
camera shows, delegates its lookup (issued by a unit that has read that frame) and relays the result.
Rows come from the real generator (tests/generated.py), validated clean before use.
"""
from __future__ import annotations

import json

import pytest

from generators.scenes.bank import visual_bank
from generators.registry import missing_content
from jobs.cli import main as cli
from pipeline.validate import validate_row
from schemas.config import RunConfig
from schemas.script import Script
from tests.generated import attrs, write_dataset
from tests.test_omni_validate import fact_of, fired, move_fact

INTERRUPTION_ROW = ("visual_interruption", 1)
# seed 2: the repair reads a text; moving its text_readable fact keeps the object in view (moving an appears
# fact past the cut-in that names the object breaks omni_question_names_shown and omni_named_objects_shown too)
REPAIR_TEXT_ROW = ("visual_interruption", 2)
CHANGE_ROW = ("visual_change", 3)


def _turns(row):
    return {e.id: e for e in row.events if e.kind == "assistant_turn"}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_user_cuts_in_to_name_another_object_and_the_repair_answers_about_it(generated, language):
    row = generated.row(*INTERRUPTION_ROW, language=language)   # validated, the Omni rules included
    script = Script.model_validate_json(row.script)
    bank = visual_bank(language)
    (cut,) = [e for e in row.events if e.kind == "interruption"]
    assert attrs(cut)["action"] == "repair"
    answer, repair = (_turns(row)[a.turn] for a in script.scene.asks)
    first, other = ({o.id: o for o in script.scene.objects}[a.object] for a in script.scene.asks)
    assert first.label != other.label and attrs(answer)["interrupted"] and not attrs(repair).get("interrupted")
    assert bank.label(other.label) in cut.text                  # the user names the object they meant
    assert bank.label(other.label) in repair.text and bank.label(first.label) not in repair.text
    fact = fact_of(row, repair.id)                             # the frame that first shows the right object's fact
    assert attrs(fact)["label"] == other.label and repair.start_s >= (attrs(fact)["unit"] + 1) * row.unit_s
    assert cut.start_s < answer.end_s <= repair.start_s


def test_a_repair_about_an_object_before_its_frame_fires_the_fact_rule(generated):
    row = generated.row(*REPAIR_TEXT_ROW)
    repair = [e for e in row.events if e.kind == "assistant_turn"][-1]
    fact = fact_of(row, repair.id)
    assert attrs(fact)["change"] == "text_readable"
    move_fact(row, fact, int(repair.start_s // row.unit_s))   # the object shows only in the repair's own window
    assert fired(row) == {"omni_fact_after_frame"}


def test_stats_counts_visual_cuts_apart_from_interruptions(generated, tmp_path, capsys):
    rows = [generated.row(*CHANGE_ROW, row_id="s0-00000-0000000"),
            generated.row(*INTERRUPTION_ROW, row_id="s0-00000-0000001")]
    src = write_dataset(tmp_path / "src", rows)
    assert cli(["stats", str(src), "--json", "--workers", "1"]) == 0
    rep = json.loads(capsys.readouterr().out)
    cut_by = [(r, e) for r in rows for e in r.events if e.kind == "assistant_turn" and attrs(e).get("cut_by")]
    assert len(cut_by) == 1 and cut_by[0][0].scenario == "visual_change"
    vis = rep["omni"]["visual_cuts"]
    assert (vis["n"], vis["repairs"]) == (1, 1)
    r, turn = cut_by[0]
    frame = next(e for e in r.events if e.id == attrs(turn)["cut_by"])
    assert vis["frame_to_cut_s_min"] == pytest.approx(attrs(turn)["cut_s"] - frame.start_s, abs=1e-5)
    assert rep["interruptions"] == {"repair": 1}                 # the spoken cut-in only
    assert cli(["stats", str(src), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "(+ 1 visual cuts: see visual (Omni))" in text and "visual cuts (visual_change)      1 (" in text


DELEGATION_ROW = ("visual_delegation", 0)


def test_the_assistant_reads_the_flight_code_off_the_ticket_and_delegates_the_lookup(generated):
    row = generated.row(*DELEGATION_ROW)   # validated, the Omni and delegation rules included
    script = Script.model_validate_json(row.script)
    (ask,) = script.scene.asks
    ticket = next(o for o in script.scene.objects if o.id == ask.object)
    (d,) = [e for e in row.events if e.kind == "delegate"]
    (backend,) = [e for e in row.events if e.kind == "backend"]
    ack, relay = _turns(row)[ask.turn], _turns(row)[attrs(d)["relay_turn"]]
    assert ticket.label == "ticket" and ticket.text in ack.text and ticket.text in d.text   # read off the frame
    user = next(e for e in row.events if e.kind == "user_turn")
    assert ticket.text not in user.text                                                  # the user never says it
    fact = fact_of(row, ack.id)
    assert attrs(fact)["change"] == "text_readable" and attrs(d)["turn"] == ack.id
    assert attrs(d)["unit"] >= attrs(fact)["unit"] and ack.start_s >= (attrs(fact)["unit"] + 1) * row.unit_s
    assert attrs(relay)["trigger"] == "backend" and relay.start_s >= backend.start_s


def test_a_request_issued_before_the_frame_that_shows_its_code_fires_the_fact_rule(generated):
    row = generated.row(*DELEGATION_ROW)
    (d,) = [e for e in row.events if e.kind == "delegate"]
    fact = fact_of(row, attrs(d)["turn"])
    move_fact(row, fact, attrs(d)["unit"] + 1)   # the code becomes readable only after the request went out
    bad = validate_row(row, expect_tokens=False, recompose=True)
    assert {v.rule for v in bad} == {"omni_fact_after_frame"}
    assert any(v.message.startswith(f"{d.id}: ") for v in bad)


def test_visual_delegation_needs_a_lookup_section_and_its_request():
    assert missing_content("visual_delegation", "en") == "" and "visual_delegation" not in RunConfig().scenarios
    assert "visual lookup" in missing_content("visual_delegation", "zh")          # zh has no flight lookup
    assert "tools enabled (weather)" in missing_content("visual_delegation", "en", ("weather",))
